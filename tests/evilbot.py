#!/usr/bin/env python3
"""evilbot.py MODE [ARG]: a bot that misbehaves in one chosen way.

Used by the end-to-end and adversarial tests.  Until the moment it
misbehaves it answers like a random bot.  Modes:

  good        never misbehaves (a control)
  record F    never misbehaves; appends every line it receives to F
  stamp F     never misbehaves; appends "ID US" to F for every genplay,
              US being when it read it (CLOCK_MONOTONIC, microseconds)
  chunks F    never misbehaves; appends "N LINE" to F for every line it
              receives, N the number of the read(2) that completed it
  hang        stops answering at its first genplay
  late MS [F] answers its first genplay MS milliseconds late; with F,
              first appends "genplay" to F, as it reads it
  crash       exits in the middle of the first deal
  early       exits before its first answer
  garbage     answers its first genplay with text that is no answer
  junk        answers its first genplay with binary bytes and NULs
  longline    answers its first genplay with a 1 MiB line
  wrongid     answers its first genplay with the wrong id
  unasked     sends an answer nobody asked for
  illegal     plays a card it does not hold
  twice       plays the same card twice (its first card, again)
  closeout    closes stdout at its first genplay but stays alive
  forkhold    forks a child that keeps the pipes, then exits
  drip        answers its first genplay one byte a second
  flood       sends 100,000 comment and answer lines at once
  comments    at its first genplay writes comment lines without end
  refuse      answers genplay with ?
  notacard    answers every genplay with "x", which is no card
  noblank     never writes the blank line that must end every answer
  slow MS [F] answers every genplay MS milliseconds late; with F,
              appends each genplay's limit to F, a line each
  spin        spins the CPU at its first genplay, forever
  stderrflood writes 3 MiB to stderr at its first genplay, then plays on
  slowstart MS  waits MS milliseconds before reading anything
  slownote MS   waits MS milliseconds before answering its first
              deal_start, so that a genplay queues behind it
  inject      refuses genplay with a multi-line answer that forges lines
  noflush     answers everything right but never flushes its output
  ragged      answers everything right, with CR LF line ends, each
              answer in two writes cut inside a line, 2 ms apart
  oldbot      a bot written before the auction: known_command genbid
              and gencall answer false
  badbid      answers every genbid with a rank it may not name (the
              last rank named again, or "0")
  badcall     bids as a random bot, but answers gencall with "X", no suit
  latebid MS  answers its first genbid MS milliseconds late
  passer      passes at every genbid: five of them make void deals

Every mode answers known_command (true, but for oldbot), and chiamata5's
genbid (pass, or a rank weaker than the last) and gencall (a suit).
"""
import os
import random
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
ARG = sys.argv[2] if len(sys.argv) > 2 else None
MARK = sys.argv[3] if len(sys.argv) > 3 else None
out = sys.stdout.buffer
rng = random.Random(7)
# chiamata5's ranks, strongest first: each call must name a later one
RANKS = ["1", "3", "10", "9", "8", "7", "6", "5", "4", "2"]
genplays = 0
played = []


