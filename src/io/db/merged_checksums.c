/* The merged file's per-element checksums (/MergedChecksums, one CRC-32 per element of
 * /MergedSnapshots; reference in docs/database-format.md), written once every element is in the
 * file. Every rank took the checksums of the elements it put (merged_write.c); rank 0 gathers
 * them and stores the whole array through serial HDF5, after netCDF closed the file (the array
 * was defined and allocated with the structure). Elements a resumed run did not put were written
 * by the killed run: their checksums are computed from the file, so a resumed file is as complete
 * as any other. */
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "io/db/db_integrity.h"
#include "io/db/db_names.h"
#include "io/db/merged_internal.h"
#include "io/hdf5/h5util.h"

/* elements per reduction: MPI counts are int */
#define REDUCE_PIECE ((int64_t)1 << 24)

/* Rank 0: the CRC-32 of element e read back from the data (a resumed run's earlier elements). */
static axb_status crc_from_file(hid_t data, const merged_impl *m, int64_t e, float *blk, uint32_t *crc, axb_error *err)
{
    const hsize_t np1 = (hsize_t)m->def.npol + 1;
    const hsize_t start[5] = {(hsize_t)e, 0, 0, 0, 0},
                  count[5] = {1, (hsize_t)m->def.nvars, np1, np1, (hsize_t)m->def.ndumps};
    hid_t fs = H5Dget_space(data), ms = H5Screate_simple(5, count, NULL);
    herr_t rc = fs >= 0 && ms >= 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) : -1;
    if (rc >= 0) rc = H5Dread(data, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, blk);
    if (fs >= 0) H5Sclose(fs);
    if (ms >= 0) H5Sclose(ms);
    if (rc < 0) return axb_h5_error(err, "reading element %lld back for its checksum", (long long)e);
    *crc = axb_elem_crc32(blk, m->block_bytes / (int64_t)sizeof(float));
    return AXB_OK;
}

/* Rank 0: the array of all checksums, completed where needed, into the file, then to the disk. */
static axb_status store(const axb_db_writer *w, const uint64_t *all, axb_error *err)
{
    const merged_impl *m = w->impl;
    const int64_t ne = m->def.nelem;
    uint32_t *v = malloc((size_t)(ne ? ne : 1) * sizeof *v);
    float *blk = NULL;
    if (!v) return axb_error_set(err, AXB_ERR_NOMEM, "element checksums");
    const hid_t fid = H5Fopen(w->path, H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t data = fid >= 0 ? H5Dopen2(fid, "/" AXB_NC_VAR_MERGED, H5P_DEFAULT) : -1;
    const hid_t crc = fid >= 0 ? H5Dopen2(fid, "/" AXB_NC_VAR_MERGED_CRC, H5P_DEFAULT) : -1;
    axb_status st = data >= 0 && crc >= 0
        ? AXB_OK
        : axb_h5_error(err,
                       "cannot open " AXB_NC_VAR_MERGED_CRC " (a file of an older axibulk? start again with --force)");
    for (int64_t e = 0; e < ne && !st; e++) {
        if (all[e] >> 32) {
            v[e] = (uint32_t)all[e];
            continue;
        }
        if (!blk && !(blk = malloc((size_t)m->block_bytes))) st = axb_error_set(err, AXB_ERR_NOMEM, "element block");
        if (!st) st = crc_from_file(data, m, e, blk, &v[e], err);
    }
    if (!st && H5Dwrite(crc, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
        st = axb_h5_error(err, "writing " AXB_NC_VAR_MERGED_CRC);
    if (crc >= 0) H5Dclose(crc);
    if (data >= 0) H5Dclose(data);
    if (fid >= 0 && H5Fclose(fid) < 0 && !st) st = axb_h5_error(err, "close");
    free(v);
    free(blk);
    if (!st) { /* published right after: the checksums must be as durable as the data */
        const int fd = open(w->path, O_RDONLY);
        if (fd < 0 || fdatasync(fd) != 0) st = axb_error_set(err, AXB_ERR_IO, "sync of the checksums failed");
        if (fd >= 0) close(fd);
    }
    return st ? axb_error_prefix(err, "%s", w->path) : AXB_OK;
}

axb_status axb_merged_write_checksums(axb_db_writer *w, axb_error *err)
{
    const merged_impl *m = w->impl;
    const int64_t ne = m->def.nelem;
    uint64_t *all = NULL;
    if (w->rank == 0 && !(all = calloc((size_t)(ne ? ne : 1), sizeof *all)))
        (void)axb_error_set(err, AXB_ERR_NOMEM, "element checksums of all ranks");
    AXB_TRY(axb_agree(w->comm, w->rank == 0 && !all ? AXB_ERR_NOMEM : AXB_OK, err));
    axb_status st = AXB_OK;
    /* each element was put by one rank: the others hold 0 for it; every rank takes part in every
     * piece, whatever failed before, and the agreement below carries a failure */
    for (int64_t off = 0; off < ne; off += REDUCE_PIECE) {
        const int cnt = (int)(ne - off < REDUCE_PIECE ? ne - off : REDUCE_PIECE);
        AXB_MPI_CHECK(st, err, MPI_Reduce(m->crc + off, all ? all + off : NULL, cnt, MPI_UINT64_T, MPI_BOR, 0, w->comm),
                      "element checksums");
    }
    if (!st && w->rank == 0) st = store(w, all, err);
    free(all);
    return axb_agree(w->comm, st, err);
}
