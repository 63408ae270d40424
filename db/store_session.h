/* store_session — rows of tuning sessions, their snapshots and change log. */
#ifndef SLUICE_STORE_SESSION_H
#define SLUICE_STORE_SESSION_H

#include "store.h"

struct snapshot_row {
    char knob[128];
    char path[256];
    char value[256];
    int present;
    int order;
    char sched[32];
};

struct session_row {
    int64_t id;
    char uuid[37];
    char purpose[32];
    char root[512];
    int pid;
    char state[16];     /* open kept restored failed */
    char started[32];
    char ended[32];
    char note[256];
    int changes;        /* rows in session_changes */
};

/* Create an open session and its snapshot in one durable transaction. */
int store_session_create(store *s, int64_t host_id, const char *purpose, const char *root,
                         const struct snapshot_row *snaps, int n, struct session_row *out, sl_err *e);
/* Sessions, newest first; state NULL for all. Caller frees *out. */
int store_session_list(store *s, const char *state, struct session_row **out, sl_err *e);
/* One session by UUID or unique UUID prefix. */
int store_session_get(store *s, const char *uuid_prefix, struct session_row *out, sl_err *e);
/* The newest session in state 'kept' or 'open', 1 when there is none. */
int store_session_latest_unrestored(store *s, struct session_row *out, sl_err *e);
int store_session_snapshots(store *s, int64_t session_id, struct snapshot_row **out, sl_err *e);
int store_session_set_state(store *s, int64_t session_id, const char *state, const char *note, sl_err *e);
int store_session_log_change(store *s, int64_t session_id, const char *knob, const char *old_value,
                             const char *new_value, const char *got_value, sl_err *e);

#endif
