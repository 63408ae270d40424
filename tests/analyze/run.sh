#!/bin/sh
# Static analysis, part of `make check`: gcc -fanalyzer and cppcheck must
# report nothing. Level chosen: gcc's whole analyzer (all -Wanalyzer-*
# warnings) and cppcheck's warning, portability and performance classes
# (style is left to review). A finding fails with the tool's own message.
cd "$(dirname "$0")/../.." || exit 2
cflags="-std=c11 -D_GNU_SOURCE -Isrc -I. -Ibuild $(pkg-config --cflags sqlite3 jansson ncursesw libcurl liburing inih gsl uuid libxml-2.0 libpq 2>/dev/null)"
files=$(ls src/*/*.c db/*.c ui/*.c 2>/dev/null)
out=$(mktemp)
# One file per job, two at a time; each job prints its verdict in one write.
export cflags
echo "$files" | tr ' ' '\n' | xargs -P 2 -I{} sh -c '
    r=$(gcc $cflags -fanalyzer -O1 -c "{}" -o /dev/null 2>&1 | grep "warning:\|error:" | head -5)
    if [ -n "$r" ]; then printf "FAIL analyze/gcc-fanalyzer:%s\n%s\n" "{}" "$(echo "$r" | sed "s/^/  /")"
    else echo "ok analyze/gcc-fanalyzer:{}"; fi'
if command -v cppcheck >/dev/null; then
    if cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance --std=c11 \
        --inline-suppr -Isrc -I. $files > "$out" 2>&1; then
        echo "ok analyze/cppcheck"
    else
        echo "FAIL analyze/cppcheck"
        head -20 "$out" | sed 's/^/  /'
    fi
else
    echo "skip analyze/cppcheck: cppcheck is not installed"
fi
rm -f "$out"
