/* Readers of tetrahedral inversion meshes: Sigloch/Nolet vertices + facets files, Abaqus `.inp`
 * (C3D4) and Gmsh `.msh` 4.1 ASCII. Every malformed line is named by file and line; the mesh is
 * validated (indices, finite coordinates, no degenerate cells) before it is handed back. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "axibulk/invmesh.h"
#include "in_internal.h"

#define MAXTOK 16

/* The next line that is not blank (and, for Abaqus, not a "**" comment). */
static axb_status next_line(axb_in_text *t, bool abaqus, bool *eof, axb_error *err)
{
    do {
        AXB_TRY(axb_in_text_next(t, eof, err));
    } while (!*eof && (axb_in_blank(t->line) || (abaqus && !strncmp(t->line, "**", 2))));
    return AXB_OK;
}

static axb_status need_line(axb_in_text *t, const char *what, axb_error *err)
{
    bool eof;
    AXB_TRY(next_line(t, false, &eof, err));
    if (eof) return axb_error_set(err, AXB_ERR_FORMAT, "%s: ends before %s", t->path, what);
    return AXB_OK;
}

static axb_status parse_count(const axb_in_text *t, const char *tok, const char *what, int64_t max, int64_t *n,
                              axb_error *err)
{
    if (!tok || !axb_in_parse_int64(tok, n) || *n < 0 || *n > max)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err, "%s: '%.40s' is not a count in 0..%" PRId64, what,
                               tok ? tok : "", max);
    return AXB_OK;
}

/* The next line must hold exactly one count in 0..max. */
static axb_status read_count(axb_in_text *t, const char *what, int64_t max, int64_t *n, axb_error *err)
{
    AXB_TRY(need_line(t, what, err));
    char *tok[MAXTOK];
    return parse_count(t, axb_in_split(t->line, tok, MAXTOK) == 1 ? tok[0] : NULL, what, max, n, err);
}

/* km if every coordinate is below 1e4 in magnitude (MC Kernel's rule), else m */
static void to_metres(axb_invmesh *m)
{
    double big = 0;
    for (int64_t k = 0; k < 3 * m->nvert; k++) big = fmax(big, fabs(m->vert[k]));
    if (big < 1e4)
        for (int64_t k = 0; k < 3 * m->nvert; k++) m->vert[k] *= 1e3;
}

static double tet_det(const double *a, const double *b, const double *c, const double *d)
{
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
}

axb_status axb_invmesh_check(const axb_invmesh *m, axb_error *err)
{
    AXB_CHECK(err, m->ncell > 0, AXB_ERR_FORMAT, "the mesh has no cells");
    for (int64_t k = 0; k < 3 * m->nvert; k++)
        AXB_CHECK(err, isfinite(m->vert[k]), AXB_ERR_FORMAT, "vertex %" PRId64 ": coordinate is not finite", k / 3);
    const int nv = axb_cell_nvert(m->type);
    for (int64_t c = 0; c < m->ncell; c++) {
        const int64_t *v = m->cell + (int64_t)nv * c;
        for (int j = 0; j < nv; j++)
            AXB_CHECK(err, v[j] >= 0 && v[j] < m->nvert, AXB_ERR_FORMAT,
                      "cell %" PRId64 ": vertex index %" PRId64 " outside 0..%" PRId64, c, v[j], m->nvert - 1);
        if (m->type != AXB_CELL_TET) continue;
        double edge = 0;
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++) {
                const double *p = m->vert + 3 * v[a], *q = m->vert + 3 * v[b];
                edge = fmax(edge, hypot(hypot(p[0] - q[0], p[1] - q[1]), p[2] - q[2]));
            }
        const double vol =
            fabs(tet_det(m->vert + 3 * v[0], m->vert + 3 * v[1], m->vert + 3 * v[2], m->vert + 3 * v[3])) / 6;
        AXB_CHECK(err, edge > 0 && vol > 1e-9 * edge * edge * edge, AXB_ERR_FORMAT,
                  "cell %" PRId64 ": degenerate tetrahedron (volume %.3g m^3, longest edge %.3g m)", c, vol, edge);
    }
    return AXB_OK;
}

