#!/bin/sh
# The bench's shared Python (bench/lib): the figures bench/transfer and its
# siblings print are only as good as paired.py's arithmetic and
# transfer_judge.py's rule, so both are checked here on made-up data whose
# answers are known. Nothing touches a disk or a knob.
# Prints "ok NAME" / "FAIL NAME" lines for tests/run.sh.
cd "$(dirname "$0")/../.." || exit 2
if ! command -v python3 >/dev/null; then echo "skip bench-lib: python3 is not installed"; exit 0; fi
# no byte-code written into bench/lib: a source tree, not a cache
PYTHONDONTWRITEBYTECODE=1 python3 tests/bench-lib/check.py
