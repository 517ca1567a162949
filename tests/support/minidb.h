/* Writes small synthetic databases in AxiSEM's file format (original layout) and in the merged
 * layout, with known contents, so the database layer can be tested without shared data and so
 * every kind of damage can be made on purpose. Test support only: not part of the library. */
#ifndef AXB_TESTS_MINIDB_H
#define AXB_TESTS_MINIDB_H

#include <stdbool.h>

#define MINIDB_NX 3 /* elements along s */
#define MINIDB_NZ 2 /* elements along z */
#define MINIDB_NELEM (MINIDB_NX * MINIDB_NZ)
#define MINIDB_NPTS ((4 * MINIDB_NX + 1) * (4 * MINIDB_NZ + 1))

typedef struct minidb_opts {
    bool px, pz;                  /* which runs (reciprocal) */
    bool forward;                 /* the four moment-tensor runs instead */
    bool merged;                  /* one merged_output.nc4 (vlen strings, elements reversed) */
    bool contiguous;              /* merged: no chunking */
    bool transposed;              /* original: snapshot arrays (points, samples) */
    bool strain;                  /* strain_only dump (original only) */
    int ndumps;                   /* samples (default 9) */
    int file_version;             /* default 7 */
    const char *dump_type;        /* override the attribute text */
    const char *omit_attr;        /* leave this global attribute out */
    const char *omit_var;         /* leave this dataset out (path like "/Mesh/sem_mesh") */
    const char *nan_attr;         /* write NaN into this float attribute */
    bool bad_sem;                 /* one sem_mesh entry out of range */
    const char *wrong_excitation; /* PZ file: excitation type text */
    int pz_ndumps;                /* PZ file: different sample count (files disagree) */
    double max_distance;          /* 'kernel wavefield colatmax' in degrees (default 180) */
} minidb_opts;

/* The value stored for run @p sim (axb_sim), variable @p v of that run, sample t, point p. */
float minidb_value(int sim, int v, int t, int p);

/* Element e's GLL point at xi-index i, eta-index j (the original element numbering). */
int minidb_point(int e, int i, int j);

/* Writes the database below directory @p dir (created if missing). Returns 0 on success. */
int minidb_write(const char *dir, const minidb_opts *o);

#endif
