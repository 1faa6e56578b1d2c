#!/usr/bin/env python3
"""receipts.py: refctl verify-receipt on every seat of every kind of match.

Plays, with every example bot keeping its own transcript (-r):
- a lone match of each of the eight variants, chiamata5's auction too;
- time-bank matches (chiamata5 and classic2) in which a bot's answer is
  held past its limit, in the auction and in the play: a time-out, a
  fallback move and a late answer;
- a match forfeited by a time-out, one stopped by the operator and one
  ended by a log that refused a write;
- a round robin and a duplicate tournament (their match_end says seed
  "-").
Then every seat's honest receipt, with its kept transcript, verifies
(a few under valgrind, when the build is not sanitized), and forged
receipts are told from rewritten logs, by message and exit status.

Prints "N passed, M failed"; exits 1 if anything failed.
Environment: top_builddir, top_srcdir (default: the current directory).
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import audit  # noqa: E402  (its log rewriters: relog, resign)

BUILD, SRC = harness.BUILD, harness.SRC
REFCTL = os.environ.get("REFCTL") or harness.REFCTL
PY = harness.PY
LAG = [PY, os.path.join(SRC, "tests", "lagbot.py")]
KINDS = ["c", "heur", "py", "js", "sh"] if shutil.which("node") else \
    ["c", "heur", "py", "sh"]
NSEATS = {"joker3": 3, "classic2": 2, "classic3": 3, "classic4": 4,
          "classic5": 5, "classic6": 6, "briscolone": 2, "chiamata5": 5}
VERIFIED = r"^receipt verified: match %d, seat %d, result %s, "


def refctl(*args, timeout=120, valgrind=False):
    """Run refctl; returns (returncode, stdout, stderr)."""
    pre = ["valgrind", "-q", "--error-exitcode=99",
           "--errors-for-leak-kinds=none"] if valgrind else []
    p = subprocess.run(pre + [REFCTL] + [str(a) for a in args],
                       capture_output=True, timeout=timeout)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def sanitized():
    """Is refctl built with AddressSanitizer (scripts/sanitize)?"""
    with open(REFCTL, "rb") as f:
        return b"__asan_init" in f.read()


def bot_argv(kind, seed, path):
    """An example bot of kind that keeps its transcript in path."""
    if kind == "c":
        return [os.path.join(BUILD, "bots", "randbot"), "-s", str(seed),
                "-r", path]
    if kind == "heur":
        return [os.path.join(BUILD, "bots", "heurbot"), "-r", path]
    if kind == "py":
        return [PY, os.path.join(SRC, "bots", "randbot.py"), str(seed),
                "-r", path]
    if kind == "js":
        return ["node", os.path.join(SRC, "bots", "randbot.js"), str(seed),
                "-r", path]
    return ["sh", os.path.join(SRC, "bots", "randbot.sh"), "-r", path,
            str(seed)]


def wait_text(path, text, tries=500):
    for _ in range(tries):
        if os.path.exists(path) and text in open(path).read():
            return
        time.sleep(0.02)
    raise AssertionError("%s never got %r" % (path, text))


def receipt_of(path, mid):
    """The match_end line of match mid in a kept transcript."""
    inside = False
    for line in open(path).read().splitlines():
        text = re.sub(r"^\d+ ", "", line)
        if text.startswith("match_start match=%d " % mid):
            inside = True
        elif inside and text.startswith("match_end "):
            return line
    raise AssertionError("%s holds no match_end of match %d" % (path, mid))


class Log:
    """The matches every test reads, played once, then refd stopped."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.db = os.path.join(tmp, "log.db")
        self.cases = []         # (label, match id, {seat: transcript})
        self.mid = {}           # name -> id, of matches without receipts
        self.n = 0
        self.r = harness.Refd(tmp)
        try:
            self.rec, self.opt = self.r.recorder()
            self.play(self.r)
        finally:
            rc = self.r.stop()
        assert rc == 0, "refd exited with %s" % rc
        # the public key: the second half of libsodium's secret key
        self.key = open(self.db + ".key").read().strip()[64:]

    def bot(self, r, kind, lag=None):
        """Register a recording bot; returns (name, transcript)."""
        self.n += 1
        name = "b%d-%s" % (self.n, kind)
        path = os.path.join(self.rec, name + ".txt")
        argv = bot_argv(kind, 100 + self.n, path)
        if lag is not None:
            ms, which, mark = lag
            argv = LAG + [str(ms), which, mark or "-", "--"] + argv
        r.add(name, self.opt + argv)
        return name, path

    def lone(self, r, label, variant, kinds, *opts, lags=None):
        """Start a lone match; returns its id and transcripts."""
        names, paths = [], {}
        for i, k in enumerate(kinds):
            n, p = self.bot(r, k, (lags or {}).get(i))
            names.append(n)
            paths[i] = p
        mid = r.start(variant, names, *opts)
        self.cases.append((label, mid, paths))
        return mid

    def play(self, r):
        mids = []
        for v, (variant, n) in enumerate(NSEATS.items()):
            mids.append(self.lone(r, "lone " + variant, variant,
                                  [KINDS[(v + i) % len(KINDS)]
                                   for i in range(n)],
                                  "deals=2" if variant == "chiamata5" else
                                  "deal_cap=3"))
        # the bank: move_ms 300, a bank of 700 ms; a held answer is a
        # time-out (a fallback move) and then a late answer
        mids.append(self.lone(
            r, "bank chiamata5", "chiamata5", ["c", "py", "heur", "sh", "c"],
            "move_ms=300", "bank_ms=700", "policy=fallback",
            "max_faults=9", "deals=2",
            lags={1: (600, "1,4", None), 3: (600, "3", None)}))
        mids.append(self.lone(
            r, "bank classic2", "classic2", ["py", "c"], "move_ms=300",
            "bank_ms=700", "policy=fallback", "max_faults=9", "deal_cap=2",
            lags={0: (600, "2,5", None)}))
        mids.append(self.lone(
            r, "forfeit", "classic3", ["heur", "py", "c"], "move_ms=300",
            lags={1: (600, "2", None)}))
        # cut short in chiamata5's auction: a time-out of its first call
        mids.append(self.lone(
            r, "forfeit in the auction", "chiamata5",
            ["py", "c", "sh", "heur", "c"], "move_ms=300",
            lags={i: (600, "1", None) for i in range(5)}))
        # every call a pass: void deals
        r.add("passer", harness.EVIL + ["passer"])
        self.mid["void"] = r.start("chiamata5", ["passer"] * 5, "deals=2")
        mids.append(self.mid["void"])
        # refused before any deal: a bot that does not know the auction
        r.add("oldbot", harness.EVIL + ["oldbot"])
        self.mid["refused"] = r.start("chiamata5", ["oldbot"] + ["passer"] * 4)
        mids.append(self.mid["refused"])
        for mid in mids:
            r.wait(mid)
        # stopped by the operator while a bot thinks
        mark = os.path.join(self.rec, "stop.mark")
        mid = self.lone(r, "stopped", "classic2", ["c", "py"],
                        "move_ms=8000", lags={1: (3000, "3", mark)})
        wait_text(mark, "hold")
        r.must("match_stop", str(mid))
        r.wait(mid)
        # ended by a log that refused a write
        mark = os.path.join(self.rec, "lock.mark")
        mid = self.lone(r, "log refused a write", "classic2", ["sh", "c"],
                        "move_ms=8000", lags={0: (1500, "3", mark)})
        wait_text(mark, "hold")
        con = sqlite3.connect(self.db, timeout=10, isolation_level=None)
        con.execute("BEGIN EXCLUSIVE")
        try:
            result, reason = r.wait(mid)
            assert result == "aborted" and "log failure" in reason, \
                (result, reason)
        finally:
            con.execute("ROLLBACK")
            con.close()
        # the next write logs the end it could not
        r.add("plain0", harness.EVIL + ["good"])
        r.add("plain1", harness.EVIL + ["good"])
        r.must("match_stop", str(r.start("classic2", ["plain0", "plain1"])))
        # tournaments: each bot's transcript holds all of its matches
        for label, variant, kinds, extra in (
                ("round robin", "classic2", ["c", "py", "sh"], ""),
                ("duplicate", "joker3", ["heur", KINDS[3], "c"],
                 "duplicate yes\ntrust_remote yes\n")):
            bots = [self.bot(r, k) for k in kinds]
            tdef = os.path.join(self.tmp, label.replace(" ", "") + ".tour")
            with open(tdef, "w") as f:
                f.write("name %s\nvariant %s\nbots %s\noption deal_cap=2\n"
                        "concurrency 1\nseed %s\n%s" % (
                            label.replace(" ", ""), variant,
                            " ".join(b[0] for b in bots), "ab" * 32, extra))
            tid = int(r.must("tournament_start", tdef))
            assert r.must("tournament_wait", str(tid),
                          timeout=600).startswith("done")
            path = dict(bots)
            for mid, in r.query("SELECT id FROM matches WHERE tournament = "
                                "? ORDER BY id", tid):
                seats = r.query("SELECT seat, bot FROM seats WHERE "
                                "match_id = ?", mid)
                self.cases.append(("%s %s" % (label, variant), mid,
                                   {s: path[b] for s, b in seats}))
        # a crash: refd killed while a match plays (its bots never hear
        # its end, so it has no receipt), started again on the log, and a
        # match after it: every receipt before and after still verifies
        mark = os.path.join(self.rec, "crash.mark")
        names = [self.bot(r, "c")[0], self.bot(r, "py", (8000, "3", mark))[0]]
        self.mid["crashed"] = r.start("classic2", names, "move_ms=9000")
        wait_text(mark, "hold")
        r.proc.kill()
        r.proc.wait()
        r.err.close()
        r = self.r = harness.Refd(self.tmp)
        assert r.query("SELECT state FROM matches WHERE id = ?",
                       self.mid["crashed"]) == [("aborted",)]
        self.lone(r, "after a crash", "joker3", ["heur", "py", "c"],
                  "deal_cap=2")
        r.wait(self.cases[-1][1])
        for label, mid, paths in self.cases:
            for p in paths.values():
                wait_text(p, "match_start match=%d " % mid)
        time.sleep(0.3)         # the last match_end lines written

    def copy(self, name):
        path = os.path.join(self.tmp, name + ".db")
        shutil.copyfile(self.db, path)
        return path


