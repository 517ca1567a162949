/* Kernel job files (kernel_job.h; format in docs/cli.md): the YAML tree of in_yaml.c checked key
 * by key into an axb_kernel_job. Every refusal is one line "FILE:LINE: ..." naming the key, so a
 * user can fix a job without reading the code. The databases are not opened here: what depends on
 * them (periods, radii, the source depth) is the engine's check. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "axibulk/inputs.h"
#include "axibulk/kernel_job.h"
#include "io/input/in_internal.h"
#include "io/input/in_yaml.h"

static const char *const kparam_names[AXB_KP_COUNT] = {"vp",  "vs",  "rho", "lambda", "mu",
                                                       "vph", "vpv", "vsh", "vsv",    "eta"};

const char *axb_kparam_name(axb_kparam p)
{
    return (int)p >= 0 && p < AXB_KP_COUNT ? kparam_names[p] : NULL;
}

axb_status axb_kparam_parse(const char *name, axb_kparam *p, axb_error *err)
{
    for (int i = 0; i < AXB_KP_COUNT; i++)
        if (name && !strcasecmp(name, kparam_names[i])) {
            *p = (axb_kparam)i;
            return AXB_OK;
        }
    return axb_error_set(err, AXB_ERR_ARG, "unknown parameter '%.60s' (known: vp vs rho lambda mu vph vpv vsh vsv eta)",
                         name ? name : "");
}

void axb_kernel_job_defaults(axb_kernel_job *job)
{
    memset(job, 0, sizeof *job);
    job->event = axb_in_source_init(AXB_SRC_MOMENT);
    job->mesh.kind = AXB_KMESH_VOXELS;
    job->stf = AXB_KSTF_DATABASE;
    job->points = AXB_KPOINTS_HALTON;
    job->points_per_step = 8;
    job->max_points = 512;
    job->min_points = 16;
    job->abs_error = 1e-3;
    job->rel_error = 1e-2;
    job->damp_radius = 0;
    job->travel_time_skip = true;
    snprintf(job->output, sizeof job->output, "kernels.h5");
}

void axb_kernel_job_free(axb_kernel_job *job)
{
    if (!job) return;
    free(job->receivers);
    job->receivers = NULL;
    job->nreceivers = 0;
    free(job->kernels);
    job->kernels = NULL;
    job->nkernels = 0;
    free(job->event.sliprate);
    job->event.sliprate = NULL;
    job->event.nsliprate = 0;
}

/* ---- the reader's context and its one message format ---- */

typedef struct kreader {
    const char *path;       /* the job file, for messages */
    char dir[AXB_PATH_MAX]; /* its folder with a trailing '/', or "" when it has none */
    axb_error *err;
} kreader;

