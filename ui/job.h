/* job — background work for a screen (a probe, a search, a transfer). A
 * worker thread runs fn; it publishes progress in atomic counters and reads
 * a cancel flag; the UI thread polls them on its timer and never waits on
 * the worker except to join a finished or cancelled one. Workers never
 * touch curses (STYLE rule 5). */
#ifndef SLUICE_UI_JOB_H
#define SLUICE_UI_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include "core/err.h"

#define JOB_VALUES 8

enum job_state { JOB_IDLE, JOB_RUNNING, JOB_DONE };

struct job;
/* Returns 0, or -1 with e filled; runs on the worker thread. */
typedef int (*job_fn)(struct job *j, void *arg, sl_err *e);

struct job {
    atomic_int state;
    atomic_bool cancel;
    atomic_llong done, total;          /* progress in any unit */
    atomic_llong ends_after_ms;        /* the worker's own estimate of when it ends, from its
                                          start (0: none; job_set_ends_after) */
    atomic_llong value[JOB_VALUES];    /* live figures the screen defines */
    /* Owned by the worker until state is JOB_DONE, then by the UI. */
    int rc;
    sl_err err;
    pthread_t thread;
    job_fn fn;
    void *arg;
    bool joinable;
    /* The UI's clock (app_now_ms) when the screen started it and when it
     * reaped it (0: not yet): what the progress line counts from. */
    long long started_ms, ended_ms;
};

/* Start fn(arg) on a new thread (SIGINT/SIGTERM/SIGHUP blocked there, so
 * the UI thread sees them). -1 when a job is still running or the thread
 * cannot start. */
int job_start(struct job *j, job_fn fn, void *arg, sl_err *e);
bool job_running(const struct job *j);
/* True once, when the worker has finished: joins it; j->rc and j->err are
 * then the result. */
bool job_reap(struct job *j);
/* Ask the worker to stop (it checks job_cancelled between steps). */
void job_cancel(struct job *j);
bool job_cancelled(const struct job *j);
/* Cancel and join (quit, signal): returns when the worker is gone. */
void job_stop(struct job *j);
/* For the worker. */
void job_set_progress(struct job *j, long long done, long long total);
/* The worker's estimate of when it ends, in ms from its start (a search
 * knows its budget: the time left never runs past it); the progress line
 * counts down from it instead of from the pace of the units done. */
void job_set_ends_after(struct job *j, long long ms);
/* The total before the worker knows it (the screen's plan): only while
 * no total is set. */
void job_set_total(struct job *j, long long total);
/* 0..1, or -1 when the total is unknown. */
double job_fraction(const struct job *j);
/* A time as a clock reads it: "4.2s", "45s", "3m20s", "1h05m". */
void job_clock_text(long long ms, char *buf, size_t n);
/* The progress line of a job counting `unit`s ("evaluation", "repetition")
 * against its total: "evaluation 8 of 20, 1m10s elapsed, about 2m05s
 * left" while it runs (the time left from the worker's estimate of its
 * end when it gave one, else from the units done, before the first from
 * unit_s, the estimate of one; 0: unknown), "20 evaluations of
 * 20 in 3m12s" after. now_ms on the clock of started_ms. */
void job_progress_text(const struct job *j, const char *unit, long long now_ms, double unit_s, char *buf, size_t n);

#endif
