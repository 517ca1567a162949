/* The checkpoint of a kernel run, on rank 0, following core/partial.h:
 *   OUT.partial          empty while cells are computed; the HDF5 output is written into it last
 *   OUT.partial.record   the finished cells (checksummed lists, appended at every checkpoint)
 *   OUT.partial.cells    their values: one slot per cell at offset cell · slot size, each slot
 *                        [points, values, errors] as doubles and a 64-bit checksum of them
 * A slot is written and synced before its cell enters the record, so a cell in an intact record
 * has its values on disk; a slot whose checksum fails is refused, never used. The values are the
 * computed doubles themselves, so a resumed run writes exactly what an uninterrupted one would. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/pread_all.h"
#include "engines/kernel_internal.h"

#define KSTORE_KIND "kernel"

static uint64_t slot_sum(const double *v, int64_t n)
{
    return axb_hash_doubles(AXB_HASH_INIT, v, (size_t)n);
}

static axb_status write_all(int fd, const void *buf, size_t n, off_t off, const char *path, axb_error *err)
{
    const char *p = buf;
    while (n > 0) {
        const ssize_t w = pwrite(fd, p, n, off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return axb_error_set(err, AXB_ERR_IO, "%s: cannot write: %s", path, w < 0 ? strerror(errno) : "no space");
        p += w;
        n -= (size_t)w;
        off += w;
    }
    return AXB_OK;
}

static axb_status read_all(int fd, void *buf, size_t n, off_t off, const char *path, axb_error *err)
{
    const int e = axb_pread_all(fd, buf, n, (int64_t)off);
    if (e != 0)
        return axb_error_set(err, AXB_ERR_FORMAT, "%s: truncated (%s)", path, e > 0 ? strerror(e) : "end of file");
    return AXB_OK;
}

static off_t slot_offset(const axb_kstore *s, int64_t cell)
{
    return (off_t)(cell * (s->slot + 1) * 8);
}

/* Resume: the values of every cell in the record, checked against their checksums. */
static axb_status load(axb_kstore *s, const uint8_t *done, double *slots, axb_error *err)
{
    double *buf = malloc((size_t)(s->slot + 1) * sizeof *buf);
    AXB_CHECK(err, buf, AXB_ERR_NOMEM, "checkpoint slot");
    axb_status st = AXB_OK;
    for (int64_t c = 0; !st && c < s->ncell; c++) {
        if (!done[c]) continue;
        st = read_all(s->fd, buf, (size_t)(s->slot + 1) * 8, slot_offset(s, c), s->cells, err);
        uint64_t sum;
        memcpy(&sum, buf + s->slot, sizeof sum);
        if (!st && sum != slot_sum(buf, s->slot))
            st = axb_error_set(err, AXB_ERR_FORMAT,
                               "%s: the values of cell %lld are damaged (checksum); start again with --force", s->cells,
                               (long long)c);
        if (!st) memcpy(slots + c * s->slot, buf, (size_t)s->slot * sizeof *buf);
    }
    free(buf);
    return st;
}

static axb_status create_empty(const char *path, axb_error *err)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return axb_error_set(err, AXB_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    const bool ok = fsync(fd) == 0;
    close(fd);
    return ok ? AXB_OK : axb_error_set(err, AXB_ERR_IO, "%s: cannot sync: %s", path, strerror(errno));
}

