#include "minidb.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NP1 5
#define NXP (4 * MINIDB_NX + 1)

float minidb_value(int sim, int v, int t, int p)
{
    /* Exactly representable in float32 for the sizes used here; differs for every argument. */
    return (float)(p * 64 + t) + 0.25f * (float)v + 0.0625f * (float)sim;
}

int minidb_point(int e, int i, int j)
{
    int ex = e % MINIDB_NX, ez = e / MINIDB_NX;
    return (4 * ez + j) * NXP + 4 * ex + i;
}

static int mkdirs(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    return mkdir(buf, 0755) == 0 || access(buf, 0) == 0 ? 0 : -1;
}

static void attr_num(hid_t loc, const char *name, hid_t type, double v, const minidb_opts *o)
{
    if (o->omit_attr && !strcmp(o->omit_attr, name)) return;
    if (o->nan_attr && !strcmp(o->nan_attr, name)) v = NAN;
    hsize_t one = 1;
    hid_t s = H5Screate_simple(1, &one, NULL);
    hid_t a = H5Acreate2(loc, name, type, s, H5P_DEFAULT, H5P_DEFAULT);
    if (H5Tget_class(type) == H5T_INTEGER) {
        long long iv = (long long)v;
        H5Awrite(a, H5T_NATIVE_LLONG, &iv);
    } else {
        H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
    }
    H5Aclose(a);
    H5Sclose(s);
}

static void attr_str(hid_t loc, const char *name, const char *v, const minidb_opts *o)
{
    if (o->omit_attr && !strcmp(o->omit_attr, name)) return;
    hid_t t = H5Tcopy(H5T_C_S1);
    hid_t s;
    if (o->merged) { /* netCDF4-python's setncattr_string: 1-element array of UTF-8 vlen */
        hsize_t one = 1;
        H5Tset_size(t, H5T_VARIABLE);
        H5Tset_cset(t, H5T_CSET_UTF8);
        s = H5Screate_simple(1, &one, NULL);
        hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, &v);
        H5Aclose(a);
    } else { /* AxiSEM: fixed-length scalar ASCII */
        H5Tset_size(t, strlen(v) ? strlen(v) : 1);
        s = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, v);
        H5Aclose(a);
    }
    H5Sclose(s);
    H5Tclose(t);
}

static void dset(hid_t loc, const char *path, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims, const void *buf,
                 bool chunk_all, const minidb_opts *o)
{
    if (o->omit_var && !strcmp(o->omit_var, path)) return;
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunk_all) {
        H5Pset_chunk(dcpl, rank, dims);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 2);
    }
    hid_t d = H5Dcreate2(loc, path, ftype, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
}

static const char *const sim_dir[6] = {"PX", "PZ", "MZZ", "MXX_P_MYY", "MXZ_MYZ", "MXY_MXX_M_MYY"};
static const int sim_ncomp[6] = {3, 2, 2, 2, 3, 3};
static const char *const sim_exc[6] = {"dipole", "monopole", "monopole", "monopole", "dipole", "quadpole"};
static const char *const sim_src[6] = {"thetaforce", "vertforce", "mrr", "mtt_p_mpp", "mtr", "mtp"};

static void globals(hid_t f, int sim, int ndumps, const minidb_opts *o)
{
    attr_num(f, "file version", H5T_STD_I32LE, o->file_version ? o->file_version : 7, o);
    attr_str(f, "dump type (displ_only, displ_velo, fullfields)",
             o->dump_type ? o->dump_type : (o->strain ? "strain_only" : "displ_only"), o);
    attr_num(f, "npol", H5T_STD_I32LE, 4, o);
    attr_num(f, "number of strain dumps", H5T_STD_I32LE, ndumps, o);
    attr_num(f, "npoints", H5T_STD_I32LE, MINIDB_NPTS, o);
    if (!o->strain) attr_num(f, "nelem_kwf_global", H5T_STD_I32LE, MINIDB_NELEM, o);
    attr_num(f, "strain dump sampling rate in sec", H5T_IEEE_F64LE, 2.5, o);
    attr_num(f, "scalar source magnitude", H5T_IEEE_F32LE, 1e20, o);
    attr_num(f, "source shift factor in sec", H5T_IEEE_F32LE, 5.0, o);
    attr_num(f, "source shift factor for deltat_coarse", H5T_STD_I32LE, 2, o);
    attr_num(f, "planet radius", H5T_IEEE_F64LE, 6371.0, o);
    attr_num(f, "kernel wavefield rmin", H5T_IEEE_F64LE, 5000.0, o);
    attr_num(f, "kernel wavefield rmax", H5T_IEEE_F64LE, 6371.0, o);
    attr_num(f, "kernel wavefield colatmin", H5T_IEEE_F64LE, 0.0, o);
    attr_num(f, "kernel wavefield colatmax", H5T_IEEE_F64LE, o->max_distance > 0 ? o->max_distance : 180.0, o);
    attr_num(f, "dominant source period", H5T_IEEE_F32LE, 10.0, o);
    attr_num(f, "source depth in km", H5T_IEEE_F32LE, o->forward ? 25.0 : 0.0, o);
    attr_num(f, "attenuation", H5T_STD_I32LE, 0, o);
    attr_str(f, "source time function", "errorf", o);
    attr_str(f, "background model", "minidb_homogeneous", o);
    attr_str(f, "excitation type", sim == 1 && o->wrong_excitation ? o->wrong_excitation : sim_exc[sim], o);
    attr_str(f, "source type", sim_src[sim], o);
}

