#!/usr/bin/env python3
"""bench/web.py (scripts/bench web): what the web site costs refd.

  - refd's CPU per play with 0, 100 and 500 event-stream spectators on
    the running matches: 8 classic2 matches of the C random bot at once
    (300 deals each, about 96,000 plays), the spectators spread over
    them, all from one C process (bench/crowd) that reads and discards.
    refd's CPU and the plays are counted from the moment every
    spectator has its stream (crowd's "ready") to the end of the 8
    matches: the spectators' arrival is not a play's cost;
  - the time from a play to its event in a client: the play's row's
    time in the log ("at", refd's clock, to the millisecond) to
    crowd's read of the event (-t), p50, p99 and the worst, on a ninth
    match beside them whose bots think 20 ms a move (tests/evilbot.py
    slow 20), as bots that think do, over the same window;
  - the floor: bench/fanout writes the chunks that refd sent one
    spectator of each match in the 500 round (crowd -r), at their
    times, to 100 and 500 loopback sockets read by another crowd, one
    sendmsg() each: what the kernel alone costs, per play of that round;
  - 10,000 requests sent within a second (bench/crowd -f) beside a
    healthy match: the loop's worst delay before and after;
  - the weight of a replay page with its data, uncompressed: the page,
    its style sheet and script, and the replay's JSON that the page asks
    for (API 2) of a chiamata5 match of 5 deals and a classic2 match;
    API 1's replay beside it.

Prints numbers; asserts nothing.

Usage: bench/web.py [-r NAME=REFD ...] [-d DEALS] [ROUNDS]
       bench/web.py -W
  -W            the replay page's weight only (this build's)
  -r NAME=REFD  a refd binary to measure (more than one: side by side,
                alternating in each round); this build's by default
  -d DEALS      deals of each of the 8 matches (300: deals_to_win and
                deal_cap both DEALS, about 96,000 plays in all)
  ROUNDS        rounds of each count of spectators (3); the median and
                the range of refd's CPU a play are shown
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests"))
import harness  # noqa: E402
import web  # noqa: E402

MATCHES = 8
COUNTS = (0, 100, 500)
CROWD = os.path.join(harness.BUILD, "bench", "crowd")
FANOUT = os.path.join(harness.BUILD, "bench", "fanout")


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def at_s(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=timezone.utc).timestamp()


def wait_line(path, prefix, proc, secs=120):
    """The first line of file path that starts with prefix."""
    deadline = time.time() + secs
    while time.time() < deadline:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split()
        if proc.poll() is not None:
            raise RuntimeError("%s ended: %s" % (proc.args[0],
                                                 open(path).read()[-500:]))
        time.sleep(0.05)
    raise RuntimeError("%s: no %r within %d s" % (proc.args[0], prefix, secs))


def crowd(port, n, paths, out, timed=None, record=None):
    argv = [CROWD, "-a", "127.0.0.1:%d" % port, "-n", str(n)]
    if timed is not None:
        argv += ["-t", timed]
    if record is not None:
        argv += ["-r", record]
    p = subprocess.Popen(argv + paths, stdin=subprocess.PIPE,
                         stdout=open(out, "w"))
    got = int(wait_line(out, "ready", p)[1])
    if got != n:
        raise RuntimeError("crowd: %d streams of %d" % (got, n))
    return p


def stop(p):
    p.stdin.close()
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def one_round(refd, spect, deals, tmp, record=None):
    harness.REFD = refd
    d = tempfile.mkdtemp(dir=tmp)
    conf = os.path.join(d, "refd.conf")
    with open(conf, "w") as f:
        f.write("http 127.0.0.1:0\nhttp_max_connections 4000\n"
                "http_max_per_address 4000\n")
    r = harness.Refd(d, move_ms=5000, extra=("-f", conf))
    try:
        port = web.site_port(r)
        rand = os.path.join(harness.BUILD, "bots", "randbot")
        r.add("ra", [rand, "-s", "1"])
        r.add("rb", [rand, "-s", "2"])
        slow = web.slow_bots(r, 2, 20)
        pid = r.proc.pid
        opts = "deals_to_win=%d deal_cap=%d" % (deals, deals)
        mids = [r.start("classic2", ["ra", "rb"], *opts.split())
                for _ in range(MATCHES)]
        timed = r.start("classic2", slow, *opts.split())
        out = os.path.join(d, "crowd.out")
        p = crowd(port, spect, ["/api/v1/matches/%d/events" % m
                                for m in mids], out,
                  timed="/api/v1/matches/%d/events" % timed, record=record)
        # the window: every spectator in, to the 8 matches' end
        c0 = cpu_s(pid)
        n0 = r.query("SELECT count(*) FROM plays")[0][0]
        t0 = time.time()
        for m in mids:
            r.wait(m)
        c1 = cpu_s(pid)
        n1 = r.query("SELECT count(*) FROM plays")[0][0]
        t1 = time.time()
        stop(p)
        r.ctl("match_stop", str(timed))
        r.wait(timed)
        got = {}
        done = None
        with open(out) as f:
            for line in f:
                if line.startswith("done "):
                    done = dict(w.split("=") for w in line.split()[1:])
                if not line.startswith("event "):
                    continue
                _, t, data = line.rstrip("\n").split(" ", 2)
                e = json.loads(data)
                if e["type"] == "play":
                    got[(e["state"].get("deal"), e["card"])] = float(t)
        delays = []
        for deal, card, at in r.query("SELECT deal_no, card, at FROM plays "
                                      "WHERE match_id = ?", timed):
            a = at_s(at)
            if t0 <= a <= t1 and (deal, card) in got:
                delays.append((got[(deal, card)] - a) * 1000)
        lag = web.status(port)["loop_lag_max_us"]
        return {"cpu_us_play": (c1 - c0) * 1e6 / (n1 - n0),
                "plays": n1 - n0, "wall_s": t1 - t0, "delays": delays,
                "crowd_cpu_s": (int(done["utime_us"]) +
                                int(done["stime_us"])) / 1e6 if done else -1,
                "lag_us": lag}
    finally:
        r.stop()


def floor(record, n, tmp):
    """fanout's CPU to replay record to n loopback readers."""
    out = os.path.join(tmp, "fanout.out")
    cout = os.path.join(tmp, "fanout-crowd.out")
    f = subprocess.Popen([FANOUT, "-n", str(n), record],
                         stdout=open(out, "w"))
    port = int(wait_line(out, "listening", f)[1])
    npaths = 1 + max(int(line.split()[1]) for line in open(record))
    c = crowd(port, n, ["/%d" % i for i in range(npaths)], cout)
    f.wait()
    stop(c)
    done = dict(w.split("=") for w in wait_line(out, "done", f)[1:])
    return done


