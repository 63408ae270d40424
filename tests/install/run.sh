#!/bin/sh
# `make install` honours PREFIX and DESTDIR and installs what it promises.
cd "$(dirname "$0")/../.." || exit 2
dest=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-install.XXXXXX)
trap 'rm -rf "$dest"' EXIT
if ! make -s install DESTDIR="$dest" PREFIX=/opt/sl > "$dest.log" 2>&1; then
    echo "FAIL install/make-install"; sed 's/^/  /' "$dest.log" | tail -5; rm -f "$dest.log"; exit 0
fi
rm -f "$dest.log"
for f in sbin/sluice sbin/sluice-apply share/man/man8/sluice.8 share/man/man5/sluice-profile.5 lib/systemd/system/sluice-apply.service \
         share/bash-completion/completions/sluice; do
    if [ -f "$dest/opt/sl/$f" ]; then echo "ok install/$f"; else echo "FAIL install/$f"; echo "  missing $dest/opt/sl/$f"; fi
done
for p in profiles/*.conf; do
    [ -f "$p" ] || continue
    if [ -f "$dest/opt/sl/share/sluice/profiles/$(basename "$p")" ]; then echo "ok install/$p"
    else echo "FAIL install/$p"; echo "  not installed"; fi
done
# The unit runs the installed binary, and the binary looks for profiles where they were installed.
# The unit runs the lean binary (no libpq, libcurl, GSL), installed beside sluice.
if grep -qx 'ExecStart=/opt/sl/sbin/sluice-apply apply --boot' "$dest/opt/sl/lib/systemd/system/sluice-apply.service" 2>/dev/null; then
    echo "ok install/unit-execstart"; else echo "FAIL install/unit-execstart"; fi
if grep -q '/opt/sl/share/sluice' "$dest/opt/sl/sbin/sluice"; then echo "ok install/datadir-compiled-in"
else echo "FAIL install/datadir-compiled-in"; echo "  the binary does not name /opt/sl/share/sluice"; fi
if grep -q '/opt/sl/share/sluice/profiles' "$dest/opt/sl/share/man/man8/sluice.8" "$dest/opt/sl/share/man/man5/sluice-profile.5" \
   && ! grep -q '/usr/local/share/sluice' "$dest/opt/sl/share/man/man8/sluice.8" "$dest/opt/sl/share/man/man5/sluice-profile.5"; then
    echo "ok install/man-pages-name-the-installed-profile-dir"
else echo "FAIL install/man-pages-name-the-installed-profile-dir"; grep -n 'share/sluice' "$dest/opt/sl/share/man/man8/sluice.8" | head -3 | sed 's/^/  /'; fi
if "$dest/opt/sl/sbin/sluice" --version | grep -q '^sluice '; then echo "ok install/runs"; else echo "FAIL install/runs"; fi
if "$dest/opt/sl/sbin/sluice-apply" --version | grep -q '^sluice '; then echo "ok install/apply-runs"; else echo "FAIL install/apply-runs"; fi
needed=$(readelf -d "$dest/opt/sl/sbin/sluice-apply" 2>/dev/null | grep NEEDED)
if [ -n "$needed" ] && ! echo "$needed" | grep -qE 'libpq|libcurl|libgsl|libncurses|libxml2|libcrypto|libzstd|liburing'; then
    echo "ok install/apply-links-no-fleet-or-statistics-library"
else echo "FAIL install/apply-links-no-fleet-or-statistics-library"; echo "$needed" | sed 's/^/  /'; fi
[ -z "$(find "$dest" -path "$dest/opt" -prune -o -type f -print)" ] && echo "ok install/only-under-destdir-prefix" \
    || { echo "FAIL install/only-under-destdir-prefix"; find "$dest" -type f | grep -v "^$dest/opt" | sed 's/^/  /'; }
