/* A minimal test harness: CHECK* record failures with file:line and keep going; check_summary()
 * prints the "N passed, N failed" line ctest logs show and returns the exit code.
 * Counters live in a struct owned by the test's main. */
#ifndef AXB_TESTS_CHECK_H
#define AXB_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct check_ctx {
    int passed, failed;
    int rank; /* only rank 0 prints the summary; failures print everywhere */
} check_ctx;

#define CHECK(T, cond)                                                                                                 \
    do {                                                                                                               \
        if (cond)                                                                                                      \
            (T)->passed++;                                                                                             \
        else {                                                                                                         \
            (T)->failed++;                                                                                             \
            fprintf(stderr, "[rank %d] %s:%d: CHECK failed: %s\n", (T)->rank, __FILE__, __LINE__, #cond);              \
        }                                                                                                              \
    } while (0)

#define CHECK_MSG(T, cond, ...)                                                                                        \
    do {                                                                                                               \
        if (cond)                                                                                                      \
            (T)->passed++;                                                                                             \
        else {                                                                                                         \
            (T)->failed++;                                                                                             \
            fprintf(stderr, "[rank %d] %s:%d: CHECK failed: %s: ", (T)->rank, __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

/* |a - b| <= tol, reported with both values. */
#define CHECK_CLOSE(T, a, b, tol)                                                                                      \
    do {                                                                                                               \
        double ca_ = (double)(a), cb_ = (double)(b);                                                                   \
        CHECK_MSG(T, fabs(ca_ - cb_) <= (tol), "%.17g vs %.17g (tol %g)", ca_, cb_, (double)(tol));                    \
    } while (0)

#define CHECK_STR(T, a, b) CHECK_MSG(T, strcmp((a), (b)) == 0, "'%s' vs '%s'", (a), (b))
#define CHECK_CONTAINS(T, hay, needle)                                                                                 \
    CHECK_MSG(T, strstr((hay), (needle)) != NULL, "'%s' does not contain '%s'", (hay), (needle))

static inline int check_summary(const check_ctx *t)
{
    if (t->rank == 0) printf("%d passed, %d failed\n", t->passed, t->failed);
    return t->failed ? 1 : 0;
}

/* ctest treats this exit code as "skipped" (SKIP_RETURN_CODE), never as passed. */
#define CHECK_SKIP 77

#endif
