/* The global attributes of an original-layout file (original_write.h). */
#include <netcdf.h>
#include <string.h>

#include "io/db/db_names.h"
#include "io/db/original_write.h"
#include "io/hdf5/nc_check.h"

/* What AxiSEM writes for each run. */
typedef struct sim_desc {
    const char *source_type, *sim_type;
    axb_excitation exc;
} sim_desc;

static const sim_desc SIMS[AXB_NSIM] = {
    [AXB_SIM_PX] = {"thetaforce", "force", AXB_EXC_DIPOLE},
    [AXB_SIM_PZ] = {"vertforce", "force", AXB_EXC_MONOPOLE},
    [AXB_SIM_MZZ] = {"mrr", "moment", AXB_EXC_MONOPOLE},
    [AXB_SIM_MXX_P_MYY] = {"mtt_p_mpp", "moment", AXB_EXC_MONOPOLE},
    [AXB_SIM_MXZ_MYZ] = {"mtr", "moment", AXB_EXC_DIPOLE},
    [AXB_SIM_MXY_MXX_M_MYY] = {"mtp", "moment", AXB_EXC_QUADPOLE},
};

int axb_original_rows(axb_dump_type dump, axb_sim sim, int rows[6])
{
    const bool mono = SIMS[sim].exc == AXB_EXC_MONOPOLE;
    int n = 0;
    if (dump == AXB_DUMP_DISPL_ONLY) {
        for (int c = 0; c < 3; c++)
            if (!(mono && c == 1)) rows[n++] = c;
        return n;
    }
    for (int c = 0; c < 6; c++)
        if (!(mono && (c == 3 || c == 4))) rows[n++] = c; /* zero for monopole runs: AxiSEM omits them */
    return n;
}

static axb_status att_int(int nc, const char *name, int value, axb_error *err)
{
    AXB_NC_TRY(err, nc_put_att_int(nc, NC_GLOBAL, name, NC_INT, 1, &value), "attribute '%s'", name);
    return AXB_OK;
}

static axb_status att_float(int nc, const char *name, double value, axb_error *err)
{
    float f = (float)value;
    AXB_NC_TRY(err, nc_put_att_float(nc, NC_GLOBAL, name, NC_FLOAT, 1, &f), "attribute '%s'", name);
    return AXB_OK;
}

static axb_status att_double(int nc, const char *name, double value, axb_error *err)
{
    AXB_NC_TRY(err, nc_put_att_double(nc, NC_GLOBAL, name, NC_DOUBLE, 1, &value), "attribute '%s'", name);
    return AXB_OK;
}

static axb_status att_text(int nc, const char *name, const char *value, axb_error *err)
{
    AXB_NC_TRY(err, nc_put_att_text(nc, NC_GLOBAL, name, strlen(value), value), "attribute '%s'", name);
    return AXB_OK;
}

/* The build and run description: fixed values, so files do not depend on where they were made. */
static axb_status provenance(int nc, const axb_original_def *d, axb_error *err)
{
    const sim_desc *s = &SIMS[d->sim];
    AXB_TRY(att_int(nc, AXB_NC_ATT_FILE_VERSION, 10, err));
    AXB_TRY(att_text(nc, AXB_NC_ATT_MODEL, "homogeneous_fullspace", err));
    AXB_TRY(att_text(nc, AXB_NC_ATT_EXTERNAL_MODEL, "none", err));
    AXB_TRY(att_int(nc, AXB_NC_ATT_ATTENUATION, 0, err));
    AXB_TRY(att_double(nc, AXB_NC_ATT_RADIUS, d->r_max / 1e3, err));
    AXB_TRY(att_text(nc, "datetime", "1970-01-01T00:00:00+0000", err));
    AXB_TRY(att_text(nc, "git commit hash", "axibulk-" AXB_VERSION_STRING, err));
    AXB_TRY(att_text(nc, "user name", "axibulk", err));
    AXB_TRY(att_text(nc, "host name", "axibulk", err));
    AXB_TRY(att_text(nc, "compiler brand", "axibulk mkdb (analytic full space)", err));
    AXB_TRY(att_text(nc, "compiler version", AXB_VERSION_STRING, err));
    AXB_TRY(att_text(nc, "FFLAGS", "FFLAGS = ", err));
    AXB_TRY(att_text(nc, "CFLAGS", "CFLAGS = ", err));
    AXB_TRY(att_text(nc, "LDFLAGS", "LDFLAGS = ", err));
    AXB_TRY(att_text(nc, "OpenMP", "no", err));
    AXB_TRY(att_text(nc, "time scheme", "analytic", err));
    AXB_TRY(att_float(nc, "time step in sec", d->dt, err));
    AXB_TRY(att_int(nc, "number of time steps", (int)d->nt - 1, err));
    AXB_TRY(att_int(nc, AXB_NC_ATT_NPOL, d->npol, err));
    AXB_TRY(att_text(nc, AXB_NC_ATT_EXCITATION, axb_excitation_name(s->exc), err));
    AXB_TRY(att_text(nc, "source type", s->source_type, err));
    /* slip is an error function (integral of the Gaussian slip rate): Instaseis' STF_MAP 0 */
    AXB_TRY(att_text(nc, AXB_NC_ATT_STF, "errorf", err));
    AXB_TRY(att_text(nc, "simulation type", s->sim_type, err));
    return AXB_OK;
}

