#!/usr/bin/env python3
"""lagbot.py MS N[,N...] MARK -- COMMAND...: an example bot, made late.

Runs COMMAND (an example bot, keeping its own transcript with -r) and
relays refd's lines to it and its answers back, untouched, but for the
Nth move asked of it (genplay, genbid or gencall, counted from 1), whose
answer it holds MS milliseconds before passing it on: refd times that
move out, and reads the answer late.  The bot itself answered in time,
so its kept transcript holds the answer as it gave it.  Each time it
starts to hold an answer it appends "hold" to MARK ("-": none).

Used by tests/receipts.py.
"""
import os
import subprocess
import sys
import threading
import time

MOVES = (b"genplay", b"genbid", b"gencall")


def main():
    ms = int(sys.argv[1]) / 1000.0
    which = set(int(n) for n in sys.argv[2].split(","))
    mark = sys.argv[3]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, bufsize=0)
    hold = threading.Event()

    def down():
        n = 0
        for line in iter(sys.stdin.buffer.readline, b""):
            words = line.split()
            if len(words) > 1 and words[0].isdigit() and words[1] in MOVES:
                n += 1
                if n in which:
                    hold.set()
            try:
                child.stdin.write(line)
                child.stdin.flush()
            except OSError:
                break
        try:
            child.stdin.close()
        except OSError:
            pass

    threading.Thread(target=down, daemon=True).start()
    while True:
        data = os.read(child.stdout.fileno(), 65536)
        if not data:
            break
        if hold.is_set():
            hold.clear()
            if mark != "-":
                with open(mark, "a") as f:
                    f.write("hold\n")
            time.sleep(ms)
        os.write(1, data)
    child.wait()


if __name__ == "__main__":
    main()