/* Reads @p n numbers from the current line into v (tokens from @p first on). */
static axb_status numbers(axb_in_text *t, int first, int n, double *v, axb_error *err)
{
    char *tok[MAXTOK];
    const int nt = axb_in_split(t->line, tok, MAXTOK);
    if (nt < first + n) return axb_in_err_line(t, AXB_ERR_FORMAT, err, "expected %d values, found %d", first + n, nt);
    for (int k = 0; k < n; k++)
        AXB_TRY(axb_in_field_double(t, first + k + 1, "coordinate", tok[first + k], &v[k], err));
    return AXB_OK;
}

static axb_status read_vertices(const char *path, axb_invmesh *m, axb_error *err)
{
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    int64_t ndim = 0, nvert = 0;
    axb_status st = read_count(&t, "dimension", 3, &ndim, err);
    if (!st && ndim != 3)
        st = axb_in_err_line(&t, AXB_ERR_FORMAT, err, "dimension %" PRId64 ": only 3 is supported", ndim);
    if (!st) st = read_count(&t, "vertex count", INT64_C(1) << 40, &nvert, err);
    if (!st) {
        m->vert = malloc((size_t)(nvert ? nvert : 1) * 3 * sizeof *m->vert);
        m->nvert = nvert;
        if (!m->vert) st = axb_error_set(err, AXB_ERR_NOMEM, "%s: %" PRId64 " vertices", path, nvert);
    }
    for (int64_t k = 0; k < nvert && !st; k++) {
        st = need_line(&t, "the last vertex", err);
        if (!st) st = numbers(&t, 0, 3, m->vert + 3 * k, err);
    }
    axb_in_text_close(&t);
    return st;
}

static axb_status read_facets(const char *path, axb_invmesh *m, axb_error *err)
{
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    char *tok[MAXTOK];
    int64_t ncell = 0;
    axb_status st = read_count(&t, "cell count", INT64_C(1) << 40, &ncell, err);
    if (!st) {
        m->cell = malloc((size_t)(ncell ? ncell : 1) * 4 * sizeof *m->cell);
        m->ncell = ncell;
        if (!m->cell) st = axb_error_set(err, AXB_ERR_NOMEM, "%s: %" PRId64 " cells", path, ncell);
    }
    for (int64_t c = 0; c < ncell && !st; c++) {
        st = need_line(&t, "the last cell", err);
        if (st) break;
        const int nt = axb_in_split(t.line, tok, MAXTOK);
        if (nt != 4) {
            st = axb_in_err_line(&t, AXB_ERR_FORMAT, err, "expected 4 vertex indices, found %d", nt);
            break;
        }
        for (int j = 0; j < 4 && !st; j++) {
            int64_t id;
            if (!axb_in_parse_int64(tok[j], &id) || id < 0 || id >= m->nvert)
                st = axb_in_err_line(&t, AXB_ERR_FORMAT, err, "vertex index '%.40s' is not in 0..%" PRId64, tok[j],
                                     m->nvert - 1);
            m->cell[4 * c + j] = id;
        }
    }
    axb_in_text_close(&t);
    return st;
}

static axb_status finish(axb_invmesh *m, const char *path, axb_status st, axb_error *err)
{
    if (!st) {
        to_metres(m);
        st = axb_invmesh_check(m, err);
        if (st) axb_error_prefix(err, "%s", path);
    }
    if (st) axb_invmesh_free(m);
    return st;
}

axb_status axb_read_tet_mesh(const char *vertices, const char *facets, axb_invmesh *out, axb_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = AXB_CELL_TET;
    axb_status st = read_vertices(vertices, out, err);
    if (!st) st = read_facets(facets, out, err);
    return finish(out, facets, st, err);
}

/* ---- node ids as written -> 0-based indices ---- */

typedef struct id_index {
    int64_t id, index;
} id_index;

static int by_id(const void *a, const void *b)
{
    const int64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
    return (x > y) - (x < y);
}

/* Sorts the map and refuses repeated ids. */
static axb_status sort_ids(id_index *map, int64_t n, const char *path, axb_error *err)
{
    if (n > 1) qsort(map, (size_t)n, sizeof *map, by_id);
    for (int64_t k = 1; k < n; k++)
        AXB_CHECK(err, map[k].id != map[k - 1].id, AXB_ERR_FORMAT, "%s: node %" PRId64 " is defined twice", path,
                  map[k].id);
    return AXB_OK;
}

static int64_t find_id(const id_index *map, int64_t n, int64_t id)
{
    const id_index key = {id, 0};
    const id_index *hit = n ? bsearch(&key, map, (size_t)n, sizeof *map, by_id) : NULL;
    return hit ? hit->index : -1;
}

