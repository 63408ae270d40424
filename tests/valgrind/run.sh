#!/bin/sh
# The CLI cases again under valgrind memcheck: any invalid access, use of
# uninitialised memory or definite leak changes the transcript (valgrind's
# report and exit status 99), so the case fails.
cd "$(dirname "$0")/../.." || exit 2
if ! command -v valgrind >/dev/null; then echo "skip valgrind: valgrind is not installed"; exit 0; fi
wrap=$(mktemp "${TMPDIR:-/tmp}"/sluice-vg.XXXXXX)
trap 'rm -f "$wrap"' EXIT
cat > "$wrap" <<EOW
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite "$PWD/sluice" "\$@"
EOW
chmod 755 "$wrap"
SLUICE_CASES=$(grep -v "^#" tests/valgrind/cases.txt | tr "\n" " ") sh tests/cases/run.sh "$wrap" valgrind
