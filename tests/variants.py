#!/usr/bin/env python3
"""variants.py: refd referees classic5, classic6, briscolone and
chiamata5 end to end.

Each plays to the end with the example bots and audits clean; recording
bots prove that no seat is told a card or, in chiamata5, the partner
before it may know them, and that every seat hears the same public
lines; a forged call of the auction, re-chained, is caught by the
audit; a bot that does not know the auction's commands is refused before
a chiamata5 match and never asked of them in another variant; and a log
written with schema 3 migrates to schema 4 with its chains unchanged.
Prints "N passed, M failed"; exits 1 if anything failed.

Environment: top_builddir, top_srcdir (default: the current directory).
"""
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time

from harness import (EVIL, REFCTL, SCHEMA, SRC, Refd, check_transcript,
                     example_bots, finish, public_lines, run_against)

NEW = {"classic5": 5, "classic6": 6, "briscolone": 2, "chiamata5": 5}
# the chained tables of a match, and where each keeps its match's id
CHAINED = [("deals", "match_id"), ("plays", "match_id"),
           ("tricks", "match_id"), ("jokers", "match_id"),
           ("faults", "match_id"), ("deal_results", "match_id"),
           ("seats", "match_id"), ("calls", "match_id")]


def refctl(*args, timeout=120):
    """Run refctl; returns (returncode, stdout, stderr)."""
    p = subprocess.run([REFCTL] + [str(a) for a in args],
                       capture_output=True, timeout=timeout)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def wait_end(path):
    """Wait until a recording bot has written match_end."""
    for _ in range(250):
        if os.path.exists(path) and " match_end " in open(path).read():
            return
        time.sleep(0.02)
    raise AssertionError("%s: no match_end" % path)


# ---------------------------------------------------------------- tests

def test_every_new_variant_audits(r):
    """Each new variant plays to the end with every example bot at
    every seat in turn, logs its rows, and refctl audit verifies it."""
    bots = example_bots()
    for name, argv in bots.items():
        r.add(name, argv)
    names = list(bots)
    mids = []
    for variant, n in NEW.items():
        for k in range(len(names)):
            seats = [names[(k + i) % len(names)] for i in range(n)]
            mids.append((r.start(variant, seats), variant))
    for mid, variant in mids:
        result, reason = r.wait(mid)
        assert result.startswith(("seat", "team", "draw")), \
            "%s: %s %s" % (variant, result, reason)
        deals = r.query("SELECT deal_no, deck, trump, called, caller, "
                        "partner FROM deals WHERE match_id = ?", mid)
        assert deals, variant
        for deal_no, deck, trump, called, caller, partner in deals:
            assert (trump is None) == (variant in ("briscolone",
                                                   "chiamata5")), trump
            calls = r.query("SELECT kind FROM calls WHERE match_id = ? "
                            "AND deal_no = ?", mid, deal_no)
            if variant != "chiamata5":
                assert calls == [] and called is None, (variant, calls)
                continue
            plays = r.query("SELECT count(*) FROM plays WHERE match_id = ?"
                            " AND deal_no = ?", mid, deal_no)[0][0]
            if called is None:       # five passes: a void deal
                assert calls == [("bid",)] * 5 and plays == 0, calls
                continue
            assert calls[-1] == ("call",) and plays == 40, (calls, plays)
            assert 0 <= caller < 5 and 0 <= partner < 5
    rc, out, err = refctl("audit", "--db", r.db, "--all")
    assert rc == 0, out + err
    assert "%d matches verified, 0 failed" % len(mids) in out, out
    first = {}
    for mid, variant in mids:
        first.setdefault(variant, mid)
    for variant, mid in first.items():
        rc, out, err = refctl("show", "--db", r.db, mid)
        assert rc == 0 and "\naudit: verified" in out, (variant, err)
        if variant == "chiamata5":
            assert " calls " in out and "the called card is played" in \
                out, out
        rc, out, err = refctl("export", "--db", r.db, mid)
        d = json.loads(out)
        assert d["match"]["variant"] == variant
        assert ("calls" in d["deals"][0]) == (variant == "chiamata5"), d
        assert len(d["seats"]) == NEW[variant]


