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
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

BUILD, SRC = harness.BUILD, harness.SRC
REFCTL = os.environ.get("REFCTL") or os.path.join(BUILD, "refd", "refctl")
EVIL = harness.EVIL
PY = harness.PY
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
        r = harness.Refd(tmp)
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
            # ten times its limit: refd hands a bot back only the time
            # its own loop stalled, so a loaded machine's stalls cannot
            # carry this one over its limit
            "later": EVIL + ["late", "3000"],
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
            "timeout": ("classic2", ["later", "good"], "move_ms=300"),
        }
        for name, (variant, seats, *opts) in start.items():
            self.mid[name] = r.start(variant, seats, *opts)
        time.sleep(0.3)
        r.must("match_stop", str(self.mid["stopped"]))
        rec, opt = r.recorder()
        for variant, n in harness.SEATS.items():
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
        # two example bots that keep their transcripts and receipts
        self.rcpt = [os.path.join(rec, "rcpt%d.txt" % i) for i in (0, 1)]
        r.add("rrec0", opt + [os.path.join(BUILD, "bots", "randbot"), "-s",
                              "20", "-r", self.rcpt[0]])
        r.add("rrec1", opt + [PY, os.path.join(SRC, "bots", "randbot.py"),
                              "21", "-r", self.rcpt[1]])
        self.mid["receipt"] = r.start("classic2", ["rrec0", "rrec1"])
        # the other example bots' recorders, in one classic3 match
        self.rcpt3 = [os.path.join(rec, "rcpt3-%d.txt" % i) for i in (0, 1, 2)]
        js = (["node", os.path.join(SRC, "bots", "randbot.js"), "23"]
              if shutil.which("node") else
              [os.path.join(BUILD, "bots", "randbot"), "-s", "23"])
        r.add("rrec2", opt + [os.path.join(BUILD, "bots", "heurbot"), "-r",
                              self.rcpt3[0]])
        r.add("rrec3", opt + js + ["-r", self.rcpt3[1]])
        r.add("rrec4", opt + ["sh", os.path.join(SRC, "bots", "randbot.sh"),
                              "-r", self.rcpt3[2], "24"])
        self.mid["receipt3"] = r.start("classic3", ["rrec2", "rrec3",
                                                    "rrec4"])
        r.wait(self.mid["receipt"])
        r.wait(self.mid["receipt3"])
        for p in self.rcpt + self.rcpt3:
            wait_file(p, " match_end ")
        tdef = os.path.join(self.tmp, "t.tour")
        with open(tdef, "w") as f:
            f.write("name cup\nvariant classic2\nbots crand crand9 heur\n"
                    "option deal_cap=2\nconcurrency 2\nseed %s\n" % (
                        "cd" * 32))
        self.tid = int(r.must("tournament_start", tdef))
        assert r.must("tournament_wait", str(self.tid),
                      timeout=300).startswith("done")
        st = r.must("status")
        self.key = re.search(r"^log_key ([0-9a-f]{64})$", st, re.M).group(1)
        assert results["fallback"] == "forfeit1", results
        assert results["forfeit"] == "forfeit1", results
        assert results["draw"] == "draw", results
        assert results["stopped"] == "aborted", results
        assert results["timeout"] == "forfeit0", results
        for v in harness.SEATS:
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
    h.update(text.encode() if isinstance(text, str) else text)
    return h.hexdigest()


def lp(v):
    """A free text of chain_version 2: its byte length, a colon, itself."""
    b = (v or "").encode() if not isinstance(v, bytes) else v
    return b"%d:" % len(b) + b


def texts(con, mid):
    """Every chained row of match mid as (link number, table, key, text),
    rebuilt from its columns by refd-log(5)'s forms for chain_version 2
    (written here from the page, not from refd's code)."""
    out = []
    for no, d, dealer, trump, rem, deck in con.execute(
            "SELECT chain_no, deal_no, dealer, trump, removed, deck FROM "
            "deals WHERE match_id = ?", (mid,)):
        out.append((no, "deals", ("deal_no", d), (
            "deal %d dealer=%d trump=%s removed=%s deck=%s" % (
                d, dealer, trump, rem or "-", deck)).encode()))
    for no, d, seq, tr, seat, card, ms, f, at, lim, ans in con.execute(
            "SELECT chain_no, deal_no, seq, trick, seat, card, ms, fault, "
            "at, limit_ms, answer FROM plays WHERE match_id = ?", (mid,)):
        out.append((no, "plays", ("deal_no = %d AND seq" % d, seq), (
            "play %d %d trick=%d seat=%d card=%s ms=%d fault=%d at=%s "
            "limit=%d answer=" % (d, seq, tr, seat, card, ms, f, at, lim)
        ).encode() + lp(ans)))
    for no, d, t, w, p in con.execute(
            "SELECT chain_no, deal_no, trick, winner, points FROM tricks "
            "WHERE match_id = ?", (mid,)):
        out.append((no, "tricks", ("deal_no = %d AND trick" % d, t), (
            "trick %d %d winner=%d points=%d" % (d, t, w, p)).encode()))
    for no, d, seat in con.execute(
            "SELECT chain_no, deal_no, seat FROM jokers WHERE match_id = ?",
            (mid,)):
        out.append((no, "jokers", ("deal_no", d),
                    ("joker %d seat=%d" % (d, seat)).encode()))
    for no, fid, d, seat, kind, ms, at, lim, act, ev in con.execute(
            "SELECT chain_no, id, deal_no, seat, kind, ms, at, limit_ms, "
            "action, CAST(evidence AS BLOB) FROM faults WHERE match_id = ?",
            (mid,)):
        out.append((no, "faults", ("id", fid), (
            "fault %d seat=%d kind=%s ms=%d at=%s limit=%d action=" % (
                d, seat, kind, ms, at, lim)).encode() + lp(act) +
            b" evidence=" + lp(ev)))
    for no, d, res, w, p, mp in con.execute(
            "SELECT chain_no, deal_no, result, winner, points, mpoints FROM "
            "deal_results WHERE match_id = ?", (mid,)):
        out.append((no, "deal_results", ("deal_no", d), (
            "dealend %d result=%s winner=%d points=%s mpoints=%s" % (
                d, res, w, p, mp)).encode()))
    for no, seat, bot, kind, ident, name, ver in con.execute(
            "SELECT chain_no, seat, bot, kind, identity, name, version FROM "
            "seats WHERE match_id = ? AND chain_no IS NOT NULL", (mid,)):
        out.append((no, "seats", ("seat", seat), (
            "seat %d bot=%s kind=%s identity=" % (seat, bot, kind)).encode()
            + lp(ident) + b" name=" + lp(name) + b" version=" + lp(ver)))
    for no, d, seat, line, kind, ms, at, ans in con.execute(
            "SELECT chain_no, deal_no, seat, line, kind, ms, at, "
            "CAST(answer AS BLOB) FROM answers WHERE match_id = ?", (mid,)):
        out.append((no, "answers", ("chain_no", no), (
            "answer %d seat=%d line=%d kind=%s ms=%d at=%s answer=" % (
                d, seat, line, kind, ms, at)).encode() + lp(ans)))
    for no, res, mp, ended, reason in con.execute(
            "SELECT end_no, result, mpoints, ended, reason FROM matches "
            "WHERE id = ? AND end_no IS NOT NULL", (mid,)):
        out.append((no, "matches", None, (
            "matchend result=%s mpoints=%s ended=%s reason=" % (
                res, mp, ended)).encode() + lp(reason)))
    return sorted(out, key=lambda x: x[0])


