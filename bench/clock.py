#!/usr/bin/env python3
"""bench/clock.py: are honest bots charged their own time, exactly?

    bench/clock.py [--no-build] [--moves N] [--ks 1,64,250] [--move-ms MS]
                   [--honest-only] [--quick] [--bot-procs N] [--bot-rt]
                   [-o FILE]

k concurrent joker3 matches of remote bots, one TCP connection per seat,
that think for a known, random fraction of their move time (20-90 %)
and answer.  The 3 * k bots are bench/thinkbot, built by make: one C
process (--bot-procs to split them) serving every connection from one
epoll loop.  It answers notifications at once, and a genplay when a
timer armed for its planned think time fires; nothing sleeps.  Each bot
measures its own thinking time, from taking a genplay up to its
answer's write, on CLOCK_MONOTONIC, and keeps what it planned.  The bots
were asyncio Python processes once: at k=250 their commands waited for
the bots' own processes and their sleeps overran, so the benchmark
measured its own backlog rather than refd.  Even in C, a bot process
that the machine's other load keeps off a CPU for 10 ms makes honest
bots late; --bot-rt runs the bots under SCHED_FIFO (thinkbot -r, which
needs the right to), so that what is measured is refd.

For each k it reports, over at least N moves:

  - timeouts, and how many of them the bot's own clock says it answered
    in time (honest; the goal: 0); matches play on under the fallback
    policy, so every move is measured;
  - the error between the time refd charged (plays.ms in the log) and the
    bot's own thinking time: p50, p99, max (ms);
  - refd's worst loop stall (status loop_lag_max_us);
  - the attribution: refd runs with -vv, and its "clock:" lines give
    each genplay's moments (queued, pass begun, written, answer arrived,
    charged, stall taken off); each bot keeps when it read the genplay
    and when it wrote its answer, on the same CLOCK_MONOTONIC.  Every
    move's time is taken apart into refd's, the machine's and the bot's
    parts (PARTS), and every time-out is put down to one of them;
  - the load average before and after, for the machine is shared;
  - in the JSON, the ten moves charged most beyond the bot's thinking,
    with all their moments, and the bots' own CPU time.

Then the same at k=64 twice more: with refd SIGSTOPped for 1 s in the
middle, and with a disk whose every fdatasync/fsync stalls 200 ms (an
LD_PRELOAD shim compiled here).  Prints a table; writes it as JSON with
-o.  Needs what scripts/setup installs, and cc for the shim.
"""
import argparse
import asyncio
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (build(), Refd)

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>
static void stall(void) {
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}
int fdatasync(int fd) {
	static int (*real)(int);
	if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	stall();
	return real(fd);
}
int fsync(int fd) {
	static int (*real)(int);
	if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	stall();
	return real(fd);
}
"""


def pct(values, q):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


class Ctl:
    """The control socket, asynchronously."""

    async def open(self, path):
        self.r, self.w = await asyncio.open_unix_connection(path)

    async def cmd(self, *words):
        self.w.write(("1 " + " ".join(words) + "\n").encode())
        text = b""
        while not text.endswith(b"\n\n"):
            chunk = await self.r.readline()
            if not chunk:
                raise RuntimeError("refd closed the control socket")
            text += chunk
        text = text.decode()
        if not text.startswith("="):
            raise RuntimeError("%s: %s" % (" ".join(words), text))
        return text[2:].strip()

    async def status(self):
        return dict(line.split(" ", 1)
                    for line in (await self.cmd("status")).split("\n"))


class Fleet:
    """The bots of a run: 3 * k remote bots over TCP, served by nproc
    bench/thinkbot processes, each one epoll loop whose bots think on a
    timer.  Each bot keeps when it took a genplay up and when its answer
    was written; the run's moves come back when the fleet stops."""

    def __init__(self, build, port, k, move_ms, nproc, rt=False):
        self.build, self.port, self.k = build, port, k
        self.move_ms, self.nproc, self.rt = move_ms, nproc, rt
        self.procs = []
        self.think = {}         # (match, deal, card) -> ms the bot took
        self.bycmd = {}         # (match, seat, command id) -> the same
        # (local port, command id) -> (read, wrote, planned): the bot's
        # moments on CLOCK_MONOTONIC (refd's clock too), in microseconds
        self.moments = {}
        self.cpu_s = 0.0        # the bots' processes' CPU time

    @property
    def moves(self):
        """Genplays answered so far, by every process."""
        n = 0
        for p in self.procs:
            p.send_signal(signal.SIGUSR1)
            line = p.stdout.readline()
            if not line.startswith("stats "):
                raise RuntimeError("thinkbot: %r" % line)
            n += int(dict(w.split("=") for w in line.split()[1:])
                     ["genplay"])
        return n

    async def start(self, names):
        loop = asyncio.get_running_loop()
        for i in range(self.nproc):
            share = self.k // self.nproc + (1 if i < self.k % self.nproc
                                            else 0)
            if share == 0:
                continue
            args = [os.path.join(self.build, "bench", "thinkbot"),
                    "-a", "127.0.0.1:%d" % self.port,
                    "-s", str(1000 * self.k + i + 1)] + (
                        ["-r"] if self.rt else [])
            args += ["%s:%s:%d" % (n, run.TOKEN % int(n[1:]), share)
                     for n in names]
            self.procs.append(subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                text=True))
        for p in self.procs:
            line = await loop.run_in_executor(None, p.stdout.readline)
            if not line.startswith("ready"):
                raise RuntimeError("thinkbot: %r" % line)

    async def stop(self):
        loop = asyncio.get_running_loop()
        for p in self.procs:
            p.stdin.close()
        for p in self.procs:
            out = await loop.run_in_executor(None, p.stdout.read)
            p.wait()
            for line in out.splitlines():
                w = line.split()
                if w and w[0] == "done":
                    kv = dict(x.split("=") for x in w[1:])
                    self.cpu_s += (int(kv["utime_us"]) +
                                   int(kv["stime_us"])) / 1e6
                if not w or w[0] != "move":
                    continue
                port, ident, match, seat, deal = (int(x) for x in w[1:6])
                read, wrote, planned = (int(x) for x in w[7:10])
                took = (wrote - read) / 1000
                self.moments[(port, ident)] = (read, wrote, planned)
                self.think[(match, deal, w[6])] = took
                self.bycmd[(match, seat, ident)] = took


