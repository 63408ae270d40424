#!/bin/sh
# A merge killed (SIGKILL, as by a power cut or the OOM killer) in the middle
# of its transaction leaves the local database as it was: the next opener
# rolls the hot journal back, integrity_check is ok, the dump is the one from
# before, and the same merge then runs to the end. The kill is aimed at the
# merge's transaction (its -journal has held pages for a while: the switch
# from WAL to a rollback journal is a transaction too, a short one): a kill
# that missed it (the merge done) is tried again earlier, and the case
# fails when no attempt landed inside one. Needs no root.
#   merge-killed         one file
#   merge-killed-batch   `sluice merge A B`, A small, killed while B is
#                        merged: A is in whole (each file is its own
#                        transaction), nothing of B
cd "$(dirname "$0")/../.." || exit 2
SLUICE=${SLUICE:-$PWD/sluice}
command -v sqlite3 > /dev/null || { echo "skip faults/merge-killed: sqlite3 (the CLI) is not installed"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-mergekill.XXXXXX)
pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP PIPE
ok()   { echo "ok faults/$1${2:+ ($2)}"; }
fail() { n=$1; shift; echo "FAIL faults/$n"; for l in "$@"; do echo "  $l"; done; }
s() { db=$1; shift; "$SLUICE" --root tests/fixtures/modern --db "$db" "$@"; }

# A pushed snapshot as the file to merge, with RUNS synthetic runs of a new
# host (bench/merge's rows: about 2.3 KB each).
s "$work/seed.db" push "file://$work/share" --class c > /dev/null || { fail merge-killed "push failed"; exit 0; }
zstd -qd "$work"/share/c/*.sluicedb.zst -o "$work/seed.sluicedb" || { fail merge-killed "zstd -d failed"; exit 0; }
# A config and a workload are named by the SHA-256 of their text (a merge checks it).
cfg=$(printf %s 'vm.dirty_ratio=20' | sha256sum | cut -c1-64) wl=$(printf %s 'bs=1M' | sha256sum | cut -c1-64)
clone() { # file key runs
    cp "$work/seed.sluicedb" "$1"
    sqlite3 "$1" "UPDATE hosts SET uuid = lower(hex(randomblob(16))), machine_key = '$2';
        UPDATE devices SET uuid = lower(hex(randomblob(16)));
        INSERT OR IGNORE INTO configs VALUES ('$cfg', 'vm.dirty_ratio=20');
        INSERT OR IGNORE INTO workloads VALUES ('$wl', 'seqwrite', 'bs=1M');
        WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < $3)
        INSERT INTO runs (uuid, batch_uuid, rep, host_uuid, host_id, device_uuid, device_id, device_name, hw_class,
            kernel, workload, workload_hash, config_hash, seed, started, status, wall_s, mb_s, iops, read_mb_s,
            write_mb_s, cpu_usr_pct, cpu_sys_pct, ctx_switches, metrics_json, hist, series_json)
        SELECT lower(hex(randomblob(16))), 'b' || (k / 5), k % 5, h.uuid, h.id, d.uuid, d.id, d.name, d.hw_class,
            '6.1', 'seqwrite', '$wl', '$cfg', k, '2026-01-01T00:00:00Z', 'ok', 10.0, 100 + k % 50, 25600, 0, 100,
            1.5, 12.0, 5000, '{\"mb_s\": 1}', randomblob(600), '[' || printf('%.1500c', '1') || ']'
        FROM n, hosts h, (SELECT * FROM devices ORDER BY id LIMIT 1) d;"
}
clone "$work/small.sluicedb" mk-small 200
clone "$work/big.sluicedb" mk-big 40000
clone "$work/small2.sluicedb" mk-small2 200

# The local store before: this host, and the small file's runs merged.
base=$work/base.db
s "$base" merge "$work/small.sluicedb" > /dev/null || { fail merge-killed "the first merge failed"; exit 0; }
sqlite3 "$base" .dump > "$work/before.dump"
# What the batch leaves when killed in B: the store with A merged.
cp "$base" "$work/a.db"
s "$work/a.db" merge "$work/small2.sluicedb" > /dev/null || { fail merge-killed "merging A failed"; exit 0; }
sqlite3 "$work/a.db" .dump > "$work/with-a.dump"

# try EXPECTED MISSED DELAY FILE...: merge FILE... into a copy of the store,
# kill it DELAY seconds after its -journal has held pages for 4 looks in a
# row (some 20 ms), and say whether the kill landed in a transaction: 0 it
# did and the store's dump is EXPECTED, 1 it did and the dump is neither
# that nor MISSED (a kill in another transaction than the one aimed at,
# which leaves MISSED), 2 it missed.
try() {
    expected=$1 missed=$2 delay=$3; shift 3
    db=$work/t.db
    rm -f "$db" "$db-journal" "$db-wal" "$db-shm"
    cp "$base" "$db"
    "$SLUICE" --root tests/fixtures/modern --db "$db" merge "$@" > "$work/out" 2>&1 &
    pid=$!
    full=0 i=0
    while [ $i -lt 12000 ] && [ $full -lt 4 ] && kill -0 "$pid" 2>/dev/null; do
        if [ -s "$db-journal" ]; then full=$((full + 1)); else full=0; fi
        sleep 0.005
        i=$((i + 1))
    done
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2> /dev/null; rc=$?
    pid=""
    # Only a kill inside a transaction leaves a hot journal.
    if [ $rc != 137 ] || [ ! -s "$db-journal" ]; then return 2; fi
    ic=$(sqlite3 "$db" "PRAGMA integrity_check" 2>&1)
    sqlite3 "$db" .dump > "$work/after.dump"
    if [ "$ic" != ok ]; then why="integrity_check: $ic"; return 1; fi
    cmp -s "$missed" "$work/after.dump" && return 2
    if ! cmp -s "$expected" "$work/after.dump"; then
        why="the store changed: $(diff "$work/before.dump" "$work/after.dump" | grep -c '^[<>]') dump lines differ"
        return 1
    fi
    s "$db" merge "$@" > "$work/out" 2>&1 || { why="the merge again failed: $(tail -1 "$work/out")"; return 1; }
    return 0
}

case_() { # name expected missed file...
    name=$1 expected=$2 missed=$3; shift 3
    hits=0 bad=""
    for delay in 0.1 0.02 0 0.3; do
        try "$expected" "$missed" "$delay" "$@"
        case $? in
            0) hits=$((hits + 1)) ;;
            1) bad="$why (killed $delay s in)"; break ;;
        esac
        [ $hits -ge 2 ] && break
    done
    if [ -n "$bad" ]; then fail "$name" "$bad"
    elif [ $hits = 0 ]; then fail "$name" "no kill landed inside the merge's transaction"
    else ok "$name" "$hits kill(s) mid-transaction: integrity ok, the dump as it was before it, the merge then succeeds"; fi
}
case_ merge-killed "$work/before.dump" /dev/null "$work/big.sluicedb"
case_ merge-killed-batch "$work/with-a.dump" "$work/before.dump" "$work/small2.sluicedb" "$work/big.sluicedb"
exit 0
