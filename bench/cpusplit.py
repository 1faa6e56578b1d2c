#!/usr/bin/env python3
# usage and recipe: PERFORMANCE.md, "The goals again"
"""refd's CPU a play split into user and system time (/proc/PID/stat, in
ticks, sampled where bench/run.py's throughput() samples refd's CPU),
beside the floor referee's CPU a round trip, at tcp concurrency K.
usage: cpusplit.py TREE [K]"""
import importlib.util, json, os, statistics, sys, tempfile, shutil
tree = sys.argv[1]
k = int(sys.argv[2]) if len(sys.argv) > 2 else 64
spec = importlib.util.spec_from_file_location("run", tree + "/bench/run.py")
run = importlib.util.module_from_spec(spec); spec.loader.exec_module(run)
run.REPS = 3
marks = []
cpu_ns = run.proc_cpu_ns
def sampled(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    marks.append((int(f[11]), int(f[12])))
    return cpu_ns(pid)
run.proc_cpu_ns = sampled
wd = tempfile.mkdtemp(prefix="cpusplit-")
try:
    runs, _ = run.floor_runs(tree, "tcp", k)
    r = run.throughput(tree, wd, "tcp", k)
finally:
    shutil.rmtree(wd, ignore_errors=True)
# throughput() samples each repetition's start and end: consecutive pairs
shares = []
for a, b in zip(marks[0::2], marks[1::2]):
    u, s = b[0] - a[0], b[1] - a[1]
    if u + s > 0:
        shares.append(s / (u + s))
floor = statistics.median(runs["ref_cpu_us_per_rt"])
refd = r["refd_cpu_us_per_play"]["median"]
print(json.dumps({"load": os.getloadavg()[0], "floor_cpu_us_per_rt": floor,
                  "refd_cpu_us_per_play": refd, "ratio": refd / floor,
                  "refd_system_share": shares,
                  "refd_system_us_per_play": [x * refd for x in shares]}))
