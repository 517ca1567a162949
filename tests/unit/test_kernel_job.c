/* Kernel job files (axb_kernel_job_read): every mesh kind and option read into the right field,
 * paths resolved against the job's folder, defaults, and every refusal as one line naming the job
 * file, the line and the key. The job and its small input files are written into a temporary
 * folder. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axibulk/kernel_job.h"
#include "check.h"

static char dir[] = "/tmp/axb-kjob-XXXXXX";

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const char cmt_one[] = " PDE 2014  1  5  0  0  0.00  89.9100    0.0000  12.0 5.7 5.7 TEST\n"
                              "event name:     EXAMPLE_A\n"
                              "time shift:      0.0000\n"
                              "half duration:   1.0000\n"
                              "latitude:       89.9100\n"
                              "longitude:       0.0000\n"
                              "depth:          12.0000\n"
                              "Mrr:       4.710000e+24\n"
                              "Mtt:       3.810000e+22\n"
                              "Mpp:      -4.740000e+24\n"
                              "Mrt:       3.990000e+23\n"
                              "Mrp:      -8.050000e+23\n"
                              "Mtp:      -1.230000e+24\n";

static const char stations[] = "ANMO IU  34.9459 -106.4572 1850.0 0.0\n"
                               "BFO  II  48.3301    8.3296  589.0 0.0\n"
                               "DUP  XX  10.0       10.0      0.0 0.0\n"
                               "DUP  XX  11.0       10.0      0.0 0.0\n";

/* Lines 1-19 the job's options, 20-48 three kernels. */
static const char good[] = "forward-db: dbs/fwd\n"   /* 1 */
                           "backward-db: /abs/bwd\n" /* 2 */
                           "event: CMTSOLUTION\n"    /* 3 */
                           "receivers: STATIONS\n"   /* 4 */
                           "mesh:\n"                 /* 5 */
                           "  voxels: {lat: [-10, 10], lon: [0, 40], depth-km: [0, 700], counts: [10, 20, 7]}\n"
                           "values: cells\n"              /* 7 */
                           "perturbations: absolute\n"    /* 8 */
                           "stf: deconvolve\n"            /* 9 */
                           "points: sobol\n"              /* 10 */
                           "points-per-step: 4\n"         /* 11 */
                           "max-points: 1000\n"           /* 12 */
                           "min-points: 32\n"             /* 13 */
                           "abs-error: 2e-3\n"            /* 14 */
                           "rel_error: 0.05\n"            /* 15 */
                           "mask-source-receiver: true\n" /* 16 */
                           "damp-radius-km: 50\n"         /* 17 */
                           "output: out/k.h5\n"           /* 18 */
                           "kernels:\n"                   /* 19 */
                           "  - name: P_Z_40s\n"          /* 20 */
                           "    receiver: IU.ANMO\n"      /* 21 */
                           "    component: Z\n"           /* 22 */
                           "    bandpass: 0.01,0.025\n"   /* 23 */
                           "    filter-order: 6\n"        /* 24 */
                           "    zerophase: true\n"        /* 25 */
                           "    window: [300, 360]\n"     /* 26 */
                           "    misfit: cc\n"             /* 27 */
                           "    parameters: [vp, vs]\n"   /* 28 */
                           "  - name: S_T\n"              /* 29 */
                           "    receiver: II.BFO\n"       /* 30 */
                           "    component: t\n"           /* 31 */
                           "    loggabor: 40,0.5\n"       /* 32 */
                           "    window: [500.5, 600]\n"   /* 33 */
                           "    misfit: AM\n"             /* 34 */
                           "    parameters: rho\n"        /* 35 */
                           "  - name: lp\n"               /* 36 */
                           "    receiver: IU.ANMO\n"      /* 37 */
                           "    component: N\n"           /* 38 */
                           "    lowpass: 0.02\n"          /* 39 */
                           "    window: [1, 2]\n"         /* 40 */
                           "    misfit: cc\n"             /* 41 */
                           "    parameters: [vph, vpv, vsh, vsv, eta, lambda, mu]\n";

/* @p base with the first occurrence of @p from replaced by @p to (the whole of base if from is
 * NULL), written as the job file; returns its path. */
