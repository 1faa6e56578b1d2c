#!/usr/bin/env python3
"""mixbot.py Q SEED COMMAND [ARG ...]: a weaker copy of another bot.

Runs COMMAND as a bot and passes refd's lines to it and its answers
back, except that with probability Q it replaces the card it chose by a
uniformly random card of its hand.  Q = 0 is the bot itself, Q = 1 a
random bot; between them, a bot of any strength in between, for
measuring the sequential test against a known gap.
"""
import random
import subprocess
import sys


def main():
    q = float(sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    child = subprocess.Popen(sys.argv[3:], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, bufsize=1)
    for line in sys.stdin:
        child.stdin.write(line)
        child.stdin.flush()
        words = line.split("#", 1)[0].split()
        if words and words[0].isdigit():
            words.pop(0)
        if not words:
            continue
        answer = []
        for reply in child.stdout:
            answer.append(reply)
            if reply.strip() == "":
                break
        if words[0] == "genplay" and len(words) > 2 and answer and \
                answer[0].startswith("=") and rng.random() < q:
            head = answer[0].split()
            head[-1] = rng.choice(words[2:])
            answer[0] = " ".join(head) + "\n"
        sys.stdout.write("".join(answer))
        sys.stdout.flush()
        if not answer:
            break
    child.stdin.close()
    child.wait()


if __name__ == "__main__":
    main()
