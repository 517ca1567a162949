/* Shared pieces of the input-file readers (in_*.c): a line reader that knows the file name and line
 * number for error messages, strict number parsing, growable arrays, coordinate checks and the
 * receiver de-duplication Instaseis applies. Not part of the public API. */
#ifndef AXB_IO_IN_INTERNAL_H
#define AXB_IO_IN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "axibulk/inputs.h"
#include "axibulk/source.h"
#include "axibulk/status.h"

/* ---- line reading (axb_in_text.c) ---- */

typedef struct axb_in_text {
    FILE *fp;
    const char *path; /* borrowed, for messages */
    int64_t lineno;   /* 1-based number of the line in `line`; 0 before the first */
    char *line;       /* current line without its end-of-line characters */
    size_t cap;
    char *buf; /* what was read from fp and not yet taken into a line: buf[bpos..blen) */
    size_t bpos, blen;
} axb_in_text;

/* Opens @p path for reading (AXB_ERR_IO naming the file and the system's reason). */
axb_status axb_in_text_open(axb_in_text *t, const char *path, axb_error *err);
void axb_in_text_close(axb_in_text *t);

/* Reads the next line into t->line (trailing "\r\n" removed). *eof is set at the end of the file.
 * A line holding a NUL byte or longer than 1 MiB is an AXB_ERR_FORMAT (a binary file or endless
 * stream such as /dev/zero, not text), found before more of it is read. */
axb_status axb_in_text_next(axb_in_text *t, bool *eof, axb_error *err);

/* The error of a pairs file without pairs, one message for both readers. */
axb_status axb_in_pairs_none(const char *path, axb_error *err);

/* The pairs of the lines with 0-based numbers in [@p lo, @p hi) of a pairs file (in_pairs.c), in
 * file order, line @p lo starting at byte @p offset: messages and default codes keep the file's
 * line numbers. An empty range gives an empty list. */
axb_status axb_in_pairs_lines(const char *path, long offset, int64_t lo, int64_t hi, axb_pair_list *out,
                              axb_error *err);

/* True if the line is empty or only white space. */
bool axb_in_blank(const char *s);

/* Splits @p s in place at white space into at most @p max tokens; returns how many there are in
 * the whole line (which may exceed @p max: the extra ones are not stored). */
int axb_in_split(char *s, char **tok, int max);

/* The next white-space separated token at *cursor, NUL-terminated in place; NULL at the end. */
char *axb_in_next_token(char **cursor);

/* Strict conversions: the whole token must be a finite decimal number (no "nan", "inf", hex, or
 * trailing characters). */
bool axb_in_parse_double(const char *s, double *v);
/* An integer written as digits (optionally signed), within int64 range. */
bool axb_in_parse_int64(const char *s, int64_t *v);

/* "PATH:LINE: field N (NAME): 'TOK' is not a number" as AXB_ERR_FORMAT. */
axb_status axb_in_err_number(const axb_in_text *t, int field, const char *name, const char *tok, axb_error *err);

/* Parses token @p tok (field @p field, called @p name) as a finite double, or fails as above. */
axb_status axb_in_field_double(const axb_in_text *t, int field, const char *name, const char *tok, double *v,
                               axb_error *err);

/* Sets AXB_ERR_FORMAT / the given code with the message prefixed by "PATH:LINE: ". */
axb_status axb_in_err_line(const axb_in_text *t, axb_status code, axb_error *err, const char *fmt, ...)
    AXB_PRINTF(4, 5);

/* ---- lists and checks (in_common.c) ---- */

/* Makes room for one more element of size @p elem in *arr (capacity *cap, n in use). */
axb_status axb_in_grow(void **arr, int64_t *cap, int64_t n, size_t elem, axb_error *err);

/* Range checks of Instaseis' SourceOrReceiver: -90 <= lat <= 90, -180 <= lon <= 180. They return
 * AXB_ERR_RANGE with a message "<what> V is outside -90..90" (no location prefix). */
axb_status axb_in_check_lat(double lat, const char *what, axb_error *err);
axb_status axb_in_check_lon(double lon, const char *what, axb_error *err);
/* Every component of a moment tensor (N·m) within ±AXB_MAX_MOMENT, else AXB_ERR_RANGE
 * "<what> COMP = V N·m exceeds ..." (no location prefix). */
axb_status axb_in_check_moment(const double m[6], const char *what, axb_error *err);
/* The total scalar moment of a finite source (Σ M0 of its point sources) within AXB_MAX_MOMENT. */
axb_status axb_in_check_total_moment(const axb_source_list *l, const char *path, axb_error *err);

/* depth >= 0 (m below the surface). */
axb_status axb_in_check_depth(double depth, const char *what, axb_error *err);

/* Copies a station/network/location code into a fixed field of @p size bytes, failing with
 * AXB_ERR_RANGE when it is longer than size-1 characters. */
axb_status axb_in_copy_code(char *dst, size_t size, const char *src, const char *what, axb_error *err);

/* Removes later exact duplicates (same codes, coordinates and depth), keeping the first of each
 * in the original order, as Instaseis' Receiver.parse does. */
void axb_in_receivers_dedupe(axb_receiver_list *l);

/* A zero-initialised source of the given type: no depth, no sliprate, epoch-0 origin, time_shift
 * NAN. */
axb_source axb_in_source_init(axb_source_type type);

#endif