static const char *make_job(const char *base, const char *from, const char *to)
{
    static char path[512];
    static char text[8192];
    const char *at = from ? strstr(base, from) : NULL;
    if (from && !at) {
        fprintf(stderr, "test bug: '%s' not in the job\n", from);
        exit(1);
    }
    if (at)
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
    else
        snprintf(text, sizeof text, "%s", base);
    write_file("job.yaml", text);
    snprintf(path, sizeof path, "%s/job.yaml", dir);
    return path;
}

static bool job_is_empty(const axb_kernel_job *job)
{
    return job->kernels == NULL && job->nkernels == 0 && job->receivers == NULL && job->nreceivers == 0;
}

static void test_good(check_ctx *T)
{
    axb_kernel_job job;
    axb_error err = AXB_ERROR_INIT;
    char want[600];
    const char *path = make_job(good, NULL, NULL);
    CHECK_MSG(T, axb_kernel_job_read(path, &job, &err) == AXB_OK, "%s", err.msg);
    snprintf(want, sizeof want, "%s/dbs/fwd", dir);
    CHECK_STR(T, job.fwd_db, want);
    CHECK_STR(T, job.bwd_db, "/abs/bwd");
    snprintf(want, sizeof want, "%s/out/k.h5", dir);
    CHECK_STR(T, job.output, want);
    /* the event: depth in m, moments in N·m (1 dyne·cm = 1e-7 N·m) */
    CHECK(T, job.event.type == AXB_SRC_MOMENT);
    CHECK_CLOSE(T, job.event.depth, 12000.0, 1e-9);
    CHECK_CLOSE(T, job.event.m[0], 4.71e17, 1e3);
    CHECK_CLOSE(T, job.event.m[5], -1.23e17, 1e3);
    CHECK_CLOSE(T, job.event.lon, 0.0, 1e-12);
    CHECK(T, job.nreceivers == 4);
    CHECK(T, job.mesh.kind == AXB_KMESH_VOXELS);
    const axb_voxel_grid *g = &job.mesh.grid;
    CHECK(T, g->lat_min == -10 && g->lat_max == 10 && g->lon_min == 0 && g->lon_max == 40);
    CHECK(T, g->depth_min_km == 0 && g->depth_max_km == 700);
    CHECK(T, g->nlat == 10 && g->nlon == 20 && g->ndepth == 7);
    CHECK(T, !job.per_vertex);
    CHECK(T, job.absolute);
    CHECK(T, job.stf == AXB_KSTF_DECONVOLVE);
    CHECK(T, job.points == AXB_KPOINTS_SOBOL);
    CHECK(T, job.points_per_step == 4 && job.max_points == 1000 && job.min_points == 32);
    CHECK(T, job.abs_error == 2e-3 && job.rel_error == 0.05);
    CHECK(T, job.mask_source_receiver);
    CHECK(T, job.damp_radius == 50e3);
    CHECK(T, job.nkernels == 3);
    if (job.nkernels == 3) {
        const axb_kernel_def *a = &job.kernels[0], *b = &job.kernels[1], *c = &job.kernels[2];
        CHECK_STR(T, a->name, "P_Z_40s");
        CHECK(T, a->receiver == 0 && a->component == 'Z');
        CHECK(T, a->filter.kind == AXB_FILTER_BANDPASS && a->filter.f1 == 0.01 && a->filter.f2 == 0.025);
        CHECK(T, a->filter.order == 6 && a->filter.zerophase && !a->filter.bilinear);
        CHECK(T, a->t1 == 300 && a->t2 == 360 && a->misfit == AXB_MISFIT_CC);
        CHECK(T, a->params == ((1u << AXB_KP_VP) | (1u << AXB_KP_VS)));
        CHECK_STR(T, b->name, "S_T");
        CHECK(T, b->receiver == 1 && b->component == 'T');
        CHECK(T, b->filter.kind == AXB_FILTER_LOGGABOR && b->filter.period == 40 && b->filter.width == 0.5);
        CHECK(T, b->filter.order == 4 && !b->filter.zerophase);
        CHECK(T, b->t1 == 500.5 && b->t2 == 600 && b->misfit == AXB_MISFIT_AM);
        CHECK(T, b->params == 1u << AXB_KP_RHO);
        CHECK(T, c->receiver == 0 && c->component == 'N');
        CHECK(T, c->filter.kind == AXB_FILTER_LOWPASS && c->filter.f1 == 0.02);
        CHECK(T,
              c->params ==
                  ((1u << AXB_KP_VPH) | (1u << AXB_KP_VPV) | (1u << AXB_KP_VSH) | (1u << AXB_KP_VSV) |
                   (1u << AXB_KP_ETA) | (1u << AXB_KP_LAMBDA) | (1u << AXB_KP_MU)));
    }
    axb_kernel_job_free(&job);
    CHECK(T, job_is_empty(&job) && job.event.sliprate == NULL);
    axb_kernel_job_free(&job); /* twice is harmless */

    /* the file meshes, values per vertex, and a bandpass given as a list */
    const char *vox = "  voxels: {lat: [-10, 10], lon: [0, 40], depth-km: [0, 700], counts: [10, 20, 7]}\n";
    struct {
        const char *mesh;
        axb_kernel_mesh_kind kind;
        const char *path, *facets;
    } meshes[] = {
        {"  tetrahedra: {vertices: v.dat, facets: sub/f.dat}\n", AXB_KMESH_TET, "v.dat", "sub/f.dat"},
        {"  abaqus: mesh.inp\n", AXB_KMESH_ABAQUS, "mesh.inp", NULL},
        {"  gmsh:  mesh.msh\n", AXB_KMESH_GMSH, "mesh.msh", NULL},
    };
    for (int i = 0; i < 3; i++) {
        char text[8192];
        snprintf(text, sizeof text, "%s", good);
        char *at = strstr(text, vox), tail[8192];
        snprintf(tail, sizeof tail, "%s", at + strlen(vox));
        snprintf(at, sizeof text - (size_t)(at - text), "%s%s", meshes[i].mesh, tail);
        path = make_job(text, "values: cells", "values: vertices");
        CHECK_MSG(T, axb_kernel_job_read(path, &job, &err) == AXB_OK, "%s", err.msg);
        CHECK(T, job.mesh.kind == meshes[i].kind && job.per_vertex);
        snprintf(want, sizeof want, "%s/%s", dir, meshes[i].path);
        CHECK_STR(T, job.mesh.path, want);
        if (meshes[i].facets) {
            snprintf(want, sizeof want, "%s/%s", dir, meshes[i].facets);
            CHECK_STR(T, job.mesh.facets, want);
        }
        axb_kernel_job_free(&job);
    }
    path = make_job(good, "bandpass: 0.01,0.025", "bandpass: [0.01, 0.025]");
    CHECK_MSG(T, axb_kernel_job_read(path, &job, &err) == AXB_OK, "%s", err.msg);
    CHECK(T, job.nkernels == 3 && job.kernels[0].filter.f1 == 0.01 && job.kernels[0].filter.f2 == 0.025);
    axb_kernel_job_free(&job);

    /* defaults: only the required keys; the default output sits beside the job */
    const char *minimal = "forward-db: f\nbackward-db: b\nevent: CMTSOLUTION\nreceivers: STATIONS\n"
                          "mesh: {voxels: {lat: [0, 1], lon: [0, 1], depth-km: [0, 100], counts: [1, 1, 1]}}\n"
                          "kernels:\n  - {name: k, receiver: IU.ANMO, component: Z, lowpass: 0.01, window: [0, 1], "
                          "misfit: cc, parameters: vs}\n";
    path = make_job(minimal, NULL, NULL);
    CHECK_MSG(T, axb_kernel_job_read(path, &job, &err) == AXB_OK, "%s", err.msg);
    snprintf(want, sizeof want, "%s/kernels.h5", dir);
    CHECK_STR(T, job.output, want);
    CHECK(T, job.stf == AXB_KSTF_DATABASE && job.points == AXB_KPOINTS_HALTON && job.points_per_step == 8);
    CHECK(T, job.max_points == 512 && job.min_points == 16 && job.abs_error == 1e-3 && job.rel_error == 1e-2);
    CHECK(T, !job.absolute && !job.per_vertex && !job.mask_source_receiver && job.damp_radius == 0);
    CHECK(T, job.nkernels == 1 && job.kernels[0].filter.order == 4 && !job.kernels[0].filter.zerophase);
    axb_kernel_job_free(&job);

    axb_kernel_job_defaults(&job);
    CHECK_STR(T, job.output, "kernels.h5");
    CHECK(T, job.points_per_step == 8 && job.max_points == 512 && job.min_points == 16 && job_is_empty(&job));
    CHECK(T, job.mesh.kind == AXB_KMESH_VOXELS && job.stf == AXB_KSTF_DATABASE && !job.absolute);
}

