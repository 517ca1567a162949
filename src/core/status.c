#include "axibulk/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *axb_strerror(axb_status code)
{
    switch (code) {
    case AXB_OK: return "success";
    case AXB_ERR_ARG: return "invalid argument";
    case AXB_ERR_IO: return "input/output error";
    case AXB_ERR_FORMAT: return "invalid file format";
    case AXB_ERR_RANGE: return "value out of range";
    case AXB_ERR_UNSUPPORTED: return "not supported";
    case AXB_ERR_HDF5: return "HDF5 library error";
    case AXB_ERR_MPI: return "MPI error";
    case AXB_ERR_NOMEM: return "out of memory";
    case AXB_ERR_REMOTE: return "failed on another MPI rank";
    case AXB_ERR_INTERNAL: return "internal error";
    }
    return "unknown error";
}

/* Messages end up on one terminal line, so control characters from file contents are replaced. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20) *s = ' ';
}

static void mark_truncated(char *msg, int written)
{
    if (written >= AXB_ERRMSG_MAX) memcpy(msg + AXB_ERRMSG_MAX - 4, "...", 4);
}

axb_status axb_error_set(axb_error *err, axb_status code, const char *fmt, ...)
{
    if (!err) return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (n < 0) err->msg[0] = '\0';
    mark_truncated(err->msg, n);
    sanitize(err->msg);
    return code;
}

axb_status axb_error_prefix(axb_error *err, const char *fmt, ...)
{
    if (!err) return AXB_ERR_INTERNAL;
    char ctx[AXB_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    if (n < 0) ctx[0] = '\0';
    char old[AXB_ERRMSG_MAX];
    memcpy(old, err->msg, sizeof old);
    n = snprintf(err->msg, sizeof err->msg, "%s: %s", ctx, old[0] ? old : axb_strerror(err->code));
    mark_truncated(err->msg, n);
    sanitize(err->msg);
    if (err->code == AXB_OK) err->code = AXB_ERR_INTERNAL;
    return err->code;
}

void axb_error_clear(axb_error *err)
{
    if (!err) return;
    err->code = AXB_OK;
    err->msg[0] = '\0';
}
