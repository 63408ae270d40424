-- 016: live verifications (verify --live, src/verify) and their blocks. A
-- verify row is the test: the candidate (B) and the same knobs as they were
-- (A), the spec that repeats it, the plan, how it ended and why. Each block
-- is one row as it is measured: its arm, the setting in force, its times
-- (from the test's start and on the wall clock) and its metrics as a JSON
-- object named as the verdict names them ("await", "psi_io_some",
-- "canary", ...). The verdict is drawn again from the blocks by the code
-- that drew it live, so a report and the test never disagree.
CREATE TABLE verifies (
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
    state         TEXT NOT NULL CHECK (state IN ('running', 'done', 'guard', 'interrupted', 'idle', 'failed')),
    end_why       TEXT NOT NULL DEFAULT '',
    verdict       TEXT NOT NULL DEFAULT '', -- better, worse, no difference beyond noise, no verdict
    held          INTEGER NOT NULL DEFAULT 0,
    kept          INTEGER NOT NULL DEFAULT 0,
    put_back      TEXT NOT NULL DEFAULT '',
    started       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    ended         TEXT
);

CREATE TABLE verify_blocks (
    verify_id    INTEGER NOT NULL REFERENCES verifies(id) ON DELETE CASCADE,
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
