#!/usr/bin/env python3
"""audit.py: refctl audit, show and export against the log of a real refd.

Plays matches of every variant with the example bots, a fallback fault,
a forfeit, a draw at the deal cap and an operator's stop, then:

- audit verifies every match;
- every kind of edit to a copy of the log is caught, the message naming
  the match, deal, trick and seat where it was made;
- show --seat never names a card its seat could not see, and equals the
  lines a recording bot received in that seat;
- export gives JSON whose chain an independent implementation
  (hashlib) recomputes;
- a refd killed mid-match leaves a log that audits after the restart;
- corrupt and hostile logs give a message and exit 1 or 2, never a crash.

Prints "N passed, M failed"; exits 1 if anything failed.
Environment: top_builddir, top_srcdir (default: the current directory).
"""
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402  (the Refd class and the information checker)

BUILD, SRC = e2e.BUILD, e2e.SRC
REFCTL = os.environ.get("REFCTL") or os.path.join(BUILD, "refd", "refctl")
EVIL = e2e.EVIL
PY = e2e.PY
TABLES = ("deals", "plays", "tricks", "jokers", "faults", "deal_results")


def refctl(*args, timeout=60):
    """Run refctl; returns (returncode, stdout, stderr)."""
    p = subprocess.run([REFCTL] + [str(a) for a in args],
                       capture_output=True, timeout=timeout)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def wait_file(path, text, tries=250):
    """Wait until a recording bot has written text (it may lag behind)."""
    for _ in range(tries):
        if os.path.exists(path) and text in open(path).read():
            return
        time.sleep(0.02)
    raise AssertionError("%s never got %r" % (path, text))


class Log:
    """The log every test reads: matches played once, then refd stopped."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.db = os.path.join(tmp, "log.db")
        self.mid = {}           # name -> match id
        self.rec = {}           # variant -> (match id, [recording paths])
        r = e2e.Refd(tmp)
        try:
            self.play(r)
        finally:
            rc = r.stop()
        assert rc == 0, "refd exited with %s" % rc

    def play(self, r):
        bots = {
            "crand": [os.path.join(BUILD, "bots", "randbot"), "-s", "5"],
            "crand9": [os.path.join(BUILD, "bots", "randbot"), "-s", "9"],
            "heur": [os.path.join(BUILD, "bots", "heurbot")],
            "py": [PY, os.path.join(SRC, "bots", "randbot.py"), "11"],
            "good": EVIL + ["good"],
            "notacard": EVIL + ["notacard"],
            "illegal": EVIL + ["illegal"],
            "late": EVIL + ["late", "600"],
        }
        for name, argv in bots.items():
            r.add(name, argv)
        start = {
            "joker3": ("joker3", ["crand", "heur", "py"]),
            "classic2": ("classic2", ["heur", "py"]),
            "classic3": ("classic3", ["py", "crand", "heur"],
                         "removed_two=S"),
            "classic4": ("classic4", ["crand", "heur", "py", "crand9"]),
            "fallback": ("joker3", ["good", "notacard", "good"],
                         "policy=fallback", "max_faults=3"),
            "forfeit": ("joker3", ["good", "illegal", "good"]),
            "draw": ("classic2", ["crand", "crand9"], "deal_cap=1"),
            "stopped": ("classic2", ["late", "good"]),
        }
        for name, (variant, seats, *opts) in start.items():
            self.mid[name] = r.start(variant, seats, *opts)
        time.sleep(0.3)
        r.must("match_stop", str(self.mid["stopped"]))
        rec, opt = r.recorder()
        for variant, n in e2e.SEATS.items():
            paths = []
            names = []
            for i in range(n):
                name = "rec-%s-%d" % (variant, i)
                paths.append(os.path.join(rec, name + ".txt"))
                r.add(name, opt + EVIL + ["record", paths[-1]])
                names.append(name)
            self.rec[variant] = (r.start(variant, names), paths)
        results = {}
        for name, mid in self.mid.items():
            results[name] = r.wait(mid)[0]
        for variant, (mid, paths) in self.rec.items():
            r.wait(mid)
            for p in paths:
                wait_file(p, " match_end ")
        assert results["fallback"] == "forfeit1", results
        assert results["forfeit"] == "forfeit1", results
        assert results["draw"] == "draw", results
        assert results["stopped"] == "aborted", results
        for v in e2e.SEATS:
            assert results[v].startswith(("seat", "team")), results

    def copy(self, name):
        """A copy of the log to spoil."""
        path = os.path.join(self.tmp, name + ".db")
        shutil.copyfile(self.db, path)
        return path

    def nmatches(self):
        con = sqlite3.connect(self.db)
        try:
            return con.execute("SELECT count(*) FROM matches").fetchone()[0]
        finally:
            con.close()


def link_of(con, mid, no):
    """The stored link number no of match mid (chain0 for 0)."""
    if no == 0:
        return con.execute("SELECT chain0 FROM matches WHERE id = ?",
                           (mid,)).fetchone()[0]
    for t in TABLES:
        row = con.execute("SELECT chain FROM %s WHERE match_id = ? AND "
                          "chain_no = ?" % t, (mid, no)).fetchone()
        if row:
            return row[0]
    raise KeyError(no)


def blake(prev_hex, text):
    """One link: BLAKE2b-256 of the previous link's bytes and the text."""
    h = hashlib.blake2b(digest_size=32)
    h.update(bytes.fromhex(prev_hex))
    h.update(text.encode())
    return h.hexdigest()


