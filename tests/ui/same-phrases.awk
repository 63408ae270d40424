# What a screen shows must be what the CLI printed: every phrase of the
# first file (one a line, taken from a command's output by a test's after)
# on each screen of the dump (the second file). Each screen's lines are
# joined and runs of blanks squeezed, so a phrase wrapped over lines or set
# in wider columns is whole again. Prints "SIZE TITLE: same: PHRASE" or
# "... MISSING: PHRASE"; -v only=SIZE checks the screens of that size only.
# Usage, in a test's after:
#   awk -f "$(dirname "$0")/../same-phrases.awk" PHRASES "$TMP/dump"
function squeeze(s) { gsub(/ +/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }
function flush(    i) {
    if (head == "" || (only != "" && size != only)) { head = ""; return }
    text = squeeze(text)
    for (i = 1; i <= n; i++) print head ": " (index(text, p[i]) ? "same: " : "MISSING: ") p[i]
    head = ""
}
FNR == NR { if ($0 != "") p[++n] = squeeze($0); next }
/^--- screen / { flush(); size = $3; first = 1; text = ""; next }
first { first = 0; split($0, t, "│"); title = t[2]; gsub(/^ +| +$/, "", title); head = size " " title }
{ line = $0; sub(/ *(↓|↑) *$/, "", line); text = text " " line }
END { flush() }
