/* session_internal — what the session modules (session.c, session_lock.c,
 * session_restore.c, and knobset.c, which writes inside a session) share
 * and nothing else uses. */
#ifndef SLUICE_SESSION_INTERNAL_H
#define SLUICE_SESSION_INTERNAL_H

#include "session/session.h"
#include "db/store_session.h"

struct session {
    store *st;
    struct session_row row;
    struct snapshot_row *snaps;
    int nsnaps;
    int lock_fd;
};

/* This process as a session holder: pid, start time, pid namespace. */
void session_holder_self(struct session_holder *h);
/* A new item of rep for snapshot row `row` (want = its value). */
struct restore_item *session_report_add(struct restore_report *rep, const struct snapshot_row *row);
/* Of a ratio/bytes pair only the half that was in force is written back:
 * writing the other would switch the kernel's mode (writing dirty_bytes
 * zeroes dirty_ratio, and the reverse). */
bool session_inactive_half(const struct knob *k, const struct snapshot_row *rows, int n, const char *value);
/* Write row's value to k and read it back into it->got: WRITTEN or FAILED. */
void session_write_back(const struct session_row *who, const struct knob *k, const struct snapshot_row *row,
                        struct restore_item *it, struct restore_report *rep);

#endif
