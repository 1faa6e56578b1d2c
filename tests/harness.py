"""harness.py: what every test of a real refd shares.

A refd on loopback in its own directory (Refd), the example bots, the
information checker for a seat's transcript, and the runner that prints
"ok"/"FAIL" per test and the closing "N passed, M failed" line.

Environment: top_builddir, top_srcdir (default: the current directory).
"""
import os
import random
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback

BUILD = os.path.abspath(os.environ.get("top_builddir", "."))
SRC = os.path.abspath(os.environ.get("top_srcdir", "."))
REFD = os.path.join(BUILD, "refd", "refd")
REFCTL = os.path.join(BUILD, "refd", "refctl")
# bots run as an unprivileged user: an interpreter it can reach
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else \
    (sys.executable or "python3")
EVIL = [PY, os.path.join(SRC, "tests", "evilbot.py")]
SEATS = {"joker3": 3, "classic2": 2, "classic3": 3, "classic4": 4}
CARDS = set(str(r) + s for r in range(1, 11) for s in "CDBS")
# the log's newest schema version: schema/N.sql is migration N
SCHEMA = len([f for f in os.listdir(os.path.join(SRC, "schema"))
              if re.match(r"\d+\.sql$", f)])


def example_bots():
    """The example bots shipped in bots/, as name -> argv."""
    bots = {
        "crand": [os.path.join(BUILD, "bots", "randbot"), "-s", "5"],
        "heur": [os.path.join(BUILD, "bots", "heurbot")],
        "py": [PY, os.path.join(SRC, "bots", "randbot.py"), "11"],
        "sh": ["sh", os.path.join(SRC, "bots", "randbot.sh"), "13"],
    }
    if shutil.which("node"):
        bots["js"] = ["node", os.path.join(SRC, "bots", "randbot.js"), "17"]
    else:
        print("# node not found: the Node.js bot is not played")
    return bots


class Refd:
    """A refd on loopback in its own directory."""

    def __init__(self, tmp, move_ms=1500, extra=(), preexec_fn=None):
        self.tmp = tmp
        self.db = os.path.join(tmp, "log.db")
        self.sock = os.path.join(tmp, "ctl.sock")
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.err = open(os.path.join(tmp, "refd.err"), "w")
        # refd's own start-up limit (10 s): a healthy interpreter starts
        # within it on a loaded machine, as it must for any operator
        self.proc = subprocess.Popen(
            [REFD, "-D", self.db, "-c", self.sock, "-L", tmp, "-v",
             "-l", "127.0.0.1:%d" % self.port, "-m", str(move_ms)] +
            list(extra), stderr=self.err, stdin=subprocess.DEVNULL,
            preexec_fn=preexec_fn)
        # a stale socket of a killed refd may still be there, even with
        # a listener a moment longer (a connection to it is reset): wait
        # until this one answers a command
        for _ in range(250):
            try:
                if self.ask(("name",), 10).startswith("=1"):
                    break
            except OSError:
                pass
            time.sleep(0.02)
        else:
            raise RuntimeError("refd did not start")

    def ask(self, words, timeout):
        """Send one control command; its whole answer, as text."""
        c = socket.socket(socket.AF_UNIX)
        try:
            c.settimeout(timeout)
            c.connect(self.sock)
            c.sendall(("1 " + " ".join(words) + "\n").encode())
            data = b""
            while not data.endswith(b"\n\n"):
                chunk = c.recv(65536)
                if not chunk:
                    break
                data += chunk
        finally:
            c.close()
        return data.decode()

    def ctl(self, *words, timeout=60):
        """One control command; returns (ok, text)."""
        text = self.ask(words, timeout)
        assert text[:2] in ("=1", "?1"), "bad answer %r" % text
        return text[0] == "=", text[2:].strip()

    def must(self, *words, timeout=60):
        ok, text = self.ctl(*words, timeout=timeout)
        assert ok, "%s: %s" % (" ".join(words), text)
        return text

    def recorder(self):
        """The directory recording bots write to, and the bot option that
        shows it to them: the sandbox shows a bot nothing of refd's
        directory, where its bot logs are.  Bots run as an unprivileged
        user, hence the mode.  finish() removes it with tmp."""
        rec = self.tmp.rstrip("/") + ".rec"
        os.makedirs(rec, exist_ok=True)
        os.chmod(rec, 0o777)
        return rec, ["--dir=" + rec]

    def add(self, name, argv):
        self.must("bot_add", name, "spawn", *argv)

    def start(self, variant, bots, *opts):
        return int(self.must("match_start", variant, *bots, *opts))

    def wait(self, mid):
        return self.must("match_wait", str(mid)).split(" ", 1)

    def query(self, sql, *args):
        con = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        try:
            return con.execute(sql, args).fetchall()
        finally:
            con.close()

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.ctl("shutdown", timeout=5)
            except OSError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()
        return self.proc.returncode