/* The job @p good with @p from replaced by @p to must be refused with AXB_ERR_ARG or
 * AXB_ERR_FORMAT (or @p code if not 0), a message holding the job's path and @p frag, and an empty
 * job. */
static void refuse_base(check_ctx *T, const char *base, const char *from, const char *to, const char *frag,
                        axb_status code)
{
    const char *path = make_job(base, from, to);
    axb_kernel_job job;
    axb_error err = AXB_ERROR_INIT;
    const axb_status st = axb_kernel_job_read(path, &job, &err);
    if (code)
        CHECK_MSG(T, st == code, "'%s' -> '%s': status %d (%s)", from, to, (int)st, err.msg);
    else
        CHECK_MSG(T, st == AXB_ERR_ARG || st == AXB_ERR_FORMAT, "'%s' -> '%s': status %d (%s)", from, to, (int)st,
                  err.msg);
    CHECK_CONTAINS(T, err.msg, path);
    CHECK_CONTAINS(T, err.msg, frag);
    CHECK(T, strchr(err.msg, '\n') == NULL);
    CHECK(T, job_is_empty(&job));
    axb_kernel_job_free(&job);
}

static void refuse_code(check_ctx *T, const char *from, const char *to, const char *frag, axb_status code)
{
    refuse_base(T, good, from, to, frag, code);
}