def header_text(con, mid):
    """Link 0's text of a chain_version 2 match, from refd-log(5)."""
    m = con.execute("SELECT id, variant, commitment, rng, prev, started, "
                    "move_ms, bank_ms, startup_ms, policy, max_faults, "
                    "tournament, slot, options FROM matches WHERE id = ?",
                    (mid,)).fetchone()
    seats = ",".join("%d:%s" % (len(b.encode()), b) for b, in con.execute(
        "SELECT bot FROM seats WHERE match_id = ? ORDER BY seat", (mid,)))
    return ("match %d %s %s %s prev=%s started=%s move_ms=%d bank_ms=%d "
            "startup_ms=%d policy=%s max_faults=%d tournament=%d slot=%d "
            "seats=%s options=%s" % (
                m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9],
                m[10], -1 if m[11] is None else m[11],
                -1 if m[12] is None else m[12], seats, m[13])).encode()


def relink(con, mid):
    """What a forger who can write the file but holds no key does after an
    edit: recompute every link of match mid from its rows."""
    h = hashlib.blake2b(digest_size=32)
    h.update(b"refd-chain-v2" + header_text(con, mid))
    link = h.hexdigest()
    con.execute("UPDATE matches SET chain0 = ? WHERE id = ?", (link, mid))
    for no, table, key, text in texts(con, mid):
        h = hashlib.blake2b(digest_size=32)
        h.update(bytes.fromhex(link) + text)
        link = h.hexdigest()
        if table == "matches":
            con.execute("UPDATE matches SET final_chain = ? WHERE id = ?",
                        (link, mid))
        elif table == "faults":
            con.execute("UPDATE faults SET chain = ? WHERE id = ?",
                        (link, key[1]))
        else:
            con.execute("UPDATE %s SET chain = ? WHERE match_id = ? AND "
                        "%s = ?" % (table, key[0]), (link, mid, key[1]))
    return link


def audit_fails(path, mid, pattern):
    """audit --all exits 1, and match mid's line matches pattern."""
    rc, out, err = refctl("audit", "--db", path, "--all")
    assert rc == 1, "audit exit %d:\n%s%s" % (rc, out, err)
    lines = [l for l in out.splitlines()
             if l.startswith("match %d FAILED: " % mid)]
    assert lines, "match %d not failed:\n%s" % (mid, out)
    assert re.search(pattern, lines[0]), \
        "%r does not match %r" % (lines[0], pattern)
    # the log chain may say so too ("log FAILED"), but no other match
    bad = [l for l in out.splitlines() if "FAILED" in l and
           not l.startswith("log FAILED: ")]
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
        # and not the last play of a trick (seq 8 in joker3): its tricks
        # row would be the first to miss it
        seq = 6 if first == 7 else 7
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
        con.execute("INSERT INTO plays (match_id, deal_no, seq, trick, seat, "
                    "card, ms, fault, at, limit_ms, answer, chain_no, chain) "
                    "VALUES (?, 2, 39, 12, 0, '1C', 5, 0, "
                    "'2026-01-01T00:00:00.000Z', 1500, '=1C', ?, ?)",
                    (j, no, "0" * 64))
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
        con.execute("UPDATE plays SET ms = ? WHERE match_id = ? AND "
                    "deal_no = 2 AND seq = 10", (ms + 1, j))
        text = next(t for n, _, _, t in texts(con, j) if n == no)
        con.execute("UPDATE plays SET chain = ? WHERE match_id = ? "
                    "AND deal_no = 2 AND seq = 10",
                    (blake(link_of(con, j, no - 1), text), j))
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
            revealed = harness.check_transcript(view, variant, seat)
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
        con = sqlite3.connect(log.db)
        h.update(b"refd-chain-v2" + header_text(con, m["id"]))
        con.close()
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
    r = harness.Refd(tmp)
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
    r2 = harness.Refd(tmp)
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
    # a crash may lose the last commit_ms of plays: the audit says so
    line = next(l for l in out.splitlines() if "match %d " % mid in l)
    assert "may be missing (commit_ms)" in line, line
    print("#   " + next(l for l in out.splitlines() if "aborted" in l))
    # a chain that ends early: its last rows gone, the rest still whole
    path = os.path.join(tmp, "cut.db")
    shutil.copyfile(r.db, path)
    con = sqlite3.connect(path, isolation_level=None)
    last, = con.execute("SELECT max(chain_no) FROM plays WHERE match_id = ?",
                        (mid,)).fetchone()
    for t in TABLES:
        con.execute("DELETE FROM %s WHERE match_id = ? AND chain_no >= ?"
                    % t, (mid, last))
    con.close()
    line = audit_says(path, r"^log FAILED: log chain link \d+: the log "
                      r"chain says 'abort %d links=\d+ last=\w+ reason=14:"
                      r"refd restarted', the rows say 'abort %d links=%d " % (
                          mid, mid, last - 1))
    print("#   chain cut short: " + line[:120])


def killed_log(log):
    """A log as a SIGKILL leaves it: one match finished, one cut short, the
    write-ahead log and its index still beside the database.  Returns the
    directory of the files and the two match ids."""
    if hasattr(log, "killed"):
        return log.killed
    tmp = os.path.join(log.tmp, "killed")
    os.mkdir(tmp)
    r = harness.Refd(tmp)
    try:
        r.add("q0", [os.path.join(BUILD, "bots", "randbot"), "-s", "3"])
        r.add("q1", [os.path.join(BUILD, "bots", "randbot"), "-s", "4"])
        for i in range(3):
            r.add("slow%d" % i, EVIL + ["late", "20"])
        done = r.start("classic2", ["q0", "q1"], "deal_cap=1")
        r.wait(done)
        mid = r.start("joker3", ["slow0", "slow1", "slow2"], "target=40")
        for _ in range(3000):
            if r.query("SELECT count(*) FROM deal_results WHERE "
                       "match_id = ?", mid)[0][0] >= 1:
                break
            time.sleep(0.01)
        r.proc.send_signal(signal.SIGKILL)
        r.proc.wait()
    finally:
        if r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()
        r.err.close()
    assert os.path.getsize(r.db + "-wal") > 0, "no write-ahead log"
    log.killed = (r.db, done, mid)
    return log.killed


def killed_copy(log, name, wal=True, shm=True):
    """A copy of the killed log's files, to spoil."""
    src, _, _ = killed_log(log)
    d = os.path.join(log.tmp, "k-" + name)
    os.mkdir(d)
    path = os.path.join(d, "log.db")
    shutil.copyfile(src, path)
    if wal:
        shutil.copyfile(src + "-wal", path + "-wal")
    if shm and os.path.exists(src + "-shm"):
        shutil.copyfile(src + "-shm", path + "-shm")
    return path


def test_running(log):
    """A match that has not ended fails the audit; --allow-running skips
    it by name, for an operator auditing a live log."""
    _, done, mid = killed_log(log)
    path = killed_copy(log, "running")
    rc, out, err = refctl("audit", "--db", path)
    assert rc == 1, out + err
    assert re.search(r"^match %d FAILED: not ended: its state is running"
                     % mid, out, re.M), out
    assert re.search(r"^match %d verified" % done, out, re.M), out
    path = killed_copy(log, "running-allowed")
    rc, out, err = refctl("audit", "--db", path, "--allow-running")
    assert rc == 0, out + err
    assert "match %d running: skipped (--allow-running)" % mid in out, out
    assert out.splitlines()[-1].endswith(", 0 failed, 1 running (skipped)")
    rc, out, _ = refctl("audit", "--db", path, mid)
    assert rc == 1 and "match %d FAILED: not ended" % mid in out, out