def audit_fails(path, mid, pattern):
    """audit --all exits 1, and match mid's line matches pattern."""
    rc, out, err = refctl("audit", "--db", path, "--all")
    assert rc == 1, "audit exit %d:\n%s%s" % (rc, out, err)
    lines = [l for l in out.splitlines()
             if l.startswith("match %d FAILED: " % mid)]
    assert lines, "match %d not failed:\n%s" % (mid, out)
    assert re.search(pattern, lines[0]), \
        "%r does not match %r" % (lines[0], pattern)
    bad = [l for l in out.splitlines() if "FAILED" in l]
    assert len(bad) == 1, "other matches failed too: %s" % bad
    return lines[0]


# ---------------------------------------------------------------- tests

def test_audit_verifies(log):
    """Every match of the log verifies; running the audit writes nothing."""
    before = hashlib.sha256(open(log.db, "rb").read()).hexdigest()
    rc, out, err = refctl("audit", "--db", log.db, "--all")
    assert rc == 0, out + err
    n = log.nmatches()
    assert out.splitlines()[-1] == "%d matches verified, 0 failed" % n, out
    for name, mid in log.mid.items():
        assert re.search(r"^match %d verified: " % mid, out, re.M), \
            (name, out)
    assert "aborted (stopped by the operator)" in out, out
    rc2, out2, _ = refctl("audit", "--db", log.db)
    assert rc2 == 0 and out2 == out, out2
    rc, out, _ = refctl("audit", "--db", log.db, log.mid["fallback"],
                        log.mid["joker3"])
    assert rc == 0 and out.splitlines()[-1] == \
        "2 matches verified, 0 failed", out
    after = hashlib.sha256(open(log.db, "rb").read()).hexdigest()
    assert before == after, "the audit changed the log"
    for args in ([], ["--db"], ["--db", log.db, "12x"],
                 ["--db", os.path.join(log.tmp, "nothing.db")]):
        rc, out, err = refctl("audit", *args)
        assert rc == 2 and err, (args, rc, out, err)
    rc, out, _ = refctl("audit", "--db", log.db, 999999)
    assert rc == 1 and "match 999999 FAILED: no such match" in out, out


