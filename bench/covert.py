#!/usr/bin/env python3
"""bench/covert.py: bits a second between two colluding bots, through
the best channel the sandbox leaves them: CPU contention.

    scripts/bench covert [SECONDS]

Runs bench/covert's sender and receiver at once, each in a bwrap
sandbox like a spawned bot's (its own namespaces, no user namespace of
its own, the host's /usr only; as root, as nobody), for SECONDS (2 by
default) per slot length, both pinned to CPU 0 as colluders would, and
then unpinned.  The receiver decides each bit by its count against the
median; with the error rate p, the channel carries 1 - H(p) bits a slot
(a binary symmetric channel's capacity).  Prints, per slot, the error
rate and bits a second, and the best.
"""
import math
import os
import random
import shutil
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(os.environ.get("top_builddir", TOP))
COVERT = os.path.join(BUILD, "bench", "covert")


def sandboxed(args):
    """args run as a bot's sandbox runs it."""
    cmd = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns",
           "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
    d = os.path.dirname(COVERT)
    cmd += ["--proc", "/proc", "--dev", "/dev", "--ro-bind", d, d,
            "--remount-ro", "/", "--", COVERT] + args
    if os.geteuid() == 0:
        cmd = ["setpriv", "--reuid", "65534", "--regid", "65534",
               "--clear-groups"] + cmd
    return cmd


def bits(seed, n):
    """The sender's bits: covert.c's xorshift64."""
    s, out = seed | 1, []
    m = (1 << 64) - 1
    for _ in range(n):
        s ^= (s << 13) & m
        s ^= s >> 7
        s ^= (s << 17) & m
        out.append(s >> 63)
    return out


def h2(p):
    return 0.0 if p <= 0 or p >= 1 else -p * math.log2(p) - \
        (1 - p) * math.log2(1 - p)


def run(slot_us, seconds, cpu):
    n = max(100, min(20000, int(seconds * 1e6 / slot_us)))
    seed = random.getrandbits(63)
    t0 = time.time_ns() + 300 * 1000000    # both sandboxes up by then
    args = [str(t0), str(slot_us), str(n), str(seed), str(cpu)]
    send = subprocess.Popen(sandboxed(["send"] + args))
    recv = subprocess.run(sandboxed(["recv"] + args), capture_output=True,
                          text=True, timeout=seconds * 4 + 30)
    send.wait(seconds * 4 + 30)
    counts = [int(x) for x in recv.stdout.split()]
    sent = bits(seed, n)
    skip = 10       # the first slots: both still settling
    c, s = counts[skip:], sent[skip:len(counts)]
    med = sorted(c)[len(c) // 2]
    got = [1 if x < med else 0 for x in c]
    p = sum(1 for a, b in zip(got, s) if a != b) / len(s)
    p = min(p, 1 - p)
    rate = (1 - h2(p)) * 1e6 / slot_us
    return p, rate, len(s)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    if not os.access(COVERT, os.X_OK) or not shutil.which("bwrap"):
        sys.exit("bench/covert.py: build bench/covert, and install bwrap")
    best = (0.0, "")
    for cpu, how in ((0, "pinned to one CPU"), (-1, "unpinned")):
        for slot in (200, 500, 1000, 2000, 5000):
            p, rate, n = run(slot, seconds, cpu)
            print("%-18s slot %5d us  %5d bits  error %5.1f %%  %8.1f "
                  "bits/s" % (how, slot, n, p * 100, rate))
            if rate > best[0]:
                best = (rate, "%s, slot %d us, error %.1f %%" %
                        (how, slot, p * 100))
    print("best: %.0f bits/s (%s)" % best)


if __name__ == "__main__":
    main()
