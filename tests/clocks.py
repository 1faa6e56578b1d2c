#!/usr/bin/env python3
"""clocks.py: a bot is charged its own time, exactly, and never refd's.

Against a real refd on loopback:
- a genplay queued behind a notification the bot is slow to answer
  times out at its own limit, for move_ms under a second and for the
  time bank, and the fault's logged time is that limit (+5 ms);
- refd stopped with SIGSTOP for longer than move_ms while its bots
  answer in time: after SIGCONT, no bot is faulted;
- refd stopped across a deadline forgives no slow move: a spawned bot
  that has not answered when refd wakes is timed out then, and a remote
  bot whose answer the kernel stamped late is timed out for it, though
  refd, stopped, could not look in time;
- no logged play is over its limit;
- a command's clock starts when the write of its line returns, not when
  refd began the pass that writes it: with every write of a genplay
  made 150 ms slow (an LD_PRELOAD shim in refd), each bot still reads
  its genplay within a few ms of the clock's start refd logs;
- notifications wait for the seat's next command (notify=lazy, the
  default): every write to a seat ends with a command whose answer
  counts, the match's end included; notify=eager writes each at once,
  and either way every seat is sent the same lines, byte for byte.
Prints "N passed, M failed"; exits 1 if anything failed.
"""
import os
import re
import shutil
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


def test_logged_limits(r):
    """Each play's row holds the limit its own genplay gave, not the next
    move's, though the row is written after the next genplay left: a
    bank makes every move's limit its own."""
    rec, opt = r.recorder()
    marks = []
    for i in range(3):
        marks.append(os.path.join(rec, "limits-%d" % i))
        r.add("lim-%d" % i, opt + EVIL + ["slow", "20", marks[i]])
    # the limit is what is left of the bank, less at every move
    mid = r.start("joker3", ["lim-0", "lim-1", "lim-2"], "move_ms=5000",
                  "bank_ms=3000", "target=1")
    result, reason = r.wait(mid)
    assert result.startswith("seat"), (result, reason)
    for i in range(3):
        told = [int(l) for l in open(marks[i])]
        logged = [l for (l,) in r.query(
            "SELECT limit_ms FROM plays WHERE match_id = ? AND seat = ? "
            "AND fault = 0 ORDER BY deal_no, seq", mid, i)]
        assert logged and logged == told[:len(logged)], (i, told, logged)
        assert len(set(logged)) > 1, "the limit never changed: %s" % logged


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


def stop_refd(r, seconds):
    """Stop refd for seconds.  First a moment's grace: the bot that
    read its command may have preempted refd between the write and the
    clock's start, and a clock started after the stop is not the case
    tested (it would give the bot the stopped second, rightly: refd
    cannot tell when a write it has not seen return landed)."""
    time.sleep(0.1)
    os.kill(r.proc.pid, signal.SIGSTOP)
    time.sleep(seconds)
    os.kill(r.proc.pid, signal.SIGCONT)


def wait_until(pred, what, timeout=30.0):
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "never saw " + what
        time.sleep(0.002)


def healthy_beside(r, tag):
    """A healthy match of spawned bots, to play beside an attack: each
    move takes 20 ms, so that it is still playing when refd stops."""
    for i in range(3):
        r.add("%s-h%d" % (tag, i), EVIL + ["slow", "20"])
    return r.start("joker3", ["%s-h%d" % (tag, i) for i in range(3)],
                   "move_ms=300", "deal_cap=3")


def untouched(r, mid):
    """The healthy match finished, no bot of it faulted."""
    result, reason = r.wait(mid)
    assert result.startswith("seat") or result == "draw", (result, reason)
    assert int(r.query("SELECT max(deal_no) FROM plays WHERE match_id = ?",
                       mid)[0][0] or 0) > 1, "the healthy match was short"
    faults = r.query("SELECT seat, kind, evidence FROM faults WHERE "
                     "match_id = ?", mid)
    assert not faults, faults


def late_fault(r, mid, seat):
    result, reason = r.wait(mid)
    assert result == "forfeit%d" % seat and "timeout" in reason, \
        (result, reason)
    (ms, ev), = r.query("SELECT ms, evidence FROM faults WHERE "
                        "match_id = ? AND seat = ?", mid, seat)
    over = r.query("SELECT count(*) FROM plays WHERE match_id = ? AND "
                   "seat = ? AND fault = 0 AND ms > 300", mid, seat)
    assert over == [(0,)], over
    return ms, ev


