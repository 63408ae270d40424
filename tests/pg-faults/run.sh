#!/bin/sh
# PostgreSQL faults (push/pull/prune postgresql://) against a throwaway
# PostgreSQL 15 of its own (tests/pg/server.sh: a temporary directory, a
# free port on 127.0.0.1, stopped and removed at the end): a link that goes
# silent (tests/pg-faults/proxy.py between sluice and the server) must not
# hold a command past --timeout; dates that are not a UTC time, or lie in
# the future, never reach the server and cannot break prune; one host cannot
# write or prune another's runs; text that is not UTF-8 travels escaped.
cd "$(dirname "$0")/../.." || exit 2
top=$(pwd)
sluice=${SLUICE_BIN:-$top/sluice}   # SLUICE_BIN: another build (an older one, to see these tests fail)
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-pgf.XXXXXX)
export TMPDIR=$tmp
. tests/pg/server.sh
proxy_pid=
proxy_stop() { [ -z "$proxy_pid" ] || kill "$proxy_pid" 2> /dev/null; wait "$proxy_pid" 2> /dev/null; proxy_pid=; }
cleanup() {
    proxy_stop
    pg_stop
    [ -n "$SLUICE_PG_KEEP" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

pg_start_suite pg-faults "$tmp/pg" || exit 0
for db in m1 m2 dates ident utf8; do
    pg_sql_db postgres "CREATE DATABASE $db OWNER fleet" > /dev/null || { echo "FAIL pg-faults/create-$db"; exit 0; }
done
# Over the socket as the superuser (the database DB).
url() { echo "postgresql:///$1?host=$tmp/pg/sock&port=$pg_port&user=sluice"; }
# Over TCP through the proxy as fleet (whose databases they are).
export PGPASSWORD=pg-s3cret
purl() { echo "postgresql://fleet@127.0.0.1:$(cat "$tmp/proxy.port")/$1?sslmode=disable"; }

host() {   # NAME: a fixture copy with its own machine-id, and a function NAME running sluice on it
    cp -a tests/fixtures/modern "$tmp/root$1"
    printf '%s' "$1" | sha256sum | cut -c1-32 > "$tmp/root$1/etc/machine-id"
    echo "fixture-$1" > "$tmp/root$1/proc/sys/kernel/hostname"
    eval "$1() { HOME=\$tmp/home \"\$sluice\" --root \"\$tmp/root$1\" --db \"\$tmp/$1.db\" \"\$@\"; }"
    HOME=$tmp/home "$sluice" --root "$tmp/root$1" --db "$tmp/$1.db" create-db
}
mkdir -p "$tmp/home"
for h in A B C D G I U V; do host $h; done
count() { sqlite3 "$tmp/$1.db" "SELECT count(*) FROM runs"; }
uuid_of() { sqlite3 "$tmp/$1.db" "SELECT DISTINCT host_uuid FROM runs WHERE host_uuid = (SELECT uuid FROM hosts WHERE hostname = 'fixture-$1')"; }
now_ms() { date +%s%3N; }

proxy() {   # MODE [BYTES]: a proxy to the server, its port in $tmp/proxy.port, its log $tmp/proxy.log
    proxy_stop
    rm -f "$tmp/proxy.port" "$tmp/proxy.log"
    python3 tests/pg-faults/proxy.py "$tmp/proxy.port" "$pg_port" "$tmp/proxy.log" "$@" &
    proxy_pid=$!
    for _ in $(seq 50); do [ -s "$tmp/proxy.port" ] && return 0; sleep 0.1; done
    echo "the proxy did not start"; return 1
}
# Bytes that went WAY (up, down) over the proxy's connections, all of them
# (once the last one closed: the log line is written then).
proxy_bytes() {
    for _ in $(seq 50); do [ -s "$tmp/proxy.log" ] && break; sleep 0.1; done
    awk -v w="$1" '{ n += (w == "up" ? $2 : $4) } END { print n + 0 }' "$tmp/proxy.log"
}

out=$tmp/out
suite=pg-faults
. tests/lib/check.sh
export SLUICE_SHARE_RETRY_MS=20
# A watchdog: old code hung here for good; 40 s is far past any --timeout below.
bounded() { timeout -s KILL 40 "$@"; }
took_ok() {   # START_MS LIMIT_S WHAT
    took=$(( $(now_ms) - $1 ))
    echo "$3: $took ms (bound $2 s)" >> "$tmp/figures"
    [ "$took" -le $(( $2 * 1000 )) ] || { echo "$3 took $took ms, past its bound of $2 s"; return 1; }
}

# --- --timeout bounds connect, every statement and a silent link -----------------
# A server that accepts the connection and never answers: the connect phase
# obeys --timeout 3 (old code: libpq's fixed 10 s).
t_connect_mute() {
    proxy mute || return 1
    s=$(now_ms)
    bounded env HOME="$tmp/home" "$sluice" --root "$tmp/rootA" --db "$tmp/A.db" push --timeout 3 "$(purl m1)" \
        > "$tmp/o" 2>&1 && { cat "$tmp/o"; echo "expected a failure"; return 1; }
    took_ok "$s" 5 "push to a mute server, --timeout 3" || return 1
    grep -q 'cannot connect to postgresql://127.0.0.1:[0-9]*/m1?sslmode=disable: no answer within --timeout (3 s)' "$tmp/o" ||
        { cat "$tmp/o"; return 1; }
}
check connect-obeys-timeout t_connect_mute

# A push whose link goes silent half-way through its bytes (the batch of
# runs): it ends within --timeout 4 plus a small margin, naming the server
# and what to do, the local database as it was and nothing of the batch on
# the server. Old code: still waiting when the watchdog killed it.
t_push_silent() {
    A probe null --time 20ms --ramp 0 --repeat 40 > /dev/null || return 1
    proxy pass || return 1
    A push "$(purl m1)" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q 'sent 40 runs' "$tmp/o" || { cat "$tmp/o"; return 1; }
    up=$(proxy_bytes up)
    [ "$up" -gt 20000 ] || { echo "a push of 40 runs sent only $up bytes"; return 1; }
    proxy up $((up / 2)) || return 1
    s=$(now_ms)
    expect_fail "$tmp/A.db" 'postgresql://127.0.0.1:[0-9]*/m2?sslmode=disable: sending runs: no answer within --timeout (4 s): the server or the network to it stopped answering' \
        bounded env HOME="$tmp/home" "$sluice" --root "$tmp/rootA" --db "$tmp/A.db" push --timeout 4 "$(purl m2)" || return 1
    took_ok "$s" 6 "push, --timeout 4, over a link gone silent after $((up / 2)) of $up bytes" || return 1
    grep -q 'check that it is up and reachable, or give a longer --timeout' "$tmp/f.out" || { cat "$tmp/f.out"; return 1; }
    [ "$(pg_sql_db m2 "SELECT count(*) FROM sluice_runs")" = 0 ] || { echo "part of the batch is on the server"; return 1; }
}
check push-silent-link-obeys-timeout t_push_silent

# The same for a pull: silent half-way through what the server sends.
t_pull_silent() {
    proxy pass || return 1
    B pull --class all "$(purl m1)" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    [ "$(count B)" = 40 ] || { cat "$tmp/o"; echo "B holds $(count B) runs"; return 1; }
    down=$(proxy_bytes down)
    proxy down $((down / 2)) || return 1
    s=$(now_ms)
    expect_fail "$tmp/C.db" 'postgresql://127.0.0.1:[0-9]*/m1?sslmode=disable: fetching runs: no answer within --timeout (4 s)' \
        bounded env HOME="$tmp/home" "$sluice" --root "$tmp/rootC" --db "$tmp/C.db" pull --class all --timeout 4 "$(purl m1)" ||
        return 1
    took_ok "$s" 6 "pull, --timeout 4, over a link gone silent after $((down / 2)) of $down bytes"
}
check pull-silent-link-obeys-timeout t_pull_silent
proxy_stop

# --- dates are checked on the way in -----------------------------------------------
# D's runs: one with an impossible start, one in the year 9999, two good.
# Push sends the good ones and names the others (exit status 1); the
# server's own check refuses them from anyone who skips push's.
t_dates_push() {
    D probe null --time 20ms --ramp 0 --repeat 4 > /dev/null || return 1
    sqlite3 "$tmp/D.db" "UPDATE runs SET started = '2020-13-45T25:61:61Z' WHERE id = 1;
        UPDATE runs SET started = '9999-01-01T00:00:00Z' WHERE id = 2" || return 1
    bad1=$(sqlite3 "$tmp/D.db" "SELECT uuid FROM runs WHERE id = 1")
    bad2=$(sqlite3 "$tmp/D.db" "SELECT uuid FROM runs WHERE id = 2")
    D push "$(url dates)" > "$tmp/o" 2>&1 && { cat "$tmp/o"; echo "expected exit status 1"; return 1; }
    grep -q "refused run $bad1: it starts at '2020-13-45T25:61:61Z', which is not a UTC time" "$tmp/o" &&
        grep -q "refused run $bad2: it starts at '9999-01-01T00:00:00Z', in the future" "$tmp/o" &&
        grep -q '2 runs not sent (see above); the others were' "$tmp/o" || { cat "$tmp/o"; return 1; }
    [ "$(pg_sql_db dates "SELECT count(*) FROM sluice_runs")" = 2 ] ||
        { echo "the server holds $(pg_sql_db dates "SELECT count(*) FROM sluice_runs") runs, not the 2 good ones"; return 1; }
    [ "$(pg_sql_db dates "SELECT count(*) FROM sluice_runs WHERE started IN ('2020-13-45T25:61:61Z', '9999-01-01T00:00:00Z')")" = 0 ] ||
        { echo "a bad date reached the server"; return 1; }
}
check push-refuses-bad-and-future-dates t_dates_push

# A run with an impossible date already on the server (from an older
# sluice: written with the server's checks off), one of D's and one of
# another host's: prune --older-than works, leaves D's bad run and says
# so; the other host's is not D's to touch. Old code: the whole prune
# failed on the date.
t_prune_bad_row() {
    d=$(uuid_of D)
    body=$(pg_sql_db dates "SELECT body::text FROM sluice_runs LIMIT 1")
    pg_sql_db dates "SET session_replication_role = replica;
        INSERT INTO sluice_runs (uuid, host_uuid, hw_class, started, body) VALUES
        ('00000000-0000-4000-8000-000000000001', '$d', 'x', '2020-13-45T25:61:61Z', '$body'),
        ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-0000000000ff', 'x', '2020-02-30T00:00:00Z', '$body')" ||
        return 1
    D prune --older-than 30 "$(url dates)" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q "left run 00000000-0000-4000-8000-000000000001: it starts at '2020-13-45T25:61:61Z', which is not a UTC time" "$tmp/o" &&
        grep -q 'pruned 0 runs' "$tmp/o" || { cat "$tmp/o"; return 1; }
    [ "$(pg_sql_db dates "SELECT count(*) FROM sluice_runs")" = 4 ] || { echo "runs went"; return 1; }
}
check prune-skips-a-bad-date-on-the-server t_prune_bad_row

# --- one host cannot write or prune another's runs ------------------------------------
# G pushes 3 runs. I pulls them, then forges 3 runs under G's host UUID
# dated 9999 and 3 dated now, and pushes with --all: none reaches the
# server; G's prune --keep-runs 3 then keeps G's own 3, and I's prune
# cannot touch G's runs. A copy of G's database on a machine with another
# machine-id cannot push as G; raw SQL without G's key is refused by the
# server.
# Old code: the forged runs were stored, and G's prune removed G's own.
t_identity() {
    G probe null --time 20ms --ramp 0 --repeat 3 > /dev/null || return 1
    a=$(uuid_of G)
    G push "$(url ident)" > /dev/null 2>&1 || return 1
    genuine=$(pg_sql_db ident "SELECT string_agg(uuid, ',' ORDER BY uuid) FROM sluice_runs")
    I pull --class all "$(url ident)" > /dev/null 2>&1 || return 1
    sqlite3 "$tmp/I.db" "CREATE TEMP TABLE t AS SELECT * FROM runs WHERE host_uuid = '$a' ORDER BY id LIMIT 3;
        INSERT INTO t SELECT * FROM t;
        UPDATE t SET id = NULL, uuid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||
            substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
            started = CASE WHEN rowid % 2 THEN '9999-01-01T00:00:00Z' ELSE strftime('%Y-%m-%dT%H:%M:%SZ', 'now') END;
        INSERT INTO runs SELECT * FROM t" || return 1
    I push --all "$(url ident)" > "$tmp/o" 2>&1
    [ "$(pg_sql_db ident "SELECT string_agg(uuid, ',' ORDER BY uuid) FROM sluice_runs")" = "$genuine" ] ||
        { cat "$tmp/o"; echo "forged runs reached the server"; return 1; }
    grep -q "left out 9 runs of 1 other host: a central store takes a host's runs from that host only" "$tmp/o" ||
        { cat "$tmp/o"; return 1; }
    G prune --keep-runs 3 "$(url ident)" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    [ "$(pg_sql_db ident "SELECT string_agg(uuid, ',' ORDER BY uuid) FROM sluice_runs")" = "$genuine" ] ||
        { cat "$tmp/o"; echo "G's own runs were pruned"; return 1; }
    I prune --keep-runs 1 "$(url ident)" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    [ "$(pg_sql_db ident "SELECT string_agg(uuid, ',' ORDER BY uuid) FROM sluice_runs")" = "$genuine" ] ||
        { cat "$tmp/o"; echo "I pruned G's runs"; return 1; }
    # G's database copied to another machine that takes G's identity (its
    # own machine-id as G's key): the server refuses it, naming the host.
    cp "$tmp/G.db" "$tmp/J.db" && cp -a "$tmp/rootG" "$tmp/rootJ" && echo 0123456789abcdef0123456789abcdef > "$tmp/rootJ/etc/machine-id" &&
        sqlite3 "$tmp/J.db" "UPDATE hosts SET machine_key = '0123456789abcdef0123456789abcdef' WHERE uuid = '$a'" || return 1
    expect_fail "$tmp/J.db" "host $a belongs to another machine there" \
        env HOME="$tmp/home" "$sluice" --root "$tmp/rootJ" --db "$tmp/J.db" push "$(url ident)" || return 1
    [ "$(pg_sql_db ident "SELECT string_agg(uuid, ',' ORDER BY uuid) FROM sluice_runs")" = "$genuine" ] || return 1
    body=$(pg_sql_db ident "SELECT body::text FROM sluice_runs LIMIT 1")
    pg_sql_db ident "INSERT INTO sluice_runs (uuid, host_uuid, hw_class, started, body) VALUES
        ('00000000-0000-4000-8000-000000000003', '$a', 'x', '2024-01-01T00:00:00Z', '$body')" > "$tmp/o" 2>&1 &&
        { echo "a raw INSERT under G's UUID was taken"; return 1; }
    grep -q "host $a belongs to another machine" "$tmp/o" || { cat "$tmp/o"; return 1; }
    pg_sql_db ident "DELETE FROM sluice_runs" > "$tmp/o" 2>&1 && { echo "a raw DELETE of G's runs was taken"; return 1; }
    grep -q "host $a belongs to another machine" "$tmp/o" || { cat "$tmp/o"; return 1; }
    pg_sql_db ident "UPDATE sluice_parents SET body = jsonb_set(body, '{hostname}', '\"evil\"')
        WHERE tbl = 'hosts' AND ident = '$a'" > "$tmp/o" 2>&1 && { echo "a raw UPDATE of G's host row was taken"; return 1; }
    grep -q "host $a belongs to another machine" "$tmp/o" || { cat "$tmp/o"; return 1; }
    pg_sql_db ident "DELETE FROM sluice_hosts WHERE host_uuid = '$a'" > "$tmp/o" 2>&1 && { echo "a raw DELETE of G's key was taken"; return 1; }
    grep -q "host $a belongs to another machine" "$tmp/o" || { cat "$tmp/o"; return 1; }
    # the server's date check: a host of its own, its key set, a bad date
    pg_sql_db ident "BEGIN; SELECT set_config('sluice.host_key', 'k', true);
        INSERT INTO sluice_hosts (host_uuid, key_sha256) VALUES ('00000000-0000-4000-8000-0000000000ee', encode(sha256('k'), 'hex'));
        INSERT INTO sluice_runs (uuid, host_uuid, hw_class, started, body) VALUES
        ('00000000-0000-4000-8000-000000000004', '00000000-0000-4000-8000-0000000000ee', 'x', '2020-13-45T25:61:61Z', '$body');
        COMMIT" > "$tmp/o" 2>&1 && { echo "the server took a bad date"; return 1; }
    grep -q "run 00000000-0000-4000-8000-000000000004 starts at '2020-13-45T25:61:61Z'" "$tmp/o" || { cat "$tmp/o"; return 1; }
}
check identity-bound-on-the-server t_identity

# --- text that is not UTF-8 ---------------------------------------------------------------
# U's hostname holds byte 0xff: U's runs reach the server with the
# hostname escaped (bad\xffhost), and V's pull takes them. Old code: the
# hostname went as nothing, and V's pull failed on NOT NULL.
t_utf8() {
    printf 'bad\377host\n' > "$tmp/rootU/proc/sys/kernel/hostname"
    U probe null --time 20ms --ramp 0 > /dev/null || return 1
    U push "$(url utf8)" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    V pull --class all "$(url utf8)" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    [ "$(count V)" = 1 ] || { cat "$tmp/o"; echo "V holds $(count V) runs"; return 1; }
    got=$(sqlite3 "$tmp/V.db" "SELECT hostname FROM hosts WHERE uuid = (SELECT host_uuid FROM runs)")
    [ "$got" = 'bad\xffhost' ] || { echo "the hostname arrived as '$got'"; return 1; }
}
check non-utf8-hostname-escaped t_utf8
# SLUICE_PG_FIGURES=1: how long the bounded commands took.
[ -z "$SLUICE_PG_FIGURES" ] || sed 's/^/# /' "$tmp/figures"
exit 0