/* Growth of the vertex, cell and id arrays by one entry. */
typedef struct growing {
    int64_t vcap, ccap, mcap;
} growing;

static axb_status add_vertex(axb_invmesh *m, id_index **map, growing *g, int64_t id, const double x[3], axb_error *err)
{
    AXB_TRY(axb_in_grow((void **)&m->vert, &g->vcap, 3 * m->nvert + 2, sizeof *m->vert, err));
    AXB_TRY(axb_in_grow((void **)map, &g->mcap, m->nvert, sizeof **map, err));
    memcpy(m->vert + 3 * m->nvert, x, 3 * sizeof *x);
    (*map)[m->nvert] = (id_index){id, m->nvert};
    m->nvert++;
    return AXB_OK;
}

static axb_status add_cell(axb_invmesh *m, growing *g, const int64_t ids[4], axb_error *err)
{
    AXB_TRY(axb_in_grow((void **)&m->cell, &g->ccap, 4 * m->ncell + 3, sizeof *m->cell, err));
    memcpy(m->cell + 4 * m->ncell, ids, 4 * sizeof *ids);
    m->ncell++;
    return AXB_OK;
}

/* Cells are stored with node ids first and translated once every node is known. */
static axb_status translate(axb_invmesh *m, id_index *map, const char *path, axb_error *err)
{
    AXB_TRY(sort_ids(map, m->nvert, path, err));
    for (int64_t k = 0; k < 4 * m->ncell; k++) {
        const int64_t idx = find_id(map, m->nvert, m->cell[k]);
        AXB_CHECK(err, idx >= 0, AXB_ERR_FORMAT,
                  "%s: cell %" PRId64 " refers to node %" PRId64 ", which is not defined", path, k / 4, m->cell[k]);
        m->cell[k] = idx;
    }
    return AXB_OK;
}

/* ---- Abaqus ---- */

static bool keyword(const char *line, const char *kw)
{
    return line[0] == '*' && !strncasecmp(line + 1, kw, strlen(kw));
}

/* The TYPE= value of an *ELEMENT line, upper-cased into @p type. */
static void element_type(const char *line, char *type, size_t size)
{
    type[0] = '\0';
    for (const char *p = line; *p; p++)
        if (!strncasecmp(p, "type", 4)) {
            const char *q = p + 4;
            while (*q == ' ') q++;
            if (*q != '=') continue;
            q++;
            while (*q == ' ') q++;
            size_t n = 0;
            while (q[n] && q[n] != ',' && q[n] != ' ' && n + 1 < size) {
                type[n] = (char)toupper((unsigned char)q[n]);
                n++;
            }
            type[n] = '\0';
            return;
        }
}

/* Commas separate Abaqus fields; they become blanks for the shared splitter. */
static int split_commas(char *line, char **tok)
{
    for (char *p = line; *p; p++)
        if (*p == ',') *p = ' ';
    return axb_in_split(line, tok, MAXTOK);
}

axb_status axb_read_abaqus_mesh(const char *path, axb_invmesh *out, axb_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = AXB_CELL_TET;
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    id_index *map = NULL;
    growing g = {0, 0, 0};
    enum { NONE, NODES, ELEMENTS } block = NONE;
    axb_status st = AXB_OK;
    for (bool eof = false; !st;) {
        st = next_line(&t, true, &eof, err);
        if (st || eof) break;
        if (t.line[0] == '*') {
            block = NONE;
            if (keyword(t.line, "NODE") && !keyword(t.line, "NODE OUTPUT")) {
                block = NODES;
            } else if (keyword(t.line, "ELEMENT")) {
                char type[32];
                element_type(t.line, type, sizeof type);
                if (strcmp(type, "C3D4") != 0)
                    st = axb_in_err_line(&t, AXB_ERR_UNSUPPORTED, err,
                                         "element type '%.60s': only tetrahedra (C3D4) are supported", type);
                block = ELEMENTS;
            }
            continue;
        }
        char *tok[MAXTOK];
        const int nt = split_commas(t.line, tok);
        if (block == NODES) {
            int64_t id;
            double x[3];
            if (nt != 4 || !axb_in_parse_int64(tok[0], &id)) {
                st = axb_in_err_line(&t, AXB_ERR_FORMAT, err, "a node line is 'id, x, y, z'");
                break;
            }
            for (int k = 0; k < 3 && !st; k++)
                st = axb_in_field_double(&t, k + 2, "coordinate", tok[k + 1], &x[k], err);
            if (!st) st = add_vertex(out, &map, &g, id, x, err);
        } else if (block == ELEMENTS) {
            int64_t id, n[4];
            bool ok = nt == 5 && axb_in_parse_int64(tok[0], &id);
            for (int k = 0; ok && k < 4; k++) ok = axb_in_parse_int64(tok[k + 1], &n[k]);
            if (!ok) {
                st = axb_in_err_line(&t, AXB_ERR_FORMAT, err, "a C3D4 element line is 'id, n1, n2, n3, n4'");
                break;
            }
            st = add_cell(out, &g, n, err);
        }
    }
    axb_in_text_close(&t);
    if (!st && out->ncell == 0) st = axb_error_set(err, AXB_ERR_FORMAT, "%s: no *ELEMENT, TYPE=C3D4 block", path);
    if (!st) st = translate(out, map, path, err);
    free(map);
    return finish(out, path, st, err);
}

