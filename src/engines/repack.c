/* Repacking an original-layout database into the merged layout (see repack.h for the plan): the
 * phases of a run. The file format and the ways data reach it are the merged writer's
 * (io/db/merged_write.h); the slab loop is in repack_copy.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axibulk/timefmt.h"
#include "core/agree.h"
#include "core/paths.h"
#include "core/mpi_check.h"
#include "engines/repack_internal.h"
#include "io/db/db_names.h"
#include "io/db/merged_write.h"

/* Slabs of at most this size: the disk writes one back while the next is read, and the buffers
 * stay small enough to be reused. Fresh pages cost kernel time on first touch (on a 1.28 GB
 * database, 1 rank: 4.0 s with 128 MB slabs, 5.2-5.9 s with 256 MB-1 GB ones), and two 128 MB
 * write buffers were most of what the 146 MB 50 s PREM database's repack touched: 32 MB took it
 * from 0.86-1.28 s to 0.66-0.82 s against a 250 MB/s disk, with the same chunks decoded, and did
 * not slow the 0.9 and 2 GB databases (docs/benchmarks.md). */
#define REPACK_SLAB_MAX ((int64_t)32 << 20)
/* ... and at most this fraction of a rank's share of the output: a small database's repack then
 * still runs through enough slabs for reading, compressing and writing to overlap, and the first
 * touch of its buffers stays a small part of it. The 146 MB database on 2 ranks has 182 MB each:
 * 15 MB slabs took `--deflate 2` from 0.34-0.41 to 0.39-0.52 of a 250 MB/s disk's cold read
 * (0.27-0.30 to 0.30-0.34 on a slower day); the 25 s databases keep 32 MB slabs
 * (docs/benchmarks.md). */
#define REPACK_MIN_SLABS 12

/* The largest put: the same on every rank (rank 0 sizes its receive buffers by it). */
static int64_t slab_bytes(const repack_job *j)
{
    const int64_t share = (j->nelem / j->size + 1) * j->block_bytes / REPACK_MIN_SLABS;
    const int64_t slab = share < REPACK_SLAB_MAX ? share : REPACK_SLAB_MAX;
    return slab > j->block_bytes ? slab : j->block_bytes;
}

static axb_status validate(const axb_repack_opts *o, axb_error *err)
{
    AXB_CHECK(err, o->deflate >= -1 && o->deflate <= 9, AXB_ERR_ARG, "--deflate %d: must be 0..9", o->deflate);
    AXB_CHECK(err, o->memory_bytes > 0, AXB_ERR_ARG, "--memory must be positive");
    return AXB_OK;
}

static axb_status open_source(repack_job *j, axb_error *err)
{
    const axb_repack_opts *o = j->o;
    AXB_TRY(axb_db_open(j->comm, o->src, &j->db, err));
    axb_db_set_threads(j->db, o->threads);
    j->in = axb_db_get_info(j->db);
    j->nelem = j->in->nelem;
    j->block_bytes = axb_db_block_floats(j->db) * (int64_t)sizeof(float);
    /* half of --memory keeps source chunks between slabs (each is wanted by several), half is
     * slabs in flight */
    axb_db_set_bulk_cache(j->db, o->memory_bytes / 2);
    axb_status st = AXB_OK;
    if (j->in->dump != AXB_DUMP_DISPL_ONLY)
        st = axb_error_set(err, AXB_ERR_UNSUPPORTED,
                           "%s: %s databases cannot be merged (the merged layout holds displacement only)", o->src,
                           axb_dump_type_name(j->in->dump));
    else if (j->in->layout != AXB_LAYOUT_ORIGINAL)
        st = axb_error_set(err, AXB_ERR_UNSUPPORTED, "%s is already in the merged layout", o->src);
    return axb_agree(j->comm, st, err);
}

static axb_status mkdir_p(const char *dir, axb_error *err)
{
    char buf[AXB_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return axb_error_set(err, AXB_ERR_IO, "%s: cannot create: %s", buf, strerror(errno));
            *p = '/';
        }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot create: %s", buf, strerror(errno));
    return AXB_OK;
}