async def scenario(build, r, k, moves, move_ms, nproc, rt, stop_at=None):
    bots = Fleet(build, r.port, k, move_ms, nproc, rt)
    ctl = Ctl()
    await ctl.open(r.sock)
    names = ["b%d" % i for i in range(3)]
    for i, n in enumerate(names):
        await ctl.cmd("bot_add", n, "remote", run.TOKEN % i)
    await bots.start(names)
    started = 0
    stopped = False
    t0 = time.monotonic()
    while bots.moves < moves:
        running = int((await ctl.status())["matches_running"])
        for _ in range(k - running):
            await ctl.cmd("match_start", "joker3", *names,
                          "move_ms=%d" % move_ms, "startup_ms=60000",
                          "policy=fallback", "max_faults=1000")
            started += 1
        if stop_at is not None and not stopped and bots.moves >= stop_at:
            os.kill(r.pid, signal.SIGSTOP)
            await asyncio.sleep(1.0)
            os.kill(r.pid, signal.SIGCONT)
            stopped = True
        await asyncio.sleep(0.05)
    while int((await ctl.status())["matches_running"]) > 0:
        await asyncio.sleep(0.1)
    wall = time.monotonic() - t0
    lag = int((await ctl.status())["loop_lag_max_us"]) / 1000
    await bots.stop()
    return bots, started, wall, lag


def analyse(db, bots):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    plays = con.execute("SELECT match_id, deal_no, card, ms FROM plays "
                        "WHERE fault = 0").fetchall()
    timeouts = con.execute("SELECT match_id, seat, evidence FROM faults "
                           "WHERE kind = 'timeout'").fetchall()
    faults = con.execute("SELECT count(*) FROM faults").fetchone()[0]
    con.close()
    errs = [ms - bots.think[(m, d, c)] for m, d, c, ms in plays
            if (m, d, c) in bots.think]
    # a timeout of a bot whose own clock says it answered in time
    honest = 0
    for m, seat, ev in timeouts:
        ident = int(ev.split("command ")[1].split()[0])
        if bots.bycmd.get((m, seat, ident), 1e9) < bots.move_ms:
            honest += 1
    return {"moves": len(plays), "matched": len(errs),
            "timeouts": len(timeouts), "honest_timeouts": honest,
            "faults": faults,
            "err_p50_ms": pct(errs, 0.5), "err_p99_ms": pct(errs, 0.99),
            "err_max_ms": max(errs) if errs else None,
            "err_min_ms": min(errs) if errs else None}