/* "PATH:LINE: message" with @p code. */
static axb_status fail(const kreader *k, int line, axb_status code, const char *fmt, ...) AXB_PRINTF(4, 5);
static axb_status fail(const kreader *k, int line, axb_status code, const char *fmt, ...)
{
    char msg[AXB_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return axb_error_set(k->err, code, "%s:%d: %s", k->path, line, msg);
}

/* Refuses keys of @p map outside @p known (NULL-terminated); @p where says whose keys they are. */
static axb_status check_keys(const kreader *k, const axb_ynode *map, const char *const *known, const char *where)
{
    for (int i = 0; i < map->n; i++) {
        bool ok = false;
        for (const char *const *q = known; *q && !ok; q++) ok = axb_yaml_key_eq(map->keys[i], *q);
        if (ok) continue;
        char list[512] = "";
        for (const char *const *q = known; *q; q++) {
            const size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%s", q == known ? "" : ", ", *q);
        }
        return fail(k, map->klines[i], AXB_ERR_ARG, "unknown key '%.60s' in %s (known: %s)", map->keys[i], where, list);
    }
    return AXB_OK;
}

static axb_status want_kind(const kreader *k, const axb_ynode *node, axb_ynode_kind kind, const char *key)
{
    if (node->kind == kind) return AXB_OK;
    return fail(k, node->line, AXB_ERR_FORMAT, "key '%.60s': expected %s, found %s", key, axb_yaml_kind_name(kind),
                axb_yaml_kind_name(node->kind));
}

/* A non-empty text value. */
static axb_status get_text(const kreader *k, const axb_ynode *node, const char *key, const char **out)
{
    AXB_TRY(want_kind(k, node, AXB_YNODE_SCALAR, key));
    if (!node->value[0]) return fail(k, node->line, AXB_ERR_ARG, "key '%.60s': empty value", key);
    *out = node->value;
    return AXB_OK;
}

static axb_status get_double(const kreader *k, const axb_ynode *node, const char *key, double *v)
{
    const char *s = NULL;
    AXB_TRY(get_text(k, node, key, &s));
    if (!axb_in_parse_double(s, v))
        return fail(k, node->line, AXB_ERR_ARG, "key '%.60s': '%.60s' is not a finite number", key, s);
    return AXB_OK;
}

static axb_status get_int(const kreader *k, const axb_ynode *node, const char *key, int64_t lo, int64_t hi, int64_t *v)
{
    const char *s = NULL;
    AXB_TRY(get_text(k, node, key, &s));
    if (!axb_in_parse_int64(s, v))
        return fail(k, node->line, AXB_ERR_ARG, "key '%.60s': '%.60s' is not an integer", key, s);
    if (*v < lo || *v > hi)
        return fail(k, node->line, AXB_ERR_ARG, "key '%.60s': %lld is outside %lld..%lld", key, (long long)*v,
                    (long long)lo, (long long)hi);
    return AXB_OK;
}

static axb_status get_bool(const kreader *k, const axb_ynode *node, const char *key, bool *v)
{
    const char *s = NULL;
    AXB_TRY(get_text(k, node, key, &s));
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    for (int i = 0; i < 3; i++) {
        if (!strcasecmp(s, yes[i])) return *v = true, AXB_OK;
        if (!strcasecmp(s, no[i])) return *v = false, AXB_OK;
    }
    return fail(k, node->line, AXB_ERR_ARG, "key '%.60s': '%.60s' is not true or false", key, s);
}

/* One of @p names (NULL-terminated, case-insensitive); its index in *idx. */
static axb_status get_choice(const kreader *k, const axb_ynode *node, const char *key, const char *const *names,
                             int *idx)
{
    const char *s = NULL;
    AXB_TRY(get_text(k, node, key, &s));
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        if (!strcasecmp(s, names[i])) return *idx = i, AXB_OK;
        const size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i ? " or " : "", names[i]);
    }
    return fail(k, node->line, AXB_ERR_ARG, "key '%.60s': unknown value '%.60s' (expected %s)", key, s, list);
}

/* A list of exactly @p n finite numbers. */
static axb_status get_numbers(const kreader *k, const axb_ynode *node, const char *key, int n, double *v)
{
    AXB_TRY(want_kind(k, node, AXB_YNODE_SEQ, key));
    if (node->n != n)
        return fail(k, node->line, AXB_ERR_ARG, "key '%.60s': expected %d numbers, found %d", key, n, node->n);
    for (int i = 0; i < n; i++) AXB_TRY(get_double(k, &node->child[i], key, &v[i]));
    return AXB_OK;
}

/* A file name, taken relative to the job file's folder unless absolute. */
static axb_status get_path(const kreader *k, const axb_ynode *node, const char *key, char out[AXB_PATH_MAX])
{
    const char *s = NULL;
    AXB_TRY(get_text(k, node, key, &s));
    const char *dir = s[0] == '/' ? "" : k->dir;
    const int len = snprintf(out, AXB_PATH_MAX, "%s%s", dir, s);
    if (len < 0 || len >= AXB_PATH_MAX)
        return fail(k, node->line, AXB_ERR_ARG, "key '%.60s': path longer than %d characters", key, AXB_PATH_MAX - 1);
    return AXB_OK;
}

/* An input file that must exist now (mesh files): said here with the line, not later by the engine. */
static axb_status get_input_path(const kreader *k, const axb_ynode *node, const char *key, char out[AXB_PATH_MAX])
{
    AXB_TRY(get_path(k, node, key, out));
    if (access(out, R_OK) != 0) return fail(k, node->line, AXB_ERR_IO, "key '%.60s': cannot read %s", key, out);
    return AXB_OK;
}