def send(data):
    if MODE == "ragged":
        data = data.replace(b"\n", b"\r\n")
        out.write(data[:len(data) // 2 + 1])
        out.flush()
        time.sleep(0.002)
        data = data[len(data) // 2 + 1:]
    out.write(data)
    if MODE != "noflush":
        out.flush()


def answer(ident, text=""):
    end = "\n" if MODE == "noblank" else "\n\n"
    send(("=%s%s%s" % (ident, " " + text if text else "", end)).encode())


def misbehave(ident, hand):
    """Do this mode's wrong thing on the first genplay; True if done."""
    if MODE == "hang":
        time.sleep(3600)
    elif MODE == "late":
        if MARK:
            with open(MARK, "a") as f:
                f.write("genplay\n")
        time.sleep(int(ARG) / 1000.0)
        return False
    elif MODE == "crash":
        os._exit(3)
    elif MODE == "garbage":
        send(b"I think I will play the ace\n\n")
    elif MODE == "junk":
        send(b"=\x00\x01\xff\xfe junk \x00\n\n")
    elif MODE == "longline":
        send(b"=" + ident.encode() + b" " + b"x" * (1 << 20) + b"\n\n")
    elif MODE == "wrongid":
        send(("=%d %s\n\n" % (int(ident) + 1000, hand[0])).encode())
    elif MODE == "illegal":
        mine = set(hand)
        other = next(c for c in (str(r) + s for s in "CDBS"
                                 for r in range(1, 11)) if c not in mine)
        answer(ident, other)
    elif MODE == "twice":
        answer(ident, played[0])
    elif MODE == "closeout":
        os.close(1)
        time.sleep(3600)
    elif MODE == "forkhold":
        if os.fork() == 0:
            time.sleep(3600)
            os._exit(0)
        os._exit(0)
    elif MODE == "drip":
        for b in ("=%s %s\n\n" % (ident, hand[0])).encode():
            send(bytes([b]))
            time.sleep(1)
    elif MODE == "flood":
        send(b"# flood\n" * 50000 + b"=999999 x\n\n" * 50000)
    elif MODE == "comments":
        line = b"# thinking" + b"." * 90 + b"\n"
        while True:     # until refd closes the pipe: EPIPE ends it
            send(line * 100)
    elif MODE == "inject":
        send(("?%s no\nend seat0 forged\n\x1b[2J\n\n" % ident).encode())
    elif MODE == "spin":
        while True:
            pass
    elif MODE == "refuse":
        send(("?%s I refuse\n\n" % ident).encode())
    else:
        return False
    return True


def chunked_lines(log):
    """stdin's lines, each logged as "N LINE", N the number of the
    read(2) that completed it: lines written at once share an N."""
    buf, n = b"", 0
    while True:
        data = os.read(0, 65536)
        if not data:
            return
        n += 1
        buf += data
        while b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            log.write("%d %s\n" % (n, raw.decode("ascii", "replace")))
            log.flush()
            yield raw + b"\n"


def main():
    global genplays
    log = open(ARG, "a") if MODE == "record" else None
    chunks = open(ARG, "a") if MODE == "chunks" else None
    stamps = open(ARG, "a") if MODE == "stamp" else None
    if MODE == "early":
        os._exit(0)
    if MODE == "slowstart":
        time.sleep(int(ARG) / 1000.0)
    for raw in chunked_lines(chunks) if chunks else \
            iter(sys.stdin.buffer.readline, b""):
        read_us = time.monotonic_ns() // 1000
        line = raw.decode("ascii", "replace").rstrip("\r\n")
        if log:
            log.write(line + "\n")
            log.flush()
        args = line.split("#", 1)[0].split()
        ident = args.pop(0) if args and args[0].isdigit() else ""
        if not args:
            continue
        cmd = args[0]
        if cmd == "name":
            answer(ident, "evilbot-" + MODE)
        elif cmd == "version":
            answer(ident, "1")
            if MODE == "unasked":
                send(b"=424242 surprise\n\n")
        elif cmd == "genplay":
            hand = args[2:]
            genplays += 1
            if stamps:
                stamps.write("%s %d\n" % (ident, read_us))
                stamps.flush()
            if MODE == "stderrflood" and genplays == 1:
                sys.stderr.write("e" * (3 << 20))
                sys.stderr.flush()
            if MODE == "slow":
                if MARK:
                    with open(MARK, "a") as f:
                        f.write(args[1] + "\n")
                time.sleep(int(ARG) / 1000.0)
            if MODE == "notacard":
                answer(ident, "x")
                continue
            if genplays == (2 if MODE == "twice" else 1) and \
                    misbehave(ident, hand):
                continue
            card = rng.choice(hand)
            played.append(card)
            answer(ident, card)
        elif cmd == "known_command":
            auction = args[1:2] in (["genbid"], ["gencall"])
            answer(ident, "false" if MODE == "oldbot" and auction else
                   "true")
        elif cmd == "genbid":
            last = args[2] if len(args) > 2 else "-"
            if MODE == "latebid" and not played:
                played.append("bid")
                time.sleep(int(ARG) / 1000.0)
            if MODE == "badbid":
                answer(ident, last if last != "-" else "0")
                continue
            if MODE == "passer":
                answer(ident, "pass")
                continue
            weaker = RANKS[RANKS.index(last) + 1:] if last in RANKS \
                else RANKS
            answer(ident, rng.choice(["pass", "pass"] + weaker[:3])
                   if weaker else "pass")
        elif cmd == "gencall":
            answer(ident, "X" if MODE == "badcall" else rng.choice("CDBS"))
        elif cmd == "quit":
            answer(ident)
            return
        else:
            if MODE == "slownote" and cmd == "deal_start" and \
                    not played:
                time.sleep(int(ARG) / 1000.0)
            answer(ident)


if __name__ == "__main__":
    main()
