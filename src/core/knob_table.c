/* knob_table — every tunable sluice knows, one row each.
 * Ranges are sluice's safe ranges: the kernel's own bounds where it has them,
 * otherwise limits a careful sysadmin would not go past. */
#include "core/knob.h"

#define VM(n, t, lo, hi, unit, dflt, partner, flags, help) \
    { n, SCOPE_VM, n, t, lo, hi, NULL, unit, dflt, ORDER_VM, partner, NULL, 0, flags, help, KR_NONE }
/* a dirty limit: its role, and its ratio/bytes partner */
#define DIRTY(n, role, t, lo, hi, unit, dflt, partner, help) \
    { n, SCOPE_VM, n, t, lo, hi, NULL, unit, dflt, ORDER_VM, partner, NULL, 0, KF_SEARCH, help, role }
#define BDF(n, idx, lo, hi, unit, dflt, help) \
    { n, SCOPE_BDFLUSH, "bdflush", KT_FIELD, lo, hi, NULL, unit, dflt, ORDER_BDFLUSH, NULL, NULL, idx, KF_SEARCH, help, KR_NONE }
#define BDFR(n, idx, role, lo, hi, unit, dflt, help) \
    { n, SCOPE_BDFLUSH, "bdflush", KT_FIELD, lo, hi, NULL, unit, dflt, ORDER_BDFLUSH, NULL, NULL, idx, KF_SEARCH, help, role }
#define BLK(n, t, lo, hi, vals, unit, dflt, order, flags, help) \
    { n, SCOPE_BLOCK, n, t, lo, hi, vals, unit, dflt, order, NULL, NULL, 0, flags, help, KR_NONE }
#define BLKR(n, role, t, lo, hi, unit, order, help) \
    { n, SCOPE_BLOCK, n, t, lo, hi, NULL, unit, NULL, order, NULL, NULL, 0, KF_SEARCH, help, role }
#define FACT(n, unit, help) \
    { n, SCOPE_BLOCK, n, KT_FACT, 0, 0, NULL, unit, NULL, ORDER_BLOCK, NULL, NULL, 0, KF_RO, help, KR_NONE }
#define IOS(sch, n, lo, hi, unit, dflt, help) \
    { n, SCOPE_IOSCHED, n, KT_INT, lo, hi, NULL, unit, dflt, ORDER_IOSCHED, NULL, sch, 0, KF_SEARCH, help, KR_NONE }
#define BDI(n, t, lo, hi, unit, dflt, flags, help) \
    { n, SCOPE_BDI, n, t, lo, hi, NULL, unit, dflt, ORDER_BDI, NULL, NULL, 0, flags, help, KR_NONE }

#define GiB64 (64LL << 30)
#define DAY_CS 8640000LL

