# Includes against the layer order. Input: "file:line:#include "name"" lines
# (grep -n); -v layers: the table of run.sh (a layer a line: its name, the
# extended regexps of the paths it holds, then words); -v headers: the
# project's headers, one path a line. A bare name is found as the compiler
# finds it (the including file's folder, then the -I folders of the
# Makefile: src, then the top); "probe/probe.h" is under src/. Names found nowhere (system and
# generated headers) are not layered.
function layer_of(path,    i, best, len) {
    best = 0; len = -1
    for (i = 1; i <= npat; i++)
        if (match(path, pat[i]) && RLENGTH > len) { len = RLENGTH; best = patlayer[i] }
    return best
}
function resolve(from, name,    dir, i, p) {
    dir = from; sub(/\/[^\/]*$/, "", dir)
    if ((dir "/" name) in known) return dir "/" name
    for (i = 1; i <= ninc; i++) { p = (inc[i] == "." ? "" : inc[i] "/") name; if (p in known) return p }
    return ""
}
BEGIN {
    n = split(layers, rows, "\n")
    for (r = 1; r <= n; r++) {
        s = rows[r]; sub(/^[ \t]+/, "", s)
        if (s == "") continue
        k = split(s, w, /[ \t]+/)
        nlayer++; name[nlayer] = w[1]
        for (i = 2; i <= k; i++) if (w[i] ~ /^\^/) { pat[++npat] = w[i]; patlayer[npat] = nlayer }
    }
    m = split(headers, hs, "\n")
    for (i = 1; i <= m; i++) if (hs[i] != "") known[hs[i]] = 1
    ninc = split("src .", inc, " ")   # the Makefile's -I folders: "core/sysfs.h", "db/store.h", "ui/app.h"
}
{
    file = $0; sub(/:.*/, "", file)
    line = $0; sub(/^[^:]*:/, "", line); sub(/:.*/, "", line)
    inc_name = $0; sub(/^[^"]*"/, "", inc_name); sub(/".*/, "", inc_name)
    target = resolve(file, inc_name)
    if (target == "") next
    a = layer_of(file); b = layer_of(target)
    if (a && b && b > a)
        print file ":" line ": includes " target " (layer " name[b] ") from layer " name[a] ", which is below it"
}
