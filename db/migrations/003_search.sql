-- 003: searches and their trials (src/search). A search row holds what is
-- needed to resume it (spec_json) and, once done, its verdict with the
-- evidence `recommend` shows; every evaluation is one trial row.
CREATE TABLE searches (
    id           INTEGER PRIMARY KEY,
    uuid         TEXT NOT NULL UNIQUE,
    host_id      INTEGER REFERENCES hosts(id),
    session_id   INTEGER REFERENCES sessions(id),
    space        TEXT NOT NULL,
    device       TEXT NOT NULL DEFAULT '',
    hw_class     TEXT NOT NULL DEFAULT '',
    kernel       TEXT NOT NULL DEFAULT '',
    workload     TEXT NOT NULL,
    objective    TEXT NOT NULL,
    strategy     TEXT NOT NULL,
    evaluator    TEXT NOT NULL,            -- probe, oracle, synthetic
    budget_evals INTEGER NOT NULL,         -- 0: none
    budget_ms    INTEGER NOT NULL,         -- 0: none
    seed         INTEGER NOT NULL,
    spec_json    TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('running', 'done', 'interrupted', 'failed')),
    applied      INTEGER NOT NULL DEFAULT 0,
    verdict      TEXT NOT NULL DEFAULT '', -- win, noise, worse, infeasible, none
    winner_text  TEXT NOT NULL DEFAULT '', -- "knob=value knob=value"
    winner_hash  TEXT NOT NULL DEFAULT '',
    improvement  REAL,                     -- exp(score gain) - 1 against the baseline
    ci_lo        REAL,
    ci_hi        REAL,
    p_holm       REAL,
    n_winner     INTEGER NOT NULL DEFAULT 0,
    n_baseline   INTEGER NOT NULL DEFAULT 0,
    result_json  TEXT,
    started      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    ended        TEXT
);
CREATE INDEX searches_workload ON searches(workload, state);

CREATE TABLE trials (
    search_id    INTEGER NOT NULL REFERENCES searches(id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('baseline', 'explore', 'race')),
    config_hash  TEXT NOT NULL,
    config_text  TEXT NOT NULL,
    score        REAL,
    metrics_json TEXT NOT NULL,
    run_uuid     TEXT NOT NULL DEFAULT '',  -- the probe run behind it, if any
    elapsed_ms   INTEGER NOT NULL,          -- search time when it finished
    at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (search_id, seq)
);
