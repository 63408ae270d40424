#!/bin/sh
# The architecture's rules, checked on the source tree so later code is held
# to them (prints "ok style/RULE" or "FAIL style/RULE" with the offending
# lines, like the other suites):
#   curses-in-ui      curses is included only under ui/
#   sql-in-db         sqlite3 is named only under db/
#   kernel-paths      no file outside src/core/sysfs.c opens a /proc, /sys or
#                     /etc path itself (a literal, a macro naming one, or a
#                     buffer formatted from one): they go through sysfs_*,
#                     which adds the --root prefix
#   front-ends        no cli*.h included from ui/, db/ or an engine
#   layers            no file includes a header of a layer above its own
#                     (the order: the table "layers" below)
#   includes-qualified  every project include names its folder ("db/store.h")
#   function-length   no function body over 80 lines
#   public-callers    every public function is used outside its own file
#                     (or it should be static)
#   doc-citations     no comment cites a document the repository does not
#                     hold ("DESIGN §5", "knobs.md", "issue 8 §3")
#   db-files-by-sqlite  nothing under db/ opens a file with open() or fopen():
#                     a database this process may hold through SQLite must
#                     be touched only by SQLite, since closing any other
#                     descriptor of it drops the process's POSIX locks and
#                     lets another process unlink the live WAL
#   fault-hooks       an injected failure is asked for only through
#                     SLUICE_FAULT (src/core/fault.h, one counter a point):
#                     no other SLUICE_*FAIL* or *FAULT* variable is read
#   curl-checked      every curl_easy_setopt result is used: assigned,
#                     tested, or kept by SHARE_SETOPT (src/share/curl.h), so
#                     an option an older libcurl lacks cannot drop silently
# Known exceptions are listed below, each with its reason.
cd "$(dirname "$0")/../.." || exit 2
here=tests/style
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-style.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

code=$(find src db ui -name '*.c' -o -name '*.h' | sort)
code_c=$(find src db ui -name '*.c' | sort)
engines=$(find src/core src/session src/probe src/search src/profile src/share src/stat db ui -name '*.c' -o -name '*.h' | sort)

# report RULE: FAIL with the lines in $tmp/hits (minus exceptions), else ok.
report() {
    if [ -s "$tmp/hits" ]; then
        echo "FAIL style/$1"
        sed 's/^/  /' "$tmp/hits" | head -30
    else
        echo "ok style/$1"
    fi
}
# Lines that are only comments do not count as code.
code_lines() { grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)'; }

# --- curses-in-ui, sql-in-db, front-ends -------------------------------------
# shellcheck disable=SC2046
grep -nE '#[[:space:]]*include[[:space:]]*[<"](ncursesw/)?n?cursesw?\.h[>"]' $(echo "$code" | grep -v '^ui/') > "$tmp/hits"
report curses-in-ui
# shellcheck disable=SC2046
grep -nw 'sqlite3[a-z_]*' $(echo "$code" | grep -v '^db/') > "$tmp/hits"
report sql-in-db
# shellcheck disable=SC2086
grep -nE '#[[:space:]]*include[[:space:]]*"(.*/)?cli[a-z_]*\.h"' $engines > "$tmp/hits"
report front-ends
# shellcheck disable=SC2086
grep -nE 'curl_easy_setopt[[:space:]]*\(' $code | code_lines |
    grep -vE '(=|\(|!|&&|\|\||return)[[:space:]]*curl_easy_setopt[[:space:]]*\(|share_setopt_note\(.*curl_easy_setopt' > "$tmp/hits"
report curl-checked
# shellcheck disable=SC2086
grep -nE 'getenv[[:space:]]*\([[:space:]]*"SLUICE_[A-Z_]*(FAIL|FAULT)' $code | grep -v '^src/core/fault\.c:' > "$tmp/hits"
report fault-hooks

# --- layers ----------------------------------------------------------------------
# The layer order, written only here, lowest first: a file may include the
# headers of its own layer and of the layers below it, never of one above.
# Each line: the layer, the paths it holds (extended regexps; the longest
# match names a file's layer), and what it is.
layers='
 core     ^src/core/ ^src/stat/           sysfs, knobs, devices, records, faults, the interrupt flag; statistics
 db       ^db/                            the store: SQL over the records of the layers above
 probe    ^src/probe/                     measures and stores what it measured; changes no knob, so no session
 session  ^src/session/                   tuning sessions: the lock, snapshots, writes, put-back, restore
 search   ^src/search/                    spaces, strategies, verdicts, recommendations
 engines  ^src/(profile|report|share|verify)/  profiles, reports, sharing, live verification
 ui       ^ui/                            the curses front end
 cli      ^src/cli/                       commands (the ui command starts the UI)