def verify(db, mid, seat, path, receipt=None, valgrind=False):
    return refctl("verify-receipt", "--db", db, "--match", mid, "--receipt",
                  receipt or receipt_of(path, mid), "--transcript", path,
                  "--seat", seat, valgrind=valgrind)


def test_honest(log):
    """Every seat's honest receipt verifies with its kept transcript."""
    bad = []
    n = 0
    for label, mid, paths in log.cases:
        result, = log_row(log.db, "SELECT result FROM matches WHERE id = ?",
                          mid)
        for seat, path in sorted(paths.items()):
            rc, out, err = verify(log.db, mid, seat, path)
            n += 1
            if rc != 0 or not re.search(VERIFIED % (mid, seat, result), out,
                                        re.M):
                bad.append("%s, match %d seat %d (%s): rc %d: %s" % (
                    label, mid, seat, os.path.basename(path), rc,
                    (out + err).strip()[:300]))
    assert not bad, "\n".join(bad)
    print("#   %d receipts of %d matches verified" % (n, len(log.cases)))


def test_valgrind(log):
    """verify-receipt reads and writes no freed memory: a receipt of each
    kind of match under valgrind (the sanitized build runs this suite
    under AddressSanitizer instead)."""
    if sanitized() or not shutil.which("valgrind"):
        print("# sanitized build or no valgrind: valgrind skipped")
        return
    done = set()
    for label, mid, paths in log.cases:
        kind = label.split()[0]
        if kind in done and kind != "bank":
            continue
        done.add(kind)
        seat = max(paths)
        rc, out, err = verify(log.db, mid, seat, paths[seat], valgrind=True)
        assert rc != 99 and "==" not in err, \
            "%s, match %d seat %d: rc %d\n%s" % (label, mid, seat, rc,
                                               (out + err)[-3000:])


