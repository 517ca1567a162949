/* `axibulk mkdb` orchestration: options -> plan (grid, samples, sizes), output folder handling
 * (DIR.partial renamed to DIR when complete), one file per run. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axibulk/repack.h"
#include "axibulk/timefmt.h"
#include "core/agree.h"
#include "core/paths.h"
#include "core/mpi_check.h"
#include "core/partial.h"
#include "engines/mkdb_internal.h"
#include "io/db/db_names.h"
#include "numerics/fullspace.h"

static const double PI = 3.14159265358979323846;

void axb_mkdb_defaults(axb_mkdb_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kind = AXB_DB_RECIPROCAL;
    o->dump = AXB_DUMP_DISPL_ONLY;
    o->layout = AXB_LAYOUT_ORIGINAL;
    o->period = NAN;
    o->length = NAN;
    o->rmin_km = NAN;
    o->radius_km = 6371.0;
    o->source_depth_km = 0.0;
    o->vp = 10000.0;
    o->vs = 5770.0;
    o->rho = 3300.0;
    /* AxiSEM's mesher default: 1.5 elements per wavelength at npol 4 */
    o->points_per_wavelength = 40.0;
    o->element_km = 0.0;
    o->dt = 0.0;
    o->amplitude = 1e20;
    o->progress = true;
    o->memory_bytes = (int64_t)256 << 20;
}

static bool pos_finite(double x)
{
    return isfinite(x) && x > 0;
}

static axb_status validate(const axb_mkdb_opts *o, axb_error *err)
{
    AXB_CHECK(err, o->dir && o->dir[0], AXB_ERR_ARG, "missing the output folder (-o DIR)");
    AXB_CHECK(err, pos_finite(o->period), AXB_ERR_ARG, "--period %g: must be a positive number of seconds", o->period);
    AXB_CHECK(err, pos_finite(o->length), AXB_ERR_ARG, "--length %g: must be a positive number of seconds", o->length);
    AXB_CHECK(err, pos_finite(o->radius_km), AXB_ERR_ARG, "--radius-km %g: must be positive", o->radius_km);
    AXB_CHECK(err, pos_finite(o->rmin_km) && o->rmin_km < o->radius_km, AXB_ERR_ARG,
              "--rmin-km %g: must be above 0 and below the planet radius %g km (the mesh is a shell; "
              "the centre would need a central cube)",
              o->rmin_km, o->radius_km);
    AXB_CHECK(err, pos_finite(o->vp) && pos_finite(o->vs) && pos_finite(o->rho), AXB_ERR_ARG,
              "--vp %g --vs %g --rho %g: must be positive numbers (m/s, m/s, kg/m^3)", o->vp, o->vs, o->rho);
    AXB_CHECK(err, o->vs < o->vp, AXB_ERR_ARG, "--vs %g must be below --vp %g", o->vs, o->vp);
    AXB_CHECK(err, 3 * o->vp * o->vp > 4 * o->vs * o->vs, AXB_ERR_ARG,
              "--vp %g --vs %g: the bulk modulus would be negative (need vp^2 > 4/3 vs^2)", o->vp, o->vs);
    AXB_CHECK(err, pos_finite(o->points_per_wavelength), AXB_ERR_ARG, "--points-per-wavelength %g: must be positive",
              o->points_per_wavelength);
    AXB_CHECK(err, isfinite(o->element_km) && o->element_km >= 0, AXB_ERR_ARG,
              "--element-km %g: must be positive (0: from the period)", o->element_km);
    AXB_CHECK(err, isfinite(o->dt) && o->dt >= 0, AXB_ERR_ARG, "--dt %g: must be positive (0: period/4)", o->dt);
    AXB_CHECK(err, pos_finite(o->amplitude) && o->amplitude < 3e38, AXB_ERR_ARG,
              "amplitude %g: must be a positive float32 number", o->amplitude);
    AXB_CHECK(err, o->memory_bytes > 0, AXB_ERR_ARG, "memory per rank must be positive");
    AXB_CHECK(err, o->kind == AXB_DB_RECIPROCAL || o->kind == AXB_DB_FORWARD, AXB_ERR_ARG, "unknown kind");
    /* reciprocal databases too: their forces are the receiver, which may be buried */
    AXB_CHECK(err, isfinite(o->source_depth_km) && o->source_depth_km >= 0 && o->source_depth_km < o->radius_km,
              AXB_ERR_ARG, "--source-depth-km %g: must be in 0..%g", o->source_depth_km, o->radius_km);
    AXB_CHECK(err, o->dump == AXB_DUMP_DISPL_ONLY || o->dump == AXB_DUMP_STRAIN_ONLY, AXB_ERR_ARG,
              "--dump: only displ_only and strain_only can be written");
    AXB_CHECK(err, !(o->kind == AXB_DB_FORWARD && o->dump == AXB_DUMP_STRAIN_ONLY), AXB_ERR_UNSUPPORTED,
              "--dump strain_only is for reciprocal databases only (Instaseis reads no forward "
              "strain_only database)");
    AXB_CHECK(err, o->layout == AXB_LAYOUT_ORIGINAL || o->layout == AXB_LAYOUT_MERGED, AXB_ERR_ARG,
              "--layout: original or merged");
    AXB_CHECK(err, !(o->layout == AXB_LAYOUT_MERGED && o->dump == AXB_DUMP_STRAIN_ONLY), AXB_ERR_UNSUPPORTED,
              "--layout merged holds displacement only: it cannot be combined with --dump strain_only");
    return AXB_OK;
}

