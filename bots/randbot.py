#!/usr/bin/env python3
"""randbot.py: a refd bot in Python 3 that plays a random card.

It speaks refd-protocol(7) on stdin and stdout with nothing but the
standard library: it answers the standard GTP commands, acknowledges every
game notification and answers genplay with a uniformly random card of the
hand it is given; in chiamata5's auction it passes or names the next
weaker rank, at random, and names a random suit.

Run:    python3 bots/randbot.py [seed] [-r file]
With a seed (an integer) its choices are the same on every run.  With
-r every line received is appended to file as received, and each answer
after it as "> " and the answer without its id: the transcript that, with
the receipt in its match_end line, refctl verify-receipt holds the log to.
"""
import random
import sys

COMMANDS = (
    "bid", "called", "deal_end", "deal_start", "draw", "genbid", "gencall",
    "genplay", "joker", "known_command", "list_commands", "match_end",
    "match_start", "name", "partner", "partner_hand", "play",
    "protocol_version", "quit", "trick", "version",
)
# The auction's ranks from the strongest down; "-" before the first.
RANKS = ("-", "1", "3", "10", "9", "8", "7", "6", "5", "4", "2")


RECORD = None                   # -r: the transcript, or None


def answer(ok, ident, text=""):
    """Write one answer with the command's id, then the blank line."""
    sys.stdout.write("%s%s%s\n\n" % ("=" if ok else "?", ident,
                                     " " + text if text else ""))
    sys.stdout.flush()
    if RECORD:
        RECORD.write("> %s%s\n" % ("=" if ok else "?",
                                   text.split("\n", 1)[0]))
        RECORD.flush()


def main():
    """Answer each command on stdin until quit or end of file."""
    global RECORD
    argv = sys.argv[1:]
    if "-r" in argv:
        i = argv.index("-r")
        RECORD = open(argv[i + 1], "a")
        del argv[i:i + 2]
    rng = random.Random(int(argv[0]) if argv else None)
    for raw in iter(sys.stdin.buffer.readline, b""):
        if RECORD:
            RECORD.write(raw.decode("ascii", "replace").rstrip("\r\n") +
                         "\n")
            RECORD.flush()
        args = raw.decode("ascii", "replace").split("#", 1)[0].split()
        ident = ""
        if args and args[0].isdigit():
            ident = args.pop(0)
        if not args:
            continue            # a blank line or a comment
        cmd = args[0]
        if cmd == "protocol_version":
            answer(True, ident, "2")
        elif cmd == "name":
            answer(True, ident, "randbot.py")
        elif cmd == "version":
            answer(True, ident, "1.0")
        elif cmd == "known_command":
            known = len(args) > 1 and args[1] in COMMANDS
            answer(True, ident, "true" if known else "false")
        elif cmd == "list_commands":
            answer(True, ident, "\n".join(COMMANDS))
        elif cmd == "quit":
            answer(True, ident)
            return
        elif cmd == "genplay":
            if len(args) < 3:
                answer(False, ident, "no cards in hand")
            else:
                answer(True, ident, rng.choice(args[2:]))
        elif cmd == "genbid":
            # pass, or the rank just weaker than the last named
            last = args[2] if len(args) > 2 else "-"
            i = RANKS.index(last) if last in RANKS else len(RANKS) - 1
            if i + 1 < len(RANKS) and rng.random() < 0.5:
                answer(True, ident, RANKS[i + 1])
            else:
                answer(True, ident, "pass")
        elif cmd == "gencall":
            answer(True, ident, rng.choice("CDBS"))
        elif cmd in COMMANDS:
            answer(True, ident)
        else:
            answer(False, ident, "unknown command")


if __name__ == "__main__":
    main()
