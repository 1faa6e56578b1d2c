#!/usr/bin/env python3
# usage and recipe: PERFORMANCE.md, "Issue 35"
"""Side by side, trees alternating, ROUNDS rounds: the floor referee's CPU
a round trip (tcp pairs 1, 64; pipe 8 round trips/s), then for each tree
refd's CPU us/play at tcp k=1, tcp k=64, spawn k=8 (plays/s, others' CPU),
spawn k=1 (others' CPU).  usage: side.py ROUNDS TREE... (build dirs)"""
import importlib.util, json, os, sys, tempfile, shutil, statistics
spec = importlib.util.spec_from_file_location("run", sys.argv[2] + "/bench/run.py")
run = importlib.util.module_from_spec(spec); spec.loader.exec_module(run)
run.REPS = 3
rounds = int(sys.argv[1]); trees = sys.argv[2:]
res = {t: {} for t in trees}
res["floor"] = {}
def add(d, k, v): d.setdefault(k, []).append(v)
wd = tempfile.mkdtemp(prefix="side-")
only = os.environ.get("ONLY", "tcp/1,tcp/64,spawn/8,spawn/1").split(",")
try:
    for rnd in range(rounds):
        add(res["floor"], "load", os.getloadavg()[0])
        for t, p in (("tcp", 1), ("tcp", 64)):
            runs, n = run.floor_runs(trees[0], t, p)
            add(res["floor"], "%s/%d cpu" % (t, p), statistics.median(runs["ref_cpu_us_per_rt"]))
        for t in (trees if rnd % 2 == 0 else trees[::-1]):
            for key in only:
                tr, k = key.split("/"); k = int(k)
                r = run.throughput(t, wd, tr, k)
                add(res[t], "%s cpu" % key, r["refd_cpu_us_per_play"]["median"])
                add(res[t], "%s plays" % key, r["plays_per_s"]["median"])
                add(res[t], "%s others" % key, r["others_cpu_us_per_play"]["median"])
        print(json.dumps(res), flush=True)
finally:
    shutil.rmtree(wd, ignore_errors=True)
