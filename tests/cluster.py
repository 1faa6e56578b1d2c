#!/usr/bin/env python3
"""cluster.py: one tournament played by many refd workers through a real
PostgreSQL (refd-cluster(7)), against the same tournament on one refd.

Each test starts its own PostgreSQL server (pgharness.py): initdb into a
temporary directory, a Unix socket there and no TCP, scram-sha-256,
stopped by its pid at the end.  Workers are separate refd processes.
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

REFCTL = harness.REFCTL
SEED = "cd" * 32


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
        for r in self.workers.values():
            r.stop()
        self.pg.stop()


def standings_part(text):
    """The standings from their table on, without thinking times (which
    are each machine's own)."""
    text = text[text.index("rank "):]
    return re.sub(r"\nthinking \(ms\)[^\n]*\n(?:[^\n]+\n)*", "", text)


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
    finally:
        cl.stop()
    one = one_machine(tmp, path)
    assert standings_part(one) == standings_part(cl_text), \
        "one machine:\n%s\ncluster:\n%s" % (one, cl_text)


TESTS = [test_same_standings]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-cluster.")
    harness.finish(*harness.run_tests(TESTS, (tmp,)), tmp)


if __name__ == "__main__":
    main()