/* The value of a required key of @p map. */
static axb_status need(const kreader *k, const axb_ynode *map, const char *key, const char *where,
                       const axb_ynode **node)
{
    *node = axb_yaml_get(map, key, NULL);
    if (!*node) return fail(k, map->line, AXB_ERR_ARG, "missing key '%.60s' in %s", key, where);
    return AXB_OK;
}

/* ---- event and receivers ---- */

static axb_status read_event(const kreader *k, const axb_ynode *node, axb_kernel_job *job)
{
    char path[AXB_PATH_MAX];
    AXB_TRY(get_path(k, node, "event", path));
    axb_source_list l = {0, NULL};
    axb_status st =
        axb_file_looks_xml(path) ? axb_read_quakeml(path, &l, k->err) : axb_read_cmtsolution(path, &l, k->err);
    if (st) return axb_error_prefix(k->err, "%s:%d: event", k->path, node->line);
    if (l.n != 1)
        st = fail(k, node->line, AXB_ERR_ARG, "event: %s holds %lld events; a kernel job takes exactly one", path,
                  (long long)l.n);
    else if (l.src[0].type != AXB_SRC_MOMENT)
        st = fail(k, node->line, AXB_ERR_ARG, "event: %s is a force; kernels need a moment tensor", path);
    else if (!isfinite(l.src[0].depth))
        st = fail(k, node->line, AXB_ERR_ARG, "event: %s gives no depth", path);
    if (!st) {
        /* taken over: the job owns the event's sliprate (if any) from here */
        job->event = l.src[0];
        l.src[0].sliprate = NULL;
        l.src[0].nsliprate = 0;
    }
    axb_source_list_free(&l);
    return st;
}

static axb_status read_receivers(const kreader *k, const axb_ynode *node, axb_kernel_job *job)
{
    char path[AXB_PATH_MAX];
    AXB_TRY(get_path(k, node, "receivers", path));
    axb_receiver_list l = {0, NULL};
    axb_status st =
        axb_file_looks_xml(path) ? axb_read_stationxml(path, &l, k->err) : axb_read_stations(path, &l, k->err);
    if (st) return axb_error_prefix(k->err, "%s:%d: receivers", k->path, node->line);
    if (l.n == 0) {
        axb_receiver_list_free(&l);
        return fail(k, node->line, AXB_ERR_ARG, "receivers: %s holds no receivers", path);
    }
    job->receivers = l.rec;
    job->nreceivers = l.n;
    return AXB_OK;
}

/* "NET.STA" or "NET.STA.LOC" -> index into job->receivers; NET.STA must name one receiver. */
static axb_status find_receiver(const kreader *k, const axb_ynode *node, const axb_kernel_job *job, int64_t *idx)
{
    const char *s = NULL;
    AXB_TRY(get_text(k, node, "receiver", &s));
    char buf[32], *part[4] = {NULL, NULL, NULL, NULL};
    int np = 0;
    if (strlen(s) < sizeof buf) {
        snprintf(buf, sizeof buf, "%s", s);
        char *save = NULL;
        for (char *t = strtok_r(buf, ".", &save); t && np < 4; t = strtok_r(NULL, ".", &save)) part[np++] = t;
    }
    if (np != 2 && np != 3)
        return fail(k, node->line, AXB_ERR_ARG, "key 'receiver': '%.60s' is not NET.STA or NET.STA.LOC", s);
    int64_t found = -1, nfound = 0;
    for (int64_t i = 0; i < job->nreceivers; i++) {
        const axb_receiver *r = &job->receivers[i];
        if (strcmp(r->network, part[0]) || strcmp(r->station, part[1])) continue;
        if (np == 3 && strcmp(r->location, part[2])) continue;
        if (found < 0) found = i;
        nfound++;
    }
    if (nfound == 0) return fail(k, node->line, AXB_ERR_ARG, "key 'receiver': '%.60s' is not in the receivers file", s);
    if (nfound > 1)
        return fail(k, node->line, AXB_ERR_ARG,
                    "key 'receiver': '%.60s' names %lld receivers of the receivers file (give NET.STA.LOC)", s,
                    (long long)nfound);
    *idx = found;
    return AXB_OK;
}

/* ---- mesh ---- */

