#include "cli/json.h"

#include <inttypes.h>
#include <math.h>

static void sep(axb_json *j, const char *key)
{
    if (!j->first[j->depth]) fputc(',', j->f);
    j->first[j->depth] = false;
    fprintf(j->f, "\n%*s", 2 * j->depth, "");
    if (key) {
        fputc('"', j->f);
        for (const char *p = key; *p; p++) fputc(*p, j->f);
        fputs("\": ", j->f);
    }
}

static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void open_(axb_json *j, const char *key, char c)
{
    sep(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < AXB_JSON_MAXDEPTH) j->depth++;
    j->first[j->depth] = true;
}

void axb_json_begin(axb_json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->first[0] = true;
    fputc('{', f);
    j->depth = 1;
    j->first[1] = true;
}

static void close_(axb_json *j, char c)
{
    bool empty = j->first[j->depth];
    j->depth--;
    if (!empty) fprintf(j->f, "\n%*s", 2 * j->depth, "");
    fputc(c, j->f);
}

void axb_json_object(axb_json *j, const char *key)
{
    open_(j, key, '{');
}
void axb_json_array(axb_json *j, const char *key)
{
    open_(j, key, '[');
}
void axb_json_end_object(axb_json *j)
{
    close_(j, '}');
}
void axb_json_end_array(axb_json *j)
{
    close_(j, ']');
}

void axb_json_end(axb_json *j)
{
    while (j->depth > 0) close_(j, '}');
    fputc('\n', j->f);
}

void axb_json_str(axb_json *j, const char *key, const char *v)
{
    sep(j, key);
    quoted(j->f, v);
}

void axb_json_num(axb_json *j, const char *key, double v)
{
    sep(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.17g", v);
    else
        fputs("null", j->f);
}

void axb_json_int(axb_json *j, const char *key, int64_t v)
{
    sep(j, key);
    fprintf(j->f, "%" PRId64, v);
}

void axb_json_bool(axb_json *j, const char *key, bool v)
{
    sep(j, key);
    fputs(v ? "true" : "false", j->f);
}
