/* settle — the wait for a free page reporting wave (settle.h). */
#include "probe/settle.h"

void settle_begin(struct settle *s, uint64_t now_ms, uint64_t value)
{
    *s = (struct settle){ .t0_ms = now_ms, .moved_ms = now_ms, .value = value };
}

int settle_step(struct settle *s, uint64_t now_ms, uint64_t value)
{
    if (value != s->value) {
        s->value = value;
        s->moved = true;
        s->moved_ms = now_ms;
    }
    uint64_t waited = now_ms - s->t0_ms;
    if (s->moved && now_ms - s->moved_ms >= SETTLE_QUIET_MS) return 1;
    if (!s->moved && waited >= SETTLE_NONE_MS) return 1;
    return waited >= SETTLE_MAX_MS ? -1 : 0;
}
