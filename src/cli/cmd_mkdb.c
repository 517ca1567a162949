/* `axibulk mkdb -o DIR ...`: options and a summary around axb_mkdb_run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "axibulk/mkdb.h"
#include "cli/cli_internal.h"
#include "cli/cli_paths.h"

static const char mkdb_help[] =
    "usage: axibulk mkdb -o DIR --kind reciprocal|forward --period S --length S --rmin-km KM\n"
    "                    [--source-depth-km KM] [--vp M/S --vs M/S --rho KG/M3]\n"
    "                    [--dump displ_only|strain_only] [--layout original|merged] [--force]\n"
    "\n"
    "Generates an AxiSEM-format wavefield database whose wavefield is the analytic solution in a\n"
    "homogeneous full space. Reciprocal: a vertical (PZ) and a horizontal (PX) force on the\n"
    "pole at --source-depth-km (the receiver's depth; default the surface); forward: the four\n"
    "elementary moment tensors (MZZ, MXX_P_MYY, MXZ_MYZ, MXY_MXX_M_MYY) at --source-depth-km.\n"
    "A layer of element corners lies at that depth, so the database has a point on the axis\n"
    "exactly there (where AxiSEM would have put the source, docs/mkdb.md). The mesh is the shell rmin..R (R = "
    "--radius-km) of\n"
    "spheroidal npol-4 elements; --period sets the element size and the STF width, --length the\n"
    "record length. Files open unchanged in Instaseis and netCDF tools. Run under MPI: ranks\n"
    "share the GLL points. Written to DIR.partial and renamed to DIR when complete. --layout\n"
    "merged writes the original layout beside DIR, repacks it (as axibulk repack, contiguous)\n"
    "and removes it.\n"
    "\n"
    "options:\n";

static axb_status parse_enum(const char *opt, const char *val, const char *const *names, int n, int *out,
                             axb_error *err)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(val, names[k])) return *out = k, AXB_OK;
    return axb_error_set(err, AXB_ERR_ARG, "--%s '%s': expected %s%s%s", opt, val, names[0], n > 1 ? " or " : "",
                         n > 1 ? names[1] : "");
}

axb_status axb_cmd_mkdb(const axb_cmd_env *env, int argc, char **argv, axb_error *err)
{
    axb_mkdb_opts o;
    axb_mkdb_defaults(&o);
    const char *kind = "reciprocal", *dump = "displ_only", *layout = "original";
    double depth = NAN, memory_mb = 256;
    bool quiet = false, help = false;
    const axb_opt opts[] = {
        {"output", 'o', AXB_OPT_STRING, &o.dir, "DIR", "database folder to create"},
        {"kind", 0, AXB_OPT_STRING, &kind, "K", "reciprocal (PX, PZ; default) or forward (4 moment tensors)"},
        {"period", 0, AXB_OPT_DOUBLE, &o.period, "S", "dominant period: element size and STF width"},
        {"length", 0, AXB_OPT_DOUBLE, &o.length, "S", "record length"},
        {"rmin-km", 0, AXB_OPT_DOUBLE, &o.rmin_km, "KM", "inner radius of the stored shell (> 0)"},
        {"radius-km", 0, AXB_OPT_DOUBLE, &o.radius_km, "KM", "planet radius R (default 6371)"},
        {"source-depth-km", 0, AXB_OPT_DOUBLE, &depth, "KM",
         "depth of the forces (reciprocal: the receiver) or of the moment tensors (forward; default 0)"},
        {"vp", 0, AXB_OPT_DOUBLE, &o.vp, "M/S", "P velocity (default 10000)"},
        {"vs", 0, AXB_OPT_DOUBLE, &o.vs, "M/S", "S velocity (default 5770)"},
        {"rho", 0, AXB_OPT_DOUBLE, &o.rho, "KG/M3", "density (default 3300)"},
        {"dump", 0, AXB_OPT_STRING, &dump, "T", "displ_only (default) or strain_only (reciprocal)"},
        {"layout", 0, AXB_OPT_STRING, &layout, "L", "original (default) or merged (one merged_output.nc4, via repack)"},
        {"points-per-wavelength", 0, AXB_OPT_DOUBLE, &o.points_per_wavelength, "N",
         "GLL points per S wavelength (default 40: within 1e-4 of the closed form; 6 = AxiSEM's density)"},
        {"element-km", 0, AXB_OPT_DOUBLE, &o.element_km, "KM", "element size given directly"},
        {"dt", 0, AXB_OPT_DOUBLE, &o.dt, "S", "sample interval (default period/4)"},
        {"memory-mb", 0, AXB_OPT_DOUBLE, &memory_mb, "MB", "snapshot data in flight per rank (default 256)"},
        {"axisem-filters", 0, AXB_OPT_FLAG, &o.axisem_filters, NULL,
         "chunks and filters as AxiSEM writes them (fletcher32, shuffle, deflate 2): the real format, slower to "
         "write"},
        {"force", 0, AXB_OPT_FLAG, &o.force, NULL, "replace an existing DIR"},
        {"quiet", 'q', AXB_OPT_FLAG, &quiet, NULL, "no size report and progress lines"},
        {NULL, 0, AXB_OPT_FLAG, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    AXB_TRY(axb_opts_parse(opts, argc, argv, pos, 0, &npos, &help, err));
    if (help) {
        if (env->rank == 0) {
            fputs(mkdb_help, env->out);
            axb_opts_print(env->out, opts);
        }
        return AXB_OK;
    }
    static const char *const kinds[] = {"reciprocal", "forward"};
    static const char *const dumps[] = {"displ_only", "strain_only"};
    static const char *const layouts[] = {"original", "merged"};
    int v = 0;
    AXB_TRY(parse_enum("kind", kind, kinds, 2, &v, err));
    o.kind = v ? AXB_DB_FORWARD : AXB_DB_RECIPROCAL;
    AXB_TRY(parse_enum("dump", dump, dumps, 2, &v, err));
    o.dump = v ? AXB_DUMP_STRAIN_ONLY : AXB_DUMP_DISPL_ONLY;
    AXB_TRY(parse_enum("layout", layout, layouts, 2, &v, err));
    o.layout = v ? AXB_LAYOUT_MERGED : AXB_LAYOUT_ORIGINAL;
    AXB_CHECK(err, o.dir, AXB_ERR_ARG, "missing -o DIR (see --help)");
    AXB_CHECK(err, isfinite(o.period), AXB_ERR_ARG, "missing --period S");
    AXB_CHECK(err, isfinite(o.length), AXB_ERR_ARG, "missing --length S");
    AXB_CHECK(err, isfinite(o.rmin_km), AXB_ERR_ARG, "missing --rmin-km KM");
    if (!isnan(depth)) o.source_depth_km = depth;
    AXB_CHECK(err, memory_mb >= 1 && memory_mb < 1e9, AXB_ERR_ARG, "--memory-mb %g: must be >= 1", memory_mb);
    o.memory_bytes = (int64_t)(memory_mb * 1048576.0);
    o.progress = !quiet;

    /* the longest file name mkdb writes: a run's file in DIR.partial, or in DIR.partial.original
     * (the intermediate original layout of --layout merged) */
    char longest[96];
    snprintf(longest, sizeof longest, ".partial%s/%s/Data/ordered_output.nc4",
             o.layout == AXB_LAYOUT_MERGED ? ".original" : "", o.kind == AXB_DB_FORWARD ? "MXY_MXX_M_MYY" : "PX");
    const axb_cli_path out = {"-o", o.dir, longest};
    AXB_TRY(axb_cli_check_paths(env->comm, AXB_OK, &out, 1, NULL, 0, err));
    axb_mkdb_result r;
    AXB_TRY(axb_mkdb_run(env->comm, &o, env->errout, &r, err));
    if (env->rank == 0)
        fprintf(env->out,
                "wrote %s: %d files, %lld elements, %lld GLL points, %lld samples, "
                "%.2f MB in %.2f s (%.1f MB/s)\n",
                o.dir, o.layout == AXB_LAYOUT_MERGED ? 1 : r.plan.nsim, (long long)r.plan.nelem,
                (long long)r.plan.npoints, (long long)r.plan.nt, (double)r.bytes_written / 1e6, r.seconds,
                (double)r.bytes_written / 1e6 / (r.seconds > 0 ? r.seconds : 1e-9));
    return AXB_OK;
}
