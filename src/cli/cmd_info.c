/* `axibulk info DB`: what a user needs to know about a database before submitting a job. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "axibulk/db.h"
#include "cli/cli_internal.h"
#include "cli/json.h"

static const char *components_text(const axb_db_info *i)
{
    if (i->kind == AXB_DB_FORWARD) return "4 elemental moment tensors";
    if (i->has_sim[AXB_SIM_PX] && i->has_sim[AXB_SIM_PZ]) return "vertical and horizontal";
    return i->has_sim[AXB_SIM_PX] ? "horizontal only" : "vertical only";
}

static void human_bytes(char *buf, size_t n, int64_t b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.2f %s" : "%.0f %s", v, unit[u]);
}

static void human_duration(char *buf, size_t n, double s)
{
    long h = (long)(s / 3600), m = (long)fmod(s / 60, 60);
    double sec = fmod(s, 60);
    if (h)
        snprintf(buf, n, "%ldh %02ldm %04.1fs", h, m, sec);
    else if (m)
        snprintf(buf, n, "%ldm %04.1fs", m, sec);
    else
        snprintf(buf, n, "%.1fs", sec);
}

static void layout_text(char *buf, size_t n, const axb_db_info *i)
{
    if (i->layout == AXB_LAYOUT_ORIGINAL)
        snprintf(buf, n, "original (AxiSEM ordered_output, %d file%s, %s arrays%s)", i->nfiles,
                 i->nfiles > 1 ? "s" : "", i->transposed ? "point-major (transposed)" : "time-major",
                 i->deflate >= 0 ? ", deflate" : "");
    else if (i->layout == AXB_LAYOUT_MEMORY)
        snprintf(buf, n, "in memory (synthetic, no files)");
    else if (i->chunked)
        snprintf(buf, n, "merged (one element per read, chunked%s)", i->deflate >= 0 ? ", deflate" : "");
    else
        snprintf(buf, n, "merged (one element per read, contiguous)");
}

/* What protects the data, and what that means for a reader. */
static const char *checksums_text(const axb_db_info *i)
{
    switch (i->checksums) {
    case AXB_CHECKSUMS_FLETCHER32: return "fletcher32 on every chunk (verified on every read)";
    case AXB_CHECKSUMS_ELEMENT: return "CRC-32 of every element (verified on every read)";
    case AXB_CHECKSUMS_PARTIAL:
        return "fletcher32 on some snapshot arrays only: damage to the others cannot be detected";
    case AXB_CHECKSUMS_NONE: break;
    }
    return i->layout == AXB_LAYOUT_MEMORY ? "none (no files)" : "none: damage to the data cannot be detected";
}

static void print_text(FILE *o, const axb_db *db)
{
    const axb_db_info *i = axb_db_get_info(db);
    char buf[256], b2[64];
    fprintf(o, "%-17s %s\n", "database", i->path);
    fprintf(o, "%-17s %s%s\n", "kind", axb_db_kind_name(i->kind),
            i->kind == AXB_DB_RECIPROCAL ? " (receivers at the surface, sources anywhere)"
                                         : " (source at a fixed depth, receivers anywhere)");
    fprintf(o, "%-17s %s (%s)\n", "components", components_text(i), i->components);
    buf[0] = '\0';
    size_t off = 0;
    for (int s = 0; s < AXB_NSIM; s++)
        if (i->has_sim[s])
            off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s (%s)", off ? ", " : "", axb_sim_name((axb_sim)s),
                                    axb_excitation_name(i->excitation[s]));
    fprintf(o, "%-17s %s\n", "simulations", buf);
    fprintf(o, "%-17s %s\n", "dump type", axb_dump_type_name(i->dump));
    layout_text(buf, sizeof buf, i);
    fprintf(o, "%-17s %s\n", "layout", buf);
    fprintf(o, "%-17s %s\n", "checksums", checksums_text(i));
    fprintf(o, "%-17s %d\n", "file version", i->file_version);
    if (i->nelem)
        fprintf(o, "%-17s %lld\n", "elements", (long long)i->nelem);
    else
        fprintf(o, "%-17s %s\n", "elements", "not stored (strain_only: nearest-point lookup)");
    fprintf(o, "%-17s %lld (npol %d)\n", "GLL points", (long long)i->npoints, i->npol);
    fprintf(o, "%-17s %lld\n", "samples", (long long)i->ndumps);
    fprintf(o, "%-17s %.6f s (%.6g Hz)\n", "dt", i->dt, 1.0 / i->dt);
    human_duration(b2, sizeof b2, i->length);
    fprintf(o, "%-17s %.3f s (%s)\n", "length", i->length, b2);
    fprintf(o, "%-17s %.2f s\n", "dominant period", i->period);
    fprintf(o, "%-17s %s\n", "source time fn", i->stf);
    fprintf(o, "%-17s %.4f s (%d samples)\n", "source shift", i->src_shift, i->src_shift_samples);
    fprintf(o, "%-17s %.1f - %.1f km (planet radius %.1f km)\n", "radii", i->min_radius / 1e3, i->max_radius / 1e3,
            i->planet_radius / 1e3);
    fprintf(o, "%-17s %.6g - %.6g deg\n", "distances", i->min_d, i->max_d);
    if (i->kind == AXB_DB_FORWARD)
        fprintf(o, "%-17s %.3f km\n", "source depth", i->source_depth / 1e3);
    else
        fprintf(o, "%-17s %.1f - %.1f km\n", "source depths", (i->planet_radius - i->max_radius) / 1e3,
                (i->planet_radius - i->min_radius) / 1e3);
    fprintf(o, "%-17s %s%s%s\n", "background model", i->background_model, i->external_model[0] ? ", external " : "",
            i->external_model);
    fprintf(o, "%-17s %s\n", "attenuation", i->attenuation ? "yes" : "no");
    human_bytes(b2, sizeof b2, i->total_bytes);
    fprintf(o, "%-17s %s (%lld bytes)\n", "size on disk", b2, (long long)i->total_bytes);
    for (int k = 0; k < i->nfiles; k++) {
        human_bytes(b2, sizeof b2, i->file_bytes[k]);
        const char *rel = i->files[k] + strlen(i->path);
        fprintf(o, "  %-15s %s\n", b2, *rel == '/' ? rel + 1 : (*rel ? rel : i->files[k]));
    }
}