def log_row(db, sql, *args):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return con.execute(sql, args).fetchone()
    finally:
        con.close()


def sign(sk_hex, link_hex):
    """An Ed25519 signature of a link, by libsodium as refd makes it."""
    import ctypes
    sodium = ctypes.CDLL("libsodium.so.23")
    assert sodium.sodium_init() >= 0
    sig = ctypes.create_string_buffer(64)
    m = bytes.fromhex(link_hex)
    sodium.crypto_sign_detached(sig, None, m, ctypes.c_ulonglong(len(m)),
                                bytes.fromhex(sk_hex))
    return sig.raw.hex()


def keypair():
    import ctypes
    sodium = ctypes.CDLL("libsodium.so.23")
    pk = ctypes.create_string_buffer(32)
    sk = ctypes.create_string_buffer(64)
    sodium.crypto_sign_keypair(pk, sk)
    return pk.raw.hex(), sk.raw.hex()


def test_forged(log):
    """A forged receipt or transcript is called forged (exit 3), a receipt
    of another match says whose it is (4), a receipt signed with another
    key than the log's is told apart (5, or with --key which side lies),
    and a log rewritten under an honest receipt is called rewritten (1):
    by message and by exit status (refctl(1), EXIT STATUS)."""
    label, mid, paths = next(c for c in log.cases if c[0] == "bank classic2")
    path = paths[0]
    honest = receipt_of(path, mid)
    words = honest.split(" ")           # id match_end res mp seed chain ...
    other_label, other, other_paths = log.cases[0]
    pk, sk = keypair()
    head = re.search(r"head=(\d+):(\w+)", honest)

    def word(i, new):
        w = list(words)
        w[i] = new
        return " ".join(w)

    def flip(hexs):
        return ("1" if hexs[0] == "0" else "0") + hexs[1:]

    def sub(pattern, repl):
        return re.sub(pattern, repl, honest)

    tx = re.search(r"transcript=(\d+):(\d+):(\w+)", honest)
    forged = [
        ("signature edited", sub(r"sig=(\w)", lambda m: "sig=" +
                                 flip(m.group(1))), 3,
         r"^receipt FORGED: its signature does not verify"),
        ("result edited", word(2, "seat1" if words[2] != "seat1" else
                               "seat0"), 3,
         r"^receipt FORGED: it says result seat\d, but refd signed"),
        ("match points edited", word(3, "9,9"), 3,
         r"^receipt FORGED: it says match points 9,9"),
        ("seed edited", word(4, flip(words[4])), 3,
         r"^receipt FORGED: it says seed"),
        ("final link edited", word(5, flip(words[5])), 3,
         r"^receipt FORGED: its final link"),
        ("transcript hash edited", honest.replace(
            tx.group(0), tx.group(0)[:-64] + flip(tx.group(3))), 3,
         r"^receipt FORGED: its transcript hashes of seat 0 are not the "
         r"ones refd signed"),
        ("head number edited", honest.replace(
            "head=%s:" % head.group(1), "head=%d:" % (int(head.group(1)) - 1)),
         3, r"^receipt FORGED: its signed head is event %s of the log, the "
         r"end of match %d, but it says" % (head.group(1), mid)),
        ("signed with another key", re.sub(
            r"sig=\w+ key=\w+", "sig=%s key=%s" % (sign(sk, head.group(2)),
                                                 pk), honest), 5,
         r"^receipt KEYS DIFFER: it is signed with key"),
        ("another match's receipt", receipt_of(other_paths[0], other), 4,
         r"^receipt OTHER MATCH: it is the receipt of match %d "
         r"\(signed head \d+\), not of match %d" % (other, mid)),
    ]
    for name, receipt, status, pattern in forged:
        rc, out, err = verify(log.db, mid, 0, path, receipt=receipt)
        assert rc == status and re.search(pattern, out, re.M), \
            (name, rc, out + err)
        print("#   %-26s %d %s" % (name, rc, out.strip()[:90]))
    # with the published key, a receipt signed with another is forged
    rc, out, _ = refctl("verify-receipt", "--db", log.db, "--match", mid,
                        "--receipt", forged[7][1], "--key", log.key)
    assert rc == 3 and re.search(r"^receipt FORGED: it is signed with key "
                                 r"\w+\.\.\., not with the published key",
                                 out, re.M), (rc, out)
    # a kept transcript edited: a line, an answer
    lines = open(path).read().splitlines()
    start = next(i for i, l in enumerate(lines)
                 if re.match(r"\d+ match_start match=%d " % mid, l))
    k = next(i for i in range(start, len(lines)) if " genplay " in lines[i])
    # another card than the one the bot answered (it may have been 1C)
    other = "> =2C" if lines[k + 1].strip() == "> =1C" else "> =1C"
    for name, i, new in (("transcript line edited", k, lines[k] + " 1C"),
                         ("transcript answer edited", k + 1, other)):
        edited = list(lines)
        edited[i] = new
        t = os.path.join(log.tmp, name.replace(" ", "-") + ".txt")
        open(t, "w").write("\n".join(edited) + "\n")
        rc, out, err = verify(log.db, mid, 0, t, receipt=honest)
        assert rc == 3 and re.search(
            r"^receipt FORGED: the (\d+ lines the transcript received|"
            r"transcript's first \d+ answers) from match_start on do not "
            r"hash to the receipt's", out, re.M), (name, rc, out + err)
        print("#   %-26s %d %s" % (name, rc, out.strip()[:90]))

    # the log rewritten under honest receipts
    keyfile = log.db + ".key"

    def rewrite_play(con):          # by the key holder, re-signed
        con.execute("UPDATE plays SET ms = ms + 1 WHERE match_id = ? AND "
                    "deal_no = 1 AND seq = 1", (mid,))
        audit.relog(con)
        audit.resign(con, keyfile)

    def rewrite_result(con):        # the result and its end, re-signed
        con.execute("UPDATE matches SET result = 'seat1' WHERE id = ?",
                    (mid,))
        audit.relog(con)
        audit.resign(con, keyfile)

    def cut(con):                   # rolled back before the match
        no, = con.execute("SELECT min(no) FROM log_chain WHERE match_id = "
                          "?", (mid,)).fetchone()
        con.execute("DELETE FROM log_chain WHERE no >= ?", (no,))

    def rekey(con):                 # signed again with another key
        con.execute("UPDATE log_chain SET text = ? WHERE kind = 'key'",
                    ("key " + pk,))
        audit.relog(con)
        fake = os.path.join(log.tmp, "fake.key")
        open(fake, "w").write(sk + "\n")
        audit.resign(con, fake)

    rewritten = [
        ("match rewritten, re-signed", rewrite_play, (), 1,
         r"^receipt FAILED: the log holds no event with its signed head"),
        ("result rewritten, re-signed", rewrite_result, (), 1,
         r"^receipt FAILED: the log holds no event with its signed head"),
        ("log cut", cut, (), 1,
         r"^receipt FAILED: the log holds no event with its signed head"),
        ("log re-keyed", rekey, (), 5,
         r"^receipt KEYS DIFFER: the log holds no event with its signed "
         r"head \d+:\w+\.\.\., and never signed with its key"),
        ("log re-keyed, --key", rekey, ("--key", log.key), 1,
         r"^receipt FAILED: the log holds no event with its signed head"),
    ]
    for name, edit, extra, status, pattern in rewritten:
        db = log.copy(name.replace(" ", "-").replace(",", ""))
        con = sqlite3.connect(db, isolation_level=None)
        edit(con)
        con.close()
        rc, out, err = refctl("verify-receipt", "--db", db, "--match", mid,
                              "--receipt", honest, "--transcript", path,
                              "--seat", 0, *extra)
        assert rc == status and re.search(pattern, out, re.M), \
            (name, rc, out + err)
        print("#   %-26s %d %s" % (name, rc, out.strip()[:90]))


