-- 002: probe runs. Rows carry UUIDs and content hashes rather than only
-- local ids, so databases from many machines merge with INSERT OR IGNORE.

-- The knob values in force during a run: canonical "name=value\n" text,
-- sorted, keyed by its SHA-256.
CREATE TABLE configs (
    hash TEXT PRIMARY KEY,
    text TEXT NOT NULL
);

-- The workload spec that shaped the load (not the directory, seed or
-- repetition count), keyed by the SHA-256 of its canonical text.
CREATE TABLE workloads (
    hash     TEXT PRIMARY KEY,
    workload TEXT NOT NULL,
    spec     TEXT NOT NULL
);

-- One row per repetition.
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT NOT NULL UNIQUE,
    batch_uuid    TEXT NOT NULL,          -- the repetitions of one probe share it
    rep           INTEGER NOT NULL,       -- 0-based
    host_uuid     TEXT NOT NULL,
    host_id       INTEGER REFERENCES hosts(id),
    device_uuid   TEXT,                   -- NULL on tmpfs and other deviceless filesystems
    device_id     INTEGER REFERENCES devices(id),
    device_name   TEXT NOT NULL DEFAULT '',
    hw_class      TEXT NOT NULL DEFAULT '',
    kernel        TEXT NOT NULL,
    workload      TEXT NOT NULL,
    workload_hash TEXT NOT NULL REFERENCES workloads(hash),
    config_hash   TEXT NOT NULL REFERENCES configs(hash),
    dir           TEXT NOT NULL DEFAULT '',
    seed          INTEGER NOT NULL,
    started       TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('ok', 'warm', 'aborted', 'failed')),
    note          TEXT NOT NULL DEFAULT '',
    wall_s        REAL NOT NULL,
    mb_s          REAL NOT NULL,
    iops          REAL NOT NULL,
    read_mb_s     REAL NOT NULL,
    write_mb_s    REAL NOT NULL,
    lat_mean_ns   REAL,                   -- over reads and writes
    lat_p50_ns    INTEGER,
    lat_p99_ns    INTEGER,
    lat_p999_ns   INTEGER,
    lat_max_ns    INTEGER,
    cpu_usr_pct   REAL NOT NULL,
    cpu_sys_pct   REAL NOT NULL,
    ctx_switches  INTEGER NOT NULL,
    dev_util_pct  REAL,
    dev_await_ms  REAL,
    psi_some_pct  REAL,
    canary_max_ns INTEGER,
    canary_p99_ns INTEGER,
    stalls_100ms  INTEGER,
    stalls_1s     INTEGER,
    stalls_2s     INTEGER,
    max_dirty_pages INTEGER,
    reached_dirty_threshold INTEGER,
    metrics_json  TEXT NOT NULL,          -- the whole result (probe_result_json) without the series
    hist          BLOB,                   -- per op: 1 byte op, then hist_encode ("SLH1")
    series_json   TEXT                    -- nr_dirty / nr_writeback / MB/s every 100 ms
);
CREATE INDEX runs_started ON runs(started);
CREATE INDEX runs_workload_config ON runs(workload_hash, config_hash);
