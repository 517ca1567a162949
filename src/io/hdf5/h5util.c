#include "io/hdf5/h5util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/transpose.h"

typedef struct walk_ctx {
    char *buf;
    size_t size;
    bool got;
} walk_ctx;

/* Walking upwards starts at the innermost frame; the first frame with a description is the most
 * specific reason HDF5 knows ("truncated file: eof = ...", "bad symbol table node signature"). */
static herr_t take_first(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    walk_ctx *c = data;
    if (!c->got && e->desc && e->desc[0]) {
        snprintf(c->buf, c->size, "%s", e->desc);
        c->got = true;
    }
    return 0;
}

void axb_h5_last_error(char *buf, size_t size)
{
    if (!size) return;
    buf[0] = '\0';
    walk_ctx c = {buf, size, false};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_first, &c);
    if (!c.got) snprintf(buf, size, "unknown HDF5 error");
}

axb_status axb_h5_error(axb_error *err, const char *fmt, ...)
{
    char ctx[AXB_ERRMSG_MAX], why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    axb_h5_last_error(why, sizeof why);
    /* HDF5's file drivers put the system's own reason into a long description ("file write
     * failed: time = ..., errno = 28, error message = 'No space left on device', ..."): that
     * reason is what the user needs, and a full disk is the machine's failure, not the input's */
    const char *e = strstr(why, "errno = "), *m = strstr(why, "error message = '");
    if (e && m) {
        const int code = atoi(e + 8);
        const char *q = strchr(m + 17, '\'');
        const int len = q ? (int)(q - (m + 17)) : (int)strlen(m + 17);
        const axb_status st =
            code == ENOSPC || code == EDQUOT || code == EIO || code == EFBIG ? AXB_ERR_RESOURCE : AXB_ERR_HDF5;
        return axb_error_set(err, st, "%s: %.*s", ctx, len, m + 17);
    }
    return axb_error_set(err, AXB_ERR_HDF5, "%s: %s", ctx, why);
}

axb_status axb_h5_open(const char *path, hid_t fapl, hid_t *fid, axb_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) return axb_error_set(err, AXB_ERR_IO, "%s", strerror(errno));
    if (!S_ISREG(st.st_mode)) return axb_error_set(err, AXB_ERR_IO, "not a regular file");
    FILE *f = fopen(path, "rb");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "cannot read: %s", strerror(errno));
    /* HDF5 looks for its signature at 0, 512, 1024, ...; netCDF-4 files from AxiSEM have it at 0.
     * Checking here gives a clearer message than HDF5's own for the common foreign-file case. */
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    bool found = false;
    unsigned char head[8];
    for (long off = 0; off < st.st_size && off <= (1L << 20) && !found; off = off ? off * 2 : 512) {
        if (fseek(f, off, SEEK_SET) != 0 || fread(head, 1, 8, f) != 8) break;
        found = memcmp(head, sig, 8) == 0;
    }
    fclose(f);
    if (!found) {
        return axb_error_set(err, AXB_ERR_FORMAT, "not an HDF5/netCDF-4 file (no HDF5 signature%s)",
                             st.st_size == 0 ? "; the file is empty" : "");
    }
    hid_t id = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (id < 0) {
        char why[512];
        axb_h5_last_error(why, sizeof why);
        return axb_error_set(err, AXB_ERR_FORMAT, "cannot open as HDF5 (damaged or truncated?): %s", why);
    }
    *fid = id;
    return AXB_OK;
}

bool axb_h5_exists(hid_t loc, const char *path)
{
    /* H5Lexists fails rather than returning false when an intermediate group is missing, so
     * check each component. */
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return false;
    for (char *p = buf + (buf[0] == '/');; p++) {
        char *slash = strchr(p, '/');
        if (slash) *slash = '\0';
        if (H5Lexists(loc, buf, H5P_DEFAULT) <= 0) return false;
        if (!slash) return true;
        *slash = '/';
        p = slash;
    }
}

bool axb_h5_attr_exists(hid_t loc, const char *name)
{
    return H5Aexists(loc, name) > 0;
}

