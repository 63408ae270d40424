/* live — the histogram and canary counts of the repetition being measured,
 * for a UI to poll while it runs (probe.h, struct probe_live). Workers only
 * ever lock their own copy, for a memcpy-sized moment every 100 ms; the
 * sampling thread merges the copies; readers copy the merge out. */
#include "probe/workload.h"

#include <stdlib.h>
#include <string.h>

#define PUBLISH_NS 100000000ull

void probe_live_init(struct probe_live *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    hist_init(&l->lat);
}

void probe_live_destroy(struct probe_live *l) { pthread_mutex_destroy(&l->mu); }

uint64_t probe_live_copy(struct probe_live *l, struct hist *lat, int *rep)
{
    pthread_mutex_lock(&l->mu);
    uint64_t seq = l->seq;
    *lat = l->lat;
    if (rep) *rep = l->rep;
    pthread_mutex_unlock(&l->mu);
    return seq;
}

static struct probe_live *live_of(const struct probe_ctx *c) { return c->progress ? c->progress->live : NULL; }

void probe_thread_publish(struct probe_thread *t, uint64_t now_ns)
{
    if (!live_of(t->ctx)) { t->pub_next_ns = UINT64_MAX; return; }
    pthread_mutex_lock(&t->pub_mu);
    hist_init(&t->pub);
    hist_merge(&t->pub, &t->hist[PROBE_READ]);
    hist_merge(&t->pub, &t->hist[PROBE_WRITE]);
    pthread_mutex_unlock(&t->pub_mu);
    t->pub_next_ns = now_ns + PUBLISH_NS;
}

void probe_live_publish(struct probe_ctx *c, struct probe_thread *th, int n)
{
    struct probe_live *l = live_of(c);
    if (!l) return;
    struct hist *sum = xmalloc(sizeof *sum);
    hist_init(sum);
    /* Earlier phases of this repetition are merged into the result already. */
    hist_merge(sum, &c->result->op[PROBE_READ].hist);
    hist_merge(sum, &c->result->op[PROBE_WRITE].hist);
    for (int i = 0; th && i < n; i++) {
        pthread_mutex_lock(&th[i].pub_mu);
        hist_merge(sum, &th[i].pub);
        pthread_mutex_unlock(&th[i].pub_mu);
    }
    pthread_mutex_lock(&l->mu);
    l->lat = *sum;
    l->seq++;
    pthread_mutex_unlock(&l->mu);
    free(sum);
}

void probe_live_begin(struct probe_ctx *c, int rep)
{
    struct probe_live *l = live_of(c);
    if (!l) return;
    pthread_mutex_lock(&l->mu);
    hist_init(&l->lat);
    l->rep = rep;
    l->seq++;
    pthread_mutex_unlock(&l->mu);
    atomic_store(&l->canary_ticks, 0);
    atomic_store(&l->canary_max_ns, 0);
    atomic_store(&l->canary_over_100ms, 0);
    atomic_store(&l->canary_over_1s, 0);
    atomic_store(&l->canary_over_2s, 0);
}
