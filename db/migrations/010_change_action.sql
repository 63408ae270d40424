-- 010: the change log holds put-backs too. A restore, an `off`, a profile
-- switch or a rollback logs each knob it wrote back (action 'put-back': old =
-- what it found, new = the value from before the session, got = read back,
-- note = why it failed), so `sessions --log` tells knob by knob what the
-- syslog audit line of each put-back told. The session's own writes stay
-- action 'write'; only they count as its changes.
ALTER TABLE session_changes ADD COLUMN action TEXT NOT NULL DEFAULT 'write';
ALTER TABLE session_changes ADD COLUMN note TEXT NOT NULL DEFAULT '';
