#!/usr/bin/env python3
"""e2e.py: end-to-end tests of refd against a real daemon on loopback.

Starts refd in a temporary directory, plays matches of every variant
with every example bot over pipes and over TCP, runs the control
protocol transcript, provokes every fault while another match runs, and
checks what each bot was told against what it was entitled to see.
Prints "N passed, M failed"; exits 1 if anything failed.

Environment: top_builddir, top_srcdir (default: the current directory).
"""
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time

from harness import (EVIL, REFCTL, REFD, SEATS, SRC, Refd, RemoteBot,
                     refd_with_shim, answer_lines,
                     check_transcript, example_bots, finish, run_against)


def check_log(r, mid):
    """The log of a finished match is whole and agrees with itself."""
    (state, result), = r.query(
        "SELECT state, result FROM matches WHERE id = ?", mid)
    assert state == "done", "match %d state %s" % (mid, state)
    deals = r.query("SELECT deal_no, deck FROM deals WHERE match_id = ?",
                    mid)
    ends = r.query("SELECT deal_no FROM deal_results WHERE match_id = ?",
                   mid)
    assert deals, "no deal logged"
    for deal_no, deck in deals:
        n = len(r.query("SELECT 1 FROM plays WHERE match_id = ? AND "
                        "deal_no = ?", mid, deal_no))
        if (deal_no,) in ends:
            assert n == len(deck.split()), \
                "deal %d: %d plays for %d cards" % (deal_no, n,
                                                    len(deck.split()))
    return result


# ---------------------------------------------------------------- tests

def test_ctl_transcript(r):
    """The control protocol answers exactly as tests/ctl.tst says."""
    path = os.path.join(SRC, "tests", "ctl.tst")
    c = socket.socket(socket.AF_UNIX)
    c.settimeout(10)
    c.connect(r.sock)
    f = c.makefile("rwb")
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        if line.startswith("> "):
            f.write(line[2:].encode() + b"\n")
            f.flush()
            got = []
            while True:
                a = f.readline().decode().rstrip("\n")
                if a == "":
                    break
                got.append(a)
            continue
        assert line.startswith("< "), "%s:%d: bad line" % (path, n)
        want = line[2:]
        have = got.pop(0) if got else "(nothing)"
        if want.endswith("..."):
            ok = have.startswith(want[:-3])
        else:
            ok = have == want
        assert ok, "%s:%d: expected %r, got %r" % (path, n, want, have)
    c.close()


def test_variants_every_bot(r):
    """Every variant plays to the end with every example bot, over pipes."""
    bots = example_bots()
    for name, argv in bots.items():
        r.add(name, argv)
    names = list(bots)
    mids = []
    for variant, n in SEATS.items():
        for k in range(len(names)):
            seats = [names[(k + i) % len(names)] for i in range(n)]
            mids.append((r.start(variant, seats), variant, seats))
    for mid, variant, seats in mids:
        result, reason = r.wait(mid)
        assert not result.startswith(("forfeit", "aborted")), \
            "%s %s: %s %s" % (variant, seats, result, reason)
        assert check_log(r, mid) == result


def test_tcp_matches(r):
    """Remote bots authenticate and play every variant over TCP."""
    for i in range(4):
        r.must("bot_add", "tcp%d" % i, "remote", "secret-token-%d" % i)
    for variant, n in SEATS.items():
        bots = [RemoteBot(r.port, "tcp%d" % i, "secret-token-%d" % i)
                for i in range(n)]
        for b in bots:
            b.start()
        mid = r.start(variant, ["tcp%d" % i for i in range(n)])
        result, reason = r.wait(mid)
        assert not result.startswith(("forfeit", "aborted")), reason
        check_log(r, mid)
        for b in bots:
            b.join(10)
            assert b.auth == "=", b.auth
        # each remote seat's identity is the peer refd saw, chained
        seats = r.query("SELECT seat, kind, identity FROM seats WHERE "
                        "match_id = ? ORDER BY seat", mid)
        assert seats == [(i, "remote", b.local)
                         for i, b in enumerate(bots)], (seats, mid)
    # and an identity edited afterwards breaks the audit at its seat
    path = os.path.join(r.tmp, "remote-identity.db")
    src = sqlite3.connect("file:%s?mode=ro" % r.db, uri=True)
    dst = sqlite3.connect(path)
    src.backup(dst)
    src.close()
    rc = subprocess.run([REFCTL, "audit", "--db", path, str(mid)],
                        capture_output=True, text=True)
    assert rc.returncode == 0, rc.stdout + rc.stderr
    dst.execute("UPDATE seats SET identity = '10.9.8.7:4242' WHERE "
                "match_id = ? AND seat = 1", (mid,))
    dst.commit()
    dst.close()
    rc = subprocess.run([REFCTL, "audit", "--db", path, str(mid)],
                        capture_output=True, text=True)
    assert rc.returncode == 1 and re.search(
        r"^match %d FAILED: .*seat 1: the chain breaks at link \d+" % mid,
        rc.stdout, re.M), rc.stdout + rc.stderr


def test_wrong_token(r):
    """A wrong token is refused, logged, and the connection closed."""
    r.must("bot_add", "guarded", "remote", "right-token-123")
    b = RemoteBot(r.port, "guarded", "wrong-token-123")
    b.start()
    b.join(10)
    assert b.auth and b.auth.startswith("?"), b.auth
    rows = r.query("SELECT kind FROM bot_events WHERE bot = 'guarded'")
    assert ("auth-failed",) in rows, rows


FAULTS = {
    # mode: (expected fault kind, argv extra)
    "hang": "timeout",
    "crash": "eof",
    "early": "eof",
    "garbage": "garbage",
    "junk": "garbage",
    "longline": "overlong",
    "wrongid": "wrong-id",
    # an unasked answer is "unasked" when nothing is pending, "wrong-id"
    # when a pipelined command is: which one depends on timing
    "unasked": ("unasked", "wrong-id"),
    "illegal": "illegal",
    "twice": "illegal",
    "refuse": "refused",
    "drip": "timeout",
}


