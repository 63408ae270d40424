-- 017: a live verification killed by SIGKILL, a crash or a power cut cannot
-- record its own end; the restore that puts its crashed session back marks
-- it 'killed' (store_verify_mark_killed), so it no longer reads 'running'
-- for ever. SQLite cannot change a CHECK in place: both tables are rebuilt,
-- the blocks first moved to a table pointing at the new verifies (with
-- foreign keys on, dropping the old verifies would cascade to them).
CREATE TABLE verifies_new (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT NOT NULL UNIQUE,
    session_id    INTEGER REFERENCES sessions(id),
    candidate     TEXT NOT NULL,            -- B: "knob=value ..."
    baseline      TEXT NOT NULL,            -- A: the same knobs as they were
    source        TEXT NOT NULL DEFAULT '', -- what named B: "profile latency", "search 3f2a...", ""
    duration_ms   INTEGER NOT NULL,
    block_ms      INTEGER NOT NULL,
    seed          INTEGER NOT NULL,
    metric_cmd    TEXT NOT NULL DEFAULT '',
    metric_higher INTEGER NOT NULL DEFAULT 0,
    dir           TEXT NOT NULL DEFAULT '',
    disks         TEXT NOT NULL DEFAULT '', -- "sda nvme0n1"
    plan_json     TEXT NOT NULL,            -- blocks planned, order, settle times and why, canary, guard
    state         TEXT NOT NULL CHECK (state IN ('running', 'done', 'guard', 'interrupted', 'idle', 'failed', 'killed')),
    end_why       TEXT NOT NULL DEFAULT '',
    verdict       TEXT NOT NULL DEFAULT '', -- better, worse, no difference beyond noise, no verdict
    held          INTEGER NOT NULL DEFAULT 0,
    kept          INTEGER NOT NULL DEFAULT 0,
    put_back      TEXT NOT NULL DEFAULT '',
    started       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    ended         TEXT                      -- killed: its last sign of life (the last block stored, or its start)
);
INSERT INTO verifies_new SELECT * FROM verifies;

CREATE TABLE verify_blocks_new (
    verify_id    INTEGER NOT NULL REFERENCES verifies_new(id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,          -- 0-based, in the order run
    arm          TEXT NOT NULL CHECK (arm IN ('A', 'B')),
    setting      TEXT NOT NULL,             -- the knobs in force: the candidate or the baseline
    start_ms     INTEGER NOT NULL,          -- from the test's start
    settle_ms    INTEGER NOT NULL,          -- discarded after a switch
    end_ms       INTEGER NOT NULL,
    started      TEXT NOT NULL,             -- wall clock, UTC
    ended        TEXT NOT NULL,
    complete     INTEGER NOT NULL,          -- ran to its end (a guard or a signal cuts the last)
    util_pct     REAL NOT NULL,             -- the busiest watched disk's io_ticks share
    io_bytes_s   REAL NOT NULL,             -- the workload's demand (the canary's own reads out)
    metrics_json TEXT NOT NULL,
    note         TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (verify_id, seq)
);
INSERT INTO verify_blocks_new SELECT * FROM verify_blocks;

DROP TABLE verify_blocks;
DROP TABLE verifies;
-- renaming verifies_new rewrites verify_blocks_new's reference to it
ALTER TABLE verifies_new RENAME TO verifies;
ALTER TABLE verify_blocks_new RENAME TO verify_blocks;
