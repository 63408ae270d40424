-- 004: the scratch directories of probes while they exist. A probe records
-- its directory (and its pid and user) right after creating it and forgets
-- it once it has removed it, so a row whose owner no longer runs is what a
-- SIGKILLed probe left behind: `sluice restore` removes those without
-- scanning the disk. This machine's state: never shared.
CREATE TABLE probe_scratch (
    path    TEXT PRIMARY KEY,          -- absolute or as given: DIR/.sluice-probe.PID.XXXXXX
    pid     INTEGER NOT NULL,          -- the probe process (also in the name)
    uid     INTEGER NOT NULL,          -- its effective user: the directory's owner
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