/* Opens attribute @p name and checks it has at least one element of class @p want. */
static axb_status open_attr(hid_t loc, const char *name, H5T_class_t want, hid_t *aid, hssize_t *npoints,
                            axb_error *err)
{
    if (H5Aexists(loc, name) <= 0) return axb_error_set(err, AXB_ERR_FORMAT, "attribute '%s': not found", name);
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return axb_error_set(err, AXB_ERR_FORMAT, "attribute '%s': cannot open", name);
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    H5T_class_t cls = H5Tget_class(t);
    hssize_t np = H5Sget_simple_extent_npoints(s);
    H5Tclose(t);
    H5Sclose(s);
    bool numeric_ok = want != H5T_STRING && (cls == H5T_INTEGER || cls == H5T_FLOAT);
    if (!(cls == want || numeric_ok)) {
        H5Aclose(a);
        return axb_error_set(err, AXB_ERR_FORMAT, "attribute '%s': expected a %s, found another type", name,
                             want == H5T_STRING ? "string" : "number");
    }
    if (want == H5T_INTEGER && cls == H5T_FLOAT) {
        H5Aclose(a);
        return axb_error_set(err, AXB_ERR_FORMAT, "attribute '%s': expected an integer, found a floating-point value",
                             name);
    }
    if (np < 1) {
        H5Aclose(a);
        return axb_error_set(err, AXB_ERR_FORMAT, "attribute '%s': empty", name);
    }
    *aid = a;
    *npoints = np;
    return AXB_OK;
}

static axb_status read_numeric(hid_t loc, const char *name, H5T_class_t want, hid_t memtype, size_t elsize, void *out,
                               axb_error *err)
{
    hid_t a;
    hssize_t np;
    AXB_TRY(open_attr(loc, name, want, &a, &np, err));
    void *tmp = malloc((size_t)np * elsize);
    if (!tmp) {
        H5Aclose(a);
        return axb_error_set(err, AXB_ERR_NOMEM, "attribute '%s'", name);
    }
    herr_t rc = H5Aread(a, memtype, tmp);
    H5Aclose(a);
    if (rc >= 0) memcpy(out, tmp, elsize);
    free(tmp);
    if (rc < 0) return axb_error_set(err, AXB_ERR_FORMAT, "attribute '%s': cannot read", name);
    return AXB_OK;
}

axb_status axb_h5_attr_double(hid_t loc, const char *name, double *out, axb_error *err)
{
    /* float32 -> double conversion in HDF5 is exact: 1e20f arrives as 1.0000000200408773e20. */
    return read_numeric(loc, name, H5T_FLOAT, H5T_NATIVE_DOUBLE, sizeof(double), out, err);
}

axb_status axb_h5_attr_int(hid_t loc, const char *name, long long *out, axb_error *err)
{
    return read_numeric(loc, name, H5T_INTEGER, H5T_NATIVE_LLONG, sizeof(long long), out, err);
}

axb_status axb_h5_attr_string(hid_t loc, const char *name, char *buf, size_t size, axb_error *err)
{
    hid_t a;
    hssize_t np;
    AXB_TRY(open_attr(loc, name, H5T_STRING, &a, &np, err));
    hid_t ftype = H5Aget_type(a);
    axb_status st = AXB_OK;
    if (H5Tis_variable_str(ftype) > 0) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        /* HDF5 does not convert between ASCII and UTF-8, and netCDF4-python writes UTF-8. */
        H5Tset_cset(mt, H5Tget_cset(ftype));
        char **strs = calloc((size_t)np, sizeof *strs);
        if (!strs) {
            st = axb_error_set(err, AXB_ERR_NOMEM, "attribute '%s'", name);
        } else if (H5Aread(a, mt, strs) < 0) {
            st = axb_error_set(err, AXB_ERR_FORMAT, "attribute '%s': cannot read", name);
        } else {
            snprintf(buf, size, "%s", strs[0] ? strs[0] : "");
            hid_t sp = H5Aget_space(a);
            H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, strs);
            H5Sclose(sp);
        }
        free(strs);
        H5Tclose(mt);
    } else {
        size_t len = H5Tget_size(ftype);
        char *tmp = calloc((size_t)np, len + 1);
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, len + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        H5Tset_cset(mt, H5Tget_cset(ftype));
        if (!tmp) {
            st = axb_error_set(err, AXB_ERR_NOMEM, "attribute '%s'", name);
        } else if (H5Aread(a, mt, tmp) < 0) {
            st = axb_error_set(err, AXB_ERR_FORMAT, "attribute '%s': cannot read", name);
        } else {
            snprintf(buf, size, "%s", tmp);
        }
        free(tmp);
        H5Tclose(mt);
    }
    H5Tclose(ftype);
    H5Aclose(a);
    return st;
}