const struct knob_def knob_table[] = {
    /* --- /proc/sys/vm: writeback ------------------------------------------------ */
    DIRTY("dirty_ratio", KR_DIRTY, KT_INT, 1, 100, "%", "20", "dirty_bytes",
       "Percent of dirtyable memory at which a writing process is throttled and writes back itself. Writing it zeroes vm.dirty_bytes when the value changes."),
    DIRTY("dirty_bytes", KR_DIRTY, KT_BYTES, 8192, GiB64, "bytes", "0", "dirty_ratio",
       "Absolute dirty limit in bytes at which writers are throttled; 0 means vm.dirty_ratio is in force. Writing it zeroes vm.dirty_ratio."),
    DIRTY("dirty_background_ratio", KR_DIRTY_BG, KT_INT, 0, 100, "%", "10", "dirty_background_bytes",
       "Percent of dirtyable memory at which the flusher threads start background writeback. Must stay below vm.dirty_ratio, or the kernel silently halves it."),
    DIRTY("dirty_background_bytes", KR_DIRTY_BG, KT_BYTES, 4096, GiB64, "bytes", "0", "dirty_background_ratio",
       "Absolute background writeback threshold in bytes; 0 means vm.dirty_background_ratio is in force."),
    VM("dirty_expire_centisecs", KT_INT, 100, DAY_CS, "cs", "3000", NULL, KF_SEARCH,
       "Age in 1/100 s after which dirty data is old enough for the flusher threads to write out."),
    VM("dirty_writeback_centisecs", KT_INT, 0, 360000, "cs", "500", NULL, KF_SEARCH,
       "Interval in 1/100 s at which the flusher threads wake to write old data; 0 disables periodic writeback."),
    VM("dirtytime_expire_seconds", KT_INT, 1, 604800, "s", "43200", NULL, 0,
       "Age at which lazytime inode timestamp updates are written back."),
    /* --- /proc/sys/vm: page cache and reclaim -------------------------------- */
    VM("vfs_cache_pressure", KT_INT, 1, 10000, "%", "100", NULL, 0,
       "How eagerly dentry and inode caches are reclaimed relative to the page cache; 0 (refused by sluice) never reclaims them and can exhaust memory."),
    VM("swappiness", KT_INT, 0, 200, "", "60", NULL, 0,
       "Relative cost of swapping anonymous memory against dropping file cache (0-100 before 5.8, 0-200 since)."),
    VM("page-cluster", KT_INT, 0, 31, "log2 pages", "3", NULL, 0,
       "Log2 of the number of pages read from swap at once; 0 disables swap readahead."),
    VM("min_free_kbytes", KT_INT, 1024, 4194304, "KiB", NULL, NULL, 0,
       "Memory kept free for atomic allocations; every write recomputes the zone watermarks. Below 1024 the system is subtly broken, too high causes OOM."),
    VM("watermark_scale_factor", KT_INT, 1, 3000, "1/10000", "10", NULL, 0,
       "Distance between zone watermarks as a fraction of memory: how early kswapd starts reclaim."),
    VM("watermark_boost_factor", KT_INT, 0, 100000, "1/10000", "15000", NULL, 0,
       "Temporary watermark boost after fragmentation events; 0 disables boosting."),
    VM("laptop_mode", KT_INT, 0, 600, "s", "0", NULL, 0,
       "Nonzero: write everything back this many seconds after disk activity and hold writeback until vm.dirty_ratio, to let disks spin down."),
    VM("zone_reclaim_mode", KT_INT, 0, 7, "bits", "0", NULL, 0,
       "NUMA zone reclaim: 1 reclaim locally, 2 write dirty pages, 4 swap. Meaningful on NUMA machines only."),
    { "drop_caches", SCOPE_VM, "drop_caches", KT_ENUM, 0, 0, "1 2 3", "", NULL, ORDER_VM, NULL, NULL, 0, KF_DESTRUCTIVE,
      "Action, not a setting: 1 drops the clean page cache, 2 slab, 3 both. Never searched; sluice uses it for cold-cache probes only.", KR_NONE },

    /* --- 2.4 /proc/sys/vm/bdflush: nine integers, times in jiffies (HZ=100) ---- */
    BDFR("nfract", 0, KR_DIRTY_BG, 0, 100, "%", "30",
        "Percent of buffers dirty before bdflush starts writing asynchronously (modern: vm.dirty_background_ratio)."),
    BDF("ndirty", 1, 1, 50000, "buffers", "500",
        "Maximum buffers bdflush writes per wake-up."),
    BDF("dummy2", 2, 0, 20000, "", "0", "Unused since 2.4.1 (was nrefill)."),
    BDF("dummy3", 3, 0, 20000, "", "0", "Unused."),
    BDF("interval", 4, 0, 1000000, "jiffies", "500",
        "kupdated wake-up period; 0 stops periodic flushing (modern: vm.dirty_writeback_centisecs)."),
    BDF("age_buffer", 5, 100, 1000000, "jiffies", "3000",
        "Maximum age of a dirty buffer before kupdated writes it (modern: vm.dirty_expire_centisecs)."),
    BDFR("nfract_sync", 6, KR_DIRTY, 0, 100, "%", "60",
        "Percent dirty above which writers write back synchronously (modern: vm.dirty_ratio)."),
    BDF("nfract_stop_bdflush", 7, 0, 100, "%", "20",
        "Percent dirty below which bdflush stops; keep nfract_stop_bdflush <= nfract <= nfract_sync."),
    BDF("dummy5", 8, 0, 0, "", "0", "Unused."),

    /* --- /sys/block/DEV/queue ------------------------------------------------- */
    BLKR("scheduler", KR_SCHED, KT_SCHED, 0, 0, "", ORDER_SCHED,
        "I/O scheduler. Switching it resets nr_requests and every iosched tunable, so sluice writes it first."),
    BLKR("nr_requests", KR_NR_REQUESTS, KT_INT, 4, 2048, "requests", ORDER_NR_REQUESTS,
        "Requests the queue holds before submitters sleep. At most 2048 with a scheduler; with none, at most the hardware queue depth."),
    BLK("read_ahead_kb", KT_INT, 0, 65536, NULL, "KiB", "128", ORDER_BLOCK, KF_SEARCH,
        "Sequential read-ahead window; rounded down to whole pages by the kernel."),
    BLK("max_sectors_kb", KT_INT, 4, 65536, NULL, "KiB", NULL, ORDER_BLOCK, 0,
        "Largest request the block layer builds; the kernel clamps it to max_hw_sectors_kb."),
    BLK("rq_affinity", KT_ENUM, 0, 0, "0 1 2", "", "1", ORDER_BLOCK, KF_SEARCH,
        "Where completions run: 0 anywhere, 1 the submitting CPU's group, 2 the submitting CPU."),
    BLK("nomerges", KT_ENUM, 0, 0, "0 1 2", "", "0", ORDER_BLOCK, KF_SEARCH,
        "Request merging: 0 all, 1 simple one-hit merges only, 2 none."),
    BLK("wbt_lat_usec", KT_INT, -1, 1000000, NULL, "us", NULL, ORDER_BLOCK, KF_SEARCH,
        "Writeback throttling target read latency; 0 disables throttling, -1 restores the default (75000 rotational, 2000 otherwise)."),
    BLK("iostats", KT_BOOL, 0, 1, NULL, "", "1", ORDER_BLOCK, 0,
        "Collect I/O statistics; 0 freezes /sys/block/DEV/stat, which the probes read."),
    BLK("add_random", KT_BOOL, 0, 1, NULL, "", NULL, ORDER_BLOCK, 0,
        "Let this disk's timings feed the entropy pool."),
    BLK("write_cache", KT_ENUM, 0, 0, "write_back write_through", "", NULL, ORDER_BLOCK, KF_DESTRUCTIVE | KF_RO,
        "The kernel's view of the device write cache; 'write through' stops cache flushes and risks data loss. Shown, never written."),
    /* read-only hardware facts, shown beside the knobs */
    FACT("rotational", "", "1 for spinning media; feeds the wbt default and BFQ heuristics."),
    FACT("logical_block_size", "bytes", "Smallest unit the device addresses."),
    FACT("physical_block_size", "bytes", "Smallest unit the device writes without read-modify-write."),
    FACT("max_hw_sectors_kb", "KiB", "Largest request the hardware accepts."),
    FACT("minimum_io_size", "bytes", "Preferred minimum I/O size."),
    FACT("optimal_io_size", "bytes", "Preferred I/O size for streaming (0: not reported)."),

    /* --- /sys/block/DEV/queue/iosched: only under the owning scheduler -------- */
    IOS("mq-deadline deadline", "read_expire", 1, 60000, "ms", "500", "Deadline for a read request."),
    IOS("mq-deadline deadline", "write_expire", 1, 600000, "ms", "5000", "Deadline for a write request."),
    IOS("mq-deadline deadline", "writes_starved", 1, 64, "batches", "2", "Read batches served before a write batch is forced."),
    IOS("mq-deadline deadline", "front_merges", 0, 1, "", "1", "Try front merges (1) or not (0)."),
    IOS("mq-deadline deadline", "fifo_batch", 1, 1024, "requests", "16", "Requests dispatched in one batch before deadlines are checked."),
    IOS("mq-deadline", "async_depth", 1, 2048, "tags", NULL, "Tags asynchronous requests may take; defaults to nr_requests."),
    IOS("mq-deadline", "prio_aging_expire", 1, 600000, "ms", "10000", "How long a low-priority request may wait before it is served anyway."),
    IOS("kyber", "read_lat_nsec", 100000, 1000000000, "ns", "2000000", "Target latency for reads."),
    IOS("kyber", "write_lat_nsec", 100000, 10000000000LL, "ns", "10000000", "Target latency for synchronous writes."),
    IOS("bfq cfq", "slice_idle", 0, 100, "ms", "8", "How long to idle on a queue waiting for its next request; 0 gives throughput over fairness."),
    IOS("bfq", "slice_idle_us", 0, 100000, "us", "8000", "slice_idle in microseconds (the same setting)."),
    IOS("bfq cfq", "low_latency", 0, 1, "", "1", "Favour interactive and soft real-time applications."),
    IOS("bfq cfq", "back_seek_max", 0, 1048576, "KiB", "16384", "Largest backward seek considered cheap."),
    IOS("bfq cfq", "back_seek_penalty", 1, 100, "factor", "2", "Cost of a backward seek against a forward one."),
    IOS("bfq cfq", "fifo_expire_sync", 1, 10000, "ms", "125", "Deadline for synchronous requests."),
    IOS("bfq cfq", "fifo_expire_async", 1, 10000, "ms", "250", "Deadline for asynchronous requests."),
    IOS("bfq", "timeout_sync", 1, 1000, "ms", "124", "Longest time a task may use the device once served."),
    IOS("bfq", "max_budget", 0, 1048576, "sectors", "0", "Most sectors served per slot; 0 lets BFQ pick."),
    IOS("bfq", "strict_guarantees", 0, 1, "", "0", "Strict service guarantees at a throughput cost."),
    IOS("cfq", "quantum", 1, 64, "requests", "4", "Requests dispatched per queue per round (2.6 CFQ)."),
    IOS("cfq", "slice_sync", 1, 1000, "ms", "100", "Time slice of a synchronous queue (2.6 CFQ)."),
    IOS("cfq", "slice_async", 1, 1000, "ms", "40", "Time slice of an asynchronous queue (2.6 CFQ)."),
    IOS("cfq", "slice_async_rq", 1, 64, "requests", "2", "Asynchronous requests per slice (2.6 CFQ)."),

    /* --- /sys/class/bdi/MAJ:MIN: per-device share of the dirty limit ---------- */
    BDI("min_ratio", KT_INT, 0, 100, "%", "0", 0, "Share of the global dirty limit reserved for this device; the sum over devices may not exceed 100."),
    BDI("max_ratio", KT_INT, 0, 100, "%", "100", KF_SEARCH, "Most of the global dirty limit this device may use; must stay at or above min_ratio."),
    BDI("strict_limit", KT_BOOL, 0, 1, "", "0", 0, "Apply max_ratio even while the global dirty limit is not reached."),
};

const size_t knob_table_len = sizeof knob_table / sizeof knob_table[0];
