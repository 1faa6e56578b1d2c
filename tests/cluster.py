#!/usr/bin/env python3
"""cluster.py: one tournament played by many refd workers through a real
PostgreSQL (refd-cluster(7)), against the same tournament on one refd.

Each test starts its own PostgreSQL server (pgharness.py): initdb into a
temporary directory, a Unix socket there and no TCP, scram-sha-256,
stopped by its pid at the end.  Workers are separate refd processes.
The roles' limits from a worker's own connection; fencing, missed
heartbeats and a reclaim racing a report, by hand through psql; a bot
that differs; the standings of one refd, with a worker SIGKILLed, and
the audit against the workers' logs; a faulty wire (pgproxy.py); a
worker SIGSTOPped; twenty immediate restarts of PostgreSQL; an SPRT.
CLUSTER_TESTS="test_a test_b" runs only those.
Prints "N passed, M failed"; exits 1 if anything failed.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import pgharness  # noqa: E402
import pgproxy  # noqa: E402

REFCTL = harness.REFCTL
SEED = "cd" * 32
TIMES = "t1 0/ 0/"      # a two-seat match's thinking times: no moves


def refctl(*args, check=True, timeout=120):
    p = subprocess.run([REFCTL] + list(args), capture_output=True,
                       text=True, timeout=timeout)
    if check:
        assert p.returncode == 0, (args[:2], p.returncode, p.stdout,
                                   p.stderr)
    return p


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


class Cluster:
    """A PostgreSQL server with refd's schema, and its workers."""

    def __init__(self, tmp):
        self.tmp = tmp
        os.makedirs(tmp, exist_ok=True)
        os.chmod(tmp, 0o755)
        self.pg = pgharness.Postgres(tmp)
        self.ci = self.pg.conninfo()
        refctl("cluster", "init", self.ci)
        self.creds = {}
        self.workers = {}

    def add_worker(self, name):
        out = refctl("cluster", "add-worker", self.ci, name).stdout.split()
        self.creds[name] = self.pg.conninfo(
            user=out[out.index("user") + 1],
            password=out[out.index("password") + 1])
        return self.creds[name]

    def start_worker(self, name, batch_ms=300, extra=()):
        """A worker refd in its own directory (kept across restarts)."""
        d = os.path.join(self.tmp, "w-" + name)
        os.makedirs(d, exist_ok=True)
        conf = write(os.path.join(d, "refd.conf"),
                     "cluster_batch_ms %d\n" % batch_ms)
        r = harness.Refd(d, extra=["-f", conf, "--cluster",
                                   self.creds[name], "--worker", name] +
                         list(extra))
        self.workers[name] = r
        return r

    def psql(self, sql, who=None, check=True):
        """sql on a connection of its own, as the organiser or as worker
        who; returns (ok, output)."""
        ci = self.ci if who is None else self.creds[who]
        p = subprocess.run(["psql", ci, "-XAtq", "-v", "ON_ERROR_STOP=1",
                            "-c", sql], capture_output=True, text=True,
                           timeout=60)
        if check:
            assert p.returncode == 0, (sql, p.stderr)
        return p.returncode == 0, (p.stdout + p.stderr).strip()

    def idents(self, tid):
        return self.psql("SELECT string_agg(name || '=' || ident, ' ' "
                         "ORDER BY idx) FROM refd.bots WHERE tid = %d" %
                         tid)[1]

    def status(self, name):
        out = refctl("cluster", "status", self.ci, name).stdout
        st = {}
        for line in out.splitlines():
            k, _, v = line.partition(" ")
            st.setdefault(k, []).append(v)
        return st

    def wait_done(self, name, timeout=600, during=None):
        end = time.time() + timeout
        while time.time() < end:
            st = self.status(name)
            if during is not None:
                during(st)
            if st["tournament"][0].split()[-1] != "running":
                return st
            time.sleep(0.3)
        raise AssertionError("tournament %s not over: %s" % (name, st))

    def stop(self):
        """Stop the workers, each exiting 0 (a sanitizer's report fails
        it), then the server."""
        bad = []
        try:
            for n, r in self.workers.items():
                if r.stop() != 0:
                    bad.append(n)
        finally:
            self.pg.stop()
        assert not bad, "workers exited badly: %s" % bad


THINK = r"\nthinking \(ms\)[^\n]*\n((?:[^\n]+\n)*)"


def standings_part(text):
    """The standings from their table on, without thinking times (which
    are each machine's own)."""
    text = text[text.index("rank "):]
    return re.sub(THINK, "", text)


def think_rows(text):
    """The thinking-time table of standings or status text: its rows,
    each [bot, moves, mean, p99, max, timeouts], in the order printed."""
    m = re.search(THINK, text)
    assert m, "no thinking times:\n" + text
    return [l.split() for l in m.group(1).splitlines()]


def think_counts(text):
    """Each bot's moves and time-outs in the time report, in its order:
    what does not depend on the machine's clock."""
    return [(r[0], r[1], r[5]) for r in think_rows(text)]


