/* settle — waiting, before a run, for the host to take back the memory the
 * previous run freed.
 *
 * A VM whose balloon reports free pages to its host (free page reporting)
 * hands freed memory back, and a page the host took back costs a host fault
 * when the guest touches it again. On this project's VM (vmstat_reported_kib
 * counts what it handed back) removing a run's 1.5 GiB file set off a wave of
 * about 1 GiB 0.2-1.8 s later, and a run the wave caught was slow: back to
 * back, a 1.5 GiB writer measured 394, 1491, 873, 1504, 647, 1286, 410 and
 * 1318 MB/s, slow exactly when the counter moved during the run
 * (bench/data/page-reporting.out).
 *
 * The wave is not one: the kernel reports a bounded amount per pass and
 * passes come 2 s apart (its PAGE_REPORTING_DELAY). A removed 2 GiB file
 * went back as 1024 MiB 1.6 s after it, 664 MiB at 3.9 s and 72 MiB at
 * 6.1 s, the same three times out of three; a 1 GiB file as 536, 128 and
 * 72 MiB at 1.8, 4.0 and 6.0 s (bench/data/report-passes.out). What a run
 * then measures depends on where among the passes it starts: fio's job
 * for a 2 GiB burst at the defaults ran at about 1600 MB/s when started
 * within 0.5 s of the removal (the freed pages still the guest's), 580-600
 * from 1.5 to 3 s (after the first pass), 400-430 from 3.5 s on, and
 * 400-430 too when a later pass came during the run. Waiting for the first
 * pass only (0.3 s of quiet, as this wait did until then) left each run to
 * meet the second pass or not by a few hundred milliseconds: in the same
 * rounds, 10 pairs each, the defaults ran at 403-596 MB/s and
 * dirty_background_ratio=1 at 469-770, +10.2% [+2.1, +31.4], against 384-409
 * and 431-478, +13.1% [+8.8, +18.1], once every pass was over. So a run
 * starts once the counter has been still for longer than the time between
 * passes: every run finds memory as a burst after a quiet spell does, the
 * host's, whatever the configuration before it.
 *
 * How much a pass hands back is the kernel's setting, and it changed under
 * this VM between two days: with page_reporting_order 5 (9 the day before)
 * a 2 GiB file went back in six or seven passes of 200-460 MiB, the last
 * 12-14 s after the removal, and a 1 GiB one in passes of about 450, 320,
 * 180, 60, 60 and 10 MiB; and the counter never stayed still for 3 s, as
 * the system's own small frees went back too, 8 and 18 MiB at a time when
 * nothing ran (bench/data/report-passes-order5.out). Every wait then ran to
 * its limit. So a pass counts when it hands back at least
 * SETTLE_PASS_MIN_KIB, and the limit grows with the memory the run freed.
 * With this wait, 10 pairs each: the defaults 359-383 MB/s and
 * dirty_background_ratio=1 400-438, +12.0% [+8.8, +15.6] (waits of 14-17.5
 * s, each ended by the passes); starting after the first pass, 1044-1170
 * and 1222-1403, +14.6% [+10.6, +18.3]: another regime, not the same one
 * measured better. */
#ifndef SLUICE_PROBE_SETTLE_H
#define SLUICE_PROBE_SETTLE_H

#include <stdbool.h>
#include <stdint.h>

/* A run whose files are smaller frees too little to set off a wave of its
 * own (this VM's kernel waits for 1 GiB: max_waiting_mib), and a run on
 * tmpfs (no disk under it) is not what the wait is for: neither waits, so
 * the tests' many small runs do not pay SETTLE_NONE_MS each. */
#define SETTLE_MIN_BYTES (256ull << 20)
/* every pass is over when no pass has come for this long: longer than the
 * 2 s between passes, with room for a worker delayed on a busy CPU */
#define SETTLE_QUIET_MS 3000
/* changes of the counter less than this apart are one pass */
#define SETTLE_PASS_GAP_MS 500
/* a pass that hands back less is the system's own small frees (8-18 MiB
 * each when nothing ran), not a run's file: the smallest pass of a run's
 * that mattered was 53 MiB */
#define SETTLE_PASS_MIN_KIB (32u << 10)
/* no pass began within this long: nothing was waiting to be handed back */
#define SETTLE_NONE_MS 3000
/* the most a run waits (memory freed by others can keep passes coming):
 * SETTLE_MAX_MS, or SETTLE_MAX_MS_PER_GIB for each GiB the run wrote when
 * that is longer. At order 5 a 2 GiB file's passes lasted 14 s (6 at 9),
 * and an hour later a 512 MiB file's 10-12.5 s, 64 MiB a pass after the
 * first (bench/data/report-passes-order5.out): 15 s cut that wait short */
#define SETTLE_MAX_MS 20000
#define SETTLE_MAX_MS_PER_GIB 12000

struct settle {
    uint64_t t0_ms, moved_ms, value, max_ms;
    uint64_t pass_ms, pass_kib; /* the pass under way: its last change, what it handed back */
    bool moved;
};

/* the limit of the wait after a run that wrote bytes */
uint64_t settle_max_ms(uint64_t bytes);

void settle_begin(struct settle *s, uint64_t now_ms, uint64_t value, uint64_t max_ms);

/* One reading of the counter at now_ms: 1 when the wait is over (the passes
 * came and went, or none came), 0 to read again, -1 when max_ms passed with
 * passes still coming. */
int settle_step(struct settle *s, uint64_t now_ms, uint64_t value);

#endif