CLOCKLINE = re.compile(
    r"clock: (\w+) (\S+) \((\S+)\) command (\d+) (\w+): queued (\d+) "
    r"flushed (\d+) written (\d+) arrived (\d+) charged (\d+) "
    r"stalled (\d+) limit (\d+)")
CLOCKFIELDS = ("queued", "flushed", "written", "arrived", "charged",
               "stalled", "limit")

# The parts of a genplay's life, each from one moment to the next, in
# microseconds: (name, whose it is, how it is computed from refd's
# record r and the bot's b = (read, wrote, planned)).
PARTS = (
    ("log_commit", "refd, never charged",
     lambda r, b: r["flushed"] - r["queued"]),
    ("write_late", "refd: written after the pass began",
     lambda r, b: r["written"] - r["flushed"]),
    ("to_bot", "machine: written until the bot's process read it",
     lambda r, b: b[0] - r["written"]),
    ("think", "bot: read until it wrote its answer",
     lambda r, b: b[1] - b[0]),
    ("overrun", "bot: its thinking beyond what it planned",
     lambda r, b: b[1] - b[0] - b[2]),
    ("to_refd", "refd's loop: answer written until the wake-up that read it",
     lambda r, b: r["arrived"] - b[1]),
    ("stalled", "refd: stall taken off", lambda r, b: r["stalled"]),
    ("error", "charged less the bot's thinking",
     lambda r, b: r["charged"] - (b[1] - b[0])),
)


def clock_records(path):
    """refd's -vv clock lines: (port, command id) -> {what: fields}."""
    recs = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = CLOCKLINE.search(line)
            if not m or m.group(5) != "genplay":
                continue
            port = int(m.group(3).rsplit(":", 1)[-1])
            rec = dict(zip(CLOCKFIELDS, (int(x) for x in m.groups()[5:])))
            recs.setdefault((port, int(m.group(4))), {})[m.group(1)] = rec
    return recs


def dist(values):
    """p50, p99, max of microseconds, in milliseconds."""
    if not values:
        return None
    return {"p50": round(pct(values, 0.5) / 1000, 2),
            "p99": round(pct(values, 0.99) / 1000, 2),
            "max": round(max(values) / 1000, 2),
            "min": round(min(values) / 1000, 2)}


def attribute(errpath, moments):
    """Take every genplay's time apart, and say of every time-out whose
    delay it was (see PARTS)."""
    recs = clock_records(errpath)
    parts = {name: [] for name, _, _ in PARTS}
    # under the old rule the clock started when the pass began
    oldrule_over = late_taken = 0
    worst = []          # the moves charged most beyond the bot's thinking
    for key, whats in recs.items():
        r, b = whats.get("answer"), moments.get(key)
        if r is None or b is None:
            continue
        for name, _, fn in PARTS:
            parts[name].append(fn(r, b))
        if r["charged"] + r["written"] - r["flushed"] > r["limit"]:
            oldrule_over += 1
        if b[1] > r["written"] + r["limit"] + r["stalled"]:
            late_taken += 1     # left the bot after its deadline
        worst.append((r["charged"] - (b[1] - b[0]), key, r, b))
    worst.sort(key=lambda x: -x[0])
    verdicts, cases = {}, []
    for key, whats in recs.items():
        t = whats.get("timeout")
        if t is None:
            continue
        b = moments.get(key)
        if b is None:
            who = "no answer from the bot"
        elif b[1] - b[0] >= t["limit"]:
            who = "bot: thought over its limit"
        elif b[1] <= t["written"] + t["limit"] + t["stalled"]:
            # the answer left the bot before its deadline: refd's
            who = "refd: answer in time, not read"
        else:
            to_bot, over = b[0] - t["written"], b[1] - b[0] - b[2]
            who = ("machine: command waited for the bot's process"
                   if to_bot >= over else "bot: thinking overran its plan")
        verdicts[who] = verdicts.get(who, 0) + 1
        if b is not None:
            cases.append({"who": who,
                          "write_late_ms": (t["written"] - t["flushed"]) / 1e3,
                          "to_bot_ms": (b[0] - t["written"]) / 1e3,
                          "think_ms": (b[1] - b[0]) / 1e3,
                          "planned_ms": b[2] / 1e3,
                          "charged_ms": t["charged"] / 1e3})
    return {"genplays": len(parts["think"]),
            "parts": {name: dist(v) for name, v in parts.items()},
            "over_limit_under_old_rule": oldrule_over,
            "late_answers_taken": late_taken,
            "timeouts_by_cause": verdicts, "timeout_cases": cases[:50],
            "worst_error_cases": [
                dict({"port": key[0], "command": key[1],
                      "bot_read": b[0], "bot_wrote": b[1],
                      "bot_planned": b[2]}, **r)
                for _, key, r, b in worst[:10]]}


