/* The kernel engine on the real AxiSEM 100 s PREM databases (shared data; skipped, exit 77,
 * without them): one event, one station, a P and an S kernel on every component.
 * - The reference seismogram of every kernel equals `axibulk extract` of the same pair (the
 *   extraction engine, Instaseis' conventions for Z, N, E, R, T) filtered with the same filter,
 *   within 1e-6 of its peak: the backward field's component directions and the reciprocity
 *   contraction agree with the verified extraction.
 * - Original and merged (Instaseis repack) layouts give the same kernels to 1e-9 of the largest
 *   value (the same float32 data, read through different backends).
 * - Run on N ranks, the result is bit-identical to the same job on rank 0 alone, and with the
 *   smallest element cache to the default one.
 * - The original layout's deflated chunks are decoded outside HDF5 (the engine's counter of
 *   decoded chunks), and the kernels are bit-identical with the smallest chunk cache and the
 *   default one, which decodes no more chunks. (These databases have fewer chunks than the
 *   smallest cache's slots; the benchmark measures the cache on the 25 s pair.)
 * - The Monte Carlo error estimate falls when the points per cell grow from 16 to 128.
 * - Per vertex on a tetrahedral mesh (the voxels split in six): the vertex values add up to the
 *   cell values, and they too are identical on N ranks and on one.
 * - The travel-time skip rule: on a grid reaching 170° west of the event, the cells it skips
 *   have values below 1e-3 of the largest when computed anyway, and the cells it keeps are
 *   bit-identical to a run without the rule. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axibulk/db.h"
#include "axibulk/extract.h"
#include "axibulk/filter.h"
#include "axibulk/kernel.h"
#include "check.h"
#include "test_util.h"

static const char *data_dir;

static void path(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/%s", data_dir, rel);
}

static const char COMPS[] = "ZRTNE";

static void make_job(axb_kernel_job *job, axb_receiver *rec, axb_kernel_def *k, bool merged, int64_t points)
{
    axb_kernel_job_defaults(job);
    path(job->fwd_db, sizeof job->fwd_db, merged ? "instaseis-merged/100s_db_fwd" : "axisem-prem-100s/100s_db_fwd");
    path(job->bwd_db, sizeof job->bwd_db,
         merged ? "instaseis-merged/100s_db_bwd_displ_only" : "axisem-prem-100s/100s_db_bwd_displ_only");
    job->event.type = AXB_SRC_MOMENT;
    job->event.lat = 0, job->event.lon = 0, job->event.depth = 12e3;
    const double m[6] = {4.71e17, 3.81e15, -4.74e17, 3.99e16, -8.05e16, -1.23e17};
    memcpy(job->event.m, m, sizeof m);
    *rec = (axb_receiver){.lat = 15, .lon = 12, .depth = 0};
    snprintf(rec->network, sizeof rec->network, "XX");
    snprintf(rec->station, sizeof rec->station, "A");
    job->receivers = rec;
    job->nreceivers = 1;
    for (int c = 0; c < 5; c++)
        for (int w = 0; w < 2; w++) {
            axb_kernel_def *d = k + 2 * c + w;
            memset(d, 0, sizeof *d);
            snprintf(d->name, sizeof d->name, "%c_%s", COMPS[c], w ? "S" : "P");
            d->component = COMPS[c];
            d->filter.kind = AXB_FILTER_LOWPASS;
            d->filter.f1 = 0.006;
            d->filter.order = 4;
            d->filter.zerophase = true;
            d->t1 = w ? 420 : 180;
            d->t2 = w ? 620 : 380;
            d->misfit = w ? AXB_MISFIT_AM : AXB_MISFIT_CC;
            d->params = w ? (1u << AXB_KP_VS | 1u << AXB_KP_RHO) : (1u << AXB_KP_VP | 1u << AXB_KP_VSV);
        }
    job->kernels = k;
    job->nkernels = 10;
    job->mesh.kind = AXB_KMESH_VOXELS;
    job->mesh.grid = (axb_voxel_grid){.lat_min = -4,
                                      .lat_max = 19,
                                      .lon_min = -4,
                                      .lon_max = 16,
                                      .depth_min_km = 20,
                                      .depth_max_km = 340,
                                      .nlat = 5,
                                      .nlon = 4,
                                      .ndepth = 3};
    job->points_per_step = 8;
    job->min_points = job->max_points = points;
}

/* The voxels of the job's grid, each split into six tetrahedra along its main diagonal, as a
 * Sigloch/Nolet vertices + facets pair in @p dir. */
