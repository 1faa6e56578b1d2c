"""pgharness.py: a PostgreSQL cluster of the test's own, for the tests of
refd's cluster (refd-cluster(7)).

initdb into a temporary directory, the server on a Unix socket in that
directory and no TCP (listen_addresses ''), scram-sha-256 for every
connection, stopped by its pid at the end.  PostgreSQL refuses to run as
root: when the tests run as root (CI does), the server runs as "nobody",
who owns the cluster's directory; the directories above it are opened for
traversal only (scripts/setup does the same for the bots).
"""
import glob
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import time


def pg_bin():
    """The directory of initdb and pg_ctl, or None."""
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    d = shutil.which("initdb")
    return os.path.dirname(d) if d else None


class Postgres:
    """A PostgreSQL server of the test's own, in dir/pg."""

    def __init__(self, tmp):
        self.bin = pg_bin()
        if self.bin is None:
            raise RuntimeError("no PostgreSQL server (scripts/setup "
                               "installs postgresql)")
        self.dir = os.path.join(tmp, "pg")
        self.data = os.path.join(self.dir, "data")
        self.sockdir = self.dir
        self.password = secrets.token_hex(16)
        self.pid = None
        os.makedirs(self.dir)
        self.user = None
        if os.getuid() == 0:
            self.user = "nobody"
            pw = pwd.getpwnam(self.user)
            d = self.dir
            os.chown(d, pw.pw_uid, pw.pw_gid)
            d = os.path.dirname(d)
            while d != "/":
                os.chmod(d, os.stat(d).st_mode | 0o001)
                d = os.path.dirname(d)
        pwfile = os.path.join(self.dir, "pw")
        with open(pwfile, "w") as f:
            f.write(self.password + "\n")
        if self.user:
            os.chown(pwfile, pwd.getpwnam(self.user).pw_uid, -1)
        self.run("initdb", "-D", self.data, "-U", "postgres",
                 "-A", "scram-sha-256", "--pwfile=" + pwfile,
                 "-E", "UTF8", "--locale=C", "-N")
        os.unlink(pwfile)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("listen_addresses = ''\nunix_socket_directories = '%s'\n"
                    "fsync = on\nmax_connections = 60\n"
                    "shared_buffers = 16MB\n" % self.sockdir)
        self.start()

    def run(self, prog, *args, check=True):
        argv = [os.path.join(self.bin, prog)] + list(args)
        if self.user:
            argv = ["runuser", "-u", self.user, "--"] + argv
        return subprocess.run(argv, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, check=check,
                              cwd="/")

    def start(self):
        self.run("pg_ctl", "-D", self.data, "-l",
                 os.path.join(self.dir, "server.log"), "-w", "-t", "60",
                 "start")
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            self.pid = int(f.readline())

    def restart(self, mode="immediate"):
        self.run("pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "60",
                 "-l", os.path.join(self.dir, "server.log"), "restart")
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            self.pid = int(f.readline())

    def conninfo(self, user="postgres", password=None, db="postgres"):
        return "host=%s dbname=%s user=%s password=%s" % (
            self.sockdir, db, user,
            self.password if password is None else password)

    def stop(self):
        """Stop the server by its pid, and wait for it."""
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGQUIT)
        except ProcessLookupError:
            self.pid = None
            return
        for _ in range(500):
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        else:
            os.kill(self.pid, signal.SIGKILL)
        self.pid = None
