/* store_session — rows of tuning sessions, their snapshots and change log. */
#ifndef SLUICE_STORE_SESSION_H
#define SLUICE_STORE_SESSION_H

#include "core/record.h"
#include "core/session_state.h"
#include "db/store.h"

struct snapshot_row {
    char knob[128];
    char path[256];
    char value[256];
    int present;
    int order;
    char sched[32];
    char left[256];     /* what the session left in the knob */
    int has_left;       /* 0: not recorded (sessions from before 005) */
    char plan[8];       /* "put" while a restore that chose to put it back runs */
};

struct session_row {
    int64_t id;
    char uuid[37];
    char purpose[32];
    char root[512];
    int pid;
    enum session_state state;
    char started[32];
    char ended[32];
    char note[256];
    int changes;        /* rows in session_changes */
    double holder_start;/* the holder's start, epoch seconds (0: unknown) */
    char holder_ns[64]; /* its pid namespace ("pid:[N]"; "": unknown) */
    int restoring;      /* a restore is under way (pid: the restorer) */
    int writing;        /* the holder was writing the kernel */
    char profile[64];   /* the profile it applied ("": none) */
    char user[96];      /* who started it: "alice", "root (sudo alice)" ("": before 009) */
};

/* Its fields described once (core/record.h): the store reads rows through
 * it and `sessions --json` prints it. */
extern const struct rec_field session_fields[];
extern const size_t session_fields_len;

/* The process responsible for a session (the tuner, or a restorer). */
struct session_holder {
    int pid;
    double start;
    char ns[64];
    char user[96];      /* who started it (audit_user) */
};

/* One knob write, for the change log. */
struct change_row {
    const char *knob, *old_value, *new_value, *got_value;
    const char *action;          /* NULL: 'write'; 'put-back' for a restore's */
    const char *note;            /* NULL: none; why a put-back failed */
};

/* A knob of a later session not yet restored: what it found and left. */
struct session_claim {
    int64_t session_id;
    char uuid[37];
    char knob[128];
    char orig[256];
    char left[256];
    int has_left;
    int writing;
};

/* Create an open session and its snapshot in one durable transaction. */
int store_session_create(store *s, int64_t host_id, const char *purpose, const char *root,
                         const struct session_holder *h, const struct snapshot_row *snaps, int n,
                         struct session_row *out, sl_err *e);
/* Every session, newest first. Caller frees *out. */
int store_session_list(store *s, struct session_row **out, sl_err *e);
/* One session by UUID or unique UUID prefix. */
int store_session_get(store *s, const char *uuid_prefix, struct session_row *out, sl_err *e);
/* The newest session in state 'kept', 'open' or 'failed' (a restore left
 * knobs), 1 when there is none. */
int store_session_latest_unrestored(store *s, struct session_row *out, sl_err *e);
int store_session_snapshots(store *s, int64_t session_id, struct snapshot_row **out, sl_err *e);
int store_session_set_state(store *s, int64_t session_id, enum session_state state, const char *note, sl_err *e);
/* One write a session made, as logged: the value before, the one asked
 * for and the one read back. */
struct change_log_row {
    int seq;
    char action[16];             /* write, put-back */
    char knob[128];
    char old_value[256], new_value[256], got_value[256];
    char note[512];
    char at[32];
};
/* A session's change log in order. Returns the count (caller frees *out)
 * or -1 with a message. */
int store_session_changes(store *s, int64_t session_id, struct change_log_row **out, sl_err *e);
/* Mark that the session is about to write the kernel (writing = 1), durably. */
/* Log what a restore (or a rollback) wrote back, knob by knob, in one
 * transaction: rows with action 'put-back'. */
int store_session_log_put_backs(store *s, int64_t session_id, const struct change_row *ch, int nch, sl_err *e);
int store_session_set_writing(store *s, int64_t session_id, sl_err *e);
/* In one transaction: log the changes, record what each knob of `now` holds
 * as what the session left (rows[i].left), and clear writing. */
int store_session_record_writes(store *s, int64_t session_id, const struct change_row *ch, int nch,
                                const struct snapshot_row *now, int n, sl_err *e);
/* A restore starts (durably, before it writes): the restorer becomes the
 * holder, restoring = 1, and the knobs in put[] are planned to be put back. */
int store_session_begin_restore(store *s, int64_t session_id, const struct session_holder *h,
                                const char *const *put, int nput, sl_err *e);
/* A restore ends: state and note set, the journal (restoring, writing,
 * plans) cleared, in one transaction; the knobs in deferred[] (of a crashed
 * session, left to a later one that holds them) marked to be put back
 * once that one lets go (store_session_deferred). */
int store_session_finish_restore(store *s, int64_t session_id, enum session_state state, const char *note,
                                 const char *const *deferred, int ndeferred, sl_err *e);
/* Sessions of root, newest first, whose restore left knobs to a later
 * session (store_session_finish_restore's deferred[]) and is not finished.
 * The count (caller frees *out), or -1 with e. */
int store_session_deferred(store *s, const char *root, struct session_row **out, sl_err *e);
/* Name the profile a session applies. */
int store_session_set_profile(store *s, int64_t session_id, const char *profile, sl_err *e);
/* The newest session that applied a profile and is not restored (kept, or
 * open), 1 when there is none. */
int store_session_active_profile(store *s, struct session_row *out, sl_err *e);
/* A profile switch: session new_id takes over those of knobs[] that old_id
 * changed (their snapshot values become new_id's, so restoring new_id puts back what was
 * there before old_id), and old_id is closed as superseded. One
 * transaction, before new_id writes. */
int store_session_inherit(store *s, int64_t new_id, int64_t old_id, const char *const *knobs, int n, sl_err *e);
/* Knobs of sessions after session_id (same root) that are not restored.
 * Newest session first; caller frees *out. */
int store_session_later_claims(store *s, int64_t session_id, const char *root, struct session_claim **out, sl_err *e);

#endif
