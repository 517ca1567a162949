/* See pool.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/hash.h"
#include "core/pool.h"

typedef struct task {
    axb_pool_fn fn;
    void *arg;
} task;

typedef struct worker_arg {
    axb_pool *p;
    int index;
} worker_arg;

typedef struct ring {
    task *q;
    int64_t head, len, cap;
} ring;

struct axb_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ring r[2]; /* FIFO each; r[1] urgent (axb_task_group_urgent), taken first */
    bool stop;
    int n;
    pthread_t *th;
    worker_arg *wa;
};

/* Takes the next task, urgent ones first; under mu. */
static bool take(axb_pool *p, task *t)
{
    ring *r = p->r[1].len > 0 ? &p->r[1] : &p->r[0];
    if (r->len == 0) return false;
    *t = r->q[r->head];
    r->head = (r->head + 1) % r->cap;
    r->len--;
    return true;
}

static bool queued(const axb_pool *p)
{
    return p->r[0].len + p->r[1].len > 0;
}

/* Appends a task; under mu. */
static bool push(ring *r, task t)
{
    if (r->len == r->cap) {
        const int64_t cap = r->cap ? 2 * r->cap : 64;
        task *nq = malloc((size_t)cap * sizeof *nq);
        if (!nq) return false;
        for (int64_t k = 0; k < r->len; k++) nq[k] = r->q[(r->head + k) % r->cap];
        free(r->q);
        r->q = nq;
        r->head = 0;
        r->cap = cap;
    }
    r->q[(r->head + r->len) % r->cap] = t;
    r->len++;
    return true;
}

static void *worker_main(void *vp)
{
    const worker_arg *wa = vp;
    axb_pool *p = wa->p;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        task t;
        while (!p->stop && !queued(p)) pthread_cond_wait(&p->cv, &p->mu);
        if (!take(p, &t)) break; /* stopping and nothing left */
        pthread_mutex_unlock(&p->mu);
        t.fn(t.arg, wa->index);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

axb_status axb_pool_create(int nthreads, axb_pool **out, axb_error *err)
{
    *out = NULL;
    if (nthreads < 1) nthreads = 1;
    axb_pool *p = calloc(1, sizeof *p);
    if (!p) return axb_error_set(err, AXB_ERR_NOMEM, "thread pool");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->th = calloc((size_t)nthreads, sizeof *p->th);
    p->wa = calloc((size_t)nthreads, sizeof *p->wa);
    if (!p->th || !p->wa) {
        axb_pool_destroy(&p);
        return axb_error_set(err, AXB_ERR_NOMEM, "thread pool");
    }
    for (int i = 0; i < nthreads; i++) {
        p->wa[i] = (worker_arg){p, i};
        if (pthread_create(&p->th[i], NULL, worker_main, &p->wa[i]) != 0) {
            axb_pool_destroy(&p);
            return axb_error_set(err, AXB_ERR_IO, "cannot start worker thread %d of %d", i + 1, nthreads);
        }
        p->n++;
    }
    *out = p;
    return AXB_OK;
}

static axb_status submit(axb_pool *p, bool urgent, axb_pool_fn fn, void *arg, axb_error *err)
{
    pthread_mutex_lock(&p->mu);
    const bool ok = push(&p->r[urgent ? 1 : 0], (task){fn, arg});
    if (ok) pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return ok ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "task queue");
}

axb_status axb_pool_submit(axb_pool *p, axb_pool_fn fn, void *arg, axb_error *err)
{
    return submit(p, false, fn, arg, err);
}

bool axb_pool_help(axb_pool *p)
{
    task t;
    pthread_mutex_lock(&p->mu);
    const bool got = take(p, &t);
    pthread_mutex_unlock(&p->mu);
    if (got) t.fn(t.arg, p->n);
    return got;
}

int axb_pool_size(const axb_pool *p)
{
    return p->n;
}

void axb_pool_destroy(axb_pool **pp)
{
    axb_pool *p = pp ? *pp : NULL;
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n; i++) pthread_join(p->th[i], NULL);
    task t; /* no workers (creation failed part-way): run what is left here */
    while (take(p, &t)) t.fn(t.arg, 0);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->r[0].q);
    free(p->r[1].q);
    free(p->th);
    free(p->wa);
    free(p);
    *pp = NULL;
}

struct axb_task_group {
    axb_pool *pool;
    bool urgent;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t pending; /* under mu */
};

typedef struct group_task {
    axb_task_group *g;
    axb_pool_fn fn;
    void *arg;
} group_task;

