#!/usr/bin/env python3
"""browser.py: refd's web site in a real headless Chromium, driven by
puppeteer-core (tests/browser/drive.js) against a real refd, with every
request outside loopback blocked and counted.  Screenshots of each page
at 360x800 and 1280x800, light and dark, are left in
tests/screenshots/ of the build tree.

Skipped (exit 77) only when chromium or node is absent; scripts/setup
installs both, and puppeteer-core from tests/browser/package-lock.json.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import web  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
DRIVER = os.path.join(harness.BUILD, "tests", "browser")
SHOTS = os.path.join(harness.BUILD, "tests", "screenshots")


def setup():
    """puppeteer-core in the build tree, from the lock file; None if
    chromium or node is missing."""
    if not os.path.exists(CHROMIUM) or shutil.which("node") is None:
        return None
    os.makedirs(DRIVER, exist_ok=True)
    for f in ("package.json", "package-lock.json", "drive.js"):
        src = os.path.join(harness.SRC, "tests", "browser", f)
        if os.path.abspath(src) != os.path.join(DRIVER, f):
            shutil.copyfile(src, os.path.join(DRIVER, f))
    if not os.path.isdir(os.path.join(DRIVER, "node_modules",
                                      "puppeteer-core")):
        subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit",
                        "--no-fund"], cwd=DRIVER, check=True,
                       stdout=subprocess.DEVNULL, timeout=600)
    os.makedirs(SHOTS, exist_ok=True)
    return DRIVER


def drive(scenario, url, arg=None, shots=True):
    """Run one scenario of drive.js; its JSON, checked for no outside
    request and no page error."""
    cmd = ["node", os.path.join(DRIVER, "drive.js"), scenario, url,
           SHOTS if shots else ""]
    if arg is not None:
        cmd.append(arg)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, CHROMIUM=CHROMIUM))
    try:
        out = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise AssertionError("drive.js: %s %s" % (p.stdout, p.stderr))
    assert "error" not in out, out["error"]
    assert out["outside"] == [], "requests outside: %s" % out["outside"]
    return out


def base(port):
    return "http://127.0.0.1:%d" % port


def test_live(r, port):
    """The live page of a match grows its event log as plays happen, in
    the log's order, and the keyboard reaches its links."""
    bots = web.slow_bots(r, 2, 150)
    mid = r.start("classic2", bots, "deals_to_win=3")
    out = drive("live", base(port) + "/match/%d" % mid)
    assert out["later"] > out["first"], out
    assert out["changed"], "the table did not change"
    r.wait(mid)
    log = r.query("SELECT seat, card FROM plays WHERE match_id = ? ORDER "
                  "BY deal_no, seq", mid)
    shown = [p.split(" plays ") for p in out["plays"]]
    shown = [(int(s.split()[1]), c) for s, c in shown]
    assert shown == [tuple(x) for x in log[:len(shown)]], shown[:5]
    assert out["focus"], "Tab reached nothing"