def test_information(r):
    """Recording bots at every seat of every new variant: no card is
    named to a seat before it may know it; every seat receives the same
    public lines in the same order, so the holder of chiamata5's called
    card is told nothing the others are not; the partner is named only
    right after the called card is played; and refctl show --seat
    rebuilds each transcript exactly."""
    rec, opt = r.recorder()
    for variant, n in NEW.items():
        names = []
        for i in range(n):
            name = "vrec-%s-%d" % (variant, i)
            r.add(name, opt + EVIL + ["record",
                                      os.path.join(rec, name + ".txt")])
            names.append(name)
        mid = r.start(variant, names)
        result, reason = r.wait(mid)
        assert result.startswith(("seat", "team", "draw")), \
            "%s: %s %s" % (variant, result, reason)
        public = None
        for i, name in enumerate(names):
            path = os.path.join(rec, name + ".txt")
            wait_end(path)
            assert check_transcript(path, variant, i) is False, variant
            mine = public_lines(path)
            if public is None:
                public = mine
            assert mine == public, \
                "%s: seat %d heard other public lines than seat 0" % \
                (variant, i)
            rc, out, err = refctl("show", "--db", r.db, "--seat", i, mid)
            assert rc == 0, err
            told = [" ".join(l.split()[1:]) for l in open(path)
                    if l.split()[1:2] and l.split()[1] not in
                    ("name", "version", "quit", "known_command")]
            assert out.splitlines() == told, \
                "%s seat %d: show --seat differs from the transcript" % \
                (variant, i)
        if variant == "chiamata5":
            reveals = [l for l in public if l.startswith("partner ")]
            calls = r.query("SELECT count(*) FROM calls WHERE match_id = ?"
                            " AND kind = 'call'", mid)[0][0]
            assert len(reveals) == calls > 0, (reveals, calls)


def test_old_bot_refused(r):
    """A bot that answers known_command genbid with false is refused
    before a chiamata5 match, with the reason; in every other variant
    it plays and is never sent an auction command."""
    rec, opt = r.recorder()
    path = os.path.join(rec, "old-classic2.txt")
    r.add("oldbot", EVIL + ["oldbot"])
    r.add("oldrec", opt + EVIL + ["record", path])
    r.add("newbot", EVIL + ["good"])
    mid = r.start("chiamata5", ["newbot", "newbot", "oldbot", "newbot",
                                "newbot"])
    result, reason = r.wait(mid)
    assert result == "aborted", (result, reason)
    assert "seat 2 (oldbot) does not know the auction's commands" in \
        reason and "genbid" in reason, reason
    assert r.query("SELECT count(*) FROM deals WHERE match_id = ?",
                   mid)[0][0] == 0
    for variant, n in (("classic2", 2), ("classic5", 5)):
        seats = ["oldbot"] * n
        if variant == "classic2":
            seats[0] = "oldrec"
        mid = r.start(variant, seats)
        result, reason = r.wait(mid)
        assert result.startswith(("seat", "team", "draw")), \
            (variant, result, reason)
    wait_end(path)
    words = {l.split()[1] for l in open(path) if len(l.split()) > 1}
    assert not words & {"known_command", "genbid", "gencall", "bid",
                        "called", "partner"}, words


def test_auction_faults(r):
    """Under policy fallback a wrong call costs a pass and a wrong suit
    the documented one, each logged as a fault and a call refd made
    (fault=1); the match plays on and audits clean."""
    r.add("badbid", EVIL + ["badbid"])
    r.add("badcall", EVIL + ["badcall"])
    r.add("goodbid", EVIL + ["good"])
    mid = r.start("chiamata5", ["badbid", "badcall", "badcall", "goodbid",
                                "goodbid"], "policy=fallback",
                  "max_faults=1000", "deals=10")
    result, reason = r.wait(mid)
    assert result.startswith(("seat", "draw")), (result, reason)
    faults = r.query("SELECT seat, kind, action FROM faults WHERE "
                     "match_id = ? ORDER BY id", mid)
    actions = {a for _, _, a in faults}
    assert "fallback pass" in actions, actions
    assert any(a.startswith("fallback suit ") for a in actions), actions
    assert {s for s, _, _ in faults} <= {0, 1, 2}, faults
    made = r.query("SELECT kind, seat, call FROM calls WHERE match_id = ? "
                   "AND fault = 1", mid)
    assert len(made) == len(faults), (made, faults)
    assert all(call == "pass" for kind, _, call in made if kind == "bid")
    rc, out, err = refctl("audit", "--db", r.db, mid)
    assert rc == 0, out + err