axb_status axb_h5_dims(hid_t loc, const char *name, int *rank, hsize_t *dims, axb_error *err)
{
    if (!axb_h5_exists(loc, name)) return axb_error_set(err, AXB_ERR_FORMAT, "variable '%s': not found", name);
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) return axb_error_set(err, AXB_ERR_FORMAT, "variable '%s': not a dataset", name);
    hid_t s = H5Dget_space(d);
    int r = H5Sget_simple_extent_ndims(s);
    axb_status st = AXB_OK;
    if (r < 0 || r > H5U_MAXRANK)
        st = axb_error_set(err, AXB_ERR_FORMAT, "variable '%s': unsupported dataspace", name);
    else {
        H5Sget_simple_extent_dims(s, dims, NULL);
        *rank = r;
    }
    H5Sclose(s);
    H5Dclose(d);
    return st;
}

static void format_dims(char *buf, size_t size, int rank, const hsize_t *dims)
{
    size_t off = 0;
    off += (size_t)snprintf(buf + off, size - off, "(");
    for (int i = 0; i < rank && off < size; i++)
        off += (size_t)snprintf(buf + off, size - off, "%s%llu", i ? ", " : "", (unsigned long long)dims[i]);
    if (off < size) snprintf(buf + off, size - off, ")");
}

axb_status axb_h5_read(hid_t loc, const char *name, hid_t memtype, int rank, const hsize_t *dims, void *buf,
                       axb_error *err)
{
    int r;
    hsize_t have[H5U_MAXRANK];
    AXB_TRY(axb_h5_dims(loc, name, &r, have, err));
    bool same = r == rank;
    for (int i = 0; same && i < rank; i++) same = have[i] == dims[i];
    if (!same) {
        char a[128], b[128];
        format_dims(a, sizeof a, r, have);
        format_dims(b, sizeof b, rank, dims);
        return axb_error_set(err, AXB_ERR_FORMAT, "variable '%s': shape %s, expected %s", name, a, b);
    }
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) return axb_error_set(err, AXB_ERR_FORMAT, "variable '%s': cannot open", name);
    herr_t rc = H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Dclose(d);
    if (rc < 0) {
        char why[512];
        axb_h5_last_error(why, sizeof why);
        return axb_error_set(err, AXB_ERR_FORMAT, "variable '%s': cannot read: %s", name, why);
    }
    return AXB_OK;
}

