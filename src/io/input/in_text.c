/* Line reading and strict number parsing for the text input formats. */
#include "in_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

axb_status axb_in_text_open(axb_in_text *t, const char *path, axb_error *err)
{
    *t = (axb_in_text){.path = path};
    t->fp = fopen(path, "r");
    AXB_CHECK(err, t->fp, AXB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    return AXB_OK;
}

void axb_in_text_close(axb_in_text *t)
{
    if (t->fp) fclose(t->fp);
    free(t->line);
    free(t->buf);
    *t = (axb_in_text){0};
}

/* Text lines are short in every format read here; a longer one is a binary or endless stream
 * (/dev/zero, a mistyped path to a data file) that getline would take into memory whole. */
#define MAX_LINE (1 << 20)

static axb_status grow_line(axb_in_text *t, size_t need, axb_error *err)
{
    if (need <= t->cap) return AXB_OK;
    size_t cap = t->cap ? t->cap * 2 : 256;
    while (cap < need) cap *= 2;
    char *p = realloc(t->line, cap);
    AXB_CHECK(err, p, AXB_ERR_NOMEM, "%s:%" PRId64 ": out of memory for a line", t->path, t->lineno + 1);
    t->line = p;
    t->cap = cap;
    return AXB_OK;
}

/* Lines are cut out of blocks read with fread: a character at a time through getc was two fifths
 * of reading a pairs file. */
#define READ_BLOCK ((size_t)1 << 16)

axb_status axb_in_text_next(axb_in_text *t, bool *eof, axb_error *err)
{
    if (!t->buf) {
        t->buf = malloc(READ_BLOCK);
        AXB_CHECK(err, t->buf, AXB_ERR_NOMEM, "%s: out of memory for a read buffer", t->path);
    }
    size_t n = 0;
    bool ended = false; /* a newline ends the line */
    errno = 0;
    while (!ended) {
        if (t->bpos == t->blen) {
            t->bpos = 0;
            t->blen = fread(t->buf, 1, READ_BLOCK, t->fp);
            if (t->blen == 0) break; /* the end of the file, or a read error */
        }
        const char *from = t->buf + t->bpos;
        const size_t avail = t->blen - t->bpos;
        const char *nl = memchr(from, '\n', avail);
        const size_t take = nl ? (size_t)(nl - from) + 1 : avail;
        AXB_CHECK(err, !memchr(from, '\0', take), AXB_ERR_FORMAT,
                  "%s:%" PRId64 ": NUL byte in the line: a binary file, not text", t->path, t->lineno + 1);
        AXB_CHECK(err, n + take <= MAX_LINE, AXB_ERR_FORMAT,
                  "%s:%" PRId64 ": line longer than %d bytes: a binary file or stream, not text", t->path,
                  t->lineno + 1, MAX_LINE);
        AXB_TRY(grow_line(t, n + take + 1, err));
        memcpy(t->line + n, from, take);
        n += take;
        t->bpos += take;
        ended = nl != NULL;
    }
    if (!ended) {
        AXB_CHECK(err, !ferror(t->fp), AXB_ERR_IO, "%s:%" PRId64 ": read error: %s", t->path, t->lineno + 1,
                  strerror(errno ? errno : EIO));
        if (n == 0) {
            if (t->line) t->line[0] = '\0';
            *eof = true;
            return AXB_OK;
        }
    }
    AXB_TRY(grow_line(t, n + 1, err));
    t->line[n] = '\0';
    t->lineno++;
    *eof = false;
    while (n > 0 && (t->line[n - 1] == '\n' || t->line[n - 1] == '\r')) t->line[--n] = '\0';
    return AXB_OK;
}

bool axb_in_blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) return false;
    return true;
}

int axb_in_split(char *s, char **tok, int max)
{
    int n = 0;
    while (*s) {
        while (*s && isspace((unsigned char)*s)) s++;
        if (!*s) break;
        if (n < max) tok[n] = s;
        n++;
        while (*s && !isspace((unsigned char)*s)) s++;
        if (*s) *s++ = '\0';
    }
    return n;
}

char *axb_in_next_token(char **cursor)
{
    char *s = *cursor;
    while (*s && isspace((unsigned char)*s)) s++;
    if (!*s) {
        *cursor = s;
        return NULL;
    }
    char *tok = s;
    while (*s && !isspace((unsigned char)*s)) s++;
    if (*s) *s++ = '\0';
    *cursor = s;
    return tok;
}

/* Clinger's fast path, for the numbers input files hold: a decimal of at most 15 significant digits
 * and a power of ten within ±22 are both exact doubles, so one multiplication or division rounds
 * them correctly, to the bits strtod gives (test_inputs compares them). Anything else (more digits, a
 * larger exponent, or not a plain decimal at all) returns false and takes strtod's path. A pairs
 * file holds 13 numbers per line, and parsing them with strtod was 44 % of reading one. */
static bool parse_decimal_fast(const char *s, double *v)
{
    static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *p = s;
    const bool neg = *p == '-';
    if (*p == '+' || *p == '-') p++;
    uint64_t m = 0;
    int sig = 0, scale = 0, ndig = 0;
    for (; *p >= '0' && *p <= '9'; p++, ndig++) {
        if (m == 0 && *p == '0') continue; /* leading zeros are not significant */
        if (++sig > 15) return false;
        m = m * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, ndig++) {
            scale--;
            if (m == 0 && *p == '0') continue;
            if (++sig > 15) return false;
            m = m * 10 + (uint64_t)(*p - '0');
        }
    if (ndig == 0) return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        const bool eneg = *p == '-';
        if (*p == '+' || *p == '-') p++;
        int e = 0, edig = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (++edig > 4) return false;
            e = e * 10 + (*p - '0');
        }
        if (edig == 0) return false;
        scale += eneg ? -e : e;
    }
    if (*p != '\0' || scale < -22 || scale > 22) return false;
    const double x = scale >= 0 ? (double)m * POW10[scale] : (double)m / POW10[-scale];
    *v = neg ? -x : x;
    return true;
}

bool axb_in_parse_double(const char *s, double *v)
{
    if (parse_decimal_fast(s, v)) return true;
    /* strtod also takes "nan", "infinity" and hexadecimal floats; none of the formats allows them,
     * so only the characters of a decimal number are let through first. (strtod follows LC_NUMERIC;
     * axibulk never calls setlocale, so the decimal point is '.'.) */
    if (!*s) return false;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p)) return false;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(x)) return false;
    /* Underflow to a subnormal or 0 sets ERANGE but gives a usable value; overflow gave inf. */
    *v = x;
    return true;
}

bool axb_in_parse_int64(const char *s, int64_t *v)
{
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    if (!isdigit((unsigned char)*p)) return false;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q)) return false;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno == ERANGE || *end != '\0') return false;
    *v = (int64_t)x;
    return true;
}

axb_status axb_in_err_line(const axb_in_text *t, axb_status code, axb_error *err, const char *fmt, ...)
{
    char msg[AXB_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return axb_error_set(err, code, "%s:%" PRId64 ": %s", t->path, t->lineno, msg);
}

axb_status axb_in_err_number(const axb_in_text *t, int field, const char *name, const char *tok, axb_error *err)
{
    return axb_in_err_line(t, AXB_ERR_FORMAT, err, "field %d (%s): '%.80s' is not a number", field, name, tok);
}

axb_status axb_in_field_double(const axb_in_text *t, int field, const char *name, const char *tok, double *v,
                               axb_error *err)
{
    if (!axb_in_parse_double(tok, v)) return axb_in_err_number(t, field, name, tok, err);
    return AXB_OK;
}
