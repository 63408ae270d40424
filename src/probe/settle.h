/* settle — waiting, before a run, for the host to take back the memory the
 * previous run freed.
 *
 * A VM whose balloon reports free pages to its host (free page reporting)
 * hands freed memory back in a wave, and a page the host took back costs a
 * host fault when the guest touches it again. On this project's VM
 * (vmstat_reported_kib counts what it handed back) removing a run's 1.5 GiB file set off a wave of about
 * 1 GiB 0.2-1.8 s later. A run that started before the wave wrote into the
 * pages just freed, at 1300-1500 MB/s; one the wave caught faulted them in
 * at 400-650 MB/s: back to back, a 1.5 GiB writer measured 394, 1491, 873,
 * 1504, 647, 1286, 410 and 1318 MB/s, slow exactly when the counter moved
 * during the run (bench/data/page-reporting.out). After the wave, eight
 * runs measured 434-455 MB/s. So a run starts after the wave, and every
 * run finds memory in the same state: what the wave left unreported (this
 * kernel waits for 1 GiB before it reports) and the rest the host's. That
 * is not quite a burst after a long quiet spell, which finds it all the
 * host's: run 31's first 512 MiB and 2 GiB runs wrote at 322-343 MB/s, its
 * search's 2 GiB runs at 570-660 (bench/data/transfer-as-user-31.out). */
#ifndef SLUICE_PROBE_SETTLE_H
#define SLUICE_PROBE_SETTLE_H

#include <stdbool.h>
#include <stdint.h>

/* A run whose files are smaller frees too little to set off a wave of its
 * own (this VM's kernel waits for 1 GiB: max_waiting_mib), and a run on
 * tmpfs (no disk under it) is not what the wait is for: neither waits, so
 * the tests' many small runs do not pay SETTLE_NONE_MS each. */
#define SETTLE_MIN_BYTES (256ull << 20)
/* the wave is over when the counter has not moved for this long */
#define SETTLE_QUIET_MS 300
/* no wave began within this long: nothing was waiting to be handed back */
#define SETTLE_NONE_MS 2500
/* the most a run waits (memory freed by others keeps the counter moving) */
#define SETTLE_MAX_MS 6000

struct settle {
    uint64_t t0_ms, moved_ms, value;
    bool moved;
};

void settle_begin(struct settle *s, uint64_t now_ms, uint64_t value);

/* One reading of the counter at now_ms: 1 when the wait is over (the wave
 * came and went, or none came), 0 to read again, -1 when SETTLE_MAX_MS
 * passed with the counter still moving. */
int settle_step(struct settle *s, uint64_t now_ms, uint64_t value);

#endif