def test_tamper(log):
    """One edit per copy of the log; each is caught where it was made."""
    j = log.mid["joker3"]
    fb = log.mid["fallback"]

    def con_of(path):
        return sqlite3.connect(path, isolation_level=None)

    def play(con, deal, seq):
        return con.execute(
            "SELECT trick, seat, card, ms, fault, chain_no FROM plays "
            "WHERE match_id = ? AND deal_no = ? AND seq = ?",
            (j, deal, seq)).fetchone()

    cases = []

    def case(fn):
        cases.append(fn)
        return fn

    @case
    def played_card(path):
        con = con_of(path)
        trick, seat, card, _, _, _ = play(con, 2, 4)
        other = play(con, 2, 3)[2]
        con.execute("UPDATE plays SET card = ? WHERE match_id = ? AND "
                    "deal_no = 2 AND seq = 4", (other, j))
        return j, r"deal 2 trick %d seat %d: play seq 4: logged card %s, " \
            r"but card not in hand" % (trick, seat, other)

    @case
    def trick_winner(path):
        con = con_of(path)
        w, = con.execute("SELECT winner FROM tricks WHERE match_id = ? AND "
                         "deal_no = 2 AND trick = 3", (j,)).fetchone()
        con.execute("UPDATE tricks SET winner = ? WHERE match_id = ? AND "
                    "deal_no = 2 AND trick = 3", ((w + 1) % 3, j))
        return j, r"deal 2 trick 3: logged winner %d, the rules give %d " \
            r"\(seat" % ((w + 1) % 3, w)

    @case
    def deck_swap(path):
        con = con_of(path)
        deck, = con.execute("SELECT deck FROM deals WHERE match_id = ? AND "
                            "deal_no = 2", (j,)).fetchone()
        cards = deck.split()
        cards[5], cards[20] = cards[20], cards[5]
        con.execute("UPDATE deals SET deck = ? WHERE match_id = ? AND "
                    "deal_no = 2", (" ".join(cards), j))
        return j, r"deal 2 seat \d: deck card 5 \(dealt to seat \d\): " \
            r"logged %s, the seed gives %s" % (cards[5], cards[20])

    @case
    def deal_result(path):
        con = con_of(path)
        res, = con.execute("SELECT result FROM deal_results WHERE "
                           "match_id = ? AND deal_no = 2", (j,)).fetchone()
        new = "joker" if res != "joker" else "allies"
        con.execute("UPDATE deal_results SET result = ? WHERE match_id = ? "
                    "AND deal_no = 2", (new, j))
        return j, r"deal 2: logged result %s, the rules give %s" % (new, res)

    @case
    def match_points(path):
        con = con_of(path)
        mp, = con.execute("SELECT mpoints FROM deal_results WHERE "
                          "match_id = ? AND deal_no = 3", (j,)).fetchone()
        v = [int(x) for x in mp.split(",")]
        v[0] += 1
        new = ",".join(map(str, v))
        con.execute("UPDATE deal_results SET mpoints = ? WHERE "
                    "match_id = ? AND deal_no = 3", (new, j))
        return j, r"deal 3: logged match points %s, the rules give %s" % (
            new, mp)

    @case
    def deleted_play(path):
        con = con_of(path)
        # not the play that made the Joker: its row would be missed first
        trump, = con.execute("SELECT trump FROM deals WHERE match_id = ? "
                             "AND deal_no = 2", (j,)).fetchone()
        first = con.execute("SELECT min(seq) FROM plays WHERE match_id = ? "
                            "AND deal_no = 2 AND substr(card, -1) = ?",
                            (j, trump[-1])).fetchone()[0]
        seq = 8 if first == 7 else 7
        trick, seat = play(con, 2, seq)[:2]
        con.execute("DELETE FROM plays WHERE match_id = ? AND deal_no = 2 "
                    "AND seq = ?", (j, seq))
        return j, r"deal 2 trick %d seat %d: play seq %d is missing" % (
            trick, seat, seq)

    @case
    def inserted_play(path):
        con = con_of(path)
        no, = con.execute("SELECT chain_no FROM deal_results WHERE "
                          "match_id = ? AND deal_no = 2", (j,)).fetchone()
        con.execute("INSERT INTO plays VALUES (?, 2, 39, 12, 0, '1C', 5, 0, "
                    "?, ?)", (j, no, "0" * 64))
        return j, r"deal 2 trick 12 seat 0: the rules make the end of " \
            r"deal 2 the next row, the log has play seq 39 of seat 0"

    @case
    def seed(path):
        con = con_of(path)
        con.execute("UPDATE matches SET seed = ? WHERE id = ?",
                    ("0123456789abcdef" * 4, j))
        return j, r"the seed does not match its commitment"

    @case
    def options(path):
        con = con_of(path)
        con.execute("UPDATE matches SET options = replace(options, "
                    "'target=10', 'target=11') WHERE id = ?", (j,))
        return j, r"the chain breaks at link 0"

    @case
    def relinked_row(path):
        # an edit no rule sees (the time taken), its own link recomputed:
        # the chain breaks at the next link
        con = con_of(path)
        trick, seat, card, ms, fault, no = play(con, 2, 10)
        text = "play 2 10 trick=%d seat=%d card=%s ms=%d fault=%d" % (
            trick, seat, card, ms + 1, fault)
        con.execute("UPDATE plays SET ms = ?, chain = ? WHERE match_id = ? "
                    "AND deal_no = 2 AND seq = 10",
                    (ms + 1, blake(link_of(con, j, no - 1), text), j))
        return j, r"deal 2 .*the chain breaks at link %d, " % (no + 1)

    @case
    def relinked_winner(path):
        # the same with a rule's row: the rules see it first
        con = con_of(path)
        w, p, no = con.execute(
            "SELECT winner, points, chain_no FROM tricks WHERE "
            "match_id = ? AND deal_no = 4 AND trick = 5", (j,)).fetchone()
        text = "trick 4 5 winner=%d points=%d" % ((w + 1) % 3, p)
        con.execute("UPDATE tricks SET winner = ?, chain = ? WHERE "
                    "match_id = ? AND deal_no = 4 AND trick = 5",
                    ((w + 1) % 3, blake(link_of(con, j, no - 1), text), j))
        return j, r"deal 4 trick 5: logged winner %d, the rules give %d" % (
            (w + 1) % 3, w)

    @case
    def final_chain(path):
        con = con_of(path)
        con.execute("UPDATE matches SET final_chain = ? WHERE id = ?",
                    ("f" * 64, j))
        return j, r"the chain breaks at the match's end \(link \d+\): " \
            r"final_chain f{64}, the chain gives"

    @case
    def match_result(path):
        con = con_of(path)
        con.execute("UPDATE matches SET result = 'seat0' WHERE id = ? AND "
                    "result != 'seat0'", (j,))
        con.execute("UPDATE matches SET result = 'seat1' WHERE id = ? AND "
                    "result = 'seat0' AND changes() = 0", (j,))
        return j, r"deal \d+: logged match result seat[01], the rules give"

    @case
    def fallback_card(path):
        con = con_of(path)
        fid, action, deal = con.execute(
            "SELECT id, action, deal_no FROM faults WHERE match_id = ? "
            "ORDER BY id LIMIT 1", (fb,)).fetchone()
        card = action.split()[1]
        other = "1C" if card != "1C" else "1D"
        con.execute("UPDATE faults SET action = ? WHERE id = ?",
                    ("fallback " + other, fid))
        return fb, r"deal %d trick \d+ seat 1: logged fallback %s, the " \
            r"documented fallback card of the hand .* is %s" % (
                deal, other, card)

    @case
    def fault_flag(path):
        con = con_of(path)
        con.execute("UPDATE plays SET fault = 0 WHERE match_id = ? AND "
                    "fault = 1", (fb,))
        return fb, r"deal 1 trick \d+ seat 1: the fallback fault played " \
            r"\w+, the log's next play is \w+ of seat 1 with fault=0"

    for fn in cases:
        path = log.copy("tamper-" + fn.__name__)
        mid, pattern = fn(path)
        line = audit_fails(path, mid, pattern)
        print("#   %-16s %s" % (fn.__name__, line))


