#!/usr/bin/env python3
"""sprt_asn.py [SEEDS]: the SPRT's average sample number against Wald's.

Not part of make check (it takes minutes).  Against a real refd: heurbot
as the candidate, tests/mixbot.py (heurbot playing a random card a
quarter of the time, about 100 Elo weaker in classic2) as the pool.
First a calibration round robin estimates the distribution of one
observation's score; Wald's approximation of the average number of
observations to accept H1 is then upper / E, E the expected LLR step
under that distribution (the LLR of the calibration sample over its
size), and again with the distribution of all the SPRT runs' own
observations pooled, which Wald's identity makes free of the stopping
bias.  Then SEEDS (default 10) gauntlets with sprt 0 50 0.05 0.05, and
with duplicate deals the same with game pairs.  Run from the build
directory: top_builddir=. top_srcdir=. python3 tests/sprt_asn.py
"""
import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

REFCTL = harness.REFCTL
ELO0, ELO1, ALPHA, BETA = 0, 50, 0.05, 0.05


def llr(counts, elo0, elo1):
    """The GSPRT's LLR of score -> count, as refd-standings(7) says."""
    def lam(s):
        lo, hi = -1 / (1 - s), 1 / s
        f = lambda l: sum(c * (a - s) / (1 + l * (a - s))
                          for a, c in counts.items())
        if 0 not in counts and f(hi) >= 0:
            return hi
        if 1 not in counts and f(lo) <= 0:
            return lo
        for _ in range(200):
            mid = (lo + hi) / 2
            if f(mid) > 0:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2
    s0, s1 = [1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1)]
    l0, l1 = lam(s0), lam(s1)
    return sum(c * (math.log1p(l0 * (a - s0)) - math.log1p(l1 * (a - s1)))
               for a, c in counts.items())


def tour(r, tmp, name, text):
    path = os.path.join(tmp, name + ".tour")
    with open(path, "w") as f:
        f.write(text)
    ok, tid = r.ctl("tournament_start", path)
    assert ok, tid
    state = r.must("tournament_wait", tid, timeout=3600)
    return tid, state


def scores(r, tid, dup):
    """The candidate's score of each observation of a finished run."""
    res = subprocess.run([REFCTL, "tournament", "results", "--db", r.db,
                          tid, "--format", "csv"], capture_output=True,
                         text=True, check=True).stdout
    obs = {}
    for row in csv.DictReader(io.StringIO(res)):
        bots = row["bots"].split()
        me = bots.index("heur")
        win = row["result"] == "seat%d" % me
        draw = row["result"] == "draw"
        key = row["seed"] if dup else row["match"]
        obs.setdefault(key, []).append(1 if win else 0.5 if draw else 0)
    counts = {}
    for v in obs.values():
        a = sum(v) / len(v)
        counts[a] = counts.get(a, 0) + 1
    return counts


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    tmp = tempfile.mkdtemp(prefix="refd-asn.")
    r = harness.Refd(tmp)
    heur = os.path.join(harness.BUILD, "bots", "heurbot")
    r.add("heur", [heur])
    r.add("mix", [harness.PY, os.path.join(harness.SRC, "tests", "mixbot.py"),
                  "0.25", "1", heur])
    upper = math.log((1 - BETA) / ALPHA)
    try:
        for dup in ("no", "yes"):
            tid, _ = tour(r, tmp, "cal" + dup, "variant classic2\n"
                          "format gauntlet\ncandidate heur\nbots mix\n"
                          "duplicate %s\nmatches 600\nconcurrency 2\n"
                          "seed %s\n" % (dup, "cd" * 32))
            counts = scores(r, tid, dup == "yes")
            n = sum(counts.values())
            mean = sum(a * c for a, c in counts.items()) / n
            drift = llr(counts, ELO0, ELO1) / n
            elo = -400 * math.log10(1 / mean - 1)
            runs, tids = [], []
            for s in range(seeds):
                tid, state = tour(r, tmp, "sprt%s%d" % (dup, s),
                                  "variant classic2\nformat gauntlet\n"
                                  "candidate heur\nbots mix\nduplicate %s\n"
                                  "matches 2000\nconcurrency 2\n"
                                  "sprt %g %g %g %g\nseed %064x\n"
                                  % (dup, ELO0, ELO1, ALPHA, BETA, 0xc9 + s))
                j = json.loads(subprocess.run(
                    [REFCTL, "tournament", "standings", "--db", r.db, tid,
                     "--format", "json"], capture_output=True, text=True,
                    check=True).stdout)["sprt"]
                runs.append((j["units"], j["state"]))
                tids.append(tid)
            # Wald's identity: E[sum of scores at the stop] = mean E[N],
            # so the pooled runs estimate the mean without stopping bias
            pooled = {}
            for tid_ in tids:
                for a, k in scores(r, tid_, dup == "yes").items():
                    pooled[a] = pooled.get(a, 0) + k
            pn = sum(pooled.values())
            pdrift = llr(pooled, ELO0, ELO1) / pn
            h1 = sum(st == "H1" for _, st in runs)
            avg = sum(u for u, _ in runs) / len(runs)
            theory = (h1 / len(runs) * upper +
                      (1 - h1 / len(runs)) * -upper) / drift
            unit = "game pairs" if dup == "yes" else "matches"
            ptheory = (h1 / len(runs) * upper +
                       (1 - h1 / len(runs)) * -upper) / pdrift
            print("duplicate %s: score %.3f (%.0f Elo) over %d %s; "
                  "sprt %g %g %g %g: H1 %d of %d, average %.1f %s, "
                  "Wald %.1f from the calibration, %.1f from the runs' "
                  "own %d %s; each: %s" % (
                      dup, mean, elo, n, unit, ELO0, ELO1, ALPHA, BETA, h1,
                      len(runs), avg, unit, theory, ptheory, pn, unit,
                      " ".join(str(u) for u, _ in runs)), flush=True)
    finally:
        r.stop()


if __name__ == "__main__":
    main()
