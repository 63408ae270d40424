#!/bin/sh
# tee.sh SLUICE ARGS...: run sluice as the cases do; with --json on the
# line, keep a copy of its stdout and the line in $SLUICE_JSON_DIR for
# tests/schema/validate.py (every --json document the cases produce is
# checked against its command's schema).
json=0
for a in "$@"; do [ "$a" = --json ] && json=1; [ "$a" = -- ] && break; done
[ $json = 1 ] && [ -n "$SLUICE_JSON_DIR" ] || exec "$@"
mkdir -p "$SLUICE_JSON_DIR"
out=$(mktemp "$SLUICE_JSON_DIR/out.XXXXXX")
printf '%s\n' "$@" > "$out.args"
"$@" > "$out"
rc=$?
cat "$out"
echo "$rc" > "$out.rc"
exit $rc
