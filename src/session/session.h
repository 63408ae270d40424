/* session — never leave a machine half-tuned: the tuning lock,
 * durable snapshots before the first write, put-back in apply order, and
 * finding sessions a killed sluice left open. */
#ifndef SLUICE_SESSION_H
#define SLUICE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include "core/knob.h"

/* The store and its session rows (db/store.h, db/store_session.h) are only
 * named here: the session layer sits on the store, and its includers need
 * not see the store's headers. */
typedef struct store store;
struct session_row;
struct snapshot_row;
struct change_row;

/* An open session (its fields: session_internal.h). */
struct session;
/* Its stored row (uuid, id, state, ...), owned by s. */
const struct session_row *session_row_of(const struct session *s);

/* One knob put back (or checked) by a restore or a rollback. */
struct restore_item {
    char knob[KNOB_NAME_MAX];
    char want[KNOB_VALUE_MAX];   /* snapshot value */
    char had[KNOB_VALUE_MAX];    /* value found before putting back */
    char got[KNOB_VALUE_MAX];    /* value read back after */
    char wrote[KNOB_VALUE_MAX];  /* what the session left there (LEFT_*) */
    char later[9];               /* the later session that changed it (LEFT_LATER) */
    enum {
        RESTORE_SAME, RESTORE_WRITTEN, RESTORE_FAILED, RESTORE_SKIPPED,
        RESTORE_LEFT_CHANGED,    /* changed since the session wrote it: left as found */
        RESTORE_LEFT_LATER,      /* a later session changed it too: left to that one */
    } status;
    char msg[512];
};
struct restore_report {
    struct restore_item *items;
    int n, failed;
    int left;                    /* items LEFT_CHANGED or LEFT_LATER */
};
void restore_report_free(struct restore_report *r);
/* The RESULT column of a restore table for one item ("put back", "left:
 * changed since (found 30, sluice wrote 25); --force to overwrite", ...). */
const char *restore_result_text(const struct restore_item *it, char *buf, size_t n);
/* "vm.swappiness=60, vm.dirty_ratio=20": what the kernel holds now for each
 * knob of the report (read back). */
void restore_report_holdings(const struct restore_report *rep, char *buf, size_t n);

/* The tuning lock is one per kernel: /run/sluice/lock under the
 * root prefix, held with flock, whatever database is used. It names the
 * holder's pid, start, command and database; db_path is the database this
 * process tunes with. -1 (SL_EBUSY) with a message naming the holder. */
int session_lock_acquire(const char *db_path, int *fd, sl_err *e);
/* Wait up to timeout_ms for the lock, then fail like session_lock_acquire. */
int session_lock_wait(const char *db_path, int timeout_ms, int *fd, sl_err *e);
void session_lock_release(int fd);
/* The command line the lock file names (main sets it from argv). */
void session_lock_describe(const char *command);


/* Open a session: snapshot `touched` and record it durably (state open).
 * Takes ownership of lock_fd (released by session_end/session_free). */
int session_begin(store *st, const char *purpose, const struct knob *touched, int n, int lock_fd,
                  struct session **out, sl_err *e);
/* Close: keep the values (state kept) or restore (session_restore). When
 * keeping cannot be recorded, the snapshot is put back (rep says how) and
 * the message says what the kernel holds. rep may be NULL. */
int session_end(struct session *s, bool keep, struct restore_report *rep, sl_err *e);
/* Around the session's own writes: session_writes_begin records (durably)
 * that it is about to write; session_writes_done logs the changes and
 * records what every snapshotted knob now holds. -1 when the store failed:
 * the caller must put back what it wrote. */
int session_writes_begin(struct session *s, sl_err *e);
int session_writes_done(struct session *s, const struct change_row *ch, int nch, sl_err *e);
/* Put the whole snapshot back inside the open session (a search's
 * baseline), journaled like any write. Continues past failures. */
int session_put_back_own(struct session *s, struct restore_report *rep, sl_err *e);
void session_free(struct session *s);

/* Write snapshot values back in apply order, skipping knobs already right,
 * reading each back. Continues past failures; rep->failed counts them. */
/* who: the session whose snapshot it is (the audit names it). */
void session_put_back(const struct session_row *who, const struct snapshot_row *rows, int n, struct restore_report *rep);
/* Log in the session's change log each knob rep wrote back (or failed to),
 * as the audit line of each told: what `sessions --log` lists. A failure
 * to log loses the row, not the put-back: -1 with a message. */
int session_log_put_backs(store *st, const struct session_row *who, const struct restore_report *rep, sl_err *e);

/* Restore a stored session (must be against the current --root), checking
 * before it writes: a knob is put back only while it holds what the session
 * left; one changed since, or changed again by a later session not yet
 * restored, is left and named (RESTORE_FORCE: put back all the same). The
 * restore is journaled: killed part-way, the session is found crashed and
 * the next restore finishes it. 0 when every knob is back; -1 with
 * SL_EPARTIAL when some were left or failed (rep says which), other
 * statuses when nothing was written. */
enum { RESTORE_FORCE = 1 };
int session_restore(store *st, struct session_row *row, int flags, struct restore_report *rep, sl_err *e);
/* Later sessions, not yet restored, that changed a knob of row and still
 * hold it (what --cascade restores first), newest first. Caller frees *out. */
int session_later_claimants(store *st, const struct session_row *row, struct session_row **out, sl_err *e);
/* Sessions whose holder is gone: open ones whose tuner no longer runs and
 * restores killed part-way. A zombie is gone; a pid whose process started
 * after the holder is not the holder; a holder of another pid namespace is
 * judged by the tuning lock. Every command's notice, the UI and restore
 * --crashed use this one test. Caller frees *out. */
int session_find_crashed(store *st, struct session_row **out, sl_err *e);

#endif
