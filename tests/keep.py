#!/usr/bin/env python3
"""keep.py: a log that lives for years (refctl(1) backup and archive,
refd-log(5)).

- test_backup_live: copies of a log taken while refd plays a tournament
  on it, each a log of its own that audits clean, holding every match
  that had ended before it was taken; the matches beside them finish
  untouched; a copy never replaces a file, nor copies what is not a log.

Environment: top_builddir, top_srcdir (default: the current directory).
"""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

BUILD = harness.BUILD
REFCTL = harness.REFCTL


def refctl(*args, timeout=120):
    """Run refctl; returns (returncode, stdout, stderr)."""
    p = subprocess.run([REFCTL] + [str(a) for a in args],
                       capture_output=True, timeout=timeout)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def done_ids(db):
    """The matches that ended, in a log or a copy of it."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return set(r[0] for r in con.execute(
            "SELECT id FROM matches WHERE state = 'done'"))
    finally:
        con.close()


def playing(tmp, matches=60000):
    """A refd in tmp playing a classic2 tournament of three C bots, more
    matches than any test waits for, three at once; returns (refd, id)."""
    r = harness.Refd(tmp)
    for name, seed in (("crand", "3"), ("crand9", "9"), ("heur", None)):
        r.add(name, [os.path.join(BUILD, "bots", "heurbot" if seed is None
                                  else "randbot")] +
              ([] if seed is None else ["-s", seed]))
    tdef = os.path.join(tmp, "t.tour")
    with open(tdef, "w") as f:
        f.write("name keep\nvariant classic2\nbots crand crand9 heur\n"
                "option deal_cap=3\nmatches %d\nconcurrency 3\n" % matches)
    return r, int(r.must("tournament_start", tdef))


def wait_done(r, n, timeout=120):
    """Wait until n more matches of r's log have ended."""
    base = len(done_ids(r.db))
    deadline = time.time() + timeout
    while len(done_ids(r.db)) < base + n:
        assert time.time() < deadline, "matches stopped ending"
        time.sleep(0.05)


def test_backup_live(tmp):
    """Copies taken while matches play: each audits clean alone, holds
    every match that had ended before it, and no match beside them is
    disturbed."""
    d = os.path.join(tmp, "backup")
    os.mkdir(d)
    r, tid = playing(d)
    copies = []
    try:
        for i in range(4):
            wait_done(r, 2)
            before = done_ids(r.db)
            copy = os.path.join(d, "copy%d.db" % i)
            rc, out, err = refctl("backup", r.db, copy)
            assert rc == 0, out + err
            assert not os.path.exists(copy + "-wal"), "the copy has a WAL"
            assert not os.path.exists(copy + ".tmp")
            got = done_ids(copy)
            assert before <= got, "the copy lacks matches %s" % sorted(
                before - got)[:5]
            copies.append((copy, len(got)))
        # a copy never replaces a file, and copies only a log
        rc, out, err = refctl("backup", r.db, copies[0][0])
        assert rc == 2 and "exists already" in err, out + err
        junk = os.path.join(d, "junk.db")
        with open(junk, "w") as f:
            f.write("not a log\n" * 100)
        rc, out, err = refctl("backup", junk, os.path.join(d, "junk2.db"))
        assert rc == 2 and not os.path.exists(os.path.join(d, "junk2.db")), \
            out + err
        r.must("tournament_stop", str(tid))
    finally:
        assert r.stop() == 0
    # every copy audits alone, its running matches then as they were
    for copy, n in copies:
        rc, out, err = refctl("audit", "--db", copy, "--all",
                              "--allow-running")
        assert rc == 0 and "log FAILED" not in out, out[-2000:] + err
        assert "log chain ok" in out, out[-2000:]
        print("#   %s: %s" % (os.path.basename(copy), out.splitlines()[-1]))
    # the matches beside the copies: every one ended as it should
    con = sqlite3.connect(r.db)
    bad = con.execute("SELECT id, reason FROM matches WHERE state != 'done'"
                      " AND reason NOT IN ('tournament stopped',"
                      " 'refd shut down', 'refd stopped')").fetchall()
    con.close()
    assert not bad, "matches disturbed: %s" % bad[:5]
    rc, out, err = refctl("audit", "--db", r.db, "--all")
    assert rc == 0, out[-2000:] + err


TESTS = [test_backup_live]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-keep.")
    passed, failed = harness.run_tests(TESTS, (tmp,))
    harness.finish(passed, failed, tmp)


if __name__ == "__main__":
    main()
