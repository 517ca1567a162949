#include "support/kernel_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KFIX_NPTS 7

/* irregular, reproducible, every mantissa bit in use */
static double wiggle(int a, int64_t b)
{
    return sin(1.3 * a + 0.7 * (double)b + 0.1) * pow(10.0, -(double)(a % 4));
}

static void make_job(kfix *f)
{
    axb_kernel_job *j = &f->job;
    memset(j, 0, sizeof *j);
    snprintf(j->fwd_db, sizeof j->fwd_db, "/data/fwd");
    snprintf(j->bwd_db, sizeof j->bwd_db, "/data/bwd");
    j->event.type = AXB_SRC_MOMENT;
    j->event.lat = 12.5;
    j->event.lon = -33.25;
    j->event.depth = 15000.0;
    const double m[6] = {1.1e19, -2.2e19, 1.1e19, 3.3e18, -4.4e18, 5.5e18};
    memcpy(j->event.m, m, sizeof m);
    snprintf(j->event.name, sizeof j->event.name, "ev1");
    f->rec[0] = (axb_receiver){.lat = 40.0, .lon = 10.0, .depth = 0.0};
    snprintf(f->rec[0].network, 8, "XX");
    snprintf(f->rec[0].station, 8, "STA1");
    f->rec[1] = (axb_receiver){.lat = -20.5, .lon = 150.25, .depth = 100.0};
    snprintf(f->rec[1].network, 8, "YY");
    snprintf(f->rec[1].station, 8, "B2");
    snprintf(f->rec[1].location, 8, "00");
    j->receivers = f->rec;
    j->nreceivers = 2;

    axb_kernel_def *d = f->def;
    memset(d, 0, 2 * sizeof *d);
    snprintf(d[0].name, sizeof d[0].name, "P30");
    d[0].receiver = 0;
    d[0].component = 'Z';
    d[0].filter = (axb_filter_spec){.kind = AXB_FILTER_BANDPASS, .f1 = 0.01, .f2 = 0.02, .order = 4, .zerophase = true};
    d[0].t1 = 300.0;
    d[0].t2 = 340.0;
    d[0].misfit = AXB_MISFIT_CC;
    d[0].params = 1u << AXB_KP_VP | 1u << AXB_KP_VS;
    snprintf(d[1].name, sizeof d[1].name, "S40_am");
    d[1].receiver = 1;
    d[1].component = 'T';
    d[1].filter = (axb_filter_spec){.kind = AXB_FILTER_LOGGABOR, .period = 40.0, .width = 0.5};
    d[1].t1 = 600.0;
    d[1].t2 = 700.0;
    d[1].misfit = AXB_MISFIT_AM;
    d[1].params = 1u << AXB_KP_RHO;
    j->kernels = d;
    j->nkernels = 2;
    j->stf = AXB_KSTF_DATABASE;
    j->points = AXB_KPOINTS_SOBOL;
    j->points_per_step = 8;
    j->max_points = 512;
    j->min_points = 16;
    j->abs_error = 1e-3;
    j->rel_error = 1e-2;
    j->mask_source_receiver = true;
    j->damp_radius = 50e3;
}

/* six vertices near the surface, three tetrahedra sharing faces */
static int make_tets(axb_invmesh *m)
{
    static const double v[6][3] = {{6.0e6, 0.0, 0.0},      {6.1e6, 1.0e5, 0.0},   {6.0e6, 1.2e5, 0.9e5},
                                   {6.05e6, 0.3e5, 1.1e5}, {6.2e6, 0.7e5, 1.4e5}, {5.9e6, 1.5e5, 1.6e5}};
    static const int64_t c[3][4] = {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}};
    memset(m, 0, sizeof *m);
    m->type = AXB_CELL_TET;
    m->nvert = 6;
    m->ncell = 3;
    m->vert = malloc(sizeof v);
    m->cell = malloc(sizeof c);
    if (!m->vert || !m->cell) return 1;
    /* irregular low bits, so coordinates are not round numbers either */
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 3; k++) m->vert[3 * i + k] = v[i][k] + wiggle(i, k);
    memcpy(m->cell, c, sizeof c);
    return 0;
}