static axb_status read_voxels(const kreader *k, const axb_ynode *v, axb_voxel_grid *g)
{
    static const char *const known[] = {"lat", "lon", "depth-km", "counts", NULL};
    AXB_TRY(want_kind(k, v, AXB_YNODE_MAP, "voxels"));
    AXB_TRY(check_keys(k, v, known, "mesh: voxels"));
    const axb_ynode *n;
    double lat[2], lon[2], dep[2];
    AXB_TRY(need(k, v, "lat", "mesh: voxels", &n));
    AXB_TRY(get_numbers(k, n, "lat", 2, lat));
    if (!(lat[0] >= -90 && lat[0] < lat[1] && lat[1] <= 90))
        return fail(k, n->line, AXB_ERR_ARG, "key 'lat': need -90 <= %g < %g <= 90", lat[0], lat[1]);
    AXB_TRY(need(k, v, "lon", "mesh: voxels", &n));
    AXB_TRY(get_numbers(k, n, "lon", 2, lon));
    if (!(lon[0] < lon[1] && lon[1] - lon[0] <= 360 && lon[0] >= -360 && lon[1] <= 360))
        return fail(k, n->line, AXB_ERR_ARG, "key 'lon': need %g < %g, at most 360 degrees apart, within -360..360",
                    lon[0], lon[1]);
    AXB_TRY(need(k, v, "depth-km", "mesh: voxels", &n));
    AXB_TRY(get_numbers(k, n, "depth-km", 2, dep));
    if (!(dep[0] >= 0 && dep[0] < dep[1]))
        return fail(k, n->line, AXB_ERR_ARG, "key 'depth-km': need 0 <= %g < %g", dep[0], dep[1]);
    AXB_TRY(need(k, v, "counts", "mesh: voxels", &n));
    AXB_TRY(want_kind(k, n, AXB_YNODE_SEQ, "counts"));
    if (n->n != 3)
        return fail(k, n->line, AXB_ERR_ARG, "key 'counts': expected 3 counts (nlat, nlon, ndepth), found %d", n->n);
    int64_t c[3];
    for (int i = 0; i < 3; i++) AXB_TRY(get_int(k, &n->child[i], "counts", 1, 1000000, &c[i]));
    /* 1e9 cells would be ~100 GB of results; far beyond anything a job can integrate */
    if ((double)c[0] * (double)c[1] * (double)c[2] > 1e9)
        return fail(k, n->line, AXB_ERR_ARG, "key 'counts': %lld x %lld x %lld cells: more than 1e9", (long long)c[0],
                    (long long)c[1], (long long)c[2]);
    *g = (axb_voxel_grid){lat[0], lat[1], lon[0], lon[1], dep[0], dep[1], c[0], c[1], c[2]};
    return AXB_OK;
}

static axb_status read_mesh(const kreader *k, const axb_ynode *m, axb_kernel_mesh_spec *spec)
{
    static const char *const known[] = {"voxels", "tetrahedra", "abaqus", "gmsh", NULL};
    AXB_TRY(want_kind(k, m, AXB_YNODE_MAP, "mesh"));
    AXB_TRY(check_keys(k, m, known, "mesh"));
    if (m->n != 1)
        return fail(k, m->line, AXB_ERR_ARG,
                    "key 'mesh': give exactly one of voxels, tetrahedra, abaqus, gmsh (found %d)", m->n);
    const axb_ynode *v = &m->child[0];
    const char *kind = m->keys[0];
    if (axb_yaml_key_eq(kind, "voxels")) {
        spec->kind = AXB_KMESH_VOXELS;
        return read_voxels(k, v, &spec->grid);
    }
    if (axb_yaml_key_eq(kind, "tetrahedra")) {
        static const char *const tknown[] = {"vertices", "facets", NULL};
        spec->kind = AXB_KMESH_TET;
        AXB_TRY(want_kind(k, v, AXB_YNODE_MAP, "tetrahedra"));
        AXB_TRY(check_keys(k, v, tknown, "mesh: tetrahedra"));
        const axb_ynode *n;
        AXB_TRY(need(k, v, "vertices", "mesh: tetrahedra", &n));
        AXB_TRY(get_input_path(k, n, "vertices", spec->path));
        AXB_TRY(need(k, v, "facets", "mesh: tetrahedra", &n));
        return get_input_path(k, n, "facets", spec->facets);
    }
    spec->kind = axb_yaml_key_eq(kind, "abaqus") ? AXB_KMESH_ABAQUS : AXB_KMESH_GMSH;
    return get_input_path(k, v, kind, spec->path);
}

