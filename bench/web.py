#!/usr/bin/env python3
"""bench/web.py (scripts/bench web): what the web site costs refd.

  - refd's CPU per play with 0, 100 and 500 event-stream spectators on
    the running matches (8 classic2 matches of the C random bot at once,
    played out; the spectators are spread over them);
  - the time from a play to its event in a client: the play's row's
    time in the log ("at", refd's clock, to the millisecond) to the
    client's receipt of the event, p50, p99 and the worst, on a ninth
    match beside them whose bots think 20 ms a move (tests/evilbot.py
    slow 20), as bots that think do;
  - the weight of a replay page with its data, uncompressed: the page,
    its style sheet and script, and the replay's JSON of a chiamata5
    match of 5 deals and a classic2 match.

Prints numbers; asserts nothing.  Usage: bench/web.py [ROUNDS]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests"))
import harness  # noqa: E402
import web  # noqa: E402

MATCHES = 8


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def at_s(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=__import__("datetime").timezone.utc).timestamp()


def one_round(spect, tmp):
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
        # the spectators first, on matches that wait for nobody: each
        # stream follows a match from its first event
        pid = r.proc.pid
        c0 = cpu_s(pid)
        t0 = time.time()
        mids = [r.start("classic2", ["ra", "rb"], "deals_to_win=8")
                for _ in range(MATCHES)]
        timed = r.start("classic2", slow)
        procs = []
        paths = ["/api/v1/matches/%d/events" % m for m in mids]
        for k in range(0, spect, 100):
            p, got = web.spectators(port, min(100, spect - k), paths)
            procs.append(p)
        # one more client, timing each play's event
        lat = []

        def follow():
            s = web.SSE(port, "/api/v1/matches/%d/events" % timed)
            for i, data in s.events():
                e = json.loads(data)
                if e["type"] == "play":
                    lat.append((time.time(), e["state"].get("deal"),
                                e["card"]))
            s.close()
        th = threading.Thread(target=follow)
        th.start()
        for m in mids:
            r.wait(m)
        c1 = cpu_s(pid)
        t1 = time.time()
        r.wait(timed)
        th.join(60)
        for p in procs:
            p.kill()
            p.wait()
        plays = r.query("SELECT count(*) FROM plays WHERE match_id IN "
                        "(%s)" % ",".join(map(str, mids)))[0][0]
        rows = r.query("SELECT deal_no, card, at FROM plays WHERE "
                       "match_id = ? ORDER BY deal_no, seq", timed)
        delays = [(t - at_s(row[2])) * 1000 for (t, dl, c), row in
                  zip(lat, rows) if row[0] == dl and row[1] == c]
        return {"cpu_us_play": (c1 - c0) * 1e6 / plays, "plays": plays,
                "wall_s": t1 - t0, "delays": delays}
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
            data = len(web.get(port, "/api/v1/matches/%d/replay" % mid)[2])
            deals = r.query("SELECT count(*) FROM deals WHERE match_id = ?",
                            mid)[0][0]
            out[v] = (page, data, deals)
        return out
    finally:
        r.stop()


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    tmp = tempfile.mkdtemp(prefix="refd-bench-web.")
    print("refd's CPU per play, %d classic2 matches of the C random bot "
          "at once, best of %d rounds:" % (MATCHES, rounds))
    base = None
    for spect in (0, 100, 500):
        runs = [one_round(spect, tmp) for _ in range(rounds)]
        best = min(runs, key=lambda x: x["cpu_us_play"])
        delays = sorted(x for run in runs for x in run["delays"])
        if base is None:
            base = best["cpu_us_play"]
        p99 = delays[int(0.99 * (len(delays) - 1))] if delays else -1
        print("  %3d spectators: %6.1f us a play (%+.0f%%), %d plays in "
              "%.1f s; play to event: p50 %.1f ms, p99 %.1f ms, worst "
              "%.1f ms (%d events)" % (
                  spect, best["cpu_us_play"],
                  100 * (best["cpu_us_play"] / base - 1), best["plays"],
                  best["wall_s"], statistics.median(delays) if delays
                  else -1, p99, delays[-1] if delays else -1, len(delays)))
    print("a replay page with its data, uncompressed:")
    for v, (page, data, deals) in weight(tmp).items():
        print("  %s, %d deals: page %.1f KiB + replay %.1f KiB = %.1f KiB" %
              (v, deals, page / 1024, data / 1024, (page + data) / 1024))
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