def test_stall_forgives_no_silence(r):
    """move_ms=300: refd is stopped for a second just after its first
    genplay reaches a bot that will answer 1150 ms late.  When refd
    wakes the bot has still not answered: timed out then, not given the
    stopped second back (which would let its answer at 1150 ms in)."""
    rec, opt = r.recorder()
    mark = os.path.join(rec, "silence.mark")
    r.add("ss-a", EVIL + ["good"])
    r.add("ss-b", EVIL + ["good"])
    r.add("ss-late", opt + EVIL + ["late", "1150", mark])
    beside = healthy_beside(r, "ss")
    mid = r.start("joker3", ["ss-late", "ss-a", "ss-b"], "move_ms=300",
                  "seed=" + "5a" * 32)
    wait_until(lambda: os.path.exists(mark), "the late bot's genplay")
    stop_refd(r, 1.0)
    ms, ev = late_fault(r, mid, 0)
    assert ev.startswith("no answer to command"), ev
    assert ms >= 300, ms
    untouched(r, beside)


def test_stall_forgives_no_stamp(r):
    """move_ms=300, over TCP: refd is stopped for 1.5 s just after a
    remote bot reads its first genplay, and the bot answers 600 ms late,
    while refd is stopped.  The kernel's receive stamp says when: a
    time-out of about 600 ms, though refd only looked after 1.5 s."""
    names = ["sr-a", "sr-b", "sr-late"]
    for n in names:
        r.must("bot_add", n, "remote", n + "-token-0")
    bots = [harness.RemoteBot(r.port, n, n + "-token-0",
                              "late:600" if n == "sr-late" else "good")
            for n in names]
    for b in bots:
        b.start()
    beside = healthy_beside(r, "sr")
    mid = r.start("joker3", ["sr-late", "sr-a", "sr-b"], "move_ms=300",
                  "seed=" + "5b" * 32)
    assert bots[2].genplay.wait(30), "the late bot never got a genplay"
    # over a second: a stamp that old is still the answer's arrival
    stop_refd(r, 1.5)
    ms, ev = late_fault(r, mid, 0)
    assert ev.startswith("answer to command"), ev
    assert 550 <= ms < 1000, "charged %d ms for an answer 600 ms late" % ms
    untouched(r, beside)
    for b in bots:
        b.join(10)
# the commands whose answer counts; every other line is a notification
ASKED = ("name", "version", "known_command", "genplay", "genbid", "gencall",
         "quit")


def wait_for(path, word, tries=250):
    """Wait until the bot writing path has recorded a line with word."""
    for _ in range(tries):
        if os.path.exists(path) and (" %s" % word) in open(path).read():
            return
        time.sleep(0.02)
    raise AssertionError("%s: no %s" % (path, word))


def chunked_match(r, tag, notify):
    """Seat 2 records which read(2) brought each line, beside two slow
    bots, for a few tricks; returns the lines of each read, in order."""
    rec, opt = r.recorder()
    path = os.path.join(rec, tag + "-c.txt")
    r.add(tag + "-a", EVIL + ["slow", "60"])
    r.add(tag + "-b", EVIL + ["slow", "60"])
    r.add(tag + "-c", opt + EVIL + ["chunks", path])
    mid = r.start("joker3", [tag + "-a", tag + "-b", tag + "-c"],
                  "seed=" + "5a" * 32, *(["notify=" + notify] if notify
                                          else []))
    for _ in range(400):
        time.sleep(0.05)
        if os.path.exists(path) and \
                sum(" play " in l for l in open(path)) >= 12:
            break
    r.must("match_stop", str(mid))
    r.wait(mid)
    wait_for(path, "quit")
    reads = {}
    for line in open(path):
        n, text = line.split(" ", 1)
        reads.setdefault(int(n), []).append(text.split())
    return [reads[n] for n in sorted(reads)]


def test_notes_wait_for_command(r):
    """A seat not to act hears of the others' plays only with its next
    command: each write to it ends with a line it must answer, and the
    plays came in writes with its genplays; the match_end left too."""
    reads = chunked_match(r, "lz", None)
    last = [rd[-1][1] for rd in reads]
    assert all(w in ASKED for w in last), \
        "writes ending in a notification: %s" % [
            [" ".join(l[1:3]) for l in rd] for rd in reads
            if rd[-1][1] not in ASKED][:3]
    words = [l[1] for rd in reads for l in rd]
    assert words.count("play") >= 12 and "match_end" in words, words
    assert any(rd[-1][1] == "genplay" and len(rd) >= 3 and
               rd[-2][1] == "play" for rd in reads), reads


def heard_all(r, mid, path):
    """The bot recording path (chunks) heard every play of match mid the
    log holds, then match_end, and quit last: nothing held was left."""
    wait_for(path, "quit")
    words = [l.split()[2:] for l in open(path)]
    told = [w[1:3] for w in words if w[:1] == ["play"]]
    logged = r.query("SELECT seat, card FROM plays WHERE match_id = ? "
                     "ORDER BY deal_no, seq", mid)
    assert [[str(a), b] for a, b in logged] == told, (logged, told)
    assert words[-2][:1] == ["match_end"] and words[-1] == ["quit"], \
        words[-3:]


