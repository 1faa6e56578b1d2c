#!/usr/bin/env python3
"""bench/run.py: build refd with -O2 and run its whole benchmark suite.

scripts/bench runs it:

    scripts/bench [-o FILE] [--no-build] [--quick]

Measures, all in one run so that every ratio compares numbers taken on
the same machine minutes apart (see PERFORMANCE.md for what each means):

  1. libbriscola random playouts, against the inline baseline;
  2. the floor: raw request/answer round trips between two processes
     (bench/floor) over pipes, Unix socketpairs and loopback TCP;
  3. refd's time per play, one match at a time, spawned and remote bots;
  4. refd's throughput with 1, 2, 8 and 64 concurrent matches;
  5. what the SQLite log costs (-D :memory: against a file) and how fast
     it grows;
  6. scale: 1,000 concurrent joker3 matches on 3,000 TCP seats;
  7. refd's own cost per play, sequential: system calls (strace -c -f)
     and instructions (callgrind), when strace and valgrind are there.

Two more, run only when asked (they are not in the table above):

  scripts/bench --scale   section 6 alone (1,000 matches, SCALE_RUNS times);
  scripts/bench --flat [N]   refd's RSS sampled over N (default 100,000)
      finished one-deal joker3 matches, FLAT_K at a time on TCP seats,
      and whether it stays flat: several minutes.

Every figure is the median of REPS runs with its minimum and maximum.
Prints a table and writes it as JSON (default bench/results.json).
Needs Linux (/proc), python3 and what scripts/setup installs.
"""
import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPS = 3
VARIANT_PLAYS = 39          # cards played in one joker3 deal
SEATS = 3                   # joker3
SPAWN_FLOOR = "pipe"        # the floor's channel for spawned bots: refd's
CONCURRENCY = (1, 2, 8, 64)
NCPU = os.cpu_count() or 1
FLOOR_RT = 20000            # round trips per configuration, all pairs
PLAYOUT_DEALS = 200000      # deals per variant and loop, per run
SINGLE_TARGET = 60          # match points of the one-at-a-time matches
WINDOW_S = 2.0              # a throughput window
WARMUP_S = 0.5              # before the first window
SCALE_MATCHES = 1000
SCALE_TARGET = 5            # shorter matches, so that 1,000 fit in time
SCALE_RUNS = 3
STATUS_EVERY_S = 0.01       # control-socket probe interval under load
FLAT_MATCHES = 100000       # --flat: finished matches
FLAT_K = 64                 # --flat: concurrent matches
FLAT_OPTS = ("deal_cap=1",)  # --flat: one deal a match, to run many
FLAT_SAMPLES = 20           # --flat: RSS read this many times over the run
FLAT_LIMIT_KIB = 1024       # --flat: flat if no more growth than this
FLAT_FROM = 2000            # --flat: growth measured from here at least
TOKEN = "bench-token-%d"
TOURNEY_MATCHES = 3000      # --tournament: matches of the gauntlet
TOURNEY_K = 4               # --tournament: matches at once
TOURNEY_POLL_S = 0.5        # --tournament: as refctl run --wait polls


def log(msg):
    """Progress on stderr, so stdout holds only the table."""
    print("bench: " + msg, file=sys.stderr, flush=True)


def summary(values):
    """Median, min and max of a list of runs."""
    v = sorted(values)
    return {"median": statistics.median(v), "min": v[0], "max": v[-1],
            "runs": v}


# ---------------------------------------------------------------- build

def configured_fast(top):
    """Is top configured for an optimised build without sanitizers?"""
    mk = os.path.join(top, "Makefile")
    if not os.path.exists(mk):
        return False
    text = open(mk).read()
    san = re.search(r"^SAN_CFLAGS = (.*)$", text, re.M)
    cflags = re.search(r"^CFLAGS = (.*)$", text, re.M)
    return (san is not None and san.group(1).strip() == "" and
            cflags is not None and "-O2" in cflags.group(1).split())


def build(no_build):
    """Build in the tree if it is an -O2 build, else in a private copy."""
    jobs = "-j%d" % (os.cpu_count() or 2)
    if no_build:
        return TOP
    if not os.path.exists(os.path.join(TOP, "Makefile")):
        log("configuring the tree (scripts/setup)")
        subprocess.run([os.path.join(TOP, "scripts", "setup")], check=True)
    if configured_fast(TOP):
        log("building in the tree (-O2, no sanitizers)")
        subprocess.run(["make", "-s", jobs], cwd=TOP, check=True,
                       stdout=subprocess.DEVNULL)
        return TOP
    # the tree holds a sanitizer or debug build: leave it alone
    out = os.path.join(tempfile.gettempdir(), "refd-bench-build")
    log("the tree is not an -O2 build: building a copy in " + out)
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"],
                           cwd=TOP, check=True, capture_output=True,
                           text=True).stdout.split("\n")
    os.makedirs(out, exist_ok=True)
    for f in files:
        if f and os.path.isfile(os.path.join(TOP, f)):
            dst = os.path.join(out, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(TOP, f), dst)
    if not os.path.exists(os.path.join(out, "Makefile")):
        subprocess.run(["autoreconf", "-fi"], cwd=out, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["./configure", "-q", "CFLAGS=-g -O2"], cwd=out,
                       check=True)
    subprocess.run(["make", "-s", jobs], cwd=out, check=True,
                   stdout=subprocess.DEVNULL)
    return out


# --------------------------------------------------------------- /proc

def proc_cpu_ns(pid):
    """CPU time of every thread of pid, in ns (schedstat, else stat)."""
    total = 0
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                total += int(f.read().split()[0])
        if total > 0:
            return total
    except OSError:
        pass
    return proc_stat_ticks(pid, 13, 14) * 1e9 / os.sysconf("SC_CLK_TCK")


def proc_stat_ticks(pid, *fields):
    """Sum of fields of /proc/pid/stat (0-based, after the command)."""
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return sum(int(rest[i - 2]) for i in fields)


def machine_busy_ns():
    """CPU time the whole machine spent busy (every CPU, every process,
    the kernel's own threads too; not idle, iowait or steal), in ns."""
    with open("/proc/stat") as f:
        w = f.readline().split()
    # cpu user nice system idle iowait irq softirq steal ...
    busy = sum(int(w[i]) for i in (1, 2, 3, 6, 7))
    return busy * 1e9 / os.sysconf("SC_CLK_TCK")


def proc_children_cpu_s(pid):
    """CPU seconds of the children pid has reaped (cutime + cstime)."""
    return proc_stat_ticks(pid, 15, 16) / os.sysconf("SC_CLK_TCK")


