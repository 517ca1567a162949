/* Global attributes of AxiSEM files (reference notes §1.3) and the facts derived from them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/db/db_internal.h"
#include "io/db/db_names.h"
#include "io/hdf5/h5util.h"

static axb_status finite_attr(hid_t fid, const char *name, double *out, axb_error *err)
{
    AXB_TRY(axb_h5_attr_double(fid, name, out, err));
    AXB_CHECK(err, isfinite(*out), AXB_ERR_FORMAT, "attribute '%s': not a finite number", name);
    return AXB_OK;
}

static axb_status positive_attr(hid_t fid, const char *name, double *out, axb_error *err)
{
    AXB_TRY(finite_attr(fid, name, out, err));
    AXB_CHECK(err, *out > 0, AXB_ERR_FORMAT, "attribute '%s': %g is not positive", name, *out);
    return AXB_OK;
}

static axb_status stf_map_of(const char *stf, int *map)
{
    static const struct {
        const char *name;
        int map;
    } table[] = {{"errorf", 0}, {"quheavi", 0}, {"dirac_0", 1}, {"gauss_0", 1}, {"gauss_1", 2}, {"gauss_2", 3}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(stf, table[i].name)) {
            *map = table[i].map;
            return AXB_OK;
        }
    return AXB_ERR_UNSUPPORTED;
}

axb_status axb_db_read_attributes(hid_t fid, axb_db_info *info, axb_error *err)
{
    long long v;
    double d;
    char s[256];

    AXB_TRY(axb_h5_attr_int(fid, AXB_NC_ATT_FILE_VERSION, &v, err));
    AXB_CHECK(err, v >= 7, AXB_ERR_UNSUPPORTED,
              "attribute 'file version': %lld; AxiSEM databases older than version 7 are not supported", v);
    info->file_version = (int)v;

    AXB_TRY(axb_h5_attr_string(fid, AXB_NC_ATT_DUMP, s, sizeof s, err));
    if (!strcmp(s, "displ_only"))
        info->dump = AXB_DUMP_DISPL_ONLY;
    else if (!strcmp(s, "strain_only"))
        info->dump = AXB_DUMP_STRAIN_ONLY;
    else if (!strcmp(s, "fullfields"))
        info->dump = AXB_DUMP_FULLFIELDS;
    else
        return axb_error_set(err, AXB_ERR_UNSUPPORTED,
                             "attribute 'dump type': unknown dump type '%s' (expected displ_only, "
                             "strain_only or fullfields)",
                             s);

    AXB_TRY(axb_h5_attr_int(fid, AXB_NC_ATT_NPOL, &v, err));
    AXB_CHECK(err, v >= 1 && v <= AXB_NPOL_MAX, AXB_ERR_UNSUPPORTED, "attribute 'npol': %lld is outside 1..%d", v,
              AXB_NPOL_MAX);
    info->npol = (int)v;

    AXB_TRY(axb_h5_attr_int(fid, AXB_NC_ATT_NDUMPS, &v, err));
    AXB_CHECK(err, v >= 1, AXB_ERR_FORMAT, "attribute 'number of strain dumps': %lld", v);
    info->ndumps = v;

    AXB_TRY(axb_h5_attr_int(fid, AXB_NC_ATT_NPOINTS, &v, err));
    AXB_CHECK(err, v >= 1, AXB_ERR_FORMAT, "attribute 'npoints': %lld", v);
    info->npoints = v;

    info->nelem = 0;
    if (axb_h5_attr_exists(fid, "nelem_kwf_global")) {
        AXB_TRY(axb_h5_attr_int(fid, AXB_NC_ATT_NELEM, &v, err));
        AXB_CHECK(err, v >= 0, AXB_ERR_FORMAT, "attribute 'nelem_kwf_global': %lld", v);
        info->nelem = v;
    }

    AXB_TRY(positive_attr(fid, AXB_NC_ATT_DT, &info->dt, err));
    AXB_TRY(positive_attr(fid, AXB_NC_ATT_AMPLITUDE, &info->amplitude, err));
    AXB_TRY(finite_attr(fid, AXB_NC_ATT_SHIFT, &info->src_shift, err));
    AXB_TRY(axb_h5_attr_int(fid, AXB_NC_ATT_SHIFT_SAMPLES, &v, err));
    AXB_CHECK(err, v >= 0 && v < info->ndumps, AXB_ERR_FORMAT,
              "attribute 'source shift factor for deltat_coarse': %lld is outside the %lld samples", v,
              (long long)info->ndumps);
    info->src_shift_samples = (int)v;

    AXB_TRY(positive_attr(fid, AXB_NC_ATT_RADIUS, &d, err));
    info->planet_radius = d * 1e3;
    AXB_TRY(finite_attr(fid, AXB_NC_ATT_RMIN, &d, err));
    info->min_radius = d * 1e3;
    AXB_TRY(finite_attr(fid, AXB_NC_ATT_RMAX, &d, err));
    info->max_radius = d * 1e3;
    AXB_CHECK(err, info->min_radius >= 0 && info->min_radius < info->max_radius, AXB_ERR_FORMAT,
              "attributes 'kernel wavefield rmin/rmax': %g..%g km is not a radius range", info->min_radius / 1e3,
              info->max_radius / 1e3);
    AXB_TRY(finite_attr(fid, AXB_NC_ATT_COLATMIN, &info->min_d, err));
    AXB_TRY(finite_attr(fid, AXB_NC_ATT_COLATMAX, &info->max_d, err));
    AXB_TRY(positive_attr(fid, AXB_NC_ATT_PERIOD, &info->period, err));
    AXB_TRY(finite_attr(fid, AXB_NC_ATT_DEPTH, &d, err));
    info->source_depth = d * 1e3;

    AXB_TRY(axb_h5_attr_string(fid, AXB_NC_ATT_STF, info->stf, sizeof info->stf, err));
    if (stf_map_of(info->stf, &info->stf_map) != AXB_OK)
        return axb_error_set(err, AXB_ERR_UNSUPPORTED, "attribute 'source time function': unknown STF '%s'", info->stf);

    AXB_TRY(axb_h5_attr_string(fid, AXB_NC_ATT_MODEL, info->background_model, sizeof info->background_model, err));
    info->external_model[0] = '\0';
    if (info->file_version >= 8 && axb_h5_attr_exists(fid, "external model name"))
        AXB_TRY(
            axb_h5_attr_string(fid, AXB_NC_ATT_EXTERNAL_MODEL, info->external_model, sizeof info->external_model, err));
    AXB_TRY(axb_h5_attr_int(fid, AXB_NC_ATT_ATTENUATION, &v, err));
    info->attenuation = v != 0;
    return AXB_OK;
}

axb_status axb_db_check_consistent(hid_t fid, const axb_db_info *info, axb_error *err)
{
    axb_db_info other;
    memset(&other, 0, sizeof other);
    AXB_TRY(axb_db_read_attributes(fid, &other, err));
#define SAME(field, what)                                                                                              \
    AXB_CHECK(err, other.field == info->field, AXB_ERR_FORMAT,                                                         \
              "%s differs from the database's other files (%.17g vs %.17g)", what, (double)other.field,                \
              (double)info->field)
    SAME(npol, "npol");
    SAME(ndumps, "number of samples");
    SAME(npoints, "number of GLL points");
    SAME(nelem, "number of elements");
    SAME(dt, "sampling interval");
    SAME(dump, "dump type");
    SAME(src_shift_samples, "source shift");
    SAME(planet_radius, "planet radius");
#undef SAME
    return AXB_OK;
}

static bool stf_usable(hid_t fid, const char *grp, int64_t ndumps)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "%s/" AXB_NC_VAR_STF, grp);
    snprintf(b, sizeof b, "%s/" AXB_NC_VAR_STF_D, grp);
    if (!axb_h5_exists(fid, a) || !axb_h5_exists(fid, b)) return false;
    int r;
    hsize_t dims[H5U_MAXRANK];
    return axb_h5_dims(fid, a, &r, dims, NULL) == AXB_OK && r == 1 && (int64_t)dims[0] == ndumps &&
        axb_h5_dims(fid, b, &r, dims, NULL) == AXB_OK && r == 1 && (int64_t)dims[0] == ndumps;
}

static bool all_finite(const double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return false;
    return true;
}

axb_status axb_db_read_stf(hid_t fid, int64_t ndumps, double **stf, double **stf_d, axb_error *err)
{
    static const char *const groups[] = {"/" AXB_NC_GRP_SNAPSHOTS, "", "/Surface"};
    double *a = malloc((size_t)ndumps * sizeof *a), *b = malloc((size_t)ndumps * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return axb_error_set(err, AXB_ERR_NOMEM, "source time function");
    }
    hsize_t dims[1] = {(hsize_t)ndumps};
    for (size_t g = 0; g < 3; g++) {
        if (!stf_usable(fid, groups[g], ndumps)) continue;
        char na[64], nb[64];
        snprintf(na, sizeof na, "%s/" AXB_NC_VAR_STF, groups[g]);
        snprintf(nb, sizeof nb, "%s/" AXB_NC_VAR_STF_D, groups[g]);
        axb_status st = axb_h5_read(fid, na, H5T_NATIVE_DOUBLE, 1, dims, a, err);
        if (!st) st = axb_h5_read(fid, nb, H5T_NATIVE_DOUBLE, 1, dims, b, err);
        if (st) {
            free(a);
            free(b);
            return st;
        }
        if (all_finite(a, ndumps) && all_finite(b, ndumps)) {
            *stf = a;
            *stf_d = b;
            return AXB_OK;
        }
    }
    free(a);
    free(b);
    return axb_error_set(err, AXB_ERR_FORMAT,
                         "no usable source time function (stf_dump and stf_d_dump with %lld finite "
                         "samples in /Snapshots, / or /Surface)",
                         (long long)ndumps);
}

void axb_db_finish_info(axb_db_info *info)
{
    static const int ncomp[AXB_NSIM] = {3, 2, 2, 2, 3, 3};
    static const axb_excitation exc[AXB_NSIM] = {AXB_EXC_DIPOLE,   AXB_EXC_MONOPOLE, AXB_EXC_MONOPOLE,
                                                 AXB_EXC_MONOPOLE, AXB_EXC_DIPOLE,   AXB_EXC_QUADPOLE};
    info->length = info->dt * (double)(info->ndumps - 1);
    info->nvars = 0;
    for (int k = 0; k < AXB_NSIM; k++) {
        info->ncomp[k] = info->has_sim[k] ? ncomp[k] : 0;
        info->excitation[k] = exc[k];
        info->var_offset[k] = info->nvars;
        info->nvars += info->ncomp[k];
    }
    info->kind = info->has_sim[AXB_SIM_PX] || info->has_sim[AXB_SIM_PZ] ? AXB_DB_RECIPROCAL : AXB_DB_FORWARD;
    if (info->kind == AXB_DB_FORWARD || (info->has_sim[AXB_SIM_PX] && info->has_sim[AXB_SIM_PZ]))
        snprintf(info->components, sizeof info->components, "ZNERT");
    else if (info->has_sim[AXB_SIM_PX])
        snprintf(info->components, sizeof info->components, "NERT");
    else
        snprintf(info->components, sizeof info->components, "Z");
}

axb_status axb_db_open_parallel(MPI_Comm comm, const char *path, hid_t *fid, axb_error *err)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) {
        if (fapl >= 0) H5Pclose(fapl);
        return axb_error_set(err, AXB_ERR_HDF5, "cannot set up MPI-IO file access");
    }
    hid_t id = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (id < 0) {
        char why[512];
        axb_h5_last_error(why, sizeof why);
        return axb_error_set(err, AXB_ERR_IO, "cannot open for MPI-IO: %s", why);
    }
    *fid = id;
    return AXB_OK;
}
