#!/bin/sh
# Replay every fuzz target over its seed corpus and its regression inputs
# (crashes found earlier), without fuzzing: quick, deterministic, in make check.
# Fuzzing itself is `make fuzz FUZZ_SECONDS=N` (tests/fuzz/fuzz.sh).
cd "$(dirname "$0")/../.." || exit 2
if ! command -v "${FUZZ_CC:-clang}" >/dev/null; then
    echo "skip fuzz: clang is not installed (make test-deps installs it)"; exit 0
fi
log=$(mktemp "${TMPDIR:-/tmp}"/sluice-fuzz.XXXXXX)
trap 'rm -f "$log"' EXIT
if ! make -s -j2 fuzz-build > "$log" 2>&1; then
    if grep -q "fuzzer" "$log" && grep -qi "cannot find\|no such file" "$log"; then
        echo "skip fuzz: clang lacks the libFuzzer runtime (install libclang-rt-14-dev)"; exit 0
    fi
    echo "FAIL fuzz/build"; sed 's/^/  /' "$log" | tail -20; exit 0
fi
for src in tests/fuzz/fuzz_*.c; do
    t=$(basename "$src" .c); t=${t#fuzz_}
    inputs=$(find tests/fuzz/corpus/$t tests/fuzz/regress/$t -type f 2>/dev/null | sort)
    if [ -z "$inputs" ]; then echo "FAIL fuzz/$t"; echo "  no seed corpus in tests/fuzz/corpus/$t"; continue; fi
    # Files (not directories) as arguments: libFuzzer runs each once and stops.
    # shellcheck disable=SC2086
    if ASAN_OPTIONS=detect_leaks=1 build/fuzz/fuzz_$t $inputs > "$log" 2>&1; then
        echo "ok fuzz/$t ($(echo "$inputs" | wc -l) inputs)"
    else
        echo "FAIL fuzz/$t"; grep -E 'ERROR|SUMMARY|property broken|Running:|runtime error' "$log" | tail -8 | sed 's/^/  /'
    fi
done
exit 0
