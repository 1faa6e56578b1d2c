#!/usr/bin/env python3
"""clocks.py: a bot is charged its own time, exactly, and never refd's.

Against a real refd on loopback:
- a genplay queued behind a notification the bot is slow to answer
  times out at its own limit, for move_ms under a second and for the
  time bank, and the fault's logged time is that limit (+5 ms);
- refd stopped with SIGSTOP for longer than move_ms while its bots
  answer in time: after SIGCONT, no bot is faulted;
- no logged play is over its limit.
Prints "N passed, M failed"; exits 1 if anything failed.
"""
import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

EVIL = harness.EVIL


def slow_note_fault(r, tag, opts, limit):
    """Seat 1 sleeps over its first deal_start; its genplay, queued
    behind it, must time out at its own limit."""
    r.add(tag + "-a", EVIL + ["good"])
    r.add(tag + "-b", EVIL + ["good"])
    r.add(tag + "-slow", EVIL + ["slownote", "3000"])
    mid = r.start("joker3", [tag + "-a", tag + "-slow", tag + "-b"],
                  "seed=" + "c9" * 32, *opts)
    result, reason = r.wait(mid)
    assert result == "forfeit1" and "timeout" in reason, (result, reason)
    (kind, ms, ev), = r.query("SELECT kind, ms, evidence FROM faults "
                              "WHERE match_id = ? AND seat = 1", mid)
    assert kind == "timeout", kind
    assert "the limit is %d ms" % limit in ev, ev
    assert limit <= ms <= limit + 5, "timed out after %d ms, limit %d" % (
        ms, limit)


def test_genplay_behind_slow_note(r):
    """move_ms=300: notifications may take a second, the move 300 ms."""
    slow_note_fault(r, "sn", ["move_ms=300"], 300)


def test_bank_behind_slow_note(r):
    """bank_ms=1000 with move_ms=5000: the move's limit is the bank."""
    slow_note_fault(r, "sb", ["move_ms=5000", "bank_ms=1000"], 1000)


def test_plays_within_limits(r):
    """Every play the log holds took no longer than its limit."""
    over = r.query("SELECT p.match_id, p.ms, m.move_ms FROM plays p "
                   "JOIN matches m ON m.id = p.match_id "
                   "WHERE p.fault = 0 AND p.ms > m.move_ms")
    assert not over, over[:5]


def test_sigstop(r):
    """refd stopped three times for a second, longer than move_ms, while
    its bots answer in time: no fault, every match played out."""
    for i in range(3):
        r.add("st-%d" % i, EVIL + ["good"])
    mids = [r.start("joker3", ["st-0", "st-1", "st-2"], "move_ms=300")
            for _ in range(3)]
    for _ in range(3):
        time.sleep(0.3)
        os.kill(r.proc.pid, signal.SIGSTOP)
        time.sleep(1.0)
        os.kill(r.proc.pid, signal.SIGCONT)
    for mid in mids:
        result, reason = r.wait(mid)
        assert result.startswith("seat") or result == "draw", \
            (mid, result, reason)
    faults = r.query("SELECT match_id, seat, kind, evidence FROM faults "
                     "WHERE match_id IN (%s)" % ",".join(map(str, mids)))
    assert not faults, faults
    assert int(dict(l.split(" ", 1) for l in r.must("status").split("\n"))
               ["loop_lag_max_us"]) >= 900000, "refd was not stopped"


TESTS = [test_genplay_behind_slow_note, test_bank_behind_slow_note,
         test_sigstop, test_plays_within_limits]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-clocks.")
    r = harness.Refd(tmp)
    try:
        passed, failed = harness.run_tests(TESTS, (r,))
    finally:
        if r.stop() != 0:
            print("FAIL refd exited with status %s" % r.proc.returncode)
            failed += 1
    harness.finish(passed, failed, tmp)


if __name__ == "__main__":
    main()
