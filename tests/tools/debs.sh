#!/bin/sh
# Install the Debian packages named as arguments that are not installed yet.
# Run as root directly or through sudo; does nothing when all are present.
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "sluice: missing Debian packages:$missing" >&2
    echo "sluice: run 'sudo make run' (or install them with apt-get) and try again" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q $missing >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q $missing; } || {
    echo "sluice: apt-get could not install:$missing" >&2; exit 1; }