/* The job with its kernels list replaced by @p kernels. */
static void refuse_kernels(check_ctx *T, const char *kernels, const char *frag)
{
    char text[8192];
    snprintf(text, sizeof text, "%.*s%s", (int)(strstr(good, "kernels:\n") - good), good, kernels);
    refuse_base(T, text, NULL, NULL, frag, AXB_OK);
}

static void refuse(check_ctx *T, const char *from, const char *to, const char *frag)
{
    refuse_code(T, from, to, frag, AXB_OK);
}

static void test_refusals(check_ctx *T)
{
    /* unknown keys, at their line */
    refuse(T, "output: out/k.h5\n", "output: out/k.h5\ncolour: blue\n", "job.yaml:19: unknown key 'colour' in the job");
    refuse(T, "    misfit: AM\n", "    misfit: AM\n    colour: red\n", ":35: unknown key 'colour' in kernel 'S_T'");
    refuse(T, "counts: [10, 20, 7]", "count: [10, 20, 7]", ":6: unknown key 'count' in mesh: voxels");
    /* missing required keys */
    refuse(T, "forward-db: dbs/fwd\n", "", "missing key 'forward-db' in the job");
    refuse(T, "backward-db: /abs/bwd\n", "", "missing key 'backward-db'");
    refuse(T, "event: CMTSOLUTION\n", "", "missing key 'event'");
    refuse(T, "receivers: STATIONS\n", "", "missing key 'receivers'");
    refuse(T, "mesh:\n  voxels", "meshes:\n  voxels", "unknown key 'meshes'");
    refuse(T, "kernels:\n", "kernelz:\n", "unknown key 'kernelz'");
    refuse(T, "    window: [1, 2]\n", "", "missing key 'window' in kernel 'lp'");
    refuse(T, "    misfit: cc\n    parameters: [vph", "    parameters: [vph", "missing key 'misfit' in kernel 'lp'");
    refuse(T, "  - name: lp\n", "  - nam: lp\n", "missing key 'name' in kernel 3");
    refuse(T, "counts: [10, 20, 7]", "", "missing key 'counts' in mesh: voxels");
    /* wrong types */
    refuse(T, "window: [300, 360]", "window: 300", ":26: key 'window': expected a list, found a text");
    refuse(T, "mesh:\n  voxels: {lat: [-10, 10], lon: [0, 40], depth-km: [0, 700], counts: [10, 20, 7]}",
           "mesh: mesh.msh", ":5: key 'mesh': expected a mapping, found a text");
    refuse_kernels(T, "kernels: {a: 1}\n", ":19: key 'kernels': expected a list, found a mapping");
    refuse_kernels(T, "kernels:\n  - lp\n", ":20: key 'kernels': expected a mapping, found a text");
    refuse(T, "max-points: 1000", "max-points: many", ":12: key 'max-points': 'many' is not an integer");
    refuse(T, "abs-error: 2e-3", "abs-error: [1]", ":14: key 'abs-error': expected a text, found a list");
    refuse(T, "mask-source-receiver: true", "mask-source-receiver: maybe", "'maybe' is not true or false");
    refuse(T, "forward-db: dbs/fwd", "forward-db: ''", ":1: key 'forward-db': empty value");
    /* unknown parameter, component, misfit and choices */
    refuse(T, "parameters: rho", "parameters: density", ":35: key 'parameters': unknown parameter 'density'");
    refuse(T, "parameters: [vp, vs]", "parameters: [vp, vp]", "'vp' given twice");
    refuse(T, "parameters: [vp, vs]", "parameters: []", "key 'parameters': empty list");
    refuse(T, "component: t", "component: X", ":31: key 'component': unknown component 'X'");
    refuse(T, "component: t", "component: ZN", "unknown component 'ZN'");
    refuse(T, "misfit: AM", "misfit: l2", ":34: key 'misfit': unknown value 'l2' (expected cc or am)");
    refuse(T, "stf: deconvolve", "stf: ricker", "key 'stf': unknown value 'ricker'");
    refuse(T, "points: sobol", "points: random", "key 'points': unknown value 'random'");
    refuse(T, "values: cells", "values: faces", "key 'values': unknown value 'faces'");
    refuse(T, "perturbations: absolute", "perturbations: log", "key 'perturbations'");
    refuse(T, "values: cells", "values: vertices", ":7: key 'values': 'vertices' needs a tetrahedral mesh");
    /* windows */
    refuse(T, "window: [300, 360]", "window: [360, 300]", ":26: key 'window': need t1 < t2");
    refuse(T, "window: [300, 360]", "window: [300, 300]", "need t1 < t2");
    refuse(T, "window: [300, 360]", "window: [300, .inf]", "key 'window': '.inf' is not a finite number");
    refuse(T, "window: [300, 360]", "window: [nan, 360]", "'nan' is not a finite number");
    refuse(T, "window: [300, 360]", "window: [300, 360, 400]", "expected 2 numbers, found 3");
    /* kernel names */
    refuse(T, "name: lp", "name: S_T", ":36: key 'name': kernel 'S_T' is already defined on line 29");
    refuse(T, "name: lp", "name: a/b", "key 'name': 'a/b' cannot name an HDF5 dataset");
    refuse(T, "name: lp", "name: ''", "key 'name': empty value");
    refuse(T, "name: lp", "name: ..", "cannot name an HDF5 dataset");
    refuse(T, "name: lp", "name: a_name_that_is_far_too_long_for_the_field_of_sixty_four_characters_x",
           "longer than 63 characters");
    /* receivers */
    refuse(T, "receiver: II.BFO", "receiver: XX.NOPE", ":30: key 'receiver': 'XX.NOPE' is not in the receivers file");
    refuse(T, "receiver: II.BFO", "receiver: BFO", "'BFO' is not NET.STA or NET.STA.LOC");
    refuse(T, "receiver: II.BFO", "receiver: XX.DUP", "'XX.DUP' names 2 receivers");
    refuse(T, "receiver: II.BFO", "receiver: II.BFO.00", "'II.BFO.00' is not in the receivers file");
    /* voxel grids */
    refuse(T, "counts: [10, 20, 7]", "counts: [10, 0, 7]", ":6: key 'counts': 0 is outside 1..");
    refuse(T, "counts: [10, 20, 7]", "counts: [10, -2, 7]", "key 'counts': -2 is outside 1..");
    refuse(T, "counts: [10, 20, 7]", "counts: [10, 20]", "expected 3 counts (nlat, nlon, ndepth), found 2");
    refuse(T, "counts: [10, 20, 7]", "counts: [1000, 1000, 1001]", "more than 1e9");
    refuse(T, "lat: [-10, 10]", "lat: [10, -10]", "key 'lat': need -90 <=");
    refuse(T, "lat: [-10, 10]", "lat: [-100, 10]", "key 'lat'");
    refuse(T, "lon: [0, 40]", "lon: [0, 400]", "key 'lon'");
    refuse(T, "depth-km: [0, 700]", "depth-km: [-5, 700]", "key 'depth-km'");
    /* kernel lists */
    refuse_kernels(T, "kernels: []\n", ":19: key 'kernels': no kernels");
    refuse_kernels(T, "kernels:\n", ":19: key 'kernels': expected a list, found a text");
    /* filters */
    refuse(T, "    lowpass: 0.02\n", "    lowpass: 0.02\n    highpass: 0.001\n", "already has a filter");
    refuse(T, "    lowpass: 0.02\n", "", "kernel 'lp': missing a filter");
    refuse(T, "bandpass: 0.01,0.025", "bandpass: 0.025,0.01", ":23: key 'bandpass': need 0 < F1 < F2");
    refuse(T, "bandpass: 0.01,0.025", "bandpass: 0.01", "key 'bandpass': '0.01': expected F1,F2 in Hz");
    refuse(T, "lowpass: 0.02", "lowpass: 0.02,0.03", "key 'lowpass': '0.02,0.03': expected a frequency in Hz");
    refuse(T, "loggabor: 40,0.5", "loggabor: 40,1.5", "key 'loggabor': need a period > 0 and a width in (0, 1)");
    refuse(T, "filter-order: 6", "filter-order: 0", ":24: key 'filter-order': 0 is outside 1..64");
    refuse(T, "zerophase: true", "zerophase: 1.5", "key 'zerophase'");
    /* meshes */
    refuse(T, "mesh:\n  voxels: {lat: [-10, 10], lon: [0, 40], depth-km: [0, 700], counts: [10, 20, 7]}", "mesh: {}",
           ":5: key 'mesh': give exactly one of voxels, tetrahedra, abaqus, gmsh (found 0)");
    refuse(T, "counts: [10, 20, 7]}\n", "counts: [10, 20, 7]}\n  gmsh: mesh.msh\n", "(found 2)");
    refuse_code(T, "  voxels: {lat: [-10, 10], lon: [0, 40], depth-km: [0, 700], counts: [10, 20, 7]}",
                "  gmsh: nothing.msh", ":6: key 'gmsh': cannot read", AXB_ERR_IO);
    refuse(T, "  voxels: {lat: [-10, 10], lon: [0, 40], depth-km: [0, 700], counts: [10, 20, 7]}",
           "  tetrahedra: {vertices: v.dat}", "missing key 'facets' in mesh: tetrahedra");
    refuse(T, "  voxels: {lat: [-10, 10], lon: [0, 40], depth-km: [0, 700], counts: [10, 20, 7]}", "  prisms: p.dat",
           "unknown key 'prisms' in mesh");
    /* the event and receivers files */
    refuse(T, "event: CMTSOLUTION", "event: CMT2", ":3: event: ");
    refuse(T, "event: CMTSOLUTION", "event: CMT2", "holds 2 events; a kernel job takes exactly one");
    refuse_code(T, "event: CMTSOLUTION", "event: nothing", ":3: event: ", AXB_ERR_IO);
    refuse_code(T, "receivers: STATIONS", "receivers: BADSTATIONS", ":4: receivers: ", AXB_ERR_FORMAT);
    refuse(T, "receivers: STATIONS", "receivers: EMPTY", ":4: receivers: ");
    /* options */
    refuse(T, "min-points: 32", "min-points: 2000", "min-points 2000 exceeds max-points 1000");
    refuse(T, "min-points: 32", "min-points: 1", "key 'min-points': 1 is outside 2..");
    refuse(T, "points-per-step: 4", "points-per-step: 0", "key 'points-per-step': 0 is outside 1..");
    refuse(T, "damp-radius-km: 50", "damp-radius-km: -1", "key 'damp-radius-km': must be 0 or more");
    refuse(T, "abs-error: 2e-3", "abs-error: -1", "key 'abs-error': must be 0 or more");
    /* YAML itself */
    refuse(T, "stf: deconvolve\n", "stf: deconvolve\nstf: database\n", ":10: key 'stf' already given on line 9");
    refuse(T, "points-per-step: 4\n", "points-per-step: 4\npoints_per_step: 5\n", "already given on line 11");
    refuse(T, "window: [300, 360]", "window: [300, 360", "job.yaml:");
    refuse(T, "forward-db: dbs/fwd\n", "forward-db: &a dbs/fwd\nx: *a\n", "aliases are not allowed");
    refuse(T, "kernels:\n", "---\nkernels:\n", "only one YAML document");
}

