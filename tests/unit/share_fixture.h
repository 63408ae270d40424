/* share_fixture — what the share tests share: the start of the SQL that
 * adds runs to a store (the config and workload rows they name, and the
 * runs columns in order); each test appends the SELECT of its values. */
#ifndef SLUICE_SHARE_FIXTURE_H
#define SLUICE_SHARE_FIXTURE_H

/* Their keys: the SHA-256 of their text, as a merge checks. */
#define SHARE_FX_CONFIG "'58ebf35016222961d7b0f1f9279754e929786d9c19792b7e6187e3fbde0e663e'"   /* vm.dirty_ratio=20 */
#define SHARE_FX_WORKLOAD "'ed5e6c879a51cff89551fe1753eae880d4377d12227de78d52622062b2017ab8'" /* bs=1M */
#define SHARE_FX_PARENTS                                                                                          \
    "INSERT OR IGNORE INTO configs VALUES (" SHARE_FX_CONFIG ", 'vm.dirty_ratio=20');"                             \
    "INSERT OR IGNORE INTO workloads VALUES (" SHARE_FX_WORKLOAD ", 'seqwrite', 'bs=1M');"

#define SHARE_FX_RUNS_INSERT                                                                                      \
    SHARE_FX_PARENTS                                                                                              \
    "INSERT INTO runs (uuid, batch_uuid, rep, host_uuid, host_id, device_uuid, device_id, kernel, workload, "    \
    " workload_hash, config_hash, seed, started, status, wall_s, mb_s, iops, read_mb_s, write_mb_s, "            \
    " cpu_usr_pct, cpu_sys_pct, ctx_switches, metrics_json) "

#endif
