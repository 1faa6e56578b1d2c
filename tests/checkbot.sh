#!/bin/sh
# checkbot.sh: refctl checkbot against good bots and misbehaving ones.
#
# Every example bot must pass with exit status 0.  Each evilbot.py mode
# that breaks the protocol must make checkbot exit 1 and name the
# problem in a FAIL line of the game.  evilbot.py answers '=' to every
# command it does not play, so it always fails some probes: for its
# well-behaved modes the test demands instead that no FAIL line comes
# from the game, so that checkbot cannot pass by accusing everything.
# Modes that fall silent run one variant with a 500 ms move limit.
#
# Exit: 0 pass, 1 fail, 99 hard error (automake's convention).

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
refctl=${REFCTL:-$top_builddir/refd/refctl}
evil="$top_srcdir/tests/evilbot.py"
tmp=${TMPDIR:-/tmp}/checkbot.$$
mkdir "$tmp" || exit 99
trap 'rm -rf "$tmp"' 0
trap 'exit 99' 1 2 15
if command -v timeout >/dev/null 2>&1; then
	tmo="timeout 60"
else
	tmo=
fi
for p in "$refctl" "$top_builddir/bots/randbot" "$top_builddir/bots/heurbot"; do
	[ -x "$p" ] || { echo "ERROR: $p not built"; exit 99; }
done
status=0

# run WANT NAME CHECKBOT-ARGS...: checkbot must exit WANT.
run() {
	want=$1
	name=$2
	shift 2
	$tmo "$refctl" checkbot "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: $name: exit status $got, expected $want"
		cat "$tmp/out" "$tmp/err"
		status=1
		return 1
	fi
	return 0
}

# good NAME COMMAND...: a correct bot passes every check, in all 8 variants.
good() {
	name=$1
	shift
	run 0 "$name" -- "$@" || return
	if ! grep -q '^checkbot: 18 checks passed, 0 problems$' "$tmp/out"; then
		echo "FAIL: $name: not every check passed"
		cat "$tmp/out"
		status=1
		return
	fi
	echo "ok: $name passes"
}

# bad MODE REGEX [OPTIONS]: evilbot MODE fails with REGEX in the game.
bad() {
	mode=$1
	re=$2
	shift 2
	run 1 "evilbot $mode" "$@" -- python3 "$evil" $mode || return
	if ! grep -q "^FAIL  [a-z0-9]* deal [0-9]*: .*$re" "$tmp/out"; then
		echo "FAIL: evilbot $mode: no game FAIL line matching '$re'"
		cat "$tmp/out"
		status=1
		return
	fi
	echo "ok: evilbot $mode: $(grep -m1 "^FAIL  [a-z0-9]* deal [0-9]*: .*$re" \
	    "$tmp/out" | cut -c1-100)"
}

# clean MODE: evilbot MODE plays every variant with no game problem.
clean() {
	mode=$1
	run 1 "evilbot $mode" -n 1 -- python3 "$evil" $mode || return
	if grep -q '^FAIL  \(joker3\|classic[234]\)' "$tmp/out" ||
	    [ "$(grep -c '^ok    \(joker3\|classic[234]\)' "$tmp/out")" != 4 ]; then
		echo "FAIL: evilbot $mode: the game found problems"
		cat "$tmp/out"
		status=1
		return
	fi
	echo "ok: evilbot $mode plays clean"
}

b=$top_builddir/bots
s=$top_srcdir/bots
good randbot "$b/randbot"
good heurbot "$b/heurbot"
good randbot.sh sh "$s/randbot.sh"
if command -v python3 >/dev/null 2>&1; then
	good randbot.py python3 "$s/randbot.py"
else
	echo "SKIP: python3 not found: randbot.py and evilbot.py"
	exit $status
fi
if command -v node >/dev/null 2>&1; then
	good randbot.js node "$s/randbot.js"
else
	echo "SKIP: randbot.js: node not found"
fi

