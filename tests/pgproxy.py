"""pgproxy.py: a faulty wire between refd workers and PostgreSQL, for
tests/cluster.py.

It listens on a Unix socket in a directory of its own, as a server's
socket directory, and passes each connection on to the real server's
socket.  It reads the client's protocol messages (a type byte and a
length), so that its faults fall on whole requests (up to a Sync) that
contain a given text (the worker's report):

- drop: the request reaches the server, its answer is thrown away and
  the connection cut, so that the client never learns it was taken;
- dup: the request is sent twice;
- cut: the connection is cut before the request is sent.

Each fault falls on a request at random with its probability; counts
says how many fell.  hold() stops passing anything on until release().
"""
import os
import random
import socket
import struct
import threading
import time


class Proxy:
    def __init__(self, dirpath, upstream, match=b"refd.report", drop=0.0,
                 dup=0.0, cut=0.0, seed=1):
        self.dir = dirpath
        os.makedirs(dirpath, exist_ok=True)
        os.chmod(dirpath, 0o755)
        self.path = os.path.join(dirpath, ".s.PGSQL.5432")
        self.upstream = upstream
        self.match = match
        self.p = {"drop": drop, "dup": dup, "cut": cut}
        self.counts = {"drop": 0, "dup": 0, "cut": 0, "requests": 0}
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.held = threading.Event()
        self.held.set()
        self.conns = []
        self.closed = False
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.bind(self.path)
        os.chmod(self.path, 0o777)
        self.sock.listen(64)
        threading.Thread(target=self.accept, daemon=True).start()

    def hold(self):
        self.held.clear()

    def release(self):
        self.held.set()

    def set(self, **p):
        with self.lock:
            self.p.update(p)

    def stop(self):
        self.closed = True
        self.held.set()
        try:
            self.sock.close()
        except OSError:
            pass
        for c in list(self.conns):
            self.close(c)

    def close(self, pair):
        for s in pair:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass

    def accept(self):
        while not self.closed:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            u = socket.socket(socket.AF_UNIX)
            try:
                u.connect(self.upstream)
            except OSError:
                c.close()
                continue
            pair = (c, u)
            self.conns.append(pair)
            st = {"drop": False}
            threading.Thread(target=self.client, args=(pair, st),
                             daemon=True).start()
            threading.Thread(target=self.server, args=(pair, st),
                             daemon=True).start()

    def recvn(self, s, n):
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def fault(self):
        with self.lock:
            r = self.rng.random()
            for k in ("drop", "dup", "cut"):
                if r < self.p[k]:
                    self.counts[k] += 1
                    return k
                r -= self.p[k]
        return None

    def client(self, pair, st):
        c, u = pair
        try:
            # the startup packet: a length, no type byte
            n = struct.unpack("!i", self.recvn(c, 4))[0]
            self.held.wait()
            u.sendall(struct.pack("!i", n) + self.recvn(c, n - 4))
            req = b""
            while True:
                t = self.recvn(c, 1)
                n = struct.unpack("!i", self.recvn(c, 4))[0]
                msg = t + struct.pack("!i", n) + self.recvn(c, n - 4)
                req += msg
                if t in (b"P", b"B", b"D", b"E", b"C", b"H"):
                    continue            # a request, until its Sync
                if t not in (b"S", b"Q"):
                    self.held.wait()    # authentication, Terminate
                    u.sendall(req)
                    req = b""
                    continue
                self.held.wait()
                if self.closed:
                    raise EOFError
                k = None
                if self.match in req:
                    with self.lock:
                        self.counts["requests"] += 1
                    k = self.fault()
                if k == "cut":
                    raise EOFError
                if k == "drop":
                    st["drop"] = True
                u.sendall(req)
                if k == "dup":
                    u.sendall(req)
                if k == "drop":
                    time.sleep(0.3)     # the server takes it meanwhile
                    raise EOFError
                req = b""
        except (EOFError, OSError):
            pass
        self.close(pair)
        if pair in self.conns:
            self.conns.remove(pair)

    def server(self, pair, st):
        c, u = pair
        try:
            while True:
                data = u.recv(65536)
                if not data:
                    break
                self.held.wait()
                if st["drop"]:
                    continue
                c.sendall(data)
        except OSError:
            pass
        self.close(pair)