/* Layers of element size @p h or less across @p thickness metres (at least one). */
static double layers(double thickness, double h)
{
    const double n = ceil(thickness / h - 1e-9);
    return n < 1 ? 1 : n;
}

/* The element grid: edge length from the resolution, elements along colatitude and radius. A
 * source inside the shell gets a layer boundary at its radius: then the axis has a stored point
 * exactly at the source, which is where AxiSEM, moving the source to the nearest axial point,
 * would have put it (axb_db_source_radius finds the file's depth again). */
static axb_status plan_grid(const axb_mkdb_opts *o, axb_mkdb_plan *p, axb_error *err)
{
    /* element edge: points_per_wavelength GLL points (npol intervals per element) per shear
     * wavelength, so h = npol * vs * period / points_per_wavelength */
    const double h = o->element_km > 0 ? o->element_km * 1e3 : p->npol * o->vs * o->period / o->points_per_wavelength;
    const bool split = p->r_src > p->r_min && p->r_src < p->r_max;
    const double nth = ceil(PI * p->r_max / h - 1e-9);
    const double below = split ? layers(p->r_src - p->r_min, h) : 0;
    const double nr = split ? below + layers(p->r_max - p->r_src, h) : layers(p->r_max - p->r_min, h);
    AXB_CHECK(err, nth < 1e7 && nr < 1e7, AXB_ERR_RANGE, "element size %g km is far too small for this shell", h / 1e3);
    p->ntheta = (int)nth;
    if (p->ntheta < 2) p->ntheta = 2;
    p->ntheta += p->ntheta % 2; /* an element edge on the equator: each half keeps its axis at xi=-1 */
    p->nrad = (int)nr;
    p->nrad_below = (int)below;
    p->nelem = (int64_t)p->ntheta * p->nrad;
    const int64_t ncol = (int64_t)p->ntheta * p->npol + 1, nrow = (int64_t)p->nrad * p->npol + 1;
    p->npoints = o->dump == AXB_DUMP_DISPL_ONLY ? ncol * nrow : p->nelem * (p->npol - 1) * (p->npol - 1);
    AXB_CHECK(err, p->npoints < INT32_MAX, AXB_ERR_RANGE,
              "%lld GLL points exceed the int32 indices of the format: use a longer --period or a "
              "larger --element-km",
              (long long)p->npoints);
    return AXB_OK;
}

/* Samples, the source shift and the source. */
static axb_status plan_time(const axb_mkdb_opts *o, axb_mkdb_plan *p, axb_error *err)
{
    p->dt = o->dt > 0 ? o->dt : o->period / 4;
    const double nt = ceil(o->length / p->dt - 1e-9) + 1;
    AXB_CHECK(err, nt < INT32_MAX, AXB_ERR_RANGE, "--length %g / dt %g: too many samples", o->length, p->dt);
    p->nt = (int64_t)nt;
    /* AxiSEM's shift: 1.5 periods rounded up to a whole sample, so Instaseis' shift in samples
     * and in seconds agree */
    axb_fs_stf stf;
    axb_fs_stf_from_period_dt(o->period, p->dt, &stf);
    p->stf_sigma = stf.sigma;
    p->src_shift_samples = (int)lround(stf.t0 / p->dt);
    p->src_shift = stf.t0;
    AXB_CHECK(err, p->src_shift_samples < p->nt, AXB_ERR_ARG,
              "--length %g s is shorter than the source shift %g s of the STF", o->length, p->src_shift);
    p->amplitude = (float)o->amplitude;
    return AXB_OK;
}

