#!/usr/bin/env python3
"""trust.py: what refd trusts nobody with, against a real refd.

Each case attacks one promise of refd(8) SECURITY with healthy matches
beside it, which must finish untouched:
- duplicate tournaments refuse bots that could carry a deal from one
  arrangement to the next (--net, --dir, remote), on start and resume;
- a tournament's master seed stays secret until the tournament is over
  (done, or cancelled for good), wherever refd shows a tournament;
- strangers and wrong tokens cannot keep a registered remote bot out,
  and a pooled connection whose peer is gone is never seated;
- a bot's comment lines, the bot logs directory and the spawned bots
  running at once are bounded.
Each case starts a refd of its own, in a directory of its own.
Prints "N passed, M failed".
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

GOOD = harness.EVIL + ["good"]
REFCTL = harness.REFCTL
CASES = []      # every Case started, stopped after each test


class Case:
    """A refd of the case's own, with a config file; stopped and its
    directory removed by done()."""

    def __init__(self, conf=""):
        self.tmp = tempfile.mkdtemp(prefix="refd-trust.")
        self.conf = os.path.join(self.tmp, "refd.conf")
        self.r = None
        CASES.append(self)
        self.start(conf)

    def start(self, conf=None, extra=()):
        if conf is not None:
            with open(self.conf, "w") as f:
                f.write(conf)
        self.r = harness.Refd(self.tmp, extra=["-f", self.conf] +
                              list(extra))
        return self.r

    def kill(self):
        """refd killed at once, as by a crash."""
        self.r.proc.kill()
        self.r.proc.wait()
        self.r.err.close()

    def err(self):
        return open(os.path.join(self.tmp, "refd.err")).read()

    def file(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def done(self):
        CASES.remove(self)
        rc = self.r.stop()
        assert rc == 0, "refd exited with status %s: %s" % (
            rc, self.err()[-800:])
        shutil.rmtree(self.tmp, ignore_errors=True)


def cleaned(fn):
    """fn, then every refd it left (a failed test's) stopped; their
    directories are kept."""
    def run():
        try:
            fn()
        finally:
            while CASES:
                c = CASES.pop()
                c.r.stop()
                print("# kept " + c.tmp)
    run.__name__ = fn.__name__
    return run


def healthy_start(r, n=2):
    """n healthy classic2 matches of two good bots; their ids."""
    for name in ("ok1", "ok2"):
        ok, _ = r.ctl("bot_add", name, "spawn", *GOOD)
    return [r.start("classic2", ["ok1", "ok2"], "deals_to_win=1")
            for _ in range(n)]


def healthy_check(r, mids):
    """The healthy matches finished, with no fault."""
    for m in mids:
        result, reason = r.wait(m)
        assert result.startswith(("seat", "draw")), (m, result, reason)
        faults = r.query("SELECT kind FROM faults WHERE match_id = ?", m)
        assert not faults, (m, faults)


# --- 5. duplicate tournaments trust nothing by default ----------------

DUP = ("name dup\nvariant classic2\nformat roundrobin\nduplicate yes\n"
       "bots %s\nmatches 8\nconcurrency 1\noption deals_to_win=1\n")


def test_duplicate_refuses_net():
    """A --net spawned bot, a remote bot and a bot with a --dir: each
    refused in a duplicate tournament without trust_remote, by name and
    with the fix; trusted, the same definition starts."""
    keep = tempfile.mkdtemp(prefix="refd-trust-keep.")
    c = Case("bot plain spawn %s\nbot netbot spawn --net %s\n"
             "bot far remote far-token-0123\n"
             "bot keeper spawn --dir=%s %s\n" %
             (" ".join(GOOD), " ".join(GOOD), keep, " ".join(GOOD)))
    try:
        r = c.r
        h = healthy_start(r)
        for bot in ("netbot", "far", "keeper"):
            path = c.file("d.tour", DUP % ("plain " + bot))
            ok, text = r.ctl("tournament_start", path)
            assert not ok, "%s accepted: %s" % (bot, text)
            assert "bot %s" % bot in text and "trust_remote yes" in text, \
                text
        path = c.file("d.tour", DUP % "plain netbot" + "trust_remote yes\n")
        tid = r.must("tournament_start", path)
        r.must("tournament_stop", tid)
        healthy_check(r, h)
        c.done()
    finally:
        shutil.rmtree(keep, ignore_errors=True)


def test_duplicate_resume_rechecked():
    """A duplicate tournament of plain bots, then one of its bots given
    the network (--net) by a new refd.conf: neither tournament_resume of
    the stopped tournament nor the resume at start-up of the running one
    takes it up; the error names the bot and the fix."""
    plain = "bot a spawn %s\nbot b spawn %s\n" % (" ".join(GOOD),
                                                  " ".join(GOOD))
    net = "bot a spawn %s\nbot b spawn --net %s\n" % (" ".join(GOOD),
                                                      " ".join(GOOD))
    c = Case(plain)
    r = c.r
    path = c.file("d.tour", DUP.replace("matches 8", "matches 400") %
                  "a b")
    stopped = r.must("tournament_start", path)
    r.must("tournament_stop", stopped)
    running = r.must("tournament_start", path)
    time.sleep(0.3)
    c.kill()
    r = c.start(net)
    h = healthy_start(r)
    # at start-up: the running one is not taken up
    ok, text = r.ctl("tournament_status", running)
    assert not ok, "resumed at start-up with a --net bot: %s" % text
    assert "tournament %s not resumed" % running in c.err() and \
        "bot b" in c.err(), c.err()[-800:]
    for tid in (stopped, running):
        ok, text = r.ctl("tournament_resume", tid)
        assert not ok, "tournament %s resumed: %s" % (tid, text)
        assert "bot b" in text and "--net" in text and \
            "trust_remote yes" in text, text
    healthy_check(r, h)
    # with the old definitions back, it resumes
    r.stop()
    r = c.start(plain)
    r.must("tournament_resume", stopped)
    r.must("tournament_stop", stopped)
    r.must("tournament_stop", running)
    c.done()


TESTS = [test_duplicate_refuses_net, test_duplicate_resume_rechecked]


def main():
    passed, failed = harness.run_tests([cleaned(t) for t in TESTS], ())
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
