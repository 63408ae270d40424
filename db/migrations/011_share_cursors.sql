-- 011: where the last pull from a central store (PostgreSQL) stopped: the
-- server's own sequence number of the last run merged, per server and
-- hardware class ('*' for --class all). A server number, not a time: a
-- clock that goes backwards between pulls cannot make a pull skip a run.
-- The server is named by the identity it keeps (sluice_meta.server_uuid),
-- so a server rebuilt at the same URL starts from the beginning.
CREATE TABLE share_cursors (
    server   TEXT NOT NULL,
    hw_class TEXT NOT NULL,
    seq      INTEGER NOT NULL CHECK (seq >= 0),
    url      TEXT NOT NULL DEFAULT '',    -- as shown: no password
    pulled   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (server, hw_class)
);