/* Rank 0, new output: the folder, room for the file, a fresh record. */
static axb_status prepare_new(const repack_job *j, axb_error *err)
{
    AXB_TRY(mkdir_p(j->o->dst, err));
    const double need = (double)j->nelem * (double)j->block_bytes * 1.02 + 64.0 * (1 << 20);
    AXB_TRY(axb_path_check_room(j->o->dst, j->o->dst, "the merged file", need, err));
    return axb_partial_record_start(&j->names, REPACK_RECORD_KIND, j->identity, err);
}

/* Rank 0: the record of an earlier run, into done[]. */
static axb_status read_record(repack_job *j, axb_error *err)
{
    int64_t ndone = 0;
    return axb_partial_record_read(&j->names, REPACK_RECORD_KIND, j->identity, j->nelem, j->done, &ndone, err);
}

/* The output's names, checked against --force/--resume, and the element order; resuming, the
 * elements already done (collective). */
static axb_status prepare_output(repack_job *j, axb_error *err)
{
    const axb_repack_opts *o = j->o;
    char final[AXB_PATH_MAX + 32];
    snprintf(final, sizeof final, "%s/" AXB_NC_FILE_MERGED, o->dst);
    if (o->deflate < 0)
        snprintf(j->identity, sizeof j->identity, "elements=%lld storage=contiguous", (long long)j->nelem);
    else
        snprintf(j->identity, sizeof j->identity, "elements=%lld storage=deflate-%d", (long long)j->nelem, o->deflate);
    axb_status st = axb_partial_names(final, &j->names, err);
    int resume = o->resume;
    if (!st && j->rank == 0) {
        /* killed before anything was recorded: nothing to trust, so the run starts again */
        if (resume && axb_partial_nothing_recorded(&j->names)) resume = 0;
        const axb_partial_mode mode = resume ? AXB_PARTIAL_RESUME
            : o->force || o->resume          ? AXB_PARTIAL_FORCE
                                             : AXB_PARTIAL_NEW;
        st = axb_partial_prepare(&j->names, mode, err);
        if (!st) st = resume ? AXB_OK : prepare_new(j, err);
    }
    AXB_TRY(axb_agree(j->comm, st, err));
    AXB_MPI_AGREE(j->comm, err, MPI_Bcast(&resume, 1, MPI_INT, 0, j->comm), "resume decision");
    j->resume = resume != 0;
    const axb_mesh *mesh = axb_db_get_mesh(j->db);
    j->order = malloc((size_t)j->nelem * sizeof *j->order);
    j->done = calloc((size_t)j->nelem, 1);
    st = j->order && j->done ? axb_hilbert_order(j->nelem, mesh->mp_s, mesh->mp_z, j->order, err)
                             : axb_error_set(err, AXB_ERR_NOMEM, "element order");
    AXB_TRY(axb_agree(j->comm, st, err));
    if (!j->resume) return AXB_OK;
    AXB_TRY(axb_agree(j->comm, j->rank == 0 ? read_record(j, err) : AXB_OK, err));
    for (int64_t off = 0; off < j->nelem; off += 1 << 30) {
        const int cnt = (int)(j->nelem - off < (1 << 30) ? j->nelem - off : (1 << 30));
        AXB_MPI_AGREE(j->comm, err, MPI_Bcast(j->done + off, cnt, MPI_BYTE, 0, j->comm), "finished elements");
    }
    return AXB_OK;
}

/* Rank 0: mesh and STF of a new file. */
static axb_status write_metadata(repack_job *j, axb_error *err)
{
    AXB_TRY(axb_db_writer_write_mesh(j->w, err));
    const int64_t n = j->in->ndumps;
    float *s1 = malloc((size_t)n * sizeof *s1), *s2 = malloc((size_t)n * sizeof *s2);
    axb_status st = s1 && s2 ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "stf");
    for (int64_t t = 0; !st && t < n; t++) {
        s1[t] = (float)axb_db_get_stf(j->db)[t];
        s2[t] = (float)axb_db_get_stf_d(j->db)[t];
    }
    if (!st) st = axb_db_writer_write_stf(j->w, s1, s2, err);
    free(s1);
    free(s2);
    return st;
}

/* The file: structure defined collectively, mesh and STF written by rank 0, then the data phase
 * begins (direct writes unless collective ones are asked for or needed). */