def flood(tmp):
    """10,000 requests in a second beside a healthy match: the loop's
    worst delay before and after, and crowd's figures."""
    d = tempfile.mkdtemp(dir=tmp)
    conf = os.path.join(d, "refd.conf")
    with open(conf, "w") as f:
        f.write("http 127.0.0.1:0\nhttp_max_connections 2000\n"
                "http_max_per_address 1000\n")
    r = harness.Refd(d, extra=("-f", conf))
    try:
        port = web.site_port(r)
        mid = r.start("classic2", web.slow_bots(r, 2, 10), "deals_to_win=4")
        while not r.query("SELECT count(*) FROM plays WHERE match_id = ?",
                          mid)[0][0]:
            time.sleep(0.1)
        lag0 = web.status(port)["loop_lag_max_us"]
        f = web.crowd_flood(port, 10000, 1)
        lag1 = web.status(port)["loop_lag_max_us"]
        end = r.wait(mid)[1]
        faults = r.query("SELECT count(*) FROM faults WHERE match_id = ?",
                         mid)[0][0]
        return f, lag0, lag1, end, faults
    finally:
        r.stop()


def weight(tmp):
    d = tempfile.mkdtemp(dir=tmp)
    r = harness.Refd(d, extra=("-w", "127.0.0.1:0"))
    try:
        port = web.site_port(r)
        heur = os.path.join(harness.BUILD, "bots", "heurbot")
        rand = os.path.join(harness.BUILD, "bots", "randbot")
        r.add("h", [heur])
        r.add("q", [rand, "-s", "4"])
        out = {}
        for v, n in (("chiamata5", 5), ("classic2", 2)):
            mid = r.start(v, [("h", "q")[i % 2] for i in range(n)])
            r.wait(mid)
            page = sum(len(web.get(port, p)[2]) for p in (
                "/match/%d" % mid, "/static/site.css", "/static/site.js"))
            data = len(web.get(port, web.replay_path(mid))[2])
            full = len(web.get(port, "/api/v1/matches/%d/replay" % mid)[2])
            deals = r.query("SELECT count(*) FROM deals WHERE match_id = ?",
                            mid)[0][0]
            out[v] = (page, data, deals, full)
        return out
    finally:
        r.stop()


def pct(q, xs):
    return xs[int(q * (len(xs) - 1))] if xs else -1


