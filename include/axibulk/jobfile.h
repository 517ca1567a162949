/**
 * @file jobfile.h
 * @brief YAML job files: a flat mapping of option names to scalar values, e.g.
 *
 *     db: /data/prem_a_2s
 *     pairs: inputs/pairs.txt
 *     components: ZNE
 *     dt: 0.5
 *
 * Keys are the long command-line option names ("remove-source-shift" or "remove_source_shift").
 * Nested mappings and sequences are refused with the line they start on.
 */
#ifndef AXIBULK_JOBFILE_H
#define AXIBULK_JOBFILE_H

#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct axb_job_entry {
    char *key; /**< normalised: '_' replaced by '-' */
    char *value;
    int line; /**< 1-based line of the key, for messages */
} axb_job_entry;

typedef struct axb_job {
    int n;
    axb_job_entry *e;
} axb_job;

/** Reads @p path. Duplicate keys are an error. */
AXB_NODISCARD axb_status axb_job_read(const char *path, axb_job *job, axb_error *err);
void axb_job_free(axb_job *job);

#ifdef __cplusplus
}
#endif
#endif
