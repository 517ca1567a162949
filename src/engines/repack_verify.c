/* Verification of a merged database against its source: every element's block, bit for bit, with
 * elements matched by their GLL point numbering (so any element order is accepted), plus the mesh
 * facts the reader relies on. Both are read afresh through the database layer, which checks what
 * each file carries: the source's fletcher32 where it has it (AxiSEM's and mkdb's files), the
 * output's CRC-32 of every element, and finiteness of every value. A source without checksums
 * can only be compared as it reads now: damage done to it before the repack goes unseen (the
 * result says so: axb_repack_result.source_checksums). */
#include <stdlib.h>
#include <string.h>

#include "axibulk/db.h"
#include "axibulk/repack.h"
#include "core/agree.h"
#include "core/mpi_check.h"
#include "io/db/db_names.h"

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
            memcmp(dst->fem + e * 4, src->fem + f * 4, 4 * sizeof(int32_t)) || dst->eltype[e] != src->eltype[f] ||
            dst->axis[e] != src->axis[f] || dst->mp_s[e] != src->mp_s[f] || dst->mp_z[e] != src->mp_z[f])
            st = axb_error_set(err, AXB_ERR_FORMAT, "element %lld of the merged file matches no source element",
                               (long long)e);
        map[e] = f;
    }
    free(by_mid);
    return st;
}

/* Shape, points and STF alike, and every merged element matched to its source element. */
static axb_status same_shape(axb_db *src, axb_db *dst, const char *src_path, const char *dst_path, int64_t *map,
                             axb_error *err)
{
    const axb_db_info *a = axb_db_get_info(src), *b = axb_db_get_info(dst);
    const axb_mesh *ma = axb_db_get_mesh(src), *mb = axb_db_get_mesh(dst);
    if (a->nelem != b->nelem || a->nvars != b->nvars || a->ndumps != b->ndumps || a->npoints != b->npoints ||
        memcmp(ma->s, mb->s, (size_t)a->npoints * sizeof(float)) ||
        memcmp(ma->z, mb->z, (size_t)a->npoints * sizeof(float)) ||
        memcmp(axb_db_get_stf_d(src), axb_db_get_stf_d(dst), (size_t)a->ndumps * sizeof(double)))
        return axb_error_set(err, AXB_ERR_FORMAT, "verify: %s and %s differ in shape, points or STF", src_path,
                             dst_path);
    /* the output's own checksums are what make the comparison's reads of it trustworthy later */
    AXB_CHECK(err, b->checksums == AXB_CHECKSUMS_ELEMENT, AXB_ERR_FORMAT,
              "verify: %s has no element checksums (" AXB_NC_VAR_MERGED_CRC ")", dst_path);
    return match(ma, mb, map, err);
}

/* What the element comparison needs: both databases, the map, buffers of @c per elements. */
typedef struct verify_job {
    MPI_Comm comm;
    axb_db *src, *dst;
    const char *src_path, *dst_path;
    const int64_t *map;
    int64_t block, per;
    float *x, *y;
    int64_t *ids, *mine;
} verify_job;

/* Output elements [s0, s0+n) against their source elements (collective: every rank calls). */
static axb_status compare_slab(const verify_job *v, int64_t s0, int64_t n, axb_error *err)
{
    for (int64_t q = 0; q < n; q++) {
        v->mine[q] = s0 + q;
        v->ids[q] = v->map[s0 + q];
    }
    AXB_TRY(axb_db_read_elements(v->dst, n, v->mine, AXB_IO_COLLECTIVE, v->y, err));
    AXB_TRY(axb_db_read_elements(v->src, n, v->ids, AXB_IO_INDEPENDENT, v->x, err));
    for (int64_t q = 0; q < n; q++)
        if (memcmp(v->x + q * v->block, v->y + q * v->block, (size_t)v->block * sizeof(float)))
            return axb_error_set(err, AXB_ERR_FORMAT, "verify: element %lld of %s differs from element %lld of %s",
                                 (long long)(s0 + q), v->dst_path, (long long)v->ids[q], v->src_path);
    return AXB_OK;
}

/* Every rank its contiguous share of output elements, slab by slab in lockstep. */
static axb_status compare_all(verify_job *v, int64_t nelem, axb_error *err)
{
    int rank, size;
    AXB_MPI_TRY(err, MPI_Comm_rank(v->comm, &rank), "rank");
    AXB_MPI_TRY(err, MPI_Comm_size(v->comm, &size), "communicator size");
    const size_t n = (size_t)v->per;
    v->x = malloc(n * (size_t)v->block * sizeof *v->x);
    v->y = malloc(n * (size_t)v->block * sizeof *v->y);
    v->ids = malloc(n * sizeof *v->ids);
    v->mine = malloc(n * sizeof *v->mine);
    axb_status st = v->x && v->y && v->ids && v->mine ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "verify buffers");
    AXB_TRY(axb_agree(v->comm, st, err));
    const int64_t lo = nelem * rank / size, hi = nelem * (rank + 1) / size;
    int64_t nslabs = (hi - lo + v->per - 1) / v->per, max_slabs = 0;
    AXB_MPI_AGREE(v->comm, err, MPI_Allreduce(&nslabs, &max_slabs, 1, MPI_INT64_T, MPI_MAX, v->comm), "slab count");
    for (int64_t k = 0; k < max_slabs; k++) {
        const int64_t s0 = lo + k * v->per, cnt = s0 < hi ? (hi - s0 < v->per ? hi - s0 : v->per) : 0;
        AXB_TRY(axb_agree(v->comm, compare_slab(v, s0, cnt, err), err));
    }
    return AXB_OK;
}

axb_status axb_repack_verify(MPI_Comm comm, const char *src_path, const char *dst_path, int64_t memory_bytes,
                             axb_error *err)
{
    verify_job v = {.comm = comm, .src_path = src_path, .dst_path = dst_path};
    AXB_TRY(axb_db_open(comm, src_path, &v.src, err));
    axb_status st = axb_db_open(comm, dst_path, &v.dst, err);
    if (st) {
        axb_db_close(&v.src);
        return axb_error_prefix(err, "verify");
    }
    const int64_t nelem = axb_db_get_info(v.dst)->nelem;
    int64_t *map = malloc((size_t)(nelem ? nelem : 1) * sizeof *map);
    st =
        map ? same_shape(v.src, v.dst, src_path, dst_path, map, err) : axb_error_set(err, AXB_ERR_NOMEM, "element map");
    st = axb_agree(comm, st, err);
    v.map = map;
    v.block = axb_db_block_floats(v.src);
    v.per = memory_bytes / (2 * v.block * (int64_t)sizeof(float));
    if (v.per < 1) v.per = 1;
    if (!st) st = compare_all(&v, nelem, err);
    free(v.ids);
    free(v.mine);
    free(v.x);
    free(v.y);
    free(map);
    axb_db_close(&v.src);
    axb_db_close(&v.dst);
    return st;
}
