#!/usr/bin/env python3
"""cheat.py: bots that try to cheat, against a real refd, sandbox on.

Each case adds a tests/cheatbot.py that tries one class of attack for
real at the start of its match, while healthy matches run beside it.
The bot reports every attempt on stderr, which refd copies to its bot
log; the case asserts that the bot tried, that it reached nothing, and
that every healthy match beside it finished with no fault.  refd is
started with a config file that holds a remote bot's token, and with a
secret in its environment, so that both are there to be stolen.  Then:
"sandbox none" is written in the match's header and said by audit and
show, and as root, refd refuses to run bots as root.
Prints "N passed, M failed".
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

CHEAT = [harness.PY, os.path.join(harness.SRC, "tests", "cheatbot.py")]
REFCTL = harness.REFCTL
TOKEN = "cheat-token-0123456789"
SECRET = "refd-environment-secret-42"


def bot_log(r, mid, seat, name):
    """The bot log of a cheat bot, once it says it is done."""
    path = os.path.join(r.tmp, "match%d-seat%d-%s.log" % (mid, seat, name))
    text = ""
    for _ in range(250):
        try:
            text = open(path).read()
        except OSError:
            text = ""
        if " done\n" in text:
            break
        time.sleep(0.02)
    return text


def check_blocked(text, attack):
    """The bot tried, reached nothing, and finished its attempts."""
    lines = text.splitlines()
    assert any(l.startswith("cheat %s tried " % attack) for l in lines), \
        "the %s attack was not tried: %r" % (attack, text[:300])
    assert "cheat %s done" % attack in lines, text[-300:]
    reached = [l for l in lines if " REACHED " in l]
    assert not reached, reached
    errors = [l for l in lines if l.startswith("cheat %s error" % attack)]
    assert not errors, errors


def healthy(r):
    for name in ("ok0", "ok1", "ok2"):
        r.ctl("bot_add", name, "spawn", *harness.EVIL, "good")


def beside(r, name, argv, healthy_matches=2):
    """Play cheat bot name (argv) in seat 0 against ok0 while healthy
    matches ok1 v ok2 run; returns its bot log once it is done."""
    healthy(r)
    r.add(name, argv)
    mid = r.start("classic2", [name, "ok0"], "deals_to_win=1")
    others = [r.start("classic2", ["ok1", "ok2"], "deals_to_win=1")
              for _ in range(healthy_matches)]
    for m in others:
        result, reason = r.wait(m)
        assert result.startswith(("seat", "draw")), (m, result, reason)
        faults = r.query("SELECT kind FROM faults WHERE match_id = ?", m)
        assert not faults, (m, faults)
    r.wait(mid)
    return mid, bot_log(r, mid, 0, name)


def alive(r):
    """refd answers and is not stopped."""
    state = open("/proc/%d/stat" % r.proc.pid).read().rsplit(")", 1)[1]
    assert state.split()[0] != "T", "refd is stopped"
    assert r.must("status")


def named(paths):
    """paths as words of a bot's command: as root, bot_add refuses a
    command naming files the bot user cannot read, so they are given as
    "@P", which the bot reads as P and refd as no file at all."""
    return ["@" + p for p in paths] if os.geteuid() == 0 else paths


def test_read_log_and_config(r, conf):
    """The log, its journals, the config file and the bot logs, even
    when the bot's own command names them."""
    targets = [r.db, r.db + "-wal", conf, r.sock,
               os.path.join(r.tmp, "refd.err"),
               os.path.join(r.tmp, "match1-seat0-ok1.log")]
    mid, text = beside(r, "ch-files", CHEAT + ["files"] + named(targets))
    check_blocked(text, "files")
    assert TOKEN not in text


def test_procs_memory_fds(r, conf):
    """refd's memory, descriptors and environment, and other bots'
    pipes, through /proc."""
    mid, text = beside(r, "ch-procs", CHEAT + ["procs", str(r.proc.pid)])
    check_blocked(text, "procs")
    mid, text = beside(r, "ch-fds", CHEAT + ["fds"])
    check_blocked(text, "fds")
    mid, text = beside(r, "ch-env", CHEAT + ["env"])
    check_blocked(text, "env")
    assert SECRET not in text


def test_control_socket(r, conf):
    """The control socket: neither reached nor able to shut refd down."""
    mid, text = beside(r, "ch-sock", CHEAT + ["socket"] + named([r.sock]))
    check_blocked(text, "socket")
    alive(r)


def test_signals(r, conf):
    """SIGSTOP to refd, to its group and to every process the bot may
    signal: refd and the healthy matches go on."""
    mid, text = beside(r, "ch-sig", CHEAT + ["signals", str(r.proc.pid)],
                       healthy_matches=3)
    check_blocked(text, "signals")
    alive(r)


def test_setsid_escape(r, conf):
    """setsid and a double fork: nothing outlives the match."""
    mark = "cheat-escape-%d" % os.getpid()
    mid, text = beside(r, "ch-esc", CHEAT + ["escape", mark])
    check_blocked(text, "escape")
    left = harness.marked_left(mark)
    assert not left, "processes outlived the match: %s" % left