/* Mesh with element order perm (new e -> original e); perm NULL = identity. */
static void mesh(hid_t f, const int *perm, const minidb_opts *o)
{
    H5Gclose(H5Gcreate2(f, "/Mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    float s[MINIDB_NPTS], z[MINIDB_NPTS], mu[MINIDB_NPTS];
    for (int p = 0; p < MINIDB_NPTS; p++) {
        s[p] = (float)(p % NXP) * 1000.0f;
        z[p] = 5.5e6f + (float)(p / NXP) * 1000.0f;
        mu[p] = 7.0e10f;
    }
    hsize_t np = MINIDB_NPTS;
    dset(f, "/Mesh/mesh_S", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &np, s, false, o);
    dset(f, "/Mesh/mesh_Z", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &np, z, false, o);
    dset(f, "/Mesh/mesh_mu", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &np, mu, false, o);
    if (o->strain) return;
    int sem[MINIDB_NELEM][NP1][NP1], fem[MINIDB_NELEM][4], et[MINIDB_NELEM], ax[MINIDB_NELEM];
    float mps[MINIDB_NELEM], mpz[MINIDB_NELEM];
    for (int n = 0; n < MINIDB_NELEM; n++) {
        int e = perm ? perm[n] : n;
        for (int j = 0; j < NP1; j++)
            for (int i = 0; i < NP1; i++) sem[n][j][i] = minidb_point(e, i, j);
        fem[n][0] = sem[n][0][0];
        fem[n][1] = sem[n][0][4];
        fem[n][2] = sem[n][4][4];
        fem[n][3] = sem[n][4][0];
        et[n] = 1;
        ax[n] = e % MINIDB_NX == 0;
        mps[n] = s[sem[n][2][2]];
        mpz[n] = z[sem[n][2][2]];
    }
    if (o->bad_sem) sem[1][3][2] = MINIDB_NPTS + 7;
    hsize_t de = MINIDB_NELEM, df[2] = {MINIDB_NELEM, 4}, ds[3] = {MINIDB_NELEM, NP1, NP1};
    dset(f, "/Mesh/sem_mesh", H5T_STD_I32LE, H5T_NATIVE_INT, 3, ds, sem, false, o);
    dset(f, "/Mesh/fem_mesh", H5T_STD_I32LE, H5T_NATIVE_INT, 2, df, fem, false, o);
    dset(f, "/Mesh/eltype", H5T_STD_I32LE, H5T_NATIVE_INT, 1, &de, et, false, o);
    dset(f, "/Mesh/axis", H5T_STD_I32LE, H5T_NATIVE_INT, 1, &de, ax, false, o);
    dset(f, "/Mesh/mp_mesh_S", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &de, mps, false, o);
    dset(f, "/Mesh/mp_mesh_Z", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &de, mpz, false, o);
    double gll[NP1] = {-1, -0.6546536707079771, 0, 0.6546536707079771, 1};
    double glj[NP1] = {-1, -0.507787629558315, 0.13230082077732325, 0.7088201421143251, 1};
    double G[NP1][NP1];
    for (int i = 0; i < NP1; i++)
        for (int k = 0; k < NP1; k++) G[i][k] = 0.5 * (i + 1) - 0.25 * k; /* arbitrary, checked verbatim */
    hsize_t d1 = NP1, d2[2] = {NP1, NP1};
    dset(f, "/Mesh/gll", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &d1, gll, false, o);
    dset(f, "/Mesh/glj", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &d1, glj, false, o);
    dset(f, "/Mesh/G1", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, d2, G, false, o);
    dset(f, "/Mesh/G2", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, d2, G, false, o);
}

static void stf(hid_t f, const char *grp, int ndumps, const minidb_opts *o)
{
    float a[4096], b[4096];
    for (int t = 0; t < ndumps; t++) {
        a[t] = 1e20f * (float)t / (float)(ndumps - 1);
        b[t] = 1e20f / ((float)(ndumps - 1) * 2.5f);
    }
    char pa[64], pb[64];
    snprintf(pa, sizeof pa, "%s/stf_dump", grp);
    snprintf(pb, sizeof pb, "%s/stf_d_dump", grp);
    hsize_t n = (hsize_t)ndumps;
    dset(f, pa, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, a, false, o);
    dset(f, pb, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, b, false, o);
}

static int write_original(const char *dir, int sim, const minidb_opts *o)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/Data", dir, sim_dir[sim]);
    if (mkdirs(path)) return -1;
    snprintf(path, sizeof path, "%s/%s/Data/ordered_output.nc4", dir, sim_dir[sim]);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return -1;
    int nt = (sim == 1 && o->pz_ndumps) ? o->pz_ndumps : o->ndumps;
    globals(f, sim, nt, o);
    mesh(f, NULL, o);
    H5Gclose(H5Gcreate2(f, "/Snapshots", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(f, "/Surface", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    stf(f, "/Surface", nt, o);
    static const char *const dn[3] = {"disp_s", "disp_p", "disp_z"};
    static const char *const sn[6] = {"strain_dsus", "strain_dsuz", "strain_dpup",
                                      "strain_dsup", "strain_dzup", "straintrace"};
    float *buf = malloc(sizeof(float) * (size_t)nt * MINIDB_NPTS);
    /* Variable v is the canonical index: displacement s, phi, z = 0, 1, 2; strain dsus, dsuz,
     * dpup, dsup, dzup, trace = 0..5. Monopole files have no phi / dsup / dzup. */
    int nv = o->strain ? 6 : 3;
    for (int v = 0; v < nv; v++) {
        bool mono = sim_ncomp[sim] == 2;
        if (!o->strain && mono && v == 1) continue;
        if (o->strain && mono && (v == 3 || v == 4)) continue;
        for (int t = 0; t < nt; t++)
            for (int p = 0; p < MINIDB_NPTS; p++) {
                float x = minidb_value(sim, v, t, p);
                if (o->transposed)
                    buf[(size_t)p * nt + t] = x;
                else
                    buf[(size_t)t * MINIDB_NPTS + p] = x;
            }
        char vp[64];
        snprintf(vp, sizeof vp, "/Snapshots/%s", o->strain ? sn[v] : dn[v]);
        hsize_t d[2] = {(hsize_t)nt, MINIDB_NPTS};
        if (o->transposed) {
            d[0] = MINIDB_NPTS;
            d[1] = (hsize_t)nt;
        }
        dset(f, vp, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 2, d, buf, true, o);
    }
    free(buf);
    H5Fclose(f);
    return 0;
}

static int write_merged(const char *dir, const minidb_opts *o)
{
    if (mkdirs(dir)) return -1;
    char path[1024];
    snprintf(path, sizeof path, "%s/merged_output.nc4", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return -1;
    int sims[4] = {0}, ns = 0;
    if (o->forward)
        for (int s = 2; s < 6; s++) sims[ns++] = s;
    else {
        if (o->px) sims[ns++] = 0;
        if (o->pz) sims[ns++] = 1;
    }
    int nvars = 0;
    for (int k = 0; k < ns; k++) nvars += sim_ncomp[sims[k]];
    globals(f, sims[0], o->ndumps, o);
    int perm[MINIDB_NELEM];
    for (int n = 0; n < MINIDB_NELEM; n++) perm[n] = MINIDB_NELEM - 1 - n;
    mesh(f, perm, o);
    stf(f, "", o->ndumps, o);
    const int nt = o->ndumps;
    size_t block = (size_t)nvars * NP1 * NP1 * (size_t)nt;
    float *buf = malloc(sizeof(float) * block * MINIDB_NELEM);
    for (int n = 0; n < MINIDB_NELEM; n++) {
        int gv = 0;
        for (int k = 0; k < ns; k++)
            for (int c = 0; c < sim_ncomp[sims[k]]; c++, gv++) {
                int vv = sim_ncomp[sims[k]] == 2 && c == 1 ? 2 : c;
                for (int i = 0; i < NP1; i++)
                    for (int j = 0; j < NP1; j++)
                        for (int t = 0; t < nt; t++)
                            buf[(size_t)n * block + (((size_t)gv * NP1 + i) * NP1 + j) * nt + t] =
                                minidb_value(sims[k], vv, t, minidb_point(perm[n], i, j));
            }
    }
    hsize_t d[5] = {MINIDB_NELEM, (hsize_t)nvars, NP1, NP1, (hsize_t)nt};
    if (!(o->omit_var && !strcmp(o->omit_var, "/MergedSnapshots"))) {
        hid_t s = H5Screate_simple(5, d, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (!o->contiguous) {
            hsize_t c[5] = {1, (hsize_t)nvars, NP1, NP1, (hsize_t)nt};
            H5Pset_chunk(dcpl, 5, c);
            H5Pset_deflate(dcpl, 4);
        }
        hid_t ds = H5Dcreate2(f, "/MergedSnapshots", H5T_IEEE_F32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(s);
    }
    free(buf);
    H5Fclose(f);
    return 0;
}

int minidb_write(const char *dir, const minidb_opts *in)
{
    minidb_opts o = *in;
    if (!o.ndumps) o.ndumps = 9;
    if (o.merged) return write_merged(dir, &o);
    if (mkdirs(dir)) return -1;
    if (o.forward) {
        for (int s = 2; s < 6; s++)
            if (write_original(dir, s, &o)) return -1;
        return 0;
    }
    if (o.px && write_original(dir, 0, &o)) return -1;
    if (o.pz && write_original(dir, 1, &o)) return -1;
    return 0;
}
