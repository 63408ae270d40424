# One line per function body: "file:line name lines static|public", where a
# body is a "{" at column 0 up to the next "}" at column 0 (its signature
# is the last line before it that starts with a letter), or a one-line
# definition "type name(args) { ... }".
function emit(s, line, n) {
    vis = s ~ /^static / ? "static" : "public"
    sub(/\(.*/, "", s); k = split(s, w, /[ *]+/)
    print FILENAME ":" line " " w[k] " " n " " vis
}
FNR == 1 { inside = 0 }
/^\{/ && !inside { inside = 1; start = FNR; name = sig; next }
/^\}/ && inside { inside = 0; emit(name, start, FNR - start - 1); next }
!inside && /^[A-Za-z_][^=;]*\)[ \t]*\{.*\}[ \t]*$/ { emit($0, FNR, 1); next }
!inside && /^[A-Za-z_]/ { sig = $0 }