/* The runs written and the files' estimated sizes. */
static void plan_runs(const axb_mkdb_opts *o, axb_mkdb_plan *p)
{
    static const axb_sim rec[2] = {AXB_SIM_PX, AXB_SIM_PZ};
    static const axb_sim fwd[4] = {AXB_SIM_MZZ, AXB_SIM_MXX_P_MYY, AXB_SIM_MXZ_MYZ, AXB_SIM_MXY_MXX_M_MYY};
    p->nsim = o->kind == AXB_DB_FORWARD ? 4 : 2;
    memcpy(p->sims, o->kind == AXB_DB_FORWARD ? fwd : rec, (size_t)p->nsim * sizeof(axb_sim));

    const bool displ = o->dump == AXB_DUMP_DISPL_ONLY;
    const int64_t np1 = p->npol + 1;
    const int64_t mesh =
        p->npoints * 10 * 4 + (displ ? p->nelem * (np1 * np1 + 4 + 3 + 2) * 4 + (np1 * np1 * 2 + np1 * 3) * 8 : 0);
    p->total_bytes = 0;
    for (int k = 0; k < p->nsim; k++) {
        const bool mono = p->sims[k] == AXB_SIM_PZ || p->sims[k] == AXB_SIM_MZZ || p->sims[k] == AXB_SIM_MXX_P_MYY;
        const int nv = displ ? (mono ? 2 : 3) : (mono ? 4 : 6);
        const int64_t b = (int64_t)nv * p->nt * p->npoints * 4 + mesh + 2 * p->nt * 4 + 20000;
        if (b > p->file_bytes) p->file_bytes = b;
        p->total_bytes += b;
    }
}

axb_status axb_mkdb_plan_make(const axb_mkdb_opts *o, axb_mkdb_plan *p, axb_error *err)
{
    memset(p, 0, sizeof *p);
    AXB_TRY(validate(o, err));
    p->npol = AXB_MKDB_NPOL;
    p->r_max = o->radius_km * 1e3;
    p->r_min = o->rmin_km * 1e3;
    /* the stored depth is float32: put the source (reciprocal: the forces, i.e. the receiver)
     * exactly where the file says it is */
    p->r_src = p->r_max - (double)(float)o->source_depth_km * 1e3;
    AXB_TRY(plan_grid(o, p, err));
    AXB_TRY(plan_time(o, p, err));
    plan_runs(o, p);
    return AXB_OK;
}

/* mkdb is not resumable: a DIR.partial a killed run left is garbage and replaced without asking;
 * an existing DIR only with --force. */
static axb_partial_mode partial_mode(bool force, const axb_partial *names)
{
    struct stat sb;
    return force || stat(names->final, &sb) != 0 ? AXB_PARTIAL_FORCE : AXB_PARTIAL_NEW;
}

static axb_status make_dir(const char *path, axb_error *err)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot create folder: %s", path, strerror(errno));
    return AXB_OK;
}

/* Rank 0: a fresh DIR.partial with SIM/Data folders for every run. */
static axb_status prepare_dirs(const axb_mkdb_opts *o, const axb_mkdb_plan *p, const axb_partial *names, axb_error *err)
{
    AXB_TRY(axb_partial_prepare(names, partial_mode(o->force, names), err));
    AXB_TRY(make_dir(names->partial, err));
    char sub[sizeof names->partial + 64];
    for (int k = 0; k < p->nsim; k++) {
        snprintf(sub, sizeof sub, "%s/%s", names->partial, axb_sim_name(p->sims[k]));
        AXB_TRY(make_dir(sub, err));
        snprintf(sub, sizeof sub, "%s/%s/Data", names->partial, axb_sim_name(p->sims[k]));
        AXB_TRY(make_dir(sub, err));
    }
    return AXB_OK;
}

/* Rank 0: room for the planned files (both layouts at once for --layout merged) in the folder
 * that will hold DIR. A disk that fills up while the ranks define or extend the files in HDF5's
 * collective calls can fail one rank inside a call the others are still in, which no agreement
 * can undo: so the space is asked for before anything is written. */
