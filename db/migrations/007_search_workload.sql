-- 007: the workload a search fixed before its first evaluation, so every
-- configuration (the baseline's included) ran the same work: its text and
-- hash (as runs.workload_text/workload_hash), how its buffered write
-- volume was sized, and whether free space capped it below what the
-- largest dirty limit of the space needs (the threshold not reached).
ALTER TABLE searches ADD COLUMN workload_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE searches ADD COLUMN workload_text TEXT NOT NULL DEFAULT '';
ALTER TABLE searches ADD COLUMN sizing_note TEXT NOT NULL DEFAULT '';
ALTER TABLE searches ADD COLUMN threshold_capped INTEGER NOT NULL DEFAULT 0;
