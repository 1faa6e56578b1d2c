#!/usr/bin/env python3
# usage and recipe: PERFORMANCE.md, "A match's end joins the open group"
"""refd's system calls a play, its threads counted, while K joker3
matches play over tcp (section 4's set-up), from perf's tracepoints
over SECS seconds, and refd's CPU a play in the same seconds.
usage: syscalls.py TREE [K [SECS]]   (TREE: a build directory)"""
import importlib.util, os, shutil, sys, tempfile, time

tree = sys.argv[1]
k = int(sys.argv[2]) if len(sys.argv) > 2 else 64
secs = float(sys.argv[3]) if len(sys.argv) > 3 else 4
spec = importlib.util.spec_from_file_location("run", tree + "/bench/run.py")
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)
events = run.perf_events()
if events is None:
    sys.exit("syscalls.py: no perf here, or not its tracepoints")
wd = tempfile.mkdtemp(prefix="syscalls-")
r = run.Refd(tree, wd, listen=True)
lg = drv = None
try:
    bots = run.add_bots(r, tree, "tcp")
    lg = run.Loadgen(tree, r.port, run.SEATS, k)
    r.release()
    drv = run.Driver(r, bots, k)
    time.sleep(run.WARMUP_S)
    out = os.path.join(wd, "perf.txt")
    d0, c0 = run.db_counts(r.db), run.proc_cpu_ns(r.pid)
    detach = run.perf_attach(r.pid, out, events)
    time.sleep(secs)
    detach()
    d1, c1 = run.db_counts(r.db), run.proc_cpu_ns(r.pid)
    plays = max(d1["plays"] - d0["plays"], 1)
    total, calls = run.perf_counts(out)
    print("k %d: %d plays, %.1f a match, refd CPU %.1f us a play, %.3f "
          "system calls a play" % (
              k, plays, plays / max(d1["matches"] - d0["matches"], 1),
              (c1 - c0) / 1e3 / plays, total / plays))
    for name, n in sorted(calls.items(), key=lambda kv: -kv[1]):
        print("%-20s %7.3f a play" % (name, n / plays))
finally:
    if drv:
        drv.stop()
        drv.join()
    r.stop()
    if lg:
        lg.stop()
    shutil.rmtree(wd, ignore_errors=True)
