#!/bin/sh
# test-bots.sh: a protocol smoke test of every example bot, without refd.
#
# Each bot gets the same scripted session, written all at once as refd
# may pipeline it, with CR LF and LF line ends, a comment, a blank line
# and a tab mixed in.  An awk checker then demands, for every command up
# to quit: an answer with the command's id, in order, ended by a blank
# line; a card of the given hand for each genplay; '?' for an unknown
# command; and nothing after quit.  The checker is itself checked on
# broken answers, so that it cannot pass by accepting anything.
#
# Exit: 0 pass, 1 fail, 99 hard error (automake's convention).

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
tmp=${TMPDIR:-/tmp}/test-bots.$$
mkdir "$tmp" || exit 99
trap 'rm -rf "$tmp"' 0
trap 'exit 99' 1 2 15
if command -v timeout >/dev/null 2>&1; then
	tmo="timeout 30"
else
	tmo=
fi

commit=8f5c1a2e9b7d4c3f0a6e1b2d3c4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5
seed=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
# The session, from seat 1's chair in joker3; odd lines get CR LF.
awk '{ printf "%s%s\n", $0, NR % 2 ? "\r" : "" }' >"$tmp/session" <<EOT
1 protocol_version
2 name
3 version
# refd never sends comments, but a bot must ignore them

4 known_command genplay
5 known_command frobnicate
6 list_commands
7 match_start match=42 variant=joker3 seat=1 seats=a,b,c commit=$commit target=10 deal_cap=100 move_ms=1000 future=yes
8 deal_start 1 2 4S 1B 10D 3C
9 play 0 5B
10 genplay 1000 1B 10D 3C
11 play 1 10D
12	play 2 4S
13 joker 2
14 trick 2 4
15 draw 7D
16 play 2 1C
17 play 0 6C   # a comment after a command
18 genplay 990 1B 3C 7D
19 play 1 3C
20 trick 1 21
21 draw 2S
22 frobnicate 1 2 3
23 genplay 1000 1B 7D 2S
24 play 1 2S
25 play 2 5D
26 play 0 3S
27 trick 0 10
28 partner_hand 1D 5C 7B
29 deal_end joker 70,21,29 0,0,2 2D
30 match_end seat2 3,4,10 $seed $commit
31 quit
32 name
EOT
# Without quit: the bot must answer and exit at end of file.
printf '1 protocol_version\r\n2 genplay 1 9S\r\n' >"$tmp/eof"

# The checker: argv is the session then the bot's output.
cat >"$tmp/check.awk" <<'EOT'
function fail(m) { print "  " m; bad = 1 }
FNR == NR {
	gsub(/\r/, ""); sub(/#.*/, "")
	if (split($0, a, " ") == 0 || quit)
		next
	n++; id[n] = a[1]; cmd[n] = a[2]; hand[n] = " "
	for (i = 4; a[i] != ""; i++)
		hand[n] = hand[n] a[i] " "
	arg[n] = a[3]
	if (a[2] == "quit")
		quit = 1
	next
}
{
	if (!inans) {
		if ($0 == "") { fail("blank line where an answer should start"); next }
		k++
		if (k > n) { fail("answer after the last command: " $0); next }
		if (substr($0, 2, length(id[k])) != id[k] || \
		    substr($0, 1, 1) !~ /[=?]/ || \
		    substr($0, length(id[k]) + 2) !~ /^( |$)/) {
			fail("answer " k " '" $0 "' is not =" id[k] " or ?" id[k])
			inans = 1; next
		}
		kind = substr($0, 1, 1); text = substr($0, length(id[k]) + 3)
		c = cmd[k]
		if (c == "genplay" && (kind != "=" || index(hand[k], " " text " ") == 0 || text == ""))
			fail("genplay " id[k] ": '" $0 "' is not a card of" hand[k])
		if (c == "frobnicate" && kind != "?")
			fail("unknown command " id[k] " answered '" $0 "'")
		if (c == "protocol_version" && $0 != "=" id[k] " 2")
			fail("protocol_version answered '" $0 "'")
		if (c == "known_command" && $0 != "=" id[k] " " \
		    (arg[k] == "genplay" ? "true" : "false"))
			fail("known_command " arg[k] " answered '" $0 "'")
		if (c == "quit" && $0 != "=" id[k])
			fail("quit answered '" $0 "'")
		lines = (c == "list_commands" && text == "genplay") ? 1 : 0
		inans = 1
		next
	}
	if ($0 == "") {
		if (cmd[k] == "list_commands" && !lines)
			fail("list_commands does not list genplay")
		inans = 0
		next
	}
	if (cmd[k] != "list_commands")
		fail("answer " id[k] " has a second line '" $0 "'")
	else if ($0 == "genplay")
		lines = 1
}
END {
	if (inans)
		fail("the last answer has no blank line after it")
	if (k < n)
		fail("answered " k " of " n " commands")
	exit bad
}
EOT

status=0
tested=0

# check NAME FILE...: run the checker, report under NAME.
check() {
	if awk -f "$tmp/check.awk" "$2" "$3" >"$tmp/why" 2>&1; then
		return 0
	fi
	echo "FAIL: $1"
	cat "$tmp/why"
	return 1
}

# live NAME COMMAND...: a command answered while the input stays open,
# as refd keeps it open; a bot that held its answers until end of file
# would stall every match.  Up to 20 s, for a busy machine.
live() {
	name=$1
	shift
	rm -f "$tmp/lpid"
	sh -c 'echo $$ >"$0"; printf "1 name\n"; exec sleep 25' "$tmp/lpid" \
	    2>/dev/null | "$@" >"$tmp/live" 2>/dev/null &
	i=0
	until grep -q '^=1 ' "$tmp/live"; do
		i=$((i + 1))
		[ $i -gt 200 ] && break
		sleep 0.1
	done
	[ -s "$tmp/lpid" ] && kill "$(cat "$tmp/lpid")" 2>/dev/null
	[ $i -le 200 ] && return 0
	echo "FAIL: $name: no answer while the input is open"
	return 1
}

# bot NAME COMMAND...: run the session and the end-of-file test.
bot() {
	name=$1
	shift
	tested=$((tested + 1))
	if ! $tmo "$@" <"$tmp/session" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL: $name: exit status $? on the session"
		cat "$tmp/err"
		status=1
		return
	fi
	ok=1
	check "$name" "$tmp/session" "$tmp/out" || ok=0
	if ! $tmo "$@" <"$tmp/eof" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL: $name: exit status $? at end of file"
		status=1
		return
	fi
	check "$name at end of file" "$tmp/eof" "$tmp/out" || ok=0
	live "$name" "$@" || ok=0
	if [ $ok = 1 ]; then
		echo "ok: $name"
	else
		status=1
	fi
}

# Skip an interpreted bot only when its interpreter is missing.
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "SKIP: $2: $1 not found"
	return 1
}

