#!/usr/bin/env python3
"""cluster_ir.py: what a cluster's worker spends on the cluster, per
match, in instructions (valgrind's callgrind), against a lone refd
playing the same matches: instruction counts hold steady on a loaded
machine where CPU times drift by more than what is measured.

The same tournament file (classic2, the deterministic bots/randbot with
fixed seeds, a fixed master seed, so the same deals and the same moves)
is played twice for each size:

- (a) by a lone refd, refctl tournament run FILE, then refctl
  tournament wait (not run --wait, whose progress and standings refd
  would compute for it: no match's cost);
- (b) by one refd worker (refd-cluster(7)) against a PostgreSQL server
  this script starts in a temporary directory (initdb, a Unix socket
  there and no TCP, stopped by its pid; tests/pgharness.py).

refd alone runs under callgrind (--trace-children=no: the bots and
PostgreSQL run at full speed, outside valgrind).  Each size's totals
include refd's start and end; the difference between two sizes, N and
2N matches, divided by N, is what one more match costs, start-up and
shutdown cancelled: that is the figure compared.  Under callgrind refd
runs some 50 times slower, so what the worker does by the clock (its
100 ms tick, its look for work every second) weighs some 50 times more
a match than at speed: the cluster functions' own counts are printed
too (callgrind_annotate, inclusive), with how many ticks and queries
there were, so that the share the clock adds can be read off.

Usage: bench/cluster_ir.py [--matches N] [--concurrency C] [--keep]
A benchmark that prints numbers; make check never runs it.
"""
import argparse
import os
import re
import shutil
import signal
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

REFD = harness.REFD
REFCTL = harness.REFCTL
SEED = "5eed" * 16


def refctl(*a):
    p = subprocess.run([REFCTL] + list(a), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("refctl %s: %s" % (" ".join(a[:3]), p.stderr))
    return p.stdout


def definition(d, name, matches, conc):
    rb = os.path.join(harness.BUILD, "bots", "randbot")
    path = os.path.join(d, name + ".tour")
    with open(path, "w") as f:
        f.write("name %s\nvariant classic2\nbot r1 spawn %s -s 1\n"
                "bot r2 spawn %s -s 2\nbots r1 r2\nmatches %d\n"
                "concurrency %d\nseed %s\n" % (name, rb, rb, matches, conc,
                                               SEED))
    return path


class Grind:
    """A refd under callgrind in a directory of its own."""

    def __init__(self, d, extra=()):
        self.dir = d
        os.makedirs(d)
        self.sock = os.path.join(d, "ctl.sock")
        self.err = open(os.path.join(d, "refd.err"), "w")
        self.proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--trace-children=no",
             "--callgrind-out-file=" + os.path.join(d, "cg.%p"), REFD,
             "-D", os.path.join(d, "log.db"), "-c", self.sock, "-L", d,
             "-m", "60000"] + list(extra), stdin=subprocess.DEVNULL,
            stderr=self.err)
        for _ in range(6000):
            if os.path.exists(self.sock):
                break
            if self.proc.poll() is not None:
                raise RuntimeError("refd exited: see %s" % d)
            time.sleep(0.05)
        else:
            raise RuntimeError("refd did not start")

    def stop(self):
        """SIGTERM, as the shutdown command; callgrind writes its counts
        at the exit.  Returns the counts' file."""
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(600)
        self.err.close()
        return os.path.join(self.dir, "cg.%d" % self.proc.pid)


def totals(path):
    for line in open(path):
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError("%s: no totals" % path)


def inclusive(path, names):
    """Inclusive instructions of each function named."""
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes",
                          "--threshold=100", path], capture_output=True,
                         text=True).stdout
    out = dict.fromkeys(names, 0)
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+\S*?:?"
                     r"([A-Za-z_][A-Za-z_0-9]*) \[", line)
        if m and m.group(2) in out and out[m.group(2)] == 0:
            out[m.group(2)] = int(m.group(1).replace(",", ""))
    return out


def calls(path, name):
    """How many times name was called: the calls= lines after a cfn= of
    it (callgrind's format names a function once, then by its number)."""
    names = {}
    n = 0
    cur = None
    for line in open(path):
        m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line)
        if m:
            if m.group(2) is not None:
                names[m.group(1)] = m.group(2).strip()
            cur = names.get(m.group(1)) if line.startswith("cfn") else None
        elif line.startswith("calls=") and cur == name:
            n += int(line[6:].split()[0])
    return n


def conf_file(tmp, name, text):
    path = os.path.join(tmp, name + ".conf")
    with open(path, "w") as f:
        f.write(text)
    return path