def test_held_notes_at_forfeit(r):
    """Another seat forfeits: the notes held for a seat not to act leave
    with its match_end."""
    rec, opt = r.recorder()
    path = os.path.join(rec, "hf-c.txt")
    r.add("hf-a", EVIL + ["good"])
    r.add("hf-bad", EVIL + ["late", "700"])
    r.add("hf-c", opt + EVIL + ["chunks", path])
    mid = r.start("joker3", ["hf-a", "hf-bad", "hf-c"], "move_ms=300",
                  "seed=" + "77" * 32)
    result, reason = r.wait(mid)
    assert result == "forfeit1", (result, reason)
    heard_all(r, mid, path)


def test_held_notes_remote(r):
    """A remote seat, which is never told to quit, is sent what it held
    with match_end when the match ends, and goes back to its pool."""
    r.must("bot_add", "hr-c", "remote", "token-hr-c-xxxx")
    c = harness.RemoteBot(r.port, "hr-c", "token-hr-c-xxxx")
    c.start()
    r.add("hr-a", EVIL + ["good"])
    r.add("hr-b", EVIL + ["good"])
    mid = r.start("joker3", ["hr-a", "hr-b", "hr-c"], "target=1",
                  "seed=" + "99" * 32)
    result, reason = r.wait(mid)
    assert result.startswith(("seat", "draw")), (result, reason)
    c.join(20)
    assert not c.is_alive() and c.error is None, \
        "the remote bot never got match_end: %s" % c.lines[-3:]
    told = [l.split()[2:4] for l in c.lines if l.split()[1:2] == ["play"]]
    logged = r.query("SELECT seat, card FROM plays WHERE match_id = ? "
                     "ORDER BY deal_no, seq", mid)
    assert [[str(a), b] for a, b in logged] == told, (logged, told)
    assert c.lines[-1].split()[1] == "match_end", c.lines[-3:]


def test_tournament_notify(r):
    """A tournament's "notify eager" line reaches each of its matches'
    options; without it they say nothing of it (lazy)."""
    r.add("tn-a", EVIL + ["good"])
    r.add("tn-b", EVIL + ["good"])
    for line, want in (("notify eager\n", True), ("", False)):
        path = os.path.join(r.tmp, "tn-%d.tour" % want)
        with open(path, "w") as f:
            f.write("name tn%d\nvariant classic2\nbots tn-a tn-b\n"
                    "deals_to_win 1\n%s" % (want, line))
        tid = r.must("tournament_start", path)
        assert r.must("tournament_wait", tid).startswith("done"), tid
        opts = r.query("SELECT options FROM matches WHERE tournament = ?",
                       int(tid))
        assert opts and all(("notify=eager" in o) == want
                            for (o,) in opts), opts


def test_held_notes_at_shutdown(tmp):
    """refd shut down mid-match: every seat is sent what it held, then
    match_end and quit, before refd exits."""
    r = harness.Refd(tmp)
    try:
        rec, opt = r.recorder()
        paths = [os.path.join(rec, "hs-%d.txt" % i) for i in range(3)]
        for i in range(3):
            r.add("hs-%d" % i, opt + EVIL + ["chunks", paths[i]])
        mid = r.start("joker3", ["hs-0", "hs-1", "hs-2"], "target=1000",
                      "seed=" + "88" * 32)
        for _ in range(200):
            time.sleep(0.05)
            if r.query("SELECT count(*) FROM plays WHERE match_id = ?",
                       mid)[0][0] >= 20:
                break
    finally:
        assert r.stop() == 0, "refd did not exit cleanly"
    for path in paths:
        heard_all(r, mid, path)


def test_eager_notes_at_once(r):
    """notify=eager: a seat not to act hears of each play at once."""
    reads = chunked_match(r, "ez", "eager")
    assert any(rd[-1][1] == "play" for rd in reads), reads


