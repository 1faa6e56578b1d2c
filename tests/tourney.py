#!/usr/bin/env python3
"""tourney.py: tests of refd's tournaments against a real refd.

refctl's table of subcommands; balanced schedules for every format;
clear errors, with file and line, for bad definitions, conflicting bot
lines and bots that cannot start; exact standings checked against the
log, with thinking times, the role-aware rating and the whole-tournament
export; identical standings at concurrency 1 and 8 and after refd is
killed with SIGKILL and resumed; the SPRT deciding in schedule order,
never on twins within 20 matches; twin bots' intervals overlapping; a
tournament's finished matches leaving memory; refctl within 80 columns
and exiting 2 when refd goes away; the standings drawn no more often
than keeps them to a tenth of a core, whoever asks, and off the loop.
Prints "N passed, M failed"; exits 1 if anything failed.
"""
import csv
import io
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

REFCTL = harness.REFCTL
SEED = "ab" * 32


def refctl(*args, check=True):
    p = subprocess.run([REFCTL] + list(args), capture_output=True,
                       text=True, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError("refctl %s: %d: %s" % (" ".join(args),
                                                   p.returncode, p.stderr))
    return p


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def schedule(tmp, text):
    """The schedule of a definition, as (block, arrangement, seed, bots)."""
    out = refctl("tournament", "schedule", write(tmp, "s.tour", text))
    rows, seeds, by = [], {}, None
    for line in out.stdout.splitlines():
        if line in ("# block seed", "# slot seed"):
            by = line.split()[1]
            continue
        if line.startswith("#"):
            if by is not None:
                w = line.split()
                seeds[int(w[1])] = w[2]
            continue
        w = line.split()
        rows.append((int(w[0]), int(w[1]), int(w[2]), tuple(w[3:])))
    return [(b, a, seeds[b if by == "block" else i], bots)
            for i, b, a, bots in rows]


def balance(rows, k):
    """Counts of (bot, seat), (bot right after bot) and classic4 pairs."""
    seat, after, pair = {}, {}, {}
    for r in rows:
        b = r[3]
        for i in range(k):
            seat[b[i], i] = seat.get((b[i], i), 0) + 1
            nxt = (b[(i + 1) % k], b[i])
            after[nxt] = after.get(nxt, 0) + 1
        if k == 4:
            p = frozenset((frozenset((b[0], b[2])), frozenset((b[1], b[3]))))
            pair[p] = pair.get(p, 0) + 1
    return seat, after, pair


def test_schedules(tmp):
    """Counts, balanced seatings and duplicate seeds of every format."""
    rr = schedule(tmp, "variant joker3\nbots a b c d\nseed %s\n" % SEED)
    assert len(rr) == 4 * 6, len(rr)
    assert len({r[2] for r in rr}) == 24, "seeds not distinct"
    for block in range(4):
        ms = [r for r in rr if r[0] == block]
        assert len({m[3] for m in ms}) == 6, "every seating once"
        for part in (ms[:3], ms[3:]):   # every 3 balance the seats
            for seat in range(3):
                assert len({m[3][seat] for m in part}) == 3, part
        seat, after, _ = balance(ms, 3)
        assert set(seat.values()) == {2}, seat
        assert len(after) == 6 and set(after.values()) == {3}, after
    seat, after, _ = balance(rr, 3)     # over the cycle, bot by bot
    assert len(after) == 12 and len(set(after.values())) == 1, after
    assert len(set(seat.values())) == 1, seat
    dup = schedule(tmp, "variant joker3\nduplicate yes\nbots a b c d\n"
                   "seed %s\n" % SEED)
    assert len(dup) == 4 * 6, len(dup)
    for block in range(4):
        ms = [r for r in dup if r[0] == block]
        assert len({r[2] for r in ms}) == 1, "one seed per table"
        assert len({r[3] for r in ms}) == 6, "every permutation once"
    assert len({r[2] for r in dup}) == 4
    g = schedule(tmp, "variant classic3\nformat gauntlet\ncandidate z\n"
                 "bots a b c\n")
    assert len(g) == 3 * 6 and all("z" in r[3] for r in g), g
    # four bots of classic4: all three partnerships, equally often
    for dupl in ("no", "yes"):
        c4 = schedule(tmp, "variant classic4\nduplicate %s\nbots a b c d\n"
                      % dupl)
        assert len(c4) == 24 and len({r[3] for r in c4}) == 24
        seat, after, pair = balance(c4, 4)
        assert len(pair) == 3 and set(pair.values()) == {8}, pair
        assert set(seat.values()) == {6} and set(after.values()) == {8}
        # the first half-block already holds each partnership
        assert len(balance(c4[:12], 4)[2]) == 3
    cyc = schedule(tmp, "variant classic2\nbots a b\nmatches 6\n")
    assert [(r[0], r[1]) for r in cyc] == [(0, 0), (0, 1), (1, 0), (1, 1),
                                           (2, 0), (2, 1)], cyc
    assert len({r[2] for r in cyc}) == 6


def test_five_six_seats(tmp):
    """Tables of 5 and 6 seats play a balanced sample of their seatings:
    each bot in each seat and right after each other bot equally often,
    classic6 teammates evenly, duplicate deals on one seed a table."""
    for variant, k, narr in (("classic5", 5, 20), ("chiamata5", 5, 20),
                             ("classic6", 6, 60)):
        text = "variant %s\nduplicate yes\nbots a b c d e f\n" % variant
        rows = schedule(tmp, text)
        ntables = 6 if k == 5 else 1
        assert len(rows) == ntables * narr, len(rows)
        for block in range(ntables):
            ms = [r for r in rows if r[0] == block]
            assert len(ms) == narr and len({m[3] for m in ms}) == narr
            assert len({m[2] for m in ms}) == 1, "one seed per table"
            seat, after, _ = balance(ms, k)
            assert set(seat.values()) == {narr // k}, seat
            assert len(after) == k * (k - 1) and \
                set(after.values()) == {narr // (k - 1)}, after
            if k == 6:
                mate = {}
                for m in ms:
                    for i in range(6):
                        for j in range(i + 2, 6, 2):
                            pr = frozenset((m[3][i], m[3][j]))
                            mate[pr] = mate.get(pr, 0) + 1
                assert len(mate) == 15 and set(mate.values()) == {24}, mate
        p = refctl("tournament", "schedule", write(
            tmp, "k.tour", text + "matches %d\n" % (narr // 2)), check=False)
        assert p.returncode == 1 and ":4: matches %d splits a block of %d " \
            "seatings" % (narr // 2, narr) in p.stderr, p.stderr


def test_bad_definitions(tmp):
    """Bad definitions get clear errors with their line numbers."""
    cases = [
        ("variant joker3\nformat swiss\nbots a b c\n", ":2: unknown format"),
        ("variant joker3\nbots a b c\nmatches 0\n", ":3: 0: too small"),
        ("variant joker3\n\nbots a b\n", ":3: a joker3 round robin needs 3"),
        ("variant classic4\nformat gauntlet\ncandidate x\nbots a b\n",
         ":4: a classic4 gauntlet needs a pool of 3"),
        ("variant joker5\n", ":1: unknown variant"),
        ("bots a a b\n", ":1: bot a named twice"),
        ("variant classic2\nbots a b\nmatches 5\n",
         ":3: matches 5 splits a block of 2 seatings"),
        ("variant classic4\nduplicate yes\nmatches 12\nbots a b c d\n",
         ":3: matches 12 splits a block of 24"),
        ("variant classic2\nbots a b\nsprt 0 10 0.05 0.05\n",
         ":3: sprt needs a gauntlet"),
        ("variant classic2\noption target=5\nbots a b\n",
         ":2: option target= does not apply to classic2 (only to joker3)"),
        ("option deals_to_win=3\nvariant joker3\nbots a b c\n",
         ":1: option deals_to_win= does not apply to joker3"),
        ("variant classic4\noption removed_two=C\nbots a b c d\n",
         ":2: option removed_two= does not apply to classic4"),
        ("variant classic2\nbots a b\nconcurrency 99999\n",
         ":3: 99999: too large"),
        ("variant classic2\nformat gauntlet\ncandidate c\nbots a b\n"
         "sprt 0 10 0.5 0.05\n", ":5: sprt: alpha and beta must be below"),
        ("variant classic2\nformat gauntlet\ncandidate c\nbots a b\n"
         "sprt 0 10 0.05 0.5\n", ":5: sprt: alpha and beta must be below"),
        ("variant classic2\nformat gauntlet\ncandidate c\nbots a b\n"
         "sprt 10 10 0.05 0.05\n", ":5: sprt: elo1 must exceed elo0"),
    ]
    for text, want in cases:
        p = refctl("tournament", "schedule", write(tmp, "bad.tour", text),
                   check=False)
        assert p.returncode == 1 and want in p.stderr, (text, p.stderr)
    # a bot refd does not know is found when the tournament starts
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    try:
        path = write(tmp, "unknown.tour", "variant classic2\n# two bots\n"
                     "bots nobody nobody2\n")
        ok, text = r.ctl("tournament_start", path)
        assert not ok and "unknown.tour:3: unknown bot nobody" in text, text
    finally:
        r.stop()


def test_bots_as_data(tmp):
    """Bots added at run time survive a restart, kept beside the log with
    remote tokens hashed; bot_remove forgets one, refused while it plays
    in a match or a tournament; a refused tournament file registers no
    bot; a tournament whose bots are unknown after a restart is listed
    as waiting for them, and taken up once they are added."""
    d = tempfile.mkdtemp(dir=tmp)
    rand = os.path.join(harness.BUILD, "bots", "randbot")
    r = harness.Refd(d)
    try:
        r.must("bot_add", "keep1", "spawn", rand, "-s", "4")
        r.must("bot_add", "far", "remote", "sekrit-token-123")
        r.must("bot_add", "gone", "spawn", rand)
        r.must("bot_add", "slow1", "spawn", *harness.EVIL, "slow", "200")
        # a refused file leaves nothing behind, and can then be fixed
        ghost = write(tmp, "ghost1.tour", "variant classic2\nbot ghost "
                      "spawn /no/such/path\nbots keep1 ghost\n")
        ok, text = r.ctl("tournament_start", ghost)
        assert not ok and "cannot start" in text, text
        assert "ghost" not in r.must("bot_list")
        fixed = write(tmp, "ghost2.tour", "variant classic2\nbot ghost "
                      "spawn %s\nbots keep1 ghost\nmatches 2\n" % rand)
        tid = r.must("tournament_start", fixed)
        assert r.must("tournament_wait", tid).startswith("done")
        # refused while it plays, in a match or in a tournament
        mid = r.start("classic2", ["slow1", "keep1"], "deals_to_win=5")
        ok, text = r.ctl("bot_remove", "slow1")
        assert not ok and text == "bot slow1 plays in match %d" % mid, text
        r.must("match_stop", str(mid))
        r.wait(mid)
        slow = write(tmp, "slow.tour", "variant classic2\nbots slow1 keep1"
                     "\nmatches 400\noption deals_to_win=5\n")
        tid = r.must("tournament_start", slow)
        ok, text = r.ctl("bot_remove", "keep1")
        assert not ok and text == "bot keep1 plays in tournament %s" % tid, \
            text
        r.must("bot_remove", "gone")
        ok, text = r.ctl("bot_remove", "gone")
        assert not ok and text == "unknown bot gone", text
        kept = open(r.db + ".bots").read()
        assert "sekrit-token-123" not in kept and "far remote-hash " in kept
        assert os.stat(r.db + ".bots").st_mode & 0o777 == 0o600
        r.proc.send_signal(signal.SIGKILL)
        r.proc.wait()
        r.err.close()
        # slow1 goes from the file while refd is down: the tournament
        # waits for it after the restart
        with open(r.db + ".bots", "w") as f:
            f.write("".join(l for l in kept.splitlines(True)
                            if not l.startswith("slow1 ")))
        r = harness.Refd.__new__(harness.Refd)
        r.__init__(d)
        bots = r.must("bot_list")
        assert "keep1 spawn %s -s 4" % rand in bots, bots
        assert "far remote" in bots and "gone" not in bots, bots
        listed = r.must("tournament_list")
        assert re.search(r"^%s \S+ waiting \d+/400 running=0 "
                         r"for=slow1$" % tid, listed, re.M), listed
        # the remote bot's token still opens its seat
        for token, want in (("sekrit-token-123", "="),
                            ("sekrit-token-124", "?")):
            c = socket.create_connection(("127.0.0.1", r.port))
            c.sendall(("auth far %s\n" % token).encode())
            answer = c.makefile("rb").readline().decode()
            c.close()
            assert answer.startswith(want), (token, answer)
        r.must("bot_add", "slow1", "spawn", *harness.EVIL, "slow", "1")
        listed = r.must("tournament_list")
        assert re.search(r"^%s \S+ running " % tid, listed, re.M), listed
        r.must("tournament_stop", tid)
    finally:
        r.stop()


def test_one_set_and_columns(tmp):
    """One duplicate set: the intervals that cannot vary say so; the
    results, the schedule and the audit's lines of a tournament fit 80
    columns, the seeds still in CSV and in the schedule."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    try:
        for b in ("alpha", "bravo", "charlie"):
            r.add(b, [os.path.join(harness.BUILD, "bots", "randbot"), "-s",
                      str(len(b) + ord(b[0]))])
        path = write(tmp, "oneset.tour", "variant joker3\nbots alpha bravo "
                     "charlie\nduplicate yes\nmatches 6\nseed %s\n" % SEED)
        tid = run(r, path)
        text = standings(r.db, tid, "text")
        assert "warning: every interval has zero width" in text, text
        assert "warning" in json.loads(standings(r.db, tid, "json"))
        outs = [refctl("tournament", "results", "--db", r.db, tid).stdout,
                refctl("tournament", "schedule", path).stdout,
                "\n".join(l for l in refctl("audit", "--db", r.db,
                                             "--all").stdout.splitlines()
                          if l.startswith("tournament "))]
        for out in outs:
            wide = [l for l in out.splitlines() if len(l) > 80]
            assert out and not wide, wide
        res = refctl("tournament", "results", "--db", r.db, tid, "--format",
                     "csv").stdout
        seeds = set(x["seed"] for x in csv.DictReader(io.StringIO(res)))
        assert len(seeds) == 1 and seeds.pop() in outs[1], outs[1]
    finally:
        r.stop()


def test_bot_lines(tmp):
    """A bot line for a known name with another command is refused; a
    bot that cannot start stops the tournament before it plays."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    rand = os.path.join(harness.BUILD, "bots", "randbot")
    heur = os.path.join(harness.BUILD, "bots", "heurbot")
    try:
        r.add("rand", [rand])
        same = write(tmp, "same.tour", "variant classic2\nbot rand spawn "
                     "%s\nbot heur spawn %s\nbots rand heur\n" % (rand, heur))
        ok, tid = r.ctl("tournament_start", same)
        assert ok, tid
        assert r.must("tournament_wait", tid).startswith("done"), tid
        # elapsed stops with the tournament
        el = [r.must("tournament_status", tid).split("\nelapsed ")[1]
              .split("\n")[0] for _ in range(2) if not time.sleep(1.1)]
        assert el[0] == el[1], el
        other = write(tmp, "other.tour", "variant classic2\nbots rand heur\n"
                      "# rand is known as randbot\nbot rand spawn %s\n" % heur)
        ok, text = r.ctl("tournament_start", other)
        assert not ok and "other.tour:4: bot rand is already known with " \
            "another command" in text, text
        ghost = write(tmp, "ghost.tour", "variant classic2\nbot ghost spawn "
                      "/nonexistent/ghost\nbots rand ghost\n")
        ok, text = r.ctl("tournament_start", ghost)
        assert not ok and "ghost.tour:3: bot ghost cannot start: " \
            "/nonexistent/ghost is no executable file" in text, text
        n0 = r.query("SELECT count(*) FROM matches")[0][0]
        quit_ = write(tmp, "quit.tour", "variant classic2\nbot quitter spawn "
                      "%s %s early\nbots rand quitter\nmatches 40\n"
                      "concurrency 2\n" % (harness.PY, harness.EVIL[1]))
        ok, tid = r.ctl("tournament_start", quit_)
        assert ok, tid
        state = r.must("tournament_wait", tid)
        assert state.startswith("stopped bot quitter cannot start"), state
        n = r.query("SELECT count(*) FROM matches")[0][0] - n0
        assert 1 <= n <= 2, n
    finally:
        r.stop()


BOTS = """
bot good spawn {py} {evil} good
bot rand spawn {build}/bots/randbot -s 3
bot heur spawn {build}/bots/heurbot
bot pyr spawn {py} {src}/bots/randbot.py 5
"""


def definition(tmp, name, extra, concurrency=1):
    text = BOTS.format(py=harness.PY, evil=harness.EVIL[1], build=harness.BUILD,
                       src=harness.SRC)
    text += "name %s\nvariant joker3\nduplicate yes\nbots good rand heur " \
        "pyr\nseed %s\nconcurrency %d\n%s" % (name, SEED, concurrency, extra)
    return write(tmp, name + ".tour", text)


def run(r, path):
    ok, tid = r.ctl("tournament_start", path)
    assert ok, tid
    state = r.must("tournament_wait", tid, timeout=600)
    assert state.startswith("done"), state
    return tid


def standings(db, tid, fmt="csv"):
    return refctl("tournament", "standings", "--db", db, tid, "--format",
                  fmt).stdout


def check_against_log(db, tid, rows):
    """Matches and deals per bot, recounted from the log independently."""
    import sqlite3
    con = sqlite3.connect(db)
    counts = {}
    for mid, result in con.execute(
            "SELECT id, result FROM matches WHERE tournament = ? AND "
            "state = 'done'", (tid,)):
        seats = dict(con.execute("SELECT seat, bot FROM seats WHERE "
                                 "match_id = ?", (mid,)))
        for seat, bot in seats.items():
            c = counts.setdefault(bot, {"played": 0, "won": 0, "deals": 0,
                                        "joker_deals": 0, "faults": 0})
            c["played"] += 1
            c["won"] += result == "seat%d" % seat
        for (seat,) in con.execute("SELECT seat FROM jokers WHERE "
                                   "match_id = ?", (mid,)):
            counts[seats[seat]]["joker_deals"] += 1
        n = con.execute("SELECT count(*) FROM deal_results WHERE "
                        "match_id = ?", (mid,)).fetchone()[0]
        for bot in seats.values():
            counts[bot]["deals"] += n
        for (seat,) in con.execute("SELECT seat FROM faults WHERE "
                                   "match_id = ?", (mid,)):
            counts[seats[seat]]["faults"] += 1
    for row in rows:
        c = counts[row["bot"]]
        for k in c:
            assert int(row[k]) == c[k], (row["bot"], k, row[k], c[k])


def test_standings_exact(tmp):
    """Standings agree with the log, bot by bot, and exports parse."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    try:
        r.add("never", harness.EVIL + ["notacard"])
        tid = run(r, definition(tmp, "exact", "bots never\nmatches 18\n"))
        rows = list(csv.DictReader(io.StringIO(standings(r.db, tid))))
        assert len(rows) == 5, rows
        never = [x for x in rows if x["bot"] == "never"][0]
        assert int(never["won"]) == 0 and never["lost"] == never["played"]
        assert never["faults"] == never["played"] != "0", never
        assert never["rank"] == "5", "the bot that always forfeits is last"
        check_against_log(r.db, int(tid), rows)
        j = json.loads(standings(r.db, tid, "json"))
        assert len(j["standings"]) == 5 and j["variant"] == "joker3"
        res = refctl("tournament", "results", "--db", r.db, tid,
                     "--format", "csv").stdout
        assert len(list(csv.DictReader(io.StringIO(res)))) == 18
        text = standings(r.db, tid, "text")
        assert "95% interval" in text and "head to head" in text, text
        for line in text.splitlines():
            assert len(line) <= 80, line
        # name, seed and dates in every CSV row; thinking times per bot
        for x in rows:
            assert x["tournament"] == "exact" and x["seed"] == SEED, x
            assert x["started"].startswith("20") and \
                x["ended"] >= x["started"], x
            if x["bot"] != "never":
                assert int(x["moves"]) > 0 and \
                    float(x["think_mean_ms"]) <= int(x["think_max_ms"]), x
            assert int(x["think_p99_ms"]) <= int(x["think_max_ms"]), x
        moves = dict(r.query(
            "SELECT s.bot, count(*) FROM plays p JOIN seats s ON "
            "s.match_id = p.match_id AND s.seat = p.seat JOIN matches m ON "
            "m.id = p.match_id WHERE m.tournament = ? AND p.fault = 0 "
            "GROUP BY s.bot", int(tid)))
        for x in rows:
            assert int(x["moves"]) == moves.get(x["bot"], 0), (x, moves)
        assert "thinking (ms)" in text and "timeouts" in text, text
        # one JSON export of the whole tournament
        ex = json.loads(refctl("tournament", "export", "--db", r.db,
                               tid).stdout)
        assert "bots good rand heur pyr" in ex["definition"], ex
        assert ex["reason"] == "every match played", ex["reason"]
        assert len(ex["matches"]) == 18 and ex["standings"]["seed"] == SEED
        assert len(ex["standings"]["times"]) == 5 and \
            ex["standings"]["state"] == "done", ex["standings"]
        # the role-aware rating beside the match-level one
        ra = ex["standings"]["role_aware"]
        assert ra["deals"] > 0 and ra["resamples"] == 100, ra
        assert ra["joker_role_lo"] <= ra["joker_role_elo"] <= \
            ra["joker_role_hi"], ra
        for x in ex["standings"]["standings"]:
            assert x["team_elo_lo"] <= x["team_elo"] <= x["team_elo_hi"], x
        assert "role-aware rating" in text and "the Joker role" in text
    finally:
        r.stop()


def test_concurrency_and_resume(tmp):
    """Concurrency 1 and 8, and a SIGKILL in the middle, give equal
    standings; with the log checkpointed every 100 pages, on the
    checkpoints' thread, beside the loop writing and the standings'
    thread reading."""
    results = {}
    conf = write(tmp, "ckpt.conf", "checkpoint_pages 100\n")
    ckpts = 0
    for name, conc, kill in (("c1", 1, False), ("c8", 8, False),
                             ("killed", 2, True)):
        r = harness.Refd(tempfile.mkdtemp(dir=tmp), extra=["-f", conf])
        path = definition(tmp, name, "matches 24\n", conc)
        ok, tid = r.ctl("tournament_start", path)
        assert ok, tid
        if kill:
            for _ in range(600):
                st = r.must("tournament_status", tid)
                done = int(st.split("progress ")[1].split("/")[0])
                if done >= 6:
                    break
                time.sleep(0.05)
            assert 6 <= done < 24, "too late to kill: %d done" % done
            r.proc.send_signal(signal.SIGKILL)
            r.proc.wait()
            r.err.close()
            # a new refd on the same log takes the tournament up
            r2 = harness.Refd.__new__(harness.Refd)
            r2.__init__(r.tmp, extra=["-f", conf])
            r = r2
            st = r.must("tournament_status", tid)
            assert "progress" in st, st
        state = r.must("tournament_wait", tid, timeout=600)
        assert state.startswith("done"), state
        # the same standings, but for the name, dates and clock readings
        results[name] = [{k: v for k, v in x.items() if k not in (
            "tournament", "id", "started", "ended", "think_mean_ms",
            "think_p99_ms", "think_max_ms")} for x in
            csv.DictReader(io.StringIO(standings(r.db, tid)))]
        ckpts += int(re.search(r"^log_checkpoints (\d+)$",
                               r.must("status"), re.M).group(1))
        r.stop()
        integ = subprocess.run(["sqlite3", r.db, "PRAGMA integrity_check"],
                               capture_output=True, text=True).stdout
        assert integ.strip() == "ok", integ
    assert ckpts > 0, "no checkpoint was made on its thread"
    assert results["c1"] == results["c8"], "concurrency changed standings"
    assert results["c1"] == results["killed"], \
        "resumed standings differ:\n%s\n%s" % (results["c1"],
                                              results["killed"])


def sprt_gauntlet(tmp, name, conc):
    return write(tmp, name + ".tour", "variant classic3\nformat gauntlet\n"
                 "candidate cand\nbots weak other\nmatches 996\n"
                 "concurrency %d\nsprt 0 50 0.05 0.05\nseed %s\n"
                 % (conc, SEED))


def test_sprt_stops(tmp):
    """A gauntlet stops as soon as the SPRT decides, at the observation
    the binomial SPRT predicts, whatever the concurrency; the LLR shows
    in the status and in every export."""
    reasons = {}
    for conc in (1, 4):
        r = harness.Refd(tempfile.mkdtemp(dir=tmp))
        try:
            r.add("cand", harness.EVIL + ["good"])
            r.add("weak", harness.EVIL + ["notacard"])
            r.add("other", harness.EVIL + ["good"])
            ok, tid = r.ctl("tournament_start",
                            sprt_gauntlet(tmp, "sprt%d" % conc, conc))
            assert ok, tid
            st = r.must("tournament_status", tid)
            assert "\nsprt llr " in st and "SPRT cand against weak" in st, st
            state = r.must("tournament_wait", tid, timeout=300)
            # weak forfeits every match: k wins give k ln(s1/s0), and
            # ln 19 / ln(2 s1) = 22.03 with s1 = 0.571463
            assert state.startswith("done SPRT: H1 accepted") and \
                "23 matches, games 23-0-0" in state, state
            reasons[conc] = state
            n = r.query("SELECT count(*) FROM matches WHERE tournament = ? "
                        "AND state = 'done'", int(tid))[0][0]
            assert n >= 23, n
            # stopped at once: no match started after the verdict (those
            # already playing may finish, in any order)
            late = r.query("SELECT m.id FROM matches m JOIN tournaments t "
                           "ON t.id = m.tournament WHERE t.id = ? AND "
                           "m.started > t.ended", int(tid))
            assert late == [], "matches started after the verdict: %s" % late
            st = r.must("tournament_status", tid)
            assert "state H1" in st and "H1 accepted" in st, st
            rows = list(csv.DictReader(io.StringIO(standings(r.db, tid))))
            assert all(x["sprt_state"] == "H1" and x["sprt_units"] == "23"
                       for x in rows), rows
            j = json.loads(standings(r.db, tid, "json"))
            assert j["sprt"]["units"] == 23 and j["sprt"]["wins"] == 23, j
            assert j["sprt"]["llr"] >= j["sprt"]["upper"] > 2.94, j
        finally:
            r.stop()
    assert reasons[1] == reasons[4], reasons


def test_sprt_prefix(tmp):
    """After an SPRT stop the standings count the schedule's prefix the
    verdict read, in whole duplicate sets: a duplicate gauntlet of twins
    gives the same standings at concurrency 1 and 6, the matches that
    finished after the verdict left out, and the audit's recount agrees."""
    got = {}
    for conc in (1, 6):
        r = harness.Refd(tempfile.mkdtemp(dir=tmp))
        try:
            r.add("heur", [os.path.join(harness.BUILD, "bots", "heurbot")])
            r.add("twin", [os.path.join(harness.BUILD, "bots", "heurbot")])
            path = write(tmp, "prefix%d.tour" % conc, "variant classic2\n"
                         "format gauntlet\ncandidate heur\nbots twin\n"
                         "duplicate yes\nmatches 400\nconcurrency %d\n"
                         "sprt 0 10 0.05 0.05\nseed %064x\n" % (conc, 0xc9))
            tid = run(r, path)
            state = r.must("tournament_wait", tid)
            assert "SPRT" in state and "H0" in state, state
            j = json.loads(standings(r.db, tid, "json"))
            rows = [{k: v for k, v in x.items() if not k.startswith(
                "think_") and k not in ("id", "started", "ended")} for x in
                csv.DictReader(io.StringIO(
                    standings(r.db, tid)))]
            done = r.query("SELECT count(*) FROM matches WHERE tournament"
                           " = ? AND state = 'done'", int(tid))[0][0]
            units = j["sprt"]["units"]
            counted = sum(int(x["played"]) for x in rows) // 2
            # whole sets of two, every one the verdict read, no other
            assert counted == 2 * units, (counted, units, rows)
            assert done >= counted, (done, counted)
            got[conc] = (rows, j["sprt"], counted)
        finally:
            r.stop()
        # the matches still running at the verdict end aborted: the
        # audit recounts the same prefix
        p = refctl("audit", "--db", r.db, "--all", check=False)
        assert p.returncode == 0 and "standings recounted: %d " \
            "matches" % counted in p.stdout, p.stdout[-1500:]
    assert got[1] == got[6], "concurrency changed standings:\n%s\n%s" % (
        got[1], got[6])


def test_sprt_twins(tmp):
    """Twin bots: the SPRT never decides within 20 matches, on 10 seeds,
    and says so when the tournament ends at its match limit."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    try:
        r.add("heur", [os.path.join(harness.BUILD, "bots", "heurbot")])
        r.add("twin", [os.path.join(harness.BUILD, "bots", "heurbot")])
        for seed in range(10):
            path = write(tmp, "twin%d.tour" % seed, "variant classic2\n"
                         "format gauntlet\ncandidate heur\nbots twin\n"
                         "matches 20\nconcurrency 4\nsprt 0 10 0.05 0.05\n"
                         "seed %064x\n" % (seed + 0xc9))
            ok, tid = r.ctl("tournament_start", path)
            assert ok, tid
            state = r.must("tournament_wait", tid, timeout=300)
            assert state.startswith("done SPRT: undecided at the match "
                                    "limit") and "20 matches" in state, state
            j = json.loads(standings(r.db, tid, "json"))
            assert j["sprt"]["state"] == "undecided", j
            assert j["sprt"]["lower"] < j["sprt"]["llr"] < \
                j["sprt"]["upper"], j
    finally:
        r.stop()


def test_twins_balanced(tmp):
    """Twin bots in a non-duplicate joker3 round robin with a random bot
    get overlapping intervals on 5 seeds.  With rotations only, one twin
    always played right after the other: 120 matches then rated the
    first listed higher on every seed, clearly so on 2 of these 5."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    try:
        r.add("heur", [os.path.join(harness.BUILD, "bots", "heurbot")])
        r.add("twin", [os.path.join(harness.BUILD, "bots", "heurbot")])
        r.add("rand", [os.path.join(harness.BUILD, "bots", "randbot"), "-s", "5"])
        ahead = 0
        for seed in range(5):
            path = write(tmp, "twins%d.tour" % seed, "variant joker3\n"
                         "bots heur twin rand\nmatches 120\nconcurrency 2\n"
                         "seed %064x\n" % (seed + 0xc9))
            tid = run(r, path)
            rows = {x["bot"]: x for x in
                    csv.DictReader(io.StringIO(standings(r.db, tid)))}
            h, t = rows["heur"], rows["twin"]
            assert float(h["elo_lo"]) <= float(t["elo_hi"]) and \
                float(t["elo_lo"]) <= float(h["elo_hi"]), (seed, h, t)
            ahead += float(h["elo"]) > float(t["elo"])
        assert 0 < ahead < 5, "one twin always ahead: %d of 5" % ahead
    finally:
        r.stop()


def test_memory(tmp):
    """A tournament's finished matches leave refd's memory once logged,
    and match_list answers whole past 16 KiB."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    try:
        tid = run(r, definition(tmp, "mem", "matches 12\n"))
        assert r.query("SELECT count(*) FROM matches WHERE tournament = ? "
                       "AND state = 'done'", int(tid))[0][0] == 12
        assert r.must("match_list").strip() == "", "tournament matches kept"
        names = ["r%031d" % i for i in range(4)]
        for n in names:
            r.add(n, [os.path.join(harness.BUILD, "bots", "randbot"), "-s", "1"])
        ids = [r.must("match_start", "classic4", *names) for _ in range(100)]
        for i in ids:
            r.must("match_wait", i, timeout=120)
        text = r.must("match_list")
        assert len(text) > 16384 and len(text.splitlines()) == 100, \
            (len(text), len(text.splitlines()))
    finally:
        r.stop()


def test_refctl_table(tmp):
    """refctl's one table: -h lists every subcommand within 80 columns,
    usage errors name the subcommand's synopses and exit 2."""
    h = refctl("-h")
    assert h.returncode == 0
    for line in h.stdout.splitlines():
        assert len(line) <= 80, line
    for cmd in ("status", "bot add", "match", "list", "info", "watch",
                "wait", "stop", "shutdown", "cmd", "tournament", "bridge",
                "checkbot", "audit", "show", "export"):
        assert "\n  " + cmd + " " in h.stdout, cmd
    p = refctl("tournament", check=False)
    assert p.returncode == 2, p
    for sub in ("run", "status", "wait", "list", "stop", "resume",
                "standings", "results", "export", "schedule"):
        assert "tournament " + sub in p.stderr, (sub, p.stderr)
    p = refctl("status", "extra", check=False)
    assert p.returncode == 2 and "  status" in p.stderr, p.stderr
    p = refctl("nosuch", check=False)
    assert p.returncode == 2 and "unknown command nosuch" in p.stderr


def test_batch_run(tmp):
    """refctl tournament run --wait sees it through and prints standings."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    try:
        path = definition(tmp, "batch", "matches 6\n")
        p = subprocess.run([REFCTL, "-c", r.sock, "tournament", "run",
                            path, "--wait"], capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0, p.stderr
        assert "rank" in p.stdout and "6/6 matches" in p.stderr, \
            (p.stdout, p.stderr)
        for line in (p.stdout + p.stderr).splitlines():    # 80 columns
            assert len(line) <= 80, line
        assert "head to head" in p.stdout and "\n1    " in p.stdout
        bad = write(tmp, "refused.tour", "variant joker3\nbots good\n")
        p = subprocess.run([REFCTL, "-c", r.sock, "tournament", "run",
                            bad, "--wait"], capture_output=True, text=True)
        assert p.returncode == 1 and "refused.tour:2:" in p.stderr, p.stderr
        # refd goes away under a follower: it says so and exits 2
        path = definition(tmp, "long", "matches 600\n")
        ok, tid = r.ctl("tournament_start", path)
        assert ok, tid
        w = subprocess.Popen([REFCTL, "-c", r.sock, "tournament", "status",
                              tid, "--watch"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(1.2)
        r.proc.send_signal(signal.SIGKILL)
        r.proc.wait()
        out, err = w.communicate(timeout=30)
        assert w.returncode == 2 and "refd went away" in err, \
            (w.returncode, err)
    finally:
        r.stop()


def drawings(r, tid):
    """The standings refd drew for tournament tid: their costs, in us
    (logged at -vv)."""
    with open(os.path.join(r.tmp, "refd.err")) as f:
        return [int(line.split(" drawn in ")[1].split()[0]) for line in f
                if line.startswith("refd: tournament %s: standings of " % tid)]


def test_status_cost(tmp):
    """The standings walk the whole log: refd draws them only when a
    match has ended since, and, while the tournament runs,
    never sooner than ten times as long as the last drawing took after
    it, however hard a client asks; "tournament_status ID progress" and
    refctl's progress lines do not draw them at all, and
    "tournament run --wait" draws them once, at the end."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp), extra=("-v",))
    rand = os.path.join(harness.BUILD, "bots", "randbot")
    text = ("variant classic2\nbot r1 spawn %s\nbot r2 spawn %s\n"
            "bots r1 r2\nconcurrency 4\nmatches %%d\nname %%s\n"
            % (rand, rand))
    try:
        # refctl's follower asks for the progress only, until the end
        p = subprocess.run([REFCTL, "-c", r.sock, "tournament", "run",
                            write(tmp, "follow.tour", text % (300, "follow")),
                            "--wait"], capture_output=True, text=True,
                           timeout=600)
        assert p.returncode == 0 and "\nrank " in "\n" + p.stdout, \
            (p.stdout, p.stderr)
        assert "300/300 matches" in p.stderr, p.stderr
        tid = p.stdout.split()[1]
        assert len(drawings(r, tid)) == 1, drawings(r, tid)
        st = r.must("tournament_status", tid)
        assert "\nstandings 300\n" in st and "\nrank " in st, st
        assert len(drawings(r, tid)) == 1, "drawn again, nothing new"
        brief = r.must("tournament_status", tid, "progress")
        assert "progress 300/300" in brief and "commitment " in brief and \
            "rank" not in brief and "standings" not in brief, brief
        ok, why = r.ctl("tournament_status", tid, "standings")
        assert not ok and "progress" in why, why
        # a client that asks for the standings without pause
        ok, tid = r.ctl("tournament_start",
                        write(tmp, "hammer.tour", text % (600, "hammer")))
        assert ok, tid
        t0 = time.monotonic()
        asked = 0
        while True:
            st = r.must("tournament_status", tid)
            asked += 1
            if st.split("\n")[0].split()[3] != "running":
                break
        span = (time.monotonic() - t0) * 1e6
        d = drawings(r, tid)
        assert 2 <= len(d) < asked, (len(d), asked)
        assert "\nstandings 600\n" in st, st
        # each drawing but the last waited ten times its cost after it
        assert 10 * sum(d[:-1]) <= span, (sum(d[:-1]), span, len(d))
    finally:
        r.stop()


SLOWREADER = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sqlite3.h>
#include <unistd.h>

/* the read-only connections refd opens, whose close is made slow */
static sqlite3 *ro[64];

int
sqlite3_open_v2(const char *path, sqlite3 **h, int flags, const char *vfs)
{
	static int (*real)(const char *, sqlite3 **, int, const char *);
	int	 rc, i;

	if (real == NULL)
		real = (int (*)(const char *, sqlite3 **, int, const char *))
		    dlsym(RTLD_NEXT, "sqlite3_open_v2");
	rc = real(path, h, flags, vfs);
	if (rc == SQLITE_OK && (flags & SQLITE_OPEN_READONLY))
		for (i = 0; i < 64; i++)
			if (ro[i] == NULL) {
				ro[i] = *h;
				break;
			}
	return rc;
}

int
sqlite3_close(sqlite3 *h)
{
	static int (*real)(sqlite3 *);
	int	 i;

	if (real == NULL)
		real = (int (*)(sqlite3 *))dlsym(RTLD_NEXT, "sqlite3_close");
	for (i = 0; h != NULL && i < 64; i++)
		if (ro[i] == h) {
			ro[i] = NULL;
			sleep(5);
		}
	return real(h);
}
"""


def test_drawing_off_loop(tmp):
    """A drawing of the standings that takes 5 s (the reader's close
    made slow by an LD_PRELOAD shim) holds up only the status that asked
    for it: another client's commands are answered meanwhile, matches
    go on ending, and the status comes after, whole."""
    r = harness.refd_with_shim(tempfile.mkdtemp(dir=tmp), SLOWREADER,
                               "slowreader")
    rand = os.path.join(harness.BUILD, "bots", "randbot")
    try:
        ok, tid = r.ctl("tournament_start", write(
            tmp, "offloop.tour", "variant classic2\nbot r1 spawn %s\n"
            "bot r2 spawn %s\nbots r1 r2\nconcurrency 2\n"
            "matches 2000\n" % (rand, rand)))
        assert ok, tid

        def done():
            st = r.must("tournament_status", tid, "progress")
            return int(st.split("progress ")[1].split("/")[0])

        for _ in range(600):
            if done() >= 2:
                break
            time.sleep(0.05)
        slow = socket.socket(socket.AF_UNIX)
        slow.settimeout(60)
        slow.connect(r.sock)
        before = done()
        # a command behind it waits its turn: answers come in order
        slow.sendall(("7 tournament_status %s\n8 version\n" %
                      tid).encode())

        def pending():
            return not select.select([slow], [], [], 0)[0]

        # the loop is free: another client is answered and matches end,
        # all while the status still waits for its drawing
        while pending():
            mid = done()
            if mid > before:
                break
            time.sleep(0.05)
        assert pending() and mid > before, \
            "the loop waited for the drawing: %d -> %d" % (before, mid)
        data = b""
        while data.count(b"\n\n") < 2:
            chunk = slow.recv(65536)
            assert chunk, "refd closed the connection"
            data += chunk
        slow.close()
        answer, version = data.decode().split("\n\n")[:2]
        assert version.startswith("=8 "), version
        after = done()
        assert answer.startswith("=7 tournament") and "\nrank " in answer, \
            answer
        assert after > before, (before, after)
        with open(os.path.join(r.tmp, "refd.err")) as f:
            log = f.read()
        assert "standings of" in log, log[-2000:]
        r.ctl("tournament_stop", tid)
    finally:
        r.stop()


def test_drawing_fails(tmp):
    """A log whose results cannot be read (a finished match's points
    overwritten behind refd's back): the status says why, and the
    drawing is not tried again on the same matches, however often it is
    asked for."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    rand = os.path.join(harness.BUILD, "bots", "randbot")
    try:
        ok, tid = r.ctl("tournament_start", write(
            tmp, "broken.tour", "variant classic2\nbot r1 spawn %s\n"
            "bot r2 spawn %s\nbots r1 r2\nconcurrency 2\nmatches 400\n"
            % (rand, rand)))
        assert ok, tid
        for _ in range(600):
            st = r.must("tournament_status", tid, "progress")
            if int(st.split("progress ")[1].split("/")[0]) >= 2:
                break
            time.sleep(0.05)
        # stopped, so that no match ends from here on
        r.must("tournament_stop", tid)
        subprocess.run(["sqlite3", "-cmd", ".timeout 5000", r.db,
                        "UPDATE matches SET mpoints = 'x' WHERE id = "
                        "(SELECT min(id) FROM matches WHERE state = 'done')"],
                       check=True)
        for _ in range(3):
            ok, why = r.ctl("tournament_status", tid)
            assert not ok and "standings: match" in why and \
                "bad result in the log" in why, why
        assert "progress " in r.must("tournament_status", tid, "progress")
        with open(os.path.join(r.tmp, "refd.err")) as f:
            tries = f.read().count(": standings: match")
        assert tries == 1, "drawn %d times on the same matches" % tries
    finally:
        r.stop()


def test_timed_wait(tmp):
    """tournament_wait ID MS: "running" once MS have passed, the end as
    soon as it comes (never a stray "running" after it), "?" for a bad
    MS; and refctl run --wait, which waits so between progress lines."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    rand = os.path.join(harness.BUILD, "bots", "randbot")
    text = ("variant classic2\nbot r1 spawn %s\nbot r2 spawn %s\n"
            "bots r1 r2\nconcurrency 2\nmatches %%d\n" % (rand, rand))
    try:
        for bad in ("0", "x", "3600001", "-5"):
            ok, why = r.ctl("tournament_wait", "1", bad)
            assert not ok and "milliseconds" in why, (bad, why)
        ok, tid = r.ctl("tournament_start",
                        write(tmp, "timed.tour", text % 5000))
        assert ok, tid
        t0 = time.monotonic()
        assert r.must("tournament_wait", tid, "300") == "running"
        assert time.monotonic() - t0 >= 0.29
        # a wait of an hour, on a connection kept open, ended by the stop
        c = socket.socket(socket.AF_UNIX)
        c.settimeout(60)
        c.connect(r.sock)
        c.sendall(("1 tournament_wait %s 3600000\n" % tid).encode())
        time.sleep(0.3)
        r.must("tournament_stop", tid)
        data = b""
        while not data.endswith(b"\n\n"):
            chunk = c.recv(4096)
            assert chunk, data
            data += chunk
        assert data.startswith(b"=1 stopped"), data
        # the timer is gone with the wait: the next answer is the next
        c.sendall(("2 tournament_wait %s 400\n" % tid).encode())
        data = b""
        while not data.endswith(b"\n\n"):
            data += c.recv(4096)
        assert data.startswith(b"=2 stopped"), data
        ok, tid2 = r.ctl("tournament_start",
                         write(tmp, "timed2.tour", text % 5000))
        c.sendall(("3 tournament_wait %s 400\n" % tid2).encode())
        time.sleep(0.1)
        c.sendall(b"4 version\n")
        data = b""
        while data.count(b"\n\n") < 2:
            data += c.recv(4096)
        assert data.startswith(b"?3 wait interrupted") and \
            b"\n\n=4 " in data, data
        time.sleep(0.6)
        c.sendall(b"5 version\n")
        data = b""
        while not data.endswith(b"\n\n"):
            data += c.recv(4096)
        assert data.startswith(b"=5 "), data
        c.close()
        r.must("tournament_stop", tid2)
        # refctl run --wait, which now waits so, still sees it through
        p = subprocess.run([REFCTL, "-c", r.sock, "tournament", "run",
                            write(tmp, "short.tour", text % 2), "--wait"],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0 and "2/2 matches" in p.stderr, p.stderr
    finally:
        r.stop()


TESTS = [test_refctl_table, test_schedules, test_five_six_seats,
         test_bad_definitions,
         test_bot_lines, test_bots_as_data, test_one_set_and_columns, test_standings_exact, test_concurrency_and_resume, test_sprt_stops,
         test_sprt_prefix, test_sprt_twins, test_twins_balanced, test_memory, test_batch_run,
         test_status_cost, test_drawing_off_loop, test_drawing_fails,
         test_timed_wait]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-tourney.")
    harness.finish(*harness.run_tests(TESTS, (tmp,)), tmp)


if __name__ == "__main__":
    main()
