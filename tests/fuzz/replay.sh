#!/bin/sh
# Replay each fuzz target's seed corpus (tests/fuzz/corpus/TARGET) and
# regression inputs (tests/fuzz/regress/TARGET, each once a crash)
# through its replay driver: every target is built and run by make
# check, with or without clang.
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
fail=0
for t in botline ctlcmd card tdef conf audit; do
	set --
	for d in corpus regress; do
		[ -d "$top_srcdir/tests/fuzz/$d/$t" ] &&
			set -- "$@" "$top_srcdir/tests/fuzz/$d/$t"
	done
	if "$top_builddir/tests/fuzz/replay_$t" "$@"; then
		echo "PASS: $t"
	else
		echo "FAIL: $t (exit $?)"
		fail=1
	fi
done
exit $fail
