# Lines outside the sysfs module that open a /proc, /sys or /etc path
# themselves: the call's path argument is a literal naming one, a macro
# defined as one (-v macros="A|B"), or a buffer the same function formatted
# from one. Prints "file:line: text".
BEGIN {
    opens = "(open|fopen|opendir|openat|stat|lstat|access|readlink|realpath|unlink|rename|mkdir|rmdir|remove|creat|truncate|chmod|chown|symlink|link)"
    kpath = "\"/(proc|sys|etc)[/\"]"
}
FNR == 1 || /^\{/ || /^\}/ { bufs = "" }
/^[ \t]*(\/?\*|\/\/)/ { next }
{
    line = $0
    if (match(line, "snprintf[ \t]*\\([ \t]*[A-Za-z_]+[ \t]*,[^\"]*" kpath)) {
        b = substr(line, RSTART, RLENGTH)
        sub(/snprintf[ \t]*\([ \t]*/, "", b); sub(/[ \t]*,.*/, "", b)
        bufs = bufs "|" b
    }
    names = macros bufs
    sub(/^\|/, "", names)
    args = kpath (names != "" ? "|(" names ")([^A-Za-z0-9_]|$)" : "")
    if (match(line, "(^|[^A-Za-z0-9_.>])" opens "[ \t]*\\(([^,()]*,[ \t]*)?(" args ")"))
        print FILENAME ":" FNR ": " line
}