static axb_status define_output(repack_job *j, axb_merged_def *def, axb_error *err)
{
    const axb_repack_opts *o = j->o;
    *def = (axb_merged_def){.template_path = j->in->files[0],
                            .nelem = j->nelem,
                            .npoints = j->in->npoints,
                            .ndumps = j->in->ndumps,
                            .npol = j->in->npol,
                            .nvars = j->in->nvars,
                            .order = j->order,
                            .deflate = o->deflate,
                            .direct = o->write_mode != AXB_REPACK_WRITE_COLLECTIVE,
                            .threads = axb_db_get_threads(j->db),
                            .resume = j->resume,
                            .inflight_bytes = o->memory_bytes / 2,
                            .max_put_bytes = slab_bytes(j)};
    AXB_TRY(axb_agree(j->comm, axb_merged_writer_create(j->comm, j->names.partial, def, &j->w, err), err));
    AXB_TRY(axb_db_writer_define(j->w, err));
    if (!j->resume) AXB_TRY(axb_agree(j->comm, j->rank == 0 ? write_metadata(j, err) : AXB_OK, err));
    return axb_db_writer_begin(j->w, err);
}

/* The file closed and renamed into place; the result (identical on every rank). */
static axb_status finish(repack_job *j, axb_status st, axb_repack_result *res, axb_error *err)
{
    if (j->w) {
        bool bypassed = false;
        res->write_mode =
            axb_merged_writer_is_direct(j->w, &bypassed) ? AXB_REPACK_WRITE_DIRECT : AXB_REPACK_WRITE_COLLECTIVE;
        res->page_cache_bypassed = bypassed;
    }
    st = axb_db_writer_close(&j->w, st, err);
    if (st) return st;
    AXB_TRY(axb_agree(j->comm, j->rank == 0 ? axb_partial_publish(&j->names, err) : AXB_OK, err));
    struct stat sb;
    const double in_per_elem = j->nelem ? (double)j->in->total_bytes / (double)j->nelem : 0;
    res->elements = j->nelem;
    res->elements_written = j->written;
    res->bytes_in = j->in->total_bytes;
    res->bytes_out = stat(j->names.final, &sb) == 0 ? (int64_t)sb.st_size : 0;
    res->read_mb_s = j->t_phase > 0 ? (double)j->written * in_per_elem / 1e6 / j->t_phase : 0;
    res->write_mb_s = j->t_phase > 0 ? (double)j->written * (double)j->block_bytes / 1e6 / j->t_phase : 0;
    return AXB_OK;
}

static axb_status run(repack_job *j, axb_repack_result *res, axb_error *err)
{
    axb_merged_def def;
    AXB_TRY(open_source(j, err));
    AXB_TRY(prepare_output(j, err));
    axb_status st = define_output(j, &def, err);
    if (!st) st = axb_repack_plan_slabs(j, err);
    if (!st) st = axb_repack_copy_slabs(j, err);
    /* the statistics are summed before the file is published: nothing collective may fail after */
    if (!st) {
        st = axb_db_sum_io_stats(j->db, &res->io, err);
        res->threads = axb_db_get_threads(j->db);
    }
    if (!st) st = axb_db_writer_sum_stats(j->w, &res->write_io, err);
    return finish(j, st, res, err);
}

axb_status axb_repack_run(MPI_Comm comm, const axb_repack_opts *o, FILE *progress, axb_repack_result *res,
                          axb_error *err)
{
    memset(res, 0, sizeof *res);
    const double t0 = axb_wall_seconds();
    AXB_TRY(validate(o, err));
    repack_job j = {.comm = comm, .o = o};
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &j.rank), "rank");
    AXB_MPI_TRY(err, MPI_Comm_size(comm, &j.size), "communicator size");
    j.progress = j.rank == 0 && o->progress ? progress : NULL;
    axb_status st = run(&j, res, err);
    res->seconds = axb_wall_seconds() - t0;
    if (j.in) res->source_checksums = j.in->checksums;
    free(j.order);
    free(j.done);
    free(j.slabs);
    axb_db_close(&j.db);
    if (!st && o->verify) {
        st = axb_repack_verify(comm, o->src, o->dst, o->memory_bytes, err);
        res->verified = st == AXB_OK;
    }
    return st;
}