def test_wal_damage(log):
    """A truncated write-ahead log, one flipped byte in it, or its loss:
    each is reported before SQLite silently drops the log's tail."""
    def frames(path):
        data = open(path + "-wal", "rb").read()
        psize = int.from_bytes(data[8:12], "big")
        return data, psize, (len(data) - 32) // (24 + psize)

    def index(path):                    # the frames SQLite acknowledged
        return int.from_bytes(open(path + "-shm", "rb").read()[16:20],
                              sys.byteorder)

    # the damage is to frames the index records: past them is a killed
    # writer's unacknowledged work (below), which the kill may have left
    cases = {}
    p = killed_copy(log, "wal-truncated")
    data, psize, n = frames(p)
    mx = index(p)
    open(p + "-wal", "wb").write(data[:32 + mx * (24 + psize) - 100])
    cases["truncated"] = (p, r"log FAILED: the write-ahead log is "
                          r"truncated: \d+ bytes, not a whole number")
    p = killed_copy(log, "wal-flipped")
    data, psize, n = frames(p)
    mx = index(p)
    b = bytearray(data)
    at = 32 + (mx - 1) * (24 + psize) + 24 + psize // 2  # its last page
    b[at] ^= 0x40
    open(p + "-wal", "wb").write(bytes(b))
    cases["flipped byte"] = (p, r"log FAILED: the write-ahead log is "
                             r"damaged: frame %d of %d fails its checksum"
                             % (mx, n))
    p = killed_copy(log, "wal-salt")
    data, psize, n = frames(p)
    b = bytearray(data)
    b[32 + (n // 2) * (24 + psize) + 9] ^= 1           # a frame's salt
    open(p + "-wal", "wb").write(bytes(b))
    cases["flipped salt"] = (p, r"log FAILED: the write-ahead log is "
                             r"damaged: frame %d does not belong to it"
                             % (n // 2 + 1))
    p = killed_copy(log, "wal-frames-cut")
    data, psize, n = frames(p)
    # cut at a frame's edge, below what the WAL index records: a killed
    # writer's last commit may be in the WAL before the index knows it
    mx = int.from_bytes(open(p + "-shm", "rb").read()[16:20], sys.byteorder)
    assert 1 < mx <= n, (mx, n)
    open(p + "-wal", "wb").write(data[:32 + (mx - 1) * (24 + psize)])
    cases["last frame cut"] = (p, r"log FAILED: the write-ahead log "
                               r"(holds \d+ sound frames, but its index|"
                               r"ends with \d+ frames? of a transaction)")
    p = killed_copy(log, "wal-deleted", wal=False)
    cases["deleted"] = (p, r"log FAILED: the write-ahead log is gone: its "
                        r"index \(-shm\) records \d+ frames")
    for name, (path, pattern) in cases.items():
        rc, out, err = refctl("audit", "--db", path, "--allow-running")
        # 2: what is left of the log is not even a log of refd's
        assert rc in (1, 2), "%s: exit %d\n%s%s" % (name, rc, out, err)
        assert re.search(pattern, out), "%s:\n%s" % (name, out)
        print("#   %-16s %s" % (name, out.splitlines()[0]))
    # past every frame the index records, a writer's append in progress
    # (or cut by its death before SQLite acknowledged it) is not damage
    for name, tail in (("partial frame", lambda psize: b"\x5a" * 100),
                       ("torn frame", lambda psize: data[32:32 + 8] +
                        data[32 + 8:32 + 16] + b"\0" * (8 + psize))):
        p = killed_copy(log, "wal-" + name.replace(" ", "-"))
        data, psize, n = frames(p)
        assert index(p) <= n, (index(p), n)
        open(p + "-wal", "ab").write(tail(psize))
        rc, out, err = refctl("audit", "--db", p, "--allow-running")
        assert rc == 0 and "log FAILED" not in out, (name, out + err)
        print("#   %-16s not damage: %s" % (name, out.splitlines()[-1]))


def test_wal_live(log):
    """An audit racing a live refd (a tournament of concurrent matches,
    the log being written and checkpointed) reports no damage that is not
    there; then refd is SIGKILLed mid-tournament, and its log as the kill
    left it, write-ahead log, index and all, audits clean but for the
    matches it cut short."""
    tmp = os.path.join(log.tmp, "live")
    os.mkdir(tmp)
    r = harness.Refd(tmp)
    bad = []
    runs = 0
    try:
        for name in ("crand", "crand9", "heur"):
            r.add(name, [os.path.join(BUILD, "bots", "randbot"), "-s",
                         str(len(name))])
        tdef = os.path.join(tmp, "t.tour")
        with open(tdef, "w") as f:
            # more than it can play while the audits below run, however
            # fast: it must be cut short
            f.write("name live\nvariant classic2\nbots crand crand9 heur\n"
                    "option deal_cap=3\nmatches 60000\nconcurrency 3\n")
        tid = int(r.must("tournament_start", tdef))
        # twenty audits and twelve matches, however slow the machine:
        # counted, never timed; only a refd that stops making progress
        # over a hundred audits fails it
        done = still = 0
        while runs < 20 or done < 12:
            rc, out, err = refctl("audit", "--db", r.db, "--all",
                                  "--allow-running")
            runs += 1
            if rc != 0:
                bad.append(out + err)
            assert r.proc.poll() is None, "refd exited"
            now = r.query("SELECT count(*) FROM matches WHERE tournament"
                          " = ? AND state = 'done'", tid)[0][0]
            still = still + 1 if now == done else 0
            done = now
            assert still < 100, "no match ended over 100 audits"
        (state,), = r.query("SELECT state FROM tournaments WHERE id = ?",
                            tid)
        assert state == "running", state
        r.proc.send_signal(signal.SIGKILL)
        r.proc.wait()
    finally:
        if r.proc.poll() is None:
            r.proc.kill()
            r.proc.wait()
        r.err.close()
    assert not bad, "%d of %d audits of the live log failed:\n%s" % (
        len(bad), runs, "\n".join(l for l in bad[0].splitlines()
                                  if "FAILED" in l)[:3000])
    print("#   %d audits of the live log: no damage reported" % runs)
    # the killed log, as found: copied before anything opens it again
    d = os.path.join(log.tmp, "live-killed")
    os.mkdir(d)
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(r.db + ext):
            shutil.copyfile(r.db + ext, os.path.join(d, "log.db" + ext))
    rc, out, err = refctl("audit", "--db", os.path.join(d, "log.db"),
                          "--all", "--allow-running")
    assert rc == 0 and "log FAILED" not in out, out[-3000:] + err
    assert re.search(r", 0 failed, [1-3] running \(skipped\)$", out), \
        out[-500:]
    print("#   SIGKILLed mid-tournament: " + out.splitlines()[-1])


def test_missing_match(log):
    """A match deleted from the log is reported, in the middle (ids run
    on) and at the end (sqlite_sequence lowered too)."""
    j = log.mid["joker3"]

    def delete(con, mid, events=True):
        for t in TABLES + ("seats",) + (("bot_events",) if events else ()):
            con.execute("DELETE FROM %s WHERE match_id = ?" % t, (mid,))
        con.execute("DELETE FROM matches WHERE id = ?", (mid,))

    path = log.copy("missing-middle")
    con = sqlite3.connect(path, isolation_level=None)
    delete(con, j)
    con.close()
    rc, out, _ = refctl("audit", "--db", path)
    assert rc == 1 and re.search(r"^match %d FAILED: missing: the log has "
                                 r"match %d after it$" % (j, j + 1), out,
                                 re.M), out
    print("#   " + next(l for l in out.splitlines() if "missing" in l))
    path = log.copy("missing-last")
    con = sqlite3.connect(path, isolation_level=None)
    last, = con.execute("SELECT max(id) FROM matches").fetchone()
    delete(con, last, events=False)
    con.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = "
                "'matches'", (last - 1,))
    con.close()
    rc, out, _ = refctl("audit", "--db", path)
    assert rc == 1 and re.search(r"^match %d FAILED: missing, yet rows of "
                                 r"bot_events name it$" % last, out,
                                 re.M), out
    print("#   " + next(l for l in out.splitlines() if "missing" in l))
    path = log.copy("missing-seq")
    con = sqlite3.connect(path, isolation_level=None)
    delete(con, last)
    con.close()
    rc, out, _ = refctl("audit", "--db", path)
    assert rc == 1 and re.search(r"^match %d FAILED: missing: refd "
                                 r"numbered matches up to %d" % (last, last),
                                 out, re.M), out
    # a deal's row gone, its plays kept: refd's own connection checks
    # a deal's rows against it in C (db_own_keys()), the audit in SQLite
    path = log.copy("missing-deal")
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("DELETE FROM deals WHERE match_id = ? AND deal_no = 1", (j,))
    con.close()
    line = audit_says(path, r"^log FAILED: a row of plays names a row of "
                      r"deals that is not in the log$")
    print("#   " + line)


def relog(con):
    """The rest of the forgery without the key: walk the log chain again,
    each match's prev and links, its start and end events and every log
    link recomputed; the signatures can only be kept as they were."""
    prev = "0" * 64
    for no, kind, mid, text in con.execute(
            "SELECT no, kind, match_id, text FROM log_chain ORDER BY no"
    ).fetchall():
        if kind == "start":
            con.execute("UPDATE matches SET prev = ? WHERE id = ?",
                        (prev, mid))
            relink(con, mid)
            c0, = con.execute("SELECT chain0 FROM matches WHERE id = ?",
                              (mid,)).fetchone()
            text = "start %d link0=%s" % (mid, c0)
        elif kind == "end":
            m = con.execute("SELECT end_no, final_chain, result, "
                            "coalesce(tournament, -1), coalesce(slot, -1) "
                            "FROM matches WHERE id = ?", (mid,)).fetchone()
            text = "end %d links=%d final=%s result=%s tournament=%d " \
                "slot=%d" % (mid, m[0], m[1], m[2], m[3],
                             m[4] if m[3] > 0 else -1) + \
                re.sub(r"^.*?( transcripts=|$)", r"\1", text)
        h = hashlib.blake2b(digest_size=32)
        h.update(b"refd-log-v1" + bytes.fromhex(prev) + text.encode())
        prev = h.hexdigest()
        con.execute("UPDATE log_chain SET text = ?, link = ? WHERE no = ?",
                    (text, prev, no))


def audit_says(path, pattern, *args):
    """audit --all exits 1 and one of its lines matches pattern."""
    rc, out, err = refctl("audit", "--db", path, "--all", *args)
    assert rc == 1, "audit exit %d:\n%s%s" % (rc, out[-3000:], err)
    for l in out.splitlines():
        if re.search(pattern, l):
            return l
    raise AssertionError("no line matches %r:\n%s" % (pattern, out[-4000:]))


def test_tamper_v3(log):
    """Each kind of edit to what schema 3 chains (times, limits, seats'
    bots and identities, answers, faults, tournaments, the log chain and
    its signed heads) is caught where it was made, by refctl audit alone
    given the public key; and a whole match rewritten from another seed
    with every link recomputed is caught by the signatures."""
    j = log.mid["joker3"]
    fb = log.mid["fallback"]
    ff = log.mid["forfeit"]
    to = log.mid["timeout"]
    t = log.tid
    cases = []

    def case(fn):
        cases.append(fn)
        return fn

    def con_of(path):
        return sqlite3.connect(path, isolation_level=None)

    def play_row(con, mid, deal, seq):
        return con.execute("SELECT chain_no, ms, limit_ms, at, card, answer "
                           "FROM plays WHERE match_id = ? AND deal_no = ? AND "
                           "seq = ?", (mid, deal, seq)).fetchone()

    def tmatches(con):
        return [r[0] for r in con.execute(
            "SELECT id FROM matches WHERE tournament = ? ORDER BY id",
            (t,))]

    @case
    def start_moved_earlier(con):
        con.execute("UPDATE matches SET started = '2020-01-01T00:00:00.000Z'"
                    " WHERE id = ?", (j,))
        return r"^match %d FAILED: the chain breaks at link 0: .*the start " \
            r"time" % j

    @case
    def start_moved_relinked(con):
        con.execute("UPDATE matches SET started = strftime("
                    "'%Y-%m-%dT%H:%M:%fZ', started, '+1 hour') WHERE id = ?",
                    (j,))
        relink(con, j)
        return r"^match %d FAILED: deal 1 trick 0 seat \d: logged at .*, " \
            r"before the match started" % j

    @case
    def end_before_start(con):
        con.execute("UPDATE matches SET ended = '2001-01-01T00:00:00.000Z' "
                    "WHERE id = ?", (j,))
        relink(con, j)
        return r"^match %d FAILED: deal \d+ .*logged at .*, after the match " \
            r"ended \(2001-01-01" % j

    @case
    def end_time_moved(con):
        con.execute("UPDATE matches SET ended = '2099-01-01T00:00:00.000Z' "
                    "WHERE id = ?", (j,))
        return r"^match %d FAILED: the chain breaks at the match's end" % j

    @case
    def clock_rewritten(con):
        con.execute("UPDATE matches SET move_ms = 100, options = replace("
                    "options, 'move_ms=1500', 'move_ms=100') WHERE id = ?",
                    (j,))
        relink(con, j)
        return r"^match %d FAILED: deal 1 trick 0 seat \d: the limit in " \
            r"force is logged as 1500 ms, over move_ms 100" % j

    @case
    def play_over_limit(con):
        no, ms, lim, *_ = play_row(con, j, 2, 5)
        con.execute("UPDATE plays SET ms = ? WHERE match_id = ? AND "
                    "deal_no = 2 AND seq = 5", (lim + 500, j))
        relink(con, j)
        return r"^match %d FAILED: deal 2 trick 1 seat \d: play seq 5 took " \
            r"%d ms, over the %d ms limit in force" % (j, lim + 500, lim)

    @case
    def play_limit_raised(con):
        con.execute("UPDATE plays SET limit_ms = 99999 WHERE match_id = ? "
                    "AND deal_no = 1 AND seq = 3", (j,))
        relink(con, j)
        return r"^match %d FAILED: deal 1 trick 1 seat \d: the limit in " \
            r"force is logged as 99999 ms" % j

    @case
    def play_time_before_last(con):
        at = play_row(con, j, 1, 0)[3]      # after the start, too early
        con.execute("UPDATE plays SET at = ? WHERE match_id = ? AND "
                    "deal_no = 2 AND seq = 6", (at, j))
        relink(con, j)
        return r"^match %d FAILED: deal 2 trick 2 seat \d: logged at .*, " \
            r"before the row before it" % j

    @case
    def timeout_too_fast(con):
        con.execute("UPDATE faults SET ms = 10 WHERE match_id = ? AND "
                    "kind = 'timeout'", (to,))
        relink(con, to)
        return r"^match %d FAILED: deal 1 trick 0 seat 0: a time-out after " \
            r"10 ms, within the 300 ms limit in force" % to

    @case
    def timeout_unchained_edit(con):
        con.execute("UPDATE faults SET limit_ms = 5 WHERE match_id = ?",
                    (to,))
        # the rules see it before the chain does
        return r"^match %d FAILED: deal 1 trick 0 seat 0: the limit in " \
            r"force is logged as 5 ms, but without a bank it is move_ms " \
            r"300" % to

    @case
    def bot_renamed(con):
        con.execute("UPDATE seats SET bot = 'heur' WHERE match_id = ? AND "
                    "seat = 0", (j,))
        return r"^match %d FAILED: the chain breaks at link 0: .*a seat's " \
            r"bot" % j

    @case
    def forfeiting_bot_renamed(con):
        con.execute("UPDATE seats SET bot = 'good' WHERE match_id = ? AND "
                    "seat = 1", (ff,))
        relink(con, ff)
        return r"^log FAILED: log chain link \d+: the log chain says " \
            r"'start %d link0=" % ff

    @case
    def identity_changed(con):
        con.execute("UPDATE seats SET identity = 'argv:' || printf('%064d', "
                    "0) WHERE match_id = ? AND seat = 2", (j,))
        return r"^match %d FAILED: seat 2: the chain breaks at link \d+, " \
            r"seat 2's bot" % j

    @case
    def identity_literal_remote(con):
        con.execute("UPDATE seats SET identity = 'remote' WHERE "
                    "match_id = ? AND seat = 1", (j,))
        relink(con, j)
        return r"^match %d FAILED: seat 1: the spawned bot's identity " \
            r"'remote' is not argv:" % j

    @case
    def gtp_name_changed(con):
        con.execute("UPDATE seats SET name = 'someone else' WHERE "
                    "match_id = ? AND seat = 0", (j,))
        return r"^match %d FAILED: seat 0: the chain breaks at link \d+, " \
            r"seat 0's bot" % j

    @case
    def answer_changed(con):
        no, ms, lim, at, card, ans = play_row(con, j, 3, 4)
        other = "1C" if card != "1C" else "2C"
        con.execute("UPDATE plays SET answer = ? WHERE match_id = ? AND "
                    "deal_no = 3 AND seq = 4", ("=" + other, j))
        relink(con, j)
        return r"^match %d FAILED: deal 3 trick 1 seat \d: play seq 4 is " \
            r"%s, but the bot answered '=%s'" % (j, card, other)

    @case
    def answer_unchained(con):
        # the same card, more words: only the chain knows
        con.execute("UPDATE plays SET answer = answer || ' extra' WHERE "
                    "match_id = ? AND deal_no = 1 AND seq = 2", (j,))
        return r"^match %d FAILED: deal 1 trick 0 seat \d: the chain breaks " \
            r"at link \d+, play seq 2" % j

    @case
    def hidden_fault(con):
        fid, = con.execute("SELECT min(id) FROM faults WHERE match_id = ?",
                           (fb,)).fetchone()
        seq, card = con.execute(
            "SELECT seq, card FROM plays WHERE match_id = ? AND fault = 1 "
            "ORDER BY deal_no, seq LIMIT 1", (fb,)).fetchone()
        con.execute("DELETE FROM faults WHERE id = ?", (fid,))
        con.execute("UPDATE plays SET fault = 0, answer = ? WHERE "
                    "match_id = ? AND fault = 1 AND seq = ?",
                    ("=" + card, fb, seq))
        # renumber the links after the fault, then every link again
        no, = con.execute("SELECT chain_no FROM faults WHERE match_id = ? "
                          "AND id > ? ORDER BY id LIMIT 1", (fb, fid)
                          ).fetchone() or (None,)
        for tb in TABLES + ("seats",):
            con.execute("UPDATE %s SET chain_no = chain_no - 1 WHERE "
                        "match_id = ? AND chain_no > (SELECT chain_no - 0 "
                        "FROM plays WHERE match_id = ? AND seq = ? AND "
                        "deal_no = 1) - 1" % tb, (fb, fb, seq))
        con.execute("UPDATE matches SET end_no = end_no - 1 WHERE id = ?",
                    (fb,))
        relog(con)
        return r"^log FAILED: log chain link \d+: the end's signature does " \
            r"not verify with the log's key"

    @case
    def rewritten_from_new_seed(con):
        src = log.rec["joker3"][0]
        for tb in TABLES:
            con.execute("DELETE FROM %s WHERE match_id = ?" % tb, (j,))
            cols = [c[1] for c in con.execute("PRAGMA table_info(%s)" % tb)]
            sel = ", ".join("?" if c == "match_id" else c for c in cols)
            if tb == "faults":
                continue
            con.execute("INSERT INTO %s (%s) SELECT %s FROM %s WHERE "
                        "match_id = ?" % (tb, ", ".join(cols), sel, tb),
                        (j, src))
        for c in ("seed", "commitment", "options", "end_no", "result",
                  "mpoints", "reason", "ended", "started"):
            con.execute("UPDATE matches SET %s = (SELECT %s FROM matches "
                        "WHERE id = ?) WHERE id = ?" % (c, c), (src, j))
        relog(con)
        return r"^log FAILED: log chain link \d+: the end's signature does " \
            r"not verify with the log's key: the log chain was rewritten"

    @case
    def tdef_option(con):
        con.execute("UPDATE tournaments SET definition = replace(definition,"
                    " 'deal_cap=2', 'deal_cap=3') WHERE id = ?", (t,))
        return r"^tournament %d FAILED: match \d+ \(slot \d+\) is not played " \
            r"by the definition's variant and rules" % t

    @case
    def tdef_bot_order(con):
        con.execute("UPDATE tournaments SET definition = replace(definition,"
                    " 'bots crand crand9 heur', 'bots heur crand crand9') "
                    "WHERE id = ?", (t,))
        return r"^tournament %d FAILED: match \d+ \(slot \d+\) seats \S+ in " \
            r"seat \d, the schedule seats" % t

    @case
    def tdef_bot_order_log(con):
        con.execute("UPDATE tournaments SET definition = replace(definition,"
                    " 'bots crand crand9 heur', 'bots heur crand crand9') "
                    "WHERE id = ?", (t,))
        return r"^log FAILED: log chain link \d+: the log chain says " \
            r"'tbegin %d name=cup total=\d+ commitment=\w+ definition=" % t

    @case
    def master_seed(con):
        con.execute("UPDATE tournaments SET seed = ? WHERE id = ?",
                    ("ef" * 32, t))
        return r"^tournament %d FAILED: match \d+ \(slot \d+\) is dealt from " \
            r"another seed" % t

    @case
    def seat_swap(con):
        a = tmatches(con)[0]
        b0, b1 = [r[0] for r in con.execute(
            "SELECT bot FROM seats WHERE match_id = ? ORDER BY seat", (a,))]
        con.execute("UPDATE seats SET bot = ? WHERE match_id = ? AND "
                    "seat = 0", (b1, a))
        con.execute("UPDATE seats SET bot = ? WHERE match_id = ? AND "
                    "seat = 1", (b0, a))
        relink(con, a)
        relog(con)
        return r"^tournament %d FAILED: match %d \(slot \d+\) seats \S+ in " \
            r"seat 0" % (t, a)

    @case
    def slot_swap(con):
        a, b = tmatches(con)[:2]
        sa, sb = [con.execute("SELECT slot FROM matches WHERE id = ?",
                              (x,)).fetchone()[0] for x in (a, b)]
        con.execute("UPDATE matches SET slot = ? WHERE id = ?", (sb, a))
        con.execute("UPDATE matches SET slot = ? WHERE id = ?", (sa, b))
        relog(con)
        return r"^tournament %d FAILED: match %d \(slot %d\) is dealt from " \
            r"another seed" % (t, a, sb)

    @case
    def slot_played_twice(con):
        a, b = tmatches(con)[:2]
        for c in ("slot", "seed", "commitment"):
            con.execute("UPDATE matches SET %s = (SELECT %s FROM matches "
                        "WHERE id = ?) WHERE id = ?" % (c, c), (a, b))
        relog(con)
        return r"^tournament %d FAILED: slot \d+ is played to the end " \
            r"twice \(again by match %d\)" % (t, b)

    @case
    def tournament_slot_deleted(con):
        a = tmatches(con)[-1]
        for tb in TABLES + ("seats", "bot_events"):
            con.execute("DELETE FROM %s WHERE match_id = ?" % tb, (a,))
        con.execute("DELETE FROM matches WHERE id = ?", (a,))
        con.execute("DELETE FROM log_chain WHERE match_id = ?", (a,))
        relog(con)
        return r"^tournament %d FAILED: done with every match played, but " \
            r"slot \d+ of \d+ has no match that ended" % t

    @case
    def tournament_state(con):
        con.execute("UPDATE tournaments SET state = 'stopped', reason = "
                    "'operator' WHERE id = ?", (t,))
        return r"^tournament %d FAILED: its state \(stopped\) is not the " \
            r"last one the log chain records" % t

    @case
    def log_event_deleted(con):
        no, = con.execute("SELECT no FROM log_chain WHERE kind = 'end' AND "
                          "match_id = ?", (j,)).fetchone()
        con.execute("DELETE FROM log_chain WHERE no = ?", (no,))
        return r"^log FAILED: log chain link %d: numbered %d where the log " \
            r"chain is at %d" % (no + 1, no + 1, no)

    @case
    def deleted_match_relogged(con):
        for tb in TABLES + ("seats", "bot_events"):
            con.execute("DELETE FROM %s WHERE match_id = ?" % tb, (j,))
        con.execute("DELETE FROM matches WHERE id = ?", (j,))
        con.execute("DELETE FROM log_chain WHERE match_id = ?", (j,))
        con.execute("UPDATE log_chain SET no = (SELECT count(*) FROM "
                    "log_chain AS b WHERE b.no <= log_chain.no)")
        relog(con)
        return r"^match %d FAILED: missing: the log has match %d after it" % (
            j, j + 1)

    @case
    def end_unsigned(con):
        con.execute("UPDATE log_chain SET sig = NULL WHERE kind = 'end' AND "
                    "match_id = ?", (j,))
        return r"^log FAILED: log chain link \d+: the end is not signed"

    for fn in cases:
        path = log.copy("v3-" + fn.__name__)
        con = con_of(path)
        pattern = fn(con)
        con.close()
        line = audit_says(path, pattern)
        print("#   %-24s %s" % (fn.__name__, line[:150]))
    assert len(cases) >= 25


def test_key(log):
    """The public key: the same in refd's status and the audit's summary;
    --key with it verifies, --key with another fails."""
    rc, out, _ = refctl("audit", "--db", log.db, "--key", log.key)
    assert rc == 0, out[-2000:]
    assert re.search(r"^log chain ok: \d+ links, \d+ signed heads verified, "
                     r"key %s$" % log.key, out, re.M), out[-2000:]
    other = "ab" * 32
    line = audit_says(log.db, r"^log FAILED: .*not the one given|"
                      r"signature does not verify with the given key",
                      "--key", other)
    print("#   other key: " + line)
    rc, out, _ = refctl("audit", "--db", log.db, "--key", "zz")
    assert rc == 1 and "--key is not 64 hex digits" in out, out


def test_migrate_v2(log):
    """A log of schema 2 written by the refd before schema 3: a new refd
    migrates it, its matches enter the log chain as legacy events, it
    audits clean, and its old chains still verify by their own forms."""
    tmp = os.path.join(log.tmp, "v2")
    os.mkdir(tmp)
    db = os.path.join(tmp, "log.db")
    con = sqlite3.connect(db)
    con.executescript(open(os.path.join(SRC, "tests", "log-v2.sql")).read())
    con.close()
    before = sqlite3.connect(db).execute(
        "SELECT id, chain0, final_chain FROM matches ORDER BY id").fetchall()
    assert len(before) == 4
    rc, _, err = refctl("audit", "--db", db)
    assert rc == 2 and "is older than" in err, err
    r = harness.Refd(tmp)
    try:
        r.add("rand", [os.path.join(BUILD, "bots", "randbot"), "-s", "1"])
        r.add("heur", [os.path.join(BUILD, "bots", "heurbot")])
        mid = r.start("classic2", ["rand", "heur"], "deal_cap=1")
        r.wait(mid)
    finally:
        assert r.stop() == 0
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == \
        harness.SCHEMA
    after = con.execute("SELECT id, chain0, final_chain FROM matches WHERE "
                        "id <= 4 ORDER BY id").fetchall()
    assert after == before, "the old chains changed"
    kinds = [k for k, in con.execute("SELECT kind FROM log_chain ORDER BY "
                                     "no")]
    assert kinds[:4] == ["legacy"] * 4 and "key" in kinds and \
        kinds[-2:] == ["start", "end"], kinds
    versions = [v for v, in con.execute("SELECT chain_version FROM matches "
                                        "ORDER BY id")]
    assert versions == [1, 1, 1, 1, 2], versions
    con.close()
    rc, out, err = refctl("audit", "--db", db, "--all")
    assert rc == 0, out + err
    assert "5 matches verified, 0 failed" in out, out
    assert re.search(r"^log chain ok: \d+ links", out, re.M), out
    assert "tournament 1 verified: 2 of 2 slots" in out, out
    # the old chain by the version 1 forms, recomputed here
    rc, out, err = refctl("export", "--db", db, 2)
    d = json.loads(out)
    m = d["match"]
    h = hashlib.blake2b(digest_size=32)
    h.update(("refd-chain-v1match %d %s %s %s %s" % (
        m["id"], m["variant"], m["options"], m["commitment"],
        m["rng"])).encode())
    link = h.hexdigest()
    assert link == m["chain0"] and m["chain_version"] == 1
    for c in d["chain"]:
        link = blake(link, c["text"])
        assert link == c["link"], c
    assert link == m["final_chain"]
    # an edit to an old match is still caught, by its old chain
    path = os.path.join(tmp, "edited.db")
    shutil.copyfile(db, path)
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("UPDATE plays SET ms = ms + 1 WHERE match_id = 1 AND "
                "deal_no = 1 AND seq = 3")
    con.close()
    print("#   " + audit_says(path, r"^match 1 FAILED: deal 1 .*the chain "
                               r"breaks at link \d+"))


def resign(con, keyfile):
    """What only the key holder can do: sign every signed head again."""
    import ctypes
    sodium = ctypes.CDLL("libsodium.so.23")
    assert sodium.sodium_init() >= 0
    sk = bytes.fromhex(open(keyfile).read().strip())
    for no, link in con.execute("SELECT no, link FROM log_chain WHERE sig "
                                "IS NOT NULL").fetchall():
        sig = ctypes.create_string_buffer(64)
        m = bytes.fromhex(link)
        sodium.crypto_sign_detached(sig, None, m, ctypes.c_ulonglong(len(m)),
                                    sk)
        con.execute("UPDATE log_chain SET sig = ? WHERE no = ?",
                    (sig.raw.hex(), no))


def transcript_hashes(path, mid, nsent, nans):
    """A seat's transcript hashes from its kept transcript, as a bot
    author would compute them from refd-protocol(7): BLAKE2b-256 over the
    first nsent lines received from match_start on, without their ids,
    and over the first nans answers, each line followed by a newline."""
    sent, answered = hashlib.blake2b(digest_size=32), \
        hashlib.blake2b(digest_size=32)
    ns = na = 0
    inside = False
    for line in open(path).read().splitlines():
        if line.startswith("> "):
            if inside and na < nans:
                answered.update(line[2:].encode() + b"\n")
                na += 1
            continue
        text = re.sub(r"^\d+ ", "", line)
        inside = inside or text.startswith("match_start match=%d " % mid)
        if inside and ns < nsent:
            sent.update(text.encode() + b"\n")
            ns += 1
    return sent.hexdigest(), answered.hexdigest()


def test_receipts(log):
    """A bot's receipt (the signed head in its match_end line) and its own
    transcript (bots/randbot -r) verify against the honest log, and fail
    against each forged one, the key holder's rewrites included."""
    mid = log.mid["receipt"]
    key = log.db + ".key"
    assert oct(os.stat(key).st_mode & 0o777) == "0o600"
    ends = [next(l for l in open(p) if " match_end " in l).strip()
            for p in log.rcpt]
    assert all(re.search(r" head=\d+:[0-9a-f]{64} sig=[0-9a-f]{128} "
                         r"key=%s transcript=%d:\d+:[0-9a-f]{64}:\d+:"
                         r"[0-9a-f]{64}$" % (log.key, i), e)
               for i, e in enumerate(ends)), ends

    def verify(path, seat=None, receipt=None, transcript=None):
        args = ["verify-receipt", "--db", path, "--match", mid,
                "--receipt", receipt or ends[seat or 0]]
        if seat is not None:
            args += ["--transcript", transcript or log.rcpt[seat], "--seat",
                     seat]
        return refctl(*args)

    for seat in (0, 1):
        rc, out, err = verify(log.db, seat)
        assert rc == 0 and out.startswith("receipt verified: match %d, "
                                          % mid), out + err
    print("#   honest: " + out.strip())
    # the answers a receipt counts run at least through the bot's last
    # move: the one that ended the match is read before the end is
    for seat in (0, 1):
        k = int(ends[seat].rsplit(":", 2)[1])
        lines = open(log.rcpt[seat]).read().split("\n")
        start = next(i for i, l in enumerate(lines)
                     if re.match(r"\d+ match_start ", l))
        end = next(i for i, l in enumerate(lines)
                   if re.match(r"\d+ match_end ", l))
        last = max(i for i in range(start, end)
                   if re.match(r"\d+ genplay ", lines[i]))
        moved = next(i for i in range(last, end)
                     if lines[i].startswith("> "))
        through = sum(1 for l in lines[start:moved + 1]
                      if l.startswith("> "))
        assert k >= through, "seat %d: the receipt counts %d answers, " \
            "the bot gave %d through its last move" % (seat, k, through)

    def forged(name, edit):
        path = log.copy("receipt-" + name)
        con = sqlite3.connect(path, isolation_level=None)
        edit(con)
        con.close()
        return path

    def rewrite_play(con):              # the key holder rewrites the match
        con.execute("UPDATE plays SET ms = ms + 7 WHERE match_id = ? AND "
                    "deal_no = 1 AND seq = 2", (mid,))
        relog(con)
        resign(con, key)

    def rewrite_earlier(con):           # ... or a match before it
        con.execute("UPDATE plays SET ms = ms + 7 WHERE match_id = ? AND "
                    "deal_no = 1 AND seq = 2", (log.mid["joker3"],))
        relog(con)
        resign(con, key)

    def cut(con):                       # the log rolled back before it
        no, = con.execute("SELECT min(no) FROM log_chain WHERE match_id = ?",
                          (mid,)).fetchone()
        con.execute("DELETE FROM log_chain WHERE no >= ?", (no,))

    def other_key(con):                 # a forger's own key throughout
        import ctypes
        sodium = ctypes.CDLL("libsodium.so.23")
        pk = ctypes.create_string_buffer(32)
        sk = ctypes.create_string_buffer(64)
        sodium.crypto_sign_keypair(pk, sk)
        con.execute("UPDATE log_chain SET text = ? WHERE kind = 'key'",
                    ("key " + pk.raw.hex(),))
        relog(con)
        fake = os.path.join(log.tmp, "fake.key")
        open(fake, "w").write(sk.raw.hex() + "\n")
        resign(con, fake)

    def rewrite_whole(con):             # ... the whole match, another deal
        src, = con.execute(
            "SELECT id FROM matches WHERE variant = 'classic2' AND state = "
            "'done' AND tournament IS NULL AND chain_version = 2 AND id != ?1"
            " AND options = (SELECT options FROM matches WHERE id = ?1) "
            "ORDER BY id LIMIT 1", (mid,)).fetchone()
        for tb in TABLES:
            con.execute("DELETE FROM %s WHERE match_id = ?" % tb, (mid,))
            cols = [c[1] for c in con.execute("PRAGMA table_info(%s)" % tb)]
            sel = ", ".join("?" if c == "match_id" else c for c in cols)
            con.execute("INSERT INTO %s (%s) SELECT %s FROM %s WHERE "
                        "match_id = ?" % (tb, ", ".join(cols), sel, tb),
                        (mid, src))
        for c in ("seed", "commitment", "end_no", "result", "mpoints",
                  "reason", "started", "ended"):
            con.execute("UPDATE matches SET %s = (SELECT %s FROM matches "
                        "WHERE id = ?) WHERE id = ?" % (c, c), (src, mid))
        relog(con)
        resign(con, key)

    # a signed head the log no longer holds: the log was rewritten (1),
    # or, signed with a key the log never used, either side may lie (5)
    gone = r"^receipt FAILED: the log holds no event with its signed head "
    cases = [
        ("the match rewritten, re-signed", rewrite_whole, 1, gone),
        ("rewritten by the key holder", rewrite_play, 1, gone),
        ("an earlier match rewritten", rewrite_earlier, 1, gone),
        ("rolled back", cut, 1, gone),
        ("re-signed with another key", other_key, 5,
         r"^receipt KEYS DIFFER: the log holds no event with its signed "
         r"head"),
    ]
    for name, edit, status, pattern in cases:
        path = forged(name.replace(" ", "-"), edit)
        if edit == rewrite_play:
            # the audit alone cannot see this one: the key signed it,
            # and no seat was sent other lines
            rc, out, _ = refctl("audit", "--db", path, "--key", log.key)
            assert rc == 0, out[-2000:]
        if edit == rewrite_whole:
            # other deals: the seats' signed transcript hashes, kept,
            # no longer rebuild from the log
            rc, out, _ = refctl("audit", "--db", path, "--key", log.key,
                                "--transcripts")
            assert rc == 1 and re.search(
                r"^match %d FAILED: the lines the log says seat \d was sent "
                r"do not hash to the receipt's transcript" % mid, out,
                re.M), out[-2000:]
        rc, out, err = verify(path, 0)
        assert rc == status and re.search(pattern, out, re.M), \
            (name, rc, out + err)
        print("#   %-28s %s" % (name, out.strip()[:110]))
    # a forged receipt, and a transcript the log does not hold
    k = ends[0].index(" sig=") + 5
    bad = ends[0][:k] + ("0" if ends[0][k] != "0" else "1") + \
        ends[0][k + 1:]
    rc, out, _ = verify(log.db, receipt=bad)
    assert rc == 3 and "FORGED: its signature does not verify" in out, out
    lines = open(log.rcpt[1]).read().splitlines()
    k = next(i for i, l in enumerate(lines) if " genplay " in l)
    lines[k] = lines[k][:-2] + ("1C" if not lines[k].endswith("1C") else
                                "2C")
    t = os.path.join(log.tmp, "rcpt-edited.txt")
    open(t, "w").write("\n".join(lines) + "\n")
    rc, out, _ = verify(log.db, 1, transcript=t)
    assert rc == 3 and re.search(r"^receipt FORGED: the \d+ lines the "
                                 r"transcript received", out), out
    print("#   edited transcript: " + out.strip()[:110])
    rc, out, _ = verify(log.db, 0, transcript=log.rcpt[1])
    assert rc == 3 and "receipt FORGED: the" in out, out
    # the receipt's hashes, recomputed as refd-protocol(7) defines them
    for seat, path in enumerate(log.rcpt):
        m = re.search(r" transcript=(\d+):(\d+):(\w+):(\d+):(\w+)$",
                      ends[seat])
        sent, answered = transcript_hashes(path, mid, int(m.group(2)),
                                           int(m.group(4)))
        assert (int(m.group(1)), sent, answered) == \
            (seat, m.group(3), m.group(5)), (seat, ends[seat])
    # an answer to a notification edited: only the hash holds those
    lines = open(log.rcpt[0]).read().splitlines()
    start = next(i for i, l in enumerate(lines) if " match_start " in l)
    k = next(i for i, l in enumerate(lines) if i > start and
             l.startswith("> ") and " genplay " not in lines[i - 1])
    lines[k] = "> ?" + lines[k][3:]
    t = os.path.join(log.tmp, "rcpt-answer.txt")
    open(t, "w").write("\n".join(lines) + "\n")
    rc, out, _ = verify(log.db, 0, transcript=t)
    assert rc == 3 and re.search(r"^receipt FORGED: the transcript's first "
                                 r"\d+ answers from match_start on do not "
                                 r"hash to the receipt's", out), out
    print("#   edited answer: " + out.strip()[:110])
    # a receipt whose hashes are not the ones the log's end chains
    forged_tx = re.sub(r"(transcript=0:\d+:)[0-9a-f]", r"\g<1>0" if
                       not re.search(r"transcript=0:\d+:0", ends[0]) else
                       r"\g<1>1", ends[0])
    rc, out, _ = verify(log.db, receipt=forged_tx)
    assert rc == 3 and "FORGED: its transcript hashes of seat 0" in out, out
    # every other example bot's recorder: heurbot, randbot.js, randbot.sh
    for seat, path in enumerate(log.rcpt3):
        end = next(l for l in open(path) if " match_end " in l).strip()
        rc, out, err = refctl("verify-receipt", "--db", log.db, "--match",
                              log.mid["receipt3"], "--receipt", end,
                              "--transcript", path, "--seat", seat)
        assert rc == 0 and out.startswith("receipt verified: match %d, "
                                          % log.mid["receipt3"]), \
            (path, out + err)
    print("#   heurbot, randbot.js, randbot.sh transcripts verified")


def test_checks(log):
    """refd's own connection leaves the schema's CHECKs to db.c and the
    audit: a row outside its CHECK, in a table no chain covers, fails
    audit --all by name; the honest log passes."""
    rc, out, err = refctl("audit", "--db", log.db, "--all")
    assert rc == 0 and "CHECK" not in out, out[-2000:] + err
    for table, sql in (
            ("bot_events", "UPDATE bot_events SET seat = 9 WHERE rowid = "
             "(SELECT min(rowid) FROM bot_events WHERE seat IS NOT NULL)"),
            ("tournaments", "UPDATE tournaments SET total = 0 WHERE id = "
             "(SELECT min(id) FROM tournaments)")):
        path = log.copy("checks-" + table)
        con = sqlite3.connect(path, isolation_level=None)
        con.execute("PRAGMA ignore_check_constraints = ON")
        assert con.execute(sql).rowcount == 1, sql
        con.close()
        rc, out, err = refctl("audit", "--db", path, "--all")
        assert rc == 1 and ("log FAILED: CHECK constraint failed in %s"
                            % table) in out, (table, out[-2000:] + err)
        print("#   %s: %s" % (table, next(l for l in out.splitlines()
                                         if "CHECK" in l)))


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


def test_standings_recount(log):
    """audit --all recounts each tournament's standings from the matches
    it replayed, and compares them with refctl tournament standings: they
    agree on the honest log, and not once a stored input is edited."""
    t = log.tid
    rc, out, err = refctl("audit", "--db", log.db, "--all")
    assert rc == 0, out[-2000:] + err
    m = re.search(r"^tournament %d standings recounted: (\d+) matches, as "
                  r"refctl's standings$" % t, out, re.M)
    assert m, out[-2000:]
    con = sqlite3.connect(log.db)
    done, = con.execute("SELECT count(DISTINCT slot) FROM matches WHERE "
                        "tournament = ? AND state = 'done'", (t,)).fetchone()
    mid, = con.execute("SELECT min(id) FROM matches WHERE tournament = ? "
                       "AND state = 'done' AND result LIKE 'seat%'",
                       (t,)).fetchone()
    con.close()
    assert int(m.group(1)) == done > 0, (m.group(0), done)
    print("#   honest: " + m.group(0))
    # a deal's winner edited: the standings refd reports read it
    path = log.copy("standings-deal-winner")
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("UPDATE deal_results SET winner = 1 - winner WHERE "
                "match_id = ? AND deal_no = 1", (mid,))
    con.close()
    line = audit_says(path, r"^tournament %d FAILED: the standings refd "
                      r"reports count %d matches, the audit verified %d "
                      r"that ended: not match %d$" % (t, done, done - 1, mid))
    print("#   deal winner edited: " + line)
    # faults, fallbacks and forfeits counted alike both ways
    tmp = os.path.join(log.tmp, "faulty")
    os.mkdir(tmp)
    r = harness.Refd(tmp)
    try:
        r.add("crand", [os.path.join(BUILD, "bots", "randbot"), "-s", "3"])
        r.add("ill", EVIL + ["illegal"])
        r.add("refuser", EVIL + ["refuse"])
        for i, body in enumerate(("variant joker3\npolicy fallback\n"
                                  "max_faults 2\n",
                                  "variant classic2\noption deal_cap=2\n")):
            tdef = os.path.join(tmp, "t%d.tour" % i)
            with open(tdef, "w") as f:
                f.write("name f%d\n%sbots crand ill refuser\nmatches 6\n"
                        "concurrency 3\n" % (i, body))
            tid = r.must("tournament_start", tdef)
            assert r.must("tournament_wait", tid).startswith("done"), tid
        faults = r.query("SELECT count(*) FROM faults")[0][0]
        forfeits = r.query("SELECT count(*) FROM matches WHERE result "
                           "LIKE 'forfeit%'")[0][0]
    finally:
        assert r.stop() == 0
    assert faults > 6 and forfeits > 0, (faults, forfeits)
    rc, out, err = refctl("audit", "--db", r.db, "--all")
    assert rc == 0, out[-2000:] + err
    for tid in (1, 2):
        assert re.search(r"^tournament %d standings recounted: 6 matches"
                         % tid, out, re.M), out[-2000:]
    print("#   with %d faults and %d forfeits: recounted alike" % (faults,
                                                                  forfeits))


def test_audit_holds_no_wal(log):
    """A long audit of a live log never holds refd's write-ahead log:
    refctl audit --all is stopped mid-walk while refd logs another
    match, and a checkpoint can still take the whole WAL into the
    database and truncate it."""
    tmp = os.path.join(log.tmp, "nowal")
    os.mkdir(tmp)
    r = harness.Refd(tmp)
    try:
        r.add("nw", [os.path.join(BUILD, "bots", "randbot")])
        for _ in range(40):
            r.wait(r.start("classic2", ["nw", "nw"], "deal_cap=2"))
        p = subprocess.Popen([REFCTL, "audit", "--db", r.db, "--all",
                              "--allow-running"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            first = p.stdout.readline()
            p.send_signal(signal.SIGSTOP)
            assert first and p.poll() is None, "the audit was too quick"
            # refd writes after the audit's snapshot: new WAL frames
            r.wait(r.start("classic2", ["nw", "nw"], "deal_cap=2"))
            con = sqlite3.connect(r.db, timeout=3)
            busy, frames, done = con.execute(
                "PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            con.close()
            wal = os.path.getsize(r.db + "-wal")
        finally:
            p.send_signal(signal.SIGCONT)
            out, err = p.communicate(timeout=120)
        assert busy == 0 and wal == 0, \
            "a stopped audit held the WAL: busy %d, %d of %d frames " \
            "checkpointed, %d bytes left" % (busy, done, frames, wal)
        assert p.returncode == 0 and "0 failed" in out, out[-2000:] + err
        # with nowhere to copy it, the audit reads the log and says so
        env = dict(os.environ, TMPDIR=os.path.join(tmp, "nowhere"))
        q = subprocess.run([REFCTL, "audit", "--db", r.db, "--all"],
                           capture_output=True, text=True, env=env)
        assert q.returncode == 0 and "reading the log itself" in \
            q.stderr, q.stdout[-1000:] + q.stderr
    finally:
        r.stop()


TESTS = [test_audit_verifies, test_tamper, test_seat_views, test_show,
         test_export, test_crash, test_running, test_wal_damage,
         test_wal_live,
         test_missing_match, test_tamper_v3, test_key, test_migrate_v2,
         test_receipts, test_standings_recount, test_checks, test_hostile,
         test_audit_holds_no_wal]


def main():
    harness.main_with("refd-audit.", Log, TESTS)


if __name__ == "__main__":
    main()