def test_faults_while_serving(r):
    """Each fault forfeits its match while a long match plays on."""
    r.add("good1", EVIL + ["good"])
    r.add("good2", EVIL + ["good"])
    r.add("good3", EVIL + ["good"])
    long_mid = r.start("joker3", ["good1", "good2", "good3"], "target=40")
    mids = {}
    for mode in FAULTS:
        r.add("evil-" + mode, EVIL + [mode])
        mids[mode] = r.start("joker3", ["good1", "evil-" + mode, "good2"])
    for mode, mid in mids.items():
        result, reason = r.wait(mid)
        assert result == "forfeit1", "%s: %s %s" % (mode, result, reason)
        kinds = [k for (k,) in r.query(
            "SELECT kind FROM faults WHERE match_id = ?", mid)]
        want = FAULTS[mode]
        assert kinds and kinds[0] in (want if isinstance(want, tuple)
                                      else (want,)), \
            "%s: faults logged %s" % (mode, kinds)
        ev = r.query("SELECT evidence FROM faults WHERE match_id = ?", mid)
        assert ev[0][0], "%s: no evidence" % mode
    state = r.query("SELECT state FROM matches WHERE id = ?", long_mid)
    assert state[0][0] in ("running", "done"), state
    result, reason = r.wait(long_mid)
    assert result.startswith("seat"), "long match: %s %s" % (result, reason)
    check_log(r, long_mid)


def test_disconnect_mid_deal(r):
    """A remote bot that drops its connection mid-deal forfeits."""
    r.must("bot_add", "vanish", "remote", "vanish-token")
    r.must("bot_add", "stay1", "remote", "stay1-token")
    r.must("bot_add", "stay2", "remote", "stay2-token")
    bots = [RemoteBot(r.port, "stay1", "stay1-token"),
            RemoteBot(r.port, "vanish", "vanish-token", "vanish"),
            RemoteBot(r.port, "stay2", "stay2-token")]
    for b in bots:
        b.start()
    mid = r.start("joker3", ["stay1", "vanish", "stay2"])
    result, reason = r.wait(mid)
    assert result == "forfeit1", (result, reason)
    kinds = r.query("SELECT kind FROM faults WHERE match_id = ?", mid)
    assert kinds[0][0] == "disconnect", kinds


def test_fallback_policy(r):
    """Under fallback, a refused move costs a fallback card, then forfeit."""
    r.add("fb-good1", EVIL + ["good"])
    r.add("fb-good2", EVIL + ["good"])
    r.add("fb-illegal", EVIL + ["notacard"])
    mid = r.start("joker3", ["fb-good1", "fb-illegal", "fb-good2"],
                  "policy=fallback", "max_faults=3")
    result, reason = r.wait(mid)
    assert result == "forfeit1", (result, reason)
    rows = r.query("SELECT action FROM faults WHERE match_id = ? "
                   "ORDER BY id", mid)
    actions = [a for (a,) in rows]
    assert len(actions) == 3, actions
    assert actions[0].startswith("fallback ") and \
        actions[1].startswith("fallback ") and actions[2] == "forfeit", \
        actions
    plays = r.query("SELECT card FROM plays WHERE match_id = ? AND "
                    "fault = 1", mid)
    assert [("fallback " + c) for (c,) in plays] == actions[:2], plays




def test_information(r):
    """A recording bot never sees a card of another seat before it is
    played; in classic4 the partner's hand shows when the stock empties."""
    rec, opt = r.recorder()
    for variant, n in SEATS.items():
        names = []
        for i in range(n):
            name = "rec-%s-%d" % (variant, i)
            path = os.path.join(rec, name + ".txt")
            r.add(name, opt + EVIL + ["record", path])
            names.append(name)
        mid = r.start(variant, names)
        result, _ = r.wait(mid)
        assert result.startswith(("seat", "team", "draw")), result
        for i, name in enumerate(names):
            path = os.path.join(rec, name + ".txt")
            # the bot may still be reading its last lines
            for _ in range(250):
                if " match_end " in open(path).read():
                    break
                time.sleep(0.02)
            revealed = check_transcript(path, variant, i)
            assert revealed == (variant == "classic4"), variant
            # what the bot was told of the plays is what the log holds
            told = [l.split()[2:4] for l in open(path)
                    if l.split()[1:2] == ["play"]]
            logged = r.query("SELECT seat, card FROM plays WHERE "
                             "match_id = ? ORDER BY deal_no, seq", mid)
            assert [[str(s), c] for s, c in logged] == told, \
                "seat %d was told other plays than the log holds" % i


def test_no_forged_output(r):
    """A bot's text never reaches the operator as lines of its own."""
    r.add("inj-good1", EVIL + ["good"])
    r.add("inj-good2", EVIL + ["good"])
    r.add("inj", EVIL + ["inject"])
    c = socket.socket(socket.AF_UNIX)
    c.settimeout(20)
    c.connect(r.sock)
    f = c.makefile("rwb")
    mid = r.start("joker3", ["inj-good1", "inj", "inj-good2"],
                  "move_ms=3000")
    f.write(b"match_watch %d\n" % mid)
    f.flush()
    lines = answer_lines(f, "the watch stream")
    c.close()
    ends = [l for l in lines if l.startswith("end ")]
    assert len(ends) == 1 and not any(l.startswith("end seat0 forged")
                                      for l in lines), lines
    result, reason = r.wait(mid)
    assert result == "forfeit1" and "\n" not in reason, (result, reason)
    (ev,), = r.query("SELECT evidence FROM faults WHERE match_id = ?", mid)
    assert "\n" not in ev and "\x1b" not in ev and "\\x0a" in ev, ev
    # the receipts' counts: an answer of several lines is one answer, and
    # the injector answered every command it was sent before it refused
    (end,), = r.query("SELECT text FROM log_chain WHERE kind = 'end' AND "
                      "match_id = ?", mid)
    tx = end.split(" transcripts=")[1].split(",")
    counts = [(int(t.split(":")[0]), int(t.split(":")[2])) for t in tx]
    assert all(k <= n for n, k in counts), counts
    assert counts[1][0] == counts[1][1], counts


