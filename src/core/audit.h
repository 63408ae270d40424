/* audit — every kernel write sluice makes, told to syslog(3) (facility
 * LOG_AUTHPRIV, like sudo's, so the journal and auth.log keep who changed
 * which knob when): the session, what it does, the user (and the sudo user
 * behind root), the knob, its old, asked and read-back values. Writes
 * under --root are fixture trees and are not logged unless SLUICE_AUDIT=all. */
#ifndef SLUICE_AUDIT_H
#define SLUICE_AUDIT_H

/* One write: action "write" (a session's change) or "put-back" (a restore
 * or rollback); got NULL when the write failed (then why says so). */
void audit_knob(const char *session_uuid, const char *purpose, const char *action, const char *knob, const char *old_value,
                const char *new_value, const char *got, const char *why);

#endif
