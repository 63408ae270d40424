/* audit — every kernel write sluice makes, told to syslog(3) (facility
 * LOG_AUTHPRIV, like sudo's, so the journal and auth.log keep who changed
 * which knob when): the session, what it does, the user (and the sudo user
 * behind root), the knob, its old, asked and read-back values. Writes
 * under --root are fixture trees and are not logged unless SLUICE_AUDIT=all. */
#ifndef SLUICE_AUDIT_H
#define SLUICE_AUDIT_H

#include <stddef.h>

/* One write: action "write" (a session's change) or "put-back" (a restore
 * or rollback); got NULL when the write failed (then why says so). */
void audit_knob(const char *session_uuid, const char *purpose, const char *action, const char *knob, const char *old_value,
                const char *new_value, const char *got, const char *why);

/* Who is acting, as one text for the session record: the user name (the
 * uid when it has none), and the sudo user behind root ("root (sudo
 * alice)"): what `sessions --log` shows beside each write. */
void audit_user(char *buf, size_t n);

#endif