static int write_tet_mesh(const axb_voxel_grid *g, const char *dir, char *vfile, char *ffile, size_t n)
{
    axb_invmesh vox;
    axb_error err = AXB_ERROR_INIT;
    if (axb_invmesh_voxels(g, 6371e3, &vox, &err) != AXB_OK) return -1;
    snprintf(vfile, n, "%s/vertices.mesh", dir);
    snprintf(ffile, n, "%s/facets.mesh", dir);
    FILE *fv = fopen(vfile, "w"), *ff = fopen(ffile, "w");
    if (!fv || !ff) return -1;
    fprintf(fv, "3\n%lld\n", (long long)vox.nvert);
    for (int64_t v = 0; v < vox.nvert; v++)
        fprintf(fv, "%.17g %.17g %.17g\n", vox.vert[3 * v], vox.vert[3 * v + 1], vox.vert[3 * v + 2]);
    static const int TETS[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
    fprintf(ff, "%lld\n", (long long)(6 * vox.ncell));
    for (int64_t c = 0; c < vox.ncell; c++)
        for (int t = 0; t < 6; t++)
            fprintf(ff, "%lld %lld %lld %lld\n", (long long)vox.cell[8 * c + TETS[t][0]],
                    (long long)vox.cell[8 * c + TETS[t][1]], (long long)vox.cell[8 * c + TETS[t][2]],
                    (long long)vox.cell[8 * c + TETS[t][3]]);
    fclose(fv);
    fclose(ff);
    axb_invmesh_free(&vox);
    return 0;
}

static double total_error(const axb_kernel_result *r)
{
    double s = 0;
    for (int64_t q = 0; q < r->ncolumns * r->mesh->ncell; q++) s += r->error[q] * r->error[q];
    return sqrt(s);
}

/* The same pair through the extraction engine, filtered, against the kernels' seismograms. */
static void check_seismograms(check_ctx *T, const axb_kernel_job *job, const axb_kernel_result *r)
{
    axb_error err = AXB_ERROR_INIT;
    axb_db *db = NULL;
    axb_extract_plan *p = NULL;
    axb_extract_opts o = AXB_EXTRACT_OPTS_DEFAULT;
    snprintf(o.components, sizeof o.components, "%s", COMPS);
    axb_status st = axb_db_open(MPI_COMM_SELF, job->bwd_db, &db, &err);
    if (!st) st = axb_extract_plan_create(db, &o, &p, &err);
    CHECK_MSG(T, st == AXB_OK, "extract: %s", err.msg);
    if (st) {
        axb_db_close(&db);
        return;
    }
    const int64_t npts = axb_extract_npts(p);
    CHECK_MSG(T, npts == r->seis_npts, "extract gives %lld samples, the kernel run %lld", (long long)npts,
              (long long)r->seis_npts);
    double *out = malloc(5 * (size_t)npts * sizeof *out);
    /* the event where the forward wavefield has it (AxiSEM moved it to a mesh point) */
    axb_source ev = job->event;
    ev.depth = r->source_depth;
    axb_pair_ref pr = {&ev, job->receivers};
    st = axb_extract_pairs(p, 1, &pr, out, &err);
    CHECK_MSG(T, st == AXB_OK, "extract: %s", err.msg);
    for (int k = 0; !st && k < job->nkernels && npts == r->seis_npts; k++) {
        const axb_kernel_def *d = job->kernels + k;
        double *x = out + (strchr(COMPS, d->component) - COMPS) * npts;
        double *y = malloc((size_t)npts * sizeof *y);
        memcpy(y, x, (size_t)npts * sizeof *y);
        axb_filter_plan *fp = NULL;
        if (axb_filter_plan_create(&d->filter, npts, axb_extract_dt(p), &fp, &err) == AXB_OK)
            CHECK(T, axb_filter_apply(fp, y, &err) == AXB_OK);
        axb_filter_plan_destroy(&fp);
        double peak = 0, diff = 0;
        for (int64_t n = 0; n < npts; n++) {
            peak = fmax(peak, fabs(y[n]));
            diff = fmax(diff, fabs(y[n] - r->seismogram[k * npts + n]));
        }
        CHECK_MSG(T, peak > 0 && diff < 1e-6 * peak, "kernel %s: seismogram differs from extract by %.3g of its peak",
                  d->name, diff / peak);
        free(y);
    }
    free(out);
    axb_extract_plan_destroy(&p);
    axb_db_close(&db);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_ctx T = {0, 0, 0};
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    data_dir = argc > 1 ? argv[1] : "../shared/data";
    char probe[1024];
    struct stat sb;
    path(probe, sizeof probe, "instaseis-merged/100s_db_fwd");
    if (stat(probe, &sb) != 0) {
        if (T.rank == 0) printf("shared data not found at %s: skipped\n", data_dir);
        MPI_Finalize();
        return CHECK_SKIP;
    }
    axb_kernel_job job, jm;
    axb_receiver rec, recm;
    axb_kernel_def k[10], km[10];
    axb_error err = AXB_ERROR_INIT;
    axb_kernel_result a = {0}, b = {0}, c = {0}, e = {0};
    axb_kernel_stats sa = {0}; /* the default run's, for the chunk cache below */
    const axb_kernel_run_opts dflt = {.stats = &sa};
    make_job(&job, &rec, k, false, 16);
    axb_status st = axb_kernel_run(MPI_COMM_WORLD, &job, &dflt, &a, &err);
    CHECK_MSG(&T, st == AXB_OK, "original layout: %s", err.msg);
    make_job(&jm, &recm, km, true, 16);
    if (!st) st = axb_kernel_run(MPI_COMM_WORLD, &jm, NULL, &b, &err);
    CHECK_MSG(&T, st == AXB_OK, "merged layout: %s", err.msg);
    if (st) goto out;
    const int64_t n = a.ncolumns * a.mesh->ncell;
    double vmax = 0, dmax = 0;
    for (int64_t q = 0; q < n; q++) {
        vmax = fmax(vmax, fabs(a.value[q]));
        dmax = fmax(dmax, fabs(a.value[q] - b.value[q]));
    }
    CHECK_MSG(&T, vmax > 0 && dmax <= 1e-9 * vmax, "original vs merged: %.3g of the largest value", dmax / vmax);
    if (T.rank == 0) printf("source depth used: %.3f km (header 12 km)\n", a.source_depth / 1e3);
    /* the element cache at its minimum (two steps' elements): more reads, the same numbers */
    {
        axb_kernel_result tiny = {0};
        const axb_kernel_run_opts small = {.cache_bytes = 1};
        st = axb_kernel_run(MPI_COMM_WORLD, &job, &small, &tiny, &err);
        CHECK_MSG(&T, st == AXB_OK, "smallest cache: %s", err.msg);
        if (!st)
            CHECK_MSG(&T, memcmp(a.value, tiny.value, (size_t)n * sizeof *a.value) == 0,
                      "the cache size changed the kernels");
        axb_kernel_result_free(&tiny);
    }
    /* the chunk cache at its minimum against the default (run a): the same numbers, no fewer decodes */
    {
        axb_kernel_result r1 = {0};
        axb_kernel_stats s1 = {0};
        const axb_kernel_stats *s2 = &sa;
        const axb_kernel_run_opts few = {.chunk_cache_bytes = 1, .stats = &s1};
        st = axb_kernel_run(MPI_COMM_WORLD, &job, &few, &r1, &err);
        CHECK_MSG(&T, st == AXB_OK, "smallest chunk cache: %s", err.msg);
        if (!st) {
            CHECK_MSG(&T, memcmp(a.value, r1.value, (size_t)n * sizeof *a.value) == 0,
                      "the smallest chunk cache changed the kernels");
            if (T.rank == 0) {
                printf("chunks decoded (forward, backward): smallest cache %lld, %lld; default %lld, %lld\n",
                       (long long)s1.chunks_decoded[0], (long long)s1.chunks_decoded[1],
                       (long long)s2->chunks_decoded[0], (long long)s2->chunks_decoded[1]);
                for (int d = 0; d < 2; d++)
                    CHECK_MSG(&T, s2->chunks_decoded[d] > 0 && s2->chunks_decoded[d] <= s1.chunks_decoded[d],
                              "database %d: %lld chunks decoded with the default cache, %lld with the smallest", d,
                              (long long)s2->chunks_decoded[d], (long long)s1.chunks_decoded[d]);
            }
        }
        axb_kernel_result_free(&r1);
    }
    if (T.rank == 0) {
        check_seismograms(&T, &job, &a);
        if (size > 1) {
            st = axb_kernel_run(MPI_COMM_SELF, &job, NULL, &c, &err);
            CHECK_MSG(&T, st == AXB_OK, "one rank: %s", err.msg);
            if (!st) {
                CHECK_MSG(&T, memcmp(a.value, c.value, (size_t)n * sizeof *a.value) == 0,
                          "%d ranks and one rank differ", size);
                CHECK(&T, memcmp(a.error, c.error, (size_t)n * sizeof *a.error) == 0);
                CHECK(&T, memcmp(a.npoints, c.npoints, (size_t)a.mesh->ncell * sizeof *a.npoints) == 0);
            }
        }
    }
    /* per vertex (hat functions) on a tetrahedral mesh: with the same points in every cell, the
     * vertex values add up to the cell values' sum, column by column */
    char tmp[512], vfile[700], ffile[700];
    CHECK(&T, test_scratch_dir(MPI_COMM_WORLD, "kengine", tmp, sizeof tmp) == 0);
    if (T.rank == 0) CHECK(&T, write_tet_mesh(&job.mesh.grid, tmp, vfile, ffile, sizeof vfile) == 0);
    MPI_Bcast(vfile, (int)sizeof vfile, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(ffile, (int)sizeof ffile, MPI_CHAR, 0, MPI_COMM_WORLD);
    axb_kernel_result tc = {0}, tv = {0}, tv1 = {0};
    job.mesh.kind = AXB_KMESH_TET;
    snprintf(job.mesh.path, sizeof job.mesh.path, "%s", vfile);
    snprintf(job.mesh.facets, sizeof job.mesh.facets, "%s", ffile);
    job.min_points = job.max_points = 8;
    st = axb_kernel_run(MPI_COMM_WORLD, &job, NULL, &tc, &err);
    CHECK_MSG(&T, st == AXB_OK, "tetrahedra per cell: %s", err.msg);
    job.per_vertex = true;
    if (!st) st = axb_kernel_run(MPI_COMM_WORLD, &job, NULL, &tv, &err);
    CHECK_MSG(&T, st == AXB_OK, "tetrahedra per vertex: %s", err.msg);
    if (!st) {
        for (int col = 0; col < tc.ncolumns; col++) {
            double sc = 0, sv = 0, scale = 0;
            for (int64_t i = 0; i < tc.mesh->ncell; i++) sc += tc.value[col * tc.mesh->ncell + i];
            for (int64_t i = 0; i < tv.mesh->nvert; i++) {
                sv += tv.value[col * tv.mesh->nvert + i];
                scale = fmax(scale, fabs(tv.value[col * tv.mesh->nvert + i]));
            }
            CHECK_MSG(&T, fabs(sc - sv) <= 1e-10 * scale * (double)tv.mesh->nvert,
                      "column %s: cells sum to %.10g, vertices to %.10g", tc.columns[col].name, sc, sv);
            CHECK_CLOSE(&T, tc.integral[col], sc, 1e-12 * fabs(sc));
        }
        if (T.rank == 0 && size > 1) {
            st = axb_kernel_run(MPI_COMM_SELF, &job, NULL, &tv1, &err);
            CHECK_MSG(&T, st == AXB_OK, "per vertex, one rank: %s", err.msg);
            if (!st)
                CHECK_MSG(&T,
                          memcmp(tv.value, tv1.value, (size_t)(tv.ncolumns * tv.mesh->nvert) * sizeof *tv.value) == 0,
                          "per-vertex values differ between %d ranks and one", size);
        }
    }
    axb_kernel_result_free(&tc);
    axb_kernel_result_free(&tv);
    axb_kernel_result_free(&tv1);
    test_remove_dir(MPI_COMM_WORLD, tmp);

    /* the travel-time skip rule, on and off: a P kernel (window ends 380 s) on cells up to 170°
     * west of the event, where nothing arrives before ~1400 s */
    {
        axb_kernel_job sj;
        axb_receiver srec;
        axb_kernel_def sk[10];
        make_job(&sj, &srec, sk, false, 16);
        sj.nkernels = 1; /* Z_P */
        sj.mesh.grid = (axb_voxel_grid){.lat_min = -4,
                                        .lat_max = 19,
                                        .lon_min = -170,
                                        .lon_max = 30,
                                        .depth_min_km = 20,
                                        .depth_max_km = 340,
                                        .nlat = 2,
                                        .nlon = 20,
                                        .ndepth = 1};
        axb_kernel_result on = {0}, off = {0};
        axb_kernel_stats ss = {0};
        const axb_kernel_run_opts so = {.stats = &ss};
        st = axb_kernel_run(MPI_COMM_WORLD, &sj, &so, &on, &err);
        CHECK_MSG(&T, st == AXB_OK, "skip rule on: %s", err.msg);
        sj.travel_time_skip = false;
        if (!st) st = axb_kernel_run(MPI_COMM_WORLD, &sj, NULL, &off, &err);
        CHECK_MSG(&T, st == AXB_OK, "skip rule off: %s", err.msg);
        if (!st) {
            const int64_t nc = on.mesh->ncell;
            double big = 0, skipped_max = 0;
            int64_t nskip = 0;
            for (int col = 0; col < on.ncolumns; col++)
                for (int64_t i = 0; i < nc; i++) big = fmax(big, fabs(off.value[col * nc + i]));
            for (int64_t i = 0; i < nc; i++) {
                if (on.npoints[i] == 0) {
                    nskip++;
                    for (int col = 0; col < on.ncolumns; col++) {
                        skipped_max = fmax(skipped_max, fabs(off.value[col * nc + i]));
                        CHECK(&T, on.value[col * nc + i] == 0 && on.error[col * nc + i] == 0);
                    }
                } else {
                    for (int col = 0; col < on.ncolumns; col++)
                        CHECK_MSG(&T, on.value[col * nc + i] == off.value[col * nc + i],
                                  "cell %lld kept by the skip rule differs from the run without it", (long long)i);
                }
            }
            if (T.rank == 0)
                printf("skip rule: %lld of %lld cells skipped (%lld cell-channels counted), their largest value "
                       "without the rule %.3g of the largest\n",
                       (long long)nskip, (long long)nc, (long long)ss.channel_cells_skipped, skipped_max / big);
            CHECK_MSG(&T, nskip >= 8 && nskip < nc, "%lld of %lld cells skipped", (long long)nskip, (long long)nc);
            if (T.rank == 0) CHECK(&T, ss.channel_cells_skipped == nskip);
            CHECK_MSG(&T, big > 0 && skipped_max <= 1e-3 * big, "a skipped cell holds %.3g of the largest value",
                      skipped_max / big);
        }
        axb_kernel_result_free(&on);
        axb_kernel_result_free(&off);
    }

    /* more points, smaller error estimate */
    make_job(&job, &rec, k, false, 128);
    st = axb_kernel_run(MPI_COMM_WORLD, &job, NULL, &e, &err);
    CHECK_MSG(&T, st == AXB_OK, "128 points: %s", err.msg);
    if (!st) {
        const double e16 = total_error(&a), e32 = total_error(&e);
        if (T.rank == 0) printf("error estimate: 16 points %.4g, 128 points %.4g\n", e16, e32);
        CHECK_MSG(&T, e32 < 0.7 * e16, "error estimate did not fall: %.4g -> %.4g", e16, e32);
    }
out:
    axb_kernel_result_free(&a);
    axb_kernel_result_free(&b);
    axb_kernel_result_free(&c);
    axb_kernel_result_free(&e);
    return test_finish_mpi(&T);
}
