-- 001: hosts, devices, tuning sessions and their snapshots.
CREATE TABLE hosts (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    machine_key TEXT NOT NULL UNIQUE,      -- machine-id, else hostname: finds this host again
    hostname    TEXT NOT NULL,
    kernel      TEXT NOT NULL,
    cpu_model   TEXT NOT NULL,
    cpus        INTEGER NOT NULL,
    mem_bytes   INTEGER NOT NULL,
    virt        TEXT NOT NULL,
    first_seen  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    last_seen   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE devices (
    id           INTEGER PRIMARY KEY,
    uuid         TEXT NOT NULL UNIQUE,
    host_id      INTEGER NOT NULL REFERENCES hosts(id),
    name         TEXT NOT NULL,
    transport    TEXT NOT NULL,
    vendor       TEXT NOT NULL DEFAULT '',
    model        TEXT NOT NULL DEFAULT '',
    serial       TEXT NOT NULL DEFAULT '',
    wwid         TEXT NOT NULL DEFAULT '',
    rotational   INTEGER NOT NULL,
    size_bytes   INTEGER NOT NULL,
    logical_block_size  INTEGER NOT NULL,
    physical_block_size INTEGER NOT NULL,
    hw_queues    INTEGER NOT NULL,
    queue_depth  INTEGER NOT NULL,
    max_hw_sectors_kb INTEGER NOT NULL,
    hw_class     TEXT NOT NULL,
    UNIQUE (host_id, name, serial, wwid)
);

CREATE TABLE sessions (
    id       INTEGER PRIMARY KEY,
    uuid     TEXT NOT NULL UNIQUE,
    host_id  INTEGER REFERENCES hosts(id),
    purpose  TEXT NOT NULL,                -- set, search, apply, probe, ...
    root     TEXT NOT NULL,                -- the --root the knobs live under ('' = this system)
    pid      INTEGER NOT NULL,
    state    TEXT NOT NULL CHECK (state IN ('open', 'kept', 'restored', 'failed')),
    started  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    ended    TEXT,
    note     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_state ON sessions(state);

-- Every knob a session may touch, as it was before the first write.
CREATE TABLE snapshots (
    session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    knob        TEXT NOT NULL,
    path        TEXT NOT NULL,
    value       TEXT NOT NULL,
    present     INTEGER NOT NULL,
    apply_order INTEGER NOT NULL,
    sched       TEXT NOT NULL DEFAULT '',   -- iosched knobs: the scheduler that owned them
    PRIMARY KEY (session_id, knob)
);

-- What a session wrote, in order, and what the kernel kept.
CREATE TABLE session_changes (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    knob       TEXT NOT NULL,
    old_value  TEXT NOT NULL,
    new_value  TEXT NOT NULL,
    got_value  TEXT NOT NULL,
    at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (session_id, seq)
);
