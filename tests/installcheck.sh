#!/bin/sh
# tests/installcheck.sh: refd as installed, from the installed paths
# alone: the sample refd.conf read, the example bots spawned from their
# installed directory (as bot_user when this is root), a match and a
# tournament played and audited, the pages, the unit, and a program
# built against the installed libbriscola with pkg-config.  Nothing of
# the source or build tree is used.  Run by make installcheck (with
# make install's DESTDIR and directories), and by tests/package.sh on
# the installed Debian packages.
#
# usage: installcheck.sh DESTDIR SBINDIR BINDIR BOTSDIR LIBDIR INCLUDEDIR
#            MANDIR CONFDIR UNITDIR
set -e
[ $# -eq 9 ] || { echo "usage: $0 DESTDIR SBINDIR BINDIR BOTSDIR" \
    "LIBDIR INCLUDEDIR MANDIR CONFDIR UNITDIR" >&2; exit 2; }
d=$1
refd=$d$2/refd
refctl_bin=$d$3/refctl
bots=$d$4
libdir=$d$5
incdir=$d$6
mandir=$d$7
conf=$d$8/refd.conf
unit=$d$9/refd.service

fail() { echo "installcheck: $*" >&2; exit 1; }

for f in "$refd" "$refctl_bin" "$bots/heurbot" "$bots/randbot" \
    "$bots/randbot.py" "$bots/randbot.sh" "$bots/randbot.js"; do
	[ -x "$f" ] || fail "$f: not installed, or not executable"
done
for f in "$conf" "$unit" "$incdir/briscola.h" \
    "$libdir/pkgconfig/libbriscola.pc" \
    "$mandir/man1/refctl.1" "$mandir/man3/libbriscola.3" \
    "$mandir/man5/refd.conf.5" "$mandir/man5/refd-log.5" \
    "$mandir/man5/refd-tournament.5" "$mandir/man7/refd-protocol.7" \
    "$mandir/man7/refd-audit.7" "$mandir/man7/refd-standings.7" \
    "$mandir/man8/refd.8"; do
	# a package's pages are compressed
	[ -f "$f" ] || [ -f "$f.gz" ] || fail "$f: not installed"
done
# As root, spawned bots run as nobody: the installed bots must be theirs
# to run, which is what installing them under pkglibexecdir is for.
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null 2>&1; then
	runuser -u nobody -- test -x "$bots/heurbot" ||
	    fail "$bots/heurbot: nobody, the bot user, cannot execute it"
fi

t=$(mktemp -d "${TMPDIR:-/tmp}/refd-installcheck.XXXXXX")
pid=
cleanup() {
	[ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
	rm -rf "$t"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The library: a program built with pkg-config's flags alone.
cat >"$t/bri.c" <<'C'
#include <stdio.h>
#include <briscola.h>
int
main(void)
{
	enum bri_variant v;

	if (bri_init() != BRI_OK || bri_variant_parse("joker3", &v) != BRI_OK)
		return 1;
	printf("%s %d\n", bri_variant_name(v), bri_variant_seats(v));
	return 0;
}
C
pc="PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d"
flags=$(env $pc pkg-config --cflags --libs libbriscola) ||
    fail "pkg-config libbriscola failed"
${CC:-cc} -o "$t/bri" "$t/bri.c" $flags || fail "cannot build against libbriscola"
out=$(LD_LIBRARY_PATH=$libdir "$t/bri") || fail "libbriscola program failed"
[ "$out" = "joker3 3" ] || fail "libbriscola program printed '$out'"
echo "installcheck: a program built against libbriscola runs: $out"

# The unit, where systemd's tools are (without its man pages, which a
# DESTDIR install does not put where man looks).
if command -v systemd-analyze >/dev/null 2>&1; then
	[ -n "$d" ] || systemd-analyze verify --man=no "$unit" ||
	    fail "$unit: systemd-analyze verify failed"
fi

# refd from its installed path, the sample configuration read, its
# state in a directory of its own.
mkdir "$t/state"
cd "$t/state"
"$refd" -D refd.db -c refd.sock -L botlogs -f "$conf" 2>"$t/refd.err" &
pid=$!
refctl() { "$refctl_bin" -c "$t/state/refd.sock" "$@"; }
i=0
until refctl status >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 200 ] || ! kill -0 "$pid" 2>/dev/null; then
		cat "$t/refd.err" >&2
		fail "the installed refd did not start"
	fi
	sleep 0.05
done

refctl bot add heur -- "$bots/heurbot" >/dev/null
refctl bot add crand -- "$bots/randbot" >/dev/null
# the system's interpreter, which the bot user can run (not a shim
# under a private home that PATH may name first)
py=python3
[ ! -x /usr/bin/python3 ] || py=/usr/bin/python3
refctl bot add python -- $py "$bots/randbot.py" >/dev/null
refctl bot add awk -- sh "$bots/randbot.sh" >/dev/null
out=$(refctl match --variant joker3 heur python awk) ||
    { cat "$t/refd.err" >&2; fail "the match failed: $out"; }
echo "$out" | grep -q 'played out' ||
    { cat "$t/refd.err" >&2; fail "the match did not play out: $out"; }
echo "installcheck: $(echo "$out" | tail -n 1)"

cat >"$t/ic.tour" <<TOUR
name installcheck
variant joker3
format roundrobin
bot heur2 spawn $bots/heurbot
bot crand2 spawn $bots/randbot
bot node2 spawn node $bots/randbot.js
bot awk2 spawn sh $bots/randbot.sh
bots heur2 crand2 awk2$(command -v node >/dev/null 2>&1 && echo ' node2')
matches 12
concurrency 2
move_ms 5000
TOUR
refctl tournament run "$t/ic.tour" --wait >"$t/tour.out" 2>&1 ||
    { cat "$t/tour.out" "$t/refd.err" >&2; fail "the tournament failed"; }
grep -q 'tournament [0-9]* started' "$t/tour.out" ||
    { cat "$t/tour.out" >&2; fail "no tournament started"; }
echo "installcheck: tournament of 12 matches played"
refctl shutdown >/dev/null
wait "$pid" || fail "refd exited $?"
pid=

"$refctl_bin" audit --db refd.db --all >"$t/audit.out" 2>&1 ||
    { cat "$t/audit.out" >&2; fail "the log does not audit"; }
echo "installcheck: $(tail -n 1 "$t/audit.out")"
echo "installcheck: passed"