def audit_of(db, *args):
    """refctl audit of db; returns (returncode, stdout)."""
    rc, out, err = refctl("audit", "--db", db, *args)
    return rc, out + err


def test_bound_columns(log):
    """Every bound column of refd-log(5), in every state its row can be
    in, fails the audit when it says other than what it is bound to,
    even in a log the key holder chained and signed again; the honest
    log audits clean."""
    rc, out = audit_of(log.db, "--all", "--key", log.key, "--transcripts")
    assert rc == 0, out[-3000:]
    keyfile = log.db + ".key"

    def mid_of(label):
        return next(c[1] for c in log.cases if c[0] == label)

    lone2 = mid_of("lone classic2")
    lone5 = mid_of("lone chiamata5")
    cut = mid_of("forfeit in the auction")
    void = log.mid["void"]
    refused = log.mid["refused"]
    con = sqlite3.connect("file:%s?mode=ro" % log.db, uri=True)
    called5 = con.execute("SELECT deal_no FROM deals WHERE match_id = ? AND "
                          "called IS NOT NULL", (lone5,)).fetchone()
    assert called5, "the chiamata5 match has no called card"
    voids = con.execute("SELECT count(*) FROM deal_results WHERE match_id = "
                        "? AND result = 'void'", (void,)).fetchone()[0]
    assert voids >= 1, "no void deal"
    cutdeal, = con.execute("SELECT max(deal_no) FROM deals WHERE match_id = "
                           "?", (cut,)).fetchone()
    assert con.execute("SELECT count(*) FROM calls WHERE match_id = ? AND "
                       "kind = 'call' AND deal_no = ?",
                       (cut, cutdeal)).fetchone()[0] == 0
    state, mp = con.execute("SELECT state, mpoints FROM matches WHERE id = "
                            "?", (refused,)).fetchone()
    assert state == "aborted" and mp == "0,0,0,0,0", (state, mp)
    con.close()

    def called(mid, deal, card="1C", caller=0, partner=1):
        return lambda c: c.execute(
            "UPDATE deals SET called = ?, caller = ?, partner = ? WHERE "
            "match_id = ? AND deal_no = ?", (card, caller, partner, mid,
                                             deal))

    def one(mid, deal, col, value):
        return lambda c: c.execute(
            "UPDATE deals SET %s = ? WHERE match_id = ? AND deal_no = ?" % col,
            (value, mid, deal))

    def rechain(mid, edit):
        """An edit of a chained column, chained and signed again."""
        def f(c):
            edit(c)
            audit.relink(c, mid)
            audit.relog(c)
            audit.resign(c, keyfile)
        return f

    rules = [
        # deals.called, caller, partner: NULL where no call is chained
        ("called set, classic2 deal", lone2, called(lone2, 1),
         r"match %d FAILED: deal 1: no called card is chained in this deal "
         r"\(no auction in this variant\), yet its called, caller and "
         r"partner columns say 1C, 0, 1" % lone2),
        ("caller alone set, classic2", lone2, one(lone2, 1, "caller", 1),
         r"no auction in this variant\), yet .* say NULL, 1, NULL"),
        ("called set, void deal", void, called(void, 1),
         r"match %d FAILED: deal 1: no called card is chained in this deal "
         r"\(a void deal\)" % void),
        ("partner set, void deal", void, one(void, 1, "partner", 2),
         r"\(a void deal\), yet .* say NULL, NULL, 2"),
        ("called set, cut short", cut, called(cut, cutdeal),
         r"match %d FAILED: deal %d: no called card is chained in this "
         r"deal \(cut short in its auction\)" % (cut, cutdeal)),
        # ... and copies of the chained call where there is one
        ("called card changed", lone5, one(lone5, called5[0], "called",
                                           "2B"),
         r"match %d FAILED: .*the deal's called, caller and partner columns "
         r"disagree with the chained called card" % lone5),
        ("caller changed", lone5, lambda c: c.execute(
            "UPDATE deals SET caller = (caller + 1) % 5 WHERE match_id = ? "
            "AND deal_no = ?", (lone5, called5[0])),
         r"columns disagree with the chained called card"),
        ("partner made NULL", lone5, one(lone5, called5[0], "partner",
                                         None),
         r"columns disagree with the chained called card"),
        # matches.mpoints: zeros when no deal was scored
        ("mpoints empty, re-signed", refused, rechain(
            refused, lambda c: c.execute(
                "UPDATE matches SET mpoints = '' WHERE id = ?", (refused,))),
         r"match %d FAILED: .*logged final match points , the rules give "
         r"0,0,0,0,0" % refused),
        # matches.seed: bound to its chained commitment
        ("seed changed", lone2, lambda c: c.execute(
            "UPDATE matches SET seed = ? WHERE id = ?", ("ab" * 32, lone2)),
         r"match %d FAILED: the seed does not match its commitment" % lone2),
        # matches.state: bound to the chained result
        ("state done to aborted", lone2, lambda c: c.execute(
            "UPDATE matches SET state = 'aborted' WHERE id = ?", (lone2,)),
         r"match %d FAILED: .*the match ended with a result, but its state "
         r"is aborted" % lone2),
        ("state aborted to done", refused, lambda c: c.execute(
            "UPDATE matches SET state = 'done' WHERE id = ?", (refused,)),
         r"match %d FAILED: .*the match ended aborted, but its state is "
         r"done" % refused),
        # matches.state of a match aborted at a restart (no end row)
        ("state aborted at restart to done", log.mid["crashed"],
         lambda c: c.execute("UPDATE matches SET state = 'done' WHERE id "
                             "= ?", (log.mid["crashed"],)),
         r"match %d FAILED: " % log.mid["crashed"]),
        ("state aborted at restart to running", log.mid["crashed"],
         lambda c: c.execute("UPDATE matches SET state = 'running', ended "
                             "= NULL WHERE id = ?", (log.mid["crashed"],)),
         r"match %d FAILED: " % log.mid["crashed"]),
        # tournaments.seed: bound to the commitment in its tbegin event
        ("tournament seed changed", None, lambda c: c.execute(
            "UPDATE tournaments SET seed = ? WHERE id = 1", ("ef" * 32,)),
         r"tournament 1 FAILED: .*seed"),
    ]
    for name, mid, edit, pattern in rules:
        db = log.copy("bound-" + re.sub(r"\W+", "-", name))
        c = sqlite3.connect(db, isolation_level=None)
        edit(c)
        c.close()
        rc, out = audit_of(db, "--all", "--key", log.key)
        assert rc == 1 and re.search(pattern, out), (name, rc, out[-2000:])
        print("#   %-28s %s" % (name, next(
            l for l in out.splitlines() if re.search(pattern, l))[:100]))


