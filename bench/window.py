#!/usr/bin/env python3
# usage and recipe: PERFORMANCE.md, "Issue 35"
"""tcp k=K with commit_ms values alternating: refd CPU/play (all threads)
and pwrite64/fdatasync/fcntl per play by perf.  usage: cms.py TREE K ROUNDS MS..."""
import importlib.util, os, sys, tempfile, time, subprocess, shutil, json, re, statistics
tree, k, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]); values = sys.argv[4:]
spec = importlib.util.spec_from_file_location("run", tree + "/bench/run.py")
run = importlib.util.module_from_spec(spec); spec.loader.exec_module(run)
wd = tempfile.mkdtemp(prefix="cms-")
res = {v: {"cpu": [], "plays": [], "pwrite": [], "load": []} for v in values}
try:
    for rnd in range(rounds):
        for v in (values if rnd % 2 == 0 else values[::-1]):
            r = run.Refd(tree, wd, listen=True, extra_conf="commit_ms %s\n" % v)
            bots = run.add_bots(r, tree, "tcp")
            lg = run.Loadgen(tree, r.port, run.SEATS, k)
            r.release()
            drv = run.Driver(r, bots, k)
            time.sleep(1.0)
            p0 = run.db_counts(r.db)["plays"]; c0 = run.proc_cpu_ns(r.pid)
            perf = subprocess.Popen(["perf", "stat", "-x,", "-e", "syscalls:sys_enter_pwrite64", "-p", str(r.pid), "--", "sleep", "3"],
                                    stderr=subprocess.PIPE, text=True)
            err = perf.communicate()[1]
            p1 = run.db_counts(r.db)["plays"]; c1 = run.proc_cpu_ns(r.pid)
            drv.stop(); lg.stop(); r.stop()
            n = max(p1 - p0, 1)
            pw = int(err.strip().splitlines()[-1].split(",")[0]) if err.strip() else -1
            res[v]["cpu"].append((c1 - c0) / 1e3 / n); res[v]["plays"].append(n / 3.0)
            res[v]["pwrite"].append(pw / n); res[v]["load"].append(os.getloadavg()[0])
        print(json.dumps(res), flush=True)
finally:
    shutil.rmtree(wd, ignore_errors=True)
for v in values:
    print("commit_ms %s: cpu/play %.1f  plays/s %.0f  pwrite/play %.2f  (cpu rounds %s)" % (v,
        statistics.median(res[v]["cpu"]), statistics.median(res[v]["plays"]), statistics.median(res[v]["pwrite"]),
        ["%.1f" % x for x in res[v]["cpu"]]))
