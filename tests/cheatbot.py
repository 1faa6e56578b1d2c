#!/usr/bin/env python3
"""cheatbot.py ATTACK [ARG ...]: a bot that tries to cheat, then plays.

Used by tests/cheat.py.  Before it reads its first command it tries one
class of attack for real, and reports on stderr (which refd copies to
its bot log) one line per attempt:

  cheat ATTACK tried WHAT
  cheat ATTACK REACHED WHAT: evidence

and "cheat ATTACK done" at the end; then it plays legal random cards
until quit.  Attacks:

  files P ...   read each file P (the log, the config file, bot logs);
                @P for a P the command must not name as a file
  procs PID     look for refd (PID outside) and other bots among the
                processes it can see; read their fds, memory, environ
  fds           descriptors beyond 0, 1 and 2
  env           variables beyond PATH, LANG and HOME
  socket P      connect to the control socket P and shut refd down (@P
                as for files)
  signals PID   SIGSTOP refd (PID) and every process it can signal
  escape MARK   setsid and a double fork: a grandchild that outlives
                the match, its command line holding MARK
  forkbomb N    fork up to N processes that wait
  listen        no attack: every line it receives goes to stderr too,
                after "cheat listen got ", for the test to read
  memfill N [L] fill /dev/shm, /dev, /tmp, HOME and a tmpfs of its own
                with N MiB each; REACHED if it held more than L MiB
  calls         ptrace, process_vm_readv, perf_event_open, bpf,
                userfaultfd, keyctl, io_uring, inotify, unshare and a
                clone into new namespaces: each that works is REACHED
  pagecache [F] fadvise DONTNEED, preadv2 RWF_NOWAIT, mincore, madvise
                page-out and cachestat on F (its own program)
  lockchan send|recv  flock, fcntl and OFD locks on its own program:
                the sender holds them, the receiver sees them held
  remember TAG  leave a mark named for TAG on every writable place it
                finds, and report the marks of an earlier match
"""
import glob
import os
import random
import signal
import socket
import sys
import time

ATTACK = sys.argv[1] if len(sys.argv) > 1 else "none"
ARGS = sys.argv[2:]
MARK = "cheatbot-was-here"


def say(text):
    sys.stderr.write("cheat %s %s\n" % (ATTACK, text))
    sys.stderr.flush()


def tried(what):
    say("tried " + what)


def reached(what, evidence=""):
    say("REACHED %s: %s" % (what, str(evidence)[:80].replace("\n", " ")))


def read(path, n=64):
    with open(path, "rb") as f:
        return f.read(n)


def attack_files():
    for p in ARGS:
        p = p[1:] if p.startswith("@") else p   # "@P": a word not a file
        tried("read " + p)
        try:
            reached("read " + p, read(p))
        except OSError:
            pass
        d = os.path.dirname(p)
        tried("list " + d)
        try:
            if os.listdir(d):
                reached("list " + d, os.listdir(d))
        except OSError:
            pass


def procs():
    """(pid, cmdline) of every process this bot can see but its own."""
    me = os.getpid()
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) != me:
            try:
                cmd = read("/proc/%s/cmdline" % p, 4096)
            except OSError:
                cmd = b""
            out.append((int(p), cmd.replace(b"\0", b" ").decode(
                "ascii", "replace")))
    return out


def foreign(cmd):
    """Is a command line refd's or another bot's?  (Its own sandbox's
    init, bwrap, is no secret.)"""
    argv0 = cmd.split(" ", 1)[0]
    return os.path.basename(argv0) == "refd" or "evilbot.py" in cmd


def attack_procs():
    refd = int(ARGS[0]) if ARGS else 0
    for what in ("mem", "environ", "fd/3", "fd/2", "maps"):
        tried("/proc/%d/%s" % (refd, what))
        try:
            data = read("/proc/%d/%s" % (refd, what))
            if foreign(read("/proc/%d/cmdline" % refd, 4096).replace(
                    b"\0", b" ").decode("ascii", "replace")):
                reached("/proc/%d/%s" % (refd, what), data)
        except OSError:
            pass
    for pid, cmd in procs():
        tried("see pid %d" % pid)
        if foreign(cmd):
            reached("process %d" % pid, cmd)
        if pid == 1 and cmd.startswith("bwrap "):
            continue    # its own sandbox's init holds only its own pipes
        for fd in glob.glob("/proc/%d/fd/*" % pid):
            tried("read " + fd)
            try:
                target = os.readlink(fd)
                if "pipe" in target or "socket" in target or ".db" in \
                        target:
                    data = read(fd)
                    if data:
                        reached("read " + fd, data)
            except OSError:
                pass


