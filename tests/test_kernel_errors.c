/* `axibulk kernel` refusing bad jobs, run in-process on every rank as a user runs the command.
 * For each case: exit status 2 on every rank, exactly one line on the error streams of all ranks
 * together, a message naming the problem (and the key, file, database or kernel concerned), and
 * nothing in the output folder (no .h5, .xdmf or .partial). Each case changes one thing in a job
 * that succeeds (the control, run first): so each refusal has that one cause.
 *
 * Small `axibulk mkdb` databases (a 2000 km planet, shell 1500..2000 km, 20 s period, 200 s
 * record; event and forward source at 12 km) give every case without shared data: missing
 * folders, different dt or record length, forward and backward swapped, windows outside the
 * record, empty or degenerate tetrahedral meshes and a voxel grid with 0 cells, an unknown
 * parameter, a strain_only backward database (with and without rho), the event away from the
 * forward source, a receiver depth other than the backward database's (a reciprocal database made
 * at 20 km depth; STATIONS burial is ignored, as in Instaseis), a filter that passes what the
 * databases do not resolve, mesh vertices outside the stored radii, and T from a PZ-only database.
 * The shared 100 s/50 s PREM databases repeat the mismatched dt, strain_only, PZ-only (Instaseis'
 * merged vertical_only), swapped, event-depth and filter cases on real AxiSEM files; without them
 * those are skipped with a message and the test reports skipped (77) after the synthetic cases. */
#include <dirent.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axibulk/cli.h"
#include "axibulk/mkdb.h"
#include "check.h"
#include "test_util.h"

#define NEEDLES 4

/* One job: the fields a case may change. */
typedef struct jobspec {
    const char *fwd, *bwd, *event, *mesh, *receiver, *component, *filter, *zerophase, *window, *params;
    const char *output; /* NULL: out/<case>.h5 */
} jobspec;

