#!/bin/sh
# The Debian package round trip: 'dpkg-buildpackage -us
# -uc -b' builds a .deb from a copy of this tree; it holds the binary, man
# pages, profiles, unit and completion, and no maintainer script; installed
# by dpkg into a private root with its own dpkg database (the host's /usr,
# /etc and dpkg database are never touched) it runs 'sluice --version',
# names /usr/share/sluice as its DATADIR, and purging it leaves nothing.
cd "$(dirname "$0")/../.." || exit 2
for t in dpkg-buildpackage dh dpkg-deb; do
    command -v $t > /dev/null || { echo "skip deb/round-trip: no $t (apt-get install dpkg-dev debhelper)"; exit 0; }
done
tmp=$(mktemp -d /tmp/sluice-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
check() {   # name, condition (shell), file to show on failure
    if eval "$2"; then echo "ok deb/$1"; else echo "FAIL deb/$1"; [ -n "$3" ] && tail -15 "$3" | sed 's/^/  /'; fi
}
mkdir "$tmp/src"
tar -cf - --exclude=./build --exclude=./sluice --exclude=./.git . | tar -xf - -C "$tmp/src"
(cd "$tmp/src" && DEB_BUILD_OPTIONS="parallel=2 nocheck" dpkg-buildpackage -us -uc -b) > "$tmp/build.log" 2>&1
deb=$(ls "$tmp"/sluice_*.deb 2> /dev/null | head -1)
check builds '[ -n "$deb" ]' "$tmp/build.log"
[ -n "$deb" ] || exit 0
dpkg-deb -c "$deb" | awk '{print $6}' > "$tmp/contents"
for f in usr/sbin/sluice usr/share/man/man8/sluice.8.gz usr/share/man/man5/sluice-profile.5.gz \
         usr/lib/systemd/system/sluice-apply.service usr/share/bash-completion/completions/sluice \
         usr/share/sluice/profiles/latency.conf usr/share/doc/sluice/copyright; do
    check "holds-$f" 'grep -qx "./$f" "$tmp/contents"' "$tmp/contents"
done
check nothing-in-etc-or-local '! grep -qE "^\./(etc|usr/local)/" "$tmp/contents"' "$tmp/contents"
dpkg-deb -I "$deb" > "$tmp/info"
check no-maintainer-scripts '! grep -qE " (preinst|postinst|prerm|postrm) " "$tmp/info"' "$tmp/info"
check depends-from-shlibs 'grep -q "^ Depends: .*libsqlite3" "$tmp/info"' "$tmp/info"
# Install into a private root with its own dpkg database.
inst=$tmp/inst admin=$tmp/admin
mkdir -p "$inst" "$admin/info" "$admin/updates" "$admin/triggers"
: > "$admin/status"; : > "$admin/available"
dpkgp() { dpkg --admindir="$admin" --instdir="$inst" --force-not-root --force-script-chrootless --log="$tmp/dpkg.log" "$@"; }
dpkgp --force-depends -i "$deb" > "$tmp/install.log" 2>&1
check installs 'dpkg-query --admindir="$admin" -W -f="\${Status}" sluice | grep -q "install ok installed"' "$tmp/install.log"
check runs '"$inst/usr/sbin/sluice" --version | grep -q "^sluice "'
check datadir-usr-share 'grep -q "/usr/share/sluice/profiles" "$inst/usr/sbin/sluice" && [ -f "$inst/usr/share/sluice/profiles/defaults.conf" ]'
check unit-runs-usr-sbin 'grep -qx "ExecStart=/usr/sbin/sluice apply --boot" "$inst/usr/lib/systemd/system/sluice-apply.service"'
check completion-loads 'bash -c ". \"$inst/usr/share/bash-completion/completions/sluice\" && complete -p sluice" | grep -q _sluice'
check man-page-renders 'man -l "$inst/usr/share/man/man8/sluice.8.gz" 2> /dev/null | grep -q "AUDIT"'
dpkgp --purge sluice > "$tmp/purge.log" 2>&1
check purges-clean '[ -z "$(find "$inst" ! -type d)" ] && ! dpkg-query --admindir="$admin" -W sluice > /dev/null 2>&1' "$tmp/purge.log"
check host-dpkg-untouched '! dpkg-query -W sluice > /dev/null 2>&1'