def attack_fds():
    for fd in os.listdir("/proc/self/fd"):
        tried("fd " + fd)
        if int(fd) > 2:
            try:
                target = os.readlink("/proc/self/fd/" + fd)
            except OSError:
                continue    # the listing's own descriptor, now closed
            reached("fd " + fd, target)


def attack_env():
    say("uid %d" % os.getuid())
    for k, v in os.environ.items():
        tried("variable " + k)
        if k not in ("PATH", "LANG", "HOME", "PWD", "SHLVL", "_"):
            reached("variable " + k, v)


def attack_socket():
    for p in ARGS:
        p = p[1:] if p.startswith("@") else p
        tried("connect " + p)
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        try:
            s.connect(p)
            s.sendall(b"1 status\n2 shutdown\n")
            reached("connect " + p, s.recv(200))
        except OSError:
            pass
        finally:
            s.close()


def attack_signals():
    refd = int(ARGS[0]) if ARGS else 0
    for pid in (refd, -refd):
        tried("SIGSTOP %d" % pid)
        try:
            if pid not in (0, 1, -1, os.getpid()):
                os.kill(pid, signal.SIGSTOP)
                reached("SIGSTOP %d" % pid)
        except OSError:
            pass
    for pid, cmd in procs():
        tried("SIGSTOP %d" % pid)
        if foreign(cmd):
            try:
                os.kill(pid, signal.SIGSTOP)
                reached("SIGSTOP %d" % pid, cmd)
            except OSError:
                pass
    # everything this user may signal, wherever it is
    tried("SIGSTOP -1")
    try:
        signal.signal(signal.SIGCONT, signal.SIG_DFL)
        os.kill(-1, signal.SIGSTOP)
    except OSError:
        pass


def attack_escape():
    tried("setsid double fork")
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in range(0, 3):
                os.close(fd)
            os.execvp("sh", ["sh", "-c", "sleep 120 # " + ARGS[0]])
        os._exit(0)
    os.wait()


def attack_forkbomb():
    n = 0
    limit = int(ARGS[0]) if ARGS else 1000
    tried("fork %d" % limit)
    kids = []
    while n < limit:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        kids.append(pid)
        n += 1
    say("forked %d" % n)
    if n >= limit:
        reached("forked %d" % n)


def attack_remember():
    places = ["/tmp", os.environ.get("HOME", "/"), os.getcwd(), "/var/tmp",
              "/dev/shm", "/run/lock"]
    for d in places:
        f = os.path.join(d, "%s-%s" % (MARK, ARGS[0] if ARGS else ""))
        tried("find " + f)
        if os.path.exists(f):
            reached("remembered " + f, read(f))
        try:
            with open(f, "w") as fp:
                fp.write("hand 1S 3S")
            say("wrote " + f)
        except OSError:
            pass


def fill(d, limit):
    """Write up to limit MiB into files in directory d; say how much."""
    chunk = b"\x5a" * (1 << 20)
    n = 0
    try:
        with open(os.path.join(d, "%s-fill" % MARK), "wb") as f:
            while n < limit:
                f.write(chunk)
                f.flush()
                n += 1
                if n % 16 == 0:
                    say("wrote %d MiB to %s" % (n, d))
    except OSError as e:
        say("stopped at %d MiB in %s: %s" % (n, d, e.strerror))
    say("wrote %d MiB to %s" % (n, d))
    return n


