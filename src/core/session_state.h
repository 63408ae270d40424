/* session_state — the states a tuning session is in, named once. The names
 * are what the database holds (sessions.state, whose CHECK lists them) and
 * what `sessions` prints, so they never change; the code compares the
 * enum. */
#ifndef SLUICE_SESSION_STATE_H
#define SLUICE_SESSION_STATE_H

enum session_state {
    SESSION_OPEN,       /* its tuner runs, or died (then it is crashed) */
    SESSION_KEPT,       /* ended keeping its values */
    SESSION_RESTORED,   /* its snapshot is back (or a later switch took it over) */
    SESSION_FAILED,     /* a put-back failed: some knobs still hold its values */
    SESSION_STATES
};

/* The names by state, NULL-ended (the record table of a session reads it). */
extern const char *const session_state_names[];
/* "open", "kept", "restored", "failed"; "" for a value out of range. */
const char *session_state_name(enum session_state s);

#endif
