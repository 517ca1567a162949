/* The output writer on 1, 2 and 4 ranks: values that are a closed-form function of (row,
 * component, sample), written by rows distributed round-robin or in reverse blocks, must read back
 * exactly (float64) or as their float32 rounding (float32) through plain serial HDF5, with every
 * attribute and table; the .partial/commit protocol and every refusal must hold on all ranks. */
#define _GNU_SOURCE /* fallocate */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "axibulk/output.h"
#include "check.h"
#include "io/hdf5/h5util.h"
#include "test_util.h"

#define NSRC 3
#define NREC 4
#define NROWS (NSRC * NREC)
#define NSAMP 50
#define DT 0.1
#define START_OFFSET (-12.5)

typedef struct fixture {
    axb_source src[NSRC];
    axb_receiver rec[NREC];
    int64_t row_src[NROWS], row_rec[NROWS];
} fixture;

/* origin 2011-03-11T05:46:23.5Z, one hour apart unless @p same_origin */
static void make_fixture(fixture *f, bool same_origin)
{
    memset(f, 0, sizeof *f);
    const axb_time_ns t0 = INT64_C(1299822383500000000);
    axb_source *s = f->src;
    s[0] = (axb_source){.type = AXB_SRC_MOMENT,
                        .lat = 10.5,
                        .lon = -20.25,
                        .depth = 15000,
                        .m = {1e20, -2e19, 3e18, 4e17, -5e16, 6e15},
                        .origin_time = t0,
                        .time_shift = NAN};
    snprintf(s[0].name, sizeof s[0].name, "event_0 <&>");
    s[1] = (axb_source){.type = AXB_SRC_FORCE,
                        .lat = -33.3,
                        .lon = 151.2,
                        .depth = NAN,
                        .f = {1e10, 2e10, -3e10},
                        .origin_time = t0,
                        .time_shift = 1.5};
    snprintf(s[1].name, sizeof s[1].name, "force1");
    s[2] = (axb_source){.type = AXB_SRC_MOMENT,
                        .lat = 89.9,
                        .lon = 179.5,
                        .depth = 600e3,
                        .origin_time = t0,
                        .time_shift = NAN}; /* zero tensor, no name */
    if (!same_origin)
        for (int i = 0; i < NSRC; i++) s[i].origin_time += i * 3600 * AXB_NS_PER_S;
    static const char *const codes[NREC][3] = {
        {"IU", "ANMO", "00"}, {"II", "BFO", ""}, {"XX", "R000001", "10"}, {"G", "SSB", ""}};
    for (int r = 0; r < NREC; r++) {
        f->rec[r] = (axb_receiver){.lat = -40 + 20 * r, .lon = 30.0 * r, .depth = r == 2 ? 100 : NAN};
        snprintf(f->rec[r].network, 8, "%s", codes[r][0]);
        snprintf(f->rec[r].station, 8, "%s", codes[r][1]);
        snprintf(f->rec[r].location, 8, "%s", codes[r][2]);
    }
    for (int i = 0; i < NROWS; i++) {
        f->row_src[i] = i / NREC;
        f->row_rec[i] = i % NREC;
    }
}

static axb_output_desc make_desc(const fixture *f, const char *path, axb_out_format fmt, axb_precision prec,
                                 const char *comps)
{
    return (axb_output_desc){.path = path,
                             .format = fmt,
                             .precision = prec,
                             .nrows = NROWS,
                             .components = comps,
                             .nsamples = NSAMP,
                             .dt = DT,
                             .start_offset = START_OFFSET,
                             .kind = "velocity",
                             .database = "/data/prem_a_10s",
                             .sources = f->src,
                             .nsources = NSRC,
                             .receivers = f->rec,
                             .nreceivers = NREC,
                             .row_source = f->row_src,
                             .row_receiver = f->row_rec,
                             .command = "axibulk extract test"};
}