b=$top_builddir/bots
s=$top_srcdir/bots
for p in "$b/randbot" "$b/heurbot"; do
	[ -x "$p" ] || { echo "ERROR: $p not built"; exit 99; }
done
bot randbot "$b/randbot"
bot "randbot -s 7" "$b/randbot" -s 7
bot heurbot "$b/heurbot"
bot randbot.sh sh "$s/randbot.sh"
bot "randbot.sh 7" sh "$s/randbot.sh" 7
need python3 randbot.py && bot randbot.py python3 "$s/randbot.py"
need node randbot.js && bot randbot.js node "$s/randbot.js"

# With -s the C randbot must repeat itself.
"$b/randbot" -s 7 <"$tmp/session" >"$tmp/a"
"$b/randbot" -s 7 <"$tmp/session" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "FAIL: randbot -s 7 differs"; status=1; }

# An over-long line is one unknown command, and the next line still counts.
{ awk 'BEGIN { s = "1 "; for (i = 0; i < 9000; i++) s = s "x"; print s }'
  printf '2 name\n'; } | "$b/randbot" >"$tmp/long"
[ "$(grep -c '^?' "$tmp/long")" = 1 ] && grep -q '^=2 randbot$' "$tmp/long" ||
	{ echo "FAIL: randbot on an over-long line"; cat "$tmp/long"; status=1; }

# The checker must reject broken answers: a card not in the hand, a wrong
# id, a missing blank line, '=' to an unknown command, extra answers.
"$b/randbot" -s 1 <"$tmp/session" >"$tmp/good"
check "checker on good answers" "$tmp/session" "$tmp/good" || status=1
sed 's/^=23 .*/=23 1C/' "$tmp/good" >"$tmp/bad1"
sed 's/^=9$/=90/' "$tmp/good" >"$tmp/bad2"
awk 'NR != 2' "$tmp/good" >"$tmp/bad3"
sed 's/^?22 .*/=22/' "$tmp/good" >"$tmp/bad4"
{ cat "$tmp/good"; printf '=32 randbot\n\n'; } >"$tmp/bad5"
sed '/^=31$/,$d' "$tmp/good" >"$tmp/bad6"
for f in bad1 bad2 bad3 bad4 bad5 bad6; do
	if awk -f "$tmp/check.awk" "$tmp/session" "$tmp/$f" >/dev/null 2>&1; then
		echo "FAIL: the checker accepted $f"
		status=1
	fi
done

echo "$tested bots tested"
exit $status