typedef struct tctx {
    check_ctx T;
    char root[512]; /* scratch folder */
    char out[600];  /* the jobs' output folder, empty after every refusal */
    int size, ncase;
} tctx;

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Files in @p dir other than . and .. (-1 if it cannot be read). */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (const struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* Writes the job (rank 0) and runs `axibulk kernel --job JOB -q` on every rank; returns the exit
 * status, this rank's error text in @p msg and its number of lines in @p lines. */
static int run_job(tctx *c, const char *name, const jobspec *j, char *msg, size_t nmsg, int *lines)
{
    char job[700], text[4096], output[700];
    snprintf(job, sizeof job, "%s/%s.yaml", c->root, name);
    if (j->output)
        snprintf(output, sizeof output, "%s", j->output);
    else
        snprintf(output, sizeof output, "out/%s.h5", name);
    if (c->T.rank == 0) {
        snprintf(text, sizeof text,
                 "forward-db: %s\nbackward-db: %s\nevent: %s\nreceivers: STATIONS\nmesh:\n  %s\n"
                 "max-points: 16\noutput: %s\nkernels:\n  - name: P_Z\n    receiver: %s\n"
                 "    component: %s\n    %s\n    zerophase: %s\n    window: %s\n    misfit: cc\n"
                 "    parameters: %s\n",
                 j->fwd, j->bwd, j->event, j->mesh, output, j->receiver, j->component, j->filter, j->zerophase,
                 j->window, j->params);
        put(job, text);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    FILE *err = tmpfile(), *out = tmpfile();
    if (!err || !out) MPI_Abort(MPI_COMM_WORLD, 1);
    char *argv[] = {"axibulk", "kernel", "--job", job, "-q", NULL};
    const int rc = axb_cli_run(5, argv, MPI_COMM_WORLD, out, err);
    rewind(err);
    const size_t n = fread(msg, 1, nmsg - 1, err);
    msg[n] = '\0';
    *lines = 0;
    for (size_t i = 0; i < n; i++) *lines += msg[i] == '\n';
    if (n && msg[n - 1] != '\n') ++*lines; /* an unterminated last line counts too */
    fclose(err);
    fclose(out);
    return rc;
}

/* The job must fail with status 2, one line in all, saying every needle, leaving no output. */
static void expect_refusal(tctx *c, const char *name, const jobspec *j, const char *const needles[NEEDLES],
                           const char *absent)
{
    char msg[4096];
    int lines;
    const int rc = run_job(c, name, j, msg, sizeof msg, &lines);
    c->ncase++;
    CHECK_MSG(&c->T, rc == AXB_EXIT_INPUT, "%s: exit status %d, expected 2 (%s)", name, rc, msg);
    int total = lines;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (c->T.rank == 0) CHECK_MSG(&c->T, total == 1, "%s: %d error lines over all ranks, expected 1", name, total);
    if (lines > 0) {
        char head[64]; /* "error (rank N)" when more than one rank runs */
        if (c->size > 1)
            snprintf(head, sizeof head, "axibulk kernel: error (rank %d): ", c->T.rank);
        else
            snprintf(head, sizeof head, "axibulk kernel: error: ");
        CHECK_MSG(&c->T, !strncmp(msg, head, strlen(head)), "%s: '%s' does not start with '%s'", name, msg, head);
        for (int q = 0; q < NEEDLES && needles[q]; q++)
            CHECK_MSG(&c->T, strstr(msg, needles[q]) != NULL, "%s: '%s' does not say '%s'", name, msg, needles[q]);
        if (absent) CHECK_MSG(&c->T, !strstr(msg, absent), "%s: '%s' should not say '%s'", name, msg, absent);
    }
    if (c->T.rank == 0) {
        const int left = count_entries(c->out);
        CHECK_MSG(&c->T, left == 0, "%s: %d files left in %s", name, left, c->out);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The control: the unchanged job succeeds and writes its two files (then removed). */
static void expect_success(tctx *c, const char *name, const jobspec *j)
{
    char msg[4096];
    int lines;
    const int rc = run_job(c, name, j, msg, sizeof msg, &lines);
    CHECK_MSG(&c->T, rc == 0, "%s (control): exit status %d: %s", name, rc, msg);
    CHECK_MSG(&c->T, lines == 0, "%s (control): %d error lines: %s", name, lines, msg);
    MPI_Barrier(MPI_COMM_WORLD);
    if (c->T.rank == 0) {
        char h5[700], xdmf[700];
        snprintf(h5, sizeof h5, "%s/%s.h5", c->out, name);
        snprintf(xdmf, sizeof xdmf, "%s/%s.xdmf", c->out, name);
        CHECK_MSG(&c->T, access(h5, F_OK) == 0 && access(xdmf, F_OK) == 0, "%s (control): no %s or %s", name, h5, xdmf);
        remove(h5);
        remove(xdmf);
        CHECK(&c->T, count_entries(c->out) == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static int make_db(const tctx *c, const char *name, axb_db_kind kind, axb_dump_type dump, double dt, double length,
                   double depth_km)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/%s", c->root, name);
    axb_mkdb_opts o;
    axb_mkdb_defaults(&o);
    o.dir = dir;
    o.kind = kind;
    o.dump = dump;
    o.period = 20;
    o.length = length;
    o.dt = dt;
    o.radius_km = 2000;
    o.rmin_km = 1500;
    o.points_per_wavelength = 6;
    o.source_depth_km = depth_km;
    axb_mkdb_result r;
    axb_error err = AXB_ERROR_INIT;
    if (axb_mkdb_run(MPI_COMM_WORLD, &o, NULL, &r, &err)) {
        fprintf(stderr, "mkdb %s: %s\n", name, err.msg);
        return -1;
    }
    return 0;
}

#define N(...) ((const char *const[NEEDLES]){__VA_ARGS__})

static void synthetic_cases(tctx *c)
{
    const jobspec base = {
        .fwd = "fwd",
        .bwd = "bwd",
        .event = "CMT12",
        .mesh = "voxels: {lat: [-1, 1], lon: [1, 4], depth-km: [50, 150], counts: [1, 1, 1]}",
        .receiver = "XX.A",
        .component = "Z",
        .filter = "lowpass: 0.01",
        .zerophase = "true",
        .window = "[40, 90]",
        .params = "[vp, rho]",
    };
    expect_success(c, "control", &base);
    jobspec j;

    /* 0. outputs the path rules refuse before anything is created (#19): one inside the forward
     * database (nothing may appear there), one too long for Open MPI's I/O */
    j = base, j.output = "fwd/PZ.h5";
    expect_refusal(c, "output_in_db", &j, N("output ", "fwd/PZ.h5 lies inside forward database ", "/fwd"), NULL);
    if (c->T.rank == 0) {
        char p[700];
        snprintf(p, sizeof p, "%s/fwd", c->root);
        CHECK_MSG(&c->T, count_entries(p) == 4, "output_in_db: %d entries in the forward database", count_entries(p));
    }
    char longname[300];
    memset(longname, 'k', 240);
    snprintf(longname + 240, sizeof longname - 240, ".h5");
    char longout[320];
    snprintf(longout, sizeof longout, "out/%s", longname);
    j = base, j.output = longout;
    expect_refusal(c, "output_long", &j, N("output ", "kkk.h5: ", "at most", "the 238 that Open MPI's I/O can open"),
                   NULL);

    /* 1. missing database folders, named with their key */
    j = base, j.fwd = "no_such_fwd";
    expect_refusal(c, "missing_fwd", &j, N("forward-db: ", "no_such_fwd", "No such file or directory"), NULL);
    j = base, j.bwd = "no_such_bwd";
    expect_refusal(c, "missing_bwd", &j, N("backward-db: ", "no_such_bwd", "No such file or directory"), NULL);

    /* 2. databases that do not fit together: dt 4 s instead of 5 s; 300 s instead of 200 s */
    j = base, j.bwd = "bwd_dt4";
    expect_refusal(c, "other_dt", &j,
                   N("the forward and backward databases differ in their time step", "fwd and ", "bwd_dt4"), NULL);
    j = base, j.bwd = "bwd_300s";
    expect_refusal(c, "other_length", &j,
                   N("the forward and backward databases differ in their number of samples", "bwd_300s"), NULL);

    /* 3. swapped */
    j = base, j.fwd = "bwd", j.bwd = "fwd";
    expect_refusal(c, "swapped", &j,
                   N("forward-db: ", "bwd: this is a reciprocal database, the job needs a forward one here"), NULL);
    j = base, j.bwd = "fwd";
    expect_refusal(c, "forward_as_backward", &j,
                   N("backward-db: ", "fwd: this is a forward database, the job needs a reciprocal (backward) one"),
                   NULL);

    /* 4. windows outside the record (-30 .. 170 s after the origin) */
    j = base, j.window = "[40, 900]";
    expect_refusal(c, "window_late", &j,
                   N("kernel 'P_Z': window [40, 900] s is not inside the record", "-30.0 to 170.0 s"), NULL);
    j = base, j.window = "[-100, 90]";
    expect_refusal(c, "window_early", &j, N("kernel 'P_Z': window [-100, 90] s is not inside the record"), NULL);

    /* 5. empty meshes: tetrahedra without cells (with and without vertices); a voxel count of 0 is
     *    the reader's refusal, with the job's line */
    j = base, j.mesh = "tetrahedra: {vertices: tet_v.txt, facets: tet_none.txt}";
    expect_refusal(c, "tet_no_cells", &j, N("tet_none.txt", "the mesh has no cells"), NULL);
    j = base, j.mesh = "tetrahedra: {vertices: tet_v0.txt, facets: tet_none.txt}";
    expect_refusal(c, "tet_no_vertices", &j, N("tet_none.txt", "the mesh has no cells"), NULL);
    j = base, j.mesh = "voxels: {lat: [-1, 1], lon: [1, 4], depth-km: [50, 150], counts: [1, 0, 1]}";
    expect_refusal(c, "voxels_zero", &j, N("voxels_zero.yaml:6: ", "key 'counts': 0 is outside 1..1000000"), NULL);

    /* 6. four coplanar vertices */
    j = base, j.mesh = "tetrahedra: {vertices: tet_flat.txt, facets: tet_one.txt}";
    expect_refusal(c, "tet_flat", &j, N("tet_one.txt", "cell 0: degenerate tetrahedron", "volume 0 m^3"), NULL);

    /* 7. unknown parameter */
    j = base, j.params = "[vp, density]";
    expect_refusal(c, "unknown_param", &j,
                   N("unknown_param.yaml:17: ", "key 'parameters': unknown parameter 'density'", "known: vp vs rho"),
                   NULL);

    /* 8. strain_only backward database: density needs the velocities as well */
    j = base, j.bwd = "bwd_strain";
    expect_refusal(c, "strain_only_rho", &j,
                   N("backward-db: ", "bwd_strain: kernels need a displ_only database", "density", "strain_only"),
                   NULL);
    j = base, j.bwd = "bwd_strain", j.params = "vp";
    expect_refusal(c, "strain_only_vp", &j,
                   N("bwd_strain: kernels need a displ_only database", "this one is strain_only"), "density");

    /* 9. the event 88 km below the forward database's source */
    j = base, j.event = "CMT100";
    expect_refusal(c, "event_depth", &j,
                   N("the event is at 100.0 km depth but the forward database", "fwd has its source at 12.0 km"), NULL);

    /* 10. surface receiver, backward database with its receiver at 20 km; the buried STATIONS
     *     receiver XX.B sits at the surface too (burial ignored, as in Instaseis) */
    j = base, j.bwd = "bwd_deep";
    expect_refusal(c, "receiver_depth", &j,
                   N("kernel 'P_Z': receiver XX.A is at 0.000 km depth but the backward database",
                     "bwd_deep has its receiver at 20.000 km"),
                   NULL);
    j = base, j.bwd = "bwd_deep", j.receiver = "XX.B";
    expect_refusal(c, "receiver_buried", &j, N("receiver XX.B is at 0.000 km depth", "at 20.000 km"), NULL);

    /* 11. causal lowpass at the databases' 20 s period: passes what they do not resolve */
    j = base, j.filter = "lowpass: 0.05", j.zerophase = "false";
    expect_refusal(c, "filter_short", &j,
                   N("kernel 'P_Z': the filter does not vanish at the Nyquist frequency (0.1 Hz)", "at most 0.01"),
                   NULL);

    /* 12. voxels down to 800 km depth: radius 1200 km, below the stored 1500 km */
    j = base, j.mesh = "voxels: {lat: [-1, 1], lon: [1, 4], depth-km: [50, 800], counts: [1, 1, 2]}";
    expect_refusal(c, "mesh_too_deep", &j,
                   N("mesh vertex", "lies at radius 1200.0 km, outside the 1500.0 to 2000.0 km the databases store"),
                   NULL);
    j = base, j.mesh = "tetrahedra: {vertices: tet_high.txt, facets: tet_one.txt}";
    expect_refusal(c, "mesh_too_high", &j, N("mesh vertex 3 lies at radius 2100.0 km", "1500.0 to 2000.0 km"), NULL);

    /* 13. T from a database with PZ only */
    j = base, j.bwd = "bwd_pz", j.component = "T";
    expect_refusal(c, "pz_only", &j,
                   N("kernel 'P_Z': component T needs the PX simulation, which the backward database", "bwd_pz lacks"),
                   NULL);
}

static void shared_cases(tctx *c, const char *data)
{
    char f100[700], b100[700], s100[700], b50[700], vo[700];
    snprintf(f100, sizeof f100, "%s/axisem-prem-100s/100s_db_fwd", data);
    snprintf(b100, sizeof b100, "%s/axisem-prem-100s/100s_db_bwd_displ_only", data);
    snprintf(s100, sizeof s100, "%s/axisem-prem-100s/100s_db_bwd_strain_only", data);
    snprintf(b50, sizeof b50, "%s/axisem-prem-50s/prem_50s_bwd_displ_only", data);
    snprintf(vo, sizeof vo, "%s/instaseis-merged/100s_db_bwd_vertical_only", data);
    const jobspec base = {
        .fwd = f100,
        .bwd = b100,
        .event = "CMT12",
        .mesh = "voxels: {lat: [-1, 1], lon: [1, 4], depth-km: [50, 150], counts: [1, 1, 1]}",
        .receiver = "XX.A",
        .component = "Z",
        .filter = "lowpass: 0.006",
        .zerophase = "true",
        .window = "[40, 200]",
        .params = "[vp, rho]",
    };
    expect_success(c, "prem_control", &base);
    jobspec j;
    j = base, j.bwd = b50;
    expect_refusal(c, "prem_50s_bwd", &j,
                   N("the forward and backward databases differ in their time step", "100s_db_fwd and ",
                     "prem_50s_bwd_displ_only"),
                   NULL);
    j = base, j.fwd = b100, j.bwd = f100;
    expect_refusal(c, "prem_swapped", &j,
                   N("forward-db: ", "100s_db_bwd_displ_only: this is a reciprocal database, the job needs a forward"),
                   NULL);
    j = base, j.bwd = s100;
    expect_refusal(c, "prem_strain_only", &j,
                   N("backward-db: ", "100s_db_bwd_strain_only: kernels need a displ_only database", "density"), NULL);
    j = base, j.event = "CMT100";
    expect_refusal(c, "prem_event_depth", &j,
                   N("the event is at 100.0 km depth but the forward database", "has its source at 12.0 km"), NULL);
    j = base, j.filter = "lowpass: 0.01", j.zerophase = "false";
    expect_refusal(c, "prem_filter", &j, N("kernel 'P_Z': the filter does not vanish at the Nyquist frequency"), NULL);
    j = base, j.bwd = vo, j.component = "T";
    expect_refusal(c, "prem_vertical_only", &j,
                   N("component T needs the PX simulation", "100s_db_bwd_vertical_only lacks"), NULL);
}

static const char CMT[] = " PDE 2014  1  5  0  0  0.00   0.0000   0.0000  %s 5.7 5.7 TEST\n"
                          "event name:     TEST\n"
                          "time shift:      0.0000\n"
                          "half duration:   1.0000\n"
                          "latitude:        0.0000\n"
                          "longitude:       0.0000\n"
                          "depth:          %s\n"
                          "Mrr:       1.000000e+24\n"
                          "Mtt:      -0.500000e+24\n"
                          "Mpp:      -0.500000e+24\n"
                          "Mrt:       0.200000e+24\n"
                          "Mrp:      -0.100000e+24\n"
                          "Mtp:       0.300000e+24\n";

/* Event files, stations and tetrahedral meshes (km; the shell is 1500..2000 km). */
static void write_inputs(const tctx *c)
{
    char p[700], text[2048];
    snprintf(text, sizeof text, CMT, "12.0", "12.0000");
    snprintf(p, sizeof p, "%s/CMT12", c->root), put(p, text);
    snprintf(text, sizeof text, CMT, "100.0", "100.0000");
    snprintf(p, sizeof p, "%s/CMT100", c->root), put(p, text);
    snprintf(p, sizeof p, "%s/STATIONS", c->root);
    put(p, "A    XX   0.0   5.0   0.0     0.0\nB    XX   0.0   6.0   0.0   500.0\n");
    snprintf(p, sizeof p, "%s/tet_v.txt", c->root);
    put(p, "3\n4\n1900 0 0\n1900 100 0\n1900 0 100\n1800 0 0\n");
    snprintf(p, sizeof p, "%s/tet_v0.txt", c->root), put(p, "3\n0\n");
    snprintf(p, sizeof p, "%s/tet_flat.txt", c->root);
    put(p, "3\n4\n1900 0 0\n1900 100 0\n1900 0 100\n1900 100 100\n");
    snprintf(p, sizeof p, "%s/tet_high.txt", c->root);
    put(p, "3\n4\n1900 0 0\n1900 100 0\n1900 0 100\n2100 0 0\n");
    snprintf(p, sizeof p, "%s/tet_none.txt", c->root), put(p, "0\n");
    snprintf(p, sizeof p, "%s/tet_one.txt", c->root), put(p, "1\n0 1 2 3\n");
}

/* A PZ-only reciprocal database: an mkdb one without its PX run. */
static int drop_px(const tctx *c)
{
    char p[700];
    snprintf(p, sizeof p, "%s/bwd_pz/PX/Data/ordered_output.nc4", c->root);
    if (remove(p)) return -1;
    snprintf(p, sizeof p, "%s/bwd_pz/PX/Data", c->root);
    if (rmdir(p)) return -1;
    snprintf(p, sizeof p, "%s/bwd_pz/PX", c->root);
    return rmdir(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    tctx c = {.T = {0, 0, 0}};
    MPI_Comm_rank(MPI_COMM_WORLD, &c.T.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    const char *data = argc > 1 ? argv[1] : "../shared/data";
    if (test_scratch_dir(MPI_COMM_WORLD, "kerr", c.root, sizeof c.root)) MPI_Abort(MPI_COMM_WORLD, 1);
    snprintf(c.out, sizeof c.out, "%s/out", c.root);
    if (c.T.rank == 0) {
        write_inputs(&c);
        if (mkdir(c.out, 0755)) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* dt 5 s (period / 4), 41 samples; the others differ in one thing each */
    int bad = make_db(&c, "fwd", AXB_DB_FORWARD, AXB_DUMP_DISPL_ONLY, 0, 200, 12);
    bad |= make_db(&c, "bwd", AXB_DB_RECIPROCAL, AXB_DUMP_DISPL_ONLY, 0, 200, 0);
    bad |= make_db(&c, "bwd_dt4", AXB_DB_RECIPROCAL, AXB_DUMP_DISPL_ONLY, 4, 200, 0);
    bad |= make_db(&c, "bwd_300s", AXB_DB_RECIPROCAL, AXB_DUMP_DISPL_ONLY, 0, 300, 0);
    bad |= make_db(&c, "bwd_strain", AXB_DB_RECIPROCAL, AXB_DUMP_STRAIN_ONLY, 0, 200, 0);
    bad |= make_db(&c, "bwd_deep", AXB_DB_RECIPROCAL, AXB_DUMP_DISPL_ONLY, 0, 200, 20);
    bad |= make_db(&c, "bwd_pz", AXB_DB_RECIPROCAL, AXB_DUMP_DISPL_ONLY, 0, 200, 0);
    if (!bad && c.T.rank == 0) bad = drop_px(&c);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    CHECK_MSG(&c.T, !bad, "could not make the test databases under %s", c.root);
    if (!bad) synthetic_cases(&c);

    char probe[700];
    snprintf(probe, sizeof probe, "%s/axisem-prem-100s/100s_db_fwd", data);
    const bool have = access(probe, F_OK) == 0;
    if (have)
        shared_cases(&c, data);
    else if (c.T.rank == 0)
        printf("shared data not found at %s: the cases on real AxiSEM databases skipped\n", data);
    if (c.T.rank == 0) printf("%d refusals checked\n", c.ncase);

    test_remove_dir(MPI_COMM_WORLD, c.root);
    const int rc = test_finish_mpi(&c.T);
    return rc == 0 && !have ? CHECK_SKIP : rc;
}
