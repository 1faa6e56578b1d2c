#!/usr/bin/env python3
# usage and recipe: PERFORMANCE.md, "Issue 35"
"""The ACPC dealer against refd joker3 (PERFORMANCE.md's recipe), trees
alternating, ROUNDS rounds: us per decision.  usage: dealer.py ROUNDS TREE..."""
import os, re, signal, socket, subprocess, sys, tempfile, time, shutil, json, statistics
ACPC = os.environ.get("ACPC", "/tmp/acpc")   # the built ACPC server, outside the tree
rounds = int(sys.argv[1]); trees = sys.argv[2:]
def acpc():
    d = tempfile.mkdtemp(prefix="acpc-")
    t0 = time.monotonic()
    dl = subprocess.Popen([ACPC + "/dealer", d + "/m", ACPC + "/holdem.limit.3p.game",
                           "20000", "0", "A", "B", "C", "-q"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    ports = dl.stdout.readline().split()
    pl = [subprocess.Popen([ACPC + "/example_player", ACPC + "/holdem.limit.3p.game",
                            "127.0.0.1", p], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL) for p in ports]
    dl.wait(); [p.wait() for p in pl]
    wall = time.monotonic() - t0
    n = 0
    for line in open(d + "/m.log"):
        if line.startswith("STATE"):
            n += sum(line.split(":")[2].count(c) for c in "fcr")
    shutil.rmtree(d, ignore_errors=True)
    return wall * 1e6 / n
def refd(tree, shm=False):
    d = tempfile.mkdtemp(prefix="cmpr-", dir="/dev/shm" if shm else None)
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    db, sock = d + "/cmp.db", d + "/cmp.sock"
    r = subprocess.Popen([tree + "/refd/refd", "-D", db, "-c", sock, "-l",
                          "127.0.0.1:%d" % port], stderr=subprocess.DEVNULL)
    for _ in range(500):
        if os.path.exists(sock): break
        time.sleep(0.01)
    time.sleep(0.1)
    ctl = tree + "/refd/refctl"
    br = []
    for i in range(3):
        subprocess.run([ctl, "-c", sock, "bot", "add", "b%d" % i, "--remote",
                        "token-0000000%d" % i], check=True, stdout=subprocess.DEVNULL)
        br.append(subprocess.Popen([ctl, "bridge", "-p", str(port), "-n", "b%d" % i,
                                    "--", tree + "/bots/randbot"],
                                   env=dict(os.environ, REFD_TOKEN="token-0000000%d" % i),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    time.sleep(0.5)
    def cpu():
        f = open("/proc/%d/stat" % r.pid).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    c0 = cpu(); t0 = time.monotonic()
    for m in range(40):
        subprocess.run([ctl, "-c", sock, "match", "--variant", "joker3", "b0", "b1", "b2"],
                       check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0; c = cpu() - c0
    # what a refctl process alone costs, started as the recipe starts
    # one a match: a command, and out
    t1 = time.monotonic()
    for m in range(40):
        subprocess.run([ctl, "-c", sock, "status"], check=True, stdout=subprocess.DEVNULL)
    bare = (time.monotonic() - t1) / 40
    out = subprocess.run(["sqlite3", db, "SELECT count(*) FROM plays; SELECT sum((julianday(ended) - julianday(started)) * 86400e6) FROM matches"],
                         capture_output=True, text=True).stdout.split()
    plays, inside = int(out[0]), float(out[1])
    # from one match's end to the next one's start, in ms: the end's
    # sync, refctl's answer and exit, a new refctl, the next start
    gaps = sorted(float(x) for x in subprocess.run(["sqlite3", db,
        "SELECT (julianday(started) - julianday(lag(ended) OVER (ORDER BY id)))"
        " * 86400e3 FROM matches"], capture_output=True, text=True).stdout.split())
    gap = statistics.median(gaps) if gaps else 0
    r.send_signal(signal.SIGTERM); r.wait()
    for b in br:
        b.kill(); b.wait()
    shutil.rmtree(d, ignore_errors=True)
    return wall * 1e6 / plays, inside / plays, c * 1e6 / plays, bare * 40e6 / plays, gap, bare * 1e3
res = {"acpc": [], "load": []}
for t in trees:
    res[t] = {"us": [], "inside": [], "cpu": [], "refctl": [], "gap_ms": [],
              "refctl_ms": []}
for rnd in range(rounds):
    res["load"].append(os.getloadavg()[0])
    res["acpc"].append(acpc())
    for t in (trees if rnd % 2 == 0 else trees[::-1]):
        a, b, c, e, g, f = refd(t)
        res[t]["us"].append(a); res[t]["inside"].append(b); res[t]["cpu"].append(c)
        res[t]["refctl"].append(e); res[t]["gap_ms"].append(g)
        res[t]["refctl_ms"].append(f)
    print(json.dumps(res), flush=True)
med = statistics.median
print("acpc %.1f us/decision, load %s" % (med(res["acpc"]), ["%.1f" % l for l in res["load"]]))
for t in trees:
    print("%s: %.1f us/play (%.2f), inside %.1f (%.2f), refd cpu %.1f, "
          "a refctl process a match %.1f (%.2f ms), end to next start "
          "%.2f ms  rounds %s" % (
        t, med(res[t]["us"]), med(res[t]["us"]) / med(res["acpc"]),
        med(res[t]["inside"]), med(res[t]["inside"]) / med(res["acpc"]),
        med(res[t]["cpu"]), med(res[t]["refctl"]), med(res[t]["refctl_ms"]),
        med(res[t]["gap_ms"]),
        ["%.1f" % x for x in res[t]["us"]]))
