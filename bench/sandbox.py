#!/usr/bin/env python3
"""bench/sandbox.py: what the bubblewrap sandbox costs refd.

    scripts/bench sandbox [MATCHES]

Runs the same work on three refds: the sandbox with bot_memory_mb set
(each bot in a memory cgroup of its own), the sandbox without a memory
limit (no cgroup), and "sandbox none", on the built tree: MATCHES
(default 40) classic2 matches of one deal between two bots/randbot, one
at a time, then one long classic2 match (deal_cap 30, so 30 deals of 40
plays).  Prints for each the wall time per short match (mostly starting
two bots), the time per play in the long match, and the differences:
the sandbox's and the cgroup's cost per match started and per play.
Then bench/sfcost's figures for the system-call filter, which every
sandboxed bot has: building it, a descriptor of it per bot, a bwrap
start with and without it, and a system call and a pipe round trip
(what a bot makes per command) without and under it.
"""
import subprocess
import os
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("top_builddir", TOP)
os.environ.setdefault("top_srcdir", TOP)
sys.path.insert(0, os.path.join(TOP, "tests"))
import harness  # noqa: E402

BOT = [os.path.join(harness.BUILD, "bots", "randbot")]


MODES = {"cgroup": "sandbox bwrap\nbot_memory_mb 1024\n",
         "bwrap": "sandbox bwrap\n", "none": "sandbox none\n"}


def run(mode, n):
    tmp = tempfile.mkdtemp(prefix="refd-sbcost.")
    conf = os.path.join(tmp, "refd.conf")
    with open(conf, "w") as f:
        f.write(MODES[mode])
    r = harness.Refd(tmp, move_ms=5000, extra=["-f", conf])
    try:
        r.add("a", BOT + ["-s", "1"])
        r.add("b", BOT + ["-s", "2"])
        r.wait(r.start("classic2", ["a", "b"], "deals_to_win=1"))  # warm
        t0 = time.monotonic()
        for _ in range(n):
            result, reason = r.wait(r.start("classic2", ["a", "b"],
                                            "deals_to_win=1"))
            assert result.startswith(("seat", "draw")), reason
        per_match = (time.monotonic() - t0) / n
        t0 = time.monotonic()
        mid = r.start("classic2", ["a", "b"], "deals_to_win=1000",
                      "deal_cap=30")
        r.wait(mid)
        took = time.monotonic() - t0
        (plays,), = r.query("SELECT count(*) FROM plays WHERE match_id = ?",
                            mid)
    finally:
        r.stop()
    return per_match, took / plays, plays


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and
                             not sys.argv[1].isdigit()):
        sys.stdout.write(__doc__)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    res = {m: run(m, n) for m in ("cgroup", "bwrap", "none")}
    for m, (pm, pp, plays) in res.items():
        print("%-7s %7.2f ms per 1-deal match   %6.1f us per play "
              "(%d plays)" % (m, pm * 1e3, pp * 1e6, plays))
    print("sandbox cost: %7.2f ms per match started   %6.1f us per play" %
          ((res["bwrap"][0] - res["none"][0]) * 1e3,
           (res["bwrap"][1] - res["none"][1]) * 1e6))
    print("cgroup cost:  %7.2f ms per match started   %6.1f us per play" %
          ((res["cgroup"][0] - res["bwrap"][0]) * 1e3,
           (res["cgroup"][1] - res["bwrap"][1]) * 1e6))
    sf = os.path.join(harness.BUILD, "bench", "sfcost")
    out = subprocess.run([sf], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        print("filter: bench/sfcost failed: " + out.stderr.strip())
        return
    v = {}
    for line in out.stdout.split("\n"):
        if line:
            k, x = line.split()
            v.setdefault(k, []).append(float(x))
    avg = {k: sum(x) / len(x) for k, x in v.items()}
    print("filter: built in %.0f us once; %.2f us a descriptor per bot; "
          "bwrap %.2f ms, with it %.2f ms: %.2f ms per bot started" %
          (avg["build_us"], avg["open_us"], avg["bwrap_ms"],
           avg["bwrap_sf_ms"], avg["bwrap_sf_ms"] - avg["bwrap_ms"]))
    print("filter: a system call %.0f ns, under it %.0f ns; a pipe round "
          "trip %.0f ns, under it %.0f ns: %.0f ns per command and answer "
          "of a bot" % (avg["call_ns"], avg["call_sf_ns"], avg["pipe_ns"],
                        avg["pipe_sf_ns"], avg["pipe_sf_ns"] -
                        avg["pipe_ns"]))


if __name__ == "__main__":
    main()
