/* store_scratch — the probe scratch directories that exist (migration 004):
 * added when a probe creates one, forgotten when it is removed, listed by
 * `restore` to remove what a killed probe left. This machine's state only. */
#ifndef SLUICE_STORE_SCRATCH_H
#define SLUICE_STORE_SCRATCH_H

#include <limits.h>
#include "db/store.h"

struct scratch_row {
    char path[PATH_MAX];
    long pid;
    long uid;
    char created[32];
};

/* Record a directory just created by process pid running as uid. */
int store_scratch_add(store *s, const char *path, long pid, long uid, sl_err *e);
/* Drop the record of path (no record: nothing to do). */
int store_scratch_forget(store *s, const char *path, sl_err *e);
/* Every record, oldest first. Caller frees *out. Returns the count or -1. */
int store_scratch_list(store *s, struct scratch_row **out, sl_err *e);

#endif