def test_seat_views(log):
    """show --seat names no card its seat could not see, and equals what
    a recording bot in that seat received, line for line."""
    for variant, (mid, paths) in log.rec.items():
        for seat, path in enumerate(paths):
            rc, out, err = refctl("show", "--db", log.db, mid, "--seat",
                                  seat)
            assert rc == 0, err
            shown = out.splitlines()
            view = os.path.join(log.tmp, "view-%s-%d.txt" % (variant, seat))
            with open(view, "w") as f:
                f.write("".join("0 %s\n" % l for l in shown))
            revealed = e2e.check_transcript(view, variant, seat)
            assert revealed == (variant == "classic4"), variant
            got = []
            for line in open(path):
                w = line.rstrip("\n").split(" ", 1)
                if len(w) == 2 and w[1].split()[0] not in (
                        "name", "version", "quit"):
                    got.append(w[1])
            assert shown == got, "%s seat %d: first difference at %s" % (
                variant, seat, next(
                    (i, a, b) for i, (a, b) in
                    enumerate(zip(shown + [None] * len(got),
                                  got + [None] * len(shown))) if a != b))
    # one deal alone, and a seat the variant does not have
    mid = log.rec["classic2"][0]
    rc, out, _ = refctl("show", "--db", log.db, mid, "--seat", 0,
                        "--deal", 2)
    assert rc == 0 and out.startswith("deal_start 2 "), out[:80]
    rc, _, err = refctl("show", "--db", log.db, mid, "--seat", 2)
    assert rc == 2 and "no seat 2" in err, err