axb_status axb_kstore_begin(axb_kstore *s, const char *output, axb_partial_mode mode, uint64_t fingerprint,
                            int64_t ncell, int64_t slot, uint8_t *done, double *slots, int64_t *ndone, axb_error *err)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->ncell = ncell;
    s->slot = slot;
    *ndone = 0;
    AXB_TRY(axb_partial_names(output, &s->names, err));
    snprintf(s->cells, sizeof s->cells, "%s.cells", s->names.partial);
    snprintf(s->identity, sizeof s->identity, "cells=%lld slot=%lld job=%016llx", (long long)ncell, (long long)slot,
             (unsigned long long)fingerprint);
    AXB_TRY(axb_partial_prepare(&s->names, mode, err));
    if (mode == AXB_PARTIAL_RESUME) {
        AXB_TRY(axb_partial_record_read(&s->names, KSTORE_KIND, s->identity, ncell, done, ndone, err));
        s->fd = open(s->cells, O_RDWR | (*ndone == 0 ? O_CREAT : 0), 0644);
        if (s->fd < 0)
            return axb_error_set(err, AXB_ERR_IO, "cannot resume: %s: %s (start again with --force)", s->cells,
                                 strerror(errno));
        return load(s, done, slots, err);
    }
    if (unlink(s->cells) != 0 && errno != ENOENT)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot remove: %s", s->cells, strerror(errno));
    /* the record first: a kill right after it leaves a run that resumes from nothing */
    AXB_TRY(axb_partial_record_start(&s->names, KSTORE_KIND, s->identity, err));
    AXB_TRY(create_empty(s->names.partial, err));
    s->fd = open(s->cells, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (s->fd < 0) return axb_error_set(err, AXB_ERR_IO, "%s: cannot create: %s", s->cells, strerror(errno));
    return AXB_OK;
}

axb_status axb_kstore_add(axb_kstore *s, int64_t n, const int64_t *cells, const double *slots, axb_error *err)
{
    if (n == 0) return AXB_OK;
    double *buf = malloc((size_t)(s->slot + 1) * sizeof *buf);
    AXB_CHECK(err, buf, AXB_ERR_NOMEM, "checkpoint slot");
    axb_status st = AXB_OK;
    for (int64_t i = 0; !st && i < n; i++) {
        memcpy(buf, slots + i * s->slot, (size_t)s->slot * sizeof *buf);
        const uint64_t sum = slot_sum(buf, s->slot);
        memcpy(buf + s->slot, &sum, sizeof sum);
        st = write_all(s->fd, buf, (size_t)(s->slot + 1) * 8, slot_offset(s, cells[i]), s->cells, err);
    }
    free(buf);
    if (!st && fdatasync(s->fd) != 0)
        st = axb_error_set(err, AXB_ERR_IO, "%s: cannot sync: %s", s->cells, strerror(errno));
    if (!st) st = axb_partial_record_add(&s->names, n, cells, err);
    return st;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

axb_status axb_kstore_publish(axb_kstore *s, const char *xdmf, const axb_kernel_job *job, const axb_kernel_result *res,
                              axb_error *err)
{
    axb_partial xd;
    AXB_TRY(axb_partial_names(xdmf, &xd, err));
    AXB_TRY(axb_partial_prepare(&xd, AXB_PARTIAL_FORCE, err));
    /* written beside the placeholder and renamed over it: a kill in between leaves a run that
     * still resumes (with every cell done, it only writes again) */
    char tmp[sizeof s->cells];
    snprintf(tmp, sizeof tmp, "%s.writing", s->names.partial);
    if (unlink(tmp) != 0 && errno != ENOENT)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot remove: %s", tmp, strerror(errno));
    axb_status st = axb_kernel_output_write_files(tmp, xd.partial, base_name(s->names.final), job, res, err);
    if (!st && rename(tmp, s->names.partial) != 0)
        st = axb_error_set(err, AXB_ERR_IO, "%s: cannot rename to %s: %s", tmp, s->names.partial, strerror(errno));
    if (st) (void)unlink(tmp);
    /* the HDF5 file first (its record goes with it): a published XDMF file never refers to a
     * missing one */
    if (!st) st = axb_partial_publish(&s->names, err);
    if (!st) st = axb_partial_publish(&xd, err);
    if (!st && unlink(s->cells) != 0 && errno != ENOENT)
        st = axb_error_set(err, AXB_ERR_IO, "%s: cannot remove: %s", s->cells, strerror(errno));
    return st;
}

void axb_kstore_close(axb_kstore *s)
{
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
}
