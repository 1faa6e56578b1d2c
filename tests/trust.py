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
    """A --net spawned bot, a remote bot, a bot with a --dir and one with
    real file locks (--locks): each refused in a duplicate tournament without trust_remote, by name and
    with the fix; trusted, the same definition starts."""
    keep = tempfile.mkdtemp(prefix="refd-trust-keep.")
    c = Case("bot plain spawn %s\nbot netbot spawn --net %s\n"
             "bot far remote far-token-0123\n"
             "bot keeper spawn --dir=%s %s\n"
             "bot locker spawn --locks %s\n" %
             (" ".join(GOOD), " ".join(GOOD), keep, " ".join(GOOD),
              " ".join(GOOD)))
    try:
        r = c.r
        h = healthy_start(r)
        for bot in ("netbot", "far", "keeper", "locker"):
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


# --- 6. seeds stay secret until they are used up -------------------------

def refctl(*args):
    p = subprocess.run([REFCTL] + list(args), capture_output=True,
                       text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def everything_shown(c, tid):
    """Every place refd and refctl show a tournament or one of its
    matches: the control socket's status, list and wait, refd's own
    output, and the offline standings, results and exports."""
    r = c.r
    out = [r.must("tournament_status", tid), r.must("tournament_list"),
           r.must("status"), c.err()]
    for sub, fmt in (("standings", "text"), ("standings", "csv"),
                     ("standings", "json"), ("results", "text"),
                     ("results", "csv"), ("results", "json"),
                     ("export", None)):
        args = ["tournament", sub, "--db", r.db, tid]
        if fmt:
            args += ["--format", fmt]
        rc, text = refctl(*args)
        assert rc == 0, (args, text)
        out.append(text)
    for (mid,) in r.query("SELECT id FROM matches WHERE tournament = ?",
                          int(tid)):
        for args in (["show", "--db", r.db, str(mid)],
                     ["export", "--db", r.db, str(mid)]):
            rc, text = refctl(*args)
            assert rc == 0, (args, text)
            out.append(text)
    return "\n".join(out)


def test_seed_secret_until_over():
    """A duplicate tournament whose definition names its seed, stopped:
    its commitment is shown, its master seed and its matches' seeds
    nowhere, neither by refd nor by refctl; it resumes.  Cancelled for
    good (tournament_cancel, and refctl tournament cancel of one a
    restart left stopped), the seed is revealed everywhere, it can never
    be resumed, the cancel is in the log chain and the audit is green."""
    c = Case("bot a spawn %s\nbot b spawn %s\n" % (" ".join(GOOD),
                                                   " ".join(GOOD)))
    r = c.r
    master = "5eed" * 16
    path = c.file("d.tour", DUP.replace("matches 8", "matches 400") %
                  "a b" + "seed %s\n" % master)
    h = healthy_start(r)
    tid = r.must("tournament_start", path)
    for _ in range(200):
        if r.query("SELECT count(*) FROM matches WHERE tournament = ? "
                   "AND state = 'done'", int(tid))[0][0] >= 3:
            break
        time.sleep(0.05)
    r.must("tournament_stop", tid)
    commit = [l.split()[1] for l in
              r.must("tournament_status", tid).splitlines()
              if l.startswith("commitment ")]
    assert commit and len(commit[0]) == 64
    seeds = {master} | {s for (s,) in r.query(
        "SELECT seed FROM matches WHERE tournament = ?", int(tid))}
    assert len(seeds) >= 2, seeds
    shown = everything_shown(c, tid)
    leaked = [s for s in seeds if s in shown]
    assert not leaked, "a stopped tournament shows seed %s" % leaked[0]
    assert commit[0] in shown
    # stopped is not over: it resumes, and stops again
    r.must("tournament_resume", tid)
    r.must("tournament_stop", tid)
    healthy_check(r, h)
    # cancelled: over for good, its seed revealed
    ans = r.must("tournament_cancel", tid)
    assert ans == "%s cancelled seed %s" % (tid, master), ans
    ok, text = r.ctl("tournament_resume", tid)
    assert not ok and "cancelled" in text, text
    ok, text = r.ctl("tournament_cancel", tid)
    assert not ok and "cancelled already" in text, text
    shown = everything_shown(c, tid)
    assert "seed %s" % master in r.must("tournament_status", tid)
    assert all(s in shown for s in seeds), "a cancelled tournament " \
        "hides its seed"
    # one stopped, then refd restarted: refctl cancels it from the log
    path2 = c.file("e.tour", DUP % "a b")
    tid2 = r.must("tournament_start", path2)
    r.must("tournament_stop", tid2)
    r.stop()
    r = c.start()
    rc, text = refctl("-c", r.sock, "tournament", "cancel", tid2)
    assert rc == 0 and ("%s cancelled seed " % tid2) in text, text
    ok, text = r.ctl("tournament_resume", tid2)
    assert not ok and "cancelled" in text, text
    states = r.query("SELECT id, state, reason FROM tournaments ORDER BY id")
    assert states == [(int(tid), "cancelled", "cancelled by the operator"),
                      (int(tid2), "cancelled", "cancelled by the operator")
                      ], states
    chain = r.query("SELECT text FROM log_chain WHERE kind = 'tstate' AND "
                    "tournament = ? ORDER BY no DESC LIMIT 1", int(tid2))
    assert "state=cancelled" in chain[0][0], chain
    rc, text = refctl("audit", "--db", r.db, "--all")
    assert rc == 0, text[-800:]
    assert "tournament %s verified" % tid in text, text[-800:]
    c.done()


# --- 7. remote bots nobody can keep out ---------------------------------

FAR = "bot far remote far-token-0123\n"


def connect_from(port, src):
    s = socket.socket()
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def remote_bot(r, src, mode="good"):
    """A remote bot "far" connected from src; once it authenticated."""
    bot = harness.RemoteBot(r.port, "far", "far-token-0123", mode, src=src)
    bot.start()
    for _ in range(250):
        if bot.auth is not None or bot.error is not None:
            break
        time.sleep(0.02)
    return bot


def auth_from(port, src, name, token):
    """One auth attempt from source address src; returns the answer."""
    return harness.auth(port, name, token, src)[0]


def play_far(r):
    """A match of far against ok1: it must finish with no fault."""
    mid = r.start("classic2", ["far", "ok1"], "deals_to_win=1")
    healthy_check(r, [mid])


def test_strangers_cannot_lock_out():
    """Strangers from 36 addresses fill every unauthenticated slot and
    more; a registered remote bot connecting from another address still
    gets in and plays, and the healthy matches beside finish."""
    c = Case(FAR)
    r = c.r
    h = healthy_start(r)
    flood = []
    try:
        for k in range(8):
            for a in range(2, 38):
                try:
                    flood.append(connect_from(r.port, "127.0.0.%d" % a))
                except OSError:
                    pass
        time.sleep(0.2)
        bot = remote_bot(r, "127.0.0.40")
        assert bot.auth and bot.auth.startswith("="), \
            "locked out by strangers: %r %r" % (bot.auth, bot.error)
        play_far(r)
        healthy_check(r, h)
    finally:
        for s in flood:
            s.close()
    c.done()


def test_wrong_tokens_cannot_lock_out():
    """25 wrong tokens in a registered bot's name, from another address
    and from several more: the bot, from the address it authenticated
    from before, still gets in and plays."""
    c = Case(FAR)
    r = c.r
    h = healthy_start(r)
    first = remote_bot(r, "127.0.0.5")
    assert first.auth and first.auth.startswith("="), first.auth
    answers = []
    srcs = ["127.0.0.1"] * 10 + ["127.0.0.%d" % (10 + i % 5)
                                 for i in range(15)]
    threads = [threading.Thread(target=lambda s=s, i=i: answers.append(
        auth_from(r.port, s, "far", "wrong-token-%d" % i)))
        for i, s in enumerate(srcs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 25 and all(a.startswith("?") for a in answers)
    # the guessers are throttled, even with the right token ...
    ans = auth_from(r.port, "127.0.0.1", "far", "far-token-0123")
    assert ans.startswith("?"), ans
    # ... but the bot is not, from its own address
    again = remote_bot(r, "127.0.0.5")
    assert again.auth and again.auth.startswith("="), \
        "locked out by wrong tokens: %r" % again.auth
    play_far(r)
    play_far(r)
    healthy_check(r, h)
    # a new refd on the same log still knows the bot's address
    r.stop()
    r = c.start()
    answers = []
    threads = [threading.Thread(target=lambda i=i: answers.append(
        auth_from(r.port, "127.0.0.%d" % (20 + i % 5), "far",
                  "wrong-again-%d" % i))) for i in range(25)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(a.startswith("?") for a in answers), answers
    ans = auth_from(r.port, "127.0.0.30", "far", "far-token-0123")
    assert ans.startswith("?"), "a new address is not throttled: " + ans
    after = remote_bot(r, "127.0.0.5")
    assert after.auth and after.auth.startswith("="), \
        "locked out after a restart: %r" % after.auth
    c.done()


def test_vanished_peer_not_seated():
    """An idle pooled connection whose peer is gone without a word (it
    never answers again, no end of file) is probed before a match and
    closed, never seated: the match plays on the bot's live connection,
    with no fault."""
    c = Case(FAR)
    r = c.r
    h = healthy_start(r)
    zombie = connect_from(r.port, "127.0.0.6")
    zombie.sendall(b"auth far far-token-0123\n")
    zombie.settimeout(10)
    assert zombie.recv(100).startswith(b"="), "the zombie got in"
    time.sleep(0.3)
    live = remote_bot(r, "127.0.0.7")
    assert live.auth and live.auth.startswith("="), live.auth
    time.sleep(1.5)         # neither has been heard from lately
    play_far(r)
    # refd closed the zombie: what it sent, then end of file
    data = b""
    zombie.settimeout(5)
    try:
        while True:
            chunk = zombie.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    assert b"genplay" not in data and b"match_start" not in data, data
    for _ in range(250):    # logged with the next commit
        ev = r.query("SELECT detail FROM bot_events WHERE bot = 'far' "
                     "AND kind = 'disconnect'")
        if any(d.startswith("127.0.0.6:") for (d,) in ev):
            break
        time.sleep(0.02)
    assert any(d.startswith("127.0.0.6:") for (d,) in ev), ev
    assert "no answer to a probe" in c.err()
    healthy_check(r, h)
    zombie.close()
    c.done()


# --- 8. bounds that still ran open ---------------------------------------

def test_endless_comments():
    """A bot that answers genplay with comment lines without end is cut
    off with a "flood" fault once it passes the bound on what a bot may
    send between two answers; the healthy matches beside it finish."""
    c = Case("bot chatty spawn %s comments\n" % " ".join(harness.EVIL))
    r = c.r
    h = healthy_start(r)
    r.ctl("bot_add", "ok0", "spawn", *GOOD)
    mid = r.start("classic2", ["chatty", "ok0"], "deals_to_win=1")
    start = time.monotonic()
    result, reason = r.wait(mid)
    assert result == "forfeit0", (result, reason)
    faults = r.query("SELECT kind, evidence FROM faults WHERE match_id = ?",
                     mid)
    assert faults and faults[0][0] == "flood", faults
    assert "without an answer" in faults[0][1], faults
    assert time.monotonic() - start < 30
    healthy_check(r, h)
    c.done()


def test_botlog_total_cap():
    """Bots that each fill their 1 MiB stderr log, match after match:
    with botlog_max_mb 2 the directory's bot logs stay near 2 MiB, the
    oldest removed first; nothing else in the directory is touched."""
    c = Case("botlog_max_mb 2\nbot loud spawn %s stderrflood\n"
             "bot ok0 spawn %s\n" % (" ".join(harness.EVIL),
                                     " ".join(GOOD)))
    r = c.r
    keep = c.file("match0-seat0-notes.txt", "x" * (3 << 20))
    mids = []
    for _ in range(6):
        mid = r.start("classic2", ["loud", "ok0"], "deals_to_win=1")
        healthy_check(r, [mid])
        mids.append(mid)
    time.sleep(0.5)
    logs = {f: os.path.getsize(os.path.join(c.tmp, f))
            for f in os.listdir(c.tmp) if f.startswith("match") and
            f.endswith(".log")}
    total = sum(logs.values())
    assert total <= (2 << 20) + (1 << 20) + 4096, (total, logs)
    loud = ["match%d-seat0-loud.log" % m for m in mids]
    assert loud[-1] in logs, "the newest log was removed: %s" % logs
    assert loud[0] not in logs, "the oldest log was kept: %s" % logs
    assert os.path.getsize(keep) == 3 << 20
    assert "oldest removed" in c.err()
    c.done()


def test_spawn_cap():
    """max_connections 4 and four matches of two spawned bots each,
    started at once: never more than 4 bots run, the matches beyond the
    cap wait for room, and all of them finish with no fault."""
    slow = " ".join(harness.EVIL) + " slow 20"
    c = Case("max_connections 4\nbot s1 spawn %s\nbot s2 spawn %s\n" %
             (slow, slow))
    r = c.r
    mids = [r.start("classic2", ["s1", "s2"], "deals_to_win=1")
            for _ in range(4)]
    most = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        st = r.must("status")
        conns = int(st.split("connections ")[1].split()[0])
        most = max(most, conns)
        running = int(st.split("matches_running ")[1].split()[0])
        if running == 0:
            break
        time.sleep(0.02)
    assert most <= 4, "%d bots ran under max_connections 4" % most
    assert most >= 2
    healthy_check(r, mids)
    # a match that could never have room is refused at once
    ok, text = r.ctl("match_start", "classic5", "s1", "s2", "s1", "s2",
                     "s1")
    assert not ok and "max_connections is 4" in text, text
    c.done()


TESTS = [test_duplicate_refuses_net, test_duplicate_resume_rechecked,
         test_seed_secret_until_over, test_strangers_cannot_lock_out,
         test_wrong_tokens_cannot_lock_out, test_vanished_peer_not_seated,
         test_endless_comments, test_botlog_total_cap, test_spawn_cap]


def main():
    passed, failed = harness.run_tests([cleaned(t) for t in TESTS], ())
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