def lone(tmp, name, n, conc, commit_ms):
    path = definition(tmp, name, n, conc)
    conf = conf_file(tmp, name, "commit_ms %d\n" % commit_ms)
    r = Grind(os.path.join(tmp, name), ["-f", conf])
    try:
        # started, then waited for without asking its progress: the
        # standings refctl run --wait asks refd for are no match's cost
        tid = refctl("-c", r.sock, "tournament", "run", path).split()[1]
        refctl("-c", r.sock, "tournament", "wait", tid)
    finally:
        out = r.stop()
    return out


def worker(tmp, pg, ci, name, n, conc, commit_ms):
    path = definition(tmp, name, n, conc)
    out = refctl("cluster", "add-worker", ci, name).split()
    cred = pg.conninfo(user=out[out.index("user") + 1],
                       password=out[out.index("password") + 1])
    refctl("cluster", "submit", ci, path, "--lease-ms", "3600000")
    # one lease for the whole tournament: no heartbeat falls due
    conf = conf_file(tmp, name, "commit_ms %d\ncluster_batch_ms 3600000\n"
                     % commit_ms)
    r = Grind(os.path.join(tmp, name), ["-f", conf, "--cluster", cred,
                                        "--worker", name])
    try:
        while refctl("cluster", "status", ci, name).split("\n")[0].split()[
                -1] == "running":
            time.sleep(0.5)
    finally:
        out = r.stop()
    return out


# the cluster's own code in a worker, inclusive: each match read back
# and its report built; libpq driven in the loop (the queries' I/O and
# their answers); what the tick asks the database
PARTS = (("reading back, record and times", ("worker_match_done",)),
         ("libpq I/O and answers", ("pg_io", "pg_deliver", "pg_timed")),
         ("queries asked", ("worker_ask",)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--commit-ms", type=int, default=1000)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("cluster_ir: no valgrind")
    tmp = tempfile.mkdtemp(prefix="refd-bench-cluster-ir.")
    os.chmod(tmp, 0o755)
    pg = pgharness.Postgres(tmp)
    ci = pg.conninfo()
    n = args.matches
    ratios = []
    cm = args.commit_ms
    try:
        refctl("cluster", "init", ci)
        for rnd in range(args.rounds):
            ir, files, commits, part = {}, {}, {}, {}
            for k in (n, 2 * n):
                files["lone", k] = lone(tmp, "lone%d-%d" % (rnd, k), k,
                                        args.concurrency, cm)
                files["worker", k] = worker(tmp, pg, ci, "worker%d-%d" % (
                    rnd, k), k, args.concurrency, cm)
                for who in ("lone", "worker"):
                    ir[who, k] = totals(files[who, k])
                    commits[who, k] = calls(files[who, k],
                                            "db_group_commit")
                inc = inclusive(files["worker", k],
                                [f for _, fs in PARTS for f in fs])
                for label, fs in PARTS:
                    part[label, k] = sum(inc[f] for f in fs)
            per = {w: (ir[w, 2 * n] - ir[w, n]) / n
                   for w in ("lone", "worker")}
            ratios.append(per["worker"] / per["lone"] - 1)
            print("round %d: lone refd %d and %d instructions for %d and "
                  "%d matches (%d and %d commits); worker %d and %d (%d "
                  "and %d commits)" % (
                      rnd + 1, ir["lone", n], ir["lone", 2 * n], n, 2 * n,
                      commits["lone", n], commits["lone", 2 * n],
                      ir["worker", n], ir["worker", 2 * n],
                      commits["worker", n], commits["worker", 2 * n]))
            print("round %d: a match: lone refd %.0f instructions, worker "
                  "%.0f: %+.2f%%" % (rnd + 1, per["lone"], per["worker"],
                                      100 * ratios[-1]))
            own = 0
            for label, _ in PARTS:
                x = (part[label, 2 * n] - part[label, n]) / n
                own += x
                print("round %d: the worker's %s: %.0f instructions a "
                      "match (%.2f%% of the lone refd's match)" % (
                          rnd + 1, label, x, 100 * x / per["lone"]))
            print("round %d: the cluster's own code, those together: "
                  "%.0f instructions a match, %.2f%%" % (
                      rnd + 1, own, 100 * own / per["lone"]), flush=True)
        ratios.sort()
        print("overhead: median of %d rounds %+.2f%% instructions a match "
              "(from %+.2f%% to %+.2f%%)" % (
                  len(ratios), 100 * ratios[len(ratios) // 2],
                  100 * ratios[0], 100 * ratios[-1]))
    finally:
        pg.stop()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept %s" % tmp)


if __name__ == "__main__":
    main()