'
# shellcheck disable=SC2086
grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $code |
    awk -v layers="$layers" -v headers="$(find src db ui -name '*.h' | sort)" -f "$here/layers.awk" > "$tmp/hits"
report layers

# --- includes-qualified ---------------------------------------------------------
# Every project header is named by its folder ("core/sysfs.h", "db/store.h",
# "ui/app.h"), so an include says which layer it reaches into and the check
# above reads it as the compiler does; the Makefile gives -Isrc -I. only.
# (build/'s generated headers, paths.h and dbench_load.h, are not layered.)
# shellcheck disable=SC2086
grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+"' $code |
    grep -vE '"(paths|dbench_load)\.h"' > "$tmp/hits"
report includes-qualified

# --- kernel-paths ---------------------------------------------------------------
# shellcheck disable=SC2086
macros=$(grep -hoE '#define[[:space:]]+[A-Z_]+[[:space:]]+"/(proc|sys|etc)[/"]' $code | awk '{print $2}' | paste -sd '|' -)
# shellcheck disable=SC2046
awk -v macros="$macros" -f "$here/kernel_paths.awk" $(echo "$code_c" | grep -vx src/core/sysfs.c) > "$tmp/hits"
report kernel-paths

# --- function-length -----------------------------------------------------------
# shellcheck disable=SC2086
awk -f "$here/functions.awk" $code_c > "$tmp/functions"
awk '$3 > 80 { print $1 " " $2 "(): " $3 " lines" }' "$tmp/functions" > "$tmp/hits"
report function-length

# --- public-callers --------------------------------------------------------------
# Public functions used only in their own file. Exceptions, each with why
# (each line: the name, then the reason):
public_ok='
 quote_has_control     landed with src/profile/quote.c for the quoting callers in flight
 evidence_run_in_scope one run against an evidence scope, landed with src/search/evidence.c for its callers in flight
 probe_json_real       the one rounding of reals into JSON, declared in probe.h for renderings
'
everything=$(find src db ui tests/unit tests/fuzz bench -name '*.c' -o -name '*.h' | sort)
: > "$tmp/hits"
grep ' public$' "$tmp/functions" | while read -r loc name _ _; do
    f=${loc%%:*}
    case $public_ok in *" $name "*) continue ;; esac
    # A use elsewhere: not its prototype (a line starting with a type whose
    # first parenthesis is the name's), not a comment.
    # shellcheck disable=SC2046
    if ! grep -hw "$name" $(echo "$everything" | grep -vx "$f") |
         grep -vE "^[A-Za-z_][^(]*[^A-Za-z0-9_]$name[[:space:]]*\(|^[[:space:]]*(/?\*|//)" | grep -q .; then
        echo "$loc $name() is public but used only in its own file: make it static (or remove it if unused)" >> "$tmp/hits"
    fi
done
report public-callers

# --- doc-citations ---------------------------------------------------------------
# Section marks, DESIGN, "issue N" and *.md files that are not in the tree.
: > "$tmp/hits"
texts=$(find src db ui tests Makefile man -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' \
        -o -name '*.awk' -o -name Makefile -o -name '*.head' -o -name '*.tail' -o -name '*.sql' \
        -o -path 'tests/live/*' \) | grep -v "^$here/" | sort)
# shellcheck disable=SC2086
grep -nE '§|DESIGN|[Ii]ssue [0-9]+|research note' $texts >> "$tmp/hits"
# shellcheck disable=SC2086
grep -noE '[A-Za-z0-9_-]+\.md\b' $texts | while IFS=: read -r f l doc; do
    [ -n "$(find . -name "$doc" -not -path './build/*' | head -1)" ] || echo "$f:$l: cites $doc, which is not in the repository"
done >> "$tmp/hits"
report doc-citations

# --- db-files-by-sqlite ------------------------------------------------------------
# Exception: store_share_check.c opens the private copy of a downloaded
# database (made by share_fetch/merge in a directory of its own) before any
# connection to it exists.
# shellcheck disable=SC2046
grep -nE '(^|[^a-z_])f?open[[:space:]]*\(' $(find db -name '*.c' | grep -v '^db/store_share_check\.c$') | code_lines > "$tmp/hits"
report db-files-by-sqlite
exit 0
