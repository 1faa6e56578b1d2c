#!/bin/sh
# tests/package.sh: the Debian packages of debian/ built with
# dpkg-buildpackage -b -us -uc from a copy of this tree, checked by
# lintian (no error), installed with dpkg -i, a tournament played and
# audited from the installed paths alone (tests/installcheck.sh), the
# unit verified, then removed and purged, leaving none of their files.
# Prints lintian's warnings, the packages' installed sizes and the
# unit's systemd-analyze security score.
#
# It installs into /usr on this machine, as root: so it is not part of
# make check, which must never depend on an installed refd; CI (.ci/run)
# runs it after scripts/check.  It refuses to run where refd or
# libbriscola is installed already, and always removes what it
# installed.  Where dpkg-buildpackage is missing it says so and exits 77.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "package: $*"; }
fail() { echo "package: FAILED: $*" >&2; exit 1; }

if ! command -v dpkg-buildpackage >/dev/null 2>&1; then
	say "skipped: dpkg-buildpackage is missing (scripts/setup installs it)"
	exit 77
fi
[ "$(id -u)" -eq 0 ] || fail "dpkg -i needs root"
pkgs="refd libbriscola2 libbriscola-dev"
# one run at a time on this machine, and none over another's install
exec 9>/var/lock/refd-package-test.lock
flock 9
for p in $pkgs; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q 'installed'; then
		fail "$p is installed already: remove it first"
	fi
done

t=$(mktemp -d "${TMPDIR:-/tmp}/refd-package.XXXXXX")
installed=
cleanup() {
	[ -z "$installed" ] || dpkg --purge $pkgs >/dev/null 2>&1 || true
	rm -rf "$t"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The tracked files of this tree, as they are, in a directory of their
# own: dpkg-buildpackage writes the packages beside the source.
mkdir "$t/src" "$t/src/refd"
(cd "$top" && git ls-files -z | xargs -0 tar cf - --) | tar xf - -C "$t/src/refd" ||
    fail "cannot copy the tracked files of $top"
say "building the packages (dpkg-buildpackage -b -us -uc)"
(cd "$t/src/refd" && DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" \
    nice dpkg-buildpackage -b -us -uc) >"$t/build.log" 2>&1 ||
    { tail -n 40 "$t/build.log" >&2; fail "dpkg-buildpackage failed"; }
changes=$(ls "$t"/src/*.changes)
for p in $pkgs; do
	ls "$t"/src/${p}_*.deb >/dev/null 2>&1 || fail "no package $p built"
done

# lintian: no error; the warnings are listed
lintian --tag-display-limit 0 "$changes" >"$t/lintian.out" 2>&1 || true
errors=$(grep -c '^E:' "$t/lintian.out" || true)
warnings=$(grep -c '^W:' "$t/lintian.out" || true)
say "lintian: $errors errors, $warnings warnings"
grep '^[EW]:' "$t/lintian.out" | sed 's/^/package:   /' || true
[ "$errors" -eq 0 ] || fail "lintian reports errors"

# install, and what the packages hold
installed=yes
debs=
for p in $pkgs; do
	debs="$debs $(ls "$t"/src/${p}_*.deb)"
done
dpkg -i $debs >"$t/dpkg.out" 2>&1 ||
    { cat "$t/dpkg.out" >&2; fail "dpkg -i failed"; }
files=$(dpkg -L $pkgs | sort -u)
for p in $pkgs; do
	say "$p installed: $(dpkg-query -W -f='${Installed-Size}' "$p") KiB"
done
command -v refd >/dev/null && command -v refctl >/dev/null ||
    fail "refd and refctl are not on the PATH"

# the unit, as installed
unit=/lib/systemd/system/refd.service
if command -v systemd-analyze >/dev/null 2>&1; then
	# its man: pages are looked up where man is
	man=no
	! command -v man >/dev/null 2>&1 || man=yes
	systemd-analyze verify --man=$man "$unit" ||
	    fail "systemd-analyze verify $unit"
	score=$(systemd-analyze security --offline=true "$unit" 2>/dev/null |
	    sed -n 's/.*Overall exposure level for refd.service: //p')
	say "systemd-analyze security: $score"
fi

# a match, a tournament and their audit from the installed paths alone
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
cd "$t"
sh "$top/tests/installcheck.sh" '' /usr/sbin /usr/bin /usr/libexec/refd/bots \
    "/usr/lib/$arch" /usr/include /usr/share/man /etc/refd \
    /lib/systemd/system || fail "installcheck of the installed packages"

# removed, then purged: none of their files is left
dpkg --remove $pkgs >"$t/dpkg.out" 2>&1 ||
    { cat "$t/dpkg.out" >&2; fail "dpkg --remove failed"; }
[ -f /etc/refd/refd.conf ] || fail "dpkg --remove took the conffile"
dpkg --purge $pkgs >"$t/dpkg.out" 2>&1 ||
    { cat "$t/dpkg.out" >&2; fail "dpkg --purge failed"; }
installed=
left=
for f in $files; do
	# a file or a link of theirs, not a directory such as /lib
	if [ -f "$f" ] || { [ -L "$f" ] && [ ! -d "$f" ]; }; then
		left="$left $f"
	fi
done
[ ! -e /etc/refd ] || left="$left /etc/refd"
[ ! -e /etc/systemd/system/multi-user.target.wants/refd.service ] ||
    left="$left /etc/systemd/system/multi-user.target.wants/refd.service"
[ -z "$left" ] || fail "left after the purge:$left"
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed' &&
	    fail "$p still installed"
done
say "removed and purged: no file left"
say "passed"
