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

/** Parses ISO 8601: "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS[.fffffffff]]" with an optional "Z" or
 *  "+HH:MM"/"-HH:MM" offset; a space may stand for "T". Fields are range-checked. */
AXB_NODISCARD axb_status axb_time_parse(const char *s, axb_time_ns *t, axb_error *err);

/** From calendar fields (UTC); seconds may carry a fraction. Fields are range-checked. */
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

/** Seconds as nanoseconds, rounded to the nearest. */
axb_time_ns axb_time_from_seconds(double s);

#ifdef __cplusplus
}
#endif
#endif
