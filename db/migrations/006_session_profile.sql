-- 006: the profile a session applied ('' for set, search and the rest), so
-- `sluice active` can say which profile is in force and `apply B` over A
-- knows what A changed.
ALTER TABLE sessions ADD COLUMN profile TEXT NOT NULL DEFAULT '';
