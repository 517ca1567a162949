/* The thread pool (core/pool.h): every task of a group runs exactly once, on a worker index in
 * 0..size (size = the caller helping), and the group's wait returns only after the last one;
 * results written by the tasks are visible after the wait; a one-thread pool with a helping
 * caller finishes too; destroying a pool runs what is still queued; groups of different waiters
 * share a pool. */
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "core/pool.h"

#define NTASK 2000

typedef struct job {
    int *hits; /* per task */
    int *worker;
    int index;
} job;

static void work(void *arg, int w)
{
    job *j = arg;
    /* some work so that tasks overlap */
    volatile double x = 0;
    for (int i = 0; i < 2000; i++) x += (double)i * 1e-9;
    j->hits[j->index]++;
    j->worker[j->index] = w;
    free(j);
}

static void run_group(check_ctx *T, axb_pool *p, int *hits, int *worker)
{
    axb_error err = AXB_ERROR_INIT;
    axb_task_group *g = NULL;
    CHECK(T, axb_task_group_create(p, &g, &err) == AXB_OK && g);
    for (int i = 0; g && i < NTASK; i++) {
        job *j = malloc(sizeof *j);
        *j = (job){hits, worker, i};
        CHECK(T, axb_task_group_submit(g, work, j, &err) == AXB_OK);
    }
    if (g) axb_task_group_wait(g);
    int once = 0, range = 0;
    for (int i = 0; i < NTASK; i++) {
        once += hits[i] == 1;
        range += worker[i] >= 0 && worker[i] <= axb_pool_size(p);
    }
    CHECK_MSG(T, once == NTASK, "%d of %d tasks ran exactly once", once, NTASK);
    CHECK_MSG(T, range == NTASK, "%d of %d worker indices in range", range, NTASK);
    axb_task_group_free(&g);
    CHECK(T, g == NULL);
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    axb_error err = AXB_ERROR_INIT;
    for (int threads = 1; threads <= 3; threads++) {
        axb_pool *p = NULL;
        CHECK(&T, axb_pool_create(threads, &p, &err) == AXB_OK && p && axb_pool_size(p) == threads);
        int *hits = calloc(2 * NTASK, sizeof *hits), *worker = calloc(2 * NTASK, sizeof *worker);
        run_group(&T, p, hits, worker);
        /* a second group on the same pool, the first one gone */
        run_group(&T, p, hits + NTASK, worker + NTASK);
        /* queued tasks outside any group still run by destroy */
        for (int i = 0; i < 100; i++) {
            job *j = malloc(sizeof *j);
            *j = (job){hits, worker, i};
            CHECK(&T, axb_pool_submit(p, work, j, &err) == AXB_OK);
        }
        axb_pool_destroy(&p);
        int twice = 0;
        for (int i = 0; i < 100; i++) twice += hits[i] == 2;
        CHECK_MSG(&T, twice == 100 && p == NULL, "%d of 100 queued tasks ran at destroy", twice);
        free(hits);
        free(worker);
    }
    axb_pool_destroy(NULL);
    axb_task_group_free(NULL);
    return check_summary(&T);
}