/* ---- kernels ---- */

/* Usable as (the start of) an HDF5 dataset name: no '/', not "." or "..", printable, and short
 * enough for the name field. */
static axb_status check_name(const kreader *k, const axb_ynode *node, const char *s)
{
    const size_t len = strlen(s);
    bool ok = len > 0 && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/');
    for (const char *p = s; ok && *p; p++) ok = isprint((unsigned char)*p) || (unsigned char)*p >= 0x80;
    if (!ok)
        return fail(k, node->line, AXB_ERR_ARG,
                    "key 'name': '%.60s' cannot name an HDF5 dataset (no '/', not '.' or '..', printable characters)",
                    s);
    if (len >= sizeof((axb_kernel_def *)NULL)->name)
        return fail(k, node->line, AXB_ERR_ARG, "key 'name': '%.60s' is longer than %zu characters", s,
                    sizeof((axb_kernel_def *)NULL)->name - 1);
    return AXB_OK;
}

/* "A" or "A,B" (as axibulk extract's filter options) or a list [A, B]: @p n finite numbers. */
static axb_status get_filter_values(const kreader *k, const axb_ynode *node, const char *key, int n, double *v)
{
    if (node->kind == AXB_YNODE_SEQ) return get_numbers(k, node, key, n, v);
    const char *s = NULL;
    AXB_TRY(get_text(k, node, key, &s));
    char buf[128];
    bool ok = strlen(s) < sizeof buf;
    if (ok) {
        snprintf(buf, sizeof buf, "%s", s);
        char *comma = strchr(buf, ',');
        if (n == 1)
            ok = !comma && axb_in_parse_double(buf, &v[0]);
        else {
            ok = comma != NULL;
            if (ok) {
                *comma = '\0';
                char *b = comma + 1;
                while (*b == ' ') b++;
                ok = axb_in_parse_double(buf, &v[0]) && axb_in_parse_double(b, &v[1]);
            }
        }
    }
    if (!ok)
        return fail(k, node->line, AXB_ERR_ARG, "key '%.60s': '%.60s': expected %s", key, s,
                    n == 1                         ? "a frequency in Hz"
                        : !strcmp(key, "loggabor") ? "PERIOD,WIDTH (s, relative width in (0,1))"
                                                   : "F1,F2 in Hz");
    return AXB_OK;
}

static axb_status read_filter(const kreader *k, const axb_ynode *kn, const char *where, axb_filter_spec *f)
{
    static const char *const kinds[] = {"lowpass", "highpass", "bandpass", "loggabor"};
    static const axb_filter_kind kval[] = {AXB_FILTER_LOWPASS, AXB_FILTER_HIGHPASS, AXB_FILTER_BANDPASS,
                                           AXB_FILTER_LOGGABOR};
    memset(f, 0, sizeof *f);
    int which = -1, wline = 0;
    for (int i = 0; i < 4; i++) {
        int line;
        if (!axb_yaml_get(kn, kinds[i], &line)) continue;
        if (which >= 0)
            return fail(k, line, AXB_ERR_ARG, "key '%.60s': %s already has a filter ('%.60s' on line %d): give one",
                        kinds[i], where, kinds[which], wline);
        which = i;
        wline = line;
    }
    if (which < 0)
        return fail(k, kn->line, AXB_ERR_ARG, "%s: missing a filter (lowpass, highpass, bandpass or loggabor)", where);
    const axb_ynode *v = axb_yaml_get(kn, kinds[which], NULL);
    f->kind = kval[which];
    double x[2] = {0, 0};
    const int nval = f->kind == AXB_FILTER_BANDPASS || f->kind == AXB_FILTER_LOGGABOR ? 2 : 1;
    AXB_TRY(get_filter_values(k, v, kinds[which], nval, x));
    if (f->kind == AXB_FILTER_LOGGABOR) {
        f->period = x[0];
        f->width = x[1];
        if (!(x[0] > 0) || !(x[1] > 0 && x[1] < 1))
            return fail(k, v->line, AXB_ERR_ARG, "key 'loggabor': need a period > 0 and a width in (0, 1), got %g,%g",
                        x[0], x[1]);
    } else {
        f->f1 = x[0];
        f->f2 = x[1];
        if (!(x[0] > 0) || (nval == 2 && !(x[1] > x[0])))
            return fail(k, v->line, AXB_ERR_ARG, "key '%.60s': need %s", kinds[which],
                        nval == 2 ? "0 < F1 < F2" : "a frequency above 0");
    }
    f->order = 4;
    const axb_ynode *n = axb_yaml_get(kn, "filter-order", NULL);
    if (n) {
        int64_t o;
        AXB_TRY(get_int(k, n, "filter-order", 1, AXB_FILTER_MAX_ORDER, &o));
        f->order = (int)o;
    }
    n = axb_yaml_get(kn, "zerophase", NULL);
    if (n) AXB_TRY(get_bool(k, n, "zerophase", &f->zerophase));
    return AXB_OK;
}