def marked_left(mark, wait_s=5):
    """The pids of the processes whose command line holds mark, once
    none is left or after wait_s seconds."""
    def cmdline(pid):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                return f.read()
        except OSError:     # gone meanwhile
            return b""
    deadline = time.monotonic() + wait_s
    while True:
        left = [p for p in os.listdir("/proc") if p.isdigit() and
                mark.encode() in cmdline(p)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def answer_lines(f, what="the answer"):
    """The lines of one control answer read from f (a binary file of a
    control connection), up to the empty line that ends it."""
    lines = []
    while True:
        line = f.readline().decode()
        assert line, "%s was cut: %r" % (what, lines[-5:])
        if line == "\n":
            return lines
        lines.append(line.rstrip("\n"))


# C for a shim (refd_with_shim()) that sees every byte refd writes: its
# write(2) and writev(2) hand each buffer to the shim's own
# "static void seen(const void *buf, size_t len)", defined before this.
SHIM_WRITES = r"""
ssize_t
write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT,
		    "write");
	seen(buf, len);
	return real(fd, buf, len);
}

ssize_t
writev(int fd, const struct iovec *iov, int n)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	int i;

	if (real == NULL)
		real = (ssize_t (*)(int, const struct iovec *, int))
		    dlsym(RTLD_NEXT, "writev");
	for (i = 0; i < n; i++)
		seen(iov[i].iov_base, iov[i].iov_len);
	return real(fd, iov, n);
}
"""


def refd_with_shim(tmp, source, name, extra=("-v",), env=None):
    """A Refd in tmp with the C source built as a shared object and
    preloaded (LD_PRELOAD): a shim that wraps calls refd makes, reading
    its settings from the variables of env."""
    src = os.path.join(tmp, name + ".c")
    so = os.path.join(tmp, name + ".so")
    with open(src, "w") as f:
        f.write(source)
    subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-o",
                    so, src, "-ldl"], check=True)
    old = dict(os.environ)
    os.environ.update({k: str(v) for k, v in (env or {}).items()})
    os.environ["LD_PRELOAD"] = so
    # a sanitizer build's runtime must come first: it still does
    os.environ["ASAN_OPTIONS"] = (old.get("ASAN_OPTIONS", "") +
                                  ":verify_asan_link_order=0").lstrip(":")
    try:
        return Refd(tmp, extra=extra)
    finally:
        os.environ.clear()
        os.environ.update(old)


class RemoteBot(threading.Thread):
    """A random bot that plays over TCP, as a remote program would."""

    def __init__(self, port, name, token, mode="good", db=None, src=None):
        super().__init__(daemon=True)
        self.port, self.name, self.token, self.mode = port, name, token, mode
        self.src = src          # the source address, if not the default
        # mode "lock:K": at its K-th genplay it takes db's write lock,
        # answers, and holds the lock for a second; told counts the plays
        # it was told of in its last match
        self.db, self.told, self.genplays = db, 0, 0
        self.auth = None
        self.lines = []         # every line refd sent it, in order
        self.local = None
        self.error = None
        self.rng = random.Random(name)
        # mode "late:MS": the first genplay is answered MS ms late, and
        # this is set as it is read
        self.genplay = threading.Event()

    def run(self):
        try:
            self.play()
        except OSError as e:
            self.error = e

    def play(self):
        s = socket.create_connection(("127.0.0.1", self.port),
                                     source_address=(self.src, 0)
                                     if self.src else None)
        self.local = "%s:%d" % s.getsockname()  # the peer refd sees
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        f = s.makefile("rwb")
        f.write(("auth %s %s\n" % (self.name, self.token)).encode())
        f.flush()
        self.auth = f.readline().decode().strip()
        f.readline()
        if not self.auth.startswith("="):
            s.close()
            return
        if self.mode == "silent":
            time.sleep(30)
            return
        for raw in f:
            self.lines.append(raw.decode().rstrip("\n"))
            words = raw.decode().split("#", 1)[0].split()
            if not words:
                continue
            ident, cmd = words[0], words[1]
            if cmd == "match_start":
                self.told = 0
            elif cmd == "play":
                self.told += 1
            lock = None
            if cmd == "genplay":
                self.genplays += 1
                if self.mode == "lock:%d" % self.genplays:
                    lock = sqlite3.connect(self.db, isolation_level=None)
                    lock.execute("BEGIN IMMEDIATE")
                if self.mode == "vanish":
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                    return
                text = " " + self.rng.choice(words[3:])
                # mode "mark:K": the K-th answer carries a comment a
                # test's shim in refd looks for
                if self.mode == "mark:%d" % self.genplays:
                    text += " #mark"
                if self.mode.startswith("late:") and \
                        not self.genplay.is_set():
                    self.genplay.set()
                    time.sleep(int(self.mode[5:]) / 1000.0)
            elif cmd == "name":
                text = " " + self.name
            else:
                text = ""
            f.write(("=%s%s\n\n" % (ident, text)).encode())
            f.flush()
            if lock:
                time.sleep(1)
                lock.execute("ROLLBACK")
                lock.close()
            if cmd in ("quit", "match_end"):
                break
        s.close()


# the lines every seat of a match is sent alike, whatever it holds
PUBLIC = ("bid", "called", "play", "partner", "trick", "deal_end", "joker")