def print_weight(tmp):
    print("a replay page with its data, uncompressed:")
    for v, (page, data, deals, full) in weight(tmp).items():
        print("  %s, %d deals: page %.1f KiB + replay %.1f KiB = %.1f KiB "
              "(API 1's replay, every hand on every row: %.1f KiB)" %
              (v, deals, page / 1024, data / 1024, (page + data) / 1024,
               full / 1024))


def main():
    args = sys.argv[1:]
    refds = []
    deals = 300
    if args == ["-W"]:
        tmp = tempfile.mkdtemp(prefix="refd-bench-web.")
        print_weight(tmp)
        subprocess.run(["rm", "-rf", tmp])
        return
    while args and args[0] in ("-r", "-d"):
        if args[0] == "-r":
            name, _, path = args[1].partition("=")
            refds.append((name, os.path.abspath(path)))
        else:
            deals = int(args[1])
        args = args[2:]
    if not refds:
        refds = [("this build", harness.REFD)]
    rounds = int(args[0]) if args else 3
    for prog in (CROWD, FANOUT):
        if not os.access(prog, os.X_OK):
            sys.exit("bench/web.py: %s is not built (make)" % prog)
    tmp = tempfile.mkdtemp(prefix="refd-bench-web.")
    print("load average at the start: %s" % " ".join(
        open("/proc/loadavg").read().split()[:3]))
    print("refd's CPU per play, %d classic2 matches of the C random bot "
          "at once (%d deals each), from every spectator in to their "
          "end; %d rounds, alternating:" % (MATCHES, deals, rounds))
    runs = {(name, s): [] for name, _ in refds for s in COUNTS}
    record = os.path.join(tmp, "chunks")
    for k in range(rounds):
        for name, path in refds:
            for s in COUNTS:
                rec = record if (name, s, k) == (refds[-1][0], 500, 0) \
                    else None
                runs[(name, s)].append(one_round(path, s, deals, tmp, rec))
    for name, _ in refds:
        print("%s:" % name)
        base = statistics.median(x["cpu_us_play"] for x in runs[(name, 0)])
        for s in COUNTS:
            rs = runs[(name, s)]
            cpu = sorted(x["cpu_us_play"] for x in rs)
            med = statistics.median(cpu)
            delays = sorted(d for x in rs for d in x["delays"])
            print("  %3d spectators: %6.1f us a play (%+.0f%%; %.1f-%.1f), "
                  "%d plays in %.1f s; play to event: p50 %.1f ms, p99 "
                  "%.1f ms, worst %.1f ms (%d events); crowd's CPU %.2f s; "
                  "loop's worst delay %.1f ms" % (
                      s, med, 100 * (med / base - 1), cpu[0], cpu[-1],
                      statistics.median(x["plays"] for x in rs),
                      statistics.median(x["wall_s"] for x in rs),
                      pct(0.5, delays), pct(0.99, delays),
                      delays[-1] if delays else -1, len(delays),
                      statistics.median(x["crowd_cpu_s"] for x in rs),
                      max(x["lag_us"] for x in rs) / 1000))
    plays = runs[(refds[-1][0], 500)][0]["plays"]
    print("the floor: the chunks refd sent in the first 500 round "
          "(%s), replayed by bench/fanout, its CPU per play of that round:"
          % refds[-1][0])
    for n in (100, 500):
        f = floor(record, n, tmp)
        print("  %3d sockets: %5.1f us a play (%s writes, %.1f KiB each "
              "with its frame, %s stalls, %.1f s)" % (
                  n, int(f["cpu_us"]) / plays, f["writes"],
                  int(f["bytes"]) / max(1, int(f["writes"])) / 1024,
                  f["stalls"], float(f["seconds"])))
    harness.REFD = refds[-1][1]
    f, lag0, lag1, end, faults = flood(tmp)
    print("10,000 requests sent within a second (%s), each on its own "
          "connection, beside a match of bots thinking 10 ms a move: done "
          "in %.2f s, %d answered, %d refused, %d errors; each p50 %.0f ms, "
          "p99 %.0f ms; loop's worst delay %.1f ms before, %.1f ms after; "
          "the match: %s, %d faults" % (
              refds[-1][0], f["seconds"], f["answered"], f["refused"],
              f["errors"], f["p50_ms"], f["p99_ms"], lag0 / 1000,
              lag1 / 1000, end, faults))
    print_weight(tmp)
    print("load average at the end: %s" % " ".join(
        open("/proc/loadavg").read().split()[:3]))
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
