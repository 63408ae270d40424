/* job — a worker thread with atomic progress and a cancel flag. */
#include "job.h"

#include <signal.h>
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

double job_fraction(const struct job *j)
{
    long long t = atomic_load(&j->total), d = atomic_load(&j->done);
    if (t <= 0) return -1;
    return d >= t ? 1.0 : (double)d / (double)t;
}