def public_lines(path):
    """The lines of a transcript every seat must receive alike, in
    order, without their ids."""
    return [" ".join(line.split()[1:]) for line in open(path)
            if line.split()[1:2] and line.split()[1] in PUBLIC]


def check_transcript(path, variant, seat):
    """A seat's transcript never names a card it was not entitled to;
    in chiamata5 the partner is named only right after the called card
    is played, by the seat that played it."""
    known = set()
    hand = set()
    stock_empty = False
    violations = []
    called = None
    table = []          # the cards of the trick being played
    for n, line in enumerate(open(path), 1):
        line, _, comment = line.partition("#")
        w = line.split()
        if len(w) < 2:
            continue
        cmd, args = w[1], w[2:]
        if cmd == "genplay":
            # the comment names exactly the cards on the table
            said = comment.split()[1:] if comment.strip() else []
            assert comment.split()[:1] in ([], ["trick"]), comment
            assert said == table, "%s:%d: the trick is %s, not %s" % (
                path, n, table, said)
        if cmd in ("deal_start", "trick"):
            table = []
        if cmd == "play":
            table.append(args[1])
        if cmd == "deal_start":
            known = {args[2]} | set(args[3:])
            hand = set(args[3:])
            called = None
            continue
        if cmd in ("genbid", "gencall", "bid"):
            assert variant == "chiamata5", cmd + " in " + variant
            continue
        if cmd == "called":
            # the called card is named to all; where it is, is not
            assert variant == "chiamata5", "called in " + variant
            called = args[0]
            known.add(called)
            continue
        if cmd == "partner":
            assert variant == "chiamata5", "partner in " + variant
            prev = open(path).read().splitlines()[n - 2].split()[1:]
            if prev != ["play", args[0], called]:
                violations.append("%s:%d: partner %s revealed, but the "
                                  "line before is %s, the called card %s"
                                  % (path, n, args[0], prev, called))
            continue
        if cmd == "draw":
            known.add(args[0])
            hand.add(args[0])
            continue
        if cmd == "play":
            known.add(args[1])
            continue
        if cmd == "partner_hand":
            assert variant == "classic4", "partner_hand in " + variant
            stock_empty = True
            known |= set(args)
            continue
        if cmd == "deal_end":
            continue        # reveals the removed 2, as it should
        for a in args:
            if a.upper() in CARDS and a.upper() not in known:
                violations.append("%s:%d: %s" % (path, n, line.strip()))
    assert not violations, violations[:3]
    return stock_empty


def auth(port, name, token, src="127.0.0.1"):
    """One auth attempt of a remote bot from source address src:
    (refd's answer, or "error ..." when the connection failed, and the
    seconds it took)."""
    s = socket.socket()
    s.settimeout(10)
    t0 = time.time()
    data = b""
    try:
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(("auth %s %s\n" % (name, token)).encode())
        while not data.endswith(b"\n\n"):
            chunk = s.recv(100)
            if not chunk:
                break
            data += chunk
        return data.decode(), time.time() - t0
    except OSError as e:
        return "error %s" % e, time.time() - t0
    finally:
        s.close()


def main_with(prefix, fixture, tests, what="playing the matches"):
    """A suite's main: fixture(tmp) made first (its failure fails the
    suite), then each test given it; temporary files kept on failure."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    start = time.time()
    try:
        made = fixture(tmp)
        print("ok %s (%.1f s)" % (what, time.time() - start))
    except Exception:
        traceback.print_exc(file=sys.stdout)
        print("FAIL %s\n0 passed, 1 failed\n# kept %s" % (what, tmp))
        sys.exit(1)
    passed, failed = run_tests(tests, (made,))
    finish(passed, failed, tmp)


def run_tests(tests, args, note=None):
    """Run each test named on the command line (all if none) with args;
    print "ok" or "FAIL" and the traceback; returns (passed, failed)."""
    only = sys.argv[1:]
    passed = failed = 0
    for t in tests:
        if only and t.__name__ not in only:
            continue
        start = time.time()
        try:
            t(*args)
            passed += 1
            print("ok %s (%.1f s%s)" % (t.__name__, time.time() - start,
                                        note() if note else ""))
        except Exception:
            failed += 1
            print("FAIL %s" % t.__name__)
            traceback.print_exc(file=sys.stdout)
    return passed, failed


def run_against(r, tests, args):
    """Run tests with args against refd r, stop it, show its stderr;
    returns (passed, failed), refd's own failure to stop counted."""
    passed = failed = 0
    try:
        passed, failed = run_tests(tests, args)
    finally:
        rc = r.stop()
        if rc != 0:
            print("FAIL refd exited with status %s" % rc)
            failed += 1
        print("# refd's stderr:")
        sys.stdout.write("".join("#   " + l for l in
                                 open(os.path.join(r.tmp, "refd.err"))))
    return passed, failed


def finish(passed, failed, tmp):
    """The closing line, the temporary files kept only on failure."""
    print("%d passed, %d failed" % (passed, failed))
    if failed == 0:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(tmp.rstrip("/") + ".rec", ignore_errors=True)
    else:
        print("# kept " + tmp)
    sys.exit(1 if failed else 0)
