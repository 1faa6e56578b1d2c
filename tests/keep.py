#!/usr/bin/env python3
"""keep.py: a log that lives for years (refctl(1) backup and archive,
refd-log(5)).

- test_backup_live: copies of a log taken while refd plays a tournament
  on it, each a log of its own that audits clean, holding every match
  that had ended before it was taken; the matches beside them finish
  untouched; a copy never replaces a file, nor copies what is not a log.
- test_archive_live: the finished matches and tournaments before a date
  moved to an archive while a tournament plays on, twice, refd restarted
  between; each file audits alone, and the archives with the log, the
  chain going on across them from each archive's signed head; the
  matches beside the moves finish untouched.
- test_archive_forged: an origin, a junction or an archive edited, a
  backup passed off as an archive, a match put back below the origin:
  each caught; a bad date refused; nothing to archive moves nothing.

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


def utc_now():
    """Now, as the log writes times, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())


def tourney(r, d, name, matches):
    """Start a classic2 tournament of r's three bots; returns its id."""
    tdef = os.path.join(d, name + ".tour")
    with open(tdef, "w") as f:
        f.write("name %s\nvariant classic2\nbots crand crand9 heur\n"
                "option deal_cap=2\nmatches %d\nconcurrency 2\n"
                % (name, matches))
    return int(r.must("tournament_start", tdef))


def tourney_state(db, tid):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return con.execute("SELECT state, reason FROM tournaments WHERE"
                           " id = ?", (tid,)).fetchone()
    finally:
        con.close()


def wait_tourney(r, tid, timeout=300):
    """Wait until tournament tid of r is over; returns (state, reason)."""
    deadline = time.time() + timeout
    while True:
        st = tourney_state(r.db, tid)
        if st and st[0] != "running":
            return st
        assert time.time() < deadline, "tournament %d did not end" % tid
        time.sleep(0.1)


def audit_ok(*args):
    """refctl audit with args must pass; returns its output."""
    rc, out, err = refctl("audit", *args)
    assert rc == 0 and "FAILED" not in out, \
        "audit %s: %s" % (" ".join(args), out[-3000:] + err)
    return out


def archive_set(d, name="arch"):
    """A refd log in d whose first tournament and match are archived to
    name.db while a second tournament plays; returns (refd, the archive,
    the playing tournament's id)."""
    r = harness.Refd(d)
    for n, argv in (("crand", ["randbot", "-s", "3"]),
                    ("crand9", ["randbot", "-s", "9"]),
                    ("heur", ["heurbot"])):
        r.add(n, [os.path.join(BUILD, "bots", argv[0])] + argv[1:])
    t1 = tourney(r, d, "first", 6)
    assert wait_tourney(r, t1)[0] == "done"
    r.wait(r.start("classic2", ["crand", "heur"], "deal_cap=1"))
    time.sleep(1.1)
    before = utc_now()
    time.sleep(1.1)
    t2 = tourney(r, d, "second", 18)
    wait_done(r, 2)
    arch = os.path.join(d, name + ".db")
    rc, out, err = refctl("archive", r.db, "--before", before, arch)
    assert rc == 0 and "7 matches and 1 tournament archived" in out, \
        out + err
    return r, arch, t2


def test_archive_live(tmp):
    """Two archives of a live log, refd restarted between: every file
    audits alone and with the others, and no match is disturbed."""
    d = os.path.join(tmp, "archive")
    os.mkdir(d)
    r, arch1, t2 = archive_set(d, "arch1")
    try:
        # while the second tournament plays on
        out = audit_ok("--db", arch1, "--all")
        assert "7 matches verified, 0 failed" in out, out[-500:]
        out = audit_ok("--db", r.db, "--all", "--allow-running")
        assert "links 1 to" in out and "matches up to 7 are archived" in \
            out, out[-1000:]
        out = audit_ok("--db", r.db, "--archive", arch1, "--allow-running")
        assert "archive ok: " in out, out[-1000:]
        ids = done_ids(r.db)
        assert ids and min(ids) == 8, sorted(ids)[:5]
        assert done_ids(arch1) == set(range(1, 8)), sorted(done_ids(arch1))
        assert wait_tourney(r, t2) == ("done", "every match played")
    finally:
        assert r.stop() == 0
    # refd again on the log that goes on from the archive: the same key,
    # no new key event, and its chain on from where it was
    r = harness.Refd(d)
    try:
        # the bots of the first run, kept beside the log, or added again
        for name, prog in (("crand", "randbot"), ("heur", "heurbot")):
            ok, text = r.ctl("bot_add", name, "spawn",
                             os.path.join(BUILD, "bots", prog))
            assert ok or "already exists" in text, text
        time.sleep(1.1)
        before = utc_now()
        time.sleep(1.1)
        mid = r.start("classic2", ["crand", "heur"], "deal_cap=1")
        r.wait(mid)
        assert r.query("SELECT count(*) FROM log_chain WHERE kind = 'key'"
                       )[0][0] == 0
        arch2 = os.path.join(d, "arch2.db")
        rc, out, err = refctl("archive", r.db, "--before", before, arch2)
        assert rc == 0 and "18 matches and 1 tournament archived" in out, \
            out + err
        out = audit_ok("--db", r.db, "--archive", arch1, "--archive",
                       arch2)
        assert out.count("archive ok: ") == 2, out[-1500:]
        assert done_ids(r.db) == {mid}
    finally:
        assert r.stop() == 0
    audit_ok("--db", arch2, "--all")
    audit_ok("--db", r.db, "--all")
    # the matches beside the moves: every one ended as it should
    for db in (arch1, arch2, r.db):
        con = sqlite3.connect(db)
        bad = con.execute("SELECT id, reason FROM matches WHERE state !="
                          " 'done'").fetchall()
        con.close()
        assert not bad, "%s: matches disturbed: %s" % (db, bad[:5])


