/**
 * @file timefmt.h
 * @brief UTC times as int64 nanoseconds since 1970-01-01T00:00:00Z (exact, no leap seconds,
 *        like ObsPy's UTCDateTime and ASDF's starting_time), with parsing and formatting.
 */
#ifndef AXIBULK_TIMEFMT_H
#define AXIBULK_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Nanoseconds since the epoch. */
typedef int64_t axb_time_ns;

#define AXB_NS_PER_S INT64_C(1000000000)

/** The years a time may fall in: int64 nanoseconds reach from 1677-09-21 to 2262-04-11, and the
 *  whole years inside leave some months of room for the offsets added later (record start,
 *  length). Every parser refuses times outside. */
#define AXB_TIME_MIN_YEAR 1678
#define AXB_TIME_MAX_YEAR 2261

/** Parses ISO 8601: "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS[.fffffffff]]" with an optional "Z" or
 *  "+HH:MM"/"-HH:MM" offset; a space may stand for "T". Fields are range-checked; the time (after
 *  the offset) must lie in years AXB_TIME_MIN_YEAR..AXB_TIME_MAX_YEAR (AXB_ERR_RANGE). */
AXB_NODISCARD axb_status axb_time_parse(const char *s, axb_time_ns *t, axb_error *err);

/** From calendar fields (UTC); seconds may carry a fraction. Fields are range-checked, the year
 *  against AXB_TIME_MIN_YEAR..AXB_TIME_MAX_YEAR. */
AXB_NODISCARD axb_status axb_time_from_fields(int year, int month, int day, int hour, int minute, double second,
                                              axb_time_ns *t, axb_error *err);

/** "YYYY-MM-DDTHH:MM:SS.ffffffZ" (microseconds), needs 32 bytes. */
void axb_time_format(axb_time_ns t, char *buf, size_t size);

/** "YYYY-MM-DDTHH:MM:SS" (whole seconds, truncated), the form ASDF uses in trace names. */
void axb_time_format_seconds(axb_time_ns t, char *buf, size_t size);

/** A duration for progress lines, days included: "3d 04:05:06", or "--" when unknown (negative
 *  or not finite). Needs 32 bytes. */
void axb_format_duration(double seconds, char *buf, size_t size);

/** Seconds on a monotonic clock (for rates and ETAs, not for dates). */
double axb_wall_seconds(void);

/** CPU seconds the calling thread has used. Unlike wall time it does not grow while the thread
 *  waits for a core, so per-stage splits stay true when threads outnumber cores. A system call
 *  (~0.4 us here): take it per task, not per item. */
double axb_thread_cpu_seconds(void);

/** Seconds as nanoseconds, rounded to the nearest; for durations within ±9e9 s (beyond, the
 *  result saturates there). */
axb_time_ns axb_time_from_seconds(double s);

/** @p t plus @p seconds into *out, refused (AXB_ERR_RANGE, naming the valid years) when
 *  @p seconds is not finite or the sum leaves years AXB_TIME_MIN_YEAR..AXB_TIME_MAX_YEAR. Every
 *  offset added to a time read from a file goes through here. */
AXB_NODISCARD axb_status axb_time_add_seconds(axb_time_ns t, double seconds, axb_time_ns *out, axb_error *err);

#ifdef __cplusplus
}
#endif
#endif
