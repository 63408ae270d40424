#!/bin/sh
# make fuzz FUZZ_SECONDS=N: fuzz every target for N seconds each. New inputs
# go to build/fuzz/corpus/TARGET (seeded from tests/fuzz/corpus and regress);
# crashes land in build/fuzz/crashes/TARGET/. For each crash: fix the owning
# module, then copy the input to tests/fuzz/regress/TARGET/ so make check
# replays it forever.
cd "$(dirname "$0")/../.." || exit 2
secs=${1:-60}
found=0
for src in tests/fuzz/fuzz_*.c; do
    t=$(basename "$src" .c); t=${t#fuzz_}
    mkdir -p build/fuzz/corpus/$t build/fuzz/crashes/$t tests/fuzz/regress/$t
    dict=""; [ -f tests/fuzz/dict/$t.dict ] && dict="-dict=tests/fuzz/dict/$t.dict"
    echo "== fuzz $t for ${secs}s"
    # shellcheck disable=SC2086
    ASAN_OPTIONS=detect_leaks=1 build/fuzz/fuzz_$t -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
        -print_final_stats=1 -artifact_prefix=build/fuzz/crashes/$t/ $dict \
        build/fuzz/corpus/$t tests/fuzz/corpus/$t tests/fuzz/regress/$t 2>&1 |
        grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY|.*property broken|artifact_prefix)' || true
    n=$(find build/fuzz/crashes/$t -type f | wc -l)
    [ "$n" -gt 0 ] && { echo "   $n crash input(s) in build/fuzz/crashes/$t/"; found=1; }
done
[ $found -eq 0 ] && echo "no crashes"
exit $found
