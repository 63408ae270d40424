#!/bin/sh
# Security audit of the source tree, re-run on every make check
# so code that lands later is held to the same rules:
#   no-shell      no system(), popen() or exec*() anywhere in the program:
#                 sluice runs no command but the one the administrator types
#                 as verify --live's --metric and, for boot install on a
#                 System V root, /usr/sbin/update-rc.d with a fixed argv
#                 (each line says so), so no
#                 stored string and no downloaded content can become one
#   no-dlopen     nothing is loaded as code at run time
#   tmp-names     no mktemp()/tmpnam()/tempnam() (racy names); scratch files
#                 and directories come from mkstemp/mkdtemp or O_EXCL
#   creat-safe    every open(..., O_CREAT) also has O_EXCL or O_NOFOLLOW, and
#                 every fopen() that creates uses "x": a planted symlink is
#                 never followed into a file of root's choosing
#   sql-bound     no SQL text built with printf-style formatting from values
#                 (sqlite3_mprintf/snprintf of %s into a statement): values are bound
# A line may opt out with a comment "security: OK because ..." on it.
cd "$(dirname "$0")/../.." || exit 2
files=$(find src db ui -name '*.c' 2>/dev/null | sort)
tmp=$(mktemp "${TMPDIR:-/tmp}"/sluice-sec.XXXXXX)
trap 'rm -f "$tmp"' EXIT

rule() { # name, extended regex that must not match, optional filter regex (lines it must also match)
    name=$1 bad=$2 also=$3
    # Comments that merely mention a call are not calls: drop // and /* */ lines.
    # shellcheck disable=SC2086
    grep -nE "$bad" $files | grep -v 'security: OK' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' > "$tmp"
    if [ -n "$also" ]; then grep -E "$also" "$tmp" > "$tmp.2"; mv "$tmp.2" "$tmp"; fi
    if [ -s "$tmp" ]; then echo "FAIL security/$name"; sed 's/^/  /' "$tmp" | head -20
    else echo "ok security/$name"; fi
}

rule no-shell  '(^|[^_a-z])(system|popen|execl|execlp|execle|execv|execvp|execvpe|fexecve|posix_spawnp?)[[:space:]]*\('
rule no-dlopen '(^|[^_a-z])dlopen[[:space:]]*\('
rule tmp-names '(^|[^_a-z])(mktemp|tmpnam|tempnam)[[:space:]]*\('
# O_CREAT lines lacking both O_EXCL and O_NOFOLLOW (one call per line in this tree).
# shellcheck disable=SC2086
grep -nE 'O_CREAT' $files | grep -v 'security: OK' | grep -vE 'O_EXCL|O_NOFOLLOW' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' > "$tmp"
if [ -s "$tmp" ]; then echo "FAIL security/creat-safe"; sed 's/^/  /' "$tmp"; else echo "ok security/creat-safe"; fi
# fopen for writing or appending without "x" (exclusive create).
# shellcheck disable=SC2086
grep -nE 'fopen[[:space:]]*\([^,]*,[[:space:]]*"[wa][^"x]*"' $files | grep -v 'security: OK' > "$tmp"
if [ -s "$tmp" ]; then echo "FAIL security/fopen-exclusive"; sed 's/^/  /' "$tmp"; else echo "ok security/fopen-exclusive"; fi
rule sql-bound 'sqlite3_v?mprintf|snprintf[^;]*"[[:space:]]*(SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ATTACH|PRAGMA)[^"]*%[sq]'

# The knob-path and file-mode rules are tested behaviourally by the CLI cases
# security-knob-paths, security-modes and security-symlinks, and by the
# fuzz target knob_name (every resolved path stays under the kernel's dirs).
exit 0
