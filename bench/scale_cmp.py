#!/usr/bin/env python3
# usage and recipe: PERFORMANCE.md, "Issue 35"
"""Section 6 (1,000 matches) alternating configurations: TREE:commit_ms ...
usage: scale.py ROUNDS TREE:MS ..."""
import importlib.util, os, sys, tempfile, shutil, json, statistics
rounds = int(sys.argv[1]); cfgs = sys.argv[2:]
res = {c: {"p99": [], "kib": [], "cpu": [], "plays": [], "load": [], "audit": []} for c in cfgs}
try:
    import resource
    s, h = resource.getrlimit(resource.RLIMIT_NOFILE); resource.setrlimit(resource.RLIMIT_NOFILE, (h, h))
except Exception:
    pass
for rnd in range(rounds):
    for c in (cfgs if rnd % 2 == 0 else cfgs[::-1]):
        tree, ms = c.rsplit(":", 1)
        spec = importlib.util.spec_from_file_location("run", tree + "/bench/run.py")
        run = importlib.util.module_from_spec(spec); spec.loader.exec_module(run)
        orig = run.Refd
        if ms != "-":
            class R(orig):
                def __init__(self, *a, **kw):
                    kw["extra_conf"] = kw.get("extra_conf", "") + "commit_ms %s\n" % ms
                    orig.__init__(self, *a, **kw)
            run.Refd = R
        wd = tempfile.mkdtemp(prefix="scale-")
        try:
            r = run.scale_run(tree, wd)
        finally:
            shutil.rmtree(wd, ignore_errors=True)
        d = res[c]
        d["p99"].append(r["status_p99_ms"]); d["kib"].append(r["kib_per_match"])
        d["cpu"].append(r["refd_cpu_us_per_play"]); d["plays"].append(r["plays_per_s"])
        d["load"].append(os.getloadavg()[0]); d["audit"].append(r["audit_ok"] and r["matches_done"] == 1000)
        print(json.dumps(res), flush=True)
med = statistics.median
for c in cfgs:
    d = res[c]
    print("%s: status p99 %.1f ms %s, KiB/match %.1f, cpu/play %.1f, plays/s %.0f, ok %s" % (
        c, med(d["p99"]), ["%.1f" % x for x in d["p99"]], med(d["kib"]), med(d["cpu"]), med(d["plays"]), all(d["audit"])))
