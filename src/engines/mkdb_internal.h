/* Steps of `axibulk mkdb` shared by its files (mkdb.c: folders and runs; mkdb_write.c: one
 * file's wavefield). */
#ifndef AXB_ENGINES_MKDB_INTERNAL_H
#define AXB_ENGINES_MKDB_INTERNAL_H

#include <stdint.h>

#include "axibulk/mkdb.h"
#include "core/progress.h"

/* Progress over all files of a database. Rank 0 extrapolates from its own share: ranks own
 * equal shares and run at equal speed. */
typedef struct mkdb_progress {
    axb_progress line; /* silent except on rank 0 with progress on */
    int64_t points;    /* points written, all files, all ranks */
    double mb;         /* MB written, likewise */
} mkdb_progress;

/* Writes one run's ordered_output.nc4 at @p path (collective; rank 0 writes the mesh, every rank
 * its point range of the snapshots). */
AXB_NODISCARD axb_status axb_mkdb_write_file(MPI_Comm comm, const axb_mkdb_opts *o, const axb_mkdb_plan *plan,
                                             const axb_mkdb_mesh *m, axb_sim sim, const char *path, mkdb_progress *pr,
                                             axb_error *err);

#endif