def test_replay(r, port):
    """A finished match's replay reaches a deep link (deal 2, trick 3,
    its second play) and shows that play of the log; the keyboard steps;
    the seat toggle shows exactly what refctl show --seat prints; the
    hands at the link and at its trick's first play are those the log
    gives (API 1's full form); the
    audit's verdict is shown."""
    bots = web.slow_bots(r, 2, 1)
    mid = r.start("classic2", bots)
    r.wait(mid)
    seat, card = r.query("SELECT seat, card FROM plays WHERE match_id = ? "
                         "AND deal_no = 2 AND trick = 2 ORDER BY seq "
                         "LIMIT 1 OFFSET 1", mid)[0]
    out = drive("replay", base(port) + "/match/%d#d2t3p2" % mid, "1")
    assert out["link"] == "d2t3p2" and out["hash"] == "#d2t3p2", out
    assert "seat %d " % seat in out["text"] and \
        " plays %s" % card in out["text"], (out["text"], seat, card)
    # the hands it shows there and at the trick's first play (#d2t3p1):
    # those API 1 writes in full on that row
    rows = json.loads(web.get(port, "/api/v1/matches/%d/replay" %
                              mid)[2])["rows"]
    suits = {"C": "Coppe", "D": "Denari", "B": "Bastoni", "S": "Spade"}
    for p, got in ((1, out["hands"]), (0, out["hands1"])):
        h = [x for x in rows if x["k"] == "play" and
             (x["d"], x["t"], x["p"]) == (2, 2, p)][0]["h"]
        want = [[c[:-1] + " of " + suits[c[-1]] for c in x.split()] or
                "empty" for x in h]
        assert got == want, (p, got, want)
    assert out["next"] != "d2t3p2" and out["back"] == "d2t3p2", out
    assert out["end"].startswith("Match over"), out["end"]
    assert out["verdict"].startswith("Audit: verified"), out["verdict"]
    shown = harness.subprocess.run(
        [harness.REFCTL, "show", "--db", r.db, str(mid), "--seat", "1"],
        capture_output=True, text=True).stdout
    assert out["lines"] == shown, "the seat toggle is not refctl show"


def test_verdict(r, port):
    """The replay's verdict names the failing part and row: an honest
    log says ok for each part; a play's time changed breaks the chain at
    its link; the end's signature replaced fails the signature at the
    end's link of the log chain.  The log is put back after each."""
    bots = web.slow_bots(r, 2, 1)
    mid = r.start("classic2", bots)
    r.wait(mid)
    url = base(port) + "/match/%d" % mid

    def parts():
        out = drive("verdict", url, shots=False)
        return out["verdict"], {p["part"]: p for p in out["parts"]}
    v, p = parts()
    assert v.startswith("Audit: verified"), v
    assert [p[k]["ok"] for k in ("rules", "chain", "signature")] == \
        ["true"] * 3, p
    con = harness.sqlite3.connect(r.db, timeout=30)
    try:
        no, ms = con.execute("SELECT chain_no, ms FROM plays WHERE "
                             "match_id = ? AND deal_no = 1 ORDER BY seq "
                             "LIMIT 1 OFFSET 3", (mid,)).fetchone()
        with con:
            con.execute("UPDATE plays SET ms = ? WHERE match_id = ? AND "
                        "chain_no = ?", (ms + 1, mid, no))
        try:
            v, p = parts()
        finally:
            with con:
                con.execute("UPDATE plays SET ms = ? WHERE match_id = ? "
                            "AND chain_no = ?", (ms, mid, no))
        assert "the chain breaks at link %d," % no in v, v
        assert p["chain"]["ok"] == "false" and p["chain"]["text"].startswith(
            "Chain: FAILED") and "link %d," % no in p["chain"]["text"], p
        eno, sig = con.execute("SELECT no, sig FROM log_chain WHERE kind = "
                               "'end' AND match_id = ?", (mid,)).fetchone()
        forged = ("0" if sig[0] != "0" else "1") + sig[1:]
        with con:
            con.execute("UPDATE log_chain SET sig = ? WHERE no = ?",
                        (forged, eno))
        try:
            v, p = parts()
        finally:
            with con:
                con.execute("UPDATE log_chain SET sig = ? WHERE no = ?",
                            (sig, eno))
        assert not v.startswith("Audit: verified:") or "FAILED" in v, v
        assert p["signature"]["ok"] == "false" and \
            "log chain link %d: the end's signature does not verify" % eno \
            in p["signature"]["text"], p
        assert p["rules"]["ok"] == "true" and p["chain"]["ok"] == "true", p
    finally:
        con.close()


