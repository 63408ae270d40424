#!/bin/sh
# PostgreSQL as the central store (push/pull postgresql://): a real
# PostgreSQL 15 started here in a temporary directory (tests/pg/server.sh),
# on 127.0.0.1 and a unix socket, stopped and removed at the end. Hosts are
# fixture copies with their own machine-ids. After every failure the local
# database must be byte-for-byte what it was, and the server must hold whole
# batches only.
cd "$(dirname "$0")/../.." || exit 2
top=$(pwd)
sluice=$top/sluice
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-pg.XXXXXX)
. tests/pg/server.sh
cleanup() {
    pg_stop
    [ -n "$SLUICE_PG_KEEP" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

pg_start_suite pg "$tmp/pg" || exit 0

# Over the socket as the superuser; over TCP as fleet with a password.
url="postgresql:///fleet?host=$tmp/pg/sock&port=$pg_port&user=sluice"
tcp="postgresql://fleet@127.0.0.1:$pg_port/fleet?sslmode=disable"

host() {   # NAME: a fixture copy with its own machine-id, and a function NAME running sluice on it
    cp -a tests/fixtures/modern "$tmp/root$1"
    printf '%s' "$1" | sha256sum | cut -c1-32 > "$tmp/root$1/etc/machine-id"
    echo "fixture-$1" > "$tmp/root$1/proc/sys/kernel/hostname"
    eval "$1() { HOME=\$tmp/home \"\$sluice\" --root \"\$tmp/root$1\" --db \"\$tmp/$1.db\" \"\$@\"; }"
}
mkdir -p "$tmp/home"
for h in A B C D E F G H P; do host $h; done
runs() { A probe null --time 20ms --ramp 0 --repeat "$1" > /dev/null; }
count() { sqlite3 "$tmp/$1.db" "SELECT count(*) FROM runs"; }
server_runs() { pg_sql "SELECT count(*) FROM sluice_runs"; }
# What a run is, local ids aside: the same on every machine.
runs_text() { sqlite3 "$tmp/$1.db" "SELECT r.uuid, r.batch_uuid, r.host_uuid, r.device_uuid, r.hw_class, r.workload_hash,
    r.config_hash, r.started, r.status, r.mb_s, r.iops, r.lat_p99_ns, r.metrics_json, hex(r.hist), r.series_json,
    h.uuid, h.hostname, d.uuid, d.name FROM runs r LEFT JOIN hosts h ON h.id = r.host_id
    LEFT JOIN devices d ON d.id = r.device_id WHERE r.host_uuid = (SELECT uuid FROM hosts WHERE hostname = '$2') ORDER BY r.uuid"; }

out=$tmp/out
suite=pg
. tests/lib/check.sh
export SLUICE_SHARE_RETRY_MS=20
B create-db; D create-db; E create-db   # their databases exist

# --- push twice: the second sends nothing ----------------------------------------
t_push_twice() {
    runs 3
    A push "$url" > "$tmp/p1" 2>&1 || { cat "$tmp/p1"; return 1; }
    grep -q 'sent 3 runs in 1 batch, 3 new' "$tmp/p1" || { cat "$tmp/p1"; return 1; }
    A push "$url" > "$tmp/p2" 2>&1 || { cat "$tmp/p2"; return 1; }
    grep -q 'nothing to send: the server holds every run (3 of 1 host)' "$tmp/p2" || { cat "$tmp/p2"; return 1; }
    [ "$(server_runs)" = 3 ] || { echo "server holds $(server_runs) runs"; return 1; }
    [ "$(pg_sql "SELECT version FROM sluice_schema")" = 3 ] || { echo "no schema version 3"; return 1; }
}
check push-twice-sends-nothing-the-second-time t_push_twice

# --- pull into a fresh database, then incrementally ---------------------------------
t_pull_fresh() {
    B pull "$url" > "$tmp/p1" 2>&1 || { cat "$tmp/p1"; return 1; }
    grep -q 'merged .* runs 1\.\.3: +1 hosts .*+3 runs' "$tmp/p1" || { cat "$tmp/p1"; return 1; }
    runs_text A fixture-A > "$tmp/a.txt"; runs_text B fixture-A > "$tmp/b.txt"
    [ -s "$tmp/a.txt" ] && cmp -s "$tmp/a.txt" "$tmp/b.txt" || { diff "$tmp/a.txt" "$tmp/b.txt" | head -5; echo "runs differ"; return 1; }
    B pull "$url" > "$tmp/p2" 2>&1 || { cat "$tmp/p2"; return 1; }
    grep -q 'nothing new for this host' "$tmp/p2" && ! grep -q '^merged' "$tmp/p2" || { cat "$tmp/p2"; return 1; }
}
check pull-into-a-fresh-db t_pull_fresh

# A run on a disk carries its device (and the device its host) to the server
# and back; a run whose start time is older than everything pulled before (a
# clock that went backwards) is pulled all the same: the server numbers runs
# (in sda's class, which B never pulled: pull-clock-backwards-same-class
# shows it in a class B pulled before).
t_incremental() {
    runs 1
    sqlite3 "$tmp/A.db" "UPDATE runs SET started = '2001-01-01T00:00:00Z',
        device_id = (SELECT id FROM devices WHERE name = 'sda'), device_uuid = (SELECT uuid FROM devices WHERE name = 'sda'),
        hw_class = (SELECT hw_class FROM devices WHERE name = 'sda')
        WHERE id = (SELECT max(id) FROM runs)" || return 1
    runs 1
    A push "$url" > "$tmp/p1" 2>&1 || { cat "$tmp/p1"; return 1; }
    grep -q 'sent 2 runs in 1 batch, 2 new' "$tmp/p1" || { cat "$tmp/p1"; return 1; }
    B pull "$url" > "$tmp/p2" 2>&1 || { cat "$tmp/p2"; return 1; }
    # one batch per class: the run on sda is in sda's class (its number, 4
    # or 5, depends on the order of the UUIDs)
    grep -q 'runs 4\.\.[45]: +1 runs' "$tmp/p2" &&
        grep -q "$(sqlite3 "$tmp/A.db" "SELECT hw_class FROM devices WHERE name = 'sda'") runs 1\.\.[45]: +1 devices +1 runs" "$tmp/p2" ||
        { cat "$tmp/p2"; return 1; }
    [ "$(count B)" = 5 ] || { echo "B holds $(count B) runs"; return 1; }
    runs_text A fixture-A > "$tmp/a.txt"; runs_text B fixture-A > "$tmp/b.txt"
    cmp -s "$tmp/a.txt" "$tmp/b.txt" || { diff "$tmp/a.txt" "$tmp/b.txt" | head -5; echo "runs differ"; return 1; }
    grep -q '2001-01-01.*|sda$' "$tmp/b.txt" || { echo "the old run on sda is not in B"; return 1; }
}
check pull-incremental-clock-backwards-device t_incremental

# A run on no disk (probe null) is filed on the server under its host's
# class (host:CPUS-MEM-MODEL, as evidence scopes it), not the pushing
# host's main disk's, and the run itself keeps its empty hw_class; a pull
# asks for this host's class too. Old code: the disk's class.
t_no_disk_class() {
    want=$(A --json history --limit 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["hw_class"])')
    case $want in host:*) ;; *) echo "history's class for a null run is $want"; return 1 ;; esac
    got=$(pg_sql "SELECT DISTINCT hw_class FROM sluice_runs WHERE body->>'hw_class' = ''")
    [ "$got" = "$want" ] || { echo "server files null runs under '$got', not '$want'"; return 1; }
    [ "$(pg_sql "SELECT count(*) FROM sluice_runs WHERE body ? '_class'")" = 0 ] || { echo "_class stored"; return 1; }
    [ "$(sqlite3 "$tmp/B.db" "SELECT count(*) FROM runs WHERE hw_class = ''")" = 4 ] ||
        { echo "B's null runs: $(sqlite3 "$tmp/B.db" "SELECT count(*), hw_class FROM runs GROUP BY 2")"; return 1; }
}
check no-disk-runs-filed-under-the-host-class t_no_disk_class

# --- recommend and compare --server: answered from the server's runs -----------------
# F measures dirty_ratio 20 and 40 three times each and pushes; G, with the
# same hardware and nothing stored, gets from the server the verdict F gets
# from its own database, and its database does not change.
t_server_answers() {
    pg_sql_db postgres "CREATE DATABASE views" > /dev/null || return 1
    url=$(echo "$url" | sed 's#/fleet?#/views?#')
    G create-db
    F probe null --repeat 3 --seed 1 > /dev/null && F set vm.dirty_ratio=40 > /dev/null &&
        F probe null --repeat 3 --seed 2 > /dev/null && F push "$url" > /dev/null || return 1
    F compare vm.dirty_ratio=20 vm.dirty_ratio=40 > "$tmp/local" 2>&1 || { cat "$tmp/local"; return 1; }
    mark "$tmp/G.db"
    G compare --server "$url" vm.dirty_ratio=20 vm.dirty_ratio=40 > "$tmp/server" 2>&1 || { cat "$tmp/server"; return 1; }
    same "$tmp/G.db" || return 1
    head -1 "$tmp/server" | grep -q '^evidence from postgresql:///views?.*: 6 runs of this host.s hardware classes$' ||
        { cat "$tmp/server"; return 1; }
    sed 1d "$tmp/server" | diff "$tmp/local" - || return 1
    [ "$(count G)" = 0 ] || { echo "G has runs of its own"; return 1; }
    F recommend --workload null > "$tmp/local" 2>&1 || { cat "$tmp/local"; return 1; }
    G recommend --workload null --server "$url" > "$tmp/server" 2>&1 || { cat "$tmp/server"; return 1; }
    same "$tmp/G.db" || return 1
    grep '^recommended:' "$tmp/local" > "$tmp/l1"; grep '^recommended:' "$tmp/server" > "$tmp/s1"
    [ -s "$tmp/l1" ] && cmp -s "$tmp/l1" "$tmp/s1" || { cat "$tmp/local" "$tmp/server"; return 1; }
    expect_fail "$tmp/G.db" 'give a central store' G recommend --server "file://$tmp/nothing"
}
(check recommend-compare-from-server t_server_answers)   # in a subshell: url stays

# --- a config row whose text is not what its hash names -------------------------------
# Anyone who can push can write a parent row first, and the server keeps the
# first: a configs row under the hash R's runs at dirty_ratio=30 will have
# (predictable: a copy of R's fixture gives it), with other knobs as its
# text. R's runs then point at it; S (the same hardware) pulled them with
# those knobs, and recommend --server told S to apply them. Both refuse,
# naming the row, S's database as it was; once the row is correct again,
# both take it.
t_forged_parent() {
    pg_sql_db postgres "CREATE DATABASE forged" > /dev/null || return 1
    url=$(echo "$url" | sed 's#/fleet?#/forged?#')
    host R; host S
    S create-db
    R probe null --repeat 3 --seed 1 > /dev/null && R set vm.dirty_ratio=30 > /dev/null &&
        R probe null --repeat 3 --seed 2 > /dev/null || return 1
    h=$(sqlite3 "$tmp/R.db" "SELECT config_hash FROM runs ORDER BY id DESC LIMIT 1")
    # The forger's row, written here over R's after R's push: the server
    # keeps a row written before R's push just the same.
    R push "$url" > /dev/null 2>&1 || return 1
    pg_sql_db forged "UPDATE sluice_parents SET body = jsonb_set(body, '{text}', to_jsonb(E'vm.min_free_kbytes=4194304\\nvm.swappiness=200\\n'::text)) WHERE ident = '$h'" > /dev/null || return 1
    expect_fail "$tmp/S.db" "the configs row with hash '$h' holds a text whose SHA-256 is" S pull "$url" || return 1
    grep -q 'nothing merged' "$tmp/f.out" || { cat "$tmp/f.out"; return 1; }
    expect_fail "$tmp/S.db" "the configs row with hash '$h'" S recommend --workload null --server "$url" || return 1
    grep -q 'nothing from the server was used' "$tmp/f.out" || { cat "$tmp/f.out"; return 1; }
    text=$(sqlite3 "$tmp/R.db" "SELECT text FROM configs WHERE hash = '$h'")
    pg_sql_db forged "UPDATE sluice_parents SET body = jsonb_set(body, '{text}', to_jsonb(\$t\$$text\$t\$ || E'\\n')) WHERE ident = '$h'" > /dev/null || return 1
    S recommend --workload null --server "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q '^recommended: vm.dirty_ratio=30$' "$tmp/o" || { cat "$tmp/o"; return 1; }
    S pull "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    [ "$(sqlite3 "$tmp/S.db" "SELECT count(*) FROM configs WHERE text LIKE '%swappiness=200%'")" = 0 ] &&
        [ "$(count S)" = 6 ] || { cat "$tmp/o"; echo "S holds $(count S) runs"; return 1; }
}
(check forged-config-refused-by-pull-and-server-answers t_forged_parent)

# --- prune: retention by age and by count per host; identity clash ----------------
# H has 5 runs, 2 of them measured in 2020. --older-than 30 removes those 2
# (--dry-run only counts), --keep-runs 1 all but H's newest; H pushing
# again sends nothing (the server remembers what it pruned), and a fresh
# pull gets what is left; on file:// the same options take the same runs.
# Then a clone of H (its disk and database copied:
# the same host UUID) pushes a run of its own, and H's next push says
# identity clash, naming the host, with both machines' runs kept.
t_prune() {
    pg_sql_db postgres "CREATE DATABASE prune" > /dev/null || return 1
    url=$(echo "$url" | sed 's#/fleet?#/prune?#')
    H probe null --time 20ms --ramp 0 --repeat 5 > /dev/null || return 1
    sqlite3 "$tmp/H.db" "UPDATE runs SET started = '2020-01-0' || id || 'T00:00:00Z' WHERE id <= 2" || return 1
    H push "$url" > /dev/null || return 1
    H prune --older-than 30 --dry-run "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q 'would prune 2 runs' "$tmp/o" || { cat "$tmp/o"; return 1; }
    [ "$(pg_sql_db prune "SELECT count(*) FROM sluice_runs")" = 5 ] || { echo "--dry-run removed runs"; return 1; }
    H prune --older-than 30 "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q 'pruned 2 runs' "$tmp/o" || { cat "$tmp/o"; return 1; }
    [ "$(pg_sql_db prune "SELECT count(*) FROM sluice_runs WHERE started < '2021'")" = 0 ] || { echo "old runs left"; return 1; }
    H prune --keep-runs 1 "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q 'pruned 2 runs' "$tmp/o" || { cat "$tmp/o"; return 1; }
    H push "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q 'nothing to send' "$tmp/o" || { cat "$tmp/o"; echo "pruned runs sent again"; return 1; }
    [ "$(pg_sql_db prune "SELECT count(*) FROM sluice_runs")" = 1 ] || { echo "the server holds $(pg_sql_db prune "SELECT count(*) FROM sluice_runs")"; return 1; }
    P pull --class all "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    [ "$(count P)" = 1 ] || { cat "$tmp/o"; echo "P holds $(count P) runs"; return 1; }
    expect_fail "$tmp/H.db" 'give --older-than DAYS, --keep-runs N or both' H prune "$url" || return 1
    # The same options on an object store take the same runs (#16): H's
    # object loses the 2 old runs and all but the newest of the rest, and
    # H's next push leaves them out.
    H push "file://$tmp/share" > /dev/null || return 1
    H prune --older-than 30 --keep-runs 1 "file://$tmp/share" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q 'pruned 4 runs: 1 object rewritten' "$tmp/o" || { cat "$tmp/o"; return 1; }
    # the same runs, by UUID: what H's object keeps is what the server kept
    obj=$(find "$tmp/share" -name '*.sluicedb.zst' | head -1)
    zstd -q -d -c "$obj" > "$tmp/pruned-object.db" || return 1
    kept_file=$(sqlite3 "$tmp/pruned-object.db" "SELECT group_concat(uuid) FROM (SELECT uuid FROM runs ORDER BY uuid)")
    kept_server=$(pg_sql_db prune "SELECT string_agg(uuid, ',' ORDER BY uuid) FROM sluice_runs")
    [ -n "$kept_server" ] && [ "$kept_file" = "$kept_server" ] ||
        { echo "file:// kept runs $kept_file, the server $kept_server"; return 1; }
    H push "file://$tmp/share" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q '4 runs left out: pruned from the server' "$tmp/o" || { cat "$tmp/o"; echo "pruned runs sent again"; return 1; }
    # the clone
    cp -a "$tmp/rootH" "$tmp/rootH2" && cp "$tmp/H.db" "$tmp/H2.db" || return 1
    HOME=$tmp/home "$sluice" --root "$tmp/rootH2" --db "$tmp/H2.db" probe null --time 20ms --ramp 0 > /dev/null &&
        HOME=$tmp/home "$sluice" --root "$tmp/rootH2" --db "$tmp/H2.db" push "$url" > /dev/null || return 1
    H probe null --time 20ms --ramp 0 > /dev/null || return 1
    H push "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    h_uuid=$(sqlite3 "$tmp/H.db" "SELECT DISTINCT host_uuid FROM runs")
    grep -q "warning: identity clash: the server holds 1 run under host $h_uuid that this database does not" "$tmp/o" &&
        grep -q 'sent 1 run' "$tmp/o" || { cat "$tmp/o"; return 1; }
    [ "$(pg_sql_db prune "SELECT count(*) FROM sluice_runs WHERE host_uuid = '$h_uuid'")" = 3 ] || { echo "runs lost"; return 1; }
}
(check prune-by-age-and-count-identity-clash t_prune)   # in a subshell: url stays

# --- schema versions ---------------------------------------------------------------
t_newer() {
    pg_sql "UPDATE sluice_schema SET version = 99" || return 1
    expect_fail "$tmp/B.db" 'has sluice schema version 99, newer than this sluice.s (3)' B pull "$url" || return 1
    expect_fail "$tmp/A.db" 'has sluice schema version 99, newer than this sluice.s (3)' A push "$url" || return 1
    pg_sql "UPDATE sluice_schema SET version = 1"
}
check schema-newer-refused t_newer
# A server as sluice schema 1 left it (no sluice_pruned): refused, then
# upgraded by push --migrate.
t_older() {
    pg_sql "DROP TABLE sluice_pruned; UPDATE sluice_schema SET version = 1" || return 1
    expect_fail "$tmp/B.db" 'has sluice schema version 1, older than this sluice.s (3): .sluice push --migrate' B pull "$url" ||
        return 1
    expect_fail "$tmp/A.db" 'has sluice schema version 1, older than this sluice.s (3)' A push "$url" || return 1
    A push --migrate "$url" > "$tmp/m" 2>&1 || { cat "$tmp/m"; return 1; }
    [ "$(pg_sql "SELECT version FROM sluice_schema")" = 3 ] || { echo "not migrated"; return 1; }
    [ "$(pg_sql "SELECT count(*) FROM sluice_pruned")" = 0 ] || { echo "no sluice_pruned"; return 1; }
    B pull "$url" > "$tmp/m" 2>&1 || { cat "$tmp/m"; echo "pull after the migration"; return 1; }
}
check schema-older-refused-then-migrated t_older

# --- the server down, authentication, TLS ---------------------------------------------
t_down() {
    dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    expect_fail "$tmp/B.db" 'cannot connect to postgresql://127.0.0.1:'"$dead"'/fleet' B pull "postgresql://127.0.0.1:$dead/fleet?sslmode=disable" || return 1
    expect_fail "$tmp/A.db" 'cannot connect to' A push "postgresql://127.0.0.1:$dead/fleet?sslmode=disable"
}
check server-down t_down
t_auth() {
    pg_sql "GRANT ALL ON ALL TABLES IN SCHEMA public TO fleet; GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO fleet" || return 1
    printf '127.0.0.1:%s:fleet:fleet:not-the-password\n' "$pg_port" > "$tmp/pgpass"
    chmod 600 "$tmp/pgpass"
    PGPASSFILE=$tmp/pgpass expect_fail "$tmp/B.db" 'password authentication failed for user "fleet"' B pull "$tcp" || return 1
    expect_fail "$tmp/B.db" 'no password supplied' B pull "$tcp" || return 1
    # The password in the URL is never shown.
    bad="postgresql://fleet:wrong-s3cret@127.0.0.1:$pg_port/fleet?sslmode=disable"
    expect_fail "$tmp/B.db" 'password authentication failed' B pull "$bad" || return 1
    ! grep -q 'wrong-s3cret' "$tmp/f.out" || { cat "$tmp/f.out"; echo "password shown"; return 1; }
    printf '127.0.0.1:%s:fleet:fleet:pg-s3cret\n' "$pg_port" > "$tmp/pgpass"
    PGPASSFILE=$tmp/pgpass C push "$tcp" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q 'nothing to send' "$tmp/o" || { cat "$tmp/o"; return 1; }
    runs_c=$(C probe null --time 20ms --ramp 0 > /dev/null && PGPASSFILE=$tmp/pgpass C push "$tcp" 2>&1)
    echo "$runs_c" | grep -q 'sent 1 run in 1 batch' || { echo "$runs_c"; return 1; }
    if grep -l 'pg-s3cret' "$tmp"/*.db "$tmp/o" 2>/dev/null; then echo "password stored or shown"; return 1; fi
}
check auth-refused-then-pgpassfile t_auth
# Without sslmode in the URL or PGSSLMODE, the server's certificate is
# verified: a server without TLS is refused, not talked to in the clear.
t_tls() {
    expect_fail "$tmp/B.db" 'SSL' env -u PGSSLMODE HOME="$tmp/home" "$sluice" --root "$tmp/rootB" --db "$tmp/B.db" pull \
        "postgresql://fleet:pg-s3cret@127.0.0.1:$pg_port/fleet"
}
check tls-verified-by-default t_tls

# TLS that works, and certificate authentication, through libpq's own
# options in the URL (#16 item 2): the server gets a certificate for
# 127.0.0.1 signed by a CA made here, SSL on (a reload), and in its own
# database "certs" the role fleet logs in by client certificate (CN=fleet)
# only. A push with sslmode=verify-full, the CA and the client's
# certificate sends its run; another CA is refused as unverified, and
# without the client certificate the server refuses the login.
t_tls_cert() {
    c=$tmp/tls
    mkdir -p "$c"
    openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=sluice-test-ca -days 2 -keyout "$c/ca.key" -out "$c/ca.pem" \
        > /dev/null 2>&1 &&
        openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=other-ca -days 2 -keyout "$c/other.key" -out "$c/other.pem" \
            > /dev/null 2>&1 &&
        openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout "$c/server.key" -out "$c/server.csr" > /dev/null 2>&1 &&
        printf 'subjectAltName=IP:127.0.0.1\n' > "$c/san" &&
        openssl x509 -req -in "$c/server.csr" -CA "$c/ca.pem" -CAkey "$c/ca.key" -CAcreateserial -days 2 -extfile "$c/san" \
            -out "$c/server.pem" > /dev/null 2>&1 &&
        openssl req -newkey rsa:2048 -nodes -subj /CN=fleet -keyout "$c/client.key" -out "$c/client.csr" > /dev/null 2>&1 &&
        openssl x509 -req -in "$c/client.csr" -CA "$c/ca.pem" -CAkey "$c/ca.key" -CAcreateserial -days 2 \
            -out "$c/client.pem" > /dev/null 2>&1 || { echo "openssl could not make the certificates"; return 1; }
    chmod 600 "$c/client.key"
    d=$pg_dir/data
    # the server's files, owned by whoever runs it (nobody, as root)
    { echo 'hostssl certs fleet 127.0.0.1/32 cert'; cat "$d/pg_hba.conf"; } > "$c/pg_hba.conf" &&
        cp "$c/server.pem" "$c/server.key" "$c/ca.pem" "$c/pg_hba.conf" "$d/" && chmod 600 "$d/server.key" || return 1
    [ "$(id -u)" != 0 ] || chown nobody "$d/server.pem" "$d/server.key" "$d/ca.pem" "$d/pg_hba.conf" || return 1
    pg_sql_db postgres "CREATE DATABASE certs" > /dev/null &&
        pg_sql_db certs "GRANT ALL ON SCHEMA public TO fleet" > /dev/null &&
        pg_sql "ALTER SYSTEM SET ssl_cert_file = 'server.pem'" && pg_sql "ALTER SYSTEM SET ssl_key_file = 'server.key'" &&
        pg_sql "ALTER SYSTEM SET ssl_ca_file = 'ca.pem'" && pg_sql "ALTER SYSTEM SET ssl = on" &&
        pg_sql "SELECT pg_reload_conf()" > /dev/null || return 1
    sleep 1
    base="postgresql://fleet@127.0.0.1:$pg_port/certs?sslmode=verify-full"
    cert="&sslcert=$c/client.pem&sslkey=$c/client.key"
    C probe null --time 20ms --ramp 0 > /dev/null || return 1
    C push "$base&sslrootcert=$c/ca.pem$cert" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q 'sent .* new' "$tmp/o" || { cat "$tmp/o"; return 1; }
    [ "$(pg_sql_db certs "SELECT count(*) FROM sluice_runs")" -ge 1 ] || { echo "no run on the server"; return 1; }
    expect_fail "$tmp/C.db" 'certificate verify failed' C push "$base&sslrootcert=$c/other.pem$cert" || return 1
    expect_fail "$tmp/C.db" 'connection requires a valid client certificate' C push "$base&sslrootcert=$c/ca.pem"
}
check tls-verify-full-and-client-certificate t_tls_cert

# A server that does not answer in time (here: another session holds the
# push lock) cannot hold a push past --timeout.
t_timeout() {
    runs 1
    pg_sql "BEGIN; LOCK TABLE sluice_runs IN EXCLUSIVE MODE; SELECT pg_sleep(6); COMMIT" > /dev/null 2>&1 &
    holder=$!
    sleep 1
    s=$(date +%s)
    expect_fail "$tmp/A.db" 'canceling statement due to statement timeout' A push --timeout 2 "$url"; rc=$?
    took=$(( $(date +%s) - s ))
    wait $holder
    [ $rc = 0 ] || return 1
    [ $took -le 4 ] || { echo "the push took $took s with --timeout 2"; return 1; }
    A push "$url" > /dev/null
}
check push-timeout-behind-a-lock t_timeout

# --- a connection cut in the middle of a batch ------------------------------------------
# Push: batches of 2, the server ends the connection before the second
# batch's COMMIT: the first batch is on the server whole, the second not at
# all, the pushing database untouched; the next push sends the rest.
t_cut_push() {
    D probe null --time 20ms --ramp 0 --repeat 5 > /dev/null || return 1
    d_uuid=$(sqlite3 "$tmp/D.db" "SELECT DISTINCT host_uuid FROM runs")
    SLUICE_PG_BATCH=2 SLUICE_FAULT=pg_batch:2 expect_fail "$tmp/D.db" '1 batch of runs stored on the server before this failure.*no connection to the server' D push "$url" || return 1
    got=$(pg_sql "SELECT count(*) FROM sluice_runs WHERE host_uuid = '$d_uuid'")
    [ "$got" = 2 ] || { echo "the server holds $got of D's runs after the cut, not the first batch's 2"; return 1; }
    SLUICE_PG_BATCH=2 D push "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    grep -q 'sent 3 runs in 2 batches, 3 new' "$tmp/o" || { cat "$tmp/o"; return 1; }
    got=$(pg_sql "SELECT count(*) FROM sluice_runs WHERE host_uuid = '$d_uuid'")
    [ "$got" = 5 ] || { echo "the server holds $got of D's runs"; return 1; }
}
check midbatch-disconnect-push t_cut_push
# Pull: batches of 2, the connection ends before the second batch is
# fetched: the first batch is merged whole (its cursor recorded), nothing of
# the second; the next pull goes on from there, nothing twice.
t_cut_pull() {
    total=$(server_runs)
    SLUICE_PG_BATCH=2 SLUICE_FAULT=pg_batch:2 E pull --class all "$url" > "$tmp/f.out" 2>&1 && { cat "$tmp/f.out"; echo "expected a failure"; return 1; }
    grep -q '1 batch merged before this failure' "$tmp/f.out" || { cat "$tmp/f.out"; return 1; }
    [ "$(count E)" = 2 ] || { echo "E holds $(count E) runs after the cut, not the first batch's 2"; return 1; }
    [ "$(sqlite3 "$tmp/E.db" "SELECT count(*) FROM share_cursors")" = 1 ] || { echo "no cursor"; return 1; }
    SLUICE_PG_BATCH=2 E pull --class all "$url" > "$tmp/o" 2>&1 || { cat "$tmp/o"; return 1; }
    [ "$(count E)" = "$total" ] || { cat "$tmp/o"; echo "E holds $(count E) runs, the server $total"; return 1; }
    grep -q "runs 3\.\." "$tmp/o" || { cat "$tmp/o"; echo "the pull did not go on after the merged batch"; return 1; }
}
check midbatch-disconnect-pull t_cut_pull
# --keep-going (#16), as on the object stores: a run on the server that
# fails the checks (an impossible MB/s) stops a pull at its batch, the
# database as it was; with --keep-going that batch is merged run by run,
# the bad run named, and the batches after it merged too (exit status 1).
t_keep_going() {
    host K
    K create-db
    total=$(server_runs)
    bad=$(pg_sql "SELECT uuid FROM sluice_runs ORDER BY seq LIMIT 1 OFFSET 1")
    pg_sql "UPDATE sluice_runs SET body = jsonb_set(body, '{mb_s}', '-5') WHERE uuid = '$bad'" > /dev/null || return 1
    SLUICE_PG_BATCH=2 expect_fail "$tmp/K.db" 'mb_s' K pull --class all "$url" || return 1
    # named as the user knows it: the server's batch of runs, not a temporary file
    grep -q "postgresql://[^ ]* (all classes) runs [0-9]*\.\.[0-9]*" "$tmp/f.out" && ! grep -q 'batch-[0-9]*\.sluicedb' "$tmp/f.out" ||
        { cat "$tmp/f.out"; echo "the refused batch is not named by the server and its runs"; return 1; }
    SLUICE_PG_BATCH=2 K pull --class all --keep-going "$url" > "$tmp/o" 2>&1 && { cat "$tmp/o"; echo "expected exit 1"; return 1; }
    grep -q "refused .* run $bad: " "$tmp/o" && grep -q '1 run refused (see above); the others were merged' "$tmp/o" ||
        { cat "$tmp/o"; return 1; }
    [ "$(count K)" = $((total - 1)) ] || { cat "$tmp/o"; echo "K holds $(count K) runs, not $((total - 1))"; return 1; }
    pg_sql "UPDATE sluice_runs SET body = jsonb_set(body, '{mb_s}', '1') WHERE uuid = '$bad'" > /dev/null
}
check pull-keep-going-names-a-bad-run t_keep_going

# A clock that goes backwards between pulls (#16 bad input): a run whose
# start time is before every run B pulled, in a class B has pulled before
# (this host's: a run on no disk), is pulled all the same: the server
# numbers runs as it stores them, and a pull goes on from the number, not
# from a time. (pull-incremental-clock-backwards-device's old run is in a
# class B had never pulled, where a time cursor would find it too.)
t_clock_back() {
    runs 1
    sqlite3 "$tmp/A.db" "UPDATE runs SET started = '2000-01-01T00:00:00Z' WHERE id = (SELECT max(id) FROM runs)" || return 1
    A push "$url" > "$tmp/p1" 2>&1 || { cat "$tmp/p1"; return 1; }
    grep -q 'sent 1 run in 1 batch, 1 new' "$tmp/p1" || { cat "$tmp/p1"; return 1; }
    B pull "$url" > "$tmp/p2" 2>&1 || { cat "$tmp/p2"; return 1; }
    [ "$(sqlite3 "$tmp/B.db" "SELECT count(*) FROM runs WHERE started = '2000-01-01T00:00:00Z' AND hw_class = ''")" = 1 ] ||
        { cat "$tmp/p2"; echo "the run timed before every pulled one was skipped"; return 1; }
}
check pull-clock-backwards-same-class t_clock_back
exit 0
