#!/bin/sh
# TuneD interop against the real profiles of Debian's tuned package
# (/usr/lib/tuned): import-tuned maps what it can, reports the rest with
# file:line, and the result loads, plans and round-trips through export.
cd "$(dirname "$0")/../.." || exit 2
sluice=${SLUICE:-./sluice}
# The profiles come unpacked from Debian's tuned .deb (tests/tools/tuned-profiles.sh),
# not from an installed tuned: installing it would start tuned.service and retune the machine.
tuned_dir=build/tuned/usr/lib/tuned
if [ ! -d "$tuned_dir/throughput-performance" ]; then
    echo "skip tuned/import: Debian's tuned profiles are not unpacked in build/tuned (make test-deps does it)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-tuned.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -a tests/fixtures/modern "$tmp/root"
mkdir -p "$tmp/root/etc/tuned/profiles"
cp -a "$tuned_dir"/. "$tmp/root/etc/tuned/profiles/"
run() { SLUICE_PROFILES="$PWD/profiles" "$sluice" --root "$tmp/root" --db "$tmp/db" "$@"; }

check() {   # name, file holding output, then pairs of "grep pattern"
    name=$1 out=$2; shift 2
    for pat in "$@"; do
        if ! grep -qF -- "$pat" "$out"; then
            echo "FAIL tuned/$name"; echo "  missing: $pat"; sed 's/^/  | /' "$out" | head -40; return
        fi
    done
    echo "ok tuned/$name"
}

# name | lines the imported profile must hold | notes that must be reported
run profile import-tuned throughput-performance > "$tmp/o" 2>&1 || echo "FAIL tuned/throughput-performance-exit"
check throughput-performance "$tmp/o" "4 setting(s) mapped" \
    "throughput-performance/tuned.conf:13: [cpu] governor, energy_perf_bias, min_perf_pct" \
    "net.core.somaxconn = >2048: not a VM knob" "[vm.thunderx]: applies only where uname_regex=aarch64"
check throughput-performance-file "$tmp/root/etc/sluice/profiles/tuned-throughput-performance.conf" \
    "dirty_ratio = 40" "dirty_background_ratio = 10" "swappiness = 10" "read_ahead_kb = >4096"

run profile import-tuned latency-performance --stdout > "$tmp/o" 2> "$tmp/e"
cat "$tmp/e" >> "$tmp/o"
check latency-performance "$tmp/o" "dirty_ratio = 10" "dirty_background_ratio = 3" "swappiness = 10" \
    "[cpu] force_latency, governor"

# virtual-guest includes throughput-performance: the include first, its own values over it.
run profile import-tuned virtual-guest --stdout > "$tmp/o" 2>&1
check virtual-guest "$tmp/o" "dirty_ratio = 30 " "virtual-guest/tuned.conf" \
    "dirty_background_ratio = 10 " "throughput-performance/tuned.conf" "swappiness = 30" "read_ahead_kb = >4096"

# postgresql switches to bytes: the ratio=0 lines are dropped, the included ratio is replaced.
run profile import-tuned postgresql --stdout > "$tmp/o" 2>&1
check postgresql "$tmp/o" "dirty_background_bytes = 67108864" "dirty_bytes = 536870912" "swappiness = 3" \
    "vm.dirty_ratio = 0: dropped, vm.dirty_bytes sets the limit" "[vm] transparent_hugepages = never" \
    "kernel.sched_autogroup_enabled = 0: not a VM knob"
if grep -q '^dirty_ratio' "$tmp/o"; then echo "FAIL tuned/postgresql-no-ratio"; else echo "ok tuned/postgresql-no-ratio"; fi

# per-device [disk] instances become selectors
run profile import-tuned spectrumscale-ece --stdout > "$tmp/o" 2>&1
check spectrumscale-ece "$tmp/o" '[block "name=sd*"]' 'scheduler = mq-deadline' '[block "name=nvme*"]' 'scheduler = none'

# Every shipped TuneD profile imports, and what it writes loads and plans here.
bad=0
for d in "$tuned_dir"/*/; do
    n=$(basename "$d")
    [ -f "$d/tuned.conf" ] || continue
    if ! run profile import-tuned "$n" --force > "$tmp/o" 2>&1 || ! run apply "tuned-$n" --dry-run > "$tmp/p" 2>&1; then
        echo "FAIL tuned/all-$n"; sed 's/^/  | /' "$tmp/o" "$tmp/p" | head -20; bad=1
    fi
done
[ $bad -eq 0 ] && echo "ok tuned/every-shipped-profile-imports-and-plans"

# By path from the unpacked tree, on a root without TuneD: each include= is
# looked up beside the given profile first (25 of the 37 include another).
cp -a tests/fixtures/modern "$tmp/bare"
runb() { SLUICE_PROFILES="$PWD/profiles" "$sluice" --root "$tmp/bare" --db "$tmp/db" "$@"; }
bad=0 count=0
for d in "$tuned_dir"/*/; do
    [ -f "$d/tuned.conf" ] || continue
    count=$((count + 1))
    if ! runb profile import-tuned "$PWD/$d" --stdout > "$tmp/o" 2>&1; then
        echo "FAIL tuned/by-path-$(basename "$d")"; sed 's/^/  | /' "$tmp/o" | head -8; bad=1
    fi
