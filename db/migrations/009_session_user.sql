-- 009: who started a session (the user, and the sudo user behind root), so
-- 'sessions --log' tells from the store what the syslog audit trail tells:
-- which user changed which knob when. Sessions recorded before are ''.
ALTER TABLE sessions ADD COLUMN user TEXT NOT NULL DEFAULT '';
