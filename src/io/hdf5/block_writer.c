/* Direct (O_DIRECT) streams into a pre-allocated file region; see axibulk/rawfile.h. */
#define _GNU_SOURCE /* O_DIRECT */
#include "io/hdf5/block_writer.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axibulk/db.h" /* AXB_PATH_MAX */
#include "axibulk/timefmt.h"
#include "core/large_alloc.h"
#include "core/writeback.h"
#include "io/hdf5/h5util.h"

#define ALIGN ((int64_t)AXB_BLOCK_WRITER_ALIGN)

/* The whole pages of one put, written by a helper thread while the caller fills the other
 * buffer: the disk reads and writes at once (measured: a direct write beside a sequential read
 * of the same disk slows neither to the sum of their times). */
typedef struct page_write {
    int fd, fd_plain;
    const unsigned char *p;
    int64_t off, len;
    int errno_;     /* 0, or why the write stopped */
    bool fell_back; /* O_DIRECT was refused at write time (EINVAL): written through the cache */
    double seconds; /* in pwrite */
} page_write;

struct axb_block_writer {
    char path[AXB_PATH_MAX];
    int fd_direct; /* O_DIRECT where allowed, else a second plain descriptor */
    int fd_plain;  /* the stream's shared first and last pages */
    bool direct;
    unsigned char *bufs[2]; /* each capacity + 2 pages, page aligned */
    unsigned char *buf;     /* the one being filled */
    size_t capacity;
    pthread_t thread; /* writing `job` from the other buffer, while `busy` */
    bool busy;
    page_write job;
    /* the open stream: buf[0..carry) holds file bytes [pos - carry, pos); pos - carry is page
     * aligned. Bytes before `start` in the first page are not the stream's (foreign). */
    bool open;
    int64_t start, pos;
    size_t carry;
    int64_t n_direct, n_plain;
    double t_write; /* seconds in pwrite, the helper's and the caller's */
};

static int64_t align_down(int64_t x)
{
    return x / ALIGN * ALIGN;
}

