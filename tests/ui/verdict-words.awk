# A verdict ends with its conclusion: this checks that each screen a UI
# test dumped shows its verdict's last words. `words` holds one phrase per
# dumped screen, in order ("a|b|c"; "-" checks nothing on that screen).
# Each screen's lines are joined first, so a sentence wrapped over lines is
# whole again; a verdict cut at the edge or after a few lines is not.
# Prints "SIZE TITLE: on screen: PHRASE" or "... MISSING: PHRASE". Usage,
# in a test's after:
#   awk -v words='...' -f "$(dirname "$0")/../verdict-words.awk" "$TMP/dump"
function flush() {
    if (head == "") return
    gsub(/ +/, " ", text)
    if (w[k] != "-" && w[k] != "") print head ": " (index(text, w[k]) ? "on screen: " : "MISSING: ") w[k]
    head = ""
}
BEGIN { n = split(words, w, "|") }
/^--- screen / { flush(); k++; size = $3; first = 1; text = ""; next }
first { first = 0; split($0, t, "│"); title = t[2]; gsub(/^ +| +$/, "", title); head = size " " title }
{ line = $0; sub(/ *(↓|↑) *$/, "", line); text = text " " line }
END { flush() }