/* The shipped example (inputs/kernel_prem100s.yaml) stays a valid job: found through this file's
 * own path, skipped when the sources are not where they were compiled. */
static void test_example(check_ctx *T)
{
    const char *tail = "tests/unit/test_kernel_job.c";
    const size_t n = strlen(__FILE__), t = strlen(tail);
    if (n < t || strcmp(__FILE__ + n - t, tail)) return;
    char path[1024];
    snprintf(path, sizeof path, "%.*sinputs/kernel_prem100s.yaml", (int)(n - t), __FILE__);
    if (access(path, R_OK) != 0) return;
    axb_kernel_job job;
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_kernel_job_read(path, &job, &err) == AXB_OK, "%s", err.msg);
    CHECK(T, job.nkernels == 3 && job.nreceivers == 2 && job.mesh.kind == AXB_KMESH_VOXELS);
    CHECK_CLOSE(T, job.event.depth, 12000.0, 1e-9);
    CHECK(T, strstr(job.fwd_db, "inputs/../../shared/data/axisem-prem-100s/100s_db_fwd") != NULL);
    axb_kernel_job_free(&job);
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    if (!mkdtemp(dir)) return 1;
    char sub[600];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(sub, 0700);
    write_file("CMTSOLUTION", cmt_one);
    char two[2048];
    snprintf(two, sizeof two, "%s\n%s", cmt_one, cmt_one);
    write_file("CMT2", two);
    write_file("STATIONS", stations);
    write_file("BADSTATIONS", "ANMO IU 34.9 north 1850.0 0.0\n");
    write_file("EMPTY", "\n");
    /* the reader checks that mesh files exist; their contents are the engine's business */
    write_file("v.dat", "3\n");
    write_file("sub/f.dat", "0\n");
    write_file("mesh.inp", "*NODE\n");
    write_file("mesh.msh", "$MeshFormat\n");

    test_good(&T);
    test_refusals(&T);
    test_example(&T);

    CHECK_STR(&T, axb_kparam_name(AXB_KP_VP), "vp");
    CHECK_STR(&T, axb_kparam_name(AXB_KP_ETA), "eta");
    CHECK(&T, axb_kparam_name(AXB_KP_COUNT) == NULL);
    axb_kparam p = AXB_KP_VP;
    axb_error err = AXB_ERROR_INIT;
    CHECK(&T, axb_kparam_parse("VSH", &p, &err) == AXB_OK && p == AXB_KP_VSH);
    CHECK(&T, axb_kparam_parse("lambda", &p, &err) == AXB_OK && p == AXB_KP_LAMBDA);
    CHECK(&T, axb_kparam_parse("qmu", &p, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(&T, err.msg, "unknown parameter 'qmu' (known: vp vs rho lambda mu vph vpv vsh vsv eta)");
    axb_kernel_job job;
    CHECK(&T, axb_kernel_job_read("/nonexistent/job.yaml", &job, &err) == AXB_ERR_IO && job_is_empty(&job));
    CHECK_CONTAINS(&T, err.msg, "No such file");

    const char *files[] = {"CMTSOLUTION", "CMT2",     "STATIONS", "BADSTATIONS", "EMPTY", "v.dat",
                           "sub/f.dat",   "mesh.inp", "mesh.msh", "job.yaml",    NULL};
    for (int i = 0; files[i]; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(sub);
    rmdir(dir);
    return check_summary(&T);
}