axb_status axb_block_writer_open(const char *path, size_t capacity, bool direct, axb_block_writer **out, axb_error *err)
{
    *out = NULL;
    axb_block_writer *f = calloc(1, sizeof *f);
    if (!f) return axb_error_set(err, AXB_ERR_NOMEM, "%s: raw writer", path);
    snprintf(f->path, sizeof f->path, "%s", path);
    f->fd_direct = f->fd_plain = -1;
    f->capacity = capacity;
    for (int k = 0; k < 2; k++)
        if (!(f->bufs[k] = axb_large_alloc(capacity + 2 * (size_t)ALIGN))) {
            free(f->bufs[0]);
            free(f);
            return axb_error_set(err, AXB_ERR_NOMEM, "%s: write buffers of 2 x %zu bytes", path, capacity);
        }
    f->buf = f->bufs[0];
    f->fd_plain = open(path, O_WRONLY);
    if (f->fd_plain < 0) {
        axb_status st = axb_error_set(err, AXB_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
        axb_block_writer_close(&f);
        return st;
    }
#ifdef O_DIRECT
    if (direct) {
        f->fd_direct = open(path, O_WRONLY | O_DIRECT);
        f->direct = f->fd_direct >= 0;
    }
#else
    (void)direct;
#endif
    if (f->fd_direct < 0) f->fd_direct = f->fd_plain;
    *out = f;
    return AXB_OK;
}

bool axb_block_writer_is_direct(const axb_block_writer *f)
{
    return f->direct;
}

/* 0 or the errno that stopped it (ENOSPC for a write that made no progress) */
static int pwrite_all(int fd, const unsigned char *p, int64_t off, int64_t len)
{
    while (len > 0) {
        const ssize_t n = pwrite(fd, p, (size_t)len, (off_t)off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? errno : ENOSPC;
        p += n;
        off += n;
        len -= n;
    }
    return 0;
}

static axb_status write_failed(const axb_block_writer *f, int64_t off, int64_t len, int e, axb_error *err)
{
    /* a full disk or a failing device is the machine's, not the input's (docs/cli.md, exit status) */
    const axb_status code = e == ENOSPC || e == EDQUOT || e == EIO || e == EFBIG ? AXB_ERR_RESOURCE : AXB_ERR_IO;
    return axb_error_set(err, code, "%s: write of %lld bytes at offset %lld: %s", f->path, (long long)len,
                         (long long)off, strerror(e));
}

static axb_status write_all(axb_block_writer *f, int fd, const unsigned char *p, int64_t off, int64_t len,
                            axb_error *err)
{
    const double t0 = axb_wall_seconds();
    const int e = pwrite_all(fd, p, off, len);
    f->t_write += axb_wall_seconds() - t0;
    return e ? write_failed(f, off, len, e, err) : AXB_OK;
}

static void *page_writer(void *arg)
{
    page_write *w = arg;
    const double t0 = axb_wall_seconds();
    w->errno_ = pwrite_all(w->fd, w->p, w->off, w->len);
    /* Some file systems accept O_DIRECT at open and refuse it at write time (alignment rules
     * stricter than a page): the same bytes go through the page cache. */
    if (w->errno_ == EINVAL && w->fd != w->fd_plain) {
        w->fell_back = true;
        w->errno_ = pwrite_all(w->fd_plain, w->p, w->off, w->len);
    }
    w->seconds = axb_wall_seconds() - t0;
    return NULL;
}

/* The outcome of the finished job. */
static axb_status job_done(axb_block_writer *f, axb_error *err)
{
    const page_write *w = &f->job;
    f->t_write += w->seconds;                          /* the helper has been joined: no race */
    if (w->fell_back && f->fd_direct != f->fd_plain) { /* from now on through the page cache */
        close(f->fd_direct);
        f->fd_direct = f->fd_plain;
        f->direct = false;
    }
    if (w->errno_) return write_failed(f, w->off, w->len, w->errno_, err);
    *(f->direct ? &f->n_direct : &f->n_plain) += w->len;
    return AXB_OK;
}

/* Waits for the helper's write and reports its outcome. */
static axb_status wait_pages(axb_block_writer *f, axb_error *err)
{
    if (!f->busy) return AXB_OK;
    pthread_join(f->thread, NULL);
    f->busy = false;
    return job_done(f, err);
}

axb_status axb_block_writer_begin(axb_block_writer *f, int64_t offset, axb_error *err)
{
    if (f->open) AXB_TRY(axb_block_writer_end(f, err));
    AXB_CHECK(err, offset >= 0, AXB_ERR_INTERNAL, "%s: negative offset %lld", f->path, (long long)offset);
    f->open = true;
    f->start = f->pos = offset;
    f->carry = (size_t)(offset - align_down(offset));
    return AXB_OK;
}

void *axb_block_writer_buffer(axb_block_writer *f, size_t *head)
{
    *head = f->carry;
    return f->buf;
}

axb_status axb_block_writer_put(axb_block_writer *f, size_t len, axb_error *err)
{
    AXB_CHECK(err, f->open && len <= f->capacity, AXB_ERR_INTERNAL, "%s: put of %zu bytes (capacity %zu)%s", f->path,
              len, f->capacity, f->open ? "" : " without a stream");
    const int64_t base = f->pos - (int64_t)f->carry; /* file offset of buf[0], page aligned */
    const int64_t end = f->pos + (int64_t)len;
    /* the first page is shared with whoever owns the bytes before `start` */
    const int64_t first_own = f->start > base ? base + ALIGN : base;
    const int64_t direct_end = align_down(end);
    if (direct_end <= first_own) { /* not one whole page of our own yet: keep carrying */
        f->pos = end;
        f->carry += len;
        return AXB_OK;
    }
    if (first_own > base) {
        AXB_TRY(write_all(f, f->fd_plain, f->buf + (f->start - base), f->start, first_own - f->start, err));
        f->n_plain += first_own - f->start;
        f->start = base; /* from now on every byte of the buffer is ours */
    }
    /* the other buffer is free once the previous put's pages are written */
    AXB_TRY(wait_pages(f, err));
    unsigned char *next = f->buf == f->bufs[0] ? f->bufs[1] : f->bufs[0];
    f->carry = (size_t)(end - direct_end);
    memcpy(next, f->buf + (direct_end - base), f->carry);
    f->job = (page_write){
        f->fd_direct, f->fd_plain, f->buf + (first_own - base), first_own, direct_end - first_own, 0, false, 0};
    f->pos = end;
    f->buf = next;
    if (pthread_create(&f->thread, NULL, page_writer, &f->job) == 0) {
        f->busy = true;
        return AXB_OK;
    }
    page_writer(&f->job); /* no thread to be had: write here */
    return job_done(f, err);
}

axb_status axb_block_writer_end(axb_block_writer *f, axb_error *err)
{
    if (!f->open) return AXB_OK;
    f->open = false;
    AXB_TRY(wait_pages(f, err));
    const int64_t base = f->pos - (int64_t)f->carry;
    const int64_t from = f->start > base ? f->start : base;
    if (f->pos > from) {
        AXB_TRY(write_all(f, f->fd_plain, f->buf + (from - base), from, f->pos - from, err));
        f->n_plain += f->pos - from;
    }
    f->carry = 0;
    return AXB_OK;
}

axb_status axb_block_writer_sync(axb_block_writer *f, axb_error *err)
{
    AXB_TRY(wait_pages(f, err));
    /* one inode: fdatasync on either descriptor covers the page cache's data and the direct writes */
    if (fdatasync(f->fd_plain) != 0) return axb_error_set(err, AXB_ERR_IO, "%s: sync: %s", f->path, strerror(errno));
    return AXB_OK;
}

void axb_block_writer_start_writeback(axb_block_writer *f)
{
    axb_start_writeback(f->fd_plain, 0, 0);
}

void axb_block_writer_counts(const axb_block_writer *f, int64_t *direct_bytes, int64_t *buffered_bytes)
{
    *direct_bytes = f->n_direct;
    *buffered_bytes = f->n_plain;
}

double axb_block_writer_seconds(const axb_block_writer *f)
{
    return f->t_write;
}

void axb_block_writer_close(axb_block_writer **pf)
{
    axb_block_writer *f = pf ? *pf : NULL;
    if (!f) return;
    if (f->busy) pthread_join(f->thread, NULL);
    if (f->fd_direct >= 0 && f->fd_direct != f->fd_plain) close(f->fd_direct);
    if (f->fd_plain >= 0) close(f->fd_plain);
    free(f->bufs[0]);
    free(f->bufs[1]);
    free(f);
    *pf = NULL;
}

axb_status axb_h5_contiguous_extent(const char *path, const char *dataset, int64_t *offset, int64_t *size,
                                    axb_error *err)
{
    hid_t fid = H5I_INVALID_HID;
    AXB_TRY_CTX(err, axb_h5_open(path, H5P_DEFAULT, &fid, err), "%s", path);
    hid_t d = axb_h5_exists(fid, dataset) ? H5Dopen2(fid, dataset, H5P_DEFAULT) : H5I_INVALID_HID;
    if (d < 0) {
        H5Fclose(fid);
        return axb_error_set(err, AXB_ERR_FORMAT, "%s: no dataset '%s'", path, dataset);
    }
    const bool contiguous = axb_h5_contiguous_offset(d, offset);
    const int64_t bytes = (int64_t)H5Dget_storage_size(d);
    H5Dclose(d);
    H5Fclose(fid);
    AXB_CHECK(err, contiguous, AXB_ERR_UNSUPPORTED, "%s: dataset '%s' is not one contiguous allocated block", path,
              dataset);
    *size = bytes;
    return AXB_OK;
}