def test_watch_then_command(r):
    """A command sent during a watch ends the stream, then is answered."""
    r.add("wt-slow", EVIL + ["late", "300"])
    mid = r.start("classic2", ["wt-slow", "wt-slow"])
    c = socket.socket(socket.AF_UNIX)
    c.settimeout(10)
    c.connect(r.sock)
    f = c.makefile("rwb")
    f.write(b"match_watch %d\n" % mid)
    f.flush()
    assert f.readline() == b"= watching match %d\n" % mid
    f.write(b"7 name\n")
    f.flush()
    rest = []
    while True:
        line = f.readline()
        rest.append(line)
        if line == b"=7 refd\n":
            break
        assert line, rest
    assert b"\n" in rest[:-1], "stream not ended before the reply"
    assert f.readline() == b"\n"
    c.close()
    r.must("match_stop", str(mid))


def test_auth_garbage(r):
    """Garbage instead of auth gets '?', is logged, and refd serves on."""
    for junk in (b"\n", b"\x01\x02\xff\n", b"auth\n", b"auth a b c d\n"):
        s = socket.create_connection(("127.0.0.1", r.port))
        s.settimeout(10)
        s.sendall(junk)
        data = s.recv(100)
        s.close()
        if junk == b"\n":
            continue    # an empty line is no attempt: nothing to answer yet
        assert data.startswith(b"?"), (junk, data)
    assert r.must("name") == "refd"


def test_clocks(r):
    """The time bank runs out; the start-up limit cuts a slow starter."""
    r.add("ck-good1", EVIL + ["good"])
    r.add("ck-good2", EVIL + ["good"])
    r.add("ck-slow", EVIL + ["slow", "150"])
    r.add("ck-sleepy", EVIL + ["slowstart", "8000"])
    bank = r.start("joker3", ["ck-good1", "ck-slow", "ck-good2"],
                   "bank_ms=400", "move_ms=1000")
    # long enough for a healthy Python bot to start on a loaded machine
    start = r.start("joker3", ["ck-good1", "ck-sleepy", "ck-good2"],
                    "startup_ms=2000")
    result, reason = r.wait(bank)
    assert result == "forfeit1" and "timeout" in reason, (result, reason)
    n = r.query("SELECT count(*) FROM plays WHERE match_id = ? AND "
                "seat = 1", bank)[0][0]
    # the first answer is due at once; 150 ms each: two moves fit in 400
    assert 1 <= n <= 3, "%d moves in a 400 ms bank" % n
    result, reason = r.wait(start)
    assert result == "forfeit1" and "timeout" in reason, (result, reason)
    assert r.query("SELECT count(*) FROM deals WHERE match_id = ?",
                   start)[0][0] == 0


def test_log_unwritable(r):
    """A locked log: no match starts, a running one stops, nothing is lost."""
    r.add("lk-a", EVIL + ["slow", "20"])
    r.add("lk-b", EVIL + ["slow", "20"])
    mid = r.start("classic2", ["lk-a", "lk-b"], "deals_to_win=50")
    # plays logged before the lock, however slowly the bots start (a
    # sanitized refd on a busy machine)
    for _ in range(400):
        if r.query("SELECT count(*) FROM plays WHERE match_id = ?",
                   mid)[0][0] > 0:
            break
        time.sleep(0.05)
    con = sqlite3.connect(r.db, timeout=5, isolation_level=None)
    con.execute("BEGIN EXCLUSIVE")
    try:
        ok, text = r.ctl("match_start", "classic2", "lk-a", "lk-b")
        assert not ok and "log cannot be written" in text, text
        result, reason = r.wait(mid)
        assert result == "aborted" and "log failure" in reason, \
            (result, reason)
    finally:
        con.execute("ROLLBACK")
        con.close()
    # the plays made before the failure are in the log
    told = r.must("match_show", str(mid))
    assert "aborted" in told, told
    plays = r.query("SELECT count(*) FROM plays WHERE match_id = ?", mid)
    assert plays[0][0] > 0
    # and refd serves again once the log is free
    mid2 = r.start("classic2", ["lk-a", "lk-b"])
    r.must("match_stop", str(mid2))


def test_log_unwritable_tournament(r):
    """A locked log aborts a tournament's running match; refd cannot log
    that end then, and keeps the match until it can: once the log is
    free again, the log says aborted, never running."""
    r.add("lt-a", EVIL + ["slow", "20"])
    r.add("lt-b", EVIL + ["slow", "20"])
    tdef = os.path.join(r.tmp, "locked.tour")
    with open(tdef, "w") as f:
        f.write("name locked\nvariant classic2\nbots lt-a lt-b\n"
                "option deals_to_win=50\nmatches 2\nconcurrency 1\n")
    tid = int(r.must("tournament_start", tdef))
    mid = None
    for _ in range(200):
        rows = r.query("SELECT id FROM matches WHERE tournament = ?", tid)
        if rows:
            mid = rows[0][0]
            break
        time.sleep(0.05)
    assert mid is not None, "the tournament started no match"
    time.sleep(0.5)
    con = sqlite3.connect(r.db, timeout=5, isolation_level=None)
    con.execute("BEGIN EXCLUSIVE")
    try:
        result, reason = r.wait(mid)
        assert result == "aborted" and "log failure" in reason, \
            (result, reason)
        time.sleep(0.3)     # the tournament's own reaction, and a sweep
    finally:
        con.execute("ROLLBACK")
        con.close()
    # the next write logs the end it could not
    r.must("match_stop", str(r.start("classic2", ["lt-a", "lt-b"])))
    (state,), = r.query("SELECT state FROM matches WHERE id = ?", mid)
    assert state == "aborted", "match %d is %s in the log" % (mid, state)


