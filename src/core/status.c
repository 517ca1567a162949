#include "axibulk/status.h"

#include <stdarg.h>
#include <stdbool.h>
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
    case AXB_ERR_RESOURCE: return "out of disk space or storage failure";
    }
    return "unknown error";
}

/* Length of the well-formed UTF-8 sequence at s (2..4 bytes), 0 if there is none. */
static int utf8_length(const unsigned char *s)
{
    int n = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return n;
}

/* Messages quote file contents, which may be binary, and end up on one terminal line: every byte
 * that is not printable ASCII or part of well-formed UTF-8 is written as \xNN. This is the one
 * place every message passes; the readers cut quoted tokens to a few dozen characters. */
static void sanitize(char *msg)
{
    char out[AXB_ERRMSG_MAX];
    size_t k = 0;
    bool cut = false;
    for (const unsigned char *s = (const unsigned char *)msg; *s;) {
        const int n = *s >= 0x20 && *s < 0x7F ? 1 : utf8_length(s);
        if (k + (n ? (size_t)n : 4) >= sizeof out) {
            cut = true;
            break;
        }
        if (*s == '\t') {
            out[k++] = ' '; /* a tab in a quoted line is only space */
            s++;
        } else if (n) {
            memcpy(out + k, s, (size_t)n);
            k += (size_t)n;
            s += n;
        } else {
            snprintf(out + k, 5, "\\x%02X", *s++);
            k += 4;
        }
    }
    out[k] = '\0';
    if (cut) memcpy(out + (k < sizeof out - 4 ? k : sizeof out - 4), "...", 4);
    memcpy(msg, out, strlen(out) + 1);
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
