#!/bin/sh
# A scripted "application" on a fixture root: every 0.1 s it moves the
# counters sluice verify --live reads, as a steady workload would (sda: 20
# reads and 40 writes of 64 KiB, 2 ms each; PSI io some 10%, full 1%).
# While vm.dirty_ratio holds HARM (the candidate under test), every task
# stalls: PSI io full 90% and each I/O waits 50 ms; while it holds HELP,
# the same work waits half as long (1 ms, PSI io some 5%, full 0.5%).
# Runs until killed. Usage: fake-workload.sh ROOT [HARM [HELP]]
root=$1 harm=${2:-none} help=${3:-none}
stat=$root/sys/block/sda/stat psi=$root/proc/pressure/io
set -- $(cat "$stat")
rd=$1 rds=$3 rdt=$4 wr=$5 wrs=$7 wrt=$8 iot=${10} q=${11}
some=$(sed -n 's/^some.*total=//p' "$psi") full=$(sed -n 's/^full.*total=//p' "$psi")
while :; do
    wait_ms=2 some_us=10000 full_us=1000 now=$(cat "$root/proc/sys/vm/dirty_ratio")
    [ "$now" = "$harm" ] && wait_ms=50 some_us=90000 full_us=90000
    [ "$now" = "$help" ] && wait_ms=1 some_us=5000 full_us=500
    rd=$((rd + 20)) rds=$((rds + 20 * 128)) rdt=$((rdt + 20 * wait_ms))
    wr=$((wr + 40)) wrs=$((wrs + 40 * 128)) wrt=$((wrt + 40 * wait_ms))
    iot=$((iot + 60)) q=$((q + 60 * wait_ms))
    some=$((some + some_us)) full=$((full + full_us))
    printf '%8d %8d %8d %8d %8d %8d %8d %8d %8d %8d %8d %8d %8d %8d %8d %8d %8d\n' \
        "$rd" 0 "$rds" "$rdt" "$wr" 0 "$wrs" "$wrt" 0 "$iot" "$q" 0 0 0 0 0 0 > "$stat.tmp"
    mv "$stat.tmp" "$stat"
    printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=%d\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=%d\n' \
        "$some" "$full" > "$psi.tmp"
    mv "$psi.tmp" "$psi"
    sleep 0.1
done