def test_late_answers(log):
    """An answer held past its time-out is logged, chained, with its
    arrival time (refd-log(5), answers), shown, exported, and the audit
    rebuilds every seat's answers' hash from the log alone: an answer
    the key holder rewrites, or drops, and chains and signs again, fails
    the audit even with no receipt at hand."""
    keyfile = log.db + ".key"
    con = sqlite3.connect("file:%s?mode=ro" % log.db, uri=True)
    late = {}
    for label in ("bank chiamata5", "bank classic2"):
        mid = next(c[1] for c in log.cases if c[0] == label)
        late[label] = con.execute(
            "SELECT seat, line, answer, chain_no, ms FROM answers WHERE "
            "match_id = ? AND kind = 'late' ORDER BY chain_no",
            (mid,)).fetchall()
        timeouts = con.execute(
            "SELECT count(*) FROM faults WHERE match_id = ? AND kind = "
            "'timeout'", (mid,)).fetchone()[0]
        assert late[label] and len(late[label]) <= timeouts, \
            (label, late[label], timeouts)
        # its time: the bot's own, refd's stalls not charged, so an
        # answer read late may count under the limit it missed
        assert all(ms >= 0 for _, _, _, _, ms in late[label]), late[label]
    con.close()
    mid = next(c[1] for c in log.cases if c[0] == "bank classic2")
    seat, line, answer, no, _ = late["bank classic2"][0]
    rc, out, err = refctl("show", "--db", log.db, mid)
    assert rc == 0 and re.search(r"seat %d answered its line %d \(late\) "
                                 r"after \d+ ms at \S+: %s" % (
                                     seat, line, re.escape(answer)), out), \
        out[-2000:] + err
    rc, out, err = refctl("export", "--db", log.db, mid)
    assert rc == 0 and '"answers":[{' in out and '"kind":"late"' in out, \
        out[:500] + err

    def rechain(edit):
        def f(c):
            edit(c)
            audit.relink(c, mid)
            audit.relog(c)
            audit.resign(c, keyfile)
        return f

    other = "=1C" if answer != "=1C" else "=2C"
    edits = [
        ("late answer rewritten", rechain(lambda c: c.execute(
            "UPDATE answers SET answer = ? WHERE match_id = ? AND "
            "chain_no = ?", (other, mid, no))),
         r"match %d FAILED: the answers the log holds for seat %d do not "
         r"hash to the receipt's" % (mid, seat)),
        ("late answer dropped", rechain(lambda c: c.execute(
            "DELETE FROM answers WHERE match_id = ? AND chain_no = ?",
            (mid, no))),
         r"match %d FAILED: .*(rows were removed|answers the log holds "
         r"for seat %d do not hash)" % (mid, seat)),
        ("late answer edited", lambda c: c.execute(
            "UPDATE answers SET answer = ? WHERE match_id = ? AND "
            "chain_no = ?", (other, mid, no)),
         r"match %d FAILED: .*the chain breaks at link %d" % (mid, no)),
        ("late answer of a seat that never timed out", rechain(
            lambda c: c.execute(
                "UPDATE answers SET seat = 1 - seat WHERE match_id = ? AND "
                "chain_no = ?", (mid, no))),
         r"match %d FAILED: seat %d: 1 late answers of the seat are chained,"
         r" but only 0 of its moves timed out" % (mid, 1 - seat)),
    ]
    for name, edit, pattern in edits:
        db = log.copy(re.sub(r"\W+", "-", name))
        c = sqlite3.connect(db, isolation_level=None)
        edit(c)
        c.close()
        rc, out = audit_of(db, str(mid), "--key", log.key, "--transcripts")
        assert rc == 1 and re.search(pattern, out), (name, rc, out[-2000:])
        print("#   %-28s %s" % (name, out.strip().splitlines()[-2][:100]))


TESTS = [test_honest, test_forged, test_bound_columns, test_late_answers,
         test_valgrind]


def main():
    harness.main_with("refd-receipts.", Log, TESTS)


if __name__ == "__main__":
    main()
