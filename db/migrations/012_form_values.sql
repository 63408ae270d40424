-- 012: the values last typed in the UI's forms (Probe, Search), per form
-- and field (the field's option, "--dir"), so the next start shows them.
-- This machine's own state: never shared.
CREATE TABLE form_values (
    form  TEXT NOT NULL,
    field TEXT NOT NULL,
    value TEXT NOT NULL,
    saved TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (form, field)
);
