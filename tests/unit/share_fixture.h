/* share_fixture — what the share tests share: the start of the SQL that
 * adds runs to a store (the config and workload rows they name, and the
 * runs columns in order); each test appends the SELECT of its values. */
#ifndef SLUICE_SHARE_FIXTURE_H
#define SLUICE_SHARE_FIXTURE_H

#define SHARE_FX_RUNS_INSERT                                                                                      \
    "INSERT OR IGNORE INTO configs VALUES ('c1', 'vm.dirty_ratio=20');"                                           \
    "INSERT OR IGNORE INTO workloads VALUES ('w1', 'seqwrite', 'bs=1M');"                                         \
    "INSERT INTO runs (uuid, batch_uuid, rep, host_uuid, host_id, device_uuid, device_id, kernel, workload, "    \
    " workload_hash, config_hash, seed, started, status, wall_s, mb_s, iops, read_mb_s, write_mb_s, "            \
    " cpu_usr_pct, cpu_sys_pct, ctx_switches, metrics_json) "

#endif