def proc_mem_kib(pid):
    """VmRSS and VmHWM of pid, in KiB."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0])
    return out


# ---------------------------------------------------------------- refd

class Ctl:
    """One control connection; commands may be pipelined."""

    def __init__(self, path, timeout=120):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.buf = b""

    def send(self, *words):
        self.s.sendall(("1 " + " ".join(words) + "\n").encode())

    def answer(self):
        """The next answer: (ok, text)."""
        while b"\n\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise RuntimeError("refd closed the control socket")
            self.buf += chunk
        ans, self.buf = self.buf.split(b"\n\n", 1)
        text = ans.decode()
        return text.startswith("="), text[2:].strip()

    def cmd(self, *words):
        self.send(*words)
        ok, text = self.answer()
        if not ok:
            raise RuntimeError("%s: %s" % (" ".join(words), text))
        return text

    def close(self):
        self.s.close()


class Refd:
    """A refd of the build in a directory of its own."""

    def __init__(self, build, workdir, db=None, listen=False, wrap=(),
                 extra_conf="", extra=()):
        self.dir = tempfile.mkdtemp(prefix="refd-", dir=workdir)
        self.db = db or os.path.join(self.dir, "log.db")
        self.sock = os.path.join(self.dir, "ctl.sock")
        self.errpath = os.path.join(self.dir, "refd.err")
        self.port = None
        args = [os.path.join(build, "refd", "refd"), "-D", self.db,
                "-c", self.sock, "-m", "5000", "-s", "10000"] + list(extra)
        if listen:
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
            s.close()
            args += ["-l", "127.0.0.1:%d" % self.port]
            # thousands of bots from one address, all connecting at once
            conf = os.path.join(self.dir, "refd.conf")
            with open(conf, "w") as f:
                f.write("max_connections 100000\nmax_unauthenticated "
                        "100000\nmax_per_address 100000\n" + extra_conf)
            args += ["-f", conf]
        env = None
        self.args = args
        self.err = open(self.errpath, "w")
        self.proc = subprocess.Popen(list(wrap) + args,
                                     stdin=subprocess.DEVNULL,
                                     stderr=self.err, env=env)
        self.pid = self.proc.pid
        for _ in range(3000 if wrap else 500):
            try:
                c = socket.socket(socket.AF_UNIX)
                c.connect(self.sock)
                c.close()
                break
            except OSError:
                time.sleep(0.01)
        else:
            raise RuntimeError("refd did not start")
        self.ctl = Ctl(self.sock)

    def release(self):
        """Free the control connection: a driver may need all 64."""
        self.ctl.close()

    def refd_pid(self):
        """refd's own pid, under a wrapper (strace, valgrind) too."""
        if self.proc.args[0] == self.args[0]:
            return self.pid
        want = os.path.realpath(self.args[0])
        for p in os.listdir("/proc"):
            if p.isdigit():
                try:
                    with open("/proc/%s/stat" % p) as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                    if ppid == self.pid and \
                            os.path.realpath("/proc/%s/exe" % p) == want:
                        return int(p)
                except OSError:
                    pass
        return self.pid

    def stop(self):
        """Shut refd down (SIGTERM, as the shutdown command) and wait."""
        if self.proc.poll() is None:
            os.kill(self.refd_pid(), signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()

    def log_bytes(self):
        """Bytes of the log on disk: the database, its WAL and index."""
        return sum(os.path.getsize(self.db + x) for x in ("", "-wal")
                   if os.path.exists(self.db + x))


class Loadgen:
    """bench/loadgen serving conns connections for each of nbots bots."""

    def __init__(self, build, port, nbots, conns):
        args = [os.path.join(build, "bench", "loadgen"),
                "-a", "127.0.0.1:%d" % port]
        args += ["lg%d:%s:%d" % (i, TOKEN % i, conns) for i in range(nbots)]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError("loadgen: " + line)

    def stats(self):
        """Commands answered, genplays, CPU seconds so far."""
        self.proc.send_signal(signal.SIGUSR1)
        return self._parse(self.proc.stdout.readline())

    def _parse(self, line):
        kv = dict(w.split("=") for w in line.split()[1:])
        return {"answered": int(kv["answered"]),
                "genplay": int(kv["genplay"]),
                "closed": int(kv["closed"]),
                "cpu_s": (int(kv["utime_us"]) + int(kv["stime_us"])) / 1e6}

    def stop(self):
        self.proc.stdin.close()
        out = self.proc.stdout.read()
        self.proc.wait()
        for line in out.splitlines():
            if line.startswith("done"):
                return self._parse(line)
        return None


def add_bots(r, build, transport):
    """Three bots for joker3: randbot spawned, or loadgen's remote bots."""
    names = []
    for i in range(SEATS):
        if transport == "spawn":
            name = "rb%d" % i
            r.ctl.cmd("bot_add", name, "spawn",
                      os.path.join(build, "bots", "randbot"))
        else:
            name = "lg%d" % i
            r.ctl.cmd("bot_add", name, "remote", TOKEN % i)
        names.append(name)
    return names


class Driver:
    """k control connections, each starting a match when its last ends."""

    def __init__(self, r, bots, k, opts=(), limit=None):
        self.r, self.bots, self.opts = r, bots, list(opts)
        self.limit = limit
        self.started = 0
        self.finished = 0
        self.ids = []
        self.stopping = False
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._worker, daemon=True)
                        for _ in range(k)]
        for t in self.threads:
            t.start()

    def _worker(self):
        c = Ctl(self.r.sock, timeout=600)
        while True:
            with self.lock:
                if self.stopping or (self.limit is not None and
                                     self.started >= self.limit):
                    break
                self.started += 1
            mid = c.cmd("match_start", "joker3", *self.bots, *self.opts)
            with self.lock:
                self.ids.append(int(mid))
            c.cmd("match_wait", mid)
            with self.lock:
                self.finished += 1
        c.close()

    def stop(self):
        with self.lock:
            self.stopping = True

    def join(self):
        for t in self.threads:
            t.join()


def db_counts(path):
    """Rows of the tables that count what matches did."""
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10)
    try:
        out = {}
        for t in ("plays", "tricks", "jokers", "deals", "deal_results",
                  "matches"):
            out[t] = con.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
        return out
    finally:
        con.close()


def messages(d):
    """Commands refd sent the bots for the rows in d (joker3, spawned).

    Each seat is told every play, trick, Joker, its draw after each
    trick but the last three of a deal, each deal's start and end, and
    per match name, version, match_start, match_end and quit; the seat
    in turn also gets one genplay per play."""
    per_seat = (d["plays"] + d["tricks"] + d["jokers"] +
                (d["tricks"] - 3 * d["deal_results"]) + d["deals"] +
                d["deal_results"] + 5 * d["matches"])
    return SEATS * per_seat + d["plays"]


# ------------------------------------------------------------ sections