def test_auction_timeout(r):
    """A genbid that times out is a move's fault, not a broken seat:
    under policy fallback it costs a pass, the late answer is read and
    ignored, and the match plays on and audits clean."""
    r.add("latebid", EVIL + ["latebid", "700"])
    r.add("okbid", EVIL + ["good"])
    mid = r.start("chiamata5", ["latebid", "okbid", "okbid", "okbid",
                                "okbid"], "policy=fallback", "move_ms=300",
                  "deals=2")
    result, reason = r.wait(mid)
    assert result.startswith(("seat", "draw")), (result, reason)
    faults = r.query("SELECT seat, kind, action FROM faults WHERE "
                     "match_id = ?", mid)
    # its first fault is the late genbid's; while it slept, a genplay
    # may have been sent to it and timed out too
    assert faults[0] == (0, "timeout", "fallback pass"), faults
    assert all(f[:2] == (0, "timeout") and f[2] != "forfeit"
               for f in faults), faults
    rc, out, err = refctl("audit", "--db", r.db, mid)
    assert rc == 0, out + err


def test_briscolone_tournament(r):
    """A briscolone round robin runs, its standings count every match,
    and it audits clean with its schedule."""
    bots = example_bots()
    path = os.path.join(r.tmp, "bris.tour")
    with open(path, "w") as f:
        f.write("name bris\nvariant briscolone\nbots bheur bcrand bpy\n"
                "bot bheur spawn %s\nbot bcrand spawn %s\n"
                "bot bpy spawn %s\nseed %s\n" % (
                    " ".join(bots["heur"]), " ".join(bots["crand"]),
                    " ".join(bots["py"]), "ab" * 32))
    ok, tid = r.ctl("tournament_start", path)
    assert ok, tid
    state = r.must("tournament_wait", tid, timeout=300)
    assert state.startswith("done"), state
    rc, out, err = refctl("tournament", "standings", "--db", r.db, tid,
                          "--format", "json")
    assert rc == 0, err
    st = json.loads(out)
    assert st["variant"] == "briscolone"
    played = sum(row["played"] for row in st["standings"])
    n = r.query("SELECT count(*) FROM matches WHERE tournament = ? AND "
                "state = 'done'", int(tid))[0][0]
    assert n > 0 and played == 2 * n, (played, n)
    rc, out, err = refctl("audit", "--db", r.db, "--all")
    assert rc == 0 and "tournament %s verified" % tid in out, out + err