static axb_status read_params(const kreader *k, const axb_ynode *node, uint32_t *mask)
{
    *mask = 0;
    const int n = node->kind == AXB_YNODE_SEQ ? node->n : 1;
    if (n == 0) return fail(k, node->line, AXB_ERR_ARG, "key 'parameters': empty list");
    for (int i = 0; i < n; i++) {
        const axb_ynode *item = node->kind == AXB_YNODE_SEQ ? &node->child[i] : node;
        const char *s = NULL;
        AXB_TRY(get_text(k, item, "parameters", &s));
        axb_kparam p;
        if (axb_kparam_parse(s, &p, k->err))
            return axb_error_prefix(k->err, "%s:%d: key 'parameters'", k->path, item->line);
        if (*mask & (1u << p)) return fail(k, item->line, AXB_ERR_ARG, "key 'parameters': '%.60s' given twice", s);
        *mask |= 1u << p;
    }
    return AXB_OK;
}

static axb_status read_kernel(const kreader *k, const axb_ynode *kn, int index, const int *lines, axb_kernel_job *job)
{
    static const char *const known[] = {"name",     "receiver",     "component", "lowpass", "highpass", "bandpass",
                                        "loggabor", "filter-order", "zerophase", "window",  "misfit",   "parameters",
                                        NULL};
    char where[96];
    snprintf(where, sizeof where, "kernel %d", index + 1);
    AXB_TRY(want_kind(k, kn, AXB_YNODE_MAP, "kernels"));
    axb_kernel_def *d = &job->kernels[index];
    memset(d, 0, sizeof *d);
    const axb_ynode *n;
    AXB_TRY(need(k, kn, "name", where, &n));
    const char *s = NULL;
    AXB_TRY(get_text(k, n, "name", &s));
    AXB_TRY(check_name(k, n, s));
    for (int j = 0; j < index; j++)
        if (!strcmp(job->kernels[j].name, s))
            return fail(k, n->line, AXB_ERR_ARG, "key 'name': kernel '%.60s' is already defined on line %d", s,
                        lines[j]);
    snprintf(d->name, sizeof d->name, "%s", s);
    snprintf(where, sizeof where, "kernel '%.60s'", d->name);
    AXB_TRY(check_keys(k, kn, known, where));

    AXB_TRY(need(k, kn, "receiver", where, &n));
    AXB_TRY(find_receiver(k, n, job, &d->receiver));

    AXB_TRY(need(k, kn, "component", where, &n));
    AXB_TRY(get_text(k, n, "component", &s));
    const char c = (char)toupper((unsigned char)s[0]);
    if (s[1] || !strchr("ZRTNE", c))
        return fail(k, n->line, AXB_ERR_ARG, "key 'component': unknown component '%.60s' (expected Z, R, T, N or E)",
                    s);
    d->component = c;

    AXB_TRY(read_filter(k, kn, where, &d->filter));

    AXB_TRY(need(k, kn, "window", where, &n));
    double w[2];
    AXB_TRY(get_numbers(k, n, "window", 2, w));
    if (!(w[0] < w[1])) return fail(k, n->line, AXB_ERR_ARG, "key 'window': need t1 < t2, got [%g, %g]", w[0], w[1]);
    d->t1 = w[0];
    d->t2 = w[1];

    static const char *const misfits[] = {"cc", "am", NULL};
    int m;
    AXB_TRY(need(k, kn, "misfit", where, &n));
    AXB_TRY(get_choice(k, n, "misfit", misfits, &m));
    d->misfit = m ? AXB_MISFIT_AM : AXB_MISFIT_CC;

    AXB_TRY(need(k, kn, "parameters", where, &n));
    return read_params(k, n, &d->params);
}