static axb_status check_space(const axb_mkdb_opts *o, const axb_mkdb_plan *p, const char *dir, axb_error *err)
{
    char parent[AXB_PATH_MAX];
    axb_path_parent(dir, parent, sizeof parent);
    double need = (double)p->total_bytes;
    if (o->layout == AXB_LAYOUT_MERGED) {
        const double np1 = p->npol + 1;
        need += (double)p->total_bytes / (double)p->npoints * (double)p->nelem * np1 * np1;
    }
    return axb_path_check_room(dir, parent, "the database", need * 1.02 + 16.0 * (1 << 20), err);
}

/* Rank 0: the published database's size. */
static int64_t database_bytes(const axb_mkdb_plan *p, const char *dir)
{
    int64_t bytes = 0;
    for (int k = 0; k < p->nsim; k++) {
        char path[AXB_PARTIAL_PATH_MAX + 64];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s/Data/" AXB_NC_FILE_ORIGINAL, dir, axb_sim_name(p->sims[k]));
        if (stat(path, &sb) == 0) bytes += (int64_t)sb.st_size;
    }
    return bytes;
}

static void human(char *buf, size_t n, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) {
        b /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.2f %s" : "%.0f %s", b, unit[u]);
}

static void report_plan(FILE *out, const axb_mkdb_opts *o, const axb_mkdb_plan *p, int size)
{
    char tot[32], per[32];
    human(tot, sizeof tot, (double)p->total_bytes);
    human(per, sizeof per, (double)p->file_bytes);
    fprintf(out, "mkdb: %s %s database in %s, %d runs:", axb_db_kind_name(o->kind), axb_dump_type_name(o->dump), o->dir,
            p->nsim);
    for (int k = 0; k < p->nsim; k++) fprintf(out, " %s", axb_sim_name(p->sims[k]));
    fprintf(out,
            "\nmkdb: shell %.1f-%.1f km, %lld elements (%d colatitude x %d radial), %lld GLL "
            "points, %lld samples at dt %.6g s, source shift %.6g s\n",
            p->r_min / 1e3, p->r_max / 1e3, (long long)p->nelem, p->ntheta, p->nrad, (long long)p->npoints,
            (long long)p->nt, p->dt, p->src_shift);
    fprintf(out, "mkdb: planned size %s (%lld bytes; largest file %s), %d rank%s\n", tot, (long long)p->total_bytes,
            per, size, size > 1 ? "s" : "");
    if (o->layout == AXB_LAYOUT_MERGED) {
        /* every element stores its 25 points: shared points repeat */
        const double np1 = p->npol + 1;
        human(tot, sizeof tot, (double)p->total_bytes / (double)p->npoints * (double)p->nelem * np1 * np1);
        fprintf(out,
                "mkdb: --layout merged: the original layout above is written first, then repacked "
                "into about %s (both on disk until the repack is done)\n",
                tot);
    }
    fflush(out);
}