def test_show(log):
    """show prints a whole transcript and ends with the audit's verdict."""
    for name, mid in log.mid.items():
        rc, out, err = refctl("show", "--db", log.db, mid)
        assert rc == 0, (name, out[-300:], err)
        assert out.startswith("match %d " % mid), out[:80]
        assert "\naudit: verified" in out, (name, out[-300:])
    rc, out, _ = refctl("show", "--db", log.db, log.mid["fallback"])
    assert "FAULT of seat 1: illegal" in out and "(fallback: refd" in out
    rc, out, _ = refctl("show", "--db", log.db, log.mid["joker3"],
                        "--deal", 2)
    assert rc == 0 and "\ndeal 2 " in out and "\ndeal 1 " not in out \
        and "\ndeal 3 " not in out, out[:500]
    assert "becomes the Joker" in out and "stock, in drawing order" in out
    path = log.copy("show-spoiled")
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("DELETE FROM plays WHERE match_id = ? AND deal_no = 2 AND "
                "seq = 7", (log.mid["joker3"],))
    con.close()
    rc, out, _ = refctl("show", "--db", path, log.mid["joker3"])
    assert rc == 1 and "audit: match %d FAILED: deal 2 " % \
        log.mid["joker3"] in out, out[-300:]


def test_export(log):
    """export gives one JSON document per match whose chain anyone can
    recompute (here with hashlib), and escapes whatever the log holds."""
    mids = sorted(log.mid.values())
    rc, out, err = refctl("export", "--db", log.db, "--format", "json",
                          *mids)
    assert rc == 0, err
    docs = [json.loads(l) for l in out.splitlines()]
    assert [d["match"]["id"] for d in docs] == mids
    for d in docs:
        m = d["match"]
        h = hashlib.blake2b(digest_size=32)
        h.update(("refd-chain-v1match %d %s %s %s %s" % (
            m["id"], m["variant"], m["options"], m["commitment"],
            m["rng"])).encode())
        link = h.hexdigest()
        assert link == m["chain0"]
        for n, c in enumerate(d["chain"], 1):
            assert c["no"] == n
            link = blake(link, c["text"])
            assert link == c["link"], (m["id"], c)
        if m["end_no"] is not None:
            assert link == d["final_chain"] == m["final_chain"]
        plays = sum(len(x["plays"]) for x in d["deals"])
        assert plays == sum(1 for c in d["chain"] if c["row"] == "play")
    j = next(d for d in docs if d["match"]["id"] == log.mid["joker3"])
    d1 = j["deals"][0]
    assert len(d1["deck"]) == 39 and d1["removed"] in d1["deck"] or True
    assert d1["result"]["result"] in ("joker", "allies", "void")
    assert isinstance(d1["result"]["points"], list) and \
        sum(d1["result"]["points"]) == 120
    assert d1["joker"]["seat"] in (0, 1, 2)
    assert len(d1["plays"]) == 39 and len(d1["tricks"]) == 13
    f = next(d for d in docs if d["match"]["id"] == log.mid["fallback"])
    assert [x["action"].split()[0] for x in f["faults"]] == \
        ["fallback", "fallback", "forfeit"]
    # strings are escaped, control characters as \u00XX
    path = log.copy("export-hostile")
    con = sqlite3.connect(path, isolation_level=None)
    nasty = "a\"b\\c\x01\x1f\x7f\n\té"
    con.execute("UPDATE faults SET evidence = ? WHERE match_id = ?",
                (nasty, log.mid["fallback"]))
    con.close()
    rc, out, err = refctl("export", "--db", path, log.mid["fallback"])
    assert rc == 0, err
    assert "\\u0001" in out and "\\u007f" in out and "\n" not in out[:-1]
    doc = json.loads(out)
    assert doc["faults"][0]["evidence"] == nasty
    rc, _, err = refctl("export", "--db", log.db, mids[0], "--format", "xml")
    assert rc == 2 and "json" in err, err


