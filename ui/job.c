/* job — a worker thread with atomic progress and a cancel flag. */
#include "ui/job.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static void *trampoline(void *p)
{
    struct job *j = p;
    sl_err_clear(&j->err);
    j->rc = j->fn(j, j->arg, &j->err);
    atomic_store(&j->state, JOB_DONE);
    return NULL;
}

int job_start(struct job *j, job_fn fn, void *arg, sl_err *e)
{
    if (atomic_load(&j->state) == JOB_RUNNING || j->joinable)
        return sl_fail(e, SL_EBUSY, "work is still running here: wait for it or cancel it first");
    atomic_store(&j->cancel, false);
    atomic_store(&j->done, 0);
    atomic_store(&j->total, 0);
    atomic_store(&j->ends_after_ms, 0);
    for (int i = 0; i < JOB_VALUES; i++) atomic_store(&j->value[i], 0);
    j->fn = fn;
    j->arg = arg;
    j->rc = 0;
    atomic_store(&j->state, JOB_RUNNING);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGWINCH);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(&j->thread, NULL, trampoline, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        atomic_store(&j->state, JOB_IDLE);
        return sl_fail_errno(e, SL_EFAIL, rc, "starting a worker thread");
    }
    j->joinable = true;
    return 0;
}

bool job_running(const struct job *j)
{
    return atomic_load(&j->state) == JOB_RUNNING;
}

bool job_reap(struct job *j)
{
    if (!j->joinable || atomic_load(&j->state) != JOB_DONE) return false;
    pthread_join(j->thread, NULL);
    j->joinable = false;
    atomic_store(&j->state, JOB_IDLE);
    return true;
}

void job_cancel(struct job *j) { atomic_store(&j->cancel, true); }
bool job_cancelled(const struct job *j) { return atomic_load(&j->cancel); }

void job_stop(struct job *j)
{
    if (!j->joinable) return;
    job_cancel(j);
    pthread_join(j->thread, NULL);
    j->joinable = false;
    atomic_store(&j->state, JOB_IDLE);
}

void job_set_progress(struct job *j, long long done, long long total)
{
    atomic_store(&j->total, total);
    atomic_store(&j->done, done);
}

void job_set_ends_after(struct job *j, long long ms) { atomic_store(&j->ends_after_ms, ms > 0 ? ms : 1); }

void job_set_total(struct job *j, long long total)
{
    long long none = 0;
    atomic_compare_exchange_strong(&j->total, &none, total);
}

double job_fraction(const struct job *j)
{
    long long t = atomic_load(&j->total), d = atomic_load(&j->done);
    if (t <= 0) return -1;
    return d >= t ? 1.0 : (double)d / (double)t;
}

void job_clock_text(long long ms, char *buf, size_t n)
{
    long long t = ms / 1000;
    if (t < 10) snprintf(buf, n, "%.1fs", (double)ms / 1000);
    else if (t < 60) snprintf(buf, n, "%llds", t);
    else if (t < 3600) snprintf(buf, n, "%lldm%02llds", t / 60, t % 60);
    else snprintf(buf, n, "%lldh%02lldm", t / 3600, t / 60 % 60);
}

void job_progress_text(const struct job *j, const char *unit, long long now_ms, double unit_s, char *buf, size_t n)
{
    long long done = atomic_load(&j->done), total = atomic_load(&j->total);
    bool running = job_running(j) || !j->ended_ms;
    long long el_ms = (running ? now_ms : j->ended_ms) - j->started_ms;
    char el[32], left[32], of[32] = "";
    job_clock_text(el_ms > 0 ? el_ms : 0, el, sizeof el);
    if (total > 0) snprintf(of, sizeof of, " of %lld", total);
    if (!running) {
        snprintf(buf, n, "%lld %s%s%s in %s", done, unit, done == 1 ? "" : "s", of, el);
        return;
    }
    double left_ms = -1;
    long long ends_after = atomic_load(&j->ends_after_ms);
    if (ends_after > 0) left_ms = (double)(ends_after - el_ms) > 0 ? (double)(ends_after - el_ms) : 0;
    else if (total > done && done > 0) left_ms = (double)el_ms / (double)done * (double)(total - done);
    else if (total > done && unit_s > 0) left_ms = unit_s * 1000 * (double)(total - done) - (double)el_ms;
    if (left_ms < 0) left_ms = total > done && unit_s > 0 ? 0 : -1;
    job_clock_text((long long)left_ms, left, sizeof left);
    snprintf(buf, n, "%s %lld%s, %s elapsed%s%s%s", unit, done + 1 > total && total > 0 ? total : done + 1, of, el,
             left_ms >= 0 ? ", about " : "", left_ms >= 0 ? left : "", left_ms >= 0 ? " left" : "");
}