def think_from_logs(cl, order, tid=1):
    """The thinking-time rows the workers' logs give for the matches the
    database names, computed as refctl tournament standings does over
    one log (nearest-rank 99th percentile), each bot in order."""
    import sqlite3
    ms = {b: [] for b in order}
    tout = {b: 0 for b in order}
    rows = cl.psql("SELECT slot, worker, match_id FROM refd.results "
                   "WHERE tid = %d ORDER BY slot" % tid)[1].splitlines()
    for slot, worker, mid in (r.split("|") for r in rows):
        con = sqlite3.connect(cl.workers[worker].db)
        for bot, t in con.execute(
                "SELECT s.bot, p.ms FROM plays p JOIN seats s ON "
                "s.match_id = p.match_id AND s.seat = p.seat WHERE "
                "p.match_id = ? AND p.fault = 0", (int(mid),)):
            ms[bot].append(t)
        for bot, n in con.execute(
                "SELECT s.bot, count(*) FROM faults f JOIN seats s ON "
                "s.match_id = f.match_id AND s.seat = f.seat WHERE "
                "f.match_id = ? AND f.kind = 'timeout' GROUP BY s.bot",
                (int(mid),)):
            tout[bot] += n
        con.close()
    out = []
    for b in order:
        v = sorted(ms[b])
        n = len(v)
        p99 = v[(99 * n + 99) // 100 - 1] if n else 0
        out.append(("%-16.16s %8d %9.1f %9d %9d %8d" % (
            b, n, sum(v) / n if n else 0.0, p99, v[-1] if n else 0,
            tout[b])).split())
    return out


def one_machine(tmp, path):
    """The standings of the file on one refd (refctl tournament)."""
    d = os.path.join(tmp, "one")
    os.makedirs(d)
    r = harness.Refd(d)
    try:
        ok, tid = r.ctl("tournament_start", path)
        assert ok, tid
        state = r.must("tournament_wait", tid, timeout=900)
        assert state.startswith("done"), state
        return refctl("tournament", "standings", "--db", r.db, tid).stdout
    finally:
        r.stop()


def c_bots():
    b = harness.BUILD
    return ("bot r3 spawn {b}/bots/randbot -s 3\nbot r5 spawn {b}/bots/randbot"
            " -s 5\nbot heur spawn {b}/bots/heurbot\nbot r9 spawn "
            "{b}/bots/randbot -s 9\n").format(b=b)


def test_same_standings(tmp):
    """Three workers, one of them SIGKILLed and restarted mid-way, give
    byte-identical standings to the same file on one refd; every slot is
    played exactly once, the seed is revealed at the end."""
    path = write(os.path.join(tmp, "same.tour"), c_bots() +
                 "name same\nvariant joker3\nduplicate yes\nbots r3 r5 heur "
                 "r9\nseed %s\nmatches 48\nconcurrency 2\n" % SEED)
    cl = Cluster(os.path.join(tmp, "same"))
    try:
        for n in ("a", "b", "c"):
            cl.add_worker(n)
        out = refctl("cluster", "submit", cl.ci, path, "--lease-ms",
                     "3000").stdout
        assert "48 slots" in out, out
        st = cl.status("same")
        assert "seed" not in st, "the seed shown before the end"
        for n in ("a", "b", "c"):
            cl.start_worker(n)
        killed = []

        def kill_b(st):
            done = int(st["progress"][0].split("/")[0])
            if not killed and done >= 12:
                cl.workers["b"].proc.send_signal(signal.SIGKILL)
                cl.workers["b"].proc.wait()
                killed.append(done)
                cl.start_worker("b")
        st = cl.wait_done("same", during=kill_b)
        assert killed, "worker b was never killed"
        assert st["tournament"][0].endswith("done"), st
        assert st["progress"][0] == "48/48", st
        assert st["seed"][0] == SEED, st
        results = [int(w.split()[-1]) for w in st["worker"]]
        assert sum(results) == 48 and all(results), st["worker"]
        cl_text = refctl("cluster", "standings", cl.ci, "same").stdout
        st_text = refctl("cluster", "status", cl.ci, "same").stdout
        check_once(cl, path)
        audit_cluster(cl, "same", 48)
        # the time report: each figure the logs give, summed exactly;
        # status and export give the same
        think = think_rows(cl_text)
        assert think == think_from_logs(cl, [r[0] for r in think]), \
            (think, cl_text)
        assert sorted(think_rows(st_text)) == sorted(think), st_text
        import json
        ex = json.loads(refctl("cluster", "export", cl.ci, "same").stdout)
        assert sorted([t["bot"], str(t["moves"]), "%.1f" % t["mean_ms"],
                       str(t["p99_ms"]), str(t["max_ms"]),
                       str(t["timeouts"])] for t in
                      ex["standings"]["times"]) == sorted(think), ex
    finally:
        cl.stop()
    one = one_machine(tmp, path)
    assert standings_part(one) == standings_part(cl_text), \
        "one machine:\n%s\ncluster:\n%s" % (one, cl_text)
    # thinking times are wall-clock, each machine's own: the moves and
    # time-outs of each bot are the same, byte for byte
    assert think_counts(one) == think_counts(cl_text), (one, cl_text)


def small(tmp, name, matches=8, extra=""):
    return write(os.path.join(tmp, name + ".tour"), c_bots() +
                 "name %s\nvariant classic2\nbots r3 heur\nseed %s\n"
                 "matches %d\nduplicate yes\n%s" % (name, SEED, matches,
                                                     extra))


def test_roles(tmp):
    """A worker's own connection reads no table, learns no seed before
    leasing, cannot lease with bots that differ, report under another's
    lease, speak as another worker, or reach the organiser's functions;
    credentials are printed once and not readable."""
    cl = Cluster(os.path.join(tmp, "roles"))
    try:
        cl.add_worker("a")
        cl.add_worker("b")
        refctl("cluster", "submit", cl.ci, small(tmp, "roles"))
        for t in ("secrets", "slots", "results", "leases", "workers",
                  "tournaments", "bots", "refused", "meta"):
            ok, out = cl.psql("SELECT * FROM refd.%s" % t, "a", check=False)
            assert not ok and "permission denied" in out, (t, out)
        ok, out = cl.psql("INSERT INTO refd.results VALUES (1, 0, 1, 'a', "
                          "1, 'x', 1, 'x', 'x')", "a", check=False)
        assert not ok and "permission denied" in out, out
        for f in ("refd.reclaim(1)", "refd.me()"):
            ok, out = cl.psql("SELECT " + f, "a", check=False)
            assert not ok and "permission denied" in out, (f, out)
        ok, out = cl.psql("SELECT rolpassword FROM pg_authid", "a",
                          check=False)
        assert not ok and "permission denied" in out, out
        ok, out = cl.psql("SELECT rolpassword FROM pg_roles WHERE rolname "
                          "= 'refd_w_b'", "a")
        assert "SCRAM" not in out and "md5" not in out, out
        # the definition a worker reads has no seed; no seed before a lease
        ok, out = cl.psql("SELECT * FROM refd.work()", "a")
        assert SEED not in out and "withheld" in out, out
        ok, out = cl.psql("SELECT refd.hello('b', '%s')" % ("ab" * 32), "a",
                          check=False)
        assert not ok and "this role is worker a, not b" in out, out
        idents = cl.idents(1)
        ok, out = cl.psql("SELECT * FROM refd.lease(1, '%s', 1)" %
                          idents.replace("prog:", "prog:0"), "a",
                          check=False)
        assert not ok and "bots differ" in out, out
        ok, out = cl.psql("SELECT * FROM refd.lease(1, '%s', 1)" % idents,
                          "a")
        lease, slot, seed, bots = out.splitlines()[0].split("|")
        # b cannot report under a's lease, nor a twice for one slot
        rec = "r1 w0 1,0 0,1 0,0 0"
        ok, out = cl.psql("SELECT refd.report(%s, %s, 7, '%s', 3, '%s', "
                          "'%s', '%s')" % (lease, slot, rec, "0" * 64,
                                           "0" * 128, TIMES), "b",
                          check=False)
        assert not ok and "worker b holds no lease" in out, out
        # hostile thinking times: each raises, saying why; nothing taken
        for times, why in (("t1 " + "0/0*1," * 12000 + " 0/",
                            "at most 65536 bytes"),
                           ("t1 0/", "one per seat: 2"),
                           ("t1 0/5*1,3*1 0/", "not in ascending order"),
                           ("t1 0/x 0/", "malformed"),
                           ("t1 0/999999999*1 0/", "malformed"),
                           ("t2 0/ 0/", "malformed")):
            ok, out = cl.psql("SELECT refd.report(%s, %s, 7, '%s', 3, "
                              "'%s', '%s', '%s')" % (
                                  lease, slot, rec, "0" * 64, "0" * 128,
                                  times), "a", check=False)
            assert not ok and "thinking times" in out and why in out, \
                (times[:40], out)
        ok, out = cl.psql("SELECT refd.report(%s, %s, 7, '%s', 3, '%s', "
                          "'%s', NULL)" % (lease, slot, rec, "0" * 64,
                                           "0" * 128), "a", check=False)
        assert not ok and "thinking times" in out, out
        assert cl.psql("SELECT count(*) FROM refd.results")[1] == "0"
        ok, out = cl.psql("SELECT refd.decide(1, 'SPRT: H1 accepted')",
                          "a", check=False)
        assert not ok and "with the units it read" in out, out
        ok, out = cl.psql("SELECT refd.decide(1, 'SPRT: H1 accepted (LLR "
                          "3.00, bounds [-2.94, 2.94], 1 matches, games "
                          "1-0-0)')", "a")
        assert out == "refused: the tournament has no SPRT", out
        ok, out = cl.psql("SELECT state FROM refd.tournaments", None)
        assert out == "running", out
    finally:
        cl.stop()


def test_fencing(tmp):
    """A result is taken only under its current lease: a lease past its
    time is taken back by the next lease, and its late report refused
    and kept as refused; the slot is played once, under the new lease.
    A lease not renewed for two heartbeats takes no new slots until a
    heartbeat is answered; a report resent is taken once."""
    cl = Cluster(os.path.join(tmp, "fence"))
    try:
        cl.add_worker("a")
        cl.add_worker("b")
        refctl("cluster", "submit", cl.ci, small(tmp, "fence", 4,
               "duplicate no\n"), "--lease-ms", "5000")
        idents = cl.idents(1)
        rec = "r1 w0 1,0 0,1 0,0 0"
        lease_a = cl.psql("SELECT * FROM refd.lease(1, '%s', 2)" % idents,
                          "a")[1].splitlines()
        la = lease_a[0].split("|")[0]
        # two heartbeats missed: no new slots until one is answered
        time.sleep(3)
        ok, out = cl.psql("SELECT * FROM refd.lease(1, '%s', 1)" % idents,
                          "a", check=False)
        assert not ok and "missed two heartbeats" in out, out
        ok, out = cl.psql("SELECT * FROM refd.heartbeat('{%s}')" % la, "a")
        assert out == "%s|active" % la, out
        ok, out = cl.psql("SELECT * FROM refd.lease(1, '%s', 1)" % idents,
                          "a")
        assert out, "no lease after the heartbeat"
        l2 = out.split("|")[0]
        cl.psql("SELECT refd.report(%s, %s, 5, '%s', 1, '%s', '%s', '%s')"
                % (l2, out.split("|")[1], rec, "1" * 64, "2" * 128, TIMES),
                "a")
        # lease a runs out: its late report is refused, though nobody
        # has taken the lease back yet; b's lease then takes its slots
        time.sleep(6)
        slot = lease_a[0].split("|")[1]
        late = "SELECT refd.report(%s, %s, 9, '%s', 1, '%s', '%s', " \
            "'%s')" % (la, slot, rec, "3" * 64, "4" * 128, TIMES)
        ok, out = cl.psql(late, "a")
        assert out == "refused: lease %s expired" % la, out
        ok, out = cl.psql("SELECT * FROM refd.lease(1, '%s', 4)" % idents,
                          "b")
        lb = out.splitlines()
        taken = {int(x.split("|")[1]) for x in lb}
        assert {int(x.split("|")[1]) for x in lease_a} <= taken, \
            (taken, lease_a)
        for row in lb:
            l, sl = row.split("|")[:2]
            q = "SELECT refd.report(%s, %s, 11, '%s', 2, '%s', '%s', " \
                "'%s')" % (l, sl, rec, "5" * 64, "6" * 128, TIMES)
            assert cl.psql(q, "b")[1] == "ok"
            assert cl.psql(q, "b")[1] == "ok", "a resent report refused"
        ok, out = cl.psql(late, "a")
        assert out.startswith("refused: slot %s was played under lease %s"
                              % (slot, lb[0].split("|")[0])), out
        out = cl.psql("SELECT slot, lease, worker FROM refd.results ORDER "
                      "BY slot")[1].splitlines()
        assert len(out) == 4 and len(set(r.split("|")[0] for r in out)) \
            == 4, out
        assert not any(r.split("|")[1] == la for r in out), out
        out = cl.psql("SELECT count(*) FROM refd.refused WHERE lease = %s"
                      % la)[1]
        assert out == "2", out
        st = cl.status("fence")
        assert st["tournament"][0].endswith("done"), st
    finally:
        cl.stop()


def test_reclaim_race(tmp):
    """A report under way as its lease runs out: the reclaim waits for it
    and takes back only the slots it did not report (River 1302)."""
    cl = Cluster(os.path.join(tmp, "race"))
    try:
        cl.add_worker("a")
        cl.add_worker("b")
        refctl("cluster", "submit", cl.ci, small(tmp, "race", 2,
               "duplicate no\n"), "--lease-ms", "3000")
        idents = cl.idents(1)
        rows = cl.psql("SELECT * FROM refd.lease(1, '%s', 2)" % idents,
                       "a")[1].splitlines()
        la, s0 = rows[0].split("|")[:2]
        # a's report, its transaction open past the lease's end
        a = subprocess.Popen(["psql", cl.creds["a"], "-XAtq", "-v",
                              "ON_ERROR_STOP=1"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        a.stdin.write("BEGIN;\nSELECT refd.report(%s, %s, 3, 'r1 w0 1,0 0,1 "
                      "0,0 0', 1, '%s', '%s', '%s');\nSELECT pg_sleep(4);\n"
                      "COMMIT;\n" % (la, s0, "1" * 64, "2" * 128, TIMES))
        a.stdin.close()
        time.sleep(3.5)         # the lease is over, the report not in
        out = cl.psql("SELECT * FROM refd.lease(1, '%s', 2)" % idents,
                      "b")[1].splitlines()
        assert a.wait(30) == 0
        assert a.stdout.read().strip().startswith("ok")
        got = [r.split("|")[1] for r in out]
        assert s0 not in got and len(got) == 1, (s0, out)
    finally:
        cl.stop()


def schedule_seeds(path):
    """Each slot's seed, from refctl tournament schedule."""
    out = refctl("tournament", "schedule", path).stdout
    seeds = {int(m.group(1)): m.group(2) for m in
             re.finditer(r"^# (\d+) ([0-9a-f]{64})$", out, re.M)}
    if "\n# block seed\n" not in out:
        return seeds
    # duplicate deals: a seed per block, each slot of it
    return {int(l.split()[0]): seeds[int(l.split()[1])]
            for l in out.splitlines() if l and l[0].isdigit()}


def check_once(cl, path, tid=1):
    """Every slot has one result, by the match its worker's log holds with
    the slot's seed; returns the rows."""
    import sqlite3
    seeds = schedule_seeds(path)
    assert seeds, "no seeds in the schedule"
    rows = cl.psql("SELECT slot, worker, match_id FROM refd.results "
                   "WHERE tid = %d ORDER BY slot" % tid)[1].splitlines()
    rows = [r.split("|") for r in rows]
    assert [int(r[0]) for r in rows] == sorted(seeds), \
        "slots with no result or more than one"
    for slot, worker, mid in rows:
        con = sqlite3.connect(cl.workers[worker].db)
        got = con.execute("SELECT seed, state FROM matches WHERE id = ?",
                          (int(mid),)).fetchone()
        con.close()
        assert got == (seeds[int(slot)], "done"), (slot, worker, mid, got)
    return rows


def audit_cluster(cl, name, n):
    """refctl cluster audit passes the tournament with its workers' logs,
    and names what fails when a result, a head or a log is wrong; the
    export holds every slot."""
    import json
    for r in cl.workers.values():
        r.stop()
    logs = [r.db for r in cl.workers.values()]
    p = refctl("cluster", "audit", cl.ci, name, *logs, check=False)
    assert p.returncode == 0 and "%d slots verified, 0 failed" % n in \
        p.stdout and "equal the database's" in p.stdout, p.stdout
    assert len(re.findall(r"^worker \w+: \d+ matches, ", p.stdout,
                          re.M)) == len(logs), p.stdout
    ex = json.loads(refctl("cluster", "export", cl.ci, name).stdout)
    assert len(ex["slots"]) == n and ex["seed"] == SEED, ex.keys()
    # a result changed in the database: that slot is named
    slot, rec = cl.psql("SELECT slot, record FROM refd.results ORDER BY "
                        "slot LIMIT 1")[1].split("|")
    forged = rec.replace(" w0 ", " w1 ", 1) if " w0 " in rec else \
        rec.replace(" w1 ", " w0 ", 1)
    cl.psql("UPDATE refd.results SET record = '%s' WHERE slot = %s" %
            (forged, slot))
    p = refctl("cluster", "audit", cl.ci, name, *logs, check=False)
    assert p.returncode == 1 and "slot %s FAILED" % slot in p.stdout and \
        "is not the log's" in p.stdout and "standings recounted from " \
        "the logs differ" in p.stdout, p.stdout
    cl.psql("UPDATE refd.results SET record = '%s' WHERE slot = %s" %
            (rec, slot))
    # a head that is not the match's signed end
    cl.psql("UPDATE refd.results SET head_no = head_no + 1 WHERE slot = %s"
            % slot)
    p = refctl("cluster", "audit", cl.ci, name, *logs, check=False)
    assert p.returncode == 1 and "slot %s FAILED" % slot in p.stdout and \
        "signed end" in p.stdout, p.stdout
    cl.psql("UPDATE refd.results SET head_no = head_no - 1 WHERE slot = %s"
            % slot)
    # a thinking-time figure forged: one more time-out for seat 1, then
    # a move of seat 0 made slower
    times = cl.psql("SELECT times FROM refd.results WHERE slot = %s" %
                    slot)[1]
    assert re.match(r"^t1 \d+/\d", times), times
    seats = times.split(" ")
    to, moves = seats[2].split("/")
    more = " ".join(seats[:2] + ["%d/%s" % (int(to) + 1, moves)] + seats[3:])
    to, moves = seats[1].split("/")
    ms, n = moves.split(",")[-1].split("*")
    slower = " ".join(seats[:1] + ["%s/%s" % (to, ",".join(
        moves.split(",")[:-1] + ["%d*%s" % (int(ms) + 500, n)]))] +
        seats[2:])
    for forged, seat in ((more, 1), (slower, 0)):
        cl.psql("UPDATE refd.results SET times = '%s' WHERE slot = %s" %
                (forged, slot))
        p = refctl("cluster", "audit", cl.ci, name, *logs, check=False)
        assert p.returncode == 1 and re.search(
            r"slot %s FAILED: match \d+ of worker \w+: seat %d's thinking "
            r"times reported \(.*\) are not the log's" % (slot, seat),
            p.stdout) and "standings recounted from the logs differ" in \
            p.stdout, p.stdout
    cl.psql("UPDATE refd.results SET times = '%s' WHERE slot = %s" %
            (times, slot))
    # a log left out: the slots of its worker are named
    p = refctl("cluster", "audit", cl.ci, name, *logs[1:], check=False)
    w = list(cl.workers)[0]
    assert p.returncode == 1 and "played by worker %s, whose log was not " \
        "given" % w in p.stdout, p.stdout


def test_proxy_faults(tmp):
    """Reports through a wire that drops answers, duplicates requests and
    cuts connections: each resent, taken once, none refused; the totals
    are those of one machine."""
    cl = Cluster(os.path.join(tmp, "proxy"))
    path = small(tmp, "proxy", 24, "concurrency 2\n")
    px = pgproxy.Proxy(os.path.join(tmp, "proxy", "px"),
                       os.path.join(cl.pg.sockdir, ".s.PGSQL.5432"),
                       drop=0.2, dup=0.15, cut=0.15, seed=7)
    try:
        for n in ("a", "b"):
            cl.add_worker(n)
            cl.creds[n] = cl.creds[n].replace("host=%s " % cl.pg.sockdir,
                                              "host=%s " % px.dir)
        # leases long enough that the heartbeats the proxy drops or cuts
        # never let one run out on a busy machine (6 s did, once in three
        # runs: a legitimate refusal, but not what this test is about;
        # test_fencing is)
        refctl("cluster", "submit", cl.ci, path, "--lease-ms", "20000")
        for n in ("a", "b"):
            cl.start_worker(n)
        st = cl.wait_done("proxy")
        assert st["progress"][0] == "24/24", st
        assert st["refused"][0] == "0", st
        assert all(px.counts[k] > 0 for k in ("drop", "dup", "cut")), \
            px.counts
        rep = 0
        for r in cl.workers.values():
            rep += int(re.search(r"cluster_reported (\d+)",
                                 r.must("status")).group(1))
        assert rep == 24, rep
        check_once(cl, path)
        text = refctl("cluster", "standings", cl.ci, "proxy").stdout
        print("# proxy faults: %s" % px.counts)
    finally:
        px.stop()
        cl.stop()
    one = one_machine(tmp + "/proxy", path)
    assert standings_part(one) == standings_part(text), (one, text)


def test_sigstop(tmp):
    """A worker stopped past its lease and continued: its slots were
    played by another under a new lease, its late results refused or its
    matches stopped; every slot once, by the match the database names."""
    cl = Cluster(os.path.join(tmp, "stop"))
    path = small(tmp, "stop", 30, "duplicate no\nconcurrency 2\n")
    try:
        for n in ("a", "b"):
            cl.add_worker(n)
        refctl("cluster", "submit", cl.ci, path, "--lease-ms", "1500")
        a = cl.start_worker("a", batch_ms=3000)
        for _ in range(300):
            st = a.must("status")
            if re.search(r"cluster_running [1-9]", st):
                break
            time.sleep(0.02)
        else:
            raise AssertionError("worker a never played: %s" % st)
        a.proc.send_signal(signal.SIGSTOP)
        cl.start_worker("b")
        time.sleep(4)
        a.proc.send_signal(signal.SIGCONT)
        st = cl.wait_done("stop")
        assert st["progress"][0] == "30/30", st
        check_once(cl, path)
        err = open(os.path.join(a.tmp, "refd.err")).read()
        assert "not renewed in time" in err or "refused" in err, err
        # nothing of a's was taken under the lease it lost
        lost = cl.psql("SELECT count(*) FROM refd.leases WHERE worker = 'a' "
                       "AND state = 'expired'")[1]
        assert int(lost) >= 1, lost
    finally:
        cl.stop()


def test_pg_restarts(tmp):
    """PostgreSQL restarted twenty times (-m immediate) while three
    workers play: every result a worker saw taken is in the database, every
    slot once; libpq never held the loop: its CPU a call, and its wall
    time a call less the waits for a CPU, under 50 ms."""
    cl = Cluster(os.path.join(tmp, "restart"))
    path = small(tmp, "restart", 60, "duplicate no\nconcurrency 2\n")
    try:
        for n in ("a", "b", "c"):
            cl.add_worker(n)
        refctl("cluster", "submit", cl.ci, path, "--lease-ms", "4000")
        for n in ("a", "b", "c"):
            cl.start_worker(n)
        for i in range(20):
            time.sleep(0.3)
            cl.pg.restart("immediate")
        st = cl.wait_done("restart")
        assert st["progress"][0] == "60/60", st
        rows = {(r[0], r[1], r[2]) for r in check_once(cl, path)}
        acked = 0
        for n, r in cl.workers.items():
            st = r.must("status")
            lib = int(re.search(r"cluster_libpq_max_us (\d+)",
                                st).group(1))
            cpu = int(re.search(r"cluster_libpq_cpu_max_us (\d+)",
                                st).group(1))
            lag = int(re.search(r"loop_lag_max_us (\d+)", st).group(1))
            own = int(re.search(r"loop_lag_own_max_us (\d+)",
                                st).group(1))
            lpown = int(re.search(r"cluster_libpq_own_max_us (\d+)",
                                  st).group(1))
            print("# worker %s: libpq's longest call %d us (%d us of CPU, "
                  "%d us not waiting for one); loop lag at most %d us, "
                  "%d us of it refd's own" % (n, lib, cpu, lpown, lag, own))
            # libpq's own work; the wall time counts a busy machine's
            # preemptions too (PERFORMANCE.md has it, measured quiet)
            assert cpu < 50000, (n, cpu)
            # and its longest call less the time the loop's thread
            # waited for a CPU meanwhile (the other programs' doing on
            # a busy machine): a call that waited on the network (a
            # blocking connect, a DNS lookup) fails it, a busy machine
            # does not.  The loop's whole delay of refd's own is printed,
            # not held: under the full suite it once reached 115 ms,
            # outside libpq, in work this test does not attribute.
            assert lpown < 50000, (n, lpown, lib)
            for slot, mid in re.findall(
                    r"cluster: slot (\d+) reported \(match (\d+)\)",
                    open(os.path.join(r.tmp, "refd.err")).read()):
                assert (slot, n, mid) in rows, (slot, n, mid)
                acked += 1
        assert acked >= 60, acked
    finally:
        cl.stop()


def test_identity(tmp):
    """A worker whose program differs from the submission's says which
    bot differs and takes nothing."""
    d = os.path.join(tmp, "ident")
    os.makedirs(d)
    os.chmod(d, 0o755)
    prog = os.path.join(d, "mybot")
    with open(os.path.join(harness.BUILD, "bots", "randbot"), "rb") as f:
        data = f.read()
    with open(prog, "wb") as f:
        f.write(data)
    os.chmod(prog, 0o755)
    path = write(os.path.join(d, "ident.tour"), c_bots() +
                 "bot mine spawn %s -s 2\nname ident\nvariant classic2\n"
                 "bots heur mine\nmatches 4\n" % prog)
    cl = Cluster(os.path.join(d, "c"))
    try:
        cl.add_worker("a")
        refctl("cluster", "submit", cl.ci, path)
        with open(prog, "ab") as f:
            f.write(b"\0changed")
        a = cl.start_worker("a")
        err = ""
        for _ in range(100):
            err = open(os.path.join(a.tmp, "refd.err")).read()
            if "differs" in err:
                break
            time.sleep(0.1)
        assert "bot mine differs from the submission's" in err, err
        assert "bot heur differs" not in err, err
        time.sleep(1.5)
        st = cl.status("ident")
        assert st["progress"][0] == "0/4" and st["leased"][0] == "0", st
        assert "cluster_tournament 0" in a.must("status")
    finally:
        cl.stop()


def test_sprt(tmp):
    """A gauntlet's SPRT over three workers: the same verdict, reason and
    SPRT lines as on one refd; once it decides, every lease is cancelled
    and the workers stop within a heartbeat."""
    path = write(os.path.join(tmp, "sprt.tour"), c_bots() +
                 "name sprt\nvariant classic2\nformat gauntlet\n"
                 "candidate heur\nbots r3 r5\nmatches 400\nconcurrency 2\n"
                 "sprt 0 100 0.05 0.05\nseed %s\n" % SEED)
    cl = Cluster(os.path.join(tmp, "sprt"))
    try:
        for n in ("a", "b", "c"):
            cl.add_worker(n)
        refctl("cluster", "submit", cl.ci, path, "--lease-ms", "2000")
        for n in ("a", "b", "c"):
            cl.start_worker(n)
        st = cl.wait_done("sprt")
        reason = st["reason"][0]
        assert reason.startswith("SPRT: H1 accepted"), st
        # three workers' results: one worker's word was not enough, a
        # second proposed the same verdict
        assert len(st["decided_by"][0].split(",")) == 2, st
        done = int(st["progress"][0].split("/")[0])
        assert done < 400, st
        assert cl.psql("SELECT count(*) FROM refd.leases WHERE state = "
                       "'active'")[1] == "0"
        late = cl.psql("SELECT count(*) FROM refd.results r, "
                       "refd.tournaments t WHERE r.reported > t.ended")[1]
        assert late == "0", late
        time.sleep(0.5 + 2.0 / 4)
        for r in cl.workers.values():
            assert re.search(r"cluster_running 0\b", r.must("status"))
        text = refctl("cluster", "standings", cl.ci, "sprt").stdout
        # the audit holds the verdict to the rows: a worker's word
        for r in cl.workers.values():
            r.stop()
        logs = [r.db for r in cl.workers.values()]
        p = refctl("cluster", "audit", cl.ci, "sprt", *logs, check=False)
        assert p.returncode == 0 and " 0 failed" in p.stdout, p.stdout
        cl.psql("UPDATE refd.tournaments SET reason = 'SPRT: H0 accepted'")
        p = refctl("cluster", "audit", cl.ci, "sprt", *logs, check=False)
        assert p.returncode == 1 and "the results say" in p.stdout, p.stdout
    finally:
        cl.stop()
    d = os.path.join(tmp, "sprt-one")
    os.makedirs(d)
    r = harness.Refd(d)
    try:
        ok, tid = r.ctl("tournament_start", path)
        assert ok, tid
        state = r.must("tournament_wait", tid, timeout=900)
        one = refctl("tournament", "standings", "--db", r.db, tid).stdout
    finally:
        r.stop()
    assert state == "done " + reason, (state, reason)
    sprt = lambda t: t[t.index("\nSPRT "):]
    assert sprt(one) == sprt(text), (one, text)
    # the standings count what the SPRT read, on both, and so do the
    # time reports
    assert standings_part(one) == standings_part(text), (one, text)
    assert think_counts(one) == think_counts(text), (one, text)


def test_sprt_liar(tmp):
    """A worker cannot stop an SPRT with a decision of its own making: one
    that says it read more than the results hold is refused; one with the
    right count from a worker whose results are not all of them stays a
    proposal, named by status, the tournament playing on; and one the
    results do not support, from the worker that reported every result,
    is named, with its worker, by status and the audit."""
    path = write(os.path.join(tmp, "liar.tour"), c_bots() +
                 "name liar\nvariant classic2\nformat gauntlet\n"
                 "candidate r3\nbots r5 r9\nmatches 400\nconcurrency 2\n"
                 "sprt 0 100 0.05 0.05\nseed %s\n" % SEED)
    cl = Cluster(os.path.join(tmp, "liar"))
    try:
        for n in ("a", "m"):
            cl.add_worker(n)
        refctl("cluster", "submit", cl.ci, path, "--lease-ms", "2000")
        lie = ("SELECT refd.decide(1, 'SPRT: H1 accepted (LLR 3.10, bounds "
               "[-2.94, 2.94], %d matches, games %d-0-0)')")
        # before any result: it cannot have read twenty matches
        ok, out = cl.psql(lie % (20, 20), "m")
        assert out.startswith("refused: the SPRT cannot have read 20 "
                              "units: the results hold 0"), out
        st = cl.status("liar")
        assert st["tournament"][0].endswith("running"), st
        # a few results, all m's, then a verdict they do not support
        mw = cl.start_worker("m")
        end = time.time() + 120
        while int(cl.status("liar")["progress"][0].split("/")[0]) < 6:
            assert time.time() < end, "no progress"
            time.sleep(0.2)
        mw.stop()
        st = cl.status("liar")
        assert st["tournament"][0].endswith("running"), st
        units = int(st["sprt"][0].split()[7])
        assert units >= 1, st
        # the schedule's prefix played (the SPRT counts only the
        # candidate's games against the first baseline in it)
        prefix = int(cl.psql("SELECT min(slot) FROM refd.slots WHERE NOT "
                             "done")[1])
        assert prefix >= units, (prefix, units)
        ok, out = cl.psql(lie % (prefix + 1, prefix + 1), "m")
        assert out.startswith("refused: the SPRT cannot have read %d "
                              "units: the results hold %d" % (
                                  prefix + 1, prefix)), out
        # the right count from a, whose results are none of them: a
        # proposal, awaiting a second worker, and the tournament runs on
        said = (lie % (units, units)).split("'")[1]
        ok, out = cl.psql(lie % (units, units), "a")
        assert out == "proposed: awaiting a second worker", out
        st = cl.status("liar")
        assert st["tournament"][0].endswith("running"), st
        assert st["proposal"] == ["a " + said], st
        # m reported every result: its word is taken, and named
        ok, out = cl.psql(lie % (units, units), "m")
        assert out == "ok", out
        st = cl.status("liar")
        assert st["decided_by"] == ["m"], st
        assert st["decision"][0].startswith("unsupported: worker m ended "
                                            "it, the results say"), st
        p = refctl("cluster", "audit", cl.ci, "liar", mw.db, check=False)
        assert p.returncode == 1 and re.search(
            r"tournament liar FAILED: worker m ended it with \"SPRT: H1 "
            r"accepted.*the results say", p.stdout), p.stdout
        assert cl.psql("SELECT count(*) FROM refd.refused WHERE why LIKE "
                       "'decision of worker m refused: %'")[1] == "2"
    finally:
        cl.stop()


def test_lease_beside_decision(tmp):
    """A lease asked while a decision is being committed waits for it,
    and takes nothing of the tournament it ends: no lease outlives the
    end, and no result comes in after it (as OpenBench's fixed-game
    tests ran past their cap).  The decision is held open by a
    transaction of the test's, as refd.decide() holds the row."""
    cl = Cluster(os.path.join(tmp, "decision"))
    try:
        cl.add_worker("a")
        refctl("cluster", "submit", cl.ci, small(tmp, "decision", 8,
               "duplicate no\n"), "--lease-ms", "5000")
        idents = cl.idents(1)
        held = subprocess.Popen(
            ["psql", cl.ci, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c",
             "BEGIN; SELECT 1 FROM refd.tournaments WHERE id = 1 FOR "
             "UPDATE; UPDATE refd.tournaments SET state = 'done', reason "
             "= 'decided', ended = clock_timestamp() WHERE id = 1; "
             "SELECT pg_sleep(2); COMMIT;"], stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        time.sleep(0.8)         # the row is held
        t0 = time.time()
        ok, out = cl.psql("SELECT * FROM refd.lease(1, '%s', 4)" % idents,
                          "a")
        waited = time.time() - t0
        assert held.wait(30) == 0, held.stderr.read()
        assert out == "", "leased in an ended tournament: %s" % out
        assert waited > 0.5, "the lease did not wait for the decision"
        assert cl.psql("SELECT count(*) FROM refd.leases WHERE state = "
                       "'active'")[1] == "0"
        assert cl.psql("SELECT count(*) FROM refd.slots WHERE lease IS "
                       "NOT NULL")[1] == "0"
    finally:
        cl.stop()


def test_refctl_light(tmp):
    """refctl loads libpq only when a cluster command runs: linked in,
    it and the libraries it needs (TLS, Kerberos, LDAP) made every
    refctl start three times slower.  The cluster commands still reach
    PostgreSQL (every other test here)."""
    libs = subprocess.run(["ldd", REFCTL], capture_output=True,
                          text=True).stdout
    assert "libc." in libs, libs
    assert "libpq" not in libs, libs
    # no database at all: refctl says so through the loaded libpq
    p = refctl("cluster", "status", "host=%s port=1 connect_timeout=2"
               % tmp, "none", check=False)
    assert p.returncode == 2 and "refctl: cluster: connection to server" \
        in p.stderr and ".s.PGSQL.1" in p.stderr, p


TESTS = [test_refctl_light, test_roles, test_fencing,
         test_lease_beside_decision, test_reclaim_race, test_identity,
         test_same_standings, test_proxy_faults, test_sigstop,
         test_pg_restarts, test_sprt, test_sprt_liar]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-cluster.")
    only = os.environ.get("CLUSTER_TESTS")
    tests = [t for t in TESTS if not only or t.__name__ in only.split()]
    harness.finish(*harness.run_tests(tests, (tmp,)), tmp)


if __name__ == "__main__":
    main()
