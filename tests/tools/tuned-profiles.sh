#!/bin/sh
# Debian's TuneD profiles for the import-tuned tests, unpacked from the tuned
# .deb into build/tuned instead of installing the package: installing tuned
# enables and starts tuned.service, which would retune the machine behind the
# user's back. A failed download only makes tests/tuned skip with the reason.
cd "$(dirname "$0")/../.." || exit 0
dest=build/tuned
[ -d "$dest/usr/lib/tuned/throughput-performance" ] && exit 0
mkdir -p "$dest" && cd "$dest" || exit 0
if apt-get download tuned > download.log 2>&1 || { apt-get update -q > /dev/null 2>&1 && apt-get download tuned > download.log 2>&1; }; then
    dpkg-deb -x tuned_*.deb . && rm -f tuned_*.deb download.log
else
    echo "sluice: could not download Debian's tuned package (see $dest/download.log); tests/tuned will be skipped" >&2
fi
exit 0
