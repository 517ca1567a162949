/* The thread pool (core/pool.h): every task of a group runs exactly once, on a worker index in
 * 0..size (size = the caller helping), and the group's wait returns only after the last one;
 * results written by the tasks are visible after the wait; a one-thread pool with a helping
 * caller finishes too; destroying a pool runs what is still queued; groups of different waiters
 * share a pool; an urgent group's tasks run before tasks queued earlier without it;
 * axb_pool_first_failure finds the first failing item a serial scan finds, visiting
 * every item once when none fails. */
#include <pthread.h>
#include <stdbool.h>
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

typedef struct scan {
    const char *fails; /* [n] 1: the item fails */
    int *visits;       /* [n] */
} scan;

static int64_t scan_range(void *vctx, int64_t k0, int64_t k1)
{
    const scan *x = vctx;
    for (int64_t k = k0; k < k1; k++) {
        x->visits[k]++;
        if (x->fails[k]) return k;
    }
    return k1;
}

static void test_first_failure(check_ctx *T, axb_pool *p)
{
    enum { N = 1000 };
    char fails[N];
    int visits[N];
    const int64_t sizes[] = {0, 1, 7, N};
    const int64_t bad_sets[][2] = {{-1, -1}, {500, -1}, {3, 900}, {N - 1, -1}, {0, 999}};
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t b = 0; b < sizeof bad_sets / sizeof bad_sets[0]; b++)
            for (int64_t nr = 1; nr <= 16; nr *= 4) {
                const int64_t n = sizes[a];
                int64_t want = n;
                for (int64_t k = 0; k < n; k++) {
                    fails[k] = k == bad_sets[b][0] || k == bad_sets[b][1];
                    visits[k] = 0;
                    if (fails[k] && want == n) want = k;
                }
                scan x = {fails, visits};
                const int64_t got = axb_pool_first_failure(p, n, nr, 10, scan_range, &x);
                CHECK_MSG(T, got == want, "n %lld, %lld ranges, pool of %d: first failure %lld, want %lld",
                          (long long)n, (long long)nr, p ? axb_pool_size(p) : 0, (long long)got, (long long)want);
                int once = 0;
                for (int64_t k = 0; k < n; k++) once += visits[k] == 1;
                if (want == n)
                    CHECK_MSG(T, once == n, "n %lld, %lld ranges: %d of the items checked once", (long long)n,
                              (long long)nr, once);
            }
}

typedef struct order {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool entered; /* the worker holds the gate */
    bool open;    /* the gate task may return */
    int seq[8];   /* task ids in the order they ran */
    int nseq;
} order;

typedef struct step {
    order *o;
    int id;
} step;

static void gate(void *arg, int w)
{
    (void)w;
    order *o = arg;
    pthread_mutex_lock(&o->mu);
    o->entered = true;
    pthread_cond_broadcast(&o->cv);
    while (!o->open) pthread_cond_wait(&o->cv, &o->mu);
    pthread_mutex_unlock(&o->mu);
}

static void record(void *arg, int w)
{
    (void)w;
    step *s = arg;
    pthread_mutex_lock(&s->o->mu);
    s->o->seq[s->o->nseq++] = s->id;
    pthread_mutex_unlock(&s->o->mu);
}

/* One worker held by a gate; then plain tasks 1, 2, 3 and urgent tasks 10, 11 are queued; opened,
 * the worker must run 10, 11 before 1, 2, 3 (each kind in its own order). */
static void test_urgent(check_ctx *T)
{
    axb_error err = AXB_ERROR_INIT;
    axb_pool *p = NULL;
    order o = {.entered = false, .open = false, .nseq = 0};
    pthread_mutex_init(&o.mu, NULL);
    pthread_cond_init(&o.cv, NULL);
    axb_task_group *plain = NULL, *urgent = NULL;
    CHECK(T, axb_pool_create(1, &p, &err) == AXB_OK);
    CHECK(T, axb_task_group_create(p, &plain, &err) == AXB_OK && axb_task_group_create(p, &urgent, &err) == AXB_OK);
    if (!p || !plain || !urgent) return;
    axb_task_group_urgent(urgent);
    step st[5] = {{&o, 1}, {&o, 2}, {&o, 3}, {&o, 10}, {&o, 11}};
    CHECK(T, axb_task_group_submit(plain, gate, &o, &err) == AXB_OK);
    /* the worker holds the gate before anything else is queued (the caller does not help here) */
    pthread_mutex_lock(&o.mu);
    while (!o.entered) pthread_cond_wait(&o.cv, &o.mu);
    pthread_mutex_unlock(&o.mu);
    for (int k = 0; k < 3; k++) CHECK(T, axb_task_group_submit(plain, record, &st[k], &err) == AXB_OK);
    for (int k = 3; k < 5; k++) CHECK(T, axb_task_group_submit(urgent, record, &st[k], &err) == AXB_OK);
    pthread_mutex_lock(&o.mu);
    o.open = true;
    pthread_cond_broadcast(&o.cv);
    pthread_mutex_unlock(&o.mu);
    axb_pool_destroy(&p); /* joins the worker: everything has run */
    const int want[5] = {10, 11, 1, 2, 3};
    int same = o.nseq == 5;
    for (int k = 0; k < 5 && same; k++) same = o.seq[k] == want[k];
    CHECK_MSG(T, same, "order %d %d %d %d %d (of %d), want 10 11 1 2 3", o.seq[0], o.seq[1], o.seq[2], o.seq[3],
              o.seq[4], o.nseq);
    axb_task_group_free(&plain);
    axb_task_group_free(&urgent);
    pthread_mutex_destroy(&o.mu);
    pthread_cond_destroy(&o.cv);
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
        test_first_failure(&T, p);
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
    test_first_failure(&T, NULL);
    test_urgent(&T);
    axb_pool_destroy(NULL);
    axb_task_group_free(NULL);
    return check_summary(&T);
}
