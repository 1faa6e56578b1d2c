#!/usr/bin/env python3
"""cluster.py: what a cluster of refd workers (refd-cluster(7)) costs and
gains, on this machine, against a PostgreSQL server of its own
(tests/pgharness.py).

- Scaling: 1, 2, 4 and 8 workers play classic2 matches of bots that
  think 20 ms a card, asleep (bots/randbot -t 20), so that the cores are
  not the limit: matches per second, from the first lease to the last
  result, against k times one worker's.
- Coordinator: pgbench drives lease and report, as the workers' roles,
  with 8 clients: operations per second, and their latency's mean and
  99th percentile; and each worker's own queries' p99 round trip.
- Overhead: a worker refd's CPU time per match against a lone refd's on
  the same matches (refctl tournament), the bots' aside, back to back
  for --overhead-rounds rounds, each in turn first: the median.

Usage: bench/cluster.py [--workers 1,2,4,8] [--matches-per-worker N]
    [--overhead-rounds N] [--parts scaling,overhead,coordinator]
A benchmark that prints numbers; make check never runs it.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests"))
os.environ.setdefault("top_builddir", TOP)
os.environ.setdefault("top_srcdir", TOP)
import harness  # noqa: E402
import pgharness  # noqa: E402

REFCTL = harness.REFCTL


def refctl(*a):
    p = subprocess.run([REFCTL] + list(a), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("refctl %s: %s" % (" ".join(a[:2]), p.stderr))
    return p.stdout


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    return (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")


def definition(d, name, matches, conc):
    rb = os.path.join(harness.BUILD, "bots", "randbot")
    path = os.path.join(d, name + ".tour")
    with open(path, "w") as f:
        f.write("name %s\nvariant classic2\nbot t1 spawn %s -s 1 -t 20\n"
                "bot t2 spawn %s -s 2 -t 20\nbots t1 t2\nmatches %d\n"
                "concurrency %d\n" % (name, rb, rb, matches, conc))
    return path


def psql(ci, sql):
    return subprocess.run(["psql", ci, "-XAtq", "-c", sql], check=True,
                          capture_output=True, text=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", default="1,2,4,8")
    ap.add_argument("--matches-per-worker", type=int, default=12)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--overhead-rounds", type=int, default=3)
    ap.add_argument("--parts", default="scaling,overhead,coordinator")
    args = ap.parse_args()
    parts = args.parts.split(",")
    ks = [int(x) for x in args.workers.split(",")]
    tmp = tempfile.mkdtemp(prefix="refd-bench-cluster.")
    os.chmod(tmp, 0o755)
    pg = pgharness.Postgres(tmp)
    ci = pg.conninfo()
    workers = []
    try:
        refctl("cluster", "init", ci)
        # a worker is its log's key: each run's refds are new ones, so
        # each has a name of its own (an old name's hello with a new
        # key is refused, and that worker would play nothing)
        def play(k, name):
            """k workers play k * matches-per-worker matches: their
            rate, refd CPU a match, and each worker's status figures."""
            n = k * args.matches_per_worker
            path = definition(tmp, name, n, args.concurrency)
            ws = []
            for i in range(k):
                d = os.path.join(tmp, "%s-w%d" % (name, i))
                os.makedirs(d)
                conf = os.path.join(d, "refd.conf")
                with open(conf, "w") as f:
                    f.write("cluster_batch_ms 4000\n")
                wname = "%s-w%d" % (name, i)
                out = refctl("cluster", "add-worker", ci, wname).split()
                cred = pg.conninfo(user=out[out.index("user") + 1],
                                   password=out[out.index("password") + 1])
                ws.append(harness.Refd(d, extra=[
                    "-f", conf, "--cluster", cred, "--worker", wname]))
            workers[:] = ws
            c0 = {r.proc.pid: cpu_s(r.proc.pid) for r in ws}
            refctl("cluster", "submit", ci, path, "--lease-ms", "20000")
            while "running" in refctl("cluster", "status", ci,
                                      name).split("\n")[0]:
                time.sleep(0.2)
            span = float(psql(ci, "SELECT extract(epoch FROM "
                              "max(r.reported) - min(l.taken)) FROM "
                              "refd.results r JOIN refd.leases l ON "
                              "l.tid = r.tid JOIN refd.tournaments t ON "
                              "t.id = r.tid WHERE t.name = '%s'" % name))
            used = sum(cpu_s(r.proc.pid) - c0[r.proc.pid] for r in ws)
            q = []
            for r in ws:
                st = r.must("status")
                q.append([int(re.search(r"%s (\d+)" % key, st).group(1))
                          for key in ("cluster_queries",
                                      "cluster_query_p99_us",
                                      "loop_lag_max_us",
                                      "cluster_libpq_max_us",
                                      "cluster_reported")])
            for r in ws:
                r.stop()
            workers[:] = []
            return n / span, used / n, q

        def lone(name):
            """The same matches on a lone refd: its CPU a match."""
            n = args.matches_per_worker
            path = definition(tmp, name, n, args.concurrency)
            d = os.path.join(tmp, name)
            os.makedirs(d)
            r = harness.Refd(d)
            c0 = cpu_s(r.proc.pid)
            ok, tid = r.ctl("tournament_start", path)
            r.must("tournament_wait", tid, timeout=900)
            used = (cpu_s(r.proc.pid) - c0) / n
            r.stop()
            return used

        rates = {}
        for k in ks if "scaling" in parts else []:
            rates[k], cpu, q = play(k, "scale%d" % k)
            idle = sum(1 for x in q if x[4] == 0)
            if idle:
                print("workers %d: %d of them played nothing" % (k, idle))
            print("workers %d: %d matches, %.3f matches/s, %.0f%% of "
                  "linear; refd CPU %.1f ms a match; queries %d, p99 "
                  "%.1f ms (worst worker); loop lag at most %.1f ms, "
                  "libpq's longest call %.1f ms" % (
                      k, k * args.matches_per_worker, rates[k],
                      100 * rates[k] / (k * rates[ks[0]] / ks[0]),
                      1000 * cpu, sum(x[0] for x in q),
                      max(x[1] for x in q) / 1000,
                      max(x[2] for x in q) / 1000,
                      max(x[3] for x in q) / 1000), flush=True)
        # one worker against a lone refd on the same matches, back to
        # back, in turn first, for rounds: the machine's drift between
        # two runs is as large as what is measured
        ratios = []
        for i in range(args.overhead_rounds if "overhead" in parts else 0):
            if i % 2 == 0:
                wcpu = play(1, "over%d" % i)[1]
                lcpu = lone("lone%d" % i)
            else:
                lcpu = lone("lone%d" % i)
                wcpu = play(1, "over%d" % i)[1]
            ratios.append(wcpu / lcpu - 1)
            print("overhead, round %d: a worker's refd %.1f ms of CPU a "
                  "match, a lone refd %.1f ms: %+.1f%%" % (
                      i + 1, 1000 * wcpu, 1000 * lcpu, 100 * ratios[-1]),
                  flush=True)
        if ratios:
            ratios.sort()
            print("overhead: median of %d rounds %+.1f%% (from %+.1f%% to "
                  "%+.1f%%)" % (len(ratios), 100 * ratios[len(ratios) // 2],
                                100 * ratios[0], 100 * ratios[-1]),
                  flush=True)
        if "coordinator" not in parts:
            return
        # the coordinator alone: lease and report, as workers, pgbench
        path = os.path.join(tmp, "big.tour")
        with open(path, "w") as f:
            f.write("name big\nvariant classic2\nbot t1 spawn %s\nbot t2 "
                    "spawn %s\nbots t1 t2\nmatches 200000\n" % (
                        os.path.join(harness.BUILD, "bots", "randbot"),
                        os.path.join(harness.BUILD, "bots", "heurbot")))
        refctl("cluster", "submit", ci, path, "--lease-ms", "600000")
        tid = psql(ci, "SELECT id FROM refd.tournaments WHERE name = 'big'")
        idents = psql(ci, "SELECT string_agg(name || '=' || ident, ' ' "
                      "ORDER BY idx) FROM refd.bots WHERE tid = %s" % tid)
        script = os.path.join(tmp, "op.sql")
        with open(script, "w") as f:
            f.write("SELECT l_lease, l_slot FROM refd.lease(%s, '%s', 1) "
                    "\\gset\nSELECT refd.report(:l_lease, :l_slot, 1, "
                    "'r1 w0 1,0 0,1 0,0 0', 1, '%s', '%s', "
                    "'t1 0/0*35,1*4,2*1 0/0*38,1*2');\n" % (
                        tid, idents, "0" * 64, "0" * 128))
        cinfos = []
        for i in range(8):
            w = refctl("cluster", "add-worker", ci, "c%d" % i).split()
            cinfos.append(pg.conninfo(
                user=w[w.index("user") + 1],
                password=w[w.index("password") + 1]))
        logdir = os.path.join(tmp, "pgbench")
        os.makedirs(logdir)
        os.chmod(logdir, 0o777)
        env = dict(os.environ, PGPASSWORD="")
        out = []
        t0 = time.time()
        procs = []
        for i in range(8):
            procs.append(subprocess.Popen(
                [os.path.join(pg.bin, "pgbench"), "-n", "-f", script,
                 "-T", "10", "-c", "1", "-r", "-l", "--log-prefix",
                 os.path.join(logdir, "c%d" % i), cinfos[i]],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True, env=env, cwd=logdir))
        for p in procs:
            out.append(p.communicate()[0])
        span = time.time() - t0
        lat = []
        for name in os.listdir(logdir):
            with open(os.path.join(logdir, name)) as f:
                for line in f:
                    lat.append(int(line.split()[2]))
        lat.sort()
        done = int(psql(ci, "SELECT count(*) FROM refd.results WHERE tid "
                        "= %s" % tid))
        if lat:
            print("coordinator: %d lease+report pairs by 8 workers in "
                  "%.1f s: %.0f operations/s; a pair's latency mean %.1f "
                  "ms, p99 %.1f ms" % (
                      done, span, 2 * done / span,
                      sum(lat) / len(lat) / 1000,
                      lat[(99 * len(lat) + 99) // 100 - 1] / 1000))
        else:
            print("coordinator: pgbench failed:\n" + "".join(out))
    finally:
        for r in workers:
            r.stop()
        pg.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
