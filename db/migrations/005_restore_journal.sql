-- 005: restore that checks before it writes, and is journaled.
-- Who holds a session: pid alone is not enough (a recycled pid, a pid of
-- another pid namespace), so the holder's start time (seconds since the
-- epoch, from /proc) and pid namespace are kept beside it. While a restore
-- runs, pid, holder_start and holder_ns name the restoring process and
-- restoring is 1: a restore killed part-way is a crashed session too.
ALTER TABLE sessions ADD COLUMN holder_start REAL NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN holder_ns TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN restoring INTEGER NOT NULL DEFAULT 0;
-- 1 from just before a session writes the kernel until what it left is
-- recorded: a session that died then may have left any value.
ALTER TABLE sessions ADD COLUMN writing INTEGER NOT NULL DEFAULT 0;
-- What the session left in each knob (its snapshot value until it writes):
-- restore writes a knob back only while it still holds this.
ALTER TABLE snapshots ADD COLUMN left_value TEXT;
-- 'put' while a restore is under way for the knobs it decided to put back.
ALTER TABLE snapshots ADD COLUMN restore_plan TEXT NOT NULL DEFAULT '';
-- Sessions from before this version did not record what they left: their
-- restore puts every knob back, as it did then.
UPDATE sessions SET writing = 1 WHERE state <> 'restored';