static double value(int64_t row, int c, int64_t k)
{
    return sin(0.1 * (double)row + 0.7 * c + 0.05 * (double)k) * pow(10.0, (double)(row % 7) - 3) + 1e-7 * (double)k;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

typedef enum { ROUND_ROBIN, REVERSE_BLOCKS, LOCAL_STAGGERED, LOCAL_ONE_RANK, LOCAL_ONE_CALL } distribution;

/* This rank's rows in the order it passes them. */
static int64_t my_rows(distribution how, int rank, int size, int64_t *rows)
{
    int64_t n = 0;
    if (how == LOCAL_ONE_RANK || how == LOCAL_ONE_CALL) { /* the last rank has all, scattered */
        for (int64_t i = 0; rank == size - 1 && i < NROWS; i++) rows[n++] = (5 * i + 3) % NROWS;
    } else if (how != REVERSE_BLOCKS) {
        for (int64_t i = 0; i < NROWS; i++)
            if (i % size == rank) rows[n++] = i;
    } else {
        int64_t per = (NROWS + size - 1) / size, lo = rank * per, hi = lo + per;
        for (int64_t i = (hi < NROWS ? hi : NROWS) - 1; i >= lo; i--) rows[n++] = i;
    }
    return n;
}

static void fill(const int64_t *rows, int64_t n, int ncomp, double *data)
{
    for (int64_t k = 0; k < n; k++)
        for (int c = 0; c < ncomp; c++)
            for (int64_t t = 0; t < NSAMP; t++) data[(k * ncomp + c) * NSAMP + t] = value(rows[k], c, t);
}

/* Writes every row with @p how: round-robin in two calls plus an empty one; reverse blocks in one;
 * staggered: independent writes, even ranks in two syncs, odd ranks all at once in the second. */
static axb_status write_all(check_ctx *T, axb_output *o, distribution how, int ncomp, int size)
{
    int64_t rows[NROWS];
    int64_t n = my_rows(how, T->rank, size, rows);
    double *data = malloc((size_t)(n ? n : 1) * (size_t)ncomp * NSAMP * sizeof *data);
    fill(rows, n, ncomp, data);
    axb_error err = AXB_ERROR_INIT;
    axb_status st;
    if (how == LOCAL_STAGGERED) {
        int64_t half = n / 2;
        const bool odd = T->rank % 2 == 1;
        axb_status ls = odd ? AXB_OK : axb_output_write_local(o, half, rows, data, &err);
        st = axb_output_sync(o, ls, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
        ls = odd ? axb_output_write_local(o, n, rows, data, &err)
                 : axb_output_write_local(o, n - half, rows + half, data + half * ncomp * NSAMP, &err);
        st = axb_output_sync(o, ls, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    } else if (how == LOCAL_ONE_RANK || how == LOCAL_ONE_CALL) {
        /* independent writes wait in a stage of at most twice a rank's share (8 rows with 4 ranks,
         * 26 with one): with 4 ranks the second call of 5 finds it too full and writes the first,
         * and one call of 12 bypasses it; with fewer ranks every row waits for the close */
        const int64_t step = how == LOCAL_ONE_RANK ? 5 : NROWS;
        axb_status ls = AXB_OK;
        for (int64_t k = 0; k < n && ls == AXB_OK; k += step)
            ls = axb_output_write_local(o, n - k < step ? n - k : step, rows + k, data + k * ncomp * NSAMP, &err);
        st = axb_output_sync(o, ls, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    } else if (how == ROUND_ROBIN) {
        int64_t half = n / 2;
        st = axb_output_write(o, half, rows, data, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
        st = axb_output_write(o, n - half, rows + half, data + half * ncomp * NSAMP, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
        st = axb_output_write(o, 0, NULL, NULL, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    } else {
        st = axb_output_write(o, n, rows, data, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    }
    free(data);
    return st;
}

static double expected(int64_t row, int c, int64_t t, axb_precision prec)
{
    double v = value(row, c, t);
    return prec == AXB_FLOAT32 ? (double)(float)v : v;
}

static void check_str_attr(check_ctx *T, hid_t loc, const char *name, const char *want)
{
    char buf[512] = "";
    axb_error err = AXB_ERROR_INIT;
    axb_status st = axb_h5_attr_string(loc, name, buf, sizeof buf, &err);
    CHECK_MSG(T, st == AXB_OK, "%s: %s", name, err.msg);
    CHECK_STR(T, buf, want);
}

static void check_double_attr(check_ctx *T, hid_t loc, const char *name, double want)
{
    double v = NAN;
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_h5_attr_double(loc, name, &v, &err) == AXB_OK, "%s: %s", name, err.msg);
    CHECK_MSG(T, v == want, "%s = %.17g, want %.17g", name, v, want);
}

/* ASDF requires fixed-length (pyasdf decodes bytes), NUL-padded ASCII, scalar. */
static void check_fixed_attr(check_ctx *T, hid_t loc, const char *name, const char *want)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    CHECK_MSG(T, a >= 0, "attribute %s missing", name);
    if (a < 0) return;
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    CHECK(T, H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t));
    CHECK(T, H5Tget_strpad(t) == H5T_STR_NULLPAD && H5Tget_cset(t) == H5T_CSET_ASCII);
    CHECK(T, H5Sget_simple_extent_type(s) == H5S_SCALAR);
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    check_str_attr(T, loc, name, want);
}

/* ---------------------------------------------------------------------------------------------
 * Bulk read-back */

typedef struct src_row {
    char name[64], type[8];
    double latitude, longitude, depth, m_rr, m_tt, m_pp, m_rt, m_rp, m_tp, f_r, f_t, f_p;
    int64_t origin_time;
    double time_shift;
} src_row;

typedef struct rec_row {
    char network[8], station[8], location[8];
    double latitude, longitude, depth;
} rec_row;

static hid_t str_type(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, n);
    return t;
}

#define INS(t, S, f, ty) H5Tinsert(t, #f, offsetof(S, f), ty)

static bool same_double(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static void check_bulk_tables(check_ctx *T, hid_t f, const fixture *fx)
{
    hid_t s64 = str_type(64), s8 = str_type(8);
    hid_t st = H5Tcreate(H5T_COMPOUND, sizeof(src_row));
    INS(st, src_row, name, s64);
    INS(st, src_row, type, s8);
    INS(st, src_row, latitude, H5T_NATIVE_DOUBLE);
    INS(st, src_row, longitude, H5T_NATIVE_DOUBLE);
    INS(st, src_row, depth, H5T_NATIVE_DOUBLE);
    INS(st, src_row, m_rr, H5T_NATIVE_DOUBLE);
    INS(st, src_row, m_tt, H5T_NATIVE_DOUBLE);
    INS(st, src_row, m_pp, H5T_NATIVE_DOUBLE);
    INS(st, src_row, m_rt, H5T_NATIVE_DOUBLE);
    INS(st, src_row, m_rp, H5T_NATIVE_DOUBLE);
    INS(st, src_row, m_tp, H5T_NATIVE_DOUBLE);
    INS(st, src_row, f_r, H5T_NATIVE_DOUBLE);
    INS(st, src_row, f_t, H5T_NATIVE_DOUBLE);
    INS(st, src_row, f_p, H5T_NATIVE_DOUBLE);
    INS(st, src_row, origin_time, H5T_NATIVE_INT64);
    INS(st, src_row, time_shift, H5T_NATIVE_DOUBLE);
    src_row srows[NSRC];
    hsize_t d1[1] = {NSRC};
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_h5_read(f, "sources", st, 1, d1, srows, &err) == AXB_OK, "%s", err.msg);
    for (int i = 0; i < NSRC; i++) {
        const axb_source *s = &fx->src[i];
        const src_row *r = &srows[i];
        bool force = s->type == AXB_SRC_FORCE;
        CHECK_STR(T, r->name, s->name);
        CHECK_STR(T, r->type, force ? "force" : "moment");
        CHECK(T, r->latitude == s->lat && r->longitude == s->lon && same_double(r->depth, s->depth));
        const double m[6] = {r->m_rr, r->m_tt, r->m_pp, r->m_rt, r->m_rp, r->m_tp};
        for (int k = 0; k < 6; k++) CHECK(T, m[k] == (force ? 0 : s->m[k]));
        CHECK(T, r->f_r == (force ? s->f[0] : 0) && r->f_t == (force ? s->f[1] : 0) && r->f_p == (force ? s->f[2] : 0));
        CHECK(T, r->origin_time == s->origin_time && same_double(r->time_shift, s->time_shift));
    }
    hid_t rt = H5Tcreate(H5T_COMPOUND, sizeof(rec_row));
    INS(rt, rec_row, network, s8);
    INS(rt, rec_row, station, s8);
    INS(rt, rec_row, location, s8);
    INS(rt, rec_row, latitude, H5T_NATIVE_DOUBLE);
    INS(rt, rec_row, longitude, H5T_NATIVE_DOUBLE);
    INS(rt, rec_row, depth, H5T_NATIVE_DOUBLE);
    rec_row rrows[NREC];
    hsize_t d2[1] = {NREC};
    CHECK_MSG(T, axb_h5_read(f, "receivers", rt, 1, d2, rrows, &err) == AXB_OK, "%s", err.msg);
    for (int i = 0; i < NREC; i++) {
        const axb_receiver *r = &fx->rec[i];
        CHECK_STR(T, rrows[i].network, r->network);
        CHECK_STR(T, rrows[i].station, r->station);
        CHECK_STR(T, rrows[i].location, r->location);
        CHECK(T, rrows[i].latitude == r->lat && rrows[i].longitude == r->lon && same_double(rrows[i].depth, r->depth));
    }
    int64_t rs[NROWS], rr[NROWS];
    uint8_t wr[NROWS];
    hsize_t d3[1] = {NROWS};
    CHECK(T, axb_h5_read(f, "row_source", H5T_NATIVE_INT64, 1, d3, rs, &err) == AXB_OK);
    CHECK(T, axb_h5_read(f, "row_receiver", H5T_NATIVE_INT64, 1, d3, rr, &err) == AXB_OK);
    CHECK(T, axb_h5_read(f, "row_written", H5T_NATIVE_UINT8, 1, d3, wr, &err) == AXB_OK);
    for (int i = 0; i < NROWS; i++) CHECK(T, rs[i] == fx->row_src[i] && rr[i] == fx->row_rec[i] && wr[i] == 1);
    H5Tclose(rt);
    H5Tclose(st);
    H5Tclose(s64);
    H5Tclose(s8);
}

static void check_bulk_file(check_ctx *T, const char *path, const fixture *fx, axb_precision prec, const char *comps)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK_MSG(T, f >= 0, "cannot open %s", path);
    if (f < 0) return;
    const int ncomp = (int)strlen(comps);
    check_str_attr(T, f, "file_format", "axibulk-seismograms");
    check_str_attr(T, f, "file_format_version", "1.1");
    check_str_attr(T, f, "database", "/data/prem_a_10s");
    check_str_attr(T, f, "command", "axibulk extract test");
    char buf[128] = "";
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_h5_attr_string(f, "creator", buf, sizeof buf, &err) == AXB_OK);
    CHECK_MSG(T, strncmp(buf, "axibulk ", 8) == 0 && buf[8], "creator '%s'", buf);
    CHECK(T, axb_h5_attr_string(f, "creation_time", buf, sizeof buf, &err) == AXB_OK);
    axb_time_ns created = 0;
    CHECK_MSG(T, axb_time_parse(buf, &created, &err) == AXB_OK && created > INT64_C(1600000000) * AXB_NS_PER_S,
              "creation_time '%s'", buf);

    hid_t d = H5Dopen2(f, "seismograms", H5P_DEFAULT);
    CHECK(T, d >= 0);
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    hsize_t dims[3] = {0, 0, 0};
    CHECK(T, H5Sget_simple_extent_ndims(s) == 3);
    H5Sget_simple_extent_dims(s, dims, NULL);
    CHECK(T, dims[0] == NROWS && dims[1] == (hsize_t)ncomp && dims[2] == NSAMP);
    CHECK(T, H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == (prec == AXB_FLOAT32 ? 4u : 8u));
    check_str_attr(T, d, "components", comps);
    check_str_attr(T, d, "kind", "velocity");
    check_str_attr(T, d, "units", "m/s");
    check_str_attr(T, d, "dimensions", "row, component, sample");
    check_double_attr(T, d, "dt", DT);
    check_double_attr(T, d, "sampling_rate", 1.0 / DT);
    check_double_attr(T, d, "start_offset", START_OFFSET);
    long long npts = 0;
    CHECK(T, axb_h5_attr_int(d, "npts", &npts, &err) == AXB_OK && npts == NSAMP);
    double *v = malloc((size_t)NROWS * (size_t)ncomp * NSAMP * sizeof *v);
    CHECK(T, H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    long bad = 0;
    for (int64_t r = 0; r < NROWS; r++)
        for (int c = 0; c < ncomp; c++)
            for (int64_t k = 0; k < NSAMP; k++) bad += v[(r * ncomp + c) * NSAMP + k] != expected(r, c, k, prec);
    CHECK_MSG(T, bad == 0, "%ld of %d samples differ", bad, NROWS * ncomp * NSAMP);
    free(v);
    H5Sclose(s);
    H5Tclose(t);
    H5Dclose(d);
    check_bulk_tables(T, f, fx);
    H5Fclose(f);
}

/* ---------------------------------------------------------------------------------------------
 * ASDF read-back */

static void trace_name(const fixture *fx, int64_t row, char comp, const char *tag, char *buf, size_t size)
{
    const axb_receiver *r = &fx->rec[fx->row_rec[row]];
    axb_time_ns t0 = fx->src[fx->row_src[row]].origin_time + axb_time_from_seconds(START_OFFSET);
    char s[32], e[32];
    axb_time_format_seconds(t0, s, sizeof s);
    axb_time_format_seconds(t0 + axb_time_from_seconds((NSAMP - 1) * DT), e, sizeof e);
    snprintf(buf, size, "/Waveforms/%s.%s/%s.%s.%s.BX%c__%s__%s__%s", r->network, r->station, r->network, r->station,
             r->location, comp, s, e, tag);
}

static xmlNodePtr child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) return c;
    return NULL;
}

static double value_of(xmlNodePtr n, const char *name)
{
    xmlNodePtr v = child(child(n, name), "value");
    if (!v) return NAN;
    xmlChar *s = xmlNodeGetContent(v);
    double x = strtod((const char *)s, NULL);
    xmlFree(s);
    return x;
}

static void check_quakeml(check_ctx *T, hid_t f, const fixture *fx)
{
    hid_t d = H5Dopen2(f, "QuakeML", H5P_DEFAULT);
    CHECK(T, d >= 0);
    if (d < 0) return;
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    CHECK(T, H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 1 && H5Tget_sign(t) == H5T_SGN_2);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    char *text = malloc((size_t)n + 1);
    CHECK(T, H5Dread(d, H5T_NATIVE_SCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text) >= 0);
    text[n] = '\0';
    H5Sclose(s);
    H5Tclose(t);
    H5Dclose(d);
    xmlDocPtr doc =
        xmlReadMemory(text, (int)n, "QuakeML", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    CHECK_MSG(T, doc != NULL, "QuakeML does not parse as XML");
    if (doc) {
        xmlNodePtr root = xmlDocGetRootElement(doc);
        CHECK(T,
              strcmp((const char *)root->name, "quakeml") == 0 && root->ns &&
                  strcmp((const char *)root->ns->href, "http://quakeml.org/xmlns/quakeml/1.2") == 0);
        xmlNodePtr ep = child(root, "eventParameters");
        int ne = 0;
        for (xmlNodePtr ev = ep ? ep->children : NULL; ev; ev = ev->next) {
            if (ev->type != XML_ELEMENT_NODE || strcmp((const char *)ev->name, "event") != 0) continue;
            const axb_source *src = &fx->src[ne];
            xmlChar *id = xmlGetProp(ev, (const xmlChar *)"publicID");
            char want[64];
            snprintf(want, sizeof want, "smi:local/axibulk/event/%d", ne);
            CHECK_STR(T, (const char *)id, want);
            xmlFree(id);
            xmlNodePtr org = child(ev, "origin");
            CHECK(T, value_of(org, "latitude") == axb_geographic_latitude(src->lat));
            CHECK(T, value_of(org, "longitude") == src->lon);
            CHECK(T, same_double(value_of(org, "depth"), src->depth));
            xmlChar *when = xmlNodeGetContent(child(child(org, "time"), "value"));
            axb_time_ns tt = 0;
            axb_error err = AXB_ERROR_INIT;
            CHECK(T, axb_time_parse((const char *)when, &tt, &err) == AXB_OK && tt == src->origin_time);
            xmlFree(when);
            xmlNodePtr mt = child(child(ev, "focalMechanism"), "momentTensor");
            CHECK(T, (mt != NULL) == (src->type == AXB_SRC_MOMENT));
            if (mt) {
                xmlNodePtr tens = child(mt, "tensor");
                static const char *const names[6] = {"Mrr", "Mtt", "Mpp", "Mrt", "Mrp", "Mtp"};
                for (int k = 0; k < 6; k++) CHECK(T, value_of(tens, names[k]) == src->m[k]);
            }
            CHECK(T, (child(ev, "magnitude") != NULL) == (ne == 0));
            if (ne == 0) CHECK_CLOSE(T, value_of(child(ev, "magnitude"), "mag"), 7.17213085854, 1e-9);
            xmlNodePtr desc = child(ev, "description");
            CHECK(T, (desc != NULL) == (src->name[0] != '\0'));
            if (desc) {
                xmlChar *txt = xmlNodeGetContent(child(desc, "text"));
                CHECK_STR(T, (const char *)txt, src->name);
                xmlFree(txt);
            }
            ne++;
        }
        CHECK_MSG(T, ne == NSRC, "%d events", ne);
        xmlFreeDoc(doc);
    }
    free(text);
}

static void check_asdf_trace(check_ctx *T, hid_t f, const fixture *fx, int64_t row, int c, const char *comps,
                             const char *tag, axb_precision prec)
{
    char name[256];
    trace_name(fx, row, comps[c], tag, name, sizeof name);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    CHECK_MSG(T, d >= 0, "trace %s missing", name);
    if (d < 0) return;
    const int64_t isrc = fx->row_src[row];
    const axb_source *src = &fx->src[isrc];
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    CHECK(T, H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == (prec == AXB_FLOAT32 ? 4u : 8u));
    CHECK(T, H5Sget_simple_extent_ndims(s) == 1 && H5Sget_simple_extent_npoints(s) == NSAMP);
    double v[NSAMP];
    CHECK(T, H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    int bad = 0;
    for (int k = 0; k < NSAMP; k++) bad += v[k] != expected(row, c, k, prec);
    CHECK_MSG(T, bad == 0, "%s: %d samples differ", name, bad);
    /* starttime: int64 ns, the origin time plus the start offset */
    int64_t st = 0;
    hid_t a = H5Aopen(d, "starttime", H5P_DEFAULT);
    hid_t at = H5Aget_type(a);
    CHECK(T, H5Tget_class(at) == H5T_INTEGER && H5Tget_size(at) == 8);
    CHECK(T, H5Aread(a, H5T_NATIVE_INT64, &st) >= 0);
    CHECK(T, st == src->origin_time - INT64_C(12500000000));
    H5Tclose(at);
    H5Aclose(a);
    check_double_attr(T, d, "sampling_rate", 1.0 / DT);
    char id[64];
    snprintf(id, sizeof id, "smi:local/axibulk/event/%lld", (long long)isrc);
    check_fixed_attr(T, d, "event_id", id);
    snprintf(id, sizeof id, "smi:local/axibulk/origin/%lld", (long long)isrc);
    check_fixed_attr(T, d, "origin_id", id);
    CHECK(T, H5Aexists(d, "focal_mechanism_id") == (src->type == AXB_SRC_MOMENT));
    CHECK(T, H5Aexists(d, "magnitude_id") == (isrc == 0));
    /* every trace names the provenance record of the file (#20) */
    check_fixed_attr(T, d, "provenance_id", "{http://seisprov.org/seis_prov/0.1/#}sp004_wf_a8b1c0e");
    /* pyasdf's validator allows no other trace attributes */
    H5O_info_t info;
    H5Oget_info2(d, &info, H5O_INFO_NUM_ATTRS);
    CHECK_MSG(T, info.num_attrs == (src->type == AXB_SRC_MOMENT ? 6u + (isrc == 0) : 5u), "%s: %llu attributes", name,
              (unsigned long long)info.num_attrs);
    H5Sclose(s);
    H5Tclose(t);
    H5Dclose(d);
}

/* A byte dataset (pyasdf's XML documents) as a NUL-terminated string; NULL if missing. */
static char *read_text(hid_t loc, const char *name)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) return NULL;
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(s, &n, NULL);
    char *buf = calloc((size_t)n + 1, 1);
    if (buf && H5Dread(d, H5T_NATIVE_SCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) buf[0] = '\0';
    H5Sclose(s);
    H5Dclose(d);
    return buf;
}

/* The fixture's receivers come without site metadata: the StationXML document gives the
 * geographic latitude derived from the geocentric one, sea level, and one channel per
 * component (the full check against a STATIONS input is tests/asdf_check.py). */
static void check_stationxml(check_ctx *T, hid_t sg, const axb_receiver *r, const char *comps)
{
    char *x = read_text(sg, "StationXML");
    CHECK_MSG(T, x != NULL, "%s.%s: no StationXML", r->network, r->station);
    if (!x) return;
    char want[128];
    snprintf(want, sizeof want, "<Latitude>%.17g</Latitude>", axb_geographic_latitude(r->lat));
    CHECK_MSG(T, strstr(x, want) != NULL, "%s.%s: no %s", r->network, r->station, want);
    snprintf(want, sizeof want, "<Station code=\"%s\"", r->station);
    CHECK_MSG(T, strstr(x, want) != NULL, "%s.%s: no %s", r->network, r->station, want);
    for (const char *c = comps; *c; c++) {
        snprintf(want, sizeof want, "<Channel code=\"BX%c\" locationCode=\"%s\"", *c, r->location);
        CHECK_MSG(T, strstr(x, want) != NULL, "%s.%s: no %s", r->network, r->station, want);
    }
    free(x);
}

static void check_asdf_file(check_ctx *T, const char *path, const fixture *fx, axb_precision prec, const char *comps,
                            const char *tag)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK_MSG(T, f >= 0, "cannot open %s", path);
    if (f < 0) return;
    check_fixed_attr(T, f, "file_format", "ASDF");
    check_fixed_attr(T, f, "file_format_version", "1.0.3");
    check_fixed_attr(T, f, "kind", "velocity");
    check_fixed_attr(T, f, "units", "m/s");
    CHECK(T, H5Lexists(f, "Provenance", H5P_DEFAULT) > 0 && H5Lexists(f, "AuxiliaryData", H5P_DEFAULT) > 0);
    /* one group per station, holding its rows' traces and nothing else */
    hid_t w = H5Gopen2(f, "Waveforms", H5P_DEFAULT);
    H5G_info_t gi;
    H5Gget_info(w, &gi);
    CHECK(T, gi.nlinks == NREC);
    for (int r = 0; r < NREC; r++) {
        char g[32];
        snprintf(g, sizeof g, "%s.%s", fx->rec[r].network, fx->rec[r].station);
        hid_t sg = H5Gopen2(w, g, H5P_DEFAULT);
        CHECK_MSG(T, sg >= 0, "station group %s missing", g);
        if (sg < 0) continue;
        H5Gget_info(sg, &gi);
        CHECK(T, gi.nlinks == (hsize_t)NSRC * strlen(comps) + 1); /* + StationXML (#20) */
        check_stationxml(T, sg, &fx->rec[r], comps);
        H5Gclose(sg);
    }
    H5Gclose(w);
    for (int64_t row = 0; row < NROWS; row++)
        for (int c = 0; c < (int)strlen(comps); c++) check_asdf_trace(T, f, fx, row, c, comps, tag, prec);
    check_quakeml(T, f, fx);
    char *prov = read_text(f, "Provenance/axibulk_extract");
    CHECK_MSG(T, prov && strstr(prov, "<prov:document ") && strstr(prov, "<seis_prov:software_version>"),
              "provenance document: %.200s", prov ? prov : "(missing)");
    free(prov);
    H5Fclose(f);
}

/* ---------------------------------------------------------------------------------------------
 * Cases */

static void write_and_check(check_ctx *T, const char *dir, const char *name, axb_out_format fmt, axb_precision prec,
                            const char *comps, distribution how, int size)
{
    fixture fx;
    make_fixture(&fx, false);
    char path[600], partial[640];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(partial, sizeof partial, "%s.partial", path);
    axb_output_desc d = make_desc(&fx, path, fmt, prec, comps);
    axb_output *o = NULL;
    axb_error err = AXB_ERROR_INIT;
    axb_status st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
    CHECK_MSG(T, st == AXB_OK, "%s: %s", name, err.msg);
    if (st != AXB_OK) return;
    CHECK(T, axb_output_can_write_local(o) == (fmt == AXB_OUT_BULK));
    if (fmt == AXB_OUT_ASDF) {
        axb_error e2 = AXB_ERROR_INIT;
        CHECK(T, axb_output_write_local(o, 0, NULL, NULL, &e2) == AXB_ERR_UNSUPPORTED);
    }
    st = write_all(T, o, how, (int)strlen(comps), size);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MSG(T, exists(partial) && !exists(path), "%s: before commit", name);
    MPI_Barrier(MPI_COMM_WORLD);
    st = axb_output_close(&o, true, &err);
    CHECK_MSG(T, st == AXB_OK, "%s: close: %s", name, err.msg);
    CHECK(T, o == NULL);
    CHECK_MSG(T, !exists(partial) && exists(path), "%s: after commit", name);
    if (T->rank == 0) {
        if (fmt == AXB_OUT_BULK)
            check_bulk_file(T, path, &fx, prec, comps);
        else
            check_asdf_file(T, path, &fx, prec, comps, "synthetic");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Whether this directory's file system can reserve blocks (fallocate); probed on a file of its own. */
static bool can_reserve(const char *dir)
{
    char probe[600];
    snprintf(probe, sizeof probe, "%s/reserve.probe", dir);
    const int fd = open(probe, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return false;
    const bool ok = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) == 0;
    close(fd);
    unlink(probe);
    return ok;
}

/* A new bulk file has the disk blocks of all its rows before the first row is written (random
 * row order would otherwise allocate them piecemeal), and its data are the same afterwards. */
static void check_reserved(check_ctx *T, const char *dir, int size)
{
    fixture fx;
    make_fixture(&fx, false);
    char path[600], partial[640];
    snprintf(path, sizeof path, "%s/reserved.h5", dir);
    snprintf(partial, sizeof partial, "%s.partial", path);
    axb_output_desc d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT64, "ZNE");
    d.nsamples = 8000; /* 2.3 MB of rows against some KB of metadata and tables */
    const double want = (double)NROWS * 3 * d.nsamples * sizeof(double);
    axb_output *o = NULL;
    axb_error err = AXB_ERROR_INIT;
    axb_status st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    if (st != AXB_OK) return;
    if (T->rank == 0) {
        struct stat sb;
        if (!can_reserve(dir))
            printf("reserved.h5: this file system has no fallocate: the reservation is not checked\n");
        else
            CHECK_MSG(T, stat(partial, &sb) == 0 && (double)sb.st_blocks * 512 >= want,
                      "%.0f bytes allocated before any row was written, the rows need %.0f", (double)sb.st_blocks * 512,
                      want);
    }
    double *data = malloc((size_t)NROWS * 3 * (size_t)d.nsamples * sizeof *data);
    int64_t rows[NROWS];
    int64_t n = 0;
    for (int64_t r = NROWS - 1; r >= 0; r--)
        if (r % size == T->rank) rows[n++] = r;
    for (int64_t k = 0; data && k < n; k++)
        for (int c = 0; c < 3; c++)
            for (int64_t t = 0; t < d.nsamples; t++) data[(k * 3 + c) * d.nsamples + t] = value(rows[k], c, t);
    st = data ? axb_output_write(o, n, rows, data, &err) : AXB_ERR_NOMEM;
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    st = axb_output_close(&o, st == AXB_OK, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    if (T->rank == 0 && st == AXB_OK && data) {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        hsize_t dims[3] = {NROWS, 3, (hsize_t)d.nsamples};
        CHECK(T, axb_h5_read(f, "seismograms", H5T_NATIVE_DOUBLE, 3, dims, data, &err) == AXB_OK);
        long bad = 0;
        for (int64_t r = 0; r < NROWS; r++)
            for (int c = 0; c < 3; c++)
                for (int64_t t = 0; t < d.nsamples; t++) bad += data[(r * 3 + c) * d.nsamples + t] != value(r, c, t);
        CHECK_MSG(T, bad == 0, "%ld values misplaced", bad);
        H5Fclose(f);
    }
    free(data);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Sources with one origin time give rows with equal names under "synthetic": the tag names the
 * source; a repeated pair falls back to the row. */
static void check_tag_levels(check_ctx *T, const char *dir, int size)
{
    fixture fx;
    make_fixture(&fx, true);
    char path[600];
    snprintf(path, sizeof path, "%s/tags.h5", dir);
    for (int level = 1; level <= 2; level++) {
        if (level == 2) fx.row_src[1] = 0, fx.row_rec[1] = 0; /* row 1 repeats row 0's pair */
        axb_output_desc d = make_desc(&fx, path, AXB_OUT_ASDF, AXB_FLOAT64, "Z");
        d.overwrite = true;
        axb_output *o = NULL;
        axb_error err = AXB_ERROR_INIT;
        axb_status st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
        if (st != AXB_OK) continue;
        write_all(T, o, REVERSE_BLOCKS, 1, size);
        CHECK(T, axb_output_close(&o, true, &err) == AXB_OK);
        if (T->rank == 0) {
            hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
            for (int64_t row = 0; row < NROWS; row++) {
                char tag[32], name[256];
                if (level == 1)
                    snprintf(tag, sizeof tag, "synthetic_s%lld", (long long)fx.row_src[row]);
                else
                    snprintf(tag, sizeof tag, "synthetic_r%lld", (long long)row);
                trace_name(&fx, row, 'Z', tag, name, sizeof name);
                CHECK_MSG(T, H5Lexists(f, name, H5P_DEFAULT) > 0, "%s missing", name);
            }
            H5Fclose(f);
        }
    }
    /* the exact name of one trace, written out by hand */
    if (T->rank == 0) {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        CHECK(T,
              H5Lexists(f,
                        "/Waveforms/XX.R000001/XX.R000001.10.BXZ__2011-03-11T05:46:11__"
                        "2011-03-11T05:46:15__synthetic_r2",
                        H5P_DEFAULT) > 0);
        H5Fclose(f);
    }
}

/* Scattered rows: more runs than one bulk transfer takes (256), a different number of transfers
 * on each rank, in two writes; values must still land in their rows. */
static void check_many_runs(check_ctx *T, const char *dir, int size)
{
    enum { N = 3001, NS = 3 };
    fixture fx;
    make_fixture(&fx, false);
    int64_t *rs = malloc(N * sizeof *rs), *rr = malloc(N * sizeof *rr);
    int64_t *rows = malloc(N * sizeof *rows);
    double *data = malloc((size_t)N * NS * sizeof *data);
    for (int64_t r = 0; r < N; r++) rs[r] = r % NSRC, rr[r] = r % NREC;
    char path[600];
    snprintf(path, sizeof path, "%s/runs.h5", dir);
    axb_output_desc d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT64, "E");
    d.nrows = N, d.nsamples = NS, d.row_source = rs, d.row_receiver = rr;
    axb_output *o = NULL;
    axb_error err = AXB_ERROR_INIT;
    axb_status st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    for (int phase = 0; phase < 2 && st == AXB_OK; phase++) {
        int64_t n = 0;
        for (int64_t r = N - 1; r >= 0; r--) {
            uint64_t h = (uint64_t)r * UINT64_C(0x9E3779B97F4A7C15);
            int owner = (int)((h >> 40) % (uint64_t)(size + 1)); /* rank 0 gets two shares */
            if ((owner == size ? 0 : owner) == T->rank && (int)((h >> 20) % 3 == 0) == phase) rows[n++] = r;
        }
        for (int64_t k = 0; k < n; k++)
            for (int t = 0; t < NS; t++) data[k * NS + t] = value(rows[k], 0, t);
        st = axb_output_write(o, n, rows, data, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    }
    st = axb_output_close(&o, true, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    if (T->rank == 0 && st == AXB_OK) {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        hsize_t dims[3] = {N, 1, NS};
        CHECK(T, axb_h5_read(f, "seismograms", H5T_NATIVE_DOUBLE, 3, dims, data, &err) == AXB_OK);
        long bad = 0;
        for (int64_t r = 0; r < N; r++)
            for (int t = 0; t < NS; t++) bad += data[r * NS + t] != value(r, 0, t);
        CHECK_MSG(T, bad == 0, "%ld values misplaced", bad);
        H5Fclose(f);
    }
    free(rs);
    free(rr);
    free(rows);
    free(data);
}

/* Every rank must return a failure: rank 0 (the lowest that saw the cause, whether only it or every
 * rank did) its own code, the others AXB_ERR_REMOTE; all with a message containing @p text. */
static void check_refused(check_ctx *T, axb_status st, const axb_error *err, axb_status want, const char *text,
                          const char *what)
{
    CHECK_MSG(T, st == (T->rank == 0 ? want : AXB_ERR_REMOTE), "%s: status %d (%s)", what, (int)st, err->msg);
    CHECK_MSG(T, strstr(err->msg, text) != NULL, "%s: message '%s' lacks '%s'", what, err->msg, text);
}

static void check_refusals(check_ctx *T, const char *dir, int size)
{
    fixture fx;
    make_fixture(&fx, false);
    char path[600], partial[640], missing[600];
    snprintf(path, sizeof path, "%s/refuse.h5", dir);
    snprintf(partial, sizeof partial, "%s.partial", path);
    snprintf(missing, sizeof missing, "%s/no/such/dir/out.h5", dir);
    axb_error err = AXB_ERROR_INIT;
    axb_output *o = NULL;

    axb_output_desc d = make_desc(&fx, missing, AXB_OUT_BULK, AXB_FLOAT32, "Z");
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_IO, "does not exist",
                  "missing directory");
    CHECK(T, o == NULL);

    /* inconsistent descriptors: every rank sees the problem, rank 0 reports it */
    d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT32, "ZQ");
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_ARG, "unknown component 'Q'",
                  "component");
    d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT32, "ZZ");
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_ARG, "repeated",
                  "repeated component");
    d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT32, "Z");
    d.nsamples = 0;
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_ARG, "nsamples = 0", "nsamples");
    d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT32, "Z");
    d.kind = "strain";
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_ARG, "kind 'strain'", "kind");
    d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT32, "Z");
    d.checkpoint_seconds = -1;
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_ARG,
                  "checkpoint_seconds = -1 must be 0 or more", "negative checkpoint interval");
    d.checkpoint_seconds = NAN;
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_ARG, "checkpoint_seconds = nan",
                  "checkpoint interval NaN");
    fixture bad = fx;
    bad.row_rec[7] = NREC;
    d = make_desc(&bad, path, AXB_OUT_BULK, AXB_FLOAT32, "Z");
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_ARG,
                  "row 7: receiver index 4 outside 0..3", "row index");
    bad = fx;
    snprintf(bad.rec[1].station, 8, "B.FO");
    d = make_desc(&bad, path, AXB_OUT_ASDF, AXB_FLOAT32, "Z");
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_ARG, "receiver 1 'II.B.FO.'",
                  "ASDF code");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(T, !exists(partial) && !exists(path));

    /* write-time refusals, on one rank only: no other rank may hang */
    d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT64, "Z");
    axb_status st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    double data[2 * NSAMP] = {0};
    int64_t rows[2] = {NROWS, 0};
    int last = size - 1;
    st = axb_output_write(o, T->rank == last ? 1 : 0, rows, data, &err);
    CHECK_MSG(T, st == (T->rank == last ? AXB_ERR_ARG : AXB_ERR_REMOTE), "out of range: %d", (int)st);
    CHECK_CONTAINS(T, err.msg, "row 12 (entry 0) outside 0..11");
    rows[0] = 3, rows[1] = 3;
    st = axb_output_write(o, T->rank == last ? 2 : 0, rows, data, &err);
    CHECK_CONTAINS(T, err.msg, "row 3 appears twice");
    st = axb_output_write(o, T->rank == last ? 1 : 0, rows, data, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    st = axb_output_write(o, T->rank == last ? 1 : 0, rows, data, &err);
    CHECK_CONTAINS(T, err.msg, "row 3 was already written by rank");
    /* independent writes: the same checks, this rank's alone; the next sync fails every rank */
    CHECK(T, axb_output_can_write_local(o));
    rows[0] = 4;
    st = T->rank == last ? axb_output_write_local(o, 1, rows, data, &err) : AXB_OK;
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    st = axb_output_sync(o, st, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    st = T->rank == last ? axb_output_write_local(o, 1, rows, data, &err) : AXB_OK;
    if (T->rank == last) CHECK_CONTAINS(T, err.msg, "row 4 was already written by rank");
    st = axb_output_sync(o, st, &err);
    CHECK_MSG(T, st == (T->rank == last ? AXB_ERR_ARG : AXB_ERR_REMOTE), "sync after a local failure: %d", (int)st);
    CHECK_CONTAINS(T, err.msg, "row 4 was already written by rank");
    /* committing an incomplete file is refused and keeps the data in .partial */
    st = axb_output_close(&o, true, &err);
    CHECK_MSG(T, st == AXB_ERR_ARG, "incomplete commit: %d", (int)st);
    CHECK_CONTAINS(T, err.msg, "10 of 12 rows were never written (first: row 0)");
    CHECK(T, o == NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(T, exists(partial) && !exists(path));

    /* .partial left by that run: refused without overwrite */
    d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT64, "Z");
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_IO, "from an unfinished run",
                  "existing .partial");

    /* a row written by two ranks */
    if (size > 1) {
        d.overwrite = true;
        st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
        int64_t all[NROWS + 1];
        int64_t n = my_rows(ROUND_ROBIN, T->rank, size, all);
        if (T->rank == 1) all[n++] = 0; /* rank 0 writes row 0 too */
        double *buf = calloc((size_t)n * NSAMP, sizeof *buf);
        st = axb_output_write(o, n, all, buf, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
        free(buf);
        st = axb_output_close(&o, true, &err);
        CHECK_MSG(T, st == AXB_ERR_ARG, "duplicate commit: %d", (int)st);
        CHECK_CONTAINS(T, err.msg, "row 0 was written by two ranks");
    }

    /* commit = false leaves .partial and no PATH; then an existing PATH is refused unless
     * overwriting, and overwriting replaces it only at commit */
    d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT64, "Z");
    d.overwrite = true;
    st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    write_all(T, o, ROUND_ROBIN, 1, size);
    CHECK(T, axb_output_close(&o, false, &err) == AXB_OK);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(T, exists(partial) && !exists(path));
    MPI_Barrier(MPI_COMM_WORLD);
    if (T->rank == 0) rename(partial, path);
    MPI_Barrier(MPI_COMM_WORLD);
    d.overwrite = false;
    check_refused(T, axb_output_create(MPI_COMM_WORLD, &d, &o, &err), &err, AXB_ERR_IO, "already exists",
                  "existing PATH");
    d.overwrite = true;
    d.dt = 0.5;
    st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    write_all(T, o, REVERSE_BLOCKS, 1, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (T->rank == 0) {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT); /* the old file is intact */
        hid_t s = H5Dopen2(f, "seismograms", H5P_DEFAULT);
        check_double_attr(T, s, "dt", DT);
        H5Dclose(s);
        H5Fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(T, axb_output_close(&o, true, &err) == AXB_OK);
    if (T->rank == 0) {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t s = H5Dopen2(f, "seismograms", H5P_DEFAULT);
        check_double_attr(T, s, "dt", 0.5);
        H5Dclose(s);
        H5Fclose(f);
    }
}

static void check_helpers(check_ctx *T)
{
    const struct {
        double dt;
        char band;
    } bands[] = {{0.0005, 'F'}, {0.001, 'F'}, {0.0011, 'C'}, {0.004, 'C'}, {0.005, 'H'}, {0.0125, 'H'},
                 {0.013, 'B'},  {0.1, 'B'},   {0.2, 'M'},    {0.999, 'M'}, {1.0, 'L'},   {10.0, 'L'}};
    for (size_t i = 0; i < sizeof bands / sizeof bands[0]; i++)
        CHECK_MSG(T, axb_band_code(bands[i].dt) == bands[i].band, "dt %g", bands[i].dt);
    CHECK_STR(T, axb_output_units("acceleration"), "m/s^2");
    CHECK(T, axb_output_units("strain") == NULL);
    axb_out_format f;
    axb_precision p;
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_out_format_parse("asdf", &f, &err) == AXB_OK && f == AXB_OUT_ASDF);
    CHECK(T, axb_out_format_parse("sac", &f, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "unknown output format 'sac'");
    CHECK(T, axb_precision_parse("float32", &p, &err) == AXB_OK && p == AXB_FLOAT32);
    CHECK_STR(T, axb_precision_name(AXB_FLOAT64), "float64");
}

/* The receivers' site metadata is written when the file is created, so it is part of the job's
 * identity: resuming an unfinished ASDF file with another burial is refused (it would keep the old
 * StationXML), with the same one accepted (#20). */
static void check_resume_site(check_ctx *T, const char *dir)
{
    fixture fx;
    make_fixture(&fx, false);
    fx.rec[0].has_site = true;
    fx.rec[0].geo_lat = axb_geographic_latitude(fx.rec[0].lat);
    fx.rec[0].elevation = 1850.0;
    fx.rec[0].burial = 100.0;
    char path[600];
    snprintf(path, sizeof path, "%s/site.h5", dir);
    axb_error err = AXB_ERROR_INIT;
    axb_output *o = NULL;
    axb_output_desc d = make_desc(&fx, path, AXB_OUT_ASDF, AXB_FLOAT64, "Z");
    axb_status st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    /* one row on disk and recorded, so that the resume has something to keep */
    const int64_t row0 = 0;
    double trace[NSAMP] = {0};
    st = axb_output_write(o, T->rank == 0 ? 1 : 0, &row0, trace, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    CHECK(T, axb_output_close(&o, false, &err) == AXB_OK);
    uint8_t done[NROWS];
    fx.rec[0].burial = 0.0;
    st = axb_output_resume(MPI_COMM_WORLD, &d, done, &o, &err);
    CHECK_MSG(T, st == (T->rank == 0 ? AXB_ERR_ARG : AXB_ERR_REMOTE) && o == NULL, "resume with another burial: %d %s",
              (int)st, err.msg);
    CHECK_CONTAINS(T, err.msg, "another job");
    if (o) CHECK(T, axb_output_close(&o, false, &err) == AXB_OK);
    axb_error_clear(&err);
    fx.rec[0].burial = 100.0;
    st = axb_output_resume(MPI_COMM_WORLD, &d, done, &o, &err);
    CHECK_MSG(T, st == AXB_OK && done[0] == 1, "resume with the same metadata: %s", err.msg);
    if (st == AXB_OK) CHECK(T, axb_output_close(&o, false, &err) == AXB_OK);
}

/* Bytes of PATH.partial.record after its header line (the rows' lists); -1 if unreadable. */
static long record_list_bytes(const char *path)
{
    char rec[640];
    snprintf(rec, sizeof rec, "%s.partial.record", path);
    FILE *f = fopen(rec, "rb");
    if (!f) return -1;
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {
    }
    long n = 0;
    while (c != EOF && fgetc(f) != EOF) n++;
    fclose(f);
    return c == '\n' ? n : -1;
}

/* Rows count as on disk for a resume only at checkpoints. Each rank writes its rows in three
 * parts (collective, independent and synced, collective), then the run stops without a commit,
 * as a kill would leave it. With checkpoint_seconds = 3600 nothing is recorded, and the resume
 * starts again from nothing; with 0 every write is recorded; with 0.2 s, the last write, made
 * after a longer pause, records every row pending since the last checkpoint. The resumed run
 * writes the rest and commits a complete file in every case. */
static void check_checkpoints(check_ctx *T, const char *dir, int size)
{
    static const double intervals[] = {3600, 0, 0.2};
    fixture fx;
    make_fixture(&fx, false);
    for (int i = 0; i < 3; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/ckpt%d.h5", dir, i);
        axb_output_desc d = make_desc(&fx, path, AXB_OUT_BULK, AXB_FLOAT64, "Z");
        d.checkpoint_seconds = intervals[i];
        axb_output *o = NULL;
        axb_error err = AXB_ERROR_INIT;
        axb_status st = axb_output_create(MPI_COMM_WORLD, &d, &o, &err);
        CHECK_MSG(T, st == AXB_OK, "checkpoint %g: %s", intervals[i], err.msg);
        if (st != AXB_OK) return;
        int64_t rows[NROWS];
        double data[NROWS * NSAMP];
        const int64_t n = my_rows(ROUND_ROBIN, T->rank, size, rows), a = n / 3, b = 2 * n / 3;
        fill(rows, n, 1, data);
        st = axb_output_write(o, a, rows, data, &err);
        if (st == AXB_OK)
            st = axb_output_sync(o, axb_output_write_local(o, b - a, rows + a, data + a * NSAMP, &err), &err);
        if (i == 2) nanosleep(&(struct timespec){0, 300000000}, NULL); /* longer than the interval */
        if (st == AXB_OK) st = axb_output_write(o, n - b, rows + b, data + b * NSAMP, &err);
        CHECK_MSG(T, st == AXB_OK, "checkpoint %g: %s", intervals[i], err.msg);
        CHECK(T, axb_output_close(&o, false, &err) == AXB_OK);
        if (T->rank == 0) {
            const long listed = record_list_bytes(path);
            CHECK_MSG(T, i == 0 ? listed == 0 : listed > 0, "checkpoint %g: %ld bytes of lists recorded", intervals[i],
                      listed);
        }
        uint8_t done[NROWS];
        st = axb_output_resume(MPI_COMM_WORLD, &d, done, &o, &err);
        CHECK_MSG(T, st == AXB_OK, "checkpoint %g: resume: %s", intervals[i], err.msg);
        if (st != AXB_OK) return;
        int64_t ndone = 0;
        for (int64_t r = 0; r < NROWS; r++) ndone += done[r];
        CHECK_MSG(T, ndone == (i == 0 ? 0 : NROWS), "checkpoint %g: %lld rows resumed", intervals[i], (long long)ndone);
        int64_t m = 0;
        for (int64_t k = 0; k < n; k++)
            if (!done[rows[k]]) rows[m++] = rows[k];
        fill(rows, m, 1, data);
        st = axb_output_write(o, m, rows, data, &err);
        CHECK_MSG(T, st == AXB_OK, "checkpoint %g: %s", intervals[i], err.msg);
        st = axb_output_close(&o, true, &err);
        CHECK_MSG(T, st == AXB_OK, "checkpoint %g: commit: %s", intervals[i], err.msg);
        if (T->rank == 0 && st == AXB_OK) check_bulk_file(T, path, &fx, AXB_FLOAT64, "Z");
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char dir[512];
    if (test_scratch_dir(MPI_COMM_WORLD, "output", dir, sizeof dir)) {
        fprintf(stderr, "cannot make a scratch directory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check_helpers(&T);
    write_and_check(&T, dir, "bulk64.h5", AXB_OUT_BULK, AXB_FLOAT64, "ZNERT", ROUND_ROBIN, size);
    write_and_check(&T, dir, "bulk64r.h5", AXB_OUT_BULK, AXB_FLOAT64, "ZNE", REVERSE_BLOCKS, size);
    write_and_check(&T, dir, "bulk32.h5", AXB_OUT_BULK, AXB_FLOAT32, "RTZ", REVERSE_BLOCKS, size);
    write_and_check(&T, dir, "bulk32rr.h5", AXB_OUT_BULK, AXB_FLOAT32, "T", ROUND_ROBIN, size);
    write_and_check(&T, dir, "bulk64l.h5", AXB_OUT_BULK, AXB_FLOAT64, "ZNE", LOCAL_STAGGERED, size);
    write_and_check(&T, dir, "bulk32l.h5", AXB_OUT_BULK, AXB_FLOAT32, "RT", LOCAL_STAGGERED, size);
    write_and_check(&T, dir, "bulk32s.h5", AXB_OUT_BULK, AXB_FLOAT32, "ZNE", LOCAL_ONE_RANK, size);
    write_and_check(&T, dir, "bulk64s.h5", AXB_OUT_BULK, AXB_FLOAT64, "Z", LOCAL_ONE_CALL, size);
    write_and_check(&T, dir, "asdf64.h5", AXB_OUT_ASDF, AXB_FLOAT64, "ZNE", REVERSE_BLOCKS, size);
    write_and_check(&T, dir, "asdf32.h5", AXB_OUT_ASDF, AXB_FLOAT32, "ZRT", ROUND_ROBIN, size);
    check_tag_levels(&T, dir, size);
    check_reserved(&T, dir, size);
    check_many_runs(&T, dir, size);
    check_refusals(&T, dir, size);
    check_resume_site(&T, dir);
    check_checkpoints(&T, dir, size);
    if (getenv("AXB_KEEP_OUTPUT")) {
        if (T.rank == 0) printf("kept %s\n", dir);
    } else {
        test_remove_dir(MPI_COMM_WORLD, dir);
    }
    MPI_Allreduce(MPI_IN_PLACE, &T.failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &T.passed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = check_summary(&T);
    MPI_Finalize();
    return rc;
}