/* ---- Gmsh 4.1 ---- */

static axb_status gmsh_header(axb_in_text *t, axb_error *err)
{
    AXB_TRY(need_line(t, "$MeshFormat", err));
    if (strcmp(t->line, "$MeshFormat") != 0)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err, "not a Gmsh file (no $MeshFormat)");
    AXB_TRY(need_line(t, "the format line", err));
    char *tok[MAXTOK];
    const int nt = axb_in_split(t->line, tok, MAXTOK);
    if (nt < 3 || strcmp(tok[0], "4.1") != 0)
        return axb_in_err_line(t, AXB_ERR_UNSUPPORTED, err, "Gmsh format '%.60s': only 4.1 is supported",
                               nt ? tok[0] : "");
    if (strcmp(tok[1], "0") != 0)
        return axb_in_err_line(t, AXB_ERR_UNSUPPORTED, err, "binary Gmsh file: save it as ASCII");
    return AXB_OK;
}

static axb_status gmsh_nodes(axb_in_text *t, axb_invmesh *m, id_index **map, growing *g, axb_error *err)
{
    char *tok[MAXTOK];
    AXB_TRY(need_line(t, "the $Nodes header", err));
    int64_t nblocks, nnodes;
    if (axb_in_split(t->line, tok, MAXTOK) != 4) return axb_in_err_line(t, AXB_ERR_FORMAT, err, "bad $Nodes header");
    AXB_TRY(parse_count(t, tok[0], "entity blocks", INT64_C(1) << 40, &nblocks, err));
    AXB_TRY(parse_count(t, tok[1], "nodes", INT64_C(1) << 40, &nnodes, err));
    for (int64_t b = 0; b < nblocks; b++) {
        AXB_TRY(need_line(t, "a node block", err));
        int64_t param, n;
        if (axb_in_split(t->line, tok, MAXTOK) != 4)
            return axb_in_err_line(t, AXB_ERR_FORMAT, err, "bad node block header");
        AXB_TRY(parse_count(t, tok[2], "parametric flag", 1, &param, err));
        AXB_TRY(parse_count(t, tok[3], "nodes in block", nnodes, &n, err));
        int64_t *tags = malloc((size_t)(n ? n : 1) * sizeof *tags);
        if (!tags) return axb_error_set(err, AXB_ERR_NOMEM, "%s: node block of %" PRId64, t->path, n);
        axb_status st = AXB_OK;
        for (int64_t k = 0; k < n && !st; k++) {
            st = need_line(t, "a node tag", err);
            if (!st && (axb_in_split(t->line, tok, MAXTOK) != 1 || !axb_in_parse_int64(tok[0], &tags[k])))
                st = axb_in_err_line(t, AXB_ERR_FORMAT, err, "expected one node tag");
        }
        for (int64_t k = 0; k < n && !st; k++) {
            double x[3];
            st = need_line(t, "node coordinates", err);
            if (!st) st = numbers(t, 0, 3, x, err);
            if (!st) st = add_vertex(m, map, g, tags[k], x, err);
        }
        free(tags);
        AXB_TRY(st);
    }
    AXB_TRY(need_line(t, "$EndNodes", err));
    if (strcmp(t->line, "$EndNodes") != 0) return axb_in_err_line(t, AXB_ERR_FORMAT, err, "expected $EndNodes");
    return AXB_OK;
}

