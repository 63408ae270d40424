#!/bin/sh
# The Debian package round trip. 'dpkg-buildpackage -us -uc -b' builds the
# .deb in build/deb/src, a copy of this tree kept between runs so that only
# what changed is compiled again (-nc; the Makefile's dependencies decide).
# Then: lintian has no error or warning to report (its informational tags
# are in build/deb/lintian.txt); both binaries carry dpkg-buildflags'
# hardening (fortify's _chk calls, BIND_NOW); the boot path's libraries are
# Depends and the rest Recommends. dpkg installs the package into a private
# root (--instdir, its own --admindir, maintainer scripts chrootless with
# DPKG_ROOT: the host's /usr, /etc, /var and dpkg database are never
# touched) holding a fixture kernel; sluice and sluice-apply run there,
# 'boot install' enables the packaged unit, and 'dpkg --purge' leaves the
# root as it was before the install: nothing of sluice's left, nothing asked.
cd "$(dirname "$0")/../.." || exit 2
for t in dpkg-buildpackage dh dpkg-deb readelf; do
    command -v $t > /dev/null || { echo "skip deb/round-trip: no $t (apt-get install dpkg-dev debhelper binutils)"; exit 0; }
done
top=$PWD
tmp=$(mktemp -d "${TMPDIR:-/tmp}"/sluice-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
check() {   # name, condition (shell), file to show on failure
    if eval "$2"; then echo "ok deb/$1"; else echo "FAIL deb/$1"; [ -n "$3" ] && tail -15 "$3" | sed 's/^/  /'; fi
}

# The build copy: files whose content changed are copied (so they are newer
# than their objects), files gone from the tree are removed, debian/ is fresh.
work=build/deb
mkdir -p "$work/src"
find Makefile README.md src db ui profiles man loadfiles -type f | sort > "$tmp/want"
while read -r f; do
    cmp -s "$f" "$work/src/$f" || { mkdir -p "$work/src/$(dirname "$f")" && cp "$f" "$work/src/$f"; }
done < "$tmp/want"
(cd "$work/src" && find Makefile README.md src db ui profiles man loadfiles -type f 2> /dev/null | sort) > "$tmp/have"
comm -13 "$tmp/want" "$tmp/have" | while read -r f; do rm -f "$work/src/$f"; done
rm -rf "$work/src/debian" "$work"/sluice_*; cp -a debian "$work/src/debian"
(cd "$work/src" && DEB_BUILD_OPTIONS="parallel=2 nocheck" dpkg-buildpackage -us -uc -b -nc) > "$tmp/build.log" 2>&1
deb=$(ls "$work"/sluice_*.deb 2> /dev/null | head -1)
check builds '[ -n "$deb" ]' "$tmp/build.log"
[ -n "$deb" ] || exit 0

dpkg-deb -c "$deb" | awk '{print $6}' > "$tmp/contents"
for f in usr/sbin/sluice usr/sbin/sluice-apply usr/share/man/man8/sluice.8.gz usr/share/man/man8/sluice-apply.8.gz usr/share/man/man5/sluice-profile.5.gz \
         usr/lib/systemd/system/sluice-apply.service usr/share/bash-completion/completions/sluice \
         usr/share/sluice/profiles/latency.conf usr/share/doc/sluice/copyright; do
    check "holds-$f" 'grep -qx "./$f" "$tmp/contents"' "$tmp/contents"
done
check nothing-in-etc-or-local '! grep -qE "^\./(etc|usr/local)/" "$tmp/contents"' "$tmp/contents"

# Lintian: errors and warnings fail; the informational tags are kept for review.
if command -v lintian > /dev/null; then
    lintian --info --display-info --allow-root "$deb" > "$work/lintian.txt" 2>&1
    grep -E '^[EW]: ' "$work/lintian.txt" > "$tmp/lintian-ew"
    check lintian-no-errors-or-warnings '[ ! -s "$tmp/lintian-ew" ]' "$tmp/lintian-ew"
else
    echo "skip deb/lintian: no lintian (apt-get install lintian; make test-deps does it)"
fi

# dpkg-buildflags reached the compiler and the linker of both binaries.
mkdir "$tmp/x" && dpkg-deb -x "$deb" "$tmp/x"
for b in sluice sluice-apply; do
    readelf -W --dyn-syms "$tmp/x/usr/sbin/$b" > "$tmp/syms-$b"
    readelf -W -d "$tmp/x/usr/sbin/$b" > "$tmp/dyn-$b"
    check "hardening-fortify-$b" 'grep -qE "__[a-z]+_chk@" "$tmp/syms-$b"'
    check "hardening-bindnow-$b" 'grep -qE "BIND_NOW|FLAGS_1.*NOW" "$tmp/dyn-$b"' "$tmp/dyn-$b"
    check "hardening-relro-$b" 'readelf -W -l "$tmp/x/usr/sbin/$b" | grep -q GNU_RELRO'
done
# The boot path depends only on what applying needs; the rest is recommended.
dpkg-deb -f "$deb" Depends > "$tmp/depends"; dpkg-deb -f "$deb" Recommends > "$tmp/recommends"
check depends-boot-path-only 'grep -q libsqlite3 "$tmp/depends" && grep -q libinih "$tmp/depends" && ! grep -qE "libpq|libcurl|libgsl|libncurses" "$tmp/depends"' "$tmp/depends"
check recommends-the-rest 'grep -q libpq5 "$tmp/recommends" && grep -q libcurl "$tmp/recommends" && grep -q libgsl "$tmp/recommends"' "$tmp/recommends"
check apply-links-no-fleet-or-statistics-library '! grep -qE "libpq|libcurl|libgsl" "$tmp/dyn-sluice-apply"' "$tmp/dyn-sluice-apply"
check man-names-usr-share 'zcat "$tmp/x/usr/share/man/man8/sluice.8.gz" | grep -q /usr/share/sluice/profiles && ! zgrep -q /usr/local/share/sluice "$tmp/x/usr/share/man/man8/sluice.8.gz" "$tmp/x/usr/share/man/man5/sluice-profile.5.gz"'

# Installed into a private root holding a fixture kernel.
inst=$tmp/inst admin=$tmp/admin
cp -a tests/fixtures/modern "$inst"
# The directories a booted Debian system with systemd, udev and procps has (boot
# install writes into them; purge leaves them, as systemctl disable does).
mkdir -p "$inst/var/lib" "$inst/run" "$inst/etc/sysctl.d" "$inst/etc/udev/rules.d" \
    "$inst/etc/systemd/system/multi-user.target.wants" "$inst/etc/init.d" "$inst/usr/sbin" "$inst/run/systemd/system" \
    "$inst/etc/rc2.d" "$inst/etc/rc3.d" "$inst/etc/rc4.d" "$inst/etc/rc5.d"
# It has update-rc.d too (init-system-helpers; this host's runs, with DPKG_ROOT).
printf '#!/bin/sh\n' > "$inst/usr/sbin/update-rc.d"; chmod 755 "$inst/usr/sbin/update-rc.d"
mkdir -p "$admin/info" "$admin/updates" "$admin/triggers"
: > "$admin/status"; : > "$admin/available"
(cd "$inst" && find . | sort) > "$tmp/before"
dpkgp() { dpkg --admindir="$admin" --instdir="$inst" --force-not-root --force-script-chrootless --log="$tmp/dpkg.log" "$@"; }
dpkgp --force-depends -i "$deb" > "$tmp/install.log" 2>&1 < /dev/null
check installs 'dpkg-query --admindir="$admin" -W -f="\${Status}" sluice | grep -q "install ok installed"' "$tmp/install.log"
check unit-runs-sluice-apply 'grep -qx "ExecStart=/usr/sbin/sluice-apply apply --boot" "$inst/usr/lib/systemd/system/sluice-apply.service"'
check unit-not-enabled-by-install '[ ! -e "$inst/etc/systemd/system/multi-user.target.wants/sluice-apply.service" ]'
check completion-loads 'bash -c ". \"$inst/usr/share/bash-completion/completions/sluice\" && complete -p sluice" | grep -q _sluice'
run() { b=$1; shift; SLUICE_PROFILES="$inst/usr/share/sluice/profiles" "$inst/usr/sbin/$b" --root "$inst" --db "$inst/var/lib/sluice/sluice.db" "$@"; }
check runs '"$inst/usr/sbin/sluice" --version | grep -q "^sluice "'
check datadir-usr-share 'grep -q "/usr/share/sluice/profiles" "$inst/usr/sbin/sluice" && [ -f "$inst/usr/share/sluice/profiles/defaults.conf" ]'
run sluice apply latency > "$tmp/apply.log" 2>&1
check sluice-applies-in-the-root '[ "$(cat "$inst/proc/sys/vm/dirty_ratio")" = 10 ] && [ -f "$inst/var/lib/sluice/sluice.db" ]' "$tmp/apply.log"
run sluice boot install latency > "$tmp/boot.log" 2>&1
check boot-install-enables-the-packaged-unit '[ "$(readlink "$inst/etc/systemd/system/multi-user.target.wants/sluice-apply.service")" = /usr/lib/systemd/system/sluice-apply.service ] && [ ! -e "$inst/etc/systemd/system/sluice-apply.service" ]' "$tmp/boot.log"
run sluice-apply restore --crashed > "$tmp/boot-apply.log" 2>&1 && run sluice-apply apply --boot >> "$tmp/boot-apply.log" 2>&1
check sluice-apply-applies-at-boot '[ $? -eq 0 ] && grep -q latency "$tmp/boot-apply.log"' "$tmp/boot-apply.log"

# Purge after a System V install: the init script and the links update-rc.d made go too.
run sluice boot install latency --init sysv > "$tmp/sysv.log" 2>&1
check boot-install-sysv-by-update-rc-d '[ -L "$inst/etc/rc2.d/S01sluice-apply" ] && [ ! -e "$inst/etc/systemd/system/multi-user.target.wants/sluice-apply.service" ]' "$tmp/sysv.log"
dpkgp --purge sluice > "$tmp/purge.log" 2>&1 < /dev/null
(cd "$inst" && find . | sort) > "$tmp/after"
diff "$tmp/before" "$tmp/after" > "$tmp/left"
check purge-leaves-the-root-as-before '[ ! -s "$tmp/left" ] && ! dpkg-query --admindir="$admin" -W sluice > /dev/null 2>&1' "$tmp/left"
check host-dpkg-untouched '! dpkg-query -W sluice > /dev/null 2>&1'
exit 0
