#!/usr/bin/env python3
"""docs.py: the man pages against what refd and refctl do.

Each test reads what a page says and holds the code or the programs to
it: the events of match_watch in refd(8) against those match.c emits,
the keys of match_start in refd-protocol(7) once each, the variants
refd-tournament(5) names against those a tournament file takes, the bots
refctl(1) says a match takes against a classic6 match played, the
pairwise games refd-standings(7) counts in a classic6 match against the
standings of one, and refctl's exit status for a match not in the log.
Prints "N passed, M failed"; exits 1 if anything failed.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

SRC = harness.SRC
VARIANTS = ["joker3", "classic2", "classic3", "classic4", "classic5",
            "classic6", "briscolone", "chiamata5"]


def page(name):
    with open(os.path.join(SRC, "man", name)) as f:
        return f.read()


def refctl(*args):
    return subprocess.run([harness.REFCTL] + list(args), capture_output=True,
                          text=True, timeout=300)


def test_watch_events(tmp):
    """refd(8)'s match_watch lists every event match.c emits, no other."""
    src = open(os.path.join(SRC, "refd", "match.c")).read()
    emitted = set(re.findall(r'match_emit\(m, "(\w+)', src))
    # the last line, written as the match ends (match_finish())
    emitted |= set(re.findall(r'snprintf\(line, sizeof\(line\), "(end) ',
                              src))
    text = page("refd.8")
    block = text[text.index(".It Ic match_watch"):]
    block = block[block.index(".Bl -tag"):block.index(".El")]
    listed = set(re.findall(r"^\.It Li (\w+)", block, re.M))
    assert emitted and emitted == listed, (sorted(emitted), sorted(listed))


def test_match_start_keys(tmp):
    """refd-protocol(7) names each key of match_start once."""
    text = page("refd-protocol.7")
    block = text[text.index(".It Ic match_start"):]
    block = block[block.index(".Bl -tag"):block.index(".El")]
    keys = re.findall(r"^\.It Cm (.+)$", block, re.M)
    names = [k.strip() for ks in keys for k in ks.split(",")]
    dup = sorted(set(k for k in names if names.count(k) > 1))
    assert not dup, "listed twice: %s" % dup


def test_tournament_variants(tmp):
    """refd-tournament(5) names as a tournament's variant every variant
    a tournament file takes, and refuses none that it takes."""
    text = page("refd-tournament.5")
    item = text[text.index(".It Ic variant"):]
    item = item[:item.index(".It Ic", 5)]
    path = os.path.join(tmp, "v.tour")
    for v in VARIANTS:
        with open(path, "w") as f:
            f.write("variant %s\nbots a b c d e f\n" % v)
        p = refctl("tournament", "schedule", path)
        assert p.returncode == 0, (v, p.stderr)
        assert ".Cm %s" % v in item, "%s runs, the page omits it" % v
    assert "refused" not in item, item


def test_refctl_match_seats(tmp):
    """refctl(1) says a match takes as many bots as the variant has seats,
    and a classic6 match of six bots plays."""
    text = page("refctl.1")
    assert "1 to 4" not in text
    assert "as many as the\nvariant has seats, 2 to 6" in text
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    try:
        r.add("r6", [os.path.join(harness.BUILD, "bots", "randbot")])
        p = refctl("-c", r.sock, "match", "--variant", "classic6",
                   *(["r6"] * 6))
        assert p.returncode == 0 and re.search(r"^match \d+: (seat|team)",
                                               p.stdout, re.M), \
            (p.returncode, p.stdout, p.stderr)
        # refd-standings(7): a classic6 match is nine pairwise games
        t = os.path.join(tmp, "six.tour")
        with open(t, "w") as f:
            f.write("variant classic6\nbots a b c d e f\nmatches 60\n")
        for b in "abcdef":
            r.add(b, [os.path.join(harness.BUILD, "bots", "randbot"),
                      "-s", str(ord(b))])
        tid = r.must("tournament_start", t)
        assert r.must("tournament_wait", tid, timeout=600).startswith("done")
        p = refctl("tournament", "standings", "--db", r.db, tid)
        h2h = p.stdout[p.stdout.index("head to head"):]
        cells = re.findall(r"(\d+)-(\d+)-(\d+)", h2h)
        games = sum(int(w) + int(d) + int(l) for w, d, l in cells) // 2
        faults = r.query("SELECT count(*) FROM faults")[0][0]
        assert faults == 0 and games == 9 * 60, (games, faults)
    finally:
        r.stop()
    std = page("refd-standings.7")
    assert "match eighteen" not in std
    m = re.search(r"\.Cm classic6\nmatch (\w+)", std)
    assert m and m.group(1) == "nine", m and m.group(0)


def test_script_lines(tmp):
    """scripts/check's last lines say what each count counts, and the
    demo's first line fits 80 columns."""
    text = open(os.path.join(SRC, "scripts", "check")).read()
    tail = text[text.index("\nfi\n") + 4:]
    os.makedirs(os.path.join(tmp, "tests"))
    for name, body in (("vectors.sh.log", "1053 passed, 0 failed\n"),
                       ("e2e.log", "ok x\n31 passed, 0 failed\n"),
                       ("a.trs", ":test-result: PASS\n"),
                       ("b.trs", ":test-result: PASS\n")):
        with open(os.path.join(tmp, "tests", name), "w") as f:
            f.write(body)
    p = subprocess.run(["sh", "-c", tail], cwd=tmp, capture_output=True,
                       text=True, timeout=60)
    lines = p.stdout.splitlines()
    assert p.returncode == 0 and len(lines) == 3, (p.stdout, p.stderr)
    assert "deal vectors" in lines[0] and "1053 passed" in lines[0], lines
    assert "e2e" in lines[1] and "31 passed" in lines[1], lines
    assert "test programs" in lines[2] and "2 passed, 0 failed" in \
        lines[2], lines
    demo = open(os.path.join(SRC, "scripts", "demo")).read()
    first = demo.index('\necho "')
    out = subprocess.run(["sh", "-c", demo[first:].split("\nstatus=")[0]],
                         capture_output=True, text=True).stdout
    assert out and all(len(l) < 80 for l in out.splitlines()), out


def test_show_missing_match(tmp):
    """refctl show of a match not in the log exits 1, as refctl(1) says
    of the offline tools."""
    r = harness.Refd(tempfile.mkdtemp(dir=tmp))
    db = r.db
    r.stop()
    text = page("refctl.1")
    assert "or was written, 1 when one fails its audit or is not in the " \
        "log" in text
    p = refctl("show", "--db", db, "424242")
    assert p.returncode == 1 and "no match 424242" in p.stderr, \
        (p.returncode, p.stderr)


TESTS = [test_watch_events, test_match_start_keys, test_tournament_variants,
         test_refctl_match_seats, test_show_missing_match,
         test_script_lines]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-docs.")
    harness.finish(*harness.run_tests(TESTS, (tmp,)), tmp)


if __name__ == "__main__":
    main()