def test_fork_bomb(r, conf):
    """A fork bomb meets its own process limit; refd and the healthy
    matches beside it do not notice."""
    mid, text = beside(r, "ch-bomb", CHEAT + ["forkbomb", "5000"],
                       healthy_matches=3)
    check_blocked(text, "forkbomb")
    forked = [int(l.split()[-1]) for l in text.splitlines()
              if l.startswith("cheat forkbomb forked ")]
    assert forked and 0 < forked[0] < 100, forked
    alive(r)


def test_remember(r, conf):
    """Nothing written in one match is there in the next."""
    mid, text = beside(r, "ch-mem", CHEAT + ["remember", str(os.getpid())])
    check_blocked(text, "remember")
    assert "cheat remember wrote /tmp/" in text, text   # it could write
    mid2 = r.start("classic2", ["ch-mem", "ok0"], "deals_to_win=1")
    r.wait(mid2)
    check_blocked(bot_log(r, mid2, 0, "ch-mem"), "remember")


def test_bots_not_root(r, conf):
    """As root, bots run as an unprivileged user."""
    if os.geteuid() != 0:
        return
    mid, text = beside(r, "ch-uid", CHEAT + ["env"])
    uids = [l for l in text.splitlines() if l.startswith("cheat env uid ")]
    assert uids and uids[0] != "cheat env uid 0", uids


