/* Verification of a merged database against its source: every element's block, bit for bit, with
 * elements matched by their GLL point numbering (so any element order is accepted), plus the mesh
 * facts the reader relies on. */
#include <stdlib.h>
#include <string.h>

#include "axibulk/db.h"
#include "axibulk/repack.h"
#include "core/agree.h"
#include "core/mpi_check.h"

static axb_status match(const axb_mesh *src, const axb_mesh *dst, int64_t *map, axb_error *err)
{
    const int64_t per = (int64_t)(src->npol + 1) * (src->npol + 1), mid = per / 2;
    int64_t *by_mid = malloc((size_t)src->npoints * sizeof *by_mid);
    if (!by_mid) return axb_error_set(err, AXB_ERR_NOMEM, "element map");
    for (int64_t p = 0; p < src->npoints; p++) by_mid[p] = -1;
    for (int64_t e = 0; e < src->nelem; e++) by_mid[src->sem[e * per + mid]] = e;
    axb_status st = AXB_OK;
    for (int64_t e = 0; e < dst->nelem && !st; e++) {
        const int64_t f = by_mid[dst->sem[e * per + mid]];
        if (f < 0 || memcmp(dst->sem + e * per, src->sem + f * per, (size_t)per * sizeof(int32_t)) ||
            memcmp(dst->fem + e * 4, src->fem + f * 4, 4 * sizeof(int32_t)) ||
            dst->eltype[e] != src->eltype[f] || dst->axis[e] != src->axis[f] ||
            dst->mp_s[e] != src->mp_s[f] || dst->mp_z[e] != src->mp_z[f])
            st = axb_error_set(err, AXB_ERR_FORMAT, "element %lld of the merged file matches no source element", (long long)e);
        map[e] = f;
    }
    free(by_mid);
    return st;
}

axb_status axb_repack_verify(MPI_Comm comm, const char *src_path, const char *dst_path, int64_t memory_bytes,
                             axb_error *err)
{
    int rank, size;
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &rank), "rank");
    AXB_MPI_TRY(err, MPI_Comm_size(comm, &size), "communicator size");
    axb_db *src = NULL, *dst = NULL;
    AXB_TRY(axb_db_open(comm, src_path, &src, err));
    axb_status st = axb_db_open(comm, dst_path, &dst, err);
    if (st) {
        axb_db_close(&src);
        return axb_error_prefix(err, "verify");
    }
    const axb_db_info *a = axb_db_get_info(src), *b = axb_db_get_info(dst);
    const axb_mesh *ma = axb_db_get_mesh(src), *mb = axb_db_get_mesh(dst);
    if (a->nelem != b->nelem || a->nvars != b->nvars || a->ndumps != b->ndumps || a->npoints != b->npoints ||
        memcmp(ma->s, mb->s, (size_t)a->npoints * sizeof(float)) || memcmp(ma->z, mb->z, (size_t)a->npoints * sizeof(float)) ||
        memcmp(axb_db_get_stf_d(src), axb_db_get_stf_d(dst), (size_t)a->ndumps * sizeof(double)))
        st = axb_error_set(err, AXB_ERR_FORMAT, "verify: %s and %s differ in shape, points or STF", src_path, dst_path);
    int64_t *map = malloc((size_t)(b->nelem ? b->nelem : 1) * sizeof *map);
    if (!st) st = map ? match(ma, mb, map, err) : axb_error_set(err, AXB_ERR_NOMEM, "element map");
    st = axb_agree(comm, st, err);
    const int64_t block = axb_db_block_floats(src);
    int64_t per = memory_bytes / (2 * block * (int64_t)sizeof(float));
    if (per < 1) per = 1;
    float *x = NULL, *y = NULL;
    if (!st) {
        x = malloc((size_t)(per * block) * sizeof *x);
        y = malloc((size_t)(per * block) * sizeof *y);
        if (!x || !y) st = axb_error_set(err, AXB_ERR_NOMEM, "verify buffers");
    }
    st = axb_agree(comm, st, err);
    const int64_t lo = b->nelem * rank / size, hi = b->nelem * (rank + 1) / size;
    int64_t nslabs = (hi - lo + per - 1) / per, max_slabs = 0;
    if (!st) AXB_MPI_CHECK(st, err, MPI_Allreduce(&nslabs, &max_slabs, 1, MPI_INT64_T, MPI_MAX, comm), "slab count");
    int64_t *ids = malloc((size_t)per * sizeof *ids), *mine = malloc((size_t)per * sizeof *mine);
    if (!st && (!ids || !mine)) st = axb_error_set(err, AXB_ERR_NOMEM, "verify element lists");
    st = axb_agree(comm, st, err);
    for (int64_t k = 0; k < max_slabs && !st; k++) {
        const int64_t s0 = lo + k * per, n = s0 < hi ? (hi - s0 < per ? hi - s0 : per) : 0;
        for (int64_t q = 0; q < n; q++) {
            mine[q] = s0 + q;
            ids[q] = map[s0 + q];
        }
        axb_status ls = axb_db_read_elements(dst, n, mine, AXB_IO_COLLECTIVE, y, err);
        if (!ls) ls = axb_db_read_elements(src, n, ids, AXB_IO_INDEPENDENT, x, err);
        for (int64_t q = 0; q < n && !ls; q++)
            if (memcmp(x + q * block, y + q * block, (size_t)block * sizeof(float)))
                ls = axb_error_set(err, AXB_ERR_FORMAT,
                                   "verify: element %lld of %s differs from element %lld of %s",
                                   (long long)(s0 + q), dst_path, (long long)ids[q], src_path);
        st = axb_agree(comm, ls, err);
    }
    free(ids);
    free(mine);
    free(x);
    free(y);
    free(map);
    axb_db_close(&src);
    axb_db_close(&dst);
    return st;
}
