#!/bin/sh
# The audit trail: every knob sluice writes reaches
# syslog(3) with facility authpriv, and 'sessions --log' lists the same
# writes from the store. This machine runs no syslog daemon: the test starts
# rsyslogd on a private socket and config, points /dev/log at that socket
# inside a private mount namespace (the host's /dev is untouched), runs
# sluice against a fixture root with SLUICE_AUDIT=all (fixture writes are
# not logged otherwise), reads what arrived, and stops rsyslogd.
cd "$(dirname "$0")/../.." || exit 2
sluice=$(realpath ./sluice)
command -v rsyslogd > /dev/null || { echo "skip audit/syslog: no rsyslogd (apt-get install rsyslog)"; exit 0; }
command -v unshare > /dev/null || { echo "skip audit/syslog: no unshare"; exit 0; }
tmp=$(mktemp -d /tmp/sluice-audit.XXXXXX)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
    [ -n "$SLUICE_AUDIT_KEEP" ] && cp "$tmp/auth.log" "$SLUICE_AUDIT_KEEP"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE   # a reader that stops early (| head) must not leave rsyslogd running
cp -a tests/fixtures/modern "$tmp/root"
# the binary and the profiles are run from $tmp: a checkout under /dev (a
# clone in /dev/shm) is hidden once the private /dev is mounted over it
cp "$sluice" "$tmp/sluice" && cp -a profiles "$tmp/profiles" || exit 2
sluice=$tmp/sluice
export SLUICE_PROFILES="$tmp/profiles"
cat > "$tmp/rsyslog.conf" <<EOF
global(workDirectory="$tmp")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$tmp/log.sock" CreatePath="on" RateLimit.Interval="0")
authpriv.* action(type="omfile" file="$tmp/auth.log")
*.*;authpriv.none action(type="omfile" file="$tmp/other.log")
EOF
rsyslogd -n -f "$tmp/rsyslog.conf" -i "$tmp/rsyslogd.pid" > "$tmp/rsyslogd.out" 2>&1 &
pid=$!
i=0
while [ ! -S "$tmp/log.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -S "$tmp/log.sock" ]; then
    echo "FAIL audit/rsyslogd-starts"; sed 's/^/  /' "$tmp/rsyslogd.out" | head -5; exit 0
fi
# sluice ARGS with /dev/log leading to the private socket (a private /dev
# holding null, zero, urandom and log), so only this test's rsyslogd hears it.
run() {
    unshare -m sh -c '
        t=$1; shift
        mkdir -p "$t/dev"
        for f in null zero urandom random; do : > "$t/dev/$f"; mount --bind "/dev/$f" "$t/dev/$f"; done
        ln -sf "$t/log.sock" "$t/dev/log"
        mount --bind "$t/dev" /dev
        exec "$@"' sh "$tmp" env SLUICE_AUDIT="${AUDIT-all}" "$sluice" --root "$tmp/root" --db "$tmp/db" "$@"
}
# Wait until N lines have arrived (rsyslog writes asynchronously).
arrived() {
    i=0
    while [ "$(grep -c "$1" "$tmp/auth.log" 2> /dev/null || echo 0)" -lt "$2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    grep -c "$1" "$tmp/auth.log" 2> /dev/null || echo 0
}
check() {   # name, condition (shell), detail file
    if eval "$2"; then echo "ok audit/$1"; else echo "FAIL audit/$1"; [ -n "$3" ] && sed 's/^/  /' "$3" | head -10; fi
}

run set vm.dirty_ratio=15 > "$tmp/out" 2>&1
n=$(arrived 'write .*knob="vm.dirty_ratio" old="20" new="15" got="15"' 1)
check set-logged '[ "$n" = 1 ]' "$tmp/auth.log"
check names-session-user 'grep -q "sluice\[[0-9]*\]: write session=\"[0-9a-f-]\{36\}\" purpose=\"set\" user=\"root\" uid=\"0\"" "$tmp/auth.log"' "$tmp/auth.log"
check facility-authpriv '[ ! -s "$tmp/other.log" ] || ! grep -q "sluice" "$tmp/other.log"' "$tmp/other.log"

run apply latency > "$tmp/out" 2>&1
n=$(arrived 'purpose="apply"' 11)
check apply-logged '[ "$n" -ge 11 ]' "$tmp/auth.log"
run off > "$tmp/out" 2>&1
n=$(arrived 'put-back session=' 11)
check off-logged '[ "$n" -ge 11 ]' "$tmp/auth.log"
SUDO_USER=alice run restore > "$tmp/out" 2>&1
n=$(arrived 'sudo_user="alice"' 1)
check restore-logged-with-sudo-user '[ "$n" -ge 1 ]' "$tmp/auth.log"

# A change made through sudo: syslog names the sudo user, and so does the
# store's record of the session ('sessions --log' USER).
SUDO_USER=alice run set vm.dirty_writeback_centisecs=700 > "$tmp/out" 2>&1
n=$(arrived 'knob="vm.dirty_writeback_centisecs" old="500" new="700"' 1)
check sudo-set-logged '[ "$n" = 1 ] && grep "knob=\"vm.dirty_writeback_centisecs\"" "$tmp/auth.log" | grep -q "user=\"root\" uid=\"0\" sudo_user=\"alice\""' "$tmp/auth.log"

# sessions --log shows the same writes from the store: every (session, knob,
# old, new) the syslog got as a write is a row there.
"$sluice" --root "$tmp/root" --db "$tmp/db" sessions --log --json > "$tmp/log.json"
sed -n 's/.* write session="\([0-9a-f-]*\)" .* knob="\([^"]*\)" old="\([^"]*\)" new="\([^"]*\)" .*/\1 \2 \3 \4/p' "$tmp/auth.log" | sort > "$tmp/syslog.writes"
python3 -c 'import json,sys
for r in json.load(open(sys.argv[1])):
    if r["action"] == "write": print(r["session"], r["knob"], r["old"], r["new"])' "$tmp/log.json" | sort > "$tmp/store.writes"
check sessions-log-matches-syslog '[ -s "$tmp/syslog.writes" ] && diff "$tmp/syslog.writes" "$tmp/store.writes" > "$tmp/diff"' "$tmp/diff"
# ... and every knob a restore, off or rollback put back, knob by knob, as
# the syslog got each put-back (not one line per session).
sed -n 's/.* put-back session="\([0-9a-f-]*\)" .* knob="\([^"]*\)" old="\([^"]*\)" new="\([^"]*\)" .*/\1 \2 \3 \4/p' "$tmp/auth.log" | sort > "$tmp/syslog.putbacks"
python3 -c 'import json,sys
for r in json.load(open(sys.argv[1])):
    if r["action"] == "put-back": print(r["session"], r["knob"], r["old"], r["new"])' "$tmp/log.json" | sort > "$tmp/store.putbacks"
check sessions-log-put-backs-match-syslog '[ "$(wc -l < "$tmp/syslog.putbacks")" -ge 11 ] && diff "$tmp/syslog.putbacks" "$tmp/store.putbacks" > "$tmp/diff"' "$tmp/diff"
python3 -c 'import json,sys
rows = [r for r in json.load(open(sys.argv[1])) if r["action"] == "write"]
users = {r["knob"]: r["user"] for r in rows}
sys.exit(0 if users.get("vm.dirty_writeback_centisecs") == "root (sudo alice)" and users.get("vm.dirty_ratio") == "root" else 1)' "$tmp/log.json" > /dev/null 2>&1
users_rc=$?
check sessions-log-names-user '[ "$users_rc" = 0 ]' "$tmp/log.json"

# Under --root without SLUICE_AUDIT=all a fixture's writes are not logged.
before=$(wc -l < "$tmp/auth.log")
AUDIT= run set vm.dirty_ratio=30 > "$tmp/out" 2>&1
run set vm.swappiness=33 > "$tmp/out" 2>&1
arrived 'vm.swappiness' 1 > /dev/null
check fixture-not-logged-by-default '! grep -q "vm.dirty_ratio\" old=\"15\" new=\"30\"" "$tmp/auth.log"' "$tmp/auth.log"
