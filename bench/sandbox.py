#!/usr/bin/env python3
"""bench/sandbox.py: what the bubblewrap sandbox costs refd.

    scripts/bench sandbox [MATCHES]

Runs the same work on two refds, one with the sandbox (the default) and
one with "sandbox none", on the built tree: MATCHES (default 40)
classic2 matches of one deal between two bots/randbot, one at a time,
then one long classic2 match (deal_cap 30, so 30 deals of 40 plays).
Prints for each mode the wall time per short match (mostly starting
two bots), the time per play in the long match, and the differences:
the sandbox's cost per match started and per play.
"""
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


def run(mode, n):
    tmp = tempfile.mkdtemp(prefix="refd-sbcost.")
    conf = os.path.join(tmp, "refd.conf")
    with open(conf, "w") as f:
        f.write("sandbox %s\n" % mode)
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
    res = {m: run(m, n) for m in ("bwrap", "none")}
    for m, (pm, pp, plays) in res.items():
        print("sandbox %-5s  %7.2f ms per 1-deal match   %6.1f us per play "
              "(%d plays)" % (m, pm * 1e3, pp * 1e6, plays))
    print("sandbox cost:  %7.2f ms per match started   %6.1f us per play" %
          ((res["bwrap"][0] - res["none"][0]) * 1e3,
           (res["bwrap"][1] - res["none"][1]) * 1e6))


if __name__ == "__main__":
    main()