clean good
clean stderrflood
bad garbage 'garbage, not an answer' -t 500 -V joker3
bad wrongid 'wrong id 10[0-9]*, expected' -n 1
bad illegal 'genplay answered [0-9]*[CDBS] (not in the hand)' -n 1
bad hang "no answer to '[0-9]* genplay" -t 500 -V joker3
bad crash 'end of file: the bot exited with status 3' -n 1
bad longline 'over-long line, 10[0-9]* bytes' -n 1
bad refuse "genplay refused ('?')" -n 1
bad notacard "genplay answered 'x' (not a card)" -n 1
bad noblank 'no blank line after the answer' -t 500 -V joker3

# A bot that never flushes: checkbot names the likely cause and gives up
# at once, rather than timing out once in every probe and variant.  The
# start-up limit follows -t (twice the move limit), so -t 500 makes the
# first answer due within 1000 ms.
t0=$(date +%s)
if run 1 "evilbot noflush" -t 500 -- python3 "$evil" noflush; then
	t1=$(date +%s)
	if ! grep -q "^FAIL  .*no answer to '[0-9]* [a-z_]*' within [0-9]* ms (the limit is 1000 ms).*flush" "$tmp/out"; then
		echo "FAIL: evilbot noflush: no FAIL line naming the flush"
		cat "$tmp/out"
		status=1
	elif [ $((t1 - t0)) -gt 15 ]; then
		echo "FAIL: evilbot noflush: $((t1 - t0)) s to fail"
		status=1
	elif [ "$(grep -c '^FAIL' "$tmp/out")" != 1 ]; then
		echo "FAIL: evilbot noflush: more than one run timed out"
		cat "$tmp/out"
		status=1
	else
		echo "ok: evilbot noflush: $((t1 - t0)) s: $(grep -m1 '^FAIL' "$tmp/out" | cut -c1-100)"
	fi
fi

# Usage and a bot that cannot be run exit 2.
run 2 "no command" && echo "ok: no command: exit 2"
run 2 "bad -n" -n 0 -- "$b/randbot" && echo "ok: bad -n: exit 2"
run 2 "bad variant" -V classic9 -- "$b/randbot" &&
    echo "ok: bad variant: exit 2"
# The tables beyond the first four: every example bot plays them, and
# in chiamata5 answers the auction.
for v in classic5 classic6 briscolone chiamata5; do
	for bot in "$b/randbot" "$b/heurbot" "sh $s/randbot.sh" \
	    "python3 $s/randbot.py" "node $s/randbot.js"; do
		command -v "${bot%% *}" >/dev/null 2>&1 || continue
		# shellcheck disable=SC2086
		run 0 "$v $bot" -n 3 -V $v -- $bot || continue
		if grep -q "^ok    $v, the bot in seat" "$tmp/out"; then
			echo "ok: $v $bot"
		else
			echo "FAIL: $v $bot: the variant not ok"
			cat "$tmp/out"
			status=1
		fi
	done
done
# A bot written for the other variants knows no genbid: checkbot refuses
# it before the match, as refd does.
sed 's/ genbid gencall / /; s/c == "genbid"/c == "x"/' "$s/randbot.sh" \
    >"$tmp/oldbot.sh"
if run 1 "chiamata5 old bot" -n 1 -V chiamata5 -- sh "$tmp/oldbot.sh"; then
	if grep -q "does not know the auction's commands.*needs genbid and gencall" "$tmp/out"; then
		echo "ok: chiamata5 old bot: exit 1, refused before the match"
	else
		echo "FAIL: chiamata5 old bot: genbid not named"
		status=1
	fi
fi
# A bot that plays the auction but says it does not know genbid is
# refused by refd before a chiamata5 match: checkbot says so, in refd's
# words, and does not call the variant ok.
sed 's/ genbid gencall / gencall /' "$s/randbot.sh" >"$tmp/nokc.sh"
if run 1 "chiamata5 nokc" -n 1 -V chiamata5 -- sh "$tmp/nokc.sh"; then
	if grep -q "^FAIL  chiamata5: seat [0-4] (checked) does not know the auction's commands: known_command answered =false" "$tmp/out" &&
	    ! grep -q "^ok    chiamata5" "$tmp/out"; then
		echo "ok: chiamata5 nokc: exit 1, refused as refd refuses it"
	else
		echo "FAIL: chiamata5 nokc: not refused as refd refuses it"
		cat "$tmp/out"
		status=1
	fi
