/* settle — the wait for free page reporting's passes (settle.h). */
#include "probe/settle.h"

uint64_t settle_max_ms(uint64_t bytes)
{
    uint64_t by_size = (uint64_t)((double)bytes / (1ull << 30) * SETTLE_MAX_MS_PER_GIB);
    return by_size > SETTLE_MAX_MS ? by_size : SETTLE_MAX_MS;
}

void settle_begin(struct settle *s, uint64_t now_ms, uint64_t value, uint64_t max_ms)
{
    *s = (struct settle){ .t0_ms = now_ms, .moved_ms = now_ms, .value = value, .max_ms = max_ms };
}

int settle_step(struct settle *s, uint64_t now_ms, uint64_t value)
{
    if (value != s->value) {
        /* a counter that went back (the module reloaded) starts a pass of nothing */
        uint64_t handed = value > s->value ? value - s->value : 0;
        if (now_ms - s->pass_ms > SETTLE_PASS_GAP_MS) s->pass_kib = 0;
        s->pass_kib += handed;
        s->pass_ms = now_ms;
        s->value = value;
        if (s->pass_kib >= SETTLE_PASS_MIN_KIB) {
            s->moved = true;
            s->moved_ms = now_ms;
        }
    }
    uint64_t waited = now_ms - s->t0_ms;
    if (s->moved && now_ms - s->moved_ms >= SETTLE_QUIET_MS) return 1;
    if (!s->moved && waited >= SETTLE_NONE_MS) return 1;
    return waited >= s->max_ms ? -1 : 0;
}