def test_sandbox_none_recorded(r, conf):
    """sandbox none: said in the header, by audit and by show."""
    tmp = tempfile.mkdtemp(prefix="refd-cheat-none.")
    c = os.path.join(tmp, "refd.conf")
    with open(c, "w") as f:
        f.write("sandbox none\n")
    r2 = harness.Refd(tmp, extra=["-f", c])
    try:
        r2.add("n0", harness.EVIL + ["good"])
        r2.add("n1", harness.EVIL + ["good"])
        mid = r2.start("classic2", ["n0", "n1"], "deals_to_win=1")
        result, _ = r2.wait(mid)
        assert result.startswith(("seat", "draw")), result
        (opts,), = r2.query("SELECT options FROM matches WHERE id = ?",
                            mid)
        assert opts.endswith(" sandbox=none"), opts
    finally:
        r2.stop()
    out = subprocess.run([REFCTL, "audit", "--db", r2.db, str(mid)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "match %d ran unsandboxed" % mid in out.stdout, out.stdout
    out = subprocess.run([REFCTL, "show", "--db", r2.db, str(mid)],
                         capture_output=True, text=True)
    assert "sandbox     none: the bots ran unsandboxed" in out.stdout, \
        out.stdout[:500]
    # and a sandboxed match says nothing of the kind
    out = subprocess.run([REFCTL, "audit", "--db", r.db, "1"],
                         capture_output=True, text=True)
    assert "unsandboxed" not in out.stdout, out.stdout
    shutil.rmtree(tmp, ignore_errors=True)


def test_no_bwrap_refused(r, conf):
    """Where bwrap cannot be run, no bot is spawned, and refd says why."""
    tmp = tempfile.mkdtemp(prefix="refd-cheat-nobwrap.")
    path = os.environ["PATH"]
    os.environ["PATH"] = "/nonexistent"     # no bwrap to be found
    try:
        r2 = harness.Refd(tmp)
    finally:
        os.environ["PATH"] = path
    try:
        r2.add("n0", harness.EVIL + ["good"])
        r2.add("n1", harness.EVIL + ["good"])
        mid = r2.start("classic2", ["n0", "n1"])
        result, reason = r2.wait(mid)
        assert result == "aborted" and "sandbox" in reason and \
            "sandbox none" in reason, (result, reason)
    finally:
        r2.stop()
    err = open(os.path.join(tmp, "refd.err")).read()
    assert "spawned bots refused" in err, err[-300:]
    shutil.rmtree(tmp, ignore_errors=True)


def test_refuse_root(r, conf):
    """Told to run bots as root, refd refuses to spawn them."""
    if os.geteuid() != 0:
        return
    tmp = tempfile.mkdtemp(prefix="refd-cheat-root.")
    c = os.path.join(tmp, "refd.conf")
    with open(c, "w") as f:
        f.write("bot_user root\n")
    r2 = harness.Refd(tmp, extra=["-f", c])
    try:
        r2.add("n0", harness.EVIL + ["good"])
        r2.add("n1", harness.EVIL + ["good"])
        mid = r2.start("classic2", ["n0", "n1"])
        result, reason = r2.wait(mid)
        assert result == "aborted" and "refusing to run bots as root" in \
            reason, (result, reason)
    finally:
        r2.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def as_nobody(fn):
    """Run fn() in a child as nobody; returns what it returns (a str)."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            out = fn()
        except Exception as e:
            out = "error %r" % e
        os.write(wr, out.encode())
        os._exit(0)
    os.close(wr)
    out = b""
    while True:
        chunk = os.read(rd, 4096)
        if not chunk:
            break
        out += chunk
    os.close(rd)
    os.waitpid(pid, 0)
    return out.decode()


def test_control_peercred(r, conf):
    """Another user who can reach the control socket is still refused."""
    if os.geteuid() != 0:
        return
    # as if the socket and its directory were shared
    mode = os.stat(r.tmp).st_mode & 0o777
    os.chmod(r.tmp, 0o711)
    os.chmod(r.sock, 0o666)

    def talk():
        import socket
        c = socket.socket(socket.AF_UNIX)
        c.settimeout(5)
        c.connect(r.sock)
        c.sendall(b"1 status\n2 shutdown\n")
        return "answer %r" % c.recv(100)
    try:
        out = as_nobody(talk)
    finally:
        os.chmod(r.sock, 0o600)
        os.chmod(r.tmp, mode)
    # closed unanswered, whether before or after its lines arrived
    assert out == "answer b''" or "BrokenPipe" in out or \
        "ConnectionReset" in out, out
    alive(r)


def test_socket_path_not_clobbered(r, conf):
    """refd removes what is at its control path only if it is a socket."""
    tmp = tempfile.mkdtemp(prefix="refd-cheat-sock.")
    victim = os.path.join(tmp, "precious")
    with open(victim, "w") as f:
        f.write("keep me\n")
    p = subprocess.run([harness.REFD, "-D", os.path.join(tmp, "log.db"), "-c",
                        victim], capture_output=True, text=True, timeout=20)
    assert p.returncode != 0, p.stderr
    assert open(victim).read() == "keep me\n"
    assert "not replaced" in p.stderr, p.stderr
    shutil.rmtree(tmp, ignore_errors=True)


def test_botlog_no_symlink(r, conf):
    """A link planted where a bot log will be is not followed."""
    healthy(r)
    (last,), = r.query("SELECT coalesce(max(id), 0) FROM matches")
    fd, victim = tempfile.mkstemp(prefix="refd-cheat-victim.")
    os.close(fd)
    link = os.path.join(r.tmp, "match%d-seat0-ok1.log" % (last + 1))
    os.symlink(victim, link)
    mid = r.start("classic2", ["ok1", "ok2"], "deals_to_win=1")
    assert mid == last + 1, (mid, last)
    result, _ = r.wait(mid)
    assert result.startswith(("seat", "draw")), result
    assert os.path.getsize(victim) == 0
    assert os.path.islink(link)
    os.unlink(victim)


def test_log_replaced(r, conf):
    """A log deleted or replaced under refd: no match starts on it."""
    tmp = tempfile.mkdtemp(prefix="refd-cheat-log.")
    r2 = harness.Refd(tmp)
    try:
        r2.add("n0", harness.EVIL + ["good"])
        r2.add("n1", harness.EVIL + ["good"])
        mid = r2.start("classic2", ["n0", "n1"], "deals_to_win=1")
        assert r2.wait(mid)[0].startswith(("seat", "draw"))
        other = os.path.join(tmp, "other.db")
        shutil.copy(r2.db, other)
        os.rename(other, r2.db)
        ok, text = r2.ctl("match_start", "classic2", "n0", "n1")
        if ok:
            result, reason = r2.wait(int(text))
            assert result == "aborted" and "deleted or replaced" in \
                reason, (result, reason)
        else:
            assert "deleted or replaced" in text, text
    finally:
        r2.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def drop_to_nobody():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def test_ordinary_user(r, conf):
    """refd run as an ordinary user: its bots run as that same user, and
    only the sandbox keeps them from its log, its socket and itself."""
    if os.geteuid() != 0:
        return      # then the whole suite already runs so
    tmp = tempfile.mkdtemp(prefix="refd-cheat-user.")
    os.chown(tmp, 65534, 65534)
    r3 = harness.Refd(tmp, preexec_fn=drop_to_nobody)
    try:
        assert os.stat("/proc/%d" % r3.proc.pid).st_uid == 65534
        for i in range(3):
            r3.add("u%d" % i, harness.EVIL + ["good"])
        for attack, args in (("files", [r3.db, r3.db + "-wal", r3.sock,
                                        os.path.join(tmp, "refd.err")]),
                             ("procs", [str(r3.proc.pid)]),
                             ("signals", [str(r3.proc.pid)]),
                             ("socket", [r3.sock])):
            name = "uc-" + attack
            r3.add(name, CHEAT + [attack] + args)
            mid = r3.start("classic2", [name, "u0"], "deals_to_win=1")
            other = r3.start("classic2", ["u1", "u2"], "deals_to_win=1")
            result, reason = r3.wait(other)
            assert result.startswith(("seat", "draw")), (result, reason)
            r3.wait(mid)
            check_blocked(bot_log(r3, mid, 0, name), attack)
        assert r3.must("status")
    finally:
        r3.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def test_not_dumpable(r, conf):
    """A refd run as an ordinary user: a process of that user cannot
    read its memory, descriptors or environment."""
    if os.geteuid() != 0:
        return
    tmp = tempfile.mkdtemp(prefix="refd-cheat-user.")
    os.chown(tmp, 65534, 65534)

    def drop():
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    env = dict(os.environ, REFD_CHEAT_SECRET=SECRET)
    err = open(os.path.join(tmp, "refd.err"), "w")
    sock = os.path.join(tmp, "ctl.sock")
    p = subprocess.Popen([harness.REFD, "-D", os.path.join(tmp, "log.db"), "-c",
                          sock], cwd=tmp, preexec_fn=drop, env=env,
                         stderr=err, stdin=subprocess.DEVNULL)
    try:
        for _ in range(250):
            if os.path.exists(sock):
                break
            time.sleep(0.02)

        def peek():
            got = []
            for what in ("environ", "mem", "fd/0", "maps"):
                try:
                    with open("/proc/%d/%s" % (p.pid, what), "rb") as f:
                        f.read(16)
                    got.append(what)
                except OSError:
                    pass
            return " ".join(got)
        out = as_nobody(peek)
        assert out == "", "a same-user process read refd's %s" % out
    finally:
        p.terminate()
        p.wait(10)
        err.close()
    shutil.rmtree(tmp, ignore_errors=True)


PLANT = "refd-planted-secret-%d" % os.getpid()


def plant_secrets():
    """Secrets where an operator might keep them, readable by the user
    bots run as: a tournament file with its seed and a remote bot's
    token, a home directory, a second config, a backup of the log, and
    /srv, /opt, /var, /etc, /mnt and refd's working directory.  Returns
    (paths, cleanup)."""
    made, paths = [], []

    def mk(d):
        # an ordinary user running the suite plants where it may write
        # (its home, /var/tmp, the working directory): the same places
        # an operator without root keeps secrets
        if os.geteuid() != 0 and not os.access(d, os.W_OK):
            d = os.environ.get("HOME") if os.access(
                os.environ.get("HOME", "/"), os.W_OK) else "/var/tmp"
        d = tempfile.mkdtemp(prefix="refd-cheat-plant.", dir=d)
        os.chmod(d, 0o755)
        os.chown(d, 65534, 65534) if os.geteuid() == 0 else None
        made.append(d)
        return d

    def put(path, text):
        with open(path, "w") as f:
            f.write(text + "\n" + PLANT + "\n")
        os.chmod(path, 0o644)
        if os.geteuid() == 0:
            os.chown(path, 65534, 65534)
        paths.append(path)
    home = mk("/home")
    os.makedirs(os.path.join(home, ".config", "refd"))
    put(os.path.join(home, ".config", "refd", "refd.conf"),
        "bot far remote far-secret-token")
    put(os.path.join(home, ".bash_history"), "refctl tournament start")
    put(os.path.join(mk("/var/lib"), "t.tour"),
        "name t\nseed " + "ab" * 32 + "\nbot far remote far-secret-token")
    put(os.path.join(mk("/srv"), "t.tour"), "seed " + "cd" * 32)
    put(os.path.join(mk("/opt"), "refd.conf"), "bot x remote tok")
    put(os.path.join(mk("/var/backups"), "log.db.bak"), "SQLite format 3")
    put(os.path.join(mk("/var/tmp"), "secret"), "var/tmp")
    put(os.path.join(mk("/mnt"), "secret"), "mnt")
    put(os.path.join(mk("/etc"), "refd.conf"), "second config")
    put(os.path.join(mk("/root"), "secret") if os.path.isdir("/root") and
        os.geteuid() == 0 else os.path.join(mk("/var/tmp"), "r"), "root")
    cwd = os.path.join(os.getcwd(), "refd-cheat-plant-%d" % os.getpid())
    if os.access(os.getcwd(), os.W_OK):
        put(cwd, "refd's working directory")

    def cleanup():
        for d in made:
            shutil.rmtree(d, ignore_errors=True)
        try:
            os.unlink(cwd)
        except OSError:
            pass
    return paths, cleanup


def planted_blocked(text, paths):
    """The files attack tried every planted path and read none."""
    for p in paths:
        assert "cheat files tried read " + p in text, (p, text[:300])
    reached = [l for l in text.splitlines() if " REACHED " in l]
    assert PLANT not in text, reached[:5]
    # a listing may show what the bot sees anyway (its own directory
    # in refd's working directory), never a planted file
    assert not [l for l in reached if " REACHED read " in l or
                "refd-cheat-plant" in l], reached
    assert "cheat files done" in text, text[-300:]


def test_planted_secrets(r, conf):
    """An allow list, not a deny list: no file of the host outside what
    a bot needs is there to read, wherever the operator kept it, with
    refd as root and as an ordinary user."""
    paths, cleanup = plant_secrets()
    tmp = None
    try:
        mid, text = beside(r, "ch-plant", CHEAT + ["files"] +
                           ["@" + p for p in paths])
        planted_blocked(text, paths)
        if os.geteuid() != 0:
            return
        tmp = tempfile.mkdtemp(prefix="refd-cheat-user.")
        os.chown(tmp, 65534, 65534)
        r3 = harness.Refd(tmp, preexec_fn=drop_to_nobody)
        try:
            for i in range(3):
                r3.add("u%d" % i, harness.EVIL + ["good"])
            r3.add("up", CHEAT + ["files"] + ["@" + p for p in paths])
            mid = r3.start("classic2", ["up", "u0"], "deals_to_win=1")
            other = r3.start("classic2", ["u1", "u2"], "deals_to_win=1")
            result, reason = r3.wait(other)
            assert result.startswith(("seat", "draw")), (result, reason)
            r3.wait(mid)
            planted_blocked(bot_log(r3, mid, 0, "up"), paths)
        finally:
            r3.stop()
    finally:
        cleanup()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

def test_outside_view_named(r, conf):
    """A program found on PATH outside what bots see: refctl checkbot
    (and refd, by the same view) says which path to add, and with it
    the bot plays."""
    # /opt as root; as an ordinary user, /var/tmp is as far outside
    d = tempfile.mkdtemp(prefix="refd-cheat-opt.", dir="/opt" if
                         os.geteuid() == 0 else "/var/tmp")
    try:
        os.chmod(d, 0o755)
        shutil.copy(os.path.join(harness.BUILD, "bots", "randbot"),
                    os.path.join(d, "outbot"))
        env = dict(os.environ, PATH=d + ":/usr/bin:/bin")
        out = subprocess.run([REFCTL, "checkbot", "-n", "1", "--", "outbot"],
                             capture_output=True, text=True, env=env,
                             timeout=120)
        assert out.returncode != 0, out.stdout + out.stderr
        assert "add --ro=%s to its definition" % d in out.stderr, \
            out.stdout + out.stderr
        out = subprocess.run([REFCTL, "checkbot", "-n", "1", "--",
                              "--ro=" + d, "outbot"], capture_output=True,
                             text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
    finally:
        shutil.rmtree(d, ignore_errors=True)

def shmem_mib():
    for line in open("/proc/meminfo"):
        if line.startswith("Shmem:"):
            return int(line.split()[1]) // 1024
    return 0


def memfill_match(r2, tmp, limit):
    """A bot filling every tmpfs it can reach with 400 MiB each beside
    healthy matches, the host's shared memory sampled all along:
    returns (its bot log, peak growth of shared memory in MiB, its
    match's options)."""
    import threading
    for i in range(3):     # once: the second time they are there
        r2.ctl("bot_add", "m%d" % i, "spawn", *harness.EVIL, "good")
    r2.ctl("bot_add", "filler", "spawn", *CHEAT, "memfill", "400",
           str(limit))
    base = shmem_mib()
    peak = [base]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], shmem_mib())
            time.sleep(0.01)
    t = threading.Thread(target=sample)
    t.start()
    try:
        mid = r2.start("classic2", ["filler", "m0"], "deals_to_win=1")
        others = [r2.start("classic2", ["m1", "m2"], "deals_to_win=1")
                  for _ in range(2)]
        for m in others:
            result, reason = r2.wait(m)
            assert result.startswith(("seat", "draw")), (m, result, reason)
            assert not r2.query("SELECT kind FROM faults WHERE match_id = "
                                "?", m)
        r2.wait(mid)
        text = bot_log(r2, mid, 0, "filler")
    finally:
        stop.set()
        t.join()
    (opts,), = r2.query("SELECT options FROM matches WHERE id = ?", mid)
    return text, peak[0] - base, opts


def held(text):
    """MiB the memfill bot had written when it stopped, all places."""
    most = {}
    for l in text.splitlines():
        w = l.split()
        # "cheat memfill wrote N MiB to D", "... stopped at N MiB in D: "
        if l.startswith("cheat memfill wrote "):
            most[w[6]] = max(most.get(w[6], 0), int(w[3]))
        elif l.startswith("cheat memfill stopped at "):
            d = w[7].rstrip(":")
            most[d] = max(most.get(d, 0), int(w[4]))
    return sum(most.values())


def test_memory_counted(r, conf):
    """bot_memory_mb counts all a sandbox holds: a bot filling /dev/shm,
    /dev, /tmp, HOME and a tmpfs of its own is stopped at its limit, the
    host's shared memory grows by no more, and healthy matches beside
    it finish.  As an ordinary user, where no cgroup can be made, refd
    says so, each match's options say memcg=none, and the sized tmpfs
    still hold."""
    r2, tmp = net_refd("bot_memory_mb 128\n")
    try:
        # the host's shared memory is every process's (a PostgreSQL
        # starting beside the suite takes its buffers): once more if it
        # grew past the bound, to tell such a neighbour from the bot
        bound = 128 if os.geteuid() == 0 else 3 * 64
        for _ in range(3):
            text, grew, opts = memfill_match(r2, tmp, bound)
            if grew <= bound + 48:
                break
    finally:
        r2.stop()
    assert "cheat memfill tried fill /dev/shm" in text, text[:300]
    if os.geteuid() != 0:
        # the suite as an ordinary user: no cgroup to make, said, and
        # the sized tmpfs alone bound the bot
        err = open(os.path.join(tmp, "refd.err")).read()
        assert "no memory cgroup for bots" in err, err[-500:]
        assert opts.endswith(" memcg=none"), opts
        assert held(text) <= 3 * 64 + 8, (held(text), text[-600:])
        assert grew <= 3 * 64 + 48, "shared memory grew by %d MiB" % grew
        shutil.rmtree(tmp, ignore_errors=True)
        return
    assert held(text) <= 128 + 8, (held(text), text[-600:])
    assert "cheat memfill done" not in text, text[-300:]    # stopped
    assert grew <= 128 + 48, "shared memory grew by %d MiB" % grew
    assert "memcg=none" not in opts, opts
    shutil.rmtree(tmp, ignore_errors=True)
    tmp = tempfile.mkdtemp(prefix="refd-cheat-memuser.")
    os.chown(tmp, 65534, 65534)
    c = os.path.join(tmp, "refd.conf")
    with open(c, "w") as f:
        f.write("bot_memory_mb 128\n")
    r3 = harness.Refd(tmp, extra=["-f", c], preexec_fn=drop_to_nobody)
    try:
        for _ in range(3):
            text, grew, opts = memfill_match(r3, tmp, 3 * 64)
            if grew <= 3 * 64 + 48:
                break
    finally:
        r3.stop()
    err = open(os.path.join(tmp, "refd.err")).read()
    assert "no memory cgroup for bots" in err, err[-500:]
    assert opts.endswith(" memcg=none"), opts
    (mid,), = r3.query("SELECT max(id) FROM matches")
    out = subprocess.run([REFCTL, "show", "--db", r3.db, str(mid)],
                         capture_output=True, text=True)
    assert "no memory cgroup" in out.stdout, out.stdout[:500]
    # the sized tmpfs alone: /dev/shm, /tmp and HOME, 64 MiB each
    assert held(text) <= 3 * 64 + 8, (held(text), text[-600:])
    assert grew <= 3 * 64 + 48, "shared memory grew by %d MiB" % grew
    shutil.rmtree(tmp, ignore_errors=True)

def test_calls_refused(r, conf):
    """ptrace, process_vm_readv, perf_event_open, bpf, userfaultfd,
    keyctl, io_uring, inotify, unshare and clone into a new user
    namespace: refused by the system-call filter."""
    mid, text = beside(r, "ch-calls", CHEAT + ["calls"])
    check_blocked(text, "calls")
    for what in ("ptrace attach", "keyctl", "io_uring_setup", "unshare",
                 "clone a new user namespace"):
        assert "cheat calls tried " + what in text, (what, text[:500])


def test_page_cache_refused(r, conf):
    """A bot cannot read or drop the page cache's state, which would
    carry a message from one match to the next: fadvise DONTNEED,
    preadv2 with RWF_NOWAIT, mincore, madvise page-out, cachestat."""
    mid, text = beside(r, "ch-pcache", CHEAT + ["pagecache"])
    check_blocked(text, "pagecache")
    assert "cheat pagecache tried preadv2 RWF_NOWAIT" in text, text[:500]


def test_lock_channel(r, conf):
    """Two bots at one table: one holds flock, fcntl and OFD locks on a
    host file both read, the other never sees them held; healthy
    matches beside them finish."""
    healthy(r)
    r.add("ch-lsend", CHEAT + ["lockchan", "send"])
    r.add("ch-lrecv", CHEAT + ["lockchan", "recv"])
    mid = r.start("classic2", ["ch-lsend", "ch-lrecv"], "deals_to_win=1")
    others = [r.start("classic2", ["ok1", "ok2"], "deals_to_win=1")
              for _ in range(2)]
    for m in others:
        result, reason = r.wait(m)
        assert result.startswith(("seat", "draw")), (m, result, reason)
    r.wait(mid)
    send = bot_log(r, mid, 0, "ch-lsend")
    recv = bot_log(r, mid, 1, "ch-lrecv")
    check_blocked(send, "lockchan")
    check_blocked(recv, "lockchan")
    assert "cheat lockchan tried see flock" in recv, recv[:300]
    # a definition may allow them to bots that need them: then they
    # are a channel, as they were to every bot
    r.add("ch-lsend2", ["--locks"] + CHEAT + ["lockchan", "send"])
    r.add("ch-lrecv2", ["--locks"] + CHEAT + ["lockchan", "recv"])
    mid = r.start("classic2", ["ch-lsend2", "ch-lrecv2"], "deals_to_win=1")
    r.wait(mid)
    text = bot_log(r, mid, 1, "ch-lrecv2")
    assert "cheat lockchan REACHED saw the other bot's flock" in text, \
        text[:500]


def tour(r, name, text):
    path = os.path.join(r.tmp, name + ".tour")
    with open(path, "w") as f:
        f.write(text)
    return path


def test_duplicate_seed(r, conf):
    """A duplicate tournament: no bot is told a seed, no two matches of
    one seed run at once with a bot in common, and the master seed is
    committed before the first match and revealed at the end."""
    bots = "".join("bot dup%d spawn %s listen\n" % (i, " ".join(CHEAT))
                   for i in range(3))
    path = tour(r, "dup", bots + "name dup\nvariant classic2\nformat "
                "roundrobin\nduplicate yes\nbots dup0 dup1 dup2\nmatches 12"
                "\nconcurrency 4\noption deals_to_win=1\n")
    tid = r.must("tournament_start", path)
    status = r.must("tournament_status", tid)
    commit = [l.split()[1] for l in status.splitlines()
              if l.startswith("commitment ")]
    assert commit and len(commit[0]) == 64, status
    assert not [l for l in status.splitlines() if l.startswith("seed ")]
    assert r.must("tournament_wait", tid, timeout=300).startswith("done")
    status = r.must("tournament_status", tid)
    seed = [l.split()[1] for l in status.splitlines()
            if l.startswith("seed ")]
    assert seed, status
    import hashlib
    h = hashlib.blake2b(b"refd-seed-v1" + bytes.fromhex(seed[0]),
                        digest_size=32).hexdigest()
    assert h == commit[0], (h, commit)
    # committed in the log's stream before the first match started
    err = open(os.path.join(r.tmp, "refd.err")).read()
    at = err.index("master seed commitment " + commit[0])
    (first,), = r.query("SELECT min(id) FROM matches WHERE tournament = ?",
                        int(tid))
    assert at < err.index("match %d: classic2 started" % first)
    rows = r.query("SELECT id, seed, started, ended, options FROM matches "
                   "WHERE tournament = ? AND state = 'done'", int(tid))
    assert len(rows) == 12, len(rows)
    for mid, s, start, end, opts in rows:
        assert "seed_reveal=tournament" in opts, opts
        for mid2, s2, start2, end2, _ in rows:
            if mid2 != mid and s2 == s:     # every pair shares bots
                assert end <= start2 or end2 <= start, \
                    "matches %d and %d of one seed overlapped" % (mid, mid2)
    seeds = {s for _, s, _, _, _ in rows}
    assert len(seeds) == 6, len(seeds)
    told = 0
    for mid, _, _, _, _ in rows:
        for seat in range(2):
            log = [f for f in os.listdir(r.tmp)
                   if f.startswith("match%d-seat%d-" % (mid, seat))]
            # the last matches' bots may still be writing their end
            for _ in range(100):
                text = open(os.path.join(r.tmp, log[0])).read()
                ends = [l for l in text.splitlines() if " match_end " in l]
                if ends:
                    break
                time.sleep(0.05)
            assert ends, text[-300:]
            w = ends[0].split()
            # match_end RESULT MPOINTS SEED CHAIN [receipt]
            assert w[w.index("match_end") + 3] == "-", ends[0]
            for s in seeds:
                assert s not in text, "match %d seat %d was told a seed" \
                    % (mid, seat)
            told += 1
    assert told == 24


def test_duplicate_remote_refused(r, conf):
    """Duplicate deals with a remote bot, or one that keeps a directory:
    refused unless the definition trusts them."""
    keep = tempfile.mkdtemp(prefix="refd-cheat-keep.")
    base = ("bot rem0 remote token-rem0-secret\nbot dup%s spawn %s listen"
            "\nbot keeper spawn --dir=%s %s listen\nname t\nvariant "
            "classic2\nduplicate yes\nconcurrency 1\n" %
            ("x", " ".join(CHEAT), keep, " ".join(CHEAT)))
    for bots, word in (("rem0 dupx", "remote bot rem0"),
                       ("keeper dupx", "keeps a directory")):
        path = tour(r, "rem", base + "bots %s\n" % bots)
        ok, text = r.ctl("tournament_start", path)
        assert not ok and word in text and "trust_remote yes" in text, text
    path = tour(r, "rem", base + "bots keeper dupx\ntrust_remote yes\n")
    tid = r.must("tournament_start", path)
    r.must("tournament_stop", tid)
    shutil.rmtree(keep, ignore_errors=True)


def closed_soon(s, wait=0.5):
    """Did refd close s (EOF or reset) within wait seconds?"""
    import socket
    s.settimeout(wait)
    try:
        return s.recv(100) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def net_refd(extra_conf):
    tmp = tempfile.mkdtemp(prefix="refd-cheat-net.")
    c = os.path.join(tmp, "refd.conf")
    with open(c, "w") as f:
        f.write(extra_conf)
    return harness.Refd(tmp, extra=["-f", c]), tmp


def test_net_unauthenticated_caps(r, conf):
    """Strangers: a cap per address and a smaller cap in all; a bot with
    its token still gets in once they are gone; keepalive is on."""
    import socket
    r2, tmp = net_refd("max_unauthenticated 6\nmax_per_address 3\n"
                       "auth_ms 30000\nbot far remote far-token-123\n")
    socks = []
    try:
        def conn(src):
            s = socket.socket()
            s.bind((src, 0))
            s.connect(("127.0.0.1", r2.port))
            socks.append(s)
            return s
        first = [conn("127.0.0.1") for _ in range(3)]
        assert closed_soon(conn("127.0.0.1")), "a 4th from one address"
        assert not any(closed_soon(s, 0.1) for s in first)
        more = [conn("127.0.0.2") for _ in range(3)]
        assert not any(closed_soon(s, 0.1) for s in more)
        # a 7th in all, from a new address, takes the place of the
        # oldest stranger of the fullest address ...
        seventh = conn("127.0.0.3")
        assert not closed_soon(seventh, 0.2), "a 7th from a new address"
        assert closed_soon(first[0]), "no room made for a 7th"
        # ... but one from an address that holds as many is refused
        assert closed_soon(conn("127.0.0.1")), "an 8th in all"
        # refd's side of a stranger's connection has keepalive on
        port = "%04X" % r2.port
        timers = [l.split()[5].split(":")[0] for l in
                  open("/proc/net/tcp").read().splitlines()[1:]
                  if l.split()[1].endswith(":" + port) and
                  l.split()[3] == "01"]
        assert timers and all(t == "02" for t in timers), timers
        for s in socks:
            s.close()
        time.sleep(0.2)
        bot = harness.RemoteBot(r2.port, "far", "far-token-123", "silent")
        bot.start()
        for _ in range(100):
            if bot.auth is not None:
                break
            time.sleep(0.02)
        assert bot.auth and bot.auth.startswith("="), bot.auth
        assert r2.must("status")
    finally:
        for s in socks:
            s.close()
        r2.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def test_net_control_limits(r, conf):
    """Control clients: a silent one times out, one that never reads is
    dropped, and with every slot taken the operator still gets in."""
    import socket
    r2, tmp = net_refd("control_idle_ms 500\n")
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(r2.sock)
        assert closed_soon(s, 3), "an idle client stays"
        s.close()
        # one that never reads what it asked for
        s = socket.socket(socket.AF_UNIX)
        s.connect(r2.sock)
        s.settimeout(10)
        dropped = False
        try:
            for _ in range(2000):
                s.sendall(b"1 help\n" * 50)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            dropped = True
        s.close()
        assert dropped, "a client that never reads was kept"
        err = open(os.path.join(tmp, "refd.err")).read()
        assert "bytes unread: dropped" in err, err[-500:]
        # every slot taken by idle clients: the operator gets in
        idle = []
        for _ in range(70):
            c = socket.socket(socket.AF_UNIX)
            c.connect(r2.sock)
            idle.append(c)
        assert r2.must("status")
        for c in idle:
            c.close()
    finally:
        r2.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def auth_from(port, src, name, token):
    """One auth attempt from source address src; returns the answer."""
    return harness.auth(port, name, token, src)[0]


def test_net_token_guessing(r, conf):
    """Guesses at one bot from many addresses, each under its per-address
    throttle and among a flood of made-up names: the bot's own throttle
    holds, and the refusals are logged at a bounded rate."""
    import threading
    r2, tmp = net_refd("bot vault remote vault-right-token\n")
    answers = []

    def guess(i, name, token):
        answers.append(auth_from(r2.port, "127.0.%d.%d" % (i // 250 + 1,
                                 i % 250 + 1), name, token))
    try:
        threads = [threading.Thread(target=guess, args=(i, "vault",
                                    "wrong-%d" % i)) for i in range(21)]
        threads += [threading.Thread(target=guess, args=(100 + i,
                                     "made-up-%d" % i, "x" * 12))
                    for i in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(answers) == 61 and all(a.startswith("?")
                                          for a in answers), answers[:3]
        # a new address, the right token: still refused for the minute
        ans = auth_from(r2.port, "127.0.9.9", "vault", "vault-right-token")
        assert ans.startswith("?"), ans
        rows = r2.query("SELECT kind FROM bot_events WHERE kind LIKE "
                        "'auth-%'")
        # 62 refusals in well under 10 seconds: 10 of them logged
        assert len(rows) == 10, len(rows)
        assert r2.must("status")
    finally:
        r2.stop()
    shutil.rmtree(tmp, ignore_errors=True)


TESTS = [test_read_log_and_config, test_procs_memory_fds,
         test_control_socket, test_signals, test_setsid_escape,
         test_fork_bomb, test_remember, test_bots_not_root,
         test_sandbox_none_recorded, test_no_bwrap_refused, test_refuse_root, test_control_peercred,
         test_socket_path_not_clobbered, test_botlog_no_symlink,
         test_log_replaced, test_not_dumpable, test_ordinary_user,
         test_planted_secrets, test_outside_view_named,
         test_memory_counted, test_calls_refused, test_page_cache_refused,
         test_lock_channel,
         test_duplicate_seed,
         test_duplicate_remote_refused, test_net_unauthenticated_caps,
         test_net_control_limits, test_net_token_guessing]


def main():
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="refd-cheat.")
    # the config file in a directory of its own, beside the log's
    etc = tmp.rstrip("/") + ".etc"
    os.mkdir(etc)
    conf = os.path.join(etc, "refd.conf")
    with open(conf, "w") as f:
        f.write("bot remote-victim remote %s\n" % TOKEN)
    os.environ["REFD_CHEAT_SECRET"] = SECRET
    r = harness.Refd(tmp, extra=["-f", conf])
    del os.environ["REFD_CHEAT_SECRET"]
    passed, failed = harness.run_against(r, TESTS, (r, conf))
    shutil.rmtree(etc, ignore_errors=True)
    harness.finish(passed, failed, tmp)


if __name__ == "__main__":
    main()