static void print_json(FILE *o, const axb_db *db)
{
    const axb_db_info *i = axb_db_get_info(db);
    axb_json j;
    axb_json_begin(&j, o);
    axb_json_str(&j, "path", i->path);
    axb_json_str(&j, "kind", axb_db_kind_name(i->kind));
    axb_json_str(&j, "components", i->components);
    axb_json_str(&j, "components_description", components_text(i));
    axb_json_array(&j, "simulations");
    for (int s = 0; s < AXB_NSIM; s++) {
        if (!i->has_sim[s]) continue;
        axb_json_object(&j, NULL);
        axb_json_str(&j, "name", axb_sim_name((axb_sim)s));
        axb_json_str(&j, "excitation", axb_excitation_name(i->excitation[s]));
        axb_json_end_object(&j);
    }
    axb_json_end_array(&j);
    axb_json_str(&j, "dump_type", axb_dump_type_name(i->dump));
    axb_json_str(&j, "layout", axb_db_layout_name(db));
    axb_json_bool(&j, "chunked", i->chunked);
    axb_json_int(&j, "deflate", i->deflate);
    axb_json_bool(&j, "transposed", i->transposed);
    axb_json_str(&j, "checksums", axb_checksums_name(i->checksums));
    axb_json_int(&j, "file_version", i->file_version);
    axb_json_int(&j, "elements", i->nelem);
    axb_json_int(&j, "gll_points", i->npoints);
    axb_json_int(&j, "npol", i->npol);
    axb_json_int(&j, "samples", i->ndumps);
    axb_json_num(&j, "dt", i->dt);
    axb_json_num(&j, "length", i->length);
    axb_json_num(&j, "dominant_period", i->period);
    axb_json_str(&j, "source_time_function", i->stf);
    axb_json_num(&j, "source_shift", i->src_shift);
    axb_json_int(&j, "source_shift_samples", i->src_shift_samples);
    axb_json_num(&j, "amplitude", i->amplitude);
    axb_json_num(&j, "planet_radius_km", i->planet_radius / 1e3);
    axb_json_num(&j, "min_radius_km", i->min_radius / 1e3);
    axb_json_num(&j, "max_radius_km", i->max_radius / 1e3);
    axb_json_num(&j, "min_distance_deg", i->min_d);
    axb_json_num(&j, "max_distance_deg", i->max_d);
    if (i->kind == AXB_DB_FORWARD) axb_json_num(&j, "source_depth_km", i->source_depth / 1e3);
    axb_json_str(&j, "background_model", i->background_model);
    axb_json_str(&j, "external_model", i->external_model);
    axb_json_bool(&j, "attenuation", i->attenuation);
    axb_json_int(&j, "size_bytes", i->total_bytes);
    axb_json_array(&j, "files");
    for (int k = 0; k < i->nfiles; k++) {
        axb_json_object(&j, NULL);
        axb_json_str(&j, "path", i->files[k]);
        axb_json_int(&j, "size_bytes", i->file_bytes[k]);
        axb_json_end_object(&j);
    }
    axb_json_end_array(&j);
    axb_json_end(&j);
}

static const char info_help[] =
    "usage: axibulk info [--json] DB\n"
    "\n"
    "Describes the AxiSEM wavefield database DB: a folder holding PX/PZ (reciprocal) or the four\n"
    "moment-tensor runs (forward) with their ordered_output.nc4 files, or a merged database\n"
    "(folder with merged_output.nc4, or the file itself).\n"
    "\n"
    "options:\n";

axb_status axb_cmd_info(const axb_cmd_env *env, int argc, char **argv, axb_error *err)
{
    bool json = false, help = false;
    const axb_opt opts[] = {
        {"json", 0, AXB_OPT_FLAG, &json, NULL, "print JSON (for scripts) instead of text"},
        {NULL, 0, AXB_OPT_FLAG, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    AXB_TRY(axb_opts_parse(opts, argc, argv, pos, 1, &npos, &help, err));
    if (help) {
        if (env->rank == 0) {
            fputs(info_help, env->out);
            axb_opts_print(env->out, opts);
        }
        return AXB_OK;
    }
    AXB_CHECK(err, npos == 1, AXB_ERR_ARG, "missing the database folder (usage: axibulk info [--json] DB)");
    axb_db *db;
    AXB_TRY(axb_db_open(env->comm, pos[0], &db, err));
    if (env->rank == 0) {
        if (json)
            print_json(env->out, db);
        else
            print_text(env->out, db);
    }
    axb_db_close(&db);
    return AXB_OK;
}
