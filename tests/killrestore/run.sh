#!/bin/sh
# make check: 5 kill/restore rounds against a fixture root and 5 on a loop
# device (root only); make check-long (SLUICE_LONG=1): 50 of each.
cd "$(dirname "$0")/../.." || exit 2
rounds=5
[ -n "$SLUICE_LONG" ] && rounds=50
sh tests/live/kill-restore fixture "$rounds"
sh tests/live/kill-restore loop "$rounds"