def test_crash(log):
    """SIGKILL mid-match: the log is whole, the restart aborts the match,
    and the audit verifies every deal logged before the kill."""
    tmp = os.path.join(log.tmp, "crash")
    os.mkdir(tmp)
    r = e2e.Refd(tmp)
    try:
        for i in range(3):
            r.add("slow%d" % i, EVIL + ["late", "20"])
        mid = r.start("joker3", ["slow0", "slow1", "slow2"], "target=40")
        for _ in range(3000):
            n = r.query("SELECT count(*) FROM deal_results WHERE "
                        "match_id = ?", mid)[0][0]
            if n >= 3:
                break
            time.sleep(0.01)
        assert n >= 3, "only %d deals after 30 s" % n
        r.proc.send_signal(signal.SIGKILL)
        r.proc.wait()
    finally:
        if r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()
        r.err.close()
    con = sqlite3.connect(r.db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    state, = con.execute("SELECT state FROM matches WHERE id = ?",
                         (mid,)).fetchone()
    con.close()
    assert state == "running", state
    os.unlink(r.sock)
    r2 = e2e.Refd(tmp)
    try:
        row = r2.query("SELECT state, result, reason, final_chain FROM "
                       "matches WHERE id = ?", mid)[0]
    finally:
        assert r2.stop() == 0
    assert row == ("aborted", "aborted", "refd restarted", None), row
    rc, out, err = refctl("audit", "--db", r.db, "--all")
    assert rc == 0, out + err
    m = re.search(r"match %d verified: aborted \(refd restarted\) after "
                  r"(\d+) complete deals" % mid, out)
    assert m and int(m.group(1)) >= n, out
    print("#   " + out.splitlines()[0])


def test_hostile(log):
    """Corrupt logs: a message and exit 1 or 2, never a crash."""
    j = log.mid["joker3"]

    def spoil(name, *sql, params=(), checks=False, schema=None):
        path = log.copy("hostile-" + name)
        con = sqlite3.connect(path, isolation_level=None)
        if schema:
            con.execute("PRAGMA writable_schema = ON")
            old, = con.execute("SELECT sql FROM sqlite_master WHERE "
                               "name = ?", (schema[0],)).fetchone()
            con.execute("UPDATE sqlite_master SET sql = ? WHERE name = ?",
                        (re.sub(schema[1], schema[2], old), schema[0]))
            con.close()
            con = sqlite3.connect(path, isolation_level=None)
        if checks:
            con.execute("PRAGMA ignore_check_constraints = ON")
        for s in sql:
            con.execute(s, params)
        con.close()
        return path

    paths = {
        "text-number": spoil(
            "text-number", "UPDATE plays SET trick = 'two' WHERE "
            "match_id = ? AND deal_no = 1 AND seq = 0", params=(j,),
            checks=True),
        "null-deck": spoil(
            "null-deck", "UPDATE deals SET deck = NULL WHERE match_id = ? "
            "AND deal_no = 1", params=(j,),
            schema=("deals", r"deck\s+TEXT NOT NULL", "deck TEXT")),
        "absurd-deal": spoil(
            "absurd-deal", "UPDATE deals SET deal_no = 4611686018427387904 "
            "WHERE match_id = ? AND deal_no = 2", params=(j,)),
        "negative-seat": spoil(
            "negative-seat", "UPDATE plays SET seat = -7 WHERE match_id = ? "
            "AND deal_no = 1 AND seq = 3", params=(j,), checks=True),
        "mib-card": spoil(
            "mib-card", "UPDATE plays SET card = ? WHERE match_id = %d AND "
            "deal_no = 1 AND seq = 2" % j, params=("9" * (1 << 20),)),
        "8mib-text": spoil(
            "8mib-text", "UPDATE faults SET evidence = ? WHERE match_id = %d"
            % log.mid["fallback"], params=("e" * (8 << 20),), checks=True),
        "blob-link": spoil(
            "blob-link", "UPDATE plays SET chain = randomblob(32) WHERE "
            "match_id = ? AND deal_no = 1 AND seq = 5", params=(j,),
            checks=True),
        "real-ms": spoil(
            "real-ms", "UPDATE plays SET ms = 1.5 WHERE match_id = ? AND "
            "deal_no = 1 AND seq = 5", params=(j,), checks=True),
        "huge-options": spoil(
            "huge-options", "UPDATE matches SET options = ? WHERE id = %d"
            % j, params=("k=" + "v" * 5000,)),
        "null-seed": spoil(
            "null-seed", "UPDATE matches SET seed = NULL WHERE id = ?",
            params=(j,), schema=("matches", r"seed\s+TEXT NOT NULL",
                                 "seed TEXT")),
        "no-seats": spoil(
            "no-seats", "DELETE FROM seats WHERE match_id = ?", params=(j,)),
        "version": spoil("version", "PRAGMA user_version = 99"),
    }
    data = open(log.db, "rb").read()
    paths["truncated"] = os.path.join(log.tmp, "hostile-truncated.db")
    open(paths["truncated"], "wb").write(data[:len(data) // 2])
    paths["garbage"] = os.path.join(log.tmp, "hostile-garbage.db")
    open(paths["garbage"], "wb").write(os.urandom(8192))
    for name, path in paths.items():
        rc, out, err = refctl("audit", "--db", path, "--all")
        assert rc in (1, 2), "%s: exit %d\n%s%s" % (name, rc, out, err)
        msg = [l for l in (out + err).splitlines() if "FAILED" in l or
               l.startswith("refctl")]
        assert msg, "%s: no message:\n%s%s" % (name, out, err)
        print("#   %-14s %d %s" % (name, rc, msg[0][:150]))
        for args in (("show", "--db", path, j), ("show", "--db", path, j,
                     "--seat", 1), ("export", "--db", path, j)):
            rc, out, err = refctl(*args)
            assert rc in (0, 1, 2), "%s: %s: exit %d" % (name, args, rc)
            if args[0] == "export" and rc == 0:
                json.loads(out)


TESTS = [test_audit_verifies, test_tamper, test_seat_views, test_show,
         test_export, test_crash, test_hostile]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-audit.")
    start = time.time()
    try:
        log = Log(tmp)
        print("ok playing the matches (%.1f s)" % (time.time() - start))
    except Exception:
        traceback.print_exc(file=sys.stdout)
        print("FAIL playing the matches\n0 passed, 1 failed\n# kept " + tmp)
        sys.exit(1)
    passed, failed = e2e.run_tests(TESTS, (log,))
    e2e.finish(passed, failed, tmp)


if __name__ == "__main__":
    main()
