-- 008: the confirmation round of a search. Trials may be 'confirm' runs
-- (fresh runs of the baseline, the winner and the runner-up after
-- exploring), so the role check is widened (SQLite rebuilds the table for
-- that). A search keeps exploring's estimate of its candidate beside the
-- confirmed one (improvement, ci_lo, ci_hi, p_holm then hold the
-- confirmation's), the shrinkage between them, the outcome and how many
-- fresh runs each configuration had.
CREATE TABLE trials_new (
    search_id    INTEGER NOT NULL REFERENCES searches(id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('baseline', 'explore', 'race', 'confirm')),
    config_hash  TEXT NOT NULL,
    config_text  TEXT NOT NULL,
    score        REAL,
    metrics_json TEXT NOT NULL,
    run_uuid     TEXT NOT NULL DEFAULT '',
    elapsed_ms   INTEGER NOT NULL,
    at           TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (search_id, seq)
);
INSERT INTO trials_new SELECT search_id, seq, role, config_hash, config_text, score, metrics_json, run_uuid, elapsed_ms, at
    FROM trials;
DROP TABLE trials;
ALTER TABLE trials_new RENAME TO trials;
ALTER TABLE searches ADD COLUMN confirm_outcome TEXT NOT NULL DEFAULT '';  -- confirmed, not confirmed, contradicted
ALTER TABLE searches ADD COLUMN confirm_reps INTEGER NOT NULL DEFAULT 0;
ALTER TABLE searches ADD COLUMN explore_improvement REAL;                   -- exploring's estimate of the candidate
ALTER TABLE searches ADD COLUMN shrinkage REAL;                             -- 1 - confirmed / exploring