def test_chiamata5_tournament(r):
    """A chiamata5 duplicate round robin of heurbot and four random bots
    runs, audits clean, counts every deal's roles, and shows heurbot
    first: the auction and the secret partner work for a whole event."""
    bots = example_bots()
    names = [n for n in ("heur", "crand", "py", "sh", "js") if n in bots]
    if len(names) < 5:
        names.append("crand2")
        bots["crand2"] = bots["crand"][:-1] + ["23"]
    path = os.path.join(r.tmp, "chiamata.tour")
    with open(path, "w") as f:
        f.write("name chiamata\nvariant chiamata5\nduplicate yes\n"
                "bots %s\nseed %s\n" % (" ".join("c" + n for n in names),
                                         "cd" * 32))
        for n in names:
            f.write("bot c%s spawn %s\n" % (n, " ".join(bots[n])))
    ok, tid = r.ctl("tournament_start", path)
    assert ok, tid
    state = r.must("tournament_wait", tid, timeout=600)
    assert state.startswith("done"), state
    rc, out, err = refctl("tournament", "standings", "--db", r.db, tid,
                          "--format", "json")
    assert rc == 0, err
    st = json.loads(out)
    rows = st["standings"]
    print("# " + "; ".join("%s score %.3f elo %+.0f caller %d alone %d" % (
        row["bot"], row["score"], row["elo"], row["caller_deals"],
        row["alone_deals"]) for row in rows))
    for row in rows:
        roles = sum(row[k + "_deals"] for k in ("caller", "partner",
                                                 "alone", "defender"))
        assert roles == row["deals"] - row["deals_void"], row
    assert rows[0]["bot"] == "cheur", rows
    n = r.query("SELECT count(*) FROM matches WHERE tournament = ? AND "
                "state = 'done'", int(tid))[0][0]
    assert n == 20, n
    deals = r.query("SELECT count(*) FROM deals d JOIN matches m ON "
                    "m.id = d.match_id WHERE m.tournament = ? AND "
                    "d.caller IS NOT NULL", int(tid))[0][0]
    assert deals > 0
    rc, out, err = refctl("audit", "--db", r.db, "--all")
    assert rc == 0 and "tournament %s verified" % tid in out, out + err


def rechain(db, mid, forged):
    """Replace the canonical texts of match mid's links given in forged
    (link number -> text) and recompute every link from the first of
    them, as a forger holding the log would."""
    rc, out, err = refctl("export", "--db", db, mid)
    assert rc == 0, err
    d = json.loads(out)
    con = sqlite3.connect(db)
    link = bytes.fromhex(d["match"]["chain0"])
    for row in d["chain"]:
        text = forged.get(row["no"], row["text"])
        if row["no"] >= min(forged):
            h = hashlib.blake2b(digest_size=32)
            h.update(link + text.encode())
            new = h.hexdigest()
            for table, col in CHAINED:
                con.execute("UPDATE %s SET chain = ? WHERE %s = ? AND "
                            "chain_no = ?" % (table, col),
                            (new, mid, row["no"]))
            con.execute("UPDATE matches SET final_chain = ? WHERE id = ? "
                        "AND end_no = ?", (new, mid, row["no"]))
        link = bytes.fromhex(row["link"] if row["no"] < min(forged)
                             else new)
    con.commit()
    con.close()


def test_forged_bid(r):
    """A call of the auction changed in the log and the chain re-linked
    over it is caught by the rules: the audit names the call."""
    r.add("heurf", example_bots()["heur"])
    mid = r.start("chiamata5", ["heurf"] * 5)
    result, _ = r.wait(mid)
    assert result.startswith(("seat", "draw")), result
    forged = os.path.join(r.tmp, "forged.db")
    con = sqlite3.connect(r.db)
    con.execute("VACUUM INTO ?", (forged,))
    con.close()
    rc, out, err = refctl("audit", "--db", forged, mid)
    assert rc == 0, out + err            # the copy verifies as it is
    # a pass after a rank was named becomes that rank again: illegal
    con = sqlite3.connect(forged)
    rows = con.execute("SELECT deal_no, seq, call, chain_no, answer FROM "
                       "calls WHERE match_id = ? AND kind = 'bid' ORDER BY "
                       "deal_no, seq", (mid,)).fetchall()
    target = None
    last = {}
    for deal_no, seq, call, no, answer in rows:
        if call != "pass":
            last[deal_no] = call
        elif deal_no in last:
            target = (deal_no, seq, last[deal_no], no, answer)
            break
    assert target, "no pass after a rank in the match"
    deal_no, seq, rank, no, answer = target
    con.execute("UPDATE calls SET call = ?, answer = ? WHERE match_id = ? "
                "AND deal_no = ? AND seq = ?", (rank, "=" + rank, mid,
                                                deal_no, seq))
    con.commit()
    con.close()
    rc, out, err = refctl("export", "--db", forged, mid)
    text = [c["text"] for c in json.loads(out)["chain"]
            if c["no"] == no][0]
    # the export's text is the forged row's already: re-link from it
    assert " call=%s " % rank in text and "answer=%d:=%s" % (
        len(rank) + 1, rank) in text, text
    rechain(forged, mid, {no: text})
    rc, out, err = refctl("audit", "--db", forged, mid)
    assert rc == 1, out + err
    assert "call seq %d: logged %s, but" % (seq, rank) in out, out
    # and the untouched log still verifies
    rc, out, err = refctl("audit", "--db", r.db, mid)
    assert rc == 0, out + err


