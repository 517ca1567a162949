/**
 * @file status.h
 * @brief Status codes and the error object every fallible axibulk function reports through.
 *
 * Every fallible function returns an ::axb_status and takes an ::axb_error* as its last argument.
 * The innermost failure writes the message (axb_error_set); each caller on the way up may prepend
 * its context (file, variable, element, rank) with axb_error_prefix, so the user reads one line
 * that says what failed where:  "PZ/Data/ordered_output.nc4: attribute 'npol': not found".
 * There is no global error state: the error object belongs to the caller.
 */
#ifndef AXIBULK_STATUS_H
#define AXIBULK_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define AXB_NODISCARD __attribute__((warn_unused_result))
#define AXB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AXB_NODISCARD
#define AXB_PRINTF(f, a)
#endif

/** Status codes. 0 is success; every error is positive and has a text from axb_strerror(). */
typedef enum axb_status {
    AXB_OK = 0,
    AXB_ERR_ARG,         /**< bad argument or option (usage error) */
    AXB_ERR_IO,          /**< a file or directory could not be found, read or written */
    AXB_ERR_FORMAT,      /**< a file exists but is not what it should be (foreign, truncated, malformed) */
    AXB_ERR_RANGE,       /**< a value outside what the database or the option allows */
    AXB_ERR_UNSUPPORTED, /**< valid input that axibulk does not handle (yet) */
    AXB_ERR_HDF5,        /**< the HDF5 library failed where the input looked fine */
    AXB_ERR_MPI,         /**< an MPI call failed */
    AXB_ERR_NOMEM,       /**< out of memory */
    AXB_ERR_REMOTE,      /**< another MPI rank failed; its message is reported there */
    AXB_ERR_INTERNAL,    /**< a bug in axibulk */
    AXB_ERR_RESOURCE     /**< the machine ran out of something while running (disk space, quota) or its
                              storage failed (I/O error): the same command may succeed elsewhere */
} axb_status;

/** Longest message an ::axb_error keeps (longer ones are truncated with "..."). */
#define AXB_ERRMSG_MAX 1024

/** An error report: a code and a one-line message built from the innermost cause outwards. */
typedef struct axb_error {
    axb_status code;          /**< AXB_OK while nothing has failed */
    char msg[AXB_ERRMSG_MAX]; /**< NUL-terminated, no newline */
} axb_error;

/** A ready-to-use empty error, for `axb_error err = AXB_ERROR_INIT;`. */
/* clang-format off */
#define AXB_ERROR_INIT {AXB_OK, {0}}
/* clang-format on */

/** Short text for a status code ("input/output error", ...). Never NULL. */
const char *axb_strerror(axb_status code);

/** Sets code and message (printf-style) and returns @p code, so `return axb_error_set(...)` works.
 *  @p err may be NULL (the message is then dropped). */
axb_status axb_error_set(axb_error *err, axb_status code, const char *fmt, ...) AXB_PRINTF(3, 4);

/** Prepends "<context>: " to the message and returns the stored code. */
axb_status axb_error_prefix(axb_error *err, const char *fmt, ...) AXB_PRINTF(2, 3);

/** Clears @p err back to AXB_OK with an empty message. */
void axb_error_clear(axb_error *err);

/** Return @p expr's status from the current function if it failed. */
#define AXB_TRY(expr)                                                                                                  \
    do {                                                                                                               \
        axb_status axb_try_st_ = (expr);                                                                               \
        if (axb_try_st_ != AXB_OK) return axb_try_st_;                                                                 \
    } while (0)

/** Like AXB_TRY, but first prepends a context (printf-style) to the error message. */
#define AXB_TRY_CTX(err, expr, ...)                                                                                    \
    do {                                                                                                               \
        axb_status axb_try_st_ = (expr);                                                                               \
        if (axb_try_st_ != AXB_OK) {                                                                                   \
            axb_error_prefix((err), __VA_ARGS__);                                                                      \
            return axb_try_st_;                                                                                        \
        }                                                                                                              \
    } while (0)

/** Store @p expr's status in @p st and jump to @p label on failure (for functions with cleanup). */
#define AXB_TRY_GOTO(st, expr, label)                                                                                  \
    do {                                                                                                               \
        (st) = (expr);                                                                                                 \
        if ((st) != AXB_OK) goto label;                                                                                \
    } while (0)

/** Fail with @p code and a message unless @p cond holds. Always on (not an assert). */
#define AXB_CHECK(err, cond, code, ...)                                                                                \
    do {                                                                                                               \
        if (!(cond)) return axb_error_set((err), (code), __VA_ARGS__);                                                 \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