/* Nodes per element of the Gmsh element types that may appear beside tetrahedra. */
static int gmsh_nodes_of(int64_t type)
{
    switch (type) {
    case 15: return 1; /* point */
    case 1: return 2;  /* line */
    case 2: return 3;  /* triangle */
    case 3: return 4;  /* quadrangle */
    case 4: return 4;  /* tetrahedron */
    default: return 0;
    }
}

static axb_status gmsh_elements(axb_in_text *t, axb_invmesh *m, growing *g, axb_error *err)
{
    char *tok[MAXTOK];
    AXB_TRY(need_line(t, "the $Elements header", err));
    int64_t nblocks, nelem;
    if (axb_in_split(t->line, tok, MAXTOK) != 4) return axb_in_err_line(t, AXB_ERR_FORMAT, err, "bad $Elements header");
    AXB_TRY(parse_count(t, tok[0], "entity blocks", INT64_C(1) << 40, &nblocks, err));
    AXB_TRY(parse_count(t, tok[1], "elements", INT64_C(1) << 40, &nelem, err));
    for (int64_t b = 0; b < nblocks; b++) {
        AXB_TRY(need_line(t, "an element block", err));
        int64_t dim, type, n;
        if (axb_in_split(t->line, tok, MAXTOK) != 4)
            return axb_in_err_line(t, AXB_ERR_FORMAT, err, "bad element block header");
        AXB_TRY(parse_count(t, tok[0], "entity dimension", 3, &dim, err));
        AXB_TRY(parse_count(t, tok[2], "element type", 1000, &type, err));
        AXB_TRY(parse_count(t, tok[3], "elements in block", nelem, &n, err));
        const int nn = gmsh_nodes_of(type);
        if (dim == 3 && type != 4)
            return axb_in_err_line(t, AXB_ERR_UNSUPPORTED, err,
                                   "3-D element type %" PRId64 ": only 4-node tetrahedra (type 4) are supported", type);
        if (!nn) return axb_in_err_line(t, AXB_ERR_UNSUPPORTED, err, "element type %" PRId64 " is not supported", type);
        for (int64_t k = 0; k < n; k++) {
            AXB_TRY(need_line(t, "an element", err));
            const int nt = axb_in_split(t->line, tok, MAXTOK);
            if (nt != nn + 1)
                return axb_in_err_line(t, AXB_ERR_FORMAT, err, "expected a tag and %d nodes, found %d fields", nn, nt);
            if (type != 4) continue;
            int64_t ids[4];
            for (int j = 0; j < 4; j++)
                if (!axb_in_parse_int64(tok[j + 1], &ids[j]))
                    return axb_in_err_line(t, AXB_ERR_FORMAT, err, "node tag '%.40s' is not an integer", tok[j + 1]);
            AXB_TRY(add_cell(m, g, ids, err));
        }
    }
    AXB_TRY(need_line(t, "$EndElements", err));
    if (strcmp(t->line, "$EndElements") != 0) return axb_in_err_line(t, AXB_ERR_FORMAT, err, "expected $EndElements");
    return AXB_OK;
}

axb_status axb_read_gmsh_mesh(const char *path, axb_invmesh *out, axb_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = AXB_CELL_TET;
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    id_index *map = NULL;
    growing g = {0, 0, 0};
    axb_status st = gmsh_header(&t, err);
    bool nodes = false, elements = false;
    for (bool eof = false; !st;) {
        st = next_line(&t, false, &eof, err);
        if (st || eof) break;
        if (!strcmp(t.line, "$Nodes")) {
            st = nodes ? axb_in_err_line(&t, AXB_ERR_FORMAT, err, "a second $Nodes section")
                       : gmsh_nodes(&t, out, &map, &g, err);
            nodes = true;
        } else if (!strcmp(t.line, "$Elements")) {
            st = elements ? axb_in_err_line(&t, AXB_ERR_FORMAT, err, "a second $Elements section")
                          : gmsh_elements(&t, out, &g, err);
            elements = true;
        }
        /* other sections ($Entities, $PhysicalNames, ...) are skipped line by line */
    }
    axb_in_text_close(&t);
    if (!st && (!nodes || !elements))
        st = axb_error_set(err, AXB_ERR_FORMAT, "%s: no %s section", path, nodes ? "$Elements" : "$Nodes");
    if (!st && out->ncell == 0) st = axb_error_set(err, AXB_ERR_FORMAT, "%s: no tetrahedra (element type 4)", path);
    if (!st) st = translate(out, map, path, err);
    free(map);
    return finish(out, path, st, err);
}