def test_forged_partner(r):
    """The partner is chained with the called card: moved to another
    seat in calls and re-chained, the deck's holder contradicts it;
    moved in the deal's unchained copy, the copy contradicts the chain."""
    r.add("heurp", example_bots()["heur"])
    mid = r.start("chiamata5", ["heurp"] * 5)
    result, _ = r.wait(mid)
    assert result.startswith(("seat", "draw")), result
    (deal_no, seq, no, partner), = r.query(
        "SELECT deal_no, seq, chain_no, partner FROM calls WHERE "
        "match_id = ? AND kind = 'call' ORDER BY deal_no LIMIT 1", mid)
    other = (partner + 1) % 5
    for where in ("calls", "deals"):
        forged = os.path.join(r.tmp, "forged-%s.db" % where)
        con = sqlite3.connect(r.db)
        con.execute("VACUUM INTO ?", (forged,))
        con.close()
        con = sqlite3.connect(forged)
        con.execute("UPDATE %s SET partner = ? WHERE match_id = ? AND "
                    "deal_no = ?%s" % (where, " AND seq = %d" % seq
                                       if where == "calls" else ""),
                    (other, mid, deal_no))
        con.commit()
        con.close()
        if where == "calls":
            rc, out, err = refctl("export", "--db", forged, mid)
            text = [c["text"] for c in json.loads(out)["chain"]
                    if c["no"] == no][0]
            assert " partner=%d " % other in text, text
            rechain(forged, mid, {no: text})
            want = "logged partner seat %d, but seat %d holds" % (other,
                                                                 partner)
        else:
            want = "the deal's called, caller and partner columns disagree"
        rc, out, err = refctl("audit", "--db", forged, mid)
        assert rc == 1 and want in out, (where, out + err)


def test_hostile_calls(r):
    """Hostile calls rows give the audit, show and export a message or a
    verdict, never a crash."""
    r.add("heurh", example_bots()["heur"])
    mid = r.start("chiamata5", ["heurh"] * 5, "deals=1")
    result, _ = r.wait(mid)
    assert result.startswith(("seat", "draw")), result
    edits = [
        "UPDATE calls SET call = 'passs' WHERE seq = 0",
        "UPDATE calls SET call = '' WHERE kind = 'call'",
        "UPDATE calls SET call = X'00' WHERE seq = 0",
        "UPDATE calls SET kind = 'what' WHERE seq = 0",
        "UPDATE calls SET seat = 99 WHERE seq = 0",
        "UPDATE calls SET answer = zeroblob(5000) WHERE seq = 0",
        "UPDATE calls SET partner = NULL WHERE kind = 'call'",
        "UPDATE calls SET partner = 3 WHERE seq = 0",
        "DELETE FROM calls WHERE kind = 'call'",
        "UPDATE deals SET trump = '1C'",
        "UPDATE deals SET called = NULL",
    ]
    for k, sql in enumerate(edits):
        db = os.path.join(r.tmp, "hostile%d.db" % k)
        con = sqlite3.connect(r.db)
        con.execute("VACUUM INTO ?", (db,))
        con.close()
        con = sqlite3.connect(db)
        con.execute("PRAGMA ignore_check_constraints = 1")
        con.execute(sql + (" AND match_id = %d" % mid if "WHERE" in sql
                           else " WHERE match_id = %d" % mid))
        con.commit()
        con.close()
        for cmd in (["audit", "--db", db, mid], ["show", "--db", db, mid],
                    ["show", "--db", db, "--seat", 1, mid],
                    ["export", "--db", db, mid]):
            rc, out, err = refctl(*cmd)
            assert rc in (0, 1), (sql, cmd, rc, err)
        rc, out, err = refctl("audit", "--db", db, mid)
        assert rc == 1 and "FAILED" in out, (sql, out + err)