def shim(workdir):
    src = os.path.join(workdir, "slowsync.c")
    so = os.path.join(workdir, "slowsync.so")
    with open(src, "w") as f:
        f.write(SHIM)
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", so, src, "-ldl"],
                   check=True)
    return so


def one(build, workdir, name, k, moves, move_ms, nproc, rt, stop=False,
        preload=None):
    env = dict(os.environ)
    if preload:
        env["LD_PRELOAD"] = preload
    old = os.environ.copy()
    os.environ.clear()
    os.environ.update(env)
    try:
        r = run.Refd(build, workdir, listen=True, extra=("-v", "-v"))
    finally:
        os.environ.clear()
        os.environ.update(old)
    r.release()
    load0 = os.getloadavg()
    try:
        bots, started, wall, lag = asyncio.run(scenario(
            build, r, k, moves, move_ms, nproc, rt,
            moves // 2 if stop else None))
    finally:
        r.stop()
    load1 = os.getloadavg()
    res = analyse(r.db, bots)
    res.update({"scenario": name, "k": k, "move_ms": move_ms,
                "matches": started, "wall_s": round(wall, 1),
                "worst_stall_ms": lag, "bot_procs": nproc,
                "bot_rt": rt,
                "bot_cpu_s": round(bots.cpu_s, 2),
                "load_before": load0, "load_after": load1,
                "attribution": attribute(r.errpath, bots.moments)})
    print("%-9s k=%-3d ms=%-4d %6d moves %3d timeouts (%d honest)  error "
          "p50 %5.1f  p99 %5.1f  max %6.1f ms  stall %7.1f ms  (%.0f s, "
          "load %.1f/%.1f)" % (
              name, k, move_ms, res["moves"], res["timeouts"],
              res["honest_timeouts"], res["err_p50_ms"], res["err_p99_ms"],
              res["err_max_ms"], lag, wall, load0[0], load1[0]), flush=True)
    at = res["attribution"]
    for pname, whose, _ in PARTS:
        d = at["parts"][pname]
        if d:
            print("    %-10s p50 %7.2f  p99 %7.2f  max %7.2f ms  (%s)" % (
                pname, d["p50"], d["p99"], d["max"], whose), flush=True)
    print("    over the limit under the old rule: %d; late answers taken: "
          "%d; time-outs: %s" % (at["over_limit_under_old_rule"],
                                 at["late_answers_taken"],
                                 at["timeouts_by_cause"] or "none"),
          flush=True)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--moves", type=int, default=20000)
    ap.add_argument("--ks", default="1,64,250")
    ap.add_argument("--move-ms", type=int, default=100)
    ap.add_argument("--quick", action="store_true",
                    help="a few hundred moves: checks the script itself")
    ap.add_argument("--honest-only", action="store_true",
                    help="skip the SIGSTOP and slow-fsync runs")
    ap.add_argument("--bot-procs", type=int, default=1, metavar="N",
                    help="bench/thinkbot processes serving the bots")
    ap.add_argument("--bot-rt", action="store_true",
                    help="run the bots under SCHED_FIFO (thinkbot -r)")
    ap.add_argument("-o", dest="out")
    a = ap.parse_args()
    if a.quick:
        a.moves, a.ks = 300, "1,8"
    build = run.build(a.no_build)
    workdir = tempfile.mkdtemp(prefix="refd-clock.")
    res = []
    for k in (int(x) for x in a.ks.split(",")):
        res.append(one(build, workdir, "honest", k, a.moves, a.move_ms,
                       a.bot_procs, a.bot_rt))
    kk = 64 if not a.quick else 8
    if not a.honest_only:
        res.append(one(build, workdir, "sigstop", kk, a.moves, a.move_ms,
                       a.bot_procs, a.bot_rt, stop=True))
        res.append(one(build, workdir, "slowsync", kk, a.moves,
                       a.move_ms, a.bot_procs, a.bot_rt,
                       preload=shim(workdir)))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
