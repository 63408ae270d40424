#!/bin/sh
# The whole test suite: every suite prints lines "ok NAME", "FAIL NAME" or
# "skip NAME: why"; this script counts them and ends with "N passed, N failed".
# SLUICE_SUITES="unit cases" limits the run to some suites.
#
# Suites run in parallel job slots (SLUICE_JOBS, default: one per core, plus
# one for the suites that mostly wait on tmux, servers or sleeps). Each suite
# gets its own TMPDIR. The suites that write the host's real vm.* knobs
# (HOST_SUITES) save and put them back around their run; two of them at once
# would each save the other's temporary values, and each holds the
# kernel-wide tuning lock (/run/sluice/lock) while it tunes, so they take
# turns (verify's live tests made probe's fail "another sluice holds the
# tuning lock" when they overlapped).
cd "$(dirname "$0")/.." || exit 2
# Scratch (every suite's TMPDIR) on tmpfs when it takes O_DIRECT (the
# probes' canary reader opens its file so; tmpfs does since Linux 6.6):
# the suites' thousands of fsyncs then cost nothing, and make check leaves
# the disk alone, which a measurement beside it may be using. Else /tmp.
# SLUICE_TEST_TMP picks another place. The suites that need a real block
# device (live, probe) make their own under /var/tmp; cases and ui keep
# /tmp for their transcripts' paths.
scratch_base() {
    if [ -n "$SLUICE_TEST_TMP" ]; then echo "$SLUICE_TEST_TMP"; return; fi
    probe=/dev/shm/.sluice-odirect.$$
    if [ -d /dev/shm ] && [ -w /dev/shm ] &&
        dd if=/dev/zero of="$probe" bs=4096 count=1 oflag=direct 2> /dev/null; then
        rm -f "$probe"
        echo /dev/shm
    else
        rm -f "$probe"
        echo /tmp
    fi
}
work=$(mktemp -d "$(scratch_base)/sluice-check.XXXXXX")
chmod 711 "$work"   # cases run commands as nobody and initdb runs as postgres: they pass through it
trap 'rm -rf "$work"' EXIT INT TERM
HOST_SUITES="probe live killrestore verify"

# Longest first (seconds measured on 2 cores, stop 35), so that the last
# suite to start is a short one; a suite not listed runs after these.
ORDER="unit-asan valgrind faults cases-asan analyze ui fuzz deb unit cases
       torture pg-faults verify net search live probe killrestore pg report
       security style install tuned audit analysis-cost"

suite_command() {   # name -> the command that runs it
    case $1 in
        unit)       echo "build/unit-tests" ;;
        unit-asan)  echo "env ASAN_OPTIONS=detect_leaks=1 build/asan/unit-tests" ;;
        cases)      echo "sh tests/cases/run.sh ./sluice" ;;
        cases-asan) echo "env ASAN_OPTIONS=detect_leaks=1 sh tests/cases/run.sh build/asan/sluice asan" ;;
        *)          echo "sh tests/$1/run.sh" ;;
    esac
}