static void run_group_task(void *vt, int worker)
{
    group_task *t = vt;
    axb_task_group *g = t->g;
    t->fn(t->arg, worker);
    free(t);
    pthread_mutex_lock(&g->mu);
    /* the waiter sleeps only when nothing is queued, and only it queues: the last task is the one
     * worth waking it for (a wake per task cost a context switch each, ~5 % of an extraction) */
    if (--g->pending == 0) pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

axb_status axb_task_group_create(axb_pool *p, axb_task_group **out, axb_error *err)
{
    axb_task_group *g = calloc(1, sizeof *g);
    *out = g;
    if (!g) return axb_error_set(err, AXB_ERR_NOMEM, "task group");
    g->pool = p;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    return AXB_OK;
}

axb_status axb_task_group_submit(axb_task_group *g, axb_pool_fn fn, void *arg, axb_error *err)
{
    group_task *t = malloc(sizeof *t);
    if (!t) return axb_error_set(err, AXB_ERR_NOMEM, "task");
    *t = (group_task){g, fn, arg};
    pthread_mutex_lock(&g->mu);
    g->pending++;
    pthread_mutex_unlock(&g->mu);
    const axb_status st = submit(g->pool, g->urgent, run_group_task, t, err);
    if (st) {
        free(t);
        pthread_mutex_lock(&g->mu);
        g->pending--;
        pthread_mutex_unlock(&g->mu);
    }
    return st;
}

void axb_task_group_urgent(axb_task_group *g)
{
    g->urgent = true;
}

void axb_task_group_wait(axb_task_group *g)
{
    pthread_mutex_lock(&g->mu);
    while (g->pending > 0) {
        pthread_mutex_unlock(&g->mu);
        const bool helped = axb_pool_help(g->pool);
        pthread_mutex_lock(&g->mu);
        if (!helped && g->pending > 0) pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
}

void axb_task_group_free(axb_task_group **pg)
{
    axb_task_group *g = pg ? *pg : NULL;
    if (!g) return;
    axb_task_group_wait(g);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
    *pg = NULL;
}

int axb_threads_default(MPI_Comm comm)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    int ncpu = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    if (ncpu < 1) ncpu = 1;
    /* ranks of this node with the same mask share its CPUs */
    uint64_t key = axb_hash_bytes(AXB_HASH_INIT, &set, sizeof set);
    MPI_Comm node = MPI_COMM_NULL;
    int same = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        int nn = 1;
        MPI_Comm_size(node, &nn);
        uint64_t *keys = malloc((size_t)nn * sizeof *keys);
        if (keys && MPI_Allgather(&key, 1, MPI_UINT64_T, keys, 1, MPI_UINT64_T, node) == MPI_SUCCESS) {
            same = 0;
            for (int i = 0; i < nn; i++) same += keys[i] == key;
        }
        free(keys);
        MPI_Comm_free(&node);
    }
    const int n = ncpu / (same > 0 ? same : 1);
    return n > 0 ? n : 1;
}

typedef struct range_task {
    axb_range_fn fn;
    void *ctx;
    int64_t k0, k1, first;
} range_task;

static void run_range(void *arg, int worker) /* the ranges belong to axb_pool_first_failure */
{
    (void)worker;
    range_task *r = arg;
    r->first = r->fn(r->ctx, r->k0, r->k1);
}

int64_t axb_pool_first_failure(axb_pool *p, int64_t n, int64_t nranges, int64_t min_items, axb_range_fn fn, void *ctx)
{
    if (min_items < 1) min_items = 1;
    if (nranges > n / min_items) nranges = n / min_items;
    range_task *r = p && nranges >= 2 ? calloc((size_t)nranges, sizeof *r) : NULL;
    axb_task_group *g = NULL;
    axb_error ignored = AXB_ERROR_INIT;
    if (!r || axb_task_group_create(p, &g, &ignored) != AXB_OK) {
        axb_task_group_free(&g);
        free(r);
        return fn(ctx, 0, n);
    }
    axb_task_group_urgent(g); /* the caller waits for them */
    int64_t done = 0;         /* items [0, done) are in submitted ranges; the rest runs here */
    for (int64_t i = 0; i < nranges; i++) {
        r[i] = (range_task){fn, ctx, n * i / nranges, n * (i + 1) / nranges, 0};
        if (axb_task_group_submit(g, run_range, &r[i], &ignored) != AXB_OK) break;
        done = r[i].k1;
    }
    const int64_t rest = done < n ? fn(ctx, done, n) : n;
    axb_task_group_wait(g);
    axb_task_group_free(&g);
    int64_t first = rest;
    for (int64_t i = 0; i < nranges && r[i].k1 <= done; i++)
        if (r[i].first < r[i].k1) {
            first = r[i].first;
            break;
        }
    free(r);
    return first;
}