def test_bridge_example_bots(r):
    """Every example bot plays over TCP through refctl bridge."""
    refctl = REFCTL
    procs = []
    names = []
    for name, argv in example_bots().items():
        bname = "br-" + name
        r.must("bot_add", bname, "remote", "token-of-" + bname)
        env = dict(os.environ, REFD_TOKEN="token-of-" + bname)
        procs.append(subprocess.Popen(
            [refctl, "bridge", "-p", str(r.port), "-n", bname, "--"] + argv,
            env=env, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        names.append(bname)
    try:
        for variant, n in SEATS.items():
            for k in range(2):
                seats = [names[(k + i) % len(names)] for i in range(n)]
                # a bot seated twice needs two connections: skip those
                if len(set(seats)) < n:
                    continue
                mid = r.start(variant, seats)
                result, reason = r.wait(mid)
                assert not result.startswith(("forfeit", "aborted")), \
                    (variant, seats, result, reason)
                check_log(r, mid)
    finally:
        for p in procs:
            p.kill()
            p.wait()
    env = dict(os.environ, REFD_TOKEN="not-the-token")
    rc = subprocess.call([refctl, "bridge", "-p", str(r.port), "-n",
                          "br-py", "--", "true"], env=env,
                         stderr=subprocess.DEVNULL)
    assert rc == 1, "a refused bridge exits %d" % rc


def bot_processes(r):
    """refd's children still alive and the zombies among them."""
    kids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = open("/proc/%s/stat" % pid).read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == r.proc.pid:
            kids.append((int(pid), fields[0]))
    return kids


def test_bot_transcript(r):
    """What a seat receives, line by line, is tests/bot-classic2.tst."""
    rec, opt = r.recorder()
    path = os.path.join(rec, "golden.txt")
    r.add("gold0", opt + EVIL + ["record", path])
    r.add("gold1", EVIL + ["good"])
    mid = r.start("classic2", ["gold0", "gold1"], "deals_to_win=1",
                  "seed=" + "5e" * 32, "move_ms=5000")
    r.wait(mid)
    # the bot may still be reading its last lines, quit the very last
    for _ in range(250):
        if " quit" in open(path).read():
            break
        time.sleep(0.02)
    got = [re.sub(r"(match_end \S+ \S+ \S+) [0-9a-f]{64} head=\d+:[0-9a-f]{64} "
                  r"sig=[0-9a-f]{128} key=[0-9a-f]{64} "
                  r"transcript=0:\d+:[0-9a-f]{64}:\d+:[0-9a-f]{64}$",
                  r"\1 CHAIN RECEIPT",
                  l.replace("match=%d " % mid, "match=M "))
           for l in open(path).read().splitlines()]
    want = open(os.path.join(SRC, "tests", "bot-classic2.tst")).read()
    want = [l for l in want.splitlines() if not l.startswith("#")]
    for n, (g, w) in enumerate(zip(got, want), 1):
        assert g == w, "line %d: expected %r, got %r" % (n, w, g)
    assert len(got) == len(want), "%d lines, %d expected" % (len(got),
                                                             len(want))


def test_bot_hygiene(r):
    """Capped stderr logs, no zombies, no stray processes, no fd leaks."""
    fds = len(os.listdir("/proc/%d/fd" % r.proc.pid))
    r.add("hy-flood", EVIL + ["stderrflood"])
    # a word of its own: adversarial.py, perhaps running beside, forks
    # such bots too
    tag = "e2e-hygiene-%d" % os.getpid()
    r.add("hy-fork", EVIL + ["forkhold", tag])
    r.add("hy-good", EVIL + ["good"])
    mids = [r.start("classic2", ["hy-flood", "hy-good"]),
            r.start("classic2", ["hy-good", "hy-fork"])]
    for mid in mids:
        r.wait(mid)
    log = os.path.join(r.tmp, "match%d-seat0-hy-flood.log" % mids[0])
    size = os.path.getsize(log)
    assert (1 << 20) <= size <= (1 << 20) + 200, "stderr log %d bytes" % size
    (kind,), = r.query("SELECT kind FROM faults WHERE match_id = ?", mids[1])
    assert kind == "eof", kind
    # quit, SIGTERM, SIGKILL: within a few seconds every bot is gone
    for _ in range(100):
        if not bot_processes(r):
            break
        time.sleep(0.05)
    assert not bot_processes(r), bot_processes(r)
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True,
                         text=True).stdout
    # this test's evilbot: others may be running their tests
    assert EVIL[1] + " forkhold " + tag not in out, \
        "the forked child survived"
    assert len(os.listdir("/proc/%d/fd" % r.proc.pid)) <= fds, \
        "refd holds more descriptors than before"


def test_bot_signals(r):
    """A spawned bot starts with no signal blocked and none ignored,
    whatever refd blocks or ignores itself (SIGHUP, SIGPIPE)."""
    # where the bot user, not only refd's, may read it
    d = tempfile.mkdtemp(prefix="refd-sig.")
    try:
        os.chmod(d, 0o755)
        show = os.path.join(d, "show.sh")
        with open(show, "w") as f:
            f.write('#!/bin/sh\ngrep "^Sig[BI]" /proc/self/status >&2\n'
                    'exec "$@"\n')
        os.chmod(show, 0o755)
        r.add("sig-show", [show] + EVIL + ["good"])
        r.add("sig-good", EVIL + ["good"])
        mid = r.start("classic2", ["sig-show", "sig-good"])
        r.wait(mid)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    with open(os.path.join(r.tmp, "match%d-seat0-sig-show.log" % mid)) as f:
        got = dict(l.split(":", 1) for l in f if l.startswith("Sig"))
    assert set(got) == {"SigBlk", "SigIgn"}, got
    for k, v in got.items():
        assert int(v, 16) == 0, "%s %s" % (k, v.strip())


def test_ragged_answers(r):
    """Answers with CR LF line ends, cut inside a line across reads, and
    lines that arrive together: each is framed as the bot meant it."""
    r.add("ragged", EVIL + ["ragged"])
    r.add("chunky", EVIL + ["good"])
    mid = r.start("classic2", ["ragged", "chunky"], "deals_to_win=1")
    result, reason = r.wait(mid)
    assert result.startswith("seat"), (result, reason)
    assert not r.query("SELECT kind FROM faults WHERE match_id = ?", mid)
    (plays,), = r.query("SELECT count(*) FROM plays WHERE match_id = ?", mid)
    assert plays >= 40, plays
    # the line ends are no part of what the log keeps of an answer
    answers = [a for (a,) in r.query("SELECT answer FROM plays WHERE "
                                     "match_id = ? AND seat = 0", mid)]
    assert answers and all(a and "\r" not in a and "\n" not in a
                           for a in answers), answers[:3]


def test_second_refd_refused(r):
    """A second refd on the same log exits at once, naming the first
    one's pid, and touches nothing: the first one's running match plays
    on and finishes, logged done, and it serves new matches after."""
    r.add("one-a", EVIL + ["slow", "20"])
    r.add("one-b", EVIL + ["slow", "20"])
    mid = r.start("classic2", ["one-a", "one-b"], "deals_to_win=3")
    for _ in range(400):
        if r.query("SELECT count(*) FROM plays WHERE match_id = ?",
                   mid)[0][0] > 0:
            break
        time.sleep(0.05)
    before = r.query("SELECT count(*) FROM matches")[0][0]
    other = os.path.join(r.tmp, "other.sock")
    p = subprocess.run([REFD, "-D", r.db, "-c", other],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "the log is in use by refd pid %d" % r.proc.pid in p.stderr, \
        p.stderr
    assert "aborted" not in p.stderr, p.stderr
    assert not os.path.exists(other), "the second refd made its socket"
    (state,), = r.query("SELECT state FROM matches WHERE id = ?", mid)
    assert state == "running", state
    assert r.query("SELECT count(*) FROM matches")[0][0] == before
    result, reason = r.wait(mid)
    assert result != "aborted", (result, reason)
    check_log(r, mid)
    mid2 = r.start("classic2", ["one-a", "one-b"], "deals_to_win=1")
    result, reason = r.wait(mid2)
    assert result != "aborted", (result, reason)


def test_start_failure_cause(r):
    """A bot that cannot start says why in its fault: the exec error, or
    the last line of its stderr; bot_add refuses a program the bot user
    cannot execute, naming the user and the path."""
    d = tempfile.mkdtemp()
    try:
        os.chmod(d, 0o755)
        gone = os.path.join(d, "gone")
        with open(gone, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(gone, 0o755)
        boom = os.path.join(d, "boom.sh")
        with open(boom, "w") as f:
            f.write("echo starting >&2\necho 'boom: no config' >&2\n"
                    "exit 1\n")
        os.chmod(boom, 0o644)
        r.add("sf-gone", [gone])
        r.add("sf-boom", ["sh", boom])
        r.add("sf-ok", EVIL + ["good"])
        os.unlink(gone)
        mid = r.start("classic2", ["sf-gone", "sf-ok"])
        result, reason = r.wait(mid)
        assert result == "forfeit0" and "cannot run " in reason and \
            gone in reason and "No such file" in reason, (result, reason)
        mid = r.start("classic2", ["sf-ok", "sf-boom"])
        result, reason = r.wait(mid)
        assert result == "forfeit1" and "its stderr ends with " \
            "'boom: no config'" in reason, (result, reason)
        if os.geteuid() != 0:
            return
        # a directory only root may enter
        closed = tempfile.mkdtemp()
        try:
            prog = os.path.join(closed, "bot")
            shutil.copy(os.path.join(SRC, "bots", "randbot.sh"), prog)
            os.chmod(prog, 0o755)
            ok, text = r.ctl("bot_add", "sf-closed", "spawn", prog)
            assert not ok and "bot user nobody cannot execute " + prog in \
                text and closed + " is closed to it" in text, text
            ok, text = r.ctl("bot_add", "sf-closed", "spawn", "sh", prog)
            # the script's directory, which bwrap binds back as nobody
            assert not ok and "bot user nobody cannot read " + closed in \
                text, text
            ok, text = r.ctl("bot_add", "sf-closed", "spawn",
                             os.path.join(d, "nothing"))
            assert not ok and "is no executable file" in text, text
            assert "sf-closed" not in r.must("bot_list")
        finally:
            shutil.rmtree(closed)
    finally:
        shutil.rmtree(d)


def test_stop_and_refuse(r):
    """match_stop aborts a running match; bad input gets clear errors."""
    r.add("slow", EVIL + ["late", "400"])
    mid = r.start("classic2", ["slow", "slow"])
    time.sleep(0.3)
    r.must("match_stop", str(mid))
    result, reason = r.wait(mid)
    assert result == "aborted", result
    (state,), = r.query("SELECT state FROM matches WHERE id = ?", mid)
    assert state == "aborted", state
    for words, err in [
            (("match_start", "joker4", "slow"), "unknown variant"),
            (("match_start", "classic6", "slow", "slow", "slow", "slow",
              "slow"), "needs 6 bots"),
            (("match_start", "chiamata5", "slow", "slow"), "needs 5 bots"),
            (("match_start", "joker3", "slow", "nobody", "slow"),
             "unknown bot"),
            (("match_start", "joker3", "slow", "slow"), "needs 3 bots"),
            (("match_start", "classic2", "slow", "slow",
              "move_ms=99999999999999999999"), "move_ms: "),
            (("match_start", "classic2", "slow", "slow", "seed=zz"),
             "seed: "),
            (("match_stop", "999999"), "no match"),
            (("bot_add", "bad/name", "spawn", "x"), "bad bot name"),
            (("bot_add", "slow", "spawn", "x"), "already exists")]:
        ok, text = r.ctl(*words)
        assert not ok and err in text, (words, text)


def test_listen_ipv6(r):
    """-l takes an IPv6 address in brackets: status shows it, a remote
    bot authenticates over it and plays, and its peer is shown whole;
    an IPv6 address without brackets is refused with the form to use."""
    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError:
        print("# no IPv6 loopback: -l [::1] not tried")
        return
    sub = os.path.join(r.tmp, "v6")
    os.mkdir(sub)
    r2 = Refd(sub, extra=["-l", "[::1]:0"])
    try:
        st = r2.must("status")
        m = re.search(r"^listen \[::1\]:(\d+)$", st, re.M)
        assert m and int(m.group(1)) > 0, st
        port = int(m.group(1))
        r2.must("bot_add", "v6far", "remote", "v6-token-123")
        r2.add("v6near", EVIL + ["good"])
        c = socket.create_connection(("::1", port), 5)
        f = c.makefile("rwb")
        f.write(b"auth v6far v6-token-123\n")
        f.flush()
        assert f.readline().startswith(b"="), "not authenticated"
        f.readline()
        mid = r2.start("classic2", ["v6near", "v6far"], "deals_to_win=1")
        # play the remote seat: the first card of each genplay
        while True:
            line = f.readline().decode()
            if not line:
                break
            w = line.split("#")[0].split()
            if not w:
                continue
            if w[1] == "genplay":
                f.write(("=%s %s\n\n" % (w[0], w[3])).encode())
            else:
                f.write(("=%s\n\n" % w[0]).encode())
            f.flush()
            if w[1] == "match_end":
                break
        c.close()
        result, reason = r2.wait(mid)
        assert result != "aborted" and "disconnect" not in reason, \
            (result, reason)
    finally:
        assert r2.stop() == 0
    log = open(os.path.join(sub, "refd.err")).read()
    assert "listening for bots on [::1]:%d" % port in log, log
    p = subprocess.run([REFD, "-D", ":memory:", "-l", "::1:7433"],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 1 and "in brackets" in p.stderr, p.stderr


def test_botlog_dir_and_port_zero(r):
    """-L with a missing directory makes it (0700), or refuses at start if
    its parent is missing; -l host:0 shows the real port in status."""
    sub = os.path.join(r.tmp, "sub")
    os.mkdir(sub)
    logs = os.path.join(sub, "botlogs")
    r2 = Refd(sub, extra=["-L", logs, "-l", "127.0.0.1:0"])
    try:
        st = r2.must("status")
        m = re.search(r"^listen 127\.0\.0\.1:(\d+)$", st, re.M)
        assert m and int(m.group(1)) > 0, st
        socket.create_connection(("127.0.0.1", int(m.group(1))), 5).close()
        assert os.path.isdir(logs), "no bot log directory"
        assert os.stat(logs).st_mode & 0o777 == 0o700, \
            oct(os.stat(logs).st_mode)
        r2.add("bl-a", EVIL + ["good"])
        r2.add("bl-b", EVIL + ["good"])
        mid = r2.start("classic2", ["bl-a", "bl-b"], "deals_to_win=1")
        r2.wait(mid)
        assert os.listdir(logs), "no bot log written"
    finally:
        assert r2.stop() == 0
    # a port given is shown as given
    st = r.must("status")
    assert "\nlisten 127.0.0.1:%d" % r.port in st, st
    bad = os.path.join(sub, "no", "botlogs")
    p = subprocess.run([REFD, "-D", os.path.join(sub, "b.db"), "-c",
                        os.path.join(sub, "b.sock"), "-L", bad],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=30)
    assert p.returncode != 0, p
    assert b"bot log directory" in p.stderr, p.stderr


def test_refctl_match_output(r):
    """refctl match prints what refctl(1) says: its start, the watched
    events indented, then "match ID: RESULT REASON"; and refctl(1) and
    refd(8) name every line status prints."""
    r.add("ro-a", EVIL + ["good"])
    r.add("ro-b", EVIL + ["good"])
    for watch in ([], ["--watch"]):
        p = subprocess.run([REFCTL, "-c", r.sock, "match", "--variant",
                            "classic2", "--option", "deals_to_win=1"] +
                           watch + ["ro-a", "ro-b"], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        m = re.fullmatch(r"match (\d+) started", lines[0])
        assert m, lines
        mid = m.group(1)
        assert re.fullmatch(r"match %s: seat[01] played out" % mid,
                            lines[-1]), lines
        middle = lines[1:-1]
        if watch:
            assert middle and all(l.startswith("  ") for l in middle), lines
        else:
            assert middle == [], lines
    keys = [l.split()[0] for l in r.must("status").splitlines()]
    for page, sect in (("refctl.1", ".It Cm status"),
                       ("refd.8", ".It Ic status")):
        text = open(os.path.join(SRC, "man", page)).read()
        text = text[text.index(sect):]
        text = text[:text.index("\n.It ", 1)]
        for k in keys:
            assert ".Dq Li %s " % k in text, (page, k)
    # and refctl(1)'s example shows them all, in refd's order
    text = open(os.path.join(SRC, "man", "refctl.1")).read()
    text = text[text.index("$ refctl status\n"):]
    shown = [l.split()[0] for l in text[:text.index("\n.Ed")].splitlines()[1:]]
    assert shown == keys, (shown, keys)


def test_idle_lines(r):
    """An idle remote connection survives blank and comment lines, as
    refd(8) and refd-protocol(7) say, and is closed by any other line."""
    r.must("bot_add", "idler", "remote", "idler-token-1")

    def idle():
        out = r.must("bot_list")
        m = re.search(r"^idler remote idle=(\d+)$", out, re.M)
        assert m, out
        return int(m.group(1))

    s = socket.create_connection(("127.0.0.1", r.port))
    s.settimeout(10)
    s.sendall(b"auth idler idler-token-1\n")
    assert s.recv(100) == b"=\n\n"
    s.sendall(b"\n   \t \r\n# a comment\n  # another\n")
    time.sleep(0.3)
    assert idle() == 1
    s.sendall(b"hello\n")
    assert s.recv(100) == b"", "still open"
    s.close()
    for _ in range(50):
        if idle() == 0:
            break
        time.sleep(0.05)
    assert idle() == 0


def test_commit_window(r):
    """Plays wait at most commit_ms (25) for their commit, deal or not:
    a reader of the file sees a slow deal's plays while it runs, and
    after the match every play is there."""
    r.must("bot_add", "cw0", "spawn", *EVIL, "slow", "40")
    r.must("bot_add", "cw1", "spawn", *EVIL, "slow", "40")
    mid = r.start("classic2", ["cw0", "cw1"], "deal_cap=1")
    seen = 0
    deadline = time.time() + 20
    while time.time() < deadline:
        con = sqlite3.connect("file:%s?mode=ro" % r.db, uri=True,
                              timeout=5)
        try:
            seen = con.execute("SELECT count(*) FROM plays WHERE "
                               "match_id = ?", (mid,)).fetchone()[0]
            ended = con.execute("SELECT count(*) FROM deal_results WHERE "
                                "match_id = ?", (mid,)).fetchone()[0]
        finally:
            con.close()
        # mid-deal: committed by the window's timer, not by a deal end
        if seen >= 5 and ended == 0:
            break
        time.sleep(0.05)
    assert seen >= 5 and ended == 0, (seen, ended)
    result, reason = r.wait(mid)
    assert result.startswith(("seat", "draw")), (result, reason)
    check_log(r, mid)


def test_commit_ms_zero(r):
    """commit_ms 0: no bot is told of a play the log does not hold.  A bot
    takes the log's write lock as it answers a genplay, and holds it past
    refd's 200 ms wait: that play cannot be written, and the match is
    aborted.  Neither other bot may have been told of it.  With a window
    of a second (where a play is written just after the next genplay
    leaves), the next bot has been told of it, which shows the test
    can see it."""
    del r   # a refd of its own for each setting
    unlogged = {}
    for ms in (0, 1000):
        tmp = tempfile.mkdtemp(prefix="refd-commit.")
        conf = os.path.join(tmp, "refd.conf")
        with open(conf, "w") as f:
            f.write("commit_ms %d\n" % ms)
        own = Refd(tmp, extra=["-f", conf])
        try:
            for i in range(3):
                own.must("bot_add", "cz%d" % i, "remote", "commit-tok-%d" % i)
            bots = [RemoteBot(own.port, "cz%d" % i, "commit-tok-%d" % i,
                              mode="lock:3" if i == 0 else "good",
                              db=own.db) for i in range(3)]
            for b in bots:
                b.start()
            mid = own.start("joker3", ["cz0", "cz1", "cz2"])
            result, reason = own.wait(mid)
            assert result == "aborted" and "log failure" in reason, \
                (result, reason)
            for b in bots:
                b.join(10)
            (logged,), = own.query("SELECT count(*) FROM plays WHERE "
                                   "match_id = ?", mid)
            assert logged >= 6, logged
            unlogged[ms] = max(b.told for b in bots) - logged
        finally:
            own.stop()
            shutil.rmtree(tmp, ignore_errors=True)
    assert unlogged[0] <= 0, "told of %d plays not logged" % unlogged[0]
    assert unlogged[1000] > 0, "no bot was told of the play not logged"


def test_deal_end_alone(r):
    """A match alone, with commit_ms 1000: no deal's end waits for the
    log's transaction, which stays open across passes for a second, and
    every deal is in the log once the match's end commits it."""
    del r
    tmp = tempfile.mkdtemp(prefix="refd-alone.")
    conf = os.path.join(tmp, "refd.conf")
    with open(conf, "w") as f:
        f.write("commit_ms 1000\n")
    own = Refd(tmp, extra=["-f", conf])
    try:
        for i in range(3):
            own.must("bot_add", "al%d" % i, "spawn",
                     *example_bots()["crand"])
        began = time.time()
        mid = own.start("joker3", ["al0", "al1", "al2"], "target=5")
        result, reason = own.wait(mid)
        took = time.time() - began
        assert reason == "played out", (result, reason)
        (deals,), = own.query("SELECT count(*) FROM deal_results WHERE "
                              "match_id = ?", mid)
        assert deals >= 2, deals
        # a second's wait at each deal's end would take deals seconds
        assert took < 0.5 * deals, "%d deals took %.1f s" % (deals, took)
        check_log(own, mid)
    finally:
        own.stop()
        shutil.rmtree(tmp, ignore_errors=True)


LOSTPUSH = r"""
#define _GNU_SOURCE
#include <sys/socket.h>
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include <sqlite3.h>

/*
 * Once refd reads an answer marked "#mark": its monotonic clock leaps 2 s,
 * so that the open group is due for a commit at once, and the next
 * COMMIT fails as on a full disk.
 */
static long long	leap_ns;
static int		fail_commit;

ssize_t
recvmsg(int fd, struct msghdr *m, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	ssize_t	 n;
	size_t	 i, len;

	if (real == NULL)
		real = (ssize_t (*)(int, struct msghdr *, int))dlsym(RTLD_NEXT,
		    "recvmsg");
	n = real(fd, m, flags);
	for (i = 0, len = n > 0 ? (size_t)n : 0; i < m->msg_iovlen && len > 0;
	    i++) {
		size_t	 k = len < m->msg_iov[i].iov_len ? len :
			    m->msg_iov[i].iov_len;

		if (k >= 5 && memmem(m->msg_iov[i].iov_base, k, "#mark", 5) &&
		    leap_ns == 0) {
			leap_ns = 2000000000LL;
			fail_commit = 1;
		}
		len -= k;
	}
	return n;
}

int
clock_gettime(clockid_t c, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	long long	 ns;
	int		 rc;

	if (real == NULL)
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT,
		    "clock_gettime");
	rc = real(c, ts);
	if (rc == 0 && c == CLOCK_MONOTONIC && leap_ns != 0) {
		ns = ts->tv_nsec + leap_ns;
		ts->tv_sec += ns / 1000000000LL;
		ts->tv_nsec = ns % 1000000000LL;
	}
	return rc;
}

int
sqlite3_step(sqlite3_stmt *st)
{
	static int (*real)(sqlite3_stmt *);
	const char	*sql = sqlite3_sql(st);

	if (real == NULL)
		real = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_step");
	if (fail_commit && sql != NULL && strcmp(sql, "COMMIT") == 0) {
		fail_commit = 0;
		return SQLITE_FULL;
	}
	return real(st);
}
"""


def test_lost_group_at_push(r):
    """The commit a lone match's next genplay makes due, just before it
    leaves, fails (a shim: refd's clock leaps 2 s as it reads a marked
    answer, and the COMMIT after it fails as on a full disk), with the
    deal's own row committed before (a bot answered after the window).
    The group is lost and the match aborted, its end logged; the marked
    play, to be logged after that genplay, must not then follow the end
    in the log, where the audit would find it.  Without the check, it
    did ("comes after the match's end"), as the storage-fault test had
    once found under the sanitizers."""
    del r   # a refd of its own
    tmp = tempfile.mkdtemp(prefix="refd-push.")
    with open(os.path.join(tmp, "refd.conf"), "w") as f:
        f.write("commit_ms 1000\n")
    own = refd_with_shim(tmp, LOSTPUSH, "lostpush",
                         extra=("-v", "-f", os.path.join(tmp, "refd.conf"),
                                "-m", "10000"))
    try:
        for i in range(3):
            own.must("bot_add", "lp%d" % i, "remote", "push-tok-%d" % i)
        # lp1 answers its first genplay after the window (1 s), so
        # that the deal's row is committed before the group that is lost
        bots = [RemoteBot(own.port, "lp%d" % i, "push-tok-%d" % i,
                          mode=("mark:3", "late:1200", "good")[i])
                for i in range(3)]
        for b in bots:
            b.start()
        mid = own.start("joker3", ["lp0", "lp1", "lp2"])
        result, reason = own.wait(mid)
        for b in bots:
            b.join(10)
    finally:
        own.stop()
    assert result == "aborted" and "log failure" in reason, (result, reason)
    p = subprocess.run([REFCTL, "audit", "--db", own.db, str(mid)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-2000:]
    shutil.rmtree(tmp, ignore_errors=True)


def test_keep_matches(r):
    """Finished matches stay listed until keep_matches more have ended,
    then refd forgets them (its memory stays flat); the log keeps them
    all, and a match still playing is never forgotten."""
    sub = os.path.join(r.tmp, "keep")
    os.mkdir(sub)
    conf = os.path.join(sub, "refd.conf")
    with open(conf, "w") as f:
        f.write("keep_matches 3\n")
    r2 = Refd(sub, extra=["-f", conf])
    try:
        r2.add("kp-a", EVIL + ["good"])
        r2.add("kp-b", EVIL + ["good"])
        r2.add("kp-s", EVIL + ["slow", "150"])
        r2.add("kp-t", EVIL + ["good"])
        # it plays until the test stops it, however slow the machine
        long = r2.start("classic2", ["kp-s", "kp-t"], "deals_to_win=1000")
        ids = []
        for _ in range(7):
            mid = r2.start("classic2", ["kp-a", "kp-b"], "deal_cap=1")
            r2.wait(mid)
            ids.append(mid)
        # the forgetting runs from the loop, after the end
        deadline = time.time() + 10
        while time.time() < deadline:
            ok, _ = r2.ctl("match_show", str(ids[3]))
            if not ok:
                break
            time.sleep(0.05)
        listed = [int(l.split()[0]) for l in
                  r2.must("match_list").splitlines()]
        # the match still playing, started first, is kept
        assert listed == [long] + ids[4:], (listed, long, ids)
        assert " playing " in r2.must("match_show", str(long)), long
        for mid in ids[:4]:
            ok, text = r2.ctl("match_show", str(mid))
            assert not ok and text == "no match %d in this refd" % mid, \
                text
        for mid in ids[4:]:
            assert r2.must("match_wait", str(mid)).split()[0] in \
                ("seat1", "seat2", "draw"), mid
        st = r2.must("status")
        over = int(re.search(r"^matches_over (\d+)$", st, re.M).group(1))
        assert over == 3, st
        assert r2.query("SELECT count(*) FROM matches WHERE state = "
                        "'done'")[0][0] >= 7
        r2.must("match_stop", str(long))
        assert r2.wait(long)[0] == "aborted", long
    finally:
        assert r2.stop() == 0
    # out of range: refused at start, with the key named
    with open(conf, "w") as f:
        f.write("keep_matches -1\n")
    p = subprocess.run([REFD, "-D", os.path.join(sub, "b.db"), "-c",
                        os.path.join(sub, "b.sock"), "-f", conf],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=30)
    assert p.returncode != 0 and b"keep_matches" in p.stderr, p


TESTS = [test_ctl_transcript, test_variants_every_bot, test_tcp_matches,
         test_wrong_token, test_faults_while_serving,
         test_disconnect_mid_deal, test_fallback_policy, test_information,
         test_no_forged_output, test_watch_then_command, test_auth_garbage,
         test_clocks, test_log_unwritable, test_log_unwritable_tournament,
         test_bridge_example_bots,
         test_bot_transcript, test_bot_hygiene, test_bot_signals,
         test_ragged_answers,
         test_second_refd_refused, test_start_failure_cause,
         test_stop_and_refuse,
         test_botlog_dir_and_port_zero, test_listen_ipv6, test_refctl_match_output,
         test_idle_lines, test_commit_window, test_commit_ms_zero,
         test_deal_end_alone,
         test_lost_group_at_push, test_keep_matches]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-e2e.")
    r = Refd(tmp)
    passed, failed = run_against(r, TESTS, (r,))
    finish(passed, failed, tmp)


if __name__ == "__main__":
    main()