all="unit unit-asan cases cases-asan"
for suite in tests/*/run.sh; do
    dir=$(basename "$(dirname "$suite")")
    case $dir in cases) continue ;; esac
    all="$all $dir"
done
selected=""
for name in $ORDER $all; do
    case " $all " in *" $name "*) ;; *) continue ;; esac
    case " ${SLUICE_SUITES:-$name} " in *" $name "*) ;; *) continue ;; esac
    case " $selected " in *" $name "*) continue ;; esac
    selected="$selected $name"
done
printf '%s\n' $selected > "$work/queue"
echo 0 > "$work/next"

run_suite() {   # name: output to $work/out.NAME, seconds to $work/time.NAME
    name=$1
    t0=$(date +%s)
    tmp=$(mktemp -d "$work/tmp.$name.XXXXXX")
    chmod 1777 "$tmp"
    cmd=$(suite_command "$name")
    case " $HOST_SUITES " in
        *" $name "*) TMPDIR=$tmp flock "$work/host.lock" $cmd > "$work/out.$name" 2>&1 ;;
        *)           TMPDIR=$tmp $cmd > "$work/out.$name" 2>&1 ;;
    esac
    rm -rf "$tmp"
    echo $(( $(date +%s) - t0 )) > "$work/time.$name"
    # A suite that dies before reporting anything must not pass unnoticed:
    # say so, with the end of what it printed.
    if ! grep -qE '^(ok|FAIL|skip) ' "$work/out.$name"; then
        { echo "FAIL $name: the suite printed no result; its last output:"
          tail -5 "$work/out.$name" | sed 's/^/  | /'; } >> "$work/out.$name"
    fi
    # Report as it ends (lines of parallel suites never interleave: one
    # write under the lock).
    flock "$work/print.lock" sh -c '
        echo "== $1 ($(cat "$2/time.$1") s)"
        grep -E "^(FAIL|skip)|^  " "$2/out.$1"' _ "$name" "$work"
}

worker() {
    while :; do
        i=$(flock "$work/queue.lock" sh -c 'n=$(cat "$1"); echo $((n + 1)) > "$1"; echo "$n"' _ "$work/next")
        name=$(sed -n "$((i + 1))p" "$work/queue")
        [ -n "$name" ] || return 0
        run_suite "$name"
    done
}

# The machine's own database and configuration are never a test's to touch:
# what exists under them (paths and checksums) before the suites must be
# what exists after.
guarded="/var/lib/sluice /etc/sluice"
machine_state() {
    for d in $guarded; do
        if [ -e "$d" ]; then
            echo "exists $d"
            find "$d" -xdev \( -type f -o -type l \) -print0 2>/dev/null | sort -z | xargs -0r sha256sum 2>&1
        else
            echo "absent $d"
        fi
    done
}
machine_state > "$work/before"
# Nor may a suite leave a mount or a loop device on its sluice-* scratch
# (tests/verify's live test did when its writer still wrote as it
# unmounted: umount failed busy, and the filesystem and its loop device
# outlived make check). A bench running beside the suites is in both lists.
scratch_mounts() {
    awk '$5 ~ /\/sluice-/ { print "mount " $5 }' /proc/self/mountinfo
    losetup -l -n -O NAME,BACK-FILE 2> /dev/null | awk '$2 ~ /\/sluice-/ { print "loop device " $1 " on " $2 }'
}
scratch_mounts | sort > "$work/mounts.before"

jobs=${SLUICE_JOBS:-$(( $(nproc) + 1 ))}
t0=$(date +%s)
j=0
while [ "$j" -lt "$jobs" ]; do
    worker &
    j=$((j + 1))
done
wait

log="$work/log"
for name in $selected; do cat "$work/out.$name" >> "$log"; done
if machine_state | cmp -s "$work/before" -; then
    echo "ok guard/machine-state-unchanged" >> "$log"
else
    echo "FAIL guard/machine-state-unchanged: the suites changed $guarded:" | tee -a "$log"
    machine_state | diff "$work/before" - | sed 's/^/  /' | head -20
fi

left=$(scratch_mounts | sort | comm -13 "$work/mounts.before" -)
if [ -z "$left" ]; then
    echo "ok guard/no-mounts-left" >> "$log"
else
    echo "FAIL guard/no-mounts-left: the suites left mounts or loop devices behind:" | tee -a "$log"
    echo "$left" | head -10 | sed 's/^/  /' | tee -a "$log"
fi

# Each suite's time, longest first, so that the next slow suite is seen.
echo "suite times ($jobs slots, scratch $(dirname "$work"), $(( $(date +%s) - t0 )) s in all):"
for name in $selected; do
    printf '%6s s  %s\n' "$(cat "$work/time.$name" 2>/dev/null || echo '?')" "$name"
done | sort -rn | paste -sd '\t\t\t\n' | sed 's/^/ /'
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
