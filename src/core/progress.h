/* Progress lines of long jobs, one format for every engine:
 *   "repack: 1200/5000 elements (24.0 %), 812.3 elements/s, read 640.1 MB/s, written 901.2 MB/s, ETA 12 s"
 * at most one line per interval (5 s) and a last one at the end if any was printed. The engine
 * owns the struct and passes the stream its caller gave it (NULL: silent), so a library user
 * decides where progress goes. MPI-free: the engine feeds it counts already summed over ranks. */
#ifndef AXB_CORE_PROGRESS_H
#define AXB_CORE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct axb_progress {
    FILE *out;             /* NULL: nothing is printed */
    const char *label;     /* "extract", "repack", "mkdb" */
    const char *unit;      /* what is counted: "rows", "elements", "points" */
    const char *rate_unit; /* the rate's name ("seismograms"); NULL: the unit */
    const char *rate2_unit; /* a second rate shown after the first, NULL: none */
    double rate2_per_unit;  /* ... of rate2_per_unit per unit (e.g. kernels per cell) */
    int64_t total;         /* units to do in this run */
    double interval;       /* seconds between lines */
    double t0, last;       /* wall-clock start and time of the last line */
    bool printed;
} axb_progress;

/* Starts the clock now. */
void axb_progress_start(axb_progress *p, FILE *out, const char *label, const char *unit, int64_t total);

/* Reports @p done of total units; @p mb_read / @p mb_written are the MB moved so far (negative:
 * not shown). Prints when the interval has passed, or when @p last and a line was printed before
 * (so short runs stay quiet). */
void axb_progress_update(axb_progress *p, int64_t done, double mb_read, double mb_written, bool last);

#endif