/* Every run's file into DIR.partial. */
static axb_status write_files(MPI_Comm comm, const axb_mkdb_opts *o, const axb_mkdb_plan *p, const char *partial,
                              mkdb_progress *pr, axb_error *err)
{
    axb_mkdb_mesh mesh;
    AXB_TRY(axb_mkdb_mesh_build(p, o->dump == AXB_DUMP_DISPL_ONLY, &mesh, err));
    axb_status st = AXB_OK;
    for (int k = 0; k < p->nsim && !st; k++) {
        char path[AXB_PARTIAL_PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s/Data/" AXB_NC_FILE_ORIGINAL, partial, axb_sim_name(p->sims[k]));
        st = axb_mkdb_write_file(comm, o, p, &mesh, p->sims[k], path, pr, err);
    }
    axb_mkdb_mesh_free(&mesh);
    return st;
}

/* Writes the original layout into dir (via dir.partial). */
static axb_status write_original(MPI_Comm comm, int rank, const axb_mkdb_opts *o, const axb_mkdb_plan *p,
                                 const char *dir, FILE *out, int64_t *bytes, axb_error *err)
{
    axb_partial names;
    AXB_TRY(axb_partial_names(dir, &names, err));
    AXB_TRY(axb_agree(comm, rank == 0 ? prepare_dirs(o, p, &names, err) : AXB_OK, err));
    mkdb_progress pr = {.points = 0};
    axb_progress_start(&pr.line, out, "mkdb", "points", p->npoints * p->nsim);
    AXB_TRY(write_files(comm, o, p, names.partial, &pr, err));
    /* publishing is the last step that can fail: after it, nothing may turn the run into a
     * failure that leaves a complete-looking database behind */
    *bytes = rank == 0 ? database_bytes(p, names.partial) : 0;
    axb_status st = AXB_OK;
    AXB_MPI_CHECK(st, err, MPI_Bcast(bytes, 1, MPI_INT64_T, 0, comm), "database size");
    AXB_TRY(axb_agree(comm, st, err));
    return axb_agree(comm, rank == 0 ? axb_partial_publish(&names, err) : AXB_OK, err);
}

/* The merged layout: the original layout written beside DIR (DIR.partial.original), repacked into
 * DIR.partial by the repack engine, published as DIR, the original removed. The original is
 * written first because its chunked storage is what the physics is evaluated in (points, not
 * elements); repacking it costs one more pass over the data but keeps one writer of the format. */
static axb_status write_merged(MPI_Comm comm, int rank, const axb_mkdb_opts *o, const axb_mkdb_plan *p, const char *dir,
                               FILE *out, int64_t *bytes, axb_error *err)
{
    axb_partial names;
    AXB_TRY(axb_partial_names(dir, &names, err));
    char orig[sizeof names.partial + 16];
    snprintf(orig, sizeof orig, "%s.original", names.partial);
    AXB_TRY(
        axb_agree(comm, rank == 0 ? axb_partial_prepare(&names, partial_mode(o->force, &names), err) : AXB_OK, err));

    axb_mkdb_opts oo = *o;
    oo.force = true; /* a stale original from a killed run is ours to replace */
    oo.dir = orig;
    int64_t orig_bytes = 0;
    AXB_TRY(write_original(comm, rank, &oo, p, orig, out, &orig_bytes, err));

    axb_repack_opts ro = {.src = orig,
                          .dst = names.partial,
                          .deflate = -1,
                          .memory_bytes = o->memory_bytes,
                          .force = true,
                          .resume = false,
                          .verify = false,
                          .progress = out != NULL,
                          .checkpoint_seconds = 10};
    axb_repack_result rr;
    if (axb_repack_run(comm, &ro, out, &rr, err))
        return axb_error_prefix(err, "mkdb --layout merged: repacking %s", orig);

    axb_status st = AXB_OK;
    if (rank == 0) {
        st = axb_partial_publish(&names, err);
        if (!st && axb_remove_tree(orig) != 0)
            st = axb_error_set(err, AXB_ERR_IO, "%s: cannot remove the intermediate original layout: %s", orig,
                               strerror(errno));
    }
    AXB_TRY(axb_agree(comm, st, err));
    *bytes = rr.bytes_out;
    return AXB_OK;
}

axb_status axb_mkdb_run(MPI_Comm comm, const axb_mkdb_opts *o, FILE *progress, axb_mkdb_result *res, axb_error *err)
{
    int rank, size;
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &rank), "rank");
    AXB_MPI_TRY(err, MPI_Comm_size(comm, &size), "communicator size");
    memset(res, 0, sizeof *res);
    const double t0 = axb_wall_seconds();
    axb_mkdb_plan *p = &res->plan;
    AXB_TRY(axb_mkdb_plan_make(o, p, err)); /* pure and identical on every rank */

    char dir[AXB_PATH_MAX];
    size_t n = strlen(o->dir);
    while (n > 1 && o->dir[n - 1] == '/') n--;
    AXB_CHECK(err, n < AXB_PATH_MAX, AXB_ERR_ARG, "output folder name too long");
    memcpy(dir, o->dir, n);
    dir[n] = '\0';
    FILE *out = rank == 0 && o->progress ? progress : NULL;
    if (out) report_plan(out, o, p, size);
    AXB_TRY(axb_agree(comm, rank == 0 ? check_space(o, p, dir, err) : AXB_OK, err));

    if (o->layout == AXB_LAYOUT_MERGED)
        AXB_TRY(write_merged(comm, rank, o, p, dir, out, &res->bytes_written, err));
    else
        AXB_TRY(write_original(comm, rank, o, p, dir, out, &res->bytes_written, err));
    res->seconds = axb_wall_seconds() - t0;
    return AXB_OK;
}