/* Source, sampling and the stored region. */
static axb_status sampling(int nc, const axb_original_def *d, axb_error *err)
{
    const int nt = (int)d->nt;
    AXB_TRY(att_float(nc, AXB_NC_ATT_PERIOD, d->period, err));
    AXB_TRY(att_float(nc, AXB_NC_ATT_DEPTH, (d->r_max - d->r_src) / 1e3, err));
    AXB_TRY(att_float(nc, "Source colatitude", 0.0, err));
    AXB_TRY(att_float(nc, "Source longitude", 0.0, err));
    AXB_TRY(att_float(nc, AXB_NC_ATT_AMPLITUDE, d->amplitude, err));
    AXB_TRY(att_int(nc, "number of receivers", 0, err));
    AXB_TRY(att_int(nc, "length of seismogram  in time samples", nt, err));
    AXB_TRY(att_float(nc, "seismogram sampling in sec", d->dt, err));
    AXB_TRY(att_int(nc, AXB_NC_ATT_NDUMPS, nt, err));
    AXB_TRY(att_double(nc, AXB_NC_ATT_DT, d->dt, err));
    AXB_TRY(att_text(nc, AXB_NC_ATT_DUMP, axb_dump_type_name(d->dump), err));
    AXB_TRY(att_double(nc, AXB_NC_ATT_RMIN, d->r_min / 1e3, err));
    AXB_TRY(att_double(nc, AXB_NC_ATT_RMAX, d->r_max / 1e3, err));
    AXB_TRY(att_double(nc, AXB_NC_ATT_COLATMIN, 0.0, err));
    AXB_TRY(att_double(nc, AXB_NC_ATT_COLATMAX, 180.0, err));
    AXB_TRY(att_int(nc, "number of snapshot dumps", 0, err));
    AXB_TRY(att_float(nc, "snapshot dump sampling rate in sec", 0.0, err));
    AXB_TRY(att_text(nc, "receiver components", "cyl", err));
    return AXB_OK;
}

axb_status axb_original_attributes(int nc, const axb_original_def *d, axb_error *err)
{
    const bool displ = d->dump == AXB_DUMP_DISPL_ONLY;
    AXB_TRY(att_int(nc, AXB_NC_ATT_NPOINTS, (int)d->npoints, err));
    if (displ) AXB_TRY(att_int(nc, AXB_NC_ATT_NELEM, (int)d->nelem, err));
    AXB_TRY(provenance(nc, d, err));
    AXB_TRY(sampling(nc, d, err));
    const int b = displ ? 0 : 1, e = displ ? d->npol : d->npol - 1;
    AXB_TRY(att_int(nc, "ibeg", b, err));
    AXB_TRY(att_int(nc, "iend", e, err));
    AXB_TRY(att_int(nc, "jbeg", b, err));
    AXB_TRY(att_int(nc, "jend", e, err));
    AXB_TRY(att_float(nc, AXB_NC_ATT_SHIFT, d->src_shift, err));
    AXB_TRY(att_int(nc, "source shift factor for deltat", d->src_shift_samples, err));
    AXB_TRY(att_int(nc, "source shift factor for seis_dt", d->src_shift_samples, err));
    AXB_TRY(att_int(nc, AXB_NC_ATT_SHIFT_SAMPLES, d->src_shift_samples, err));
    AXB_TRY(att_text(nc, "receiver file type", "stations", err));
    AXB_TRY(att_float(nc, "receiver spacing (0 if not even)", 0.0, err));
    AXB_TRY(att_text(nc, "use netcdf for wavefield output?", " T", err));
    AXB_TRY(att_int(nc, "percent completed", 100, err));
    AXB_TRY(att_int(nc, "finalized", 1, err));
    return AXB_OK;
}
