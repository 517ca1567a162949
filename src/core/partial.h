/* Nothing lost: the one protocol every output of a long job follows.
 *   NAME.partial          the output while it is written (file or folder)
 *   NAME.partial.record   what is finished in it: a header naming the job, then appended,
 *                         checksummed lists of finished units (rows, elements)
 *   NAME                  appears only by rename, when the output is complete
 * A kill leaves .partial and .record; --resume trusts exactly the units in intact records (a torn
 * last record and anything after it is ignored), --force starts again. Single-process functions:
 * the engines call them on one rank and agree on the outcome (core/agree.h). */
#ifndef AXB_CORE_PARTIAL_H
#define AXB_CORE_PARTIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"

#define AXB_PARTIAL_PATH_MAX 4096

typedef struct axb_partial {
    char final[AXB_PARTIAL_PATH_MAX];
    char partial[AXB_PARTIAL_PATH_MAX + 16];
    char record[AXB_PARTIAL_PATH_MAX + 32];
} axb_partial;

typedef enum axb_partial_mode {
    AXB_PARTIAL_NEW,   /* refuse if NAME or NAME.partial exists */
    AXB_PARTIAL_FORCE, /* replace NAME (at publish) and any NAME.partial (now) */
    AXB_PARTIAL_RESUME /* NAME.partial and its record must exist, NAME must not */
} axb_partial_mode;

/* Fills the three names from @p final. Fails on a path too long to hold them. */
AXB_NODISCARD axb_status axb_partial_names(const char *final, axb_partial *p, axb_error *err);

/* Checks the names against @p mode and, for NEW and FORCE, clears what an earlier run left (the
 * .partial file or folder and its record). Messages name the file and the option that helps. */
AXB_NODISCARD axb_status axb_partial_prepare(const axb_partial *p, axb_partial_mode mode, axb_error *err);

/* True for a run to resume that recorded nothing finished: NAME does not exist, NAME.partial
 * does, and the record is missing or holds no complete list of units (killed before its first record). Nothing in
 * NAME.partial can then be trusted, so the run starts again from nothing instead of refusing. */
bool axb_partial_nothing_recorded(const axb_partial *p);

/* Starts the record: a header line "axibulk-record 2 <kind> <identity>" (identity: whatever
 * determines the output, e.g. unit count and storage; no newline). Replaces an old record. */
AXB_NODISCARD axb_status axb_partial_record_start(const axb_partial *p, const char *kind, const char *identity,
                                                  axb_error *err);

/* Appends one list of finished units (any order) and makes it durable (fsync). */
AXB_NODISCARD axb_status axb_partial_record_add(const axb_partial *p, int64_t n, const int64_t *units, axb_error *err);

/* Reads the record: the header must match @p kind and @p identity (else a one-line refusal that
 * shows both); marks done[u] = 1 for every unit 0 <= u < nunits of every intact list and counts
 * the newly marked ones in *ndone. */
AXB_NODISCARD axb_status axb_partial_record_read(const axb_partial *p, const char *kind, const char *identity,
                                                 int64_t nunits, uint8_t *done, int64_t *ndone, axb_error *err);

/* Makes the output visible: renames NAME.partial to NAME (a folder replaces an old NAME only
 * once the new one is complete), syncs the parent folder and removes the record. */
AXB_NODISCARD axb_status axb_partial_publish(const axb_partial *p, axb_error *err);

/* Removes a path and, for a folder, everything below it (used for .partial folders). */
int axb_remove_tree(const char *path);

#endif
