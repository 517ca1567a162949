/* Growing text buffer for the XML documents the outputs hold (QuakeML, StationXML, PROV). */
#include "io/output/out_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void axb_sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->len + (size_t)n) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->failed = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

/* Names come from user files: markup characters are escaped, and bytes XML 1.0 does not allow
 * (control characters) or that might not be UTF-8 (non-ASCII) become '?'. */
void axb_sb_text(sbuf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': axb_sb_printf(b, "&amp;"); break;
        case '<': axb_sb_printf(b, "&lt;"); break;
        case '>': axb_sb_printf(b, "&gt;"); break;
        case '"': axb_sb_printf(b, "&quot;"); break;
        case '\'': axb_sb_printf(b, "&apos;"); break;
        default: axb_sb_printf(b, "%c", c < 0x20 || c >= 0x7f ? '?' : (char)c);
        }
    }
}
