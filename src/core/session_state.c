/* session_state — the name table. */
#include "core/session_state.h"

#include <stddef.h>

const char *const session_state_names[] = {
    [SESSION_OPEN] = "open", [SESSION_KEPT] = "kept", [SESSION_RESTORED] = "restored", [SESSION_FAILED] = "failed",
    [SESSION_STATES] = NULL,
};

const char *session_state_name(enum session_state s)
{
    return (int)s >= 0 && s < SESSION_STATES ? session_state_names[s] : "";
}
