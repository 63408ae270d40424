# tests/pg/server.sh — sourced: start a throwaway PostgreSQL 15 server in a
# temporary directory (initdb as an unprivileged user when run as root),
# listening on 127.0.0.1:$pg_port and a unix socket in $pg_dir, with a
# superuser "sluice" (trust over the socket) and a role "fleet" with a
# password (scram-sha-256 over TCP). pg_stop stops it (call it from a trap);
# the caller removes $pg_dir.
#   pg_start DIR   sets pg_dir, pg_port, pg_bin; 0, or 1 with why on stdout
#   pg_sql SQL     runs SQL as sluice on the database "fleet" (over the socket)
#   pg_stop
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pg_as() {   # run a command as the server's owner
    if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}
pg_start() {
    pg_dir=$1
    [ -x "$pg_bin/initdb" ] || { echo "PostgreSQL server binaries are not installed (make test-deps)"; return 1; }
    mkdir -p "$pg_dir/data" "$pg_dir/sock" "$pg_dir/log"
    # As root the server runs as nobody, who must reach DIR (its parent,
    # mktemp's 0700 directory, gets o+x: no listing).
    [ "$(id -u)" = 0 ] && chown nobody "$pg_dir/data" "$pg_dir/sock" "$pg_dir/log" && chmod 755 "$pg_dir" &&
        chmod o+x "$(dirname "$pg_dir")"
    pg_as "$pg_bin/initdb" -D "$pg_dir/data" -U sluice --auth-local=trust --auth-host=scram-sha-256 \
        --locale=C.UTF-8 -E UTF8 > "$pg_dir/log/initdb.log" 2>&1 || { tail -5 "$pg_dir/log/initdb.log"; return 1; }
    pg_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    pg_as "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log/server.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories=$pg_dir/sock -c fsync=off" \
        start > /dev/null 2>&1 || { tail -5 "$pg_dir/log/server.log"; return 1; }
    pg_sql_db postgres "CREATE DATABASE fleet" > /dev/null || return 1
    pg_sql_db postgres "CREATE ROLE fleet LOGIN PASSWORD 'pg-s3cret'" > /dev/null || return 1
    pg_sql "GRANT ALL ON SCHEMA public TO fleet" > /dev/null
}
pg_sql_db() { "$pg_bin/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$pg_dir/sock" -p "$pg_port" -U sluice -d "$1" -c "$2"; }
pg_sql() { pg_sql_db fleet "$1"; }
pg_stop() {
    [ -n "$pg_dir" ] && [ -f "$pg_dir/data/postmaster.pid" ] &&
        pg_as "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate -w stop > /dev/null 2>&1
    return 0
}

# pg_start_suite SUITE DIR: pg_start, or for the whole suite SUITE a line
# "skip SUITE: why" (PostgreSQL not installed) or "FAIL SUITE/start" with
# the end of what it said; non-zero then, and the suite ends there.
pg_start_suite() {
    pg_start "$2" > "$2.start.out" 2>&1 && return 0
    case $(cat "$2.start.out") in
    *"not installed"*) echo "skip $1: $(cat "$2.start.out")" ;;
    *) echo "FAIL $1/start"; sed 's/^/  /' "$2.start.out" | tail -5 ;;
    esac
    return 1
}
