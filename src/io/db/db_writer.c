/* Dispatch of the writer operations (db_writer.h) to the layout's table. */
#include "io/db/db_writer.h"

#include <stdlib.h>

#include "core/agree.h"
#include "core/mpi_check.h"

axb_status axb_db_writer_new(MPI_Comm comm, const char *path, const axb_db_writer_ops *ops, void *impl,
                             axb_db_writer **out, axb_error *err)
{
    *out = NULL;
    axb_db_writer *w = calloc(1, sizeof *w);
    if (!w) return axb_error_set(err, AXB_ERR_NOMEM, "%s: writer", path);
    *w = (axb_db_writer){.ops = ops, .comm = comm, .path = path, .impl = impl};
    axb_status st = AXB_OK;
    AXB_MPI_CHECK(st, err, MPI_Comm_rank(comm, &w->rank), "rank");
    AXB_MPI_CHECK(st, err, MPI_Comm_size(comm, &w->size), "communicator size");
    if (st) {
        free(w);
        return st;
    }
    *out = w;
    return AXB_OK;
}

axb_status axb_db_writer_define(axb_db_writer *w, axb_error *err)
{
    return w->ops->define(w, err);
}

axb_status axb_db_writer_write_mesh(axb_db_writer *w, axb_error *err)
{
    return w->ops->write_mesh(w, err);
}

axb_status axb_db_writer_write_stf(axb_db_writer *w, const float *stf, const float *stf_d, axb_error *err)
{
    return w->ops->write_stf(w, stf, stf_d, err);
}

axb_status axb_db_writer_begin(axb_db_writer *w, axb_error *err)
{
    return w->ops->begin(w, err);
}

axb_status axb_db_writer_buffer(axb_db_writer *w, int64_t start, float **buf, axb_error *err)
{
    return w->ops->buffer(w, start, buf, err);
}

axb_status axb_db_writer_put(axb_db_writer *w, int64_t start, int64_t count, axb_error *err)
{
    return w->ops->put(w, start, count, err);
}

axb_status axb_db_writer_checkpoint(axb_db_writer *w, axb_error *err)
{
    return w->ops->checkpoint(w, err);
}

void axb_db_writer_get_stats(const axb_db_writer *w, axb_write_stats *s)
{
    *s = (axb_write_stats){0};
    if (w->ops->stats) w->ops->stats(w, s);
}

axb_status axb_db_writer_sum_stats(const axb_db_writer *w, axb_write_stats *all, axb_error *err)
{
    axb_write_stats me;
    axb_db_writer_get_stats(w, &me);
    const double v[7] = {
        me.compress_s,           me.exchange_s,           me.write_s, me.sync_s, (double)me.chunks_encoded,
        (double)me.stored_bytes, (double)me.bytes_written};
    double s[7];
    AXB_MPI_AGREE(w->comm, err, MPI_Allreduce(v, s, 7, MPI_DOUBLE, MPI_SUM, w->comm), "write statistics");
    *all = (axb_write_stats){.compress_s = s[0],
                             .exchange_s = s[1],
                             .write_s = s[2],
                             .sync_s = s[3],
                             .chunks_encoded = (int64_t)s[4],
                             .stored_bytes = (int64_t)s[5],
                             .bytes_written = (int64_t)s[6]};
    return AXB_OK;
}

axb_status axb_db_writer_close(axb_db_writer **w, axb_status st, axb_error *err)
{
    if (!*w) return st;
    /* a failure before close keeps its message: close's own error goes to a scratch record */
    axb_error scratch = AXB_ERROR_INIT;
    (*w)->failed = st != AXB_OK;
    axb_status cs = (*w)->ops->close(*w, st ? &scratch : err);
    free(*w);
    *w = NULL;
    return st ? st : cs;
}