done
if [ $count -ne 37 ]; then echo "FAIL tuned/by-path-count: $count profiles in $tuned_dir, Debian's tuned has 37"
elif [ $bad -eq 0 ]; then echo "ok tuned/all-37-import-by-path"; fi
runb profile import-tuned "$PWD/$tuned_dir/virtual-guest" --stdout > "$tmp/o" 2>&1
check by-path-include-beside "$tmp/o" "dirty_ratio = 30 " "dirty_background_ratio = 10 " "swappiness = 30" \
    "$tuned_dir/throughput-performance/tuned.conf"

# An include not beside the given profile comes from TuneD's directories
# under --root: /etc/tuned first, then /usr/lib/tuned.
mkdir -p "$tmp/bare/usr/lib/tuned" "$tmp/mine/own"
cp -a "$tuned_dir/throughput-performance" "$tmp/bare/usr/lib/tuned/"
printf '[main]\ninclude=throughput-performance\n[sysctl]\nvm.swappiness=5\n' > "$tmp/mine/own/tuned.conf"
runb profile import-tuned "$tmp/mine/own" --stdout > "$tmp/o" 2>&1
check include-from-root-usr-lib "$tmp/o" "dirty_ratio = 40" "swappiness = 5" "$tmp/bare/usr/lib/tuned/throughput-performance/tuned.conf"
mkdir -p "$tmp/bare/etc/tuned/throughput-performance"
printf '[sysctl]\nvm.dirty_ratio=33\n' > "$tmp/bare/etc/tuned/throughput-performance/tuned.conf"
runb profile import-tuned "$tmp/mine/own" --stdout > "$tmp/o" 2>&1
check include-etc-before-usr-lib "$tmp/o" "dirty_ratio = 33" "$tmp/bare/etc/tuned/throughput-performance/tuned.conf"
rm -rf "$tmp/bare/etc/tuned"
# By name, /usr/lib/tuned is the root's, not the host's.
runb profile import-tuned throughput-performance --stdout > "$tmp/o" 2>&1
check by-name-root-usr-lib "$tmp/o" "dirty_ratio = 40" "$tmp/bare/usr/lib/tuned/throughput-performance/tuned.conf"
printf '[main]\ninclude=no-such-base\n' > "$tmp/mine/own/tuned.conf"
runb profile import-tuned "$tmp/mine/own" --stdout > "$tmp/o" 2>&1
check include-missing "$tmp/o" "$tmp/mine/own/tuned.conf:2: include=no-such-base: no TuneD profile \"no-such-base\" beside it ($tmp/mine) nor in /etc/tuned or /usr/lib/tuned"

# Round trip: a sluice profile exported as TuneD and imported again keeps its vm values.
mkdir -p "$tmp/rt/latency"
run profile export latency --format tuned > "$tmp/rt/latency/tuned.conf" 2>/dev/null
run profile import-tuned "$tmp/rt/latency" --as roundtrip > /dev/null 2>&1
run profile diff latency roundtrip 2>&1 | tr -s ' ' > "$tmp/o"
check roundtrip "$tmp/o" "vm.dirty_ratio 10 10 same" "vm.dirty_background_ratio 3 3 same" \
    "vm.dirty_expire_centisecs 1500 1500 same" "vm.swappiness 10 10 same" 'block.*.iosched.read_expire [name=sda] - 100'


# Bad input: not there, a directory without tuned.conf, a syntax error.
run profile import-tuned no-such-profile > "$tmp/o" 2>&1
check missing "$tmp/o" 'no TuneD profile "no-such-profile" in /etc/tuned or /usr/lib/tuned'
mkdir -p "$tmp/broken"; printf '[main]\nsummary=x\n[sysctl\nvm.swappiness=1\n' > "$tmp/broken/tuned.conf"
run profile import-tuned "$tmp/broken" > "$tmp/o" 2>&1
check syntax "$tmp/o" "broken/tuned.conf:3: not a TuneD profile this parser can read"
exit 0
