/* The rank's worker threads, owned by its open database: decoding original-layout chunks and the
 * engines' computation (extraction batches) share them, so a rank never runs more than its
 * threads (axb_db_set_threads), the helping thread (core/pool.h) among them, at once, whatever
 * overlaps. Internal to libaxibulk. */
#ifndef AXB_IO_DB_POOL_H
#define AXB_IO_DB_POOL_H

#include "axibulk/db.h"
#include "core/pool.h"

/* The pool of axb_pool_workers(axb_db_get_threads(db)) workers, started at the first call; the
 * database destroys it when it closes, after its own readers. Not thread safe: call it from the
 * rank's main thread. */
axb_status axb_db_worker_pool(axb_db *db, axb_pool **pool, axb_error *err);

#endif
