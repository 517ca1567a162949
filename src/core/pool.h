/* A fixed set of worker threads running queued tasks in order (FIFO): the one place axibulk
 * starts threads for CPU work (chunk decoding, compression). Bounded on purpose: a rank gets the
 * threads its cores allow (axb_threads_default), and everything it decodes shares them, so
 * `mpirun -np N` on N cores never runs more busy threads than cores for long.
 *
 * Tasks must not call HDF5 or MPI (neither is built thread-safe here). A thread waiting for a
 * result may run queued tasks itself (axb_pool_help) instead of sleeping; it then works as worker
 * number axb_pool_size(p), so per-worker state needs size + 1 entries. Only one such thread. */
#ifndef AXB_CORE_POOL_H
#define AXB_CORE_POOL_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"

typedef struct axb_pool axb_pool;
/* Runs @p arg's work as worker @p worker (0 .. size); owns and frees @p arg. */
typedef void (*axb_pool_fn)(void *arg, int worker);

axb_status axb_pool_create(int nthreads, axb_pool **out, axb_error *err);
/* Workers for a rank's budget of @p threads busy threads. The thread that creates the pool
 * computes too (it helps while it waits), so it counts as one of them: two workers and a helping
 * caller on two cores took a quarter longer than one worker and the caller (docs/benchmarks.md).
 * A budget of one still gets a worker, for reads queued ahead while the caller computes. */
static inline int axb_pool_workers(int threads)
{
    return threads > 1 ? threads - 1 : 1;
}
/* Queues a task (never blocks). */
axb_status axb_pool_submit(axb_pool *p, axb_pool_fn fn, void *arg, axb_error *err);
/* Runs one queued task in the calling thread, if any; true if it did. */
bool axb_pool_help(axb_pool *p);
int axb_pool_size(const axb_pool *p);
/* Runs what is still queued, stops and joins the workers. Accepts a pointer to NULL. */
void axb_pool_destroy(axb_pool **p);

/* A group of tasks someone waits for as a whole: submit counts a task in, its end counts it out;
 * wait returns when none is left, running queued tasks meanwhile. Used by one waiting thread. */
typedef struct axb_task_group axb_task_group;
axb_status axb_task_group_create(axb_pool *p, axb_task_group **out, axb_error *err);
/* Queues @p fn(@p arg) in the group (fn owns arg, as for axb_pool_submit). */
axb_status axb_task_group_submit(axb_task_group *g, axb_pool_fn fn, void *arg, axb_error *err);
void axb_task_group_wait(axb_task_group *g);
/* The group's tasks go before every task queued without it: for work a thread waits on while the
 * workers have other work queued (a batch read ahead while the last one is computed). */
void axb_task_group_urgent(axb_task_group *g);
/* Waits for the group, then frees it. Accepts a pointer to NULL. */
void axb_task_group_free(axb_task_group **g);

/* The first failing item of [0, n), checked in ranges on the pool's workers and the calling thread:
 * @p fn checks items [k0, k1) in order and returns the first that fails, or k1 (it must not fail
 * otherwise, and is called concurrently). Up to @p nranges ranges of at least @p min_items items
 * each; without a pool (NULL), with one range, or without memory for the ranges, all runs here.
 * Returns n when no item fails. Callers that need the failure's message check that one item again
 * in their own thread. */
typedef int64_t (*axb_range_fn)(void *ctx, int64_t k0, int64_t k1);
int64_t axb_pool_first_failure(axb_pool *p, int64_t n, int64_t nranges, int64_t min_items, axb_range_fn fn, void *ctx);

/* Threads a rank should use by default: the CPUs it may run on (its affinity mask), shared
 * among the ranks of this node that have the same mask (mpirun without binding gives all ranks
 * every core). Collective over @p comm; at least 1. */
int axb_threads_default(MPI_Comm comm);

#endif