static axb_status read_kernels(const kreader *k, const axb_ynode *node, axb_kernel_job *job)
{
    AXB_TRY(want_kind(k, node, AXB_YNODE_SEQ, "kernels"));
    if (node->n == 0) return fail(k, node->line, AXB_ERR_ARG, "key 'kernels': no kernels");
    job->kernels = calloc((size_t)node->n, sizeof *job->kernels);
    int *lines = calloc((size_t)node->n, sizeof *lines);
    axb_status st = AXB_OK;
    if (!job->kernels || !lines) st = axb_error_set(k->err, AXB_ERR_NOMEM, "%s: %d kernels", k->path, node->n);
    for (int i = 0; i < node->n && !st; i++) {
        st = read_kernel(k, &node->child[i], i, lines, job);
        const axb_ynode *nm = axb_yaml_get(&node->child[i], "name", NULL);
        lines[i] = nm ? nm->line : node->child[i].line;
        if (!st) job->nkernels = i + 1;
    }
    free(lines);
    return st;
}

/* ---- the whole job ---- */

static axb_status read_options(const kreader *k, const axb_ynode *root, axb_kernel_job *job)
{
    const axb_ynode *n;
    int idx;
    if ((n = axb_yaml_get(root, "values", NULL))) {
        static const char *const values[] = {"cells", "vertices", NULL};
        AXB_TRY(get_choice(k, n, "values", values, &idx));
        job->per_vertex = idx == 1;
        if (job->per_vertex && job->mesh.kind == AXB_KMESH_VOXELS)
            return fail(k, n->line, AXB_ERR_ARG, "key 'values': 'vertices' needs a tetrahedral mesh, not voxels");
    }
    if ((n = axb_yaml_get(root, "perturbations", NULL))) {
        static const char *const pert[] = {"relative", "absolute", NULL};
        AXB_TRY(get_choice(k, n, "perturbations", pert, &idx));
        job->absolute = idx == 1;
    }
    if ((n = axb_yaml_get(root, "stf", NULL))) {
        static const char *const stf[] = {"database", "deconvolve", NULL};
        AXB_TRY(get_choice(k, n, "stf", stf, &idx));
        job->stf = idx ? AXB_KSTF_DECONVOLVE : AXB_KSTF_DATABASE;
    }
    if ((n = axb_yaml_get(root, "points", NULL))) {
        static const char *const pts[] = {"halton", "sobol", NULL};
        AXB_TRY(get_choice(k, n, "points", pts, &idx));
        job->points = idx ? AXB_KPOINTS_SOBOL : AXB_KPOINTS_HALTON;
    }
    /* point counts stay far below 2^30: the quasi-random sequences index points with 32 bits */
    const int64_t cap = (int64_t)1 << 30;
    int64_t v;
    if ((n = axb_yaml_get(root, "points-per-step", NULL))) {
        AXB_TRY(get_int(k, n, "points-per-step", 1, 1 << 20, &v));
        job->points_per_step = (int)v;
    }
    if ((n = axb_yaml_get(root, "max-points", NULL))) AXB_TRY(get_int(k, n, "max-points", 2, cap, &job->max_points));
    if ((n = axb_yaml_get(root, "min-points", NULL))) {
        /* an error estimate needs two points at least */
        AXB_TRY(get_int(k, n, "min-points", 2, cap, &job->min_points));
    }
    if (job->min_points > job->max_points) {
        int line = root->line;
        if (!axb_yaml_get(root, "min-points", &line)) axb_yaml_get(root, "max-points", &line);
        return fail(k, line, AXB_ERR_ARG, "min-points %lld exceeds max-points %lld", (long long)job->min_points,
                    (long long)job->max_points);
    }
    if ((n = axb_yaml_get(root, "abs-error", NULL))) {
        AXB_TRY(get_double(k, n, "abs-error", &job->abs_error));
        if (!(job->abs_error >= 0)) return fail(k, n->line, AXB_ERR_ARG, "key 'abs-error': must be 0 or more");
    }
    if ((n = axb_yaml_get(root, "rel-error", NULL))) {
        AXB_TRY(get_double(k, n, "rel-error", &job->rel_error));
        if (!(job->rel_error >= 0)) return fail(k, n->line, AXB_ERR_ARG, "key 'rel-error': must be 0 or more");
    }
    if ((n = axb_yaml_get(root, "mask-source-receiver", NULL)))
        AXB_TRY(get_bool(k, n, "mask-source-receiver", &job->mask_source_receiver));
    if ((n = axb_yaml_get(root, "travel-time-skip", NULL)))
        AXB_TRY(get_bool(k, n, "travel-time-skip", &job->travel_time_skip));
    if ((n = axb_yaml_get(root, "damp-radius-km", NULL))) {
        double r;
        AXB_TRY(get_double(k, n, "damp-radius-km", &r));
        if (!(r >= 0)) return fail(k, n->line, AXB_ERR_ARG, "key 'damp-radius-km': must be 0 or more");
        job->damp_radius = r * 1e3;
    }
    n = axb_yaml_get(root, "output", NULL);
    if (n) return get_path(k, n, "output", job->output);
    /* the default output sits beside the job file too, like every other path of the job */
    char def[AXB_PATH_MAX];
    snprintf(def, sizeof def, "%s", job->output);
    const int len = snprintf(job->output, sizeof job->output, "%s%s", k->dir, def);
    if (len < 0 || len >= (int)sizeof job->output)
        return fail(k, root->line, AXB_ERR_ARG, "output path longer than %d characters", AXB_PATH_MAX - 1);
    return AXB_OK;
}