def standings_rows(r, tid):
    """The standings table's rows as refctl tournament standings gives
    them, and a function that makes the page's rows comparable."""
    st = json.loads(harness.subprocess.run(
        [harness.REFCTL, "tournament", "standings", "--db", r.db, str(tid),
         "--format", "json"], capture_output=True, text=True).stdout)
    want = [[str(x["rank"]), x["bot"], str(x["elo"]), "[%s, %s]" % (
        x["elo_lo"], x["elo_hi"]), "%.3f" % x["score"], str(x["played"]),
        str(x["won"]), str(x["drawn"]), str(x["lost"])]
        for x in st["standings"]]

    # JavaScript writes 170.0 as 170 and -0 as 0: compare the numbers
    # as numbers
    def norm(rows):
        rows = [[c.replace(".0]", "]").replace(".0,", ",") if c else c
                 for c in row] for row in rows]
        rows = [[c[:-2] if c.endswith(".0") else c for c in row]
                for row in rows]
        return [[c.replace(" -0]", " 0]").replace("[-0,", "[0,")
                 if c != "-0" else "0" for c in row] for row in rows]
    return norm(want), norm


def test_tournament_live(r, port):
    """The tournament page updates without a reload as matches end,
    pushed by its event stream (the API never polled), and ends on the
    standings refctl tournament standings gives."""
    path = os.path.join(r.tmp, "live.tour")
    bots = web.slow_bots(r, 2, 30)
    with open(path, "w") as f:
        f.write("name weblive\nvariant classic2\nbots %s %s\nmatches 6\n"
                "concurrency 1\n" % tuple(bots))
    ok, tid = r.ctl("tournament_start", path)
    assert ok, tid
    out = drive("tlive", base(port) + "/tournament/%s" % tid)
    assert out["later"] >= out["first"] + 2 and out["end"] == 6, out
    assert out["stayed"], "the page was loaded again"
    assert out["events"] >= 3, out["events"]
    polls = [p for p in out["asked"] if p == "/api/v1/tournaments/" + tid]
    assert polls == [], "the page polled: %s" % out["asked"]
    want, norm = standings_rows(r, tid)
    assert norm(out["rows"]) == want, (out["rows"], want)


def test_tournament(r, port):
    """The tournament page shows the standings refctl tournament
    standings gives, and the SPRT's LLR drawn against its bounds."""
    path = os.path.join(r.tmp, "g.tour")
    with open(path, "w") as f:
        f.write("name webg\nvariant classic2\nformat gauntlet\n"
                "candidate h\nbots q\nmatches 12\nsprt 0 200 0.05 0.05\n"
                "bot h spawn %s\nbot q spawn %s -s 3\n" % (
                    os.path.join(harness.BUILD, "bots", "heurbot"),
                    os.path.join(harness.BUILD, "bots", "randbot")))
    ok, tid = r.ctl("tournament_start", path)
    assert ok, tid
    r.must("tournament_wait", tid, timeout=600)
    out = drive("tournament", base(port) + "/tournament/%s" % tid)
    want, norm = standings_rows(r, tid)
    assert norm(out["rows"]) == want, (out["rows"], want)
    assert out["llr"] == 1, "no LLR drawn"
    assert "H1" in out["text"] or "H0" in out["text"], out["text"][:300]


def test_index(r, port):
    """The front page lists the matches with links, and refd's status."""
    bots = web.slow_bots(r, 2, 1)
    mid = r.start("classic2", bots)
    r.wait(mid)
    out = drive("index", base(port) + "/")
    assert "/match/%d" % mid in out["links"], out["links"]
    assert "matches_running" in out["text"], out["text"][:300]


def main():
    if setup() is None:
        print("# SKIP: chromium (%s) or node is not installed; "
              "scripts/setup installs them" % CHROMIUM)
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="refd-browser.")
    r = harness.Refd(tmp, extra=("-w", "127.0.0.1:0"))
    port = web.site_port(r)
    passed, failed = harness.run_against(r, [test_live, test_replay,
                                             test_verdict,
                                             test_tournament_live,
                                             test_tournament, test_index],
                                         (r, port))
    harness.finish(passed, failed, tmp)


if __name__ == "__main__":
    main()
