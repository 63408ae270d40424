#!/bin/sh
# Install the Debian packages named as arguments that are not installed yet.
# Run as root directly or through sudo; does nothing when all are present.
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "sluice: missing Debian packages:$missing" >&2
    echo "sluice: run 'sudo make run' (or install them with apt-get) and try again" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# Packages are installed for their programs, never to run services: while
# apt-get runs, a policy-rc.d (unless the machine has its own) forbids
# starting any, and openssh-server's ssh.service, which its postinst enables
# for the next boot, is disabled again (tests/net starts its own sshd).
policy=/usr/sbin/policy-rc.d
if [ ! -e $policy ]; then
    printf '#!/bin/sh\n# sluice tests/tools/debs.sh: no service starts while it installs packages\nexit 101\n' > $policy
    chmod 755 $policy
    trap 'rm -f $policy' EXIT INT TERM
fi
apt-get install -y -q $missing >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q $missing; } || {
    echo "sluice: apt-get could not install:$missing" >&2; exit 1; }
case " $missing " in *" openssh-server "*)
    if command -v systemctl > /dev/null; then systemctl disable --quiet ssh.service 2>/dev/null; fi
    if command -v update-rc.d > /dev/null; then update-rc.d ssh disable > /dev/null 2>&1; fi
    echo "openssh-server: installed for tests/net's own sshd; the system's ssh service is left disabled" ;;
esac
exit 0
