#!/usr/bin/env python3
"""bench/clock.py: are honest bots charged their own time, exactly?

    bench/clock.py [--no-build] [--moves N] [--ks 1,64,250] [--move-ms MS]
                   [--honest-only] [--quick] [-o FILE]

k concurrent joker3 matches of remote bots (asyncio processes, up to
six, one TCP connection per seat) that think for a known, random fraction of
their move time (20-90 %, by sleeping) and answer.  Each bot measures
its own thinking time, from reading a genplay to writing its answer.
For each k it reports, over at least N moves:

  - timeouts, and how many of them the bot's own clock says it answered
    in time (honest; the goal: 0); matches play on under the fallback
    policy, so every move is measured;
  - the error between the time refd charged (plays.ms in the log) and the
    bot's own thinking time: p50, p99, max (ms);
  - refd's worst loop stall (status loop_lag_max_us).

Then the same at k=64 twice more: with refd SIGSTOPped for 1 s in the
middle, and with a disk whose every fdatasync/fsync stalls 200 ms (an
LD_PRELOAD shim compiled here).  Prints a table; writes it as JSON with
-o.  Needs what scripts/setup installs, and cc for the shim.
"""
import argparse
import asyncio
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import statistics
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


class Bots:
    """3 * k remote bots over TCP, thinking by sleeping."""

    def __init__(self, port, k, move_ms, rng, counter=None):
        self.port, self.k, self.move_ms, self.rng = port, k, move_ms, rng
        self.counter = counter  # moves of every process, shared
        self.moves = 0
        self.think = {}         # (match, deal, card) -> ms the bot took
        self.bycmd = {}         # (match, seat, command id) -> the same
        self.tasks = []

    async def connect(self, names):
        ready = []
        for name in names:
            for _ in range(self.k):
                ready.append(asyncio.ensure_future(self.bot(name)))
        await asyncio.gather(*ready)

    async def bot(self, name):
        r, w = await asyncio.open_connection("127.0.0.1", self.port)
        w.write(("auth %s %s\n" % (name, run.TOKEN % int(name[1:])))
                .encode())
        await w.drain()
        line = await r.readline()
        await r.readline()
        if not line.startswith(b"="):
            raise RuntimeError("auth %s: %r" % (name, line))
        self.tasks.append(asyncio.ensure_future(self.serve(r, w)))

    async def serve(self, r, w):
        match = deal = seat = 0
        while True:
            line = await r.readline()
            if not line:
                return
            t0 = time.monotonic()
            words = line.decode().split("#", 1)[0].split()
            if len(words) < 2 or not words[0].isdigit():
                continue
            ident, cmd = words[0], words[1]
            if cmd == "match_start":
                kv = dict(x.split("=", 1) for x in words[2:] if "=" in x)
                match, seat, deal = int(kv["match"]), int(kv["seat"]), 0
            elif cmd == "deal_start":
                deal += 1
            if cmd != "genplay":
                w.write(("=%s\n\n" % ident).encode())
                continue
            limit = int(words[2])
            await asyncio.sleep(self.rng.uniform(0.2, 0.9) * limit / 1000)
            card = self.rng.choice(words[3:])
            w.write(("=%s %s\n\n" % (ident, card)).encode())
            took = (time.monotonic() - t0) * 1000
            self.think[(match, deal, card)] = took
            self.bycmd[(match, seat, int(ident))] = took
            self.moves += 1
            if self.counter is not None:
                with self.counter.get_lock():
                    self.counter.value += 1


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


def bot_process(port, k, names, move_ms, seed, counter, conn):
    """One process of bots: k connections of each name, serving until
    the parent says stop; then their thinking times go back to it."""
    async def serve():
        bots = Bots(port, k, move_ms, random.Random(seed), counter)
        await bots.connect(names)
        conn.send("ready")
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        conn.send((bots.think, bots.bycmd))
    asyncio.run(serve())


class Fleet:
    """The bots of a run, in several processes, so that no one Python
    process serving hundreds of bots is what makes them late."""

    def __init__(self, port, k, move_ms, nproc):
        self.move_ms = move_ms
        self.counter = multiprocessing.Value("l", 0)
        self.procs, self.conns = [], []
        self.think, self.bycmd = {}, {}
        self.args = (port, k, move_ms, nproc)

    @property
    def moves(self):
        return self.counter.value

    async def start(self, names):
        port, k, move_ms, nproc = self.args
        loop = asyncio.get_running_loop()
        for i in range(nproc):
            share = k // nproc + (1 if i < k % nproc else 0)
            if share == 0:
                continue
            mine, theirs = multiprocessing.Pipe()
            p = multiprocessing.Process(target=bot_process, args=(
                port, share, names, move_ms, 1000 * k + i, self.counter,
                theirs), daemon=True)
            p.start()
            self.procs.append(p)
            self.conns.append(mine)
        for c in self.conns:
            if await loop.run_in_executor(None, c.recv) != "ready":
                raise RuntimeError("a bot process failed")

    async def stop(self):
        loop = asyncio.get_running_loop()
        for c in self.conns:
            c.send("stop")
        for c in self.conns:
            think, bycmd = await loop.run_in_executor(None, c.recv)
            self.think.update(think)
            self.bycmd.update(bycmd)
        for p in self.procs:
            p.join(10)


async def scenario(r, k, moves, move_ms, stop_at=None):
    bots = Fleet(r.port, k, move_ms, max(1, min(6, k // 32)))
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


def shim(workdir):
    src = os.path.join(workdir, "slowsync.c")
    so = os.path.join(workdir, "slowsync.so")
    with open(src, "w") as f:
        f.write(SHIM)
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", so, src, "-ldl"],
                   check=True)
    return so


def one(build, workdir, name, k, moves, move_ms, stop=False, preload=None):
    env = dict(os.environ)
    if preload:
        env["LD_PRELOAD"] = preload
    old = os.environ.copy()
    os.environ.clear()
    os.environ.update(env)
    try:
        r = run.Refd(build, workdir, listen=True)
    finally:
        os.environ.clear()
        os.environ.update(old)
    r.release()
    try:
        bots, started, wall, lag = asyncio.run(scenario(
            r, k, moves, move_ms, moves // 2 if stop else None))
    finally:
        r.stop()
    res = analyse(r.db, bots)
    res.update({"scenario": name, "k": k, "move_ms": move_ms,
                "matches": started, "wall_s": round(wall, 1),
                "worst_stall_ms": lag})
    print("%-9s k=%-3d %6d moves %3d timeouts (%d honest)  error p50 %5.1f"
          "  p99 %5.1f  max %6.1f ms  stall %7.1f ms  (%.0f s)" % (
              name, k, res["moves"], res["timeouts"], res["honest_timeouts"],
              res["err_p50_ms"], res["err_p99_ms"], res["err_max_ms"], lag,
              wall), flush=True)
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
    ap.add_argument("-o", dest="out")
    a = ap.parse_args()
    if a.quick:
        a.moves, a.ks = 300, "1,8"
    build = run.build(a.no_build)
    workdir = tempfile.mkdtemp(prefix="refd-clock.")
    res = []
    for k in (int(x) for x in a.ks.split(",")):
        res.append(one(build, workdir, "honest", k, a.moves, a.move_ms))
    kk = 64 if not a.quick else 8
    if not a.honest_only:
        res.append(one(build, workdir, "sigstop", kk, a.moves, a.move_ms,
                       stop=True))
        res.append(one(build, workdir, "slowsync", kk, a.moves,
                       a.move_ms, preload=shim(workdir)))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
