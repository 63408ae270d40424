/* run_metric_table — every figure a probe run measures, one row each: the one
 * place a metric is declared. Everything else reads the rows through
 * metric.h: the result's storage (struct run_metrics), the store's columns,
 * binds and reads, the share import's bounds, the JSON and CSV, the
 * summaries of `sluice probe`, `sluice report`, the Probe screen and the
 * Results detail view. Adding a metric is a row here and the line that
 * measures it (src/probe/result.c: measure).
 *
 * M(A, name, kept, json_path, group, label, unit, lo, hi, format, better)
 *   A          passed through: what the user of the table binds (a struct)
 *   name       the C field of struct run_metrics, the JSON/CSV key of
 *              `history`, and (kept C) the SQL column of runs
 *   kept       C: a column of runs; J: only in the run's stored metrics
 *              JSON, read back at json_path (no migration needed)
 *   json_path  where `probe --json` and the stored metrics JSON hold it
 *              (dotted; written when its parent object exists: "disk.x"
 *              only for a run with a disk)
 *   group      the line of the summaries it is shown on (enum run_metric_group)
 *   label      its words on that line
 *   unit       "" for a plain count
 *   lo, hi     what a probe can measure at all: a shared file's value
 *              outside is refused as forged or damaged
 *   format     MF_NS (850 ns, 1.23 ms), MF_INT, MF_F0..MF_F3 (decimals)
 *   better     BETTER_HIGHER, BETTER_LOWER or BETTER_NONE (a fact, not a goal)
 *
 * The reader's p50/p99 live at reader.due_*: the waits of reads due every
 * 2 ms, the ticks a stall held back counted (hist_add_paced). Runs stored
 * before that kept the real reads' own percentiles at reader.p50_ns and
 * reader.p99_ns; they are not read back as these, since a stall of one
 * long read hardly moved them (a different instrument, not an older value).
 *
 * The order is the CSV's: the rows of METRIC_TABLE_HEAD keep their
 * historical places among the run's identity in `history --csv`; new rows
 * go at the end of METRIC_TABLE_REST, so scripts that cut columns by
 * position keep working. */
#define METRIC_TABLE(M, A) METRIC_TABLE_HEAD(M, A) METRIC_TABLE_REST(M, A)
#define METRIC_TABLE_HEAD(M, A)                                                                                       \
    M(A, mb_s, C, "mb_s", MG_RUN, "", "MB/s", 0, 1e7, MF_F1, BETTER_HIGHER)                                          \
    M(A, iops, C, "iops", MG_RUN, "", "IOPS", 0, 1e10, MF_F0, BETTER_HIGHER)                                              \
    M(A, lat_p50_ns, C, "lat_p50_ns", MG_LAT, "p50", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                                  \
    M(A, lat_p99_ns, C, "lat_p99_ns", MG_LAT, "p99", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                                  \
    M(A, lat_max_ns, C, "lat_max_ns", MG_LAT, "max", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                                  \
    M(A, canary_max_ns, C, "canary.max_ns", MG_CANARY, "stall max", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                   \
    M(A, cpu_usr_pct, C, "cpu.usr_pct", MG_CPU, "usr", "%", 0, 1e5, MF_F1, BETTER_LOWER)                                  \
    M(A, cpu_sys_pct, C, "cpu.sys_pct", MG_CPU, "sys", "%", 0, 1e5, MF_F1, BETTER_LOWER)
#define METRIC_TABLE_REST(M, A)                                                                                       \
    M(A, wall_s, C, "wall_s", MG_RUN, "in", "s", 0, 1e6, MF_F3, BETTER_NONE)                                              \
    M(A, read_mb_s, C, "read_mb_s", MG_RUN, "read", "MB/s", 0, 1e7, MF_F1, BETTER_HIGHER)                                 \
    M(A, write_mb_s, C, "write_mb_s", MG_RUN, "write", "MB/s", 0, 1e7, MF_F1, BETTER_HIGHER)                              \
    M(A, lat_mean_ns, C, "lat_mean_ns", MG_LAT, "mean", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                               \
    M(A, lat_p999_ns, C, "lat_p999_ns", MG_LAT, "p99.9", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                              \
    M(A, ctx_switches, C, "cpu.ctx_switches", MG_CPU, "context switches", "", 0, 1e15, MF_INT, BETTER_NONE)               \
    M(A, dev_util_pct, C, "disk.util_pct", MG_DISK, "util", "%", 0, 1e3, MF_F1, BETTER_NONE)                              \
    M(A, dev_await_ms, C, "disk.await_ms", MG_DISK, "await", "ms", 0, 1e9, MF_F2, BETTER_LOWER)                           \
    M(A, psi_some_pct, C, "psi_io.some_pct", MG_PSI, "some", "%", 0, 100, MF_F1, BETTER_LOWER)                            \
    M(A, canary_p99_ns, C, "canary.p99_ns", MG_CANARY, "p99", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                         \
    M(A, stalls_100ms, C, "canary.over_100ms", MG_CANARY, ">100ms", "", 0, 1e9, MF_INT, BETTER_LOWER)                     \
    M(A, stalls_1s, C, "canary.over_1s", MG_CANARY, ">1s", "", 0, 1e9, MF_INT, BETTER_LOWER)                              \
    M(A, stalls_2s, C, "canary.over_2s", MG_CANARY, ">2s", "", 0, 1e9, MF_INT, BETTER_LOWER)                              \
    M(A, max_dirty_pages, C, "vm.max_dirty_pages", MG_DIRTY, "max dirty", "pages", 0, 1e13, MF_INT, BETTER_NONE)          \
    M(A, reader_p50_ns, J, "reader.due_p50_ns", MG_READER, "p50", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                         \
    M(A, reader_p99_ns, J, "reader.due_p99_ns", MG_READER, "p99", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                         \
    M(A, reader_max_ns, J, "reader.max_ns", MG_READER, "max", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                         \
    M(A, reader_read_p99_ns, J, "reader.per_read_p99_ns", MG_READER, "per-read p99", "ns", 0, 1e13, MF_NS, BETTER_LOWER)  \
    M(A, write_p99_ns, J, "ops.write.lat_ns.p99", MG_LAT, "write p99", "ns", 0, 1e13, MF_NS, BETTER_LOWER)                \
    M(A, psi_full_pct, J, "psi_io.full_pct", MG_PSI, "full", "%", 0, 100, MF_F1, BETTER_LOWER)                            \
    M(A, canary_sleep_max_ns, J, "canary.sleep_max_ns", MG_CANARY, "oversleep max", "ns", 0, 1e13, MF_NS, BETTER_LOWER)   \
    M(A, cpu_us_per_io, J, "cpu.us_per_io", MG_CPU, "per I/O", "us", 0, 1e9, MF_F2, BETTER_LOWER)                     \
    M(A, dev_queue_depth_avg, J, "disk.queue_depth_avg", MG_DISK, "queue depth", "", 0, 1e6, MF_F2, BETTER_NONE)