fi
# A bot that keeps comments plays a word of genplay's trick comment:
# checkbot names the likely cause.
sed 's/|#\.\*//' "$s/randbot.sh" >"$tmp/nocomment.sh"
if run 1 "comment kept" -n 3 -V joker3 -- sh "$tmp/nocomment.sh"; then
	if grep -q "a word of the comment: does the bot ignore" "$tmp/out"
	then
		echo "ok: comment kept: exit 1, the comment named"
	else
		echo "FAIL: comment kept: the comment not named"
		grep '^FAIL' "$tmp/out" | head -3
		status=1
	fi
fi
# Notifications wait for the bot's next command, as refd holds them by
# default: in the game every write ends with a command that asks (the
# bot records which read brought each line).
# (The sandbox shows the bot only a directory named to it, writable by
# whoever it runs as.)
mkdir "$tmp/rec" && chmod 777 "$tmp/rec"
run 1 "evilbot chunks" -n 2 -V joker3 -- --dir="$tmp/rec" \
    python3 "$evil" chunks "$tmp/rec/chunks"
if python3 - "$tmp/rec/chunks" <<'PY'
import sys
reads = {}
for line in open(sys.argv[1]):
    n, text = line.split(" ", 1)
    reads.setdefault(int(n), []).append(text.split())
asked = ("name", "version", "known_command", "genplay", "genbid", "gencall",
         "quit", "list_commands", "protocol_version")
game = [r for n, r in sorted(reads.items())
        if any(w[1:2] == ["play"] for w in r)]
bad = [r for r in game if r[-1][1] not in asked]
sys.exit(0 if game and not bad else 1)
PY
then
	echo "ok: notifications leave with the bot's next command"
else
	echo "FAIL: checkbot wrote notifications apart from a command"
	status=1
fi
# With -e each notification is written at once, as under notify=eager:
# -v marks each write, and every play line leaves in a write of its own
# (how the bot's reads fall depends on the machine's timing; this does
# not).  Without -e, no play line ends a write.  match_start says so.
# playwrites FILE: how many play lines sent are written at once.
playwrites() {
	python3 - "$1" <<'PY'
import sys
sent = [l.split() for l in open(sys.argv[1])
        if l.startswith(">") or l.startswith("write")]
print(sum(1 for a, b in zip(sent, sent[1:])
          if a[2:3] == ["play"] and b[0] == "write"))
PY
}
run 0 "randbot -e -v" -e -v -n 1 -V joker3 -- "$top_builddir/bots/randbot" &&
    cp "$tmp/out" "$tmp/eager"
run 0 "randbot -v" -v -n 1 -V joker3 -- "$top_builddir/bots/randbot" &&
    cp "$tmp/out" "$tmp/lazy"
if [ "$(playwrites "$tmp/eager")" -gt 0 ] &&
    [ "$(playwrites "$tmp/lazy")" = 0 ] &&
    grep -q '^>.* match_start .*notify=eager' "$tmp/eager" &&
    ! grep -q 'notify=eager' "$tmp/lazy"; then
	echo "ok: -e: notifications leave at once"
else
	echo "FAIL: checkbot -e held notifications, or did not say notify=eager"
	status=1
fi
if run 2 "missing bot" -- "$tmp/no-such-bot"; then
	if grep -q 'cannot run' "$tmp/err"; then
		echo "ok: missing bot: exit 2"
	else
		echo "FAIL: missing bot: no 'cannot run' on stderr"
		cat "$tmp/err"
		status=1
	fi
fi
# without the sandbox refd's own child reports what it could not run
: >"$tmp/not-exec"
for c in "no-such-bot:No such file" "not-exec:Permission denied"; do
	if run 2 "missing bot, no sandbox" -S none -- "$tmp/${c%%:*}"; then
		if grep -q "cannot run $tmp/${c%%:*}: ${c#*:}" "$tmp/err"; then
			echo "ok: ${c%%:*}, no sandbox: exit 2, the reason said"
		else
			echo "FAIL: ${c%%:*}, no sandbox: no 'cannot run ...:" \
			    "${c#*:}' on stderr"
			cat "$tmp/err"
			status=1
		fi
	fi
done
exit $status
