#!/bin/sh
# The CLI cases again under valgrind memcheck: any invalid access, use of
# uninitialised memory or definite leak changes the transcript (valgrind's
# report and exit status 99), so the case fails.
cd "$(dirname "$0")/../.." || exit 2
if ! command -v valgrind >/dev/null; then echo "skip valgrind: valgrind is not installed"; exit 0; fi
# valgrind runs a copy of the binary from a directory anyone may enter:
# probe-bad-input runs it as nobody, and valgrind, unlike execve, opens the
# binary as that user, so a clone under a private home (/root is 0700 on a
# fresh Debian) failed "valgrind: /root/sluice/sluice: Permission denied".
dir=$(mktemp -d /tmp/sluice-vg.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cp sluice "$dir/sluice"
wrap=$dir/valgrind-sluice
cat > "$wrap" <<EOW
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite "$dir/sluice" "\$@"
EOW
chmod 755 "$wrap"
SLUICE_CASES=$(grep -v "^#" tests/valgrind/cases.txt | tr "\n" " ") sh tests/cases/run.sh "$wrap" valgrind