axb_status axb_h5_read_runs(hid_t dset, int axis, int64_t n, const int64_t *ids, bool collective, hid_t memtype,
                            void *buf, int64_t *bytes, axb_error *err)
{
    hid_t fs = H5Dget_space(dset);
    int rank = fs >= 0 ? H5Sget_simple_extent_ndims(fs) : -1;
    hsize_t dims[H5U_MAXRANK];
    if (rank < 1 || rank > H5U_MAXRANK || axis >= rank) {
        if (fs >= 0) H5Sclose(fs);
        return axb_error_set(err, AXB_ERR_HDF5, "unexpected dataspace");
    }
    H5Sget_simple_extent_dims(fs, dims, NULL);
    hsize_t per = 1; /* elements per index */
    for (int d = 0; d < rank; d++)
        if (d != axis) per *= dims[d];
    hsize_t mdim[1] = {(hsize_t)(n ? n : 1) * per};
    hid_t ms = H5Screate_simple(1, mdim, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    axb_status st = AXB_OK;
    if (ms < 0 || dxpl < 0) {
        st = axb_error_set(err, AXB_ERR_HDF5, "cannot create dataspaces");
        goto done;
    }
    H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    H5Sselect_none(fs);
    if (n == 0) H5Sselect_none(ms);
    for (int64_t a = 0; a < n;) {
        int64_t b = a + 1;
        while (b < n && ids[b] == ids[b - 1] + 1) b++;
        hsize_t start[H5U_MAXRANK] = {0}, count[H5U_MAXRANK];
        for (int d = 0; d < rank; d++) count[d] = dims[d];
        start[axis] = (hsize_t)ids[a];
        count[axis] = (hsize_t)(b - a);
        if (H5Sselect_hyperslab(fs, H5S_SELECT_OR, start, NULL, count, NULL) < 0) {
            st = axb_error_set(err, AXB_ERR_HDF5, "cannot select %lld indices", (long long)n);
            goto done;
        }
        a = b;
    }
    if (H5Dread(dset, memtype, ms, fs, dxpl, buf) < 0) {
        char why[512];
        axb_h5_last_error(why, sizeof why);
        st = axb_error_set(err, AXB_ERR_IO, "read of %lld entries failed: %s", (long long)n, why);
        goto done;
    }
    *bytes = (int64_t)((hsize_t)n * per * H5Tget_size(memtype));
done:
    if (dxpl >= 0) H5Pclose(dxpl);
    if (ms >= 0) H5Sclose(ms);
    H5Sclose(fs);
    return st;
}

bool axb_h5_chunks_dense(int64_t n, const int64_t *ids, int64_t cp, double min_fill)
{
    int64_t touched = 0;
    for (int64_t a = 0; a < n; a++)
        if (a == 0 || ids[a] / cp != ids[a - 1] / cp) touched++;
    return (double)n >= min_fill * (double)(touched * cp);
}

bool axb_h5_contiguous_offset(hid_t dset, int64_t *offset)
{
    hid_t dcpl = H5Dget_create_plist(dset);
    const H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    if (dcpl >= 0) H5Pclose(dcpl);
    const haddr_t addr = H5Dget_offset(dset);
    if (layout != H5D_CONTIGUOUS || addr == HADDR_UNDEF) return false;
    *offset = (int64_t)addr;
    return true;
}

void axb_h5_take_cols(const void *chunk, int axis, int64_t w, int64_t nt, int64_t c0, int64_t a, int64_t b,
                      const int64_t *ids, float *buf)
{
    const unsigned char *p = chunk;
    const int64_t fs = (int64_t)sizeof(float);
    for (int64_t u = a; u < b;) {
        int64_t v = u + 1;
        while (v < b && ids[v] == ids[v - 1] + 1) v++;
        const int64_t col = ids[u] - c0;
        if (axis == 1)
            axb_transpose_f32(nt, v - u, p + col * fs, w, buf + u * nt, nt);
        else
            memcpy(buf + u * nt, p + col * nt * fs, (size_t)((v - u) * nt * fs));
        u = v;
    }
}

axb_status axb_h5_read_cols_by_chunk(hid_t dset, int axis, int64_t n, const int64_t *ids, double min_fill, float *buf,
                                     bool *used, int64_t *bytes, int64_t *calls, axb_error *err)
{
    *used = false;
    *bytes = *calls = 0;
    hsize_t dims[2], cdims[2];
    hid_t fs = H5Dget_space(dset), dcpl = H5Dget_create_plist(dset);
    bool ok = fs >= 0 && dcpl >= 0 && H5Sget_simple_extent_ndims(fs) == 2 && (axis == 0 || axis == 1) &&
        H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 2, cdims) == 2;
    if (ok) H5Sget_simple_extent_dims(fs, dims, NULL);
    const int other = 1 - axis;
    ok = ok && cdims[other] == dims[other] && cdims[axis] > 0;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (!ok || n == 0) {
        if (fs >= 0) H5Sclose(fs);
        return AXB_OK;
    }
    const int64_t cp = (int64_t)cdims[axis], nt = (int64_t)dims[other], np = (int64_t)dims[axis];
    if (!axb_h5_chunks_dense(n, ids, cp, min_fill)) {
        H5Sclose(fs);
        return AXB_OK; /* too sparse: whole chunks would read mostly unwanted data */
    }
    float *tmp = malloc((size_t)(cp * nt) * sizeof *tmp);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    axb_status st = AXB_OK;
    if (!tmp || dxpl < 0)
        st = axb_error_set(err, AXB_ERR_NOMEM, "chunk buffer of %lld values", (long long)(cp * nt));
    else
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_INDEPENDENT);
    for (int64_t a = 0; a < n && !st;) {
        const int64_t c0 = ids[a] / cp * cp, w = c0 + cp <= np ? cp : np - c0;
        int64_t b = a;
        while (b < n && ids[b] < c0 + w) b++;
        hsize_t start[2], count[2];
        start[axis] = (hsize_t)c0;
        count[axis] = (hsize_t)w;
        start[other] = 0;
        count[other] = (hsize_t)nt;
        hid_t ms = H5Screate_simple(2, count, NULL);
        if (ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            H5Dread(dset, H5T_NATIVE_FLOAT, ms, fs, dxpl, tmp) < 0) {
            char why[512];
            axb_h5_last_error(why, sizeof why);
            st = axb_error_set(err, AXB_ERR_IO, "read of chunk at index %lld failed: %s", (long long)c0, why);
        }
        if (ms >= 0) H5Sclose(ms);
        if (st) break;
        (*calls)++;
        *bytes += w * nt * (int64_t)sizeof(float);
        /* one chunk at a time, which stays in cache (transposing the whole selection later
         * strides across megabytes) */
        axb_h5_take_cols(tmp, axis, w, nt, c0, a, b, ids, buf);
        a = b;
    }
    if (dxpl >= 0) H5Pclose(dxpl);
    H5Sclose(fs);
    free(tmp);
    *used = true;
    return st;
}
