/* probe_internal — what the probe module's files share and nobody else uses. */
#ifndef SLUICE_PROBE_INTERNAL_H
#define SLUICE_PROBE_INTERNAL_H

#include "probe/workload.h"
#include "db/store.h"

/* config.c */
void probe_sha256_hex(const char *text, char out[65]);
/* The knob values in force for the vm and the disk (may be ""), as sorted
 * "name=value\n" text (malloc'ed) and its hash. */
int probe_config_capture(const char *disk, char **text, char hash[65], sl_err *e);

/* canary.c: a thread beside the workload; start returns NULL when it could
 * not start (the run goes on without it, noted). */
struct canary;
struct canary *canary_start(struct probe_ctx *c, sl_err *e);
void canary_stop(struct canary *k, struct probe_canary *out, struct probe_reader *reader);
/* The canary's threads as fio jobs after the workload's (--fio-job); one_job:
 * the workload is one fio job of one thread, which exitall can end them with. */
void canary_fio_jobs(const struct probe_spec *s, bool one_job, FILE *out);

/* canary_reader.c: the canary threads' clock. Sleep until the monotonic
 * ns (absolute, so how late a wakeup is stays measurable); the tick after
 * next that is still ahead of now (ticks missed while stalled are part of
 * that stall, not new ones). */
void canary_sleep_until(uint64_t ns);
uint64_t canary_next_tick(uint64_t next, uint64_t period_ns, uint64_t now);

/* probe.c */
void probe_uuid(char out[37]);
struct probe;
const char *probe_batch(const struct probe *p);
const char *probe_size_note(const struct probe *p);
const char *probe_reap_note(const struct probe *p);
struct probe_ctx *probe_ctx_of(struct probe *p);

/* scratch.c */
/* Create a 0700 scratch directory inside dir named after this process
 * (".sluice-probe.PID.XXXXXX") into out; -1 with errno. */
int probe_scratch_create(const char *dir, char *out, size_t n);
/* Remove a scratch directory tree (no symlinks followed, no other
 * filesystem entered); -1 with errno of the first failure (EBUSY: something
 * is mounted inside). */
int probe_scratch_remove(const char *dir);
/* Record a scratch directory just created in the store, as its absolute
 * path (into abs, for store_scratch_forget once it is removed). */
int probe_scratch_record(store *st, const char *path, char abs[PATH_MAX], sl_err *e);
/* Remove the scratch directories in dir whose owner process no longer runs
 * (a SIGKILLed probe cannot clean up), appending what was removed to note
 * ("; "-separated). Returns how many. */
int probe_scratch_reap(const char *dir, char *note, size_t n);

#endif
