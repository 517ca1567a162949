/* Finite faults by file name, one or many: the reader behind `extract --finite` and
 * `--finite-list` (batches of rupture scenarios, one output row per fault and station). */
#include "in_internal.h"

#include <stdlib.h>
#include <string.h>

#include "axibulk/inputs.h"
#include "axibulk/source.h"

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

axb_status axb_read_finite(const char *path, axb_source_list *out, axb_error *err)
{
    out->n = 0;
    out->src = NULL;
    if (has_suffix(path, ".param"))
        AXB_TRY(axb_read_usgs_param(path, 10000, 0.1, 1.0, out, err));
    else
        AXB_TRY(axb_read_srf(path, true, out, err));
    if (out->n == 0) {
        axb_source_list_free(out);
        return axb_error_set(err, AXB_ERR_FORMAT, "%s: no point sources", path);
    }
    return AXB_OK;
}

void axb_fault_list_free(axb_fault_list *l)
{
    for (int64_t f = 0; l->path && f < l->n; f++) free(l->path[f]);
    free(l->path);
    free(l->first);
    axb_source_list_free(&l->sub);
    memset(l, 0, sizeof *l);
}

/* Appends b's sources to a (moves their slip rates). */
static axb_status append(axb_source_list *a, axb_source_list *b, axb_error *err)
{
    axb_source *grown = realloc(a->src, (size_t)(a->n + b->n) * sizeof *grown);
    if (!grown) return axb_error_set(err, AXB_ERR_NOMEM, "%lld point sources", (long long)(a->n + b->n));
    a->src = grown;
    memcpy(a->src + a->n, b->src, (size_t)b->n * sizeof *b->src);
    a->n += b->n;
    free(b->src); /* the slip rates now belong to a */
    b->src = NULL;
    b->n = 0;
    return AXB_OK;
}

static char *resolve(const char *list, const char *entry)
{
    const char *slash = strrchr(list, '/');
    const size_t dir = entry[0] == '/' || !slash ? 0 : (size_t)(slash - list) + 1;
    char *p = malloc(dir + strlen(entry) + 1);
    if (!p) return NULL;
    memcpy(p, list, dir);
    strcpy(p + dir, entry);
    return p;
}

/* Appends the fault in file @p full (taken over: freed by axb_fault_list_free) to @p out, whose
 * tables hold *cap entries; first[n] is kept valid after every call. */
static axb_status push_fault(axb_fault_list *out, int64_t *cap, char *full, axb_error *err)
{
    if (out->n + 1 >= *cap) {
        const int64_t c = *cap ? 2 * *cap : 16;
        int64_t *first = realloc(out->first, (size_t)(c + 1) * sizeof *first);
        if (first) out->first = first;
        char **paths = first ? realloc(out->path, (size_t)c * sizeof *paths) : NULL;
        if (paths) out->path = paths;
        if (!first || !paths) {
            free(full);
            return axb_error_set(err, AXB_ERR_NOMEM, "fault list of %lld entries", (long long)c);
        }
        *cap = c;
    }
    out->path[out->n] = full;
    out->first[out->n] = out->sub.n;
    out->n++;
    axb_source_list one;
    axb_status st = axb_read_finite(full, &one, err);
    if (!st) st = append(&out->sub, &one, err);
    axb_source_list_free(&one);
    out->first[out->n] = out->sub.n;
    return st;
}

axb_status axb_read_fault_file(const char *path, axb_fault_list *out, axb_error *err)
{
    memset(out, 0, sizeof *out);
    int64_t cap = 0;
    char *full = strdup(path);
    axb_status st = full ? push_fault(out, &cap, full, err) : axb_error_set(err, AXB_ERR_NOMEM, "file name");
    if (st) axb_fault_list_free(out);
    return st;
}

axb_status axb_read_fault_list(const char *path, axb_fault_list *out, axb_error *err)
{
    memset(out, 0, sizeof *out);
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    axb_status st = AXB_OK;
    int64_t cap = 0;
    for (bool eof = false; !st;) {
        st = axb_in_text_next(&t, &eof, err);
        if (st || eof) break;
        char *hash = strchr(t.line, '#');
        if (hash) *hash = '\0';
        char *cur = t.line, *name = axb_in_next_token(&cur);
        if (!name) continue;
        if (axb_in_next_token(&cur)) {
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s:%lld: one file name per line", path, (long long)t.lineno);
            break;
        }
        char *full = resolve(path, name);
        st = full ? push_fault(out, &cap, full, err) : axb_error_set(err, AXB_ERR_NOMEM, "file name");
        if (st) axb_error_prefix(err, "%s:%lld", path, (long long)t.lineno);
    }
    axb_in_text_close(&t);
    if (!st && out->n == 0) st = axb_error_set(err, AXB_ERR_FORMAT, "%s: no fault files listed", path);
    if (st) axb_fault_list_free(out);
    return st;
}
