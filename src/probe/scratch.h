/* scratch — probe scratch directories that a killed probe left behind, and
 * removing them. A probe with a database records each scratch directory it
 * creates (db/store_scratch.h) and forgets it once removed; a record whose
 * owner no longer runs is what a SIGKILL left. `sluice restore` and the UI's
 * restore action both sweep through probe_scratch_sweep. (A --no-store probe
 * records nothing: the next probe in the same directory removes its leftover,
 * probe_scratch_reap.) */
#ifndef SLUICE_PROBE_SCRATCH_H
#define SLUICE_PROBE_SCRATCH_H

#include <limits.h>
#include "core/err.h"
#include "db/store.h"

enum scratch_result {
    SCRATCH_REMOVED,    /* its owner no longer ran: removed, record dropped */
    SCRATCH_RUNNING,    /* its owner still runs (or may: a recycled pid): kept */
    SCRATCH_GONE,       /* no longer there: record dropped, nothing to say */
    SCRATCH_NOT_OURS,   /* the path is now something no probe created: left alone, record dropped */
    SCRATCH_FAILED,     /* removal failed: kept, and the record stays for a later try */
};

struct scratch_item {
    char path[PATH_MAX];
    long pid;
    enum scratch_result result;
    char msg[PATH_MAX + 256];   /* the line to show (empty for GONE) */
};

struct scratch_report {
    struct scratch_item *items;
    int n;
    int removed, failed;
};
void scratch_report_free(struct scratch_report *r);

/* Remove every recorded scratch directory whose owner process no longer
 * runs (the same checks as probe_scratch_reap: a ".sluice-probe.PID.XXXXXX"
 * name carrying the recorded pid, a real directory, not a symlink, owned by
 * the recorded user, no group or other access) and drop the records of
 * directories removed or already gone. One item per record. -1 only when
 * the records cannot be read; a directory that cannot be removed is an item
 * with SCRATCH_FAILED (rep->failed counts them). */
int probe_scratch_sweep(store *st, struct scratch_report *rep, sl_err *e);

/* How many recorded directories a dead probe left (nothing removed); the
 * first one's path into first. For notices. */
int probe_scratch_left(store *st, char *first, size_t n);

#endif