def test_eager_lazy_alike(r):
    """The same seed and bots under notify=eager and notify=lazy: every
    seat is sent the same lines (but for what names the match, its id,
    seats and end, and the word notify=eager of the eager one's options),
    plays alike, and passes the information check."""
    rec, opt = r.recorder()
    got = {}
    for mode in ("eager", "lazy"):
        names, paths = [], []
        for i in range(3):
            names.append("al-%s-%d" % (mode, i))
            paths.append(os.path.join(rec, names[-1] + ".txt"))
            r.add(names[-1], opt + EVIL + ["record", paths[-1]])
        mid = r.start("joker3", names, "seed=" + "3e" * 32, "target=3",
                      "notify=" + mode)
        result, _ = r.wait(mid)
        lines = []
        for i, path in enumerate(paths):
            wait_for(path, "match_end")
            harness.check_transcript(path, "joker3", i)
            text = open(path).read()
            # what names the match, and the one word the mode adds
            text = re.sub(r"match=\d+ (.*) seats=\S+", r"match=N \1 seats=S",
                          text).replace(" notify=eager\n", "\n")
            lines.append(re.sub(r"(match_end( \S+){3}).*", r"\1", text))
        plays = r.query("SELECT seat, card, ms <= ? FROM plays "
                        "WHERE match_id = ? ORDER BY deal_no, seq", 1500,
                        mid)
        got[mode] = (result, lines, [p[:2] for p in plays])
        assert all(p[2] for p in plays), plays
    assert got["eager"][0] == got["lazy"][0], (got["eager"][0],
                                               got["lazy"][0])
    for i in range(3):
        assert got["eager"][1][i] == got["lazy"][1][i], \
            "seat %d was sent other lines" % i
    assert got["eager"][2] == got["lazy"][2]
    assert len(got["lazy"][2]) > 20, got["lazy"][2]


SLOWWRITE = r"""
#define _GNU_SOURCE
#include <sys/uio.h>
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
/* every write that carries a genplay to a bot takes 150 ms first */
static void
seen(const void *buf, size_t len)
{
	struct timespec ts = { 0, 150 * 1000 * 1000 };
	if (memmem(buf, len, " genplay ", 9) != NULL)
		nanosleep(&ts, NULL);
}
""" + harness.SHIM_WRITES
CLOCKLINE = re.compile(r"clock: answer (\S+) \(.*\) command (\d+) genplay: "
                       r".* written (\d+) ")


def test_clock_starts_at_write(tmp):
    """Each genplay's write is 150 ms slow: under a clock started when
    the flush pass began, every bot read its genplay 150 ms after its
    clock started; started at the write's return, within 75 ms."""
    r = harness.refd_with_shim(tmp, SLOWWRITE, "slowwrite")
    try:
        rec, opt = r.recorder()
        for i in range(3):
            r.add("sw-%d" % i, opt + EVIL + ["stamp", "%s/sw-%d" % (rec, i)])
        mid = r.start("joker3", ["sw-0", "sw-1", "sw-2"], "move_ms=5000")
        stamps = {}
        for _ in range(200):
            time.sleep(0.05)
            stamps = {}
            for i in range(3):
                path = "%s/sw-%d" % (rec, i)
                if os.path.exists(path):
                    for line in open(path):
                        ident, us = line.split()
                        stamps[("sw-%d" % i, int(ident))] = int(us)
            if len(stamps) >= 9:
                break
        r.must("match_stop", str(mid))
    finally:
        r.stop()
    gaps = []
    for line in open(os.path.join(tmp, "refd.err")):
        m = CLOCKLINE.search(line)
        if m and (m.group(1), int(m.group(2))) in stamps:
            gaps.append(stamps[(m.group(1), int(m.group(2)))] -
                        int(m.group(3)))
    assert len(gaps) >= 6, "only %d genplays answered" % len(gaps)
    late = [g for g in gaps if g > 75000]
    assert not late, "bots read their genplay %s us after its clock " \
        "started" % late


TESTS = [test_genplay_behind_slow_note, test_bank_behind_slow_note,
         test_logged_limits,
         test_sigstop, test_stall_forgives_no_silence,
         test_stall_forgives_no_stamp, test_notes_wait_for_command,
         test_eager_notes_at_once, test_held_notes_at_forfeit,
         test_held_notes_remote, test_tournament_notify,
         test_eager_lazy_alike, test_plays_within_limits]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-clocks.")
    r = harness.Refd(tmp)
    try:
        passed, failed = harness.run_tests(TESTS, (r,))
        # its own refd, beside tmp: the sandboxed bots' recorder
        # directory (tmp.rec) must be reachable by them
        sw = tempfile.mkdtemp(prefix="refd-clocks-sw.")
        p, f = harness.run_tests([test_clock_starts_at_write,
                                  test_held_notes_at_shutdown], (sw,))
        passed, failed = passed + p, failed + f
        if not f:
            shutil.rmtree(sw, ignore_errors=True)
            shutil.rmtree(sw + ".rec", ignore_errors=True)
    finally:
        if r.stop() != 0:
            print("FAIL refd exited with status %s" % r.proc.returncode)
            failed += 1
    harness.finish(passed, failed, tmp)


if __name__ == "__main__":
    main()