def nested_tmpfs():
    """A tmpfs mounted in a user and mount namespace of its own; its
    path, or None."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    d = "/tmp/%s-nested" % MARK
    os.makedirs(d, exist_ok=True)
    tried("unshare a user and mount namespace")
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(0x10000000 | 0x00020000) != 0:
        say("no namespace: %s" % os.strerror(ctypes.get_errno()))
        return None
    try:    # root inside, so that it may write what it mounts
        for f, text in (("setgroups", "deny"), ("uid_map", "0 %d 1" % uid),
                        ("gid_map", "0 %d 1" % gid)):
            with open("/proc/self/" + f, "w") as fp:
                fp.write(text)
    except OSError as e:
        say("no map: %s" % e.strerror)
    if libc.mount(b"none", d.encode(), b"tmpfs", 0, b"size=2g") != 0:
        say("no tmpfs: %s" % os.strerror(ctypes.get_errno()))
        return None
    return d


def attack_memfill():
    """Fill every tmpfs in reach with up to ARGS[0] MiB each: shared
    memory, /dev, /tmp, HOME and a tmpfs of its own, which RLIMIT_AS
    never counts; ARGS[1], if given, is the limit it must not pass."""
    limit = int(ARGS[0]) if ARGS else 512
    total = 0
    for d in ("/dev/shm", "/dev", "/tmp", os.environ.get("HOME", "/tmp"),
              "nested"):
        if d == "nested":
            d = nested_tmpfs()
            if d is None:
                continue
        tried("fill " + d)
        total += fill(d, limit)
        say("total %d MiB" % total)
    if len(ARGS) > 1 and total > int(ARGS[1]):
        reached("held %d MiB" % total)


def libc():
    import ctypes
    return ctypes.CDLL(None, use_errno=True)


# x86-64 system call numbers, for the calls Python has no wrapper for
NR = {"ptrace": 101, "process_vm_readv": 310, "perf_event_open": 298,
      "bpf": 321, "userfaultfd": 323, "keyctl": 250, "io_uring_setup": 425,
      "unshare": 272, "mincore": 27, "madvise": 28, "cachestat": 451,
      "inotify_init1": 294, "flock": 73}


def call(name, *args):
    """System call name; (result, errno)."""
    import ctypes
    lc = libc()
    lc.syscall.restype = ctypes.c_long
    r = lc.syscall(ctypes.c_long(NR[name]), *args)
    return r, ctypes.get_errno()


def attack_calls():
    """System calls that reach past a namespace or make one: each that
    works is REACHED."""
    import ctypes
    kid = os.fork()
    if kid == 0:
        time.sleep(30)
        os._exit(0)
    try:
        tried("ptrace attach")
        r, e = call("ptrace", ctypes.c_long(16), ctypes.c_long(kid), None,
                    None)
        if r == 0:
            reached("ptrace attach")
            os.waitpid(kid, 0)
            call("ptrace", ctypes.c_long(17), ctypes.c_long(kid), None, None)
        tried("process_vm_readv")
        buf = ctypes.create_string_buffer(8)
        local = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)
        remote = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)
        r, e = call("process_vm_readv", ctypes.c_long(kid), local,
                    ctypes.c_long(1), remote, ctypes.c_long(1),
                    ctypes.c_long(0))
        if r > 0:
            reached("process_vm_readv", r)
    finally:
        os.kill(kid, signal.SIGKILL)
        os.waitpid(kid, 0)
    attr = ctypes.create_string_buffer(128)
    attr[0] = 1     # PERF_TYPE_SOFTWARE, config 0: cpu-clock
    attr[4] = 128   # its size
    for name, args in (
            ("perf_event_open", (attr, ctypes.c_long(0), ctypes.c_long(-1),
                                 ctypes.c_long(-1), ctypes.c_long(0))),
            ("bpf", (ctypes.c_long(0), ctypes.create_string_buffer(128),
                     ctypes.c_long(128))),
            ("userfaultfd", (ctypes.c_long(1),)),
            ("keyctl", (ctypes.c_long(0), ctypes.c_long(-3),
                        ctypes.c_long(1))),
            ("io_uring_setup", (ctypes.c_long(4),
                                ctypes.create_string_buffer(120))),
            ("inotify_init1", (ctypes.c_long(0),)),
            ("unshare", (ctypes.c_long(0x10000000),))):
        tried(name)
        r, e = call(name, *args)
        if r >= 0:
            reached(name, r)
    # clone with a new user namespace, through fork's own path
    tried("clone a new user namespace")
    r, e = libc().syscall(ctypes.c_long(56), ctypes.c_long(0x10000000 | 17),
                          None, None, None, None), 0
    if r == 0:
        os._exit(0)
    if r > 0:
        os.waitpid(r, 0)
        reached("clone a new user namespace", r)


def page_file():
    """A file whose pages the bot may read: its own program."""
    return os.path.abspath(sys.argv[0])


def attack_pagecache():
    """What reads or drops another reader's page cache: fadvise, madvise
    page-out, mincore, cachestat, preadv2 with RWF_NOWAIT."""
    import ctypes
    path = ARGS[0] if ARGS else page_file()
    fd = os.open(path, os.O_RDONLY)
    tried("posix_fadvise DONTNEED " + path)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        reached("posix_fadvise DONTNEED")
    except OSError:
        pass
    tried("preadv2 RWF_NOWAIT")
    try:
        os.preadv(fd, [bytearray(4096)], 0, os.RWF_NOWAIT)
        reached("preadv2 RWF_NOWAIT")
    except OSError as e:
        if e.errno == 11:       # EAGAIN: it answered "not cached"
            reached("preadv2 RWF_NOWAIT", "EAGAIN")
    # a page of it mapped, read-only and shared
    lc = libc()
    lc.mmap.restype = ctypes.c_void_p
    p = lc.mmap(None, ctypes.c_size_t(4096), ctypes.c_int(1),
                ctypes.c_int(1), ctypes.c_int(fd), ctypes.c_long(0))
    vec = ctypes.create_string_buffer(1)
    tried("mincore")
    r, e = call("mincore", ctypes.c_void_p(p), ctypes.c_long(4096), vec)
    if r == 0:
        reached("mincore", vec.raw)
    for name, advice in (("MADV_PAGEOUT", 21), ("MADV_COLD", 20)):
        tried("madvise " + name)
        r, e = call("madvise", ctypes.c_void_p(p), ctypes.c_long(4096),
                    ctypes.c_long(advice))
        if r == 0:
            reached("madvise " + name)
    tried("cachestat")
    rng = (ctypes.c_uint64 * 2)(0, 0)
    st = (ctypes.c_uint64 * 8)()
    r, e = call("cachestat", ctypes.c_long(fd), rng, st, ctypes.c_long(0))
    if r == 0:
        reached("cachestat", list(st)[:2])
    os.close(fd)


def attack_lockchan():
    """Two bots at one table share a bit through a lock on a host file
    both can read: "lockchan send" holds it, "lockchan recv" sees it
    held.  Tried with flock, and fcntl and OFD record locks."""
    import fcntl
    import struct
    role = ARGS[0]
    path = page_file()
    fd = os.open(path, os.O_RDONLY)
    rd = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0)
    wr = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
    if role == "send":
        for how, fn in (("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX)),
                        ("F_SETLK", lambda: fcntl.fcntl(fd, fcntl.F_SETLK,
                                                        rd)),
                        ("F_OFD_SETLK", lambda: fcntl.fcntl(fd, 37, rd))):
            tried("hold " + how)
            try:
                fn()
                say("holds " + how)     # or believes it does
            except OSError:
                pass
        time.sleep(3)           # while the other looks
        return
    time.sleep(1)
    for how, fn in (
            ("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX |
                                          fcntl.LOCK_NB)),
            ("F_GETLK", lambda: struct.unpack(
                "hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, wr))[0] !=
                fcntl.F_UNLCK and ko()),
            ("F_OFD_GETLK", lambda: struct.unpack(
                "hhqqi", fcntl.fcntl(fd, 36, wr))[0] != fcntl.F_UNLCK and
                ko())):
        tried("see " + how)
        try:
            fn()
        except BlockingIOError:
            reached("saw the other bot's " + how)
        except OSError:
            pass


def ko():
    raise BlockingIOError()


ATTACKS = {"calls": attack_calls, "pagecache": attack_pagecache,
           "lockchan": attack_lockchan, "memfill": attack_memfill, "listen": lambda: None, "files": attack_files, "procs": attack_procs, "fds": attack_fds,
           "env": attack_env, "socket": attack_socket,
           "signals": attack_signals, "escape": attack_escape,
           "forkbomb": attack_forkbomb, "remember": attack_remember}


def main():
    try:
        ATTACKS[ATTACK]()
    except Exception as e:      # report, never stop playing
        say("error %r" % e)
    say("done")
    rng = random.Random()
    out = sys.stdout.buffer
    for raw in iter(sys.stdin.buffer.readline, b""):
        if ATTACK == "listen":
            say("got " + raw.decode("ascii", "replace").rstrip("\r\n"))
        args = raw.decode("ascii", "replace").split("#", 1)[0].split()
        ident = args.pop(0) if args and args[0].isdigit() else ""
        if not args:
            continue
        text = ""
        if args[0] == "name":
            text = " cheatbot"
        elif args[0] == "version":
            text = " 1"
        elif args[0] == "genplay":
            text = " " + rng.choice(args[2:])
        out.write(("=%s%s\n\n" % (ident, text)).encode())
        out.flush()
        if args[0] == "quit":
            return


if __name__ == "__main__":
    main()
