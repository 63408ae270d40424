#!/bin/sh
# Static analysis, part of `make check`: gcc -fanalyzer and cppcheck must
# report nothing. Level chosen: gcc's whole analyzer (all -Wanalyzer-*
# warnings) and cppcheck's warning, portability and performance classes
# (style is left to review). A finding fails with the tool's own message.
cd "$(dirname "$0")/../.." || exit 2
cflags="-std=c11 -D_GNU_SOURCE -Isrc -Idb -Iui -Ibuild $(pkg-config --cflags sqlite3 jansson ncursesw libcurl liburing inih gsl uuid libxml-2.0 2>/dev/null)"
files=$(ls src/*.c src/*/*.c db/*.c ui/*.c 2>/dev/null)
out=$(mktemp)
for f in $files; do
    gcc $cflags -fanalyzer -O1 -c "$f" -o /dev/null > "$out" 2>&1
    if grep -q 'warning:\|error:' "$out"; then
        echo "FAIL analyze/gcc-fanalyzer:$f"
        grep 'warning:\|error:' "$out" | head -5 | sed 's/^/  /'
    else
        echo "ok analyze/gcc-fanalyzer:$f"
    fi
done
if command -v cppcheck >/dev/null; then
    if cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance --std=c11 \
        --inline-suppr -Isrc -Idb -Iui $files > "$out" 2>&1; then
        echo "ok analyze/cppcheck"
    else
        echo "FAIL analyze/cppcheck"
        head -20 "$out" | sed 's/^/  /'
    fi
else
    echo "skip analyze/cppcheck: cppcheck is not installed"
fi
rm -f "$out"
