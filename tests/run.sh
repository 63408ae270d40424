#!/bin/sh
# The whole test suite: every suite prints lines "ok NAME", "FAIL NAME" or
# "skip NAME: why"; this script counts them and ends with "N passed, N failed".
# SLUICE_SUITES="unit cases" limits the run to some suites.
cd "$(dirname "$0")/.." || exit 2
log=$(mktemp /tmp/sluice-check.XXXXXX)
trap 'rm -f "$log"' EXIT INT TERM

run_suite() {   # name, command...
    name=$1; shift
    case " ${SLUICE_SUITES:-$name} " in *" $name "*) ;; *) return ;; esac
    echo "== $name"
    t0=$(date +%s)
    out=$(mktemp /tmp/sluice-suite.XXXXXX)
    "$@" > "$out" 2>&1
    cat "$out" >> "$log"
    grep -E '^(FAIL|skip)|^  ' "$out"
    # A suite that dies before reporting anything must not pass unnoticed:
    # say so, with the end of what it printed.
    if ! grep -qE '^(ok|FAIL|skip) ' "$out"; then
        echo "FAIL $name: the suite printed no result; its last output:" | tee -a "$log"
        tail -5 "$out" | sed 's/^/  | /'
    fi
    rm -f "$out"
    echo "   ($name: $(( $(date +%s) - t0 )) s)"
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
before=$(mktemp /tmp/sluice-guard.XXXXXX)
trap 'rm -f "$log" "$before"' EXIT INT TERM
machine_state > "$before"

run_suite unit      build/unit-tests
run_suite unit-asan env ASAN_OPTIONS=detect_leaks=1 build/asan/unit-tests
run_suite cases     sh tests/cases/run.sh ./sluice
run_suite cases-asan env ASAN_OPTIONS=detect_leaks=1 sh tests/cases/run.sh build/asan/sluice asan
for suite in tests/*/run.sh; do
    dir=$(basename "$(dirname "$suite")")
    case $dir in cases) continue ;; esac
    run_suite "$dir" sh "$suite"
done

if machine_state | cmp -s "$before" -; then
    echo "ok guard/machine-state-unchanged" >> "$log"
else
    echo "FAIL guard/machine-state-unchanged: the suites changed $guarded:" | tee -a "$log"
    machine_state | diff "$before" - | sed 's/^/  /' | head -20
fi

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