def test_receipt_auction(r):
    """A chiamata5 seat's own transcript (heurbot -r) verifies against
    the log, its answers to genbid and gencall included; a call the
    transcript answers otherwise than the log chains is called forged."""
    rec, opt = r.recorder()
    path = os.path.join(rec, "rcpt-chiamata5.txt")
    heur = example_bots()["heur"]
    r.add("heurr", opt + heur + ["-r", path])
    r.add("heuro", heur)
    mid = r.start("chiamata5", ["heuro", "heurr", "heuro", "heuro",
                                "heuro"])
    result, _ = r.wait(mid)
    assert result.startswith(("seat", "draw")), result
    wait_end(path)
    end = next(l for l in open(path) if " match_end " in l).strip()
    args = ["verify-receipt", "--db", r.db, "--match", mid, "--receipt",
            end, "--seat", 1, "--transcript"]
    rc, out, err = refctl(*args, path)
    assert rc == 0 and out.startswith("receipt verified"), out + err
    lines = open(path).read().splitlines()
    k = next(i for i, l in enumerate(lines) if " genbid " in l)
    assert lines[k + 1].startswith("> ="), lines[k:k + 2]
    lines[k + 1] = "> =1" if lines[k + 1] != "> =1" else "> =pass"
    forged = path + ".edited"
    open(forged, "w").write("\n".join(lines) + "\n")
    # the transcript, not the log, is what was edited: forged (exit 3)
    rc, out, err = refctl(*args, forged)
    assert rc == 3 and "receipt FORGED: the transcript's first" in out, \
        out + err


def test_migrate_v3(r):
    """tests/log-v3.sql, a log that refd wrote with schema 3, migrates to
    schema 4: every row and link of its matches stays as it was, it
    audits clean, and a chiamata5 match logged after them audits too."""
    tmp = os.path.join(r.tmp, "v3")
    os.mkdir(tmp)
    db = os.path.join(tmp, "log.db")
    con = sqlite3.connect(db)
    con.executescript(open(os.path.join(SRC, "tests", "log-v3.sql")).read())
    assert con.execute("PRAGMA user_version").fetchone()[0] == 3
    tables = ["matches", "seats", "deals", "plays", "tricks", "jokers",
              "deal_results", "faults"]
    before = {t: con.execute("SELECT * FROM %s ORDER BY 1, 2" % t)
              .fetchall() for t in tables}
    nmatches = len(before["matches"])
    con.close()
    rc, _, err = refctl("audit", "--db", db)
    assert rc == 2 and "is older than" in err, err
    v = Refd(tmp)
    try:
        v.add("heur", example_bots()["heur"])
        mid = v.start("chiamata5", ["heur"] * 5)
        v.wait(mid)
    finally:
        assert v.stop() == 0
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA
    for t in tables:
        after = con.execute("SELECT * FROM %s WHERE %s <= ? ORDER BY 1, 2"
                            % (t, "id" if t == "matches" else "match_id"),
                            (nmatches,)).fetchall()
        if t == "deals":        # three columns more, NULL for old deals
            assert all(row[-3:] == (None, None, None) for row in after)
            after = [row[:-3] for row in after]
        assert after == before[t], "%s changed in the migration" % t
    con.close()
    rc, out, err = refctl("audit", "--db", db, "--all")
    assert rc == 0, out + err
    assert "%d matches verified, 0 failed" % (nmatches + 1) in out, out


TESTS = [test_every_new_variant_audits, test_information,
         test_old_bot_refused, test_auction_faults, test_auction_timeout,
         test_briscolone_tournament, test_chiamata5_tournament,
         test_forged_bid,
         test_forged_partner, test_hostile_calls, test_receipt_auction,
         test_migrate_v3]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-variants.")
    r = Refd(tmp)
    passed, failed = run_against(r, TESTS, (r,))
    finish(passed, failed, tmp)


if __name__ == "__main__":
    main()
