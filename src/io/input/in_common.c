/* Lists of sources, receivers and pairs: freeing, growing, checks shared by every reader. */
#include "in_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void axb_source_list_free(axb_source_list *l)
{
    if (!l) return;
    for (int64_t i = 0; i < l->n; i++) free(l->src[i].sliprate);
    free(l->src);
    *l = (axb_source_list){0};
}

void axb_receiver_list_free(axb_receiver_list *l)
{
    if (!l) return;
    free(l->rec);
    *l = (axb_receiver_list){0};
}

void axb_pair_list_free(axb_pair_list *l)
{
    if (!l) return;
    for (int64_t i = 0; i < l->n; i++) free(l->pair[i].src.sliprate);
    free(l->pair);
    *l = (axb_pair_list){0};
}

axb_status axb_in_grow(void **arr, int64_t *cap, int64_t n, size_t elem, axb_error *err)
{
    if (n < *cap) return AXB_OK;
    int64_t ncap = *cap ? *cap * 2 : 64;
    AXB_CHECK(err, (uint64_t)ncap <= SIZE_MAX / elem, AXB_ERR_NOMEM, "list of %lld entries is too large",
              (long long)ncap);
    void *p = realloc(*arr, (size_t)ncap * elem);
    AXB_CHECK(err, p, AXB_ERR_NOMEM, "out of memory for a list of %lld entries", (long long)ncap);
    *arr = p;
    *cap = ncap;
    return AXB_OK;
}

axb_status axb_in_check_lat(double lat, const char *what, axb_error *err)
{
    AXB_CHECK(err, lat >= -90.0 && lat <= 90.0, AXB_ERR_RANGE, "%s: %.17g is outside -90..90", what, lat);
    return AXB_OK;
}

axb_status axb_in_check_lon(double lon, const char *what, axb_error *err)
{
    AXB_CHECK(err, lon >= -180.0 && lon <= 180.0, AXB_ERR_RANGE, "%s: %.17g is outside -180..180", what, lon);
    return AXB_OK;
}

static const char *const MOMENT_NAMES[6] = {"Mrr", "Mtt", "Mpp", "Mrt", "Mrp", "Mtp"};

axb_status axb_in_check_moment(const double m[6], const char *what, axb_error *err)
{
    for (int c = 0; c < 6; c++)
        AXB_CHECK(err, fabs(m[c]) <= AXB_MAX_MOMENT, AXB_ERR_RANGE,
                  "%s%s%s = %g N·m exceeds %g N·m (Mw 13.9; the largest earthquakes reach 3e23 N·m)", what,
                  *what ? " " : "", MOMENT_NAMES[c], m[c], AXB_MAX_MOMENT);
    return AXB_OK;
}

axb_status axb_in_check_total_moment(const axb_source_list *l, const char *path, axb_error *err)
{
    const double m0 = axb_source_list_m0(l);
    AXB_CHECK(err, m0 <= AXB_MAX_MOMENT, AXB_ERR_RANGE,
              "%s: the total moment of the %lld point sources, %g N·m, exceeds %g N·m", path, (long long)l->n, m0,
              AXB_MAX_MOMENT);
    return AXB_OK;
}

axb_status axb_in_check_depth(double depth, const char *what, axb_error *err)
{
    AXB_CHECK(err, depth >= 0.0, AXB_ERR_RANGE, "%s: %.17g is negative (depths are below the surface)", what, depth);
    return AXB_OK;
}

axb_status axb_in_copy_code(char *dst, size_t size, const char *src, const char *what, axb_error *err)
{
    size_t n = strlen(src);
    AXB_CHECK(err, n < size, AXB_ERR_RANGE, "%s '%.40s' is longer than %zu characters", what, src, size - 1);
    /* codes name datasets and traces in the outputs: printable ASCII only */
    for (size_t i = 0; i < n; i++)
        AXB_CHECK(err, src[i] > 0x20 && src[i] < 0x7F, AXB_ERR_FORMAT,
                  "%s '%.40s' holds a byte that is not printable ASCII", what, src);
    memcpy(dst, src, n + 1);
    return AXB_OK;
}

/* Sorting pointers (not copies) lets equal receivers be ordered by address, i.e. by their place in
 * the file, without a context argument that qsort lacks. */
static int cmp_receiver_ptr(const void *a, const void *b)
{
    const axb_receiver *x = *(const axb_receiver *const *)a, *y = *(const axb_receiver *const *)b;
    int c = strcmp(x->network, y->network);
    if (!c) c = strcmp(x->station, y->station);
    if (!c) c = strcmp(x->location, y->location);
    if (!c) c = (x->lat > y->lat) - (x->lat < y->lat);
    if (!c) c = (x->lon > y->lon) - (x->lon < y->lon);
    if (!c) {
        /* NAN depths (not given) compare equal to each other and before any number. */
        bool xn = isnan(x->depth), yn = isnan(y->depth);
        c = xn || yn ? (int)yn - (int)xn : (x->depth > y->depth) - (x->depth < y->depth);
    }
    if (!c) c = (x > y) - (x < y);
    return c;
}

static bool same_receiver(const axb_receiver *x, const axb_receiver *y)
{
    bool depth_eq = (isnan(x->depth) && isnan(y->depth)) || x->depth == y->depth;
    return !strcmp(x->network, y->network) && !strcmp(x->station, y->station) && !strcmp(x->location, y->location) &&
        x->lat == y->lat && x->lon == y->lon && depth_eq;
}

void axb_in_receivers_dedupe(axb_receiver_list *l)
{
    if (l->n < 2) return;
    const axb_receiver **p = malloc((size_t)l->n * sizeof *p);
    bool *drop = calloc((size_t)l->n, sizeof *drop);
    if (!p || !drop) {
        /* Duplicates only cost time later; not worth failing the read over. */
        free(p);
        free(drop);
        return;
    }
    for (int64_t i = 0; i < l->n; i++) p[i] = &l->rec[i];
    qsort(p, (size_t)l->n, sizeof *p, cmp_receiver_ptr);
    for (int64_t i = 1; i < l->n; i++)
        if (same_receiver(p[i], p[i - 1])) drop[p[i] - l->rec] = true;
    int64_t k = 0;
    for (int64_t i = 0; i < l->n; i++)
        if (!drop[i]) l->rec[k++] = l->rec[i];
    l->n = k;
    free(p);
    free(drop);
}

axb_source axb_in_source_init(axb_source_type type)
{
    return (axb_source){.type = type, .depth = NAN, .time_shift = NAN};
}

bool axb_file_looks_xml(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    int c;
    /* white space and a UTF-8 byte-order mark may come first */
    while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xEF || c == 0xBB || c == 0xBF) {
    }
    fclose(f);
    return c == '<';
}