def forged(src, d, name, *sql):
    """A copy of the log src, edited by sql, as d/name."""
    dst = os.path.join(d, name)
    rc, out, err = refctl("backup", src, dst)
    assert rc == 0, out + err
    con = sqlite3.connect(dst)
    for q in sql:
        con.execute(q)
    con.commit()
    con.close()
    return dst


def flip(col):
    """SQL for col, hex, with its first digit changed."""
    return ("(CASE substr(%s, 1, 1) WHEN '0' THEN '1' ELSE '0' END ||"
            " substr(%s, 2))" % (col, col))


def audit_fails(what, *args):
    rc, out, err = refctl("audit", *args)
    assert rc == 1 and "FAILED" in out, "%s not caught: %s" % (
        what, out[-1500:] + err)
    return [l for l in out.splitlines() if "FAILED" in l][0]


def test_archive_forged(tmp):
    """Every edit that would pass an archive or its log off as another is
    caught; what cannot be archived is not."""
    d = os.path.join(tmp, "forged")
    os.mkdir(d)
    r, arch, t2 = archive_set(d)
    try:
        wait_tourney(r, t2)
        # nothing before the first match: nothing moved, no file
        none = os.path.join(d, "none.db")
        rc, out, err = refctl("archive", r.db, "--before", "2000-01-01",
                              none)
        assert rc == 0 and "nothing to archive" in out, out + err
        assert not os.path.exists(none)
        for bad in ("yesterday", "2026-1-01", "2026-11-21 10:00"):
            rc, out, err = refctl("archive", r.db, "--before", bad, none)
            assert rc == 2 and "date" in err, out + err
        rc, out, err = refctl("archive", r.db, "--before", "2000-01-01",
                              arch)
        assert rc == 2 and "exists already" in err, out + err
    finally:
        assert r.stop() == 0
    live = r.db
    # the origin's head rewritten: its signature no longer verifies
    f = forged(live, d, "o-link.db", "UPDATE log_origin SET link ="
               " %s" % flip("link"))
    print("#   " + audit_fails("an origin's link", "--db", f, "--all"))
    # a key of the forger's own for the origin
    f = forged(live, d, "o-key.db", "UPDATE log_origin SET key ="
               " %s" % flip("key"))
    print("#   " + audit_fails("an origin's key", "--db", f, "--all"))
    # a match put back below the origin
    f = forged(live, d, "o-match.db",
               "INSERT INTO matches (id, variant, options, seed,"
               " commitment, rng, move_ms, bank_ms, startup_ms, policy,"
               " max_faults, started, chain_version) SELECT 3, variant,"
               " options, seed, commitment, rng, move_ms, bank_ms,"
               " startup_ms, policy, max_faults, started, chain_version"
               " FROM matches LIMIT 1")
    print("#   " + audit_fails("a match below the origin", "--db", f,
                                "--all"))
    # the origin claims fewer archived matches than the archive holds
    f = forged(live, d, "o-count.db",
               "UPDATE log_origin SET last_match = last_match - 1")
    print("#   " + audit_fails("an origin's count", "--db", f,
                                "--archive", arch))
    # a backup of the log passed off as its archive
    full = os.path.join(d, "full.db")
    assert refctl("backup", live, full)[0] == 0
    print("#   " + audit_fails("a backup as archive", "--db", live,
                                "--archive", full))
    # the archive's last event re-signed by no one
    f = forged(arch, d, "a-sig.db", "UPDATE log_chain SET sig ="
               " %s WHERE" % flip("sig") + " no = (SELECT max(no) FROM"
               " log_chain)")
    print("#   " + audit_fails("an archive's head", "--db", live,
                                "--archive", f))
    # the archive's last event removed: it no longer ends where the log
    # goes on
    f = forged(arch, d, "a-cut.db", "DELETE FROM log_chain WHERE no ="
               " (SELECT max(no) FROM log_chain)")
    print("#   " + audit_fails("an archive cut short", "--db", live,
                                "--archive", f))
    # a log without an origin after an archive
    print("#   " + audit_fails("no origin", "--db", arch, "--archive",
                                arch))


TESTS = [test_backup_live, test_archive_live, test_archive_forged]


def main():
    tmp = tempfile.mkdtemp(prefix="refd-keep.")
    passed, failed = harness.run_tests(TESTS, (tmp,))
    harness.finish(passed, failed, tmp)


if __name__ == "__main__":
    main()