def bench_playout(build):
    """1. random playouts per variant, against the inline baseline."""
    runs = {}
    for rep in range(REPS):
        out = subprocess.run([os.path.join(build, "bench", "playout"),
                              "-r", "1", "-n", str(PLAYOUT_DEALS)],
                             check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            w = line.split()
            if len(w) >= 9 and w[-1] in ("agree", "DIFFER") and \
                    w[0] != "variant":
                if w[-1] != "agree":
                    raise RuntimeError("playout: loops differ: " + line)
                r = runs.setdefault(w[0], {"api": [], "base": [],
                                           "ratio": []})
                r["api"].append(float(w[3]))
                r["base"].append(float(w[5]))
                r["ratio"].append(float(w[6]))
    return {v: {k: summary(x) for k, x in r.items()}
            for v, r in runs.items()}


# the figures of one floor run, in the order its "rep" line gives them
FLOOR_FIELDS = ("rt_per_s", "us_per_rt", "ref_cpu_us_per_rt",
                "bot_cpu_us_per_rt")


def floor_runs(build, t, p, cpus="any"):
    """REPS runs of bench/floor: lists of round trips/s, us per round
    trip, and the referees' and the bots' CPU us per round trip."""
    n = max(200, FLOOR_RT // p)
    out = subprocess.run([os.path.join(build, "bench", "floor"), "-t", t,
                          "-p", str(p), "-n", str(n), "-r", str(REPS),
                          "-c", cpus], check=True, capture_output=True,
                         text=True).stdout
    runs = {k: [] for k in FLOOR_FIELDS}
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == "rep":
            for k, v in zip(FLOOR_FIELDS, w[6:10]):
                runs[k].append(float(v))
    return runs, n



def bench_floor(build, before=None):
    """2. raw round trips per second, by transport and pairs.

    Run once before refd's figures and once after (before is the first
    run's result), and the runs pooled: the machine's load drifts, and
    the ratios should compare like with like.  Pairs of one are also
    timed on one CPU and across two, which differ tenfold here."""
    res = {}
    for t in ("pipe", "unix", "tcp"):
        for p in CONCURRENCY:
            key = "%s/%d" % (t, p)
            runs, n = floor_runs(build, t, p)
            if before is not None:
                for k in FLOOR_FIELDS:
                    runs[k] += before[key][k]["runs"]
            res[key] = {k: summary(v) for k, v in runs.items()}
            res[key]["roundtrips_per_pair"] = n
        if before is not None:
            for c in ("same", "split"):
                key = "%s/1/%s" % (t, c)
                runs, n = floor_runs(build, t, 1, c)
                res[key] = {k: summary(v) for k, v in runs.items()}
                res[key]["roundtrips_per_pair"] = n
    return res


def bench_single(build, workdir):
    """3. one match at a time: wall and CPU per play."""
    res = {}
    for transport in ("spawn", "tcp"):
        r = Refd(build, workdir, listen=transport == "tcp")
        lg = None
        try:
            bots = add_bots(r, build, transport)
            if transport == "tcp":
                lg = Loadgen(build, r.port, SEATS, 1)
            us, cpu, bot = [], [], []
            for rep in range(REPS):
                c0 = r.ctl
                before = db_counts(r.db)
                cpu0 = proc_cpu_ns(r.pid)
                kid0 = proc_children_cpu_s(r.pid)
                lg0 = lg.stats() if lg else None
                t0 = time.monotonic()
                mid = c0.cmd("match_start", "joker3", *bots,
                             "target=%d" % SINGLE_TARGET, "deal_cap=100000")
                c0.cmd("match_wait", mid)
                wall = time.monotonic() - t0
                cpu1 = proc_cpu_ns(r.pid)
                if lg:
                    bot_s = lg.stats()["cpu_s"] - lg0["cpu_s"]
                else:
                    time.sleep(0.3)     # let refd reap the bots
                    bot_s = proc_children_cpu_s(r.pid) - kid0
                plays = db_counts(r.db)["plays"] - before["plays"]
                us.append(wall / plays * 1e6)
                cpu.append((cpu1 - cpu0) / 1e3 / plays)
                bot.append(bot_s / plays * 1e6)
            res[transport] = {"us_per_play": summary(us),
                              "refd_cpu_us_per_play": summary(cpu),
                              "bots_cpu_us_per_play": summary(bot),
                              "plays_per_match": plays}
        finally:
            if lg:
                lg.stop()
            r.stop()
    return res


def throughput(build, workdir, transport, k, memory=False):
    """Plays/s, deals/s, messages/s and refd CPU/play, k matches running."""
    r = Refd(build, workdir, db=":memory:" if memory else None,
             listen=transport == "tcp")
    lg = None
    lag = None
    out = {"plays_per_s": [], "deals_per_s": [], "msgs_per_s": [],
           "refd_cpu_us_per_play": [], "refd_cpu_share": [],
           "others_cpu_us_per_play": [], "share_of_bots_ceiling": []}
    try:
        bots = add_bots(r, build, transport)
        if transport == "tcp":
            lg = Loadgen(build, r.port, SEATS, k)
        r.release()
        drv = Driver(r, bots, k)
        time.sleep(WARMUP_S)

        def sample():
            s = {"t": time.monotonic(), "cpu": proc_cpu_ns(r.pid),
                 "busy": machine_busy_ns()}
            if lg:
                st = lg.stats()
                s["plays"], s["msgs"] = st["genplay"], st["answered"]
            if not memory:
                s["db"] = db_counts(r.db)
                s["plays"] = s["db"]["plays"]
                if not lg:
                    s["msgs"] = messages(s["db"])
            return s
        a = sample()
        for rep in range(REPS):
            time.sleep(WINDOW_S)
            b = sample()
            dt = b["t"] - a["t"]
            plays = b["plays"] - a["plays"]
            if memory:
                deals = plays / VARIANT_PLAYS
            else:
                deals = (b["db"]["deal_results"] -
                         a["db"]["deal_results"])
            out["plays_per_s"].append(plays / dt)
            out["deals_per_s"].append(deals / dt)
            out["msgs_per_s"].append((b["msgs"] - a["msgs"]) / dt)
            out["refd_cpu_us_per_play"].append((b["cpu"] - a["cpu"]) /
                                               1e3 / max(plays, 1))
            out["refd_cpu_share"].append((b["cpu"] - a["cpu"]) / 1e9 / dt)
            # all the machine's CPU but refd's: the bots, their sandboxes'
            # start-up, this driver; if refd cost nothing, the cores
            # would allow ncpu / that plays a second
            others = max(b["busy"] - a["busy"] - (b["cpu"] - a["cpu"]), 0)
            per = others / 1e3 / max(plays, 1)
            out["others_cpu_us_per_play"].append(per)
            out["share_of_bots_ceiling"].append(
                plays / dt * per / 1e6 / NCPU if per > 0 else 0)
            a = sample()
        drv.stop()
        # the loop's worst delay since refd started: how long a match
        # or the control socket could wait on refd's other work (asked
        # once the driver's connections, up to refd's 64, are closed)
        drv.join()
        c = Ctl(r.sock)
        lag = re.search(r"loop_lag_max_us (\d+)", c.cmd("status"))
        c.close()
    finally:
        r.stop()       # aborts what still runs
        if lg:
            lg.stop()
    res = {key: summary(v) for key, v in out.items()}
    if lag:
        res["loop_lag_max_ms"] = int(lag.group(1)) / 1000
    if not memory:
        res["log_bytes"] = r.log_bytes()
        res["log_deals"] = db_counts(r.db)["deals"]
        res["log_bytes_per_deal"] = res["log_bytes"] / max(res["log_deals"],
                                                           1)
    return res


def sequential(build, workdir, matches, target, wrap=(), transport="tcp",
               conf="", attach=None):
    """matches joker3 matches one after another, refd under wrap; with
    attach, attach(pid) is called once the bots are in, and what it
    returns is called after the last match.

    Returns refd, its plays, refd's CPU ns (0 under a wrapper), wall s."""
    r = Refd(build, workdir, listen=transport == "tcp", wrap=wrap,
             extra_conf=conf)
    lg = None
    try:
        bots = add_bots(r, build, transport)
        if transport == "tcp":
            lg = Loadgen(build, r.port, SEATS, 1)
        before = db_counts(r.db)
        detach = attach(r.pid) if attach else None
        cpu0 = proc_cpu_ns(r.pid) if not wrap else 0
        t0 = time.monotonic()
        for _ in range(matches):
            mid = r.ctl.cmd("match_start", "joker3", *bots,
                            "target=%d" % target, "deal_cap=100000")
            r.ctl.cmd("match_wait", mid)
        wall = time.monotonic() - t0
        if detach:
            detach()
        cpu = proc_cpu_ns(r.pid) - cpu0 if not wrap else 0
        plays = db_counts(r.db)["plays"] - before["plays"]
    finally:
        if lg:
            lg.stop()
        r.stop()
    return r, plays, cpu, wall


def strace_counts(path):
    """strace -c's table: {syscall: calls}."""
    out = {}
    for line in open(path):
        w = line.split()
        if len(w) >= 5 and w[0][0].isdigit() and w[-1] != "total":
            # % time, seconds, usecs/call, calls, [errors], syscall
            out[w[-1]] = int(w[3])
    return out


# the system calls perf counts one by one (any other is in the total)
PERF_CALLS = ("write", "writev", "read", "readv", "recvmsg", "sendmsg",
              "epoll_wait", "epoll_pwait", "epoll_ctl", "timerfd_settime",
              "pwrite64", "pread64", "fcntl", "fdatasync", "newfstatat",
              "ioctl")


def perf_events():
    """The tracepoints perf counts system calls by, or None when perf or
    they are not there."""
    if shutil.which("perf") is None:
        return None
    events = ["raw_syscalls:sys_enter"] + ["syscalls:sys_enter_" + c
                                           for c in PERF_CALLS]
    probe = subprocess.run(["perf", "stat", "-x,", "-e", ",".join(events),
                            "true"], capture_output=True, text=True)
    return events if probe.returncode == 0 else None


def perf_attach(pid, out, events):
    """perf counting events in process pid (its threads too) into out;
    returns what stops it."""
    p = subprocess.Popen(["perf", "stat", "-x,", "-o", out, "-e",
                          ",".join(events), "-p", str(pid)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)         # perf attached before the first play

    def detach():
        p.send_signal(signal.SIGINT)
        p.wait(10)
    return detach


def perf_counts(out):
    """perf stat's file: all system calls, and {syscall: calls} of those
    counted by name."""
    total, calls = 0, {}
    for line in open(out):
        w = line.strip().split(",")
        if len(w) < 3 or not w[0].isdigit():
            continue
        if w[2] == "raw_syscalls:sys_enter":
            total = int(w[0])
        elif w[2].startswith("syscalls:sys_enter_") and int(w[0]) > 0:
            calls[w[2][len("syscalls:sys_enter_"):]] = int(w[0])
    return total, calls


def perf_syscalls(build, workdir, matches, target):
    """System calls per play at full speed: perf's tracepoints counted
    while refd runs the matches, with no tracer slowing it (strace does
    about 5 times, and then a commit window holds fewer plays).  None
    when perf or its tracepoints are not there."""
    events = perf_events()
    if events is None:
        return None
    out = os.path.join(workdir, "perf.txt")
    r, plays, _, _ = sequential(build, workdir, matches, target,
                                attach=lambda pid: perf_attach(pid, out,
                                                               events))
    total, calls = perf_counts(out)
    if total == 0:
        return None
    return syscalls_per_play("perf", plays, calls, total)


def syscalls_per_play(tool, plays, calls, total):
    """The result of bench_syscalls(): calls per play, by call."""
    return {"tool": tool, "plays": plays, "calls": calls,
            "per_play": total / plays,
            "by_call": {k: v / plays for k, v in sorted(
                calls.items(), key=lambda kv: -kv[1])}}


def bench_syscalls(build, workdir, matches=5, target=20):
    """System calls per play of refd over sequential tcp matches: perf
    at full speed if it can, else strace -c."""
    res = perf_syscalls(build, workdir, matches, target)
    if res is not None:
        return res
    if shutil.which("strace") is None:
        return None
    out = os.path.join(workdir, "strace.txt")
    r, plays, _, _ = sequential(build, workdir, matches, target,
                                wrap=("strace", "-c", "-f", "-o", out))
    for _ in range(100):
        if os.path.exists(out) and os.path.getsize(out) > 0:
            break
        time.sleep(0.05)
    calls = strace_counts(out)
    return syscalls_per_play("strace", plays, calls, sum(calls.values()))


def bench_callgrind(build, workdir, matches=1, target=20):
    """Instructions per play of refd (callgrind) over sequential matches."""
    if shutil.which("valgrind") is None:
        return None
    out = os.path.join(workdir, "callgrind.out")
    # refd runs about 50 times slower under callgrind: a commit_ms as
    # many times longer keeps as many plays in one commit as at speed
    # (the default's 25 ms times 40, the most refd takes)
    r, plays, _, _ = sequential(build, workdir, matches, target,
                                wrap=("valgrind", "--tool=callgrind",
                                      "--callgrind-out-file=" + out),
                                conf="commit_ms 1000\n")
    for _ in range(200):
        if os.path.exists(out) and os.path.getsize(out) > 0:
            break
        time.sleep(0.05)
    ir = loop = 0
    for line in open(out):
        if line.startswith("summary:") or line.startswith("totals:"):
            ir = int(line.split()[1])
    # the event loop's share: the plays, less start-up and shutdown
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                         capture_output=True, text=True).stdout
    for line in ann.splitlines():
        if line.rstrip().endswith(":event_base_loop [" + line.rsplit(
                "[", 1)[-1]) and "event_base_loop" in line:
            loop = int(line.split()[0].replace(",", ""))
            break
    return {"plays": plays, "instructions": ir, "per_play": ir / plays,
            "loop_per_play": loop / plays, "file": out}


def bench_throughput(build, workdir):
    """4. throughput at each concurrency, spawned and remote."""
    res = {}
    for transport in ("spawn", "tcp"):
        for k in CONCURRENCY:
            log("throughput %s k=%d" % (transport, k))
            res["%s/%d" % (transport, k)] = throughput(build, workdir,
                                                       transport, k)
    return res


def bench_log(build, workdir, thr):
    """5. the log's cost: the same load with -D :memory:."""
    res = {}
    for transport in ("spawn", "tcp"):
        key = "%s/8" % transport
        if transport == "spawn":
            # no DB to count from: spawned plays are counted from the log
            continue
        log("log cost %s k=8, -D :memory:" % transport)
        mem = throughput(build, workdir, transport, 8, memory=True)
        f = thr[key]["refd_cpu_us_per_play"]["median"]
        m = mem["refd_cpu_us_per_play"]["median"]
        res[transport] = {
            "file_cpu_us_per_play": thr[key]["refd_cpu_us_per_play"],
            "memory_cpu_us_per_play": mem["refd_cpu_us_per_play"],
            "file_plays_per_s": thr[key]["plays_per_s"],
            "memory_plays_per_s": mem["plays_per_s"],
            "log_share_of_cpu": (f - m) / f,
        }
    growth = [v["log_bytes_per_deal"] for v in thr.values()]
    res["bytes_per_deal"] = summary(growth)
    return res


def scale_run(build, workdir):
    """One run of 6: 1,000 matches on 3,000 TCP seats at once."""
    r = Refd(build, workdir, listen=True)
    lg = None
    try:
        bots = add_bots(r, build, "tcp")
        # warm up: fill SQLite's page cache, then measure refd idle
        warm = Loadgen(build, r.port, SEATS, 8)
        drv = Driver(r, bots, 8, limit=40)
        drv.join()
        warm.stop()
        time.sleep(0.5)
        base_kib = proc_mem_kib(r.pid)["VmRSS"]
        base_hwm = proc_mem_kib(r.pid)["VmHWM"]
        lg = Loadgen(build, r.port, SEATS, SCALE_MATCHES)
        conn_kib = proc_mem_kib(r.pid)["VmRSS"]
        before = db_counts(r.db)
        cpu0 = proc_cpu_ns(r.pid)
        t0 = time.monotonic()
        c = r.ctl
        for _ in range(SCALE_MATCHES):
            c.send("match_start", "joker3", *bots,
                   "target=%d" % SCALE_TARGET)
        ids = []
        for _ in range(SCALE_MATCHES):
            ok, text = c.answer()
            if not ok:
                raise RuntimeError("match_start: " + text)
            ids.append(int(text))
        started = time.monotonic() - t0
        probe = Ctl(r.sock)
        lat = []
        while True:
            t = time.monotonic()
            st = probe.cmd("status")
            lat.append(time.monotonic() - t)
            running = int(re.search(r"matches_running (\d+)", st).group(1))
            if running == 0:
                break
            time.sleep(STATUS_EVERY_S)
        wall = time.monotonic() - t0
        cpu = proc_cpu_ns(r.pid) - cpu0
        mem = proc_mem_kib(r.pid)
        probe.close()
        after = db_counts(r.db)
        lgs = lg.stats()
    finally:
        if lg:
            lg.stop()
        r.stop()
    con = sqlite3.connect("file:%s?mode=ro" % r.db, uri=True)
    q = ",".join(str(i) for i in ids)
    done = con.execute("SELECT count(*) FROM matches WHERE id IN (%s) AND "
                       "state = 'done'" % q).fetchone()[0]
    results = dict(con.execute("SELECT result, count(*) FROM matches "
                               "WHERE id IN (%s) GROUP BY result" % q))
    con.close()
    audit = subprocess.run([os.path.join(build, "refd", "refctl"), "audit",
                            "--db", r.db, "--all"], capture_output=True,
                           text=True)
    plays = after["plays"] - before["plays"]
    lat.sort()
    return {
        "wall_s": wall, "start_s": started, "plays": plays,
        "plays_per_s": plays / wall,
        "refd_cpu_us_per_play": cpu / 1e3 / plays,
        "baseline_rss_kib": base_kib, "warm_hwm_kib": base_hwm,
        "rss_with_3000_idle_seats_kib": conn_kib,
        "peak_rss_kib": mem["VmHWM"],
        "kib_per_match": (mem["VmHWM"] - base_kib) / SCALE_MATCHES,
        "status_samples": len(lat),
        "status_p99_ms": lat[min(len(lat) - 1, int(0.99 * len(lat)))] * 1e3,
        "status_max_ms": lat[-1] * 1e3,
        "matches_done": done, "results": results,
        "loadgen_closed": lgs["closed"],
        "audit_ok": audit.returncode == 0,
        "audit_tail": audit.stdout.strip().splitlines()[-1:] +
        audit.stderr.strip().splitlines()[-3:],
    }


def bench_scale(build, workdir):
    """6. scale, SCALE_RUNS times."""
    runs = []
    for i in range(SCALE_RUNS):
        log("scale run %d: %d matches, %d seats" % (i + 1, SCALE_MATCHES,
                                                    SEATS * SCALE_MATCHES))
        runs.append(scale_run(build, workdir))
    keys = ("plays_per_s", "refd_cpu_us_per_play", "peak_rss_kib",
            "kib_per_match", "status_p99_ms", "status_max_ms", "wall_s",
            "baseline_rss_kib", "rss_with_3000_idle_seats_kib")
    res = {k: summary([r[k] for r in runs]) for k in keys}
    res["runs"] = runs
    res["all_done"] = all(r["matches_done"] == SCALE_MATCHES for r in runs)
    res["audit_ok"] = all(r["audit_ok"] for r in runs)
    res["nothing_closed"] = all(r["loadgen_closed"] == 0 for r in runs)
    return res


def flat_run(build, workdir, total, k):
    """--flat: refd's RSS over total finished matches, k at a time."""
    r = Refd(build, workdir, listen=True)
    lg = None
    samples = []
    try:
        bots = add_bots(r, build, "tcp")
        lg = Loadgen(build, r.port, SEATS, k)
        r.release()             # the driver may need all 64
        t0 = time.monotonic()
        drv = Driver(r, bots, k, opts=FLAT_OPTS, limit=total)
        step = max(1, total // FLAT_SAMPLES)
        want = step
        while True:
            with drv.lock:
                done = drv.finished
            if done >= want or done >= total:
                mem = proc_mem_kib(r.pid)
                samples.append({"finished": done,
                                "s": time.monotonic() - t0,
                                "rss_kib": mem["VmRSS"],
                                "hwm_kib": mem["VmHWM"]})
                log("flat: %d matches finished, RSS %d KiB" %
                    (done, mem["VmRSS"]))
                want = (done // step + 1) * step
            if done >= total:
                break
            if not any(t.is_alive() for t in drv.threads):
                raise RuntimeError("flat: the driver stopped at %d" % done)
            time.sleep(0.2)
        drv.join()
        wall = time.monotonic() - t0
        c = Ctl(r.sock)
        st = c.cmd("status")
        listed = len(c.cmd("match_list").splitlines())
        c.close()
        lgs = lg.stats()
    finally:
        if lg:
            lg.stop()
        r.stop()
    counts = db_counts(r.db)
    # from the first sample at or past a tenth of the run (and past the
    # 1,000 finished matches refd keeps listed, keep_matches) to the last
    first = next(x for x in samples
                 if x["finished"] >= max(total // 10, FLAT_FROM))
    last = samples[-1]
    growth = last["rss_kib"] - first["rss_kib"]
    per_k = growth / max(1, (last["finished"] - first["finished"]) / 1000)
    return {"matches": total, "k": k, "opts": " ".join(FLAT_OPTS),
            "wall_s": wall, "matches_per_s": total / wall,
            "deals": counts["deals"], "plays": counts["plays"],
            "samples": samples, "first": first, "last": last,
            "growth_kib": growth, "kib_per_1000": per_k,
            "flat": growth <= FLAT_LIMIT_KIB,
            "loadgen_closed": lgs["closed"],
            "status": st.splitlines()[:4], "listed": listed}


def tournament_run(build, workdir, n, k=TOURNEY_K, poll=("progress",)):
    """A gauntlet of n one-deal joker3 matches, k at a time, with an SPRT
    that cannot decide, followed as refctl tournament run --wait does:
    a tournament_status (with the words poll), then a wait for the end
    of at most TOURNEY_POLL_S, and the standings at the end.  Returns its
    pace, refd's CPU, and what the standings and the progress cost to
    ask for at the end."""
    r = Refd(build, workdir, listen=True)
    lg = None
    try:
        for i in range(SEATS):
            r.ctl.cmd("bot_add", "lg%d" % i, "remote", TOKEN % i)
        lg = Loadgen(build, r.port, SEATS, k)
        path = os.path.join(r.dir, "g.tour")
        with open(path, "w") as f:
            f.write("variant joker3\nformat gauntlet\ncandidate lg0\n"
                    "bots lg1 lg2\nmatches %d\nconcurrency %d\n"
                    "option deal_cap=1\nsprt -1 1 0.000001 0.000001\n"
                    % (n, k))
        before = db_counts(r.db)
        cpu0 = proc_cpu_ns(r.pid)
        t0 = time.monotonic()
        tid = r.ctl.cmd("tournament_start", path)
        while True:
            st = r.ctl.cmd("tournament_status", tid, *poll)
            if st.split("\n")[0].split()[3] != "running":
                break
            try:
                r.ctl.cmd("tournament_wait", tid,
                          str(int(TOURNEY_POLL_S * 1000)))
            except RuntimeError:    # a build before timed waits
                time.sleep(TOURNEY_POLL_S)
        wall = time.monotonic() - t0
        cpu = proc_cpu_ns(r.pid) - cpu0
        plays = db_counts(r.db)["plays"] - before["plays"]
        ask = {}
        for name, words in (("standings_ms", ()), ("again_ms", ()),
                            ("progress_ms", ("progress",))):
            t = time.monotonic()
            try:
                r.ctl.cmd("tournament_status", tid, *words)
                ask[name] = (time.monotonic() - t) * 1000
            except RuntimeError:    # a build before "progress"
                ask[name] = None
    finally:
        if lg:
            lg.stop()
        r.stop()
    res = {"matches": n, "k": k, "poll": " ".join(poll) or "full",
           "plays": plays, "wall_s": wall, "plays_per_s": plays / wall,
           "refd_cpu_us_per_play": cpu / 1000 / plays}
    res.update(ask)
    return res


def table_tourney(t):
    return ["9. tournament: a gauntlet of %d one-deal joker3 matches, %d at "
            "a time, with an SPRT" % (t["matches"], t["k"]),
            "   followed by tournament_status %s and waits of %.1f s, as "
            "refctl run --wait does" % (t["poll"], TOURNEY_POLL_S),
            "   %.0f plays/s   refd CPU us/play %.1f   wall %.1f s" % (
                t["plays_per_s"], t["refd_cpu_us_per_play"], t["wall_s"]),
            "   at the end: the standings %.1f ms, asked again %.1f ms, the "
            "progress alone %.1f ms" % (t["standings_ms"], t["again_ms"],
                                        t["progress_ms"])]


def table_flat(f):
    """The --flat report."""
    L = ["8. flat memory: %d one-deal joker3 matches (%s), %d at a time, "
         "%d TCP seats" % (f["matches"], f["opts"], f["k"], SEATS * f["k"]),
         "   %.0f s, %.0f matches/s, %d deals, %d plays, connections lost: "
         "%d, matches still listed: %d" % (
             f["wall_s"], f["matches_per_s"], f["deals"], f["plays"],
             f["loadgen_closed"], f["listed"]),
         "   finished   RSS KiB   peak KiB"]
    for x in f["samples"]:
        L.append("   %8d   %7d   %8d" % (x["finished"], x["rss_kib"],
                                         x["hwm_kib"]))
    L.append("   RSS at %d: %d KiB, at %d: %d KiB: %+d KiB (%+.1f KiB per "
             "1,000 matches): %s" % (
                 f["first"]["finished"], f["first"]["rss_kib"],
                 f["last"]["finished"], f["last"]["rss_kib"],
                 f["growth_kib"], f["kib_per_1000"],
                 "flat" if f["flat"] else "NOT FLAT (limit +%d KiB)" %
                 FLAT_LIMIT_KIB))
    return L


# --------------------------------------------------------------- report

def targets(fl, single, thr, logc, scale, cost):
    """The issue's targets, each with the numbers that decide it."""
    out = []
    sc = cost.get("syscalls")
    if sc:
        out.append({"target": "system calls per play, sequential",
                    "value": sc["per_play"], "limit": 8,
                    "met": sc["per_play"] <= 8})
    for key in ("tcp/1", "tcp/64"):
        v = thr[key]["refd_cpu_us_per_play"]["median"]
        # what a referee that only reads and writes spends on a round
        # trip: the part of the limit no referee can go under
        fc = fl[key]["ref_cpu_us_per_rt"]["median"]
        out.append({"target": "refd cpu us/play %s <= 2x the floor's" %
                    key.replace("/", " k="),
                    "value": v, "limit": 2 * fc, "met": v <= 2 * fc,
                    "note": "the floor referee's cpu per round trip: "
                            "%.1f (ratio %.2f)" % (fc, v / fc)})
    for transport, ft in (("spawn", SPAWN_FLOOR), ("tcp", "tcp")):
        for k in (8, 64):
            m = thr["%s/%d" % (transport, k)]["msgs_per_s"]["median"]
            f = fl["%s/%d" % (ft, k)]["rt_per_s"]["median"]
            out.append({"target": "throughput %s k=%d >= 50%% of floor"
                        % (transport, k), "value": m / f, "limit": 0.5,
                        "met": m / f >= 0.5})
    if "others_cpu_us_per_play" in thr["spawn/8"]:
        # the bots' own CPU a play: the least the rest of the machine was
        # seen to spend a play, one match alone or 8 at once.  What it
        # spends beyond that at k=8 is contention (wake-ups, preemption),
        # and a referee that caused more of it must not score better
        o8 = thr["spawn/8"]["others_cpu_us_per_play"]["median"]
        o1 = thr.get("spawn/1", {}).get("others_cpu_us_per_play",
                                        {}).get("median", o8)
        own = min(o1, o8)
        v = thr["spawn/8"]["plays_per_s"]["median"] * own / 1e6 / NCPU
        out.append({"target": "spawn k=8 >= 60% of ncpu / bots' CPU a play",
                    "value": v, "limit": 0.6, "met": v >= 0.6,
                    "note": "the bots' own CPU a play: %.1f us (the rest "
                            "of the machine's: %.1f alone, %.1f at k=8)"
                            % (own, o1, o8)})
    for transport, ft in (("spawn", SPAWN_FLOOR), ("tcp", "tcp")):
        s = single[transport]
        rt = fl["%s/1" % ft]["us_per_rt"]["median"]
        bound = 2 * rt + s["bots_cpu_us_per_play"]["median"]
        v = s["us_per_play"]["median"]
        out.append({"target": "one match %s: us/play <= 2 rt + bots"
                    % transport, "value": v, "limit": bound,
                    "met": v <= bound})
    out.append({"target": "1,000 matches complete, audit passes",
                "value": "%s/%s" % (scale["all_done"], scale["audit_ok"]),
                "limit": "True/True",
                "met": scale["all_done"] and scale["audit_ok"]})
    v = scale["kib_per_match"]["median"]
    out.append({"target": "KiB per match beyond the page cache",
                "value": v, "limit": 64, "met": v <= 64})
    v = scale["status_p99_ms"]["median"]
    out.append({"target": "control socket p99 ms under load", "value": v,
                "limit": 50, "met": v < 50})
    v = logc["tcp"]["log_share_of_cpu"]
    out.append({"target": "log share of refd CPU per play", "value": v,
                "limit": 0.25, "met": v <= 0.25})
    return out


def fmt(s, digits=0):
    """median [min-max] of a summary."""
    f = "%%.%df" % digits
    return (f + " [" + f + "-" + f + "]") % (s["median"], s["min"], s["max"])


def table(res):
    """The results as a text table."""
    L = []
    m = res["machine"]
    L.append("refd benchmark  %s  cores=%d  %s" % (m["date"], m["cores"],
                                                    m["cpu"]))
    L.append("every figure: median [min-max] of %d runs" % REPS)
    L.append("")
    L.append("1. libbriscola random playouts (deals/s, one core)")
    L.append("   %-9s %-30s %-30s %s" % ("variant", "api", "inline baseline",
                                          "ratio"))
    for v, r in res["playout"].items():
        L.append("   %-9s %-30s %-30s %s" % (v, fmt(r["api"]),
                                              fmt(r["base"]),
                                              fmt(r["ratio"], 2)))
    L.append("")
    L.append("2. floor: raw round trips/s, all pairs (us per round trip "
             "of one pair), and the CPU us")
    L.append("   one round trip costs the referee that does nothing else;"
             " %d runs, half before" % (2 * REPS))
    L.append("   refd's figures and half after")
    for t in ("pipe", "unix", "tcp"):
        for p in CONCURRENCY:
            r = res["floor"]["%s/%d" % (t, p)]
            L.append("   %-4s pairs=%-3d %-30s (%s us)  referee cpu %s"
                     % (t, p, fmt(r["rt_per_s"]), fmt(r["us_per_rt"], 1),
                        fmt(r["ref_cpu_us_per_rt"], 1)))
        for c, what in (("same", "one CPU"), ("split", "two CPUs")):
            r = res["floor"]["%s/1/%s" % (t, c)]
            L.append("   %-4s pairs=1 on %-8s %-22s (%s us)  referee cpu %s"
                     % (t, what, fmt(r["rt_per_s"]),
                        fmt(r["us_per_rt"], 1),
                        fmt(r["ref_cpu_us_per_rt"], 1)))
    L.append("")
    L.append("3. refd, one joker3 match at a time (target=%d)" %
             SINGLE_TARGET)
    for t, ft in (("spawn", SPAWN_FLOOR), ("tcp", "tcp")):
        r = res["single"][t]
        rt = res["floor"]["%s/1" % ft]["us_per_rt"]["median"]
        L.append("   %-5s us/play %-24s refd cpu us/play %-22s bots cpu "
                 "us/play %s" % (t, fmt(r["us_per_play"], 1),
                                 fmt(r["refd_cpu_us_per_play"], 1),
                                 fmt(r["bots_cpu_us_per_play"], 1)))
        L.append("         = %.1f raw %s round trips of %.1f us "
                 "(the floor per decision)" % (
                     r["us_per_play"]["median"] / rt, ft, rt))
        fc = res["floor"]["%s/1" % ft]["ref_cpu_us_per_rt"]["median"]
        L.append("         refd cpu = %.1f times the floor referee's cpu "
                 "per round trip, %.1f us" % (
                     r["refd_cpu_us_per_play"]["median"] / fc, fc))
    L.append("")
    L.append("4. refd throughput, k concurrent joker3 matches "
             "(%.1f s windows)" % WINDOW_S)
    L.append("   %-9s %-26s %-24s %-22s %-7s %s" % (
        "", "plays/s", "deals/s", "refd cpu us/play", "msgs/s",
        "of floor"))
    for t, ft in (("spawn", SPAWN_FLOOR), ("tcp", "tcp")):
        for k in CONCURRENCY:
            r = res["throughput"]["%s/%d" % (t, k)]
            f = res["floor"]["%s/%d" % (ft, k)]["rt_per_s"]["median"]
            L.append("   %-5s k=%-2d %-26s %-24s %-22s %-7.0f %.0f%%" % (
                t, k, fmt(r["plays_per_s"]), fmt(r["deals_per_s"], 1),
                fmt(r["refd_cpu_us_per_play"], 1),
                r["msgs_per_s"]["median"],
                100 * r["msgs_per_s"]["median"] / f))
    L.append("   the rest of the machine's CPU a play (bots, their sandboxes' "
             "start-up, the driver),")
    L.append("   plays/s as a share of what %d cores would allow were "
             "refd free, and the event loop's worst delay over the run:"
             % NCPU)
    for t in ("spawn", "tcp"):
        for k in CONCURRENCY:
            r = res["throughput"]["%s/%d" % (t, k)]
            if "others_cpu_us_per_play" not in r:
                continue
            L.append("   %-5s k=%-2d others %-24s %-5s loop's worst delay "
                     "%s" % (t, k, fmt(r["others_cpu_us_per_play"], 1) +
                             " us", "%.0f%%" % (100 * r["share_of_bots_"
                                                     "ceiling"]["median"]),
                             "%.1f ms" % r["loop_lag_max_ms"]
                             if "loop_lag_max_ms" in r else "-"))
    L.append("")
    lc = res["log"]
    L.append("5. the log (tcp, k=8): refd cpu us/play")
    L.append("   file %s   :memory: %s   log share %.0f%%" % (
        fmt(lc["tcp"]["file_cpu_us_per_play"], 1),
        fmt(lc["tcp"]["memory_cpu_us_per_play"], 1),
        100 * lc["tcp"]["log_share_of_cpu"]))
    L.append("   plays/s: file %s   :memory: %s" % (
        fmt(lc["tcp"]["file_plays_per_s"]),
        fmt(lc["tcp"]["memory_plays_per_s"])))
    L.append("   growth: %s bytes per deal (database + WAL after "
             "checkpoint)" % fmt(lc["bytes_per_deal"]))
    L.append("")
    sc = res["scale"]
    L.append("6. scale: %d concurrent joker3 matches (target=%d), %d TCP "
             "seats, one loadgen" % (SCALE_MATCHES, SCALE_TARGET,
                                     SEATS * SCALE_MATCHES))
    L.append("   plays/s %s   refd cpu us/play %s   wall s %s" % (
        fmt(sc["plays_per_s"]), fmt(sc["refd_cpu_us_per_play"], 1),
        fmt(sc["wall_s"], 1)))
    L.append("   peak RSS KiB %s   idle RSS KiB %s   KiB/match %s" % (
        fmt(sc["peak_rss_kib"]), fmt(sc["baseline_rss_kib"]),
        fmt(sc["kib_per_match"], 1)))
    L.append("   status p99 ms %s   max ms %s" % (
        fmt(sc["status_p99_ms"], 1), fmt(sc["status_max_ms"], 1)))
    L.append("   all done: %s   audit: %s   seats lost: %s" % (
        sc["all_done"], "pass" if sc["audit_ok"] else "FAIL",
        "none" if sc["nothing_closed"] else "SOME"))
    L.append("")
    L.extend(table_cost(res))
    if res.get("tournament"):
        L.append("")
        L.extend(table_tourney(res["tournament"]))
    L.append("")
    L.append("targets")
    for t in res["targets"]:
        v, lim = t["value"], t["limit"]
        if isinstance(v, float):
            v, lim = "%.3g" % v, "%.3g" % lim
        L.append("   %-4s %-48s %s (limit %s)" % (
            "met" if t["met"] else "MISS", t["target"], v, lim))
        if t.get("note"):
            L.append("        %s" % t["note"])
    return "\n".join(L)


def cost_only(bdir):
    """scripts/bench --cost: section 7, and refd's CPU per play."""
    workdir = tempfile.mkdtemp(prefix="refd-bench-")
    try:
        cpu, wall = [], []
        for _ in range(REPS):
            r, plays, c, w = sequential(bdir, workdir, 5, 20)
            cpu.append(c / 1e3 / plays)
            wall.append(w * 1e6 / plays)
        res = {"cost": {"syscalls": bench_syscalls(bdir, workdir),
                        "callgrind": bench_callgrind(bdir, workdir)}}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("refd, 5 sequential joker3 matches (target=20), 3 loadgen TCP "
          "bots, %d runs" % REPS)
    print("   us/play %s   refd cpu us/play %s" % (fmt(summary(wall), 1),
                                                    fmt(summary(cpu), 1)))
    print("\n".join(l for l in table_cost(res)))


def raise_fd_limit():
    """Enough descriptors for the scale section's seats, if allowed."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 4 * SCALE_MATCHES * SEATS
        if soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (min(want, hard), hard))
    except (ImportError, ValueError, OSError):
        pass


def one_section(bdir, a):
    """--scale or --flat alone: printed, and written as JSON to -o."""
    raise_fd_limit()
    workdir = tempfile.mkdtemp(prefix="refd-bench-")
    commit = subprocess.run(["git", "describe", "--always", "--dirty"],
                            cwd=TOP, capture_output=True,
                            text=True).stdout.strip()
    res = {"commit": commit, "date": time.strftime("%Y-%m-%d %H:%M")}
    try:
        if a.tournament is not None:
            log("9. tournament")
            res["tournament"] = tournament_run(bdir, workdir, a.tournament)
            L = table_tourney(res["tournament"])
        elif a.scale:
            log("6. scale")
            res["scale"] = sc = bench_scale(bdir, workdir)
            L = ["6. scale: %d concurrent joker3 matches (target=%d), %d "
                 "runs" % (SCALE_MATCHES, SCALE_TARGET, SCALE_RUNS),
                 "   peak RSS KiB %s   idle RSS KiB %s   with the idle "
                 "seats %s" % (fmt(sc["peak_rss_kib"]),
                               fmt(sc["baseline_rss_kib"]),
                               fmt(sc["rss_with_3000_idle_seats_kib"])),
                 "   KiB/match %s   all done: %s   audit: %s" % (
                     fmt(sc["kib_per_match"], 1), sc["all_done"],
                     "pass" if sc["audit_ok"] else "FAIL")]
        else:
            log("8. flat memory")
            res["flat"] = flat_run(bdir, workdir, a.flat, FLAT_K)
            L = table_flat(res["flat"])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("refd benchmark  %s  %s" % (res["date"], commit))
    print("\n".join(L))
    if a.o != os.path.join(TOP, "bench", "results.json"):
        with open(a.o, "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
            f.write("\n")
        print("(JSON in %s)" % a.o)


def table_cost(res):
    """Section 7 of the table."""
    L = []
    co = res["cost"]
    L.append("7. refd's own cost per play, sequential tcp joker3 matches")
    if co.get("syscalls"):
        s = co["syscalls"]
        L.append("   system calls per play %.2f (%s, %d plays): %s"
                 % (s["per_play"], "perf, at full speed" if
                    s.get("tool") == "perf" else "strace -c -f",
                    s["plays"], "  ".join(
                     "%s %.2f" % kv for kv in
                     list(s["by_call"].items())[:8])))
    else:
        L.append("   system calls: neither perf nor strace")
    if co.get("callgrind"):
        c = co["callgrind"]
        L.append("   instructions per play %.0f in the event loop, %.0f "
                 "with start-up (callgrind, %d plays, commit_ms 1000)" % (
                     c["loop_per_play"], c["per_play"], c["plays"]))
    else:
        L.append("   instructions: no valgrind")
    return L


def main():
    global REPS, SCALE_RUNS, SCALE_MATCHES, WINDOW_S, FLOOR_RT
    global PLAYOUT_DEALS, SINGLE_TARGET
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", default=os.path.join(TOP, "bench",
                                               "results.json"),
                    help="JSON output (default bench/results.json)")
    ap.add_argument("--no-build", action="store_true",
                    help="use the tree's build as it is")
    ap.add_argument("--cost", action="store_true",
                    help="only refd's cost per play, sequential (section "
                    "7, and CPU per play of 5 matches, 3 times)")
    ap.add_argument("--quick", action="store_true",
                    help="tiny runs, to check the script itself")
    ap.add_argument("--scale", action="store_true",
                    help="only section 6, the 1,000 concurrent matches")
    ap.add_argument("--flat", nargs="?", type=int, const=FLAT_MATCHES,
                    metavar="N", help="only refd's RSS over N finished "
                    "one-deal matches (default %d), %d at a time"
                    % (FLAT_MATCHES, FLAT_K))
    ap.add_argument("--tournament", nargs="?", type=int,
                    const=TOURNEY_MATCHES, metavar="N", help="only a "
                    "gauntlet of N one-deal matches (default %d), %d at a "
                    "time, with an SPRT, followed as refctl run --wait "
                    "does" % (TOURNEY_MATCHES, TOURNEY_K))
    a = ap.parse_args()
    if a.quick:
        REPS, SCALE_RUNS, SCALE_MATCHES, WINDOW_S = 3, 1, 100, 0.5
        FLOOR_RT, PLAYOUT_DEALS, SINGLE_TARGET = 2000, 20000, 10
    t0 = time.monotonic()
    bdir = build(a.no_build)
    if a.cost:
        cost_only(bdir)
        return
    if a.flat is not None or a.scale or a.tournament is not None:
        one_section(bdir, a)
        return
    raise_fd_limit()
    workdir = tempfile.mkdtemp(prefix="refd-bench-")
    res = {"machine": {
        "cores": os.cpu_count(),
        "cpu": next((l.split(":", 1)[1].strip()
                     for l in open("/proc/cpuinfo")
                     if l.startswith("model name")), platform.machine()),
        "kernel": platform.release(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "commit": subprocess.run(["git", "describe", "--always", "--dirty"],
                                 cwd=TOP, capture_output=True,
                                 text=True).stdout.strip()},
        "settings": {
            "reps": REPS, "concurrency": CONCURRENCY,
            "floor_roundtrips": FLOOR_RT, "playout_deals": PLAYOUT_DEALS,
            "single_target": SINGLE_TARGET, "window_s": WINDOW_S,
            "warmup_s": WARMUP_S, "scale_matches": SCALE_MATCHES,
            "scale_target": SCALE_TARGET, "scale_runs": SCALE_RUNS,
            "status_every_s": STATUS_EVERY_S, "move_ms": 5000,
            "variant": "joker3", "bot": "bots/randbot (spawn), "
            "bench/loadgen (tcp)",
            "build": "tree" if bdir == TOP else bdir}}
    try:
        log("1. playouts")
        res["playout"] = bench_playout(bdir)
        log("2. floor (first half)")
        floor0 = bench_floor(bdir)
        log("3. one match at a time")
        res["single"] = bench_single(bdir, workdir)
        log("4. throughput")
        res["throughput"] = bench_throughput(bdir, workdir)
        log("5. the log")
        res["log"] = bench_log(bdir, workdir, res["throughput"])
        log("6. scale")
        res["scale"] = bench_scale(bdir, workdir)
        log("7. system calls and instructions per play")
        res["cost"] = {"syscalls": bench_syscalls(bdir, workdir),
                       "callgrind": bench_callgrind(bdir, workdir)}
        log("9. tournament")
        res["tournament"] = tournament_run(bdir, workdir, TOURNEY_MATCHES
                                           if not a.quick else 60)
        log("2. floor (second half)")
        res["floor"] = bench_floor(bdir, floor0)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    res["targets"] = targets(res["floor"], res["single"], res["throughput"],
                             res["log"], res["scale"], res["cost"])
    res["elapsed_s"] = time.monotonic() - t0
    text = table(res)
    res["table"] = text.split("\n")
    print(text)
    print("\n(%.0f s; JSON in %s)" % (res["elapsed_s"], a.o))
    with open(a.o, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
