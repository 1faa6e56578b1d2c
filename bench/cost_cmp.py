#!/usr/bin/env python3
# usage and recipe: PERFORMANCE.md, "Issue 35"
"""Section 7 of scripts/bench for each tree: system calls and instructions a play."""
import importlib.util, json, sys, tempfile, shutil, os
out = {}
for t in sys.argv[1:]:
    spec = importlib.util.spec_from_file_location("run", t + "/bench/run.py")
    run = importlib.util.module_from_spec(spec); spec.loader.exec_module(run)
    wd = tempfile.mkdtemp(prefix="cost-")
    try:
        sc = run.bench_syscalls(t, wd)
        cg = run.bench_callgrind(t, wd)
        out[t] = {"load": os.getloadavg()[0], "syscalls": sc["per_play"], "by_call": sc["by_call"],
                  "loop_per_play": cg["loop_per_play"], "plays": cg["plays"]}
    finally:
        shutil.rmtree(wd, ignore_errors=True)
    print(json.dumps(out[t]), flush=True)
