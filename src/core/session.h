/* session — never leave a machine half-tuned (DESIGN §4): the tuning lock,
 * durable snapshots before the first write, put-back in apply order, and
 * finding sessions a killed sluice left open. */
#ifndef SLUICE_SESSION_H
#define SLUICE_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include "knob.h"
#include "store_session.h"

struct session {
    store *st;
    struct session_row row;
    struct snapshot_row *snaps;
    int nsnaps;
    int lock_fd;
};

/* One knob put back (or checked) by a restore or a rollback. */
struct restore_item {
    char knob[KNOB_NAME_MAX];
    char want[KNOB_VALUE_MAX];   /* snapshot value */
    char had[KNOB_VALUE_MAX];    /* value found before putting back */
    char got[KNOB_VALUE_MAX];    /* value read back after */
    enum { RESTORE_SAME, RESTORE_WRITTEN, RESTORE_FAILED, RESTORE_SKIPPED } status;
    char msg[512];
};
struct restore_report {
    struct restore_item *items;
    int n, failed;
};
void restore_report_free(struct restore_report *r);

/* The tuning lock is DB.lock beside the database, held with flock; it holds
 * the holder's pid. -1 (SL_EBUSY) with a message naming that pid. */
int session_lock_acquire(const char *db_path, int *fd, sl_err *e);
/* Wait up to timeout_ms for the lock, then fail like session_lock_acquire. */
int session_lock_wait(const char *db_path, int timeout_ms, int *fd, sl_err *e);
void session_lock_release(int fd);

/* Read the current value of every knob in ks into snapshot rows (absent
 * knobs are recorded as absent). Caller frees *out. */
int session_snapshot(const struct knob *ks, int n, struct snapshot_row **out, sl_err *e);

/* Open a session: snapshot `touched` and record it durably (state open).
 * Takes ownership of lock_fd (released by session_end/session_free). */
int session_begin(store *st, const char *purpose, const struct knob *touched, int n, int lock_fd,
                  struct session **out, sl_err *e);
/* Close: keep the values (state kept) or put the snapshot back (restored). */
int session_end(struct session *s, bool keep, struct restore_report *rep, sl_err *e);
void session_free(struct session *s);

/* Write snapshot values back in apply order, skipping knobs already right,
 * reading each back. Continues past failures; rep->failed counts them. */
void session_put_back(const struct snapshot_row *rows, int n, struct restore_report *rep);

/* Restore a stored session (must be against the current --root). */
int session_restore(store *st, struct session_row *row, struct restore_report *rep, sl_err *e);
/* Sessions left open by a process that is gone. Caller frees *out. */
int session_find_crashed(store *st, struct session_row **out, sl_err *e);

/* SIGINT/SIGTERM/SIGHUP set session_interrupted instead of killing us, so a
 * long session can restore before it exits. */
extern volatile sig_atomic_t session_interrupted;
void session_trap_signals(void);
void session_untrap_signals(void);

#endif