static axb_status read_job(const kreader *k, const axb_ynode *root, axb_kernel_job *job)
{
    static const char *const known[] = {
        "forward-db",       "backward-db",    "event",     "receivers", "mesh",
        "values",           "perturbations",  "stf",       "points",    "points-per-step",
        "max-points",       "min-points",     "abs-error", "rel-error", "mask-source-receiver",
        "travel-time-skip", "damp-radius-km", "output",    "kernels",   NULL};
    if (root->kind != AXB_YNODE_MAP)
        return fail(k, root->line, AXB_ERR_FORMAT, "expected 'key: value' lines (a mapping), found %s",
                    axb_yaml_kind_name(root->kind));
    AXB_TRY(check_keys(k, root, known, "the job"));
    /* every required key first, so a job missing several says so before reading any file */
    static const char *const required[] = {"forward-db", "backward-db", "event", "receivers", "mesh", "kernels"};
    const axb_ynode *req[6];
    for (int i = 0; i < 6; i++) AXB_TRY(need(k, root, required[i], "the job", &req[i]));
    AXB_TRY(get_path(k, req[0], "forward-db", job->fwd_db));
    AXB_TRY(get_path(k, req[1], "backward-db", job->bwd_db));
    AXB_TRY(read_mesh(k, req[4], &job->mesh));
    AXB_TRY(read_options(k, root, job));
    AXB_TRY(read_event(k, req[2], job));
    AXB_TRY(read_receivers(k, req[3], job));
    return read_kernels(k, req[5], job);
}

axb_status axb_kernel_job_read(const char *path, axb_kernel_job *job, axb_error *err)
{
    axb_kernel_job_defaults(job);
    kreader k = {.path = path, .err = err};
    const char *slash = strrchr(path, '/');
    const size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
    if (dlen >= sizeof k.dir) return axb_error_set(err, AXB_ERR_ARG, "%s: path too long", path);
    memcpy(k.dir, path, dlen);
    k.dir[dlen] = '\0';
    axb_ynode root;
    AXB_TRY(axb_yaml_read(path, &root, err));
    const axb_status st = read_job(&k, &root, job);
    axb_yaml_free(&root);
    if (st) {
        axb_kernel_job_free(job);
        axb_kernel_job_defaults(job);
    }
    return st;
}
