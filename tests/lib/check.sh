# check.sh — the shell suites' result lines and their checks that a failed
# command left a file alone. Sourced (". tests/lib/check.sh") after the
# suite has set:
#   suite  its name, the prefix of every result line: "ok net/NAME"
#   tmp    its temporary directory (expect_fail keeps the output there)
#   out    where check keeps a test's output, shown when it fails
ok()   { echo "ok $suite/$1${2:+ ($2)}"; }
fail() { fail_name=$1; shift; echo "FAIL $suite/$fail_name"; for l in "$@"; do echo "  $l"; done; }
check() {   # name, then a command (a shell function) that fails with a reason on stdout
    check_name=$1; shift
    if "$@" > "$out" 2>&1; then ok "$check_name"; else fail "$check_name"; sed 's/^/  /' "$out" | tail -20; fi
}
# FILE's checksum before a failure (kept in FILE.sum), then proof it did not change.
mark() { sha256sum < "$1" > "$1.sum"; }
same() { sha256sum < "$1" | cmp -s - "$1.sum" || { echo "${1##*/} changed after a failure"; return 1; }; }
expect_fail() {   # FILE, pattern, command...: fails, says pattern, leaves FILE as it was
    ef_file=$1 ef_pat=$2; shift 2
    mark "$ef_file"
    if "$@" > "$tmp/f.out" 2>&1; then cat "$tmp/f.out"; echo "expected a failure"; return 1; fi
    grep -q -- "$ef_pat" "$tmp/f.out" || { cat "$tmp/f.out"; echo "expected message: $ef_pat"; return 1; }
    same "$ef_file"
}