int kfix_make(kfix *f, kfix_kind kind)
{
    memset(f, 0, sizeof *f);
    make_job(f);
    axb_error err = AXB_ERROR_INIT;
    if (kind == KFIX_VOXELS) {
        const axb_voxel_grid g = {.lat_min = 10,
                                  .lat_max = 14,
                                  .lon_min = -35,
                                  .lon_max = -30,
                                  .depth_min_km = 0,
                                  .depth_max_km = 200,
                                  .nlat = 2,
                                  .nlon = 3,
                                  .ndepth = 2};
        if (axb_invmesh_voxels(&g, 6371000.0, &f->mesh, &err) != AXB_OK) {
            fprintf(stderr, "kfix: %s\n", err.msg);
            return 1;
        }
    } else if (make_tets(&f->mesh)) {
        return 1;
    }
    f->job.per_vertex = kind == KFIX_TET_VERTICES;
    f->job.mesh.kind = kind == KFIX_VOXELS ? AXB_KMESH_VOXELS : AXB_KMESH_TET;

    static const struct {
        const char *name;
        int kernel;
        axb_kparam p;
    } cols[3] = {{"P30_vp", 0, AXB_KP_VP}, {"P30_vs", 0, AXB_KP_VS}, {"S40_am_rho", 1, AXB_KP_RHO}};
    for (int c = 0; c < 3; c++) {
        snprintf(f->col[c].name, sizeof f->col[c].name, "%s", cols[c].name);
        f->col[c].kernel = cols[c].kernel;
        f->col[c].param = cols[c].p;
    }
    axb_kernel_result *r = &f->res;
    r->mesh = &f->mesh;
    r->per_vertex = f->job.per_vertex;
    r->ncolumns = 3;
    r->columns = f->col;
    const int64_t ncell = f->mesh.ncell, nitems = r->per_vertex ? f->mesh.nvert : ncell;
    r->value = malloc((size_t)(3 * nitems) * sizeof *r->value);
    r->error = malloc((size_t)(3 * nitems) * sizeof *r->error);
    r->integral = calloc(3, sizeof *r->integral);
    r->npoints = malloc((size_t)ncell * sizeof *r->npoints);
    r->volume = malloc((size_t)ncell * sizeof *r->volume);
    r->nkernels = 2;
    r->seis_npts = KFIX_NPTS;
    r->seis_dt = 0.25;
    r->seismogram = malloc(2 * KFIX_NPTS * sizeof *r->seismogram);
    r->velocity = malloc(2 * KFIX_NPTS * sizeof *r->velocity);
    if (!r->value || !r->error || !r->integral || !r->npoints || !r->volume || !r->seismogram || !r->velocity) return 1;
    for (int c = 0; c < 3; c++)
        for (int64_t i = 0; i < nitems; i++) {
            /* signed values, as kernels have, so a colour map centred on 0 shows both signs */
            r->value[c * nitems + i] = wiggle(c + 1, i) * 1e-3;
            r->error[c * nitems + i] = fabs(wiggle(c + 5, i)) * 1e-5;
            r->integral[c] += r->value[c * nitems + i];
        }
    for (int64_t i = 0; i < ncell; i++) {
        r->npoints[i] = 16 + 8 * (i % 5);
        r->volume[i] = axb_invmesh_cell_volume(&f->mesh, i);
    }
    for (int i = 0; i < 2 * KFIX_NPTS; i++) {
        r->seismogram[i] = wiggle(9, i) * 1e-6;
        r->velocity[i] = wiggle(10, i) * 1e-7;
    }
    r->fwd_db = "/data/fwd";
    r->bwd_db = "/data/bwd";
    r->source_depth = 15000.0;
    r->seconds = 12.75;
    r->nranks = 3;
    return 0;
}

void kfix_free(kfix *f)
{
    axb_kernel_result *r = &f->res;
    free(r->value);
    free(r->error);
    free(r->integral);
    free(r->npoints);
    free(r->volume);
    free(r->seismogram);
    free(r->velocity);
    axb_invmesh_free(&f->mesh);
    memset(f, 0, sizeof *f);
}

static void put_array(FILE *out, const char *center, const char *name, int64_t n, const double *v)
{
    fprintf(out, "%s %s", center, name);
    for (int64_t i = 0; i < n; i++) fprintf(out, " %.17g", v[i]);
    fputc('\n', out);
}

int kfix_write_expected(const kfix *f, FILE *out)
{
    const axb_invmesh *m = &f->mesh;
    const axb_kernel_result *r = &f->res;
    const int nv = axb_cell_nvert(m->type);
    const int64_t nitems = r->per_vertex ? m->nvert : m->ncell;
    const char *center = r->per_vertex ? "node" : "cell";
    fprintf(out, "cells %lld\nvertices %lld\ncell_type %d\n", (long long)m->ncell, (long long)m->nvert,
            m->type == AXB_CELL_TET ? 10 : 12);
    fputs("xyz", out);
    for (int64_t i = 0; i < 3 * m->nvert; i++) fprintf(out, " %.17g", m->vert[i]);
    fputs("\nconnectivity", out);
    for (int64_t i = 0; i < nv * m->ncell; i++) fprintf(out, " %lld", (long long)m->cell[i]);
    fputc('\n', out);
    for (int c = 0; c < r->ncolumns; c++) {
        char name[128];
        put_array(out, center, r->columns[c].name, nitems, r->value + c * nitems);
        snprintf(name, sizeof name, "%s_error", r->columns[c].name);
        put_array(out, center, name, nitems, r->error + c * nitems);
    }
    double *pts = malloc((size_t)m->ncell * sizeof *pts);
    if (!pts) return 1;
    for (int64_t i = 0; i < m->ncell; i++) pts[i] = (double)r->npoints[i];
    put_array(out, "cell", "points", m->ncell, pts);
    free(pts);
    put_array(out, "cell", "volume", m->ncell, r->volume);
    return ferror(out) ? 1 : 0;
}
