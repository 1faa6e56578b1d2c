#!/usr/bin/env python3
"""web.py: the web site of refd (refd-http(7)) from Python: the API, the
events and their resumption, the token, bad requests, the caps, and the
secrecy recorder, each against a real refd on loopback.
"""
import http.client
import json
import os
import re
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

CARD = re.compile(r"^(10|[1-9])[CDBS]$")


def site_port(r):
    """The site's port, as refctl status shows it."""
    for line in r.must("status").splitlines():
        if line.startswith("http "):
            return int(line.rsplit(":", 1)[1])
    raise AssertionError("no http line in status")


def get(port, path, headers=None, timeout=10):
    """GET path; returns (status, headers, body bytes)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", path, headers=headers or {})
        resp = c.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        c.close()


def raw(port, data, timeout=10):
    """Send raw bytes, return all that comes back until the close."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        out = b""
        while True:
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            out += b
        return out
    finally:
        s.close()


class SSE:
    """A client of one event stream; .raw keeps every byte it read."""

    def __init__(self, port, path, last=None, headers=None, timeout=60):
        self.c = http.client.HTTPConnection("127.0.0.1", port,
                                            timeout=timeout)
        h = {"Accept": "text/event-stream"}
        h.update(headers or {})
        if last is not None:
            h["Last-Event-ID"] = last
        self.c.request("GET", path, headers=h)
        self.r = self.c.getresponse()
        self.status = self.r.status
        self.raw = b""

    def events(self):
        """Yield (id, data) until the stream ends."""
        ev = {}
        while True:
            line = self.r.readline()
            if not line:
                return
            self.raw += line
            line = line.decode().rstrip("\n")
            if line == "":
                if "data" in ev:
                    yield ev.get("id"), ev["data"]
                ev = {}
            elif not line.startswith(":"):
                k, _, v = line.partition(":")
                ev[k] = v[1:] if v.startswith(" ") else v

    def close(self):
        self.c.close()


def idkey(i):
    """An event id "L" or "L.k" as a pair that orders them."""
    link, _, sub = i.partition(".")
    return int(link), int(sub or 0)


def slow_bots(r, n, ms=15):
    """n bots that answer each genplay ms late, registered once."""
    names = []
    for i in range(n):
        name = "slow%d_%d" % (ms, i)
        if not r.ctl("bot_list")[1].count(name + " "):
            r.ctl("bot_add", name, "spawn", *harness.EVIL, "slow", str(ms))
        names.append(name)
    return names


def test_api(r, port):
    """The front page, the files, status and the list answer."""
    st, h, body = get(port, "/")
    assert st == 200 and b"/static/site.js" in body, (st, body[:200])
    assert "default-src 'self'" in h["Content-Security-Policy"], h
    for f in ("site.js", "site.css"):
        st, h, body = get(port, "/static/" + f)
        assert st == 200 and len(body) > 100, (f, st)
    st, h, body = get(port, "/api/v1/status")
    assert st == 200 and h["Content-Type"] == "application/json", (st, h)
    s = json.loads(body)
    assert s["api"] == 1 and "matches_running" in s and \
        s["http"].endswith(":%d" % port), s
    st, h, body = get(port, "/api/v1/matches")
    assert st == 200 and isinstance(json.loads(body)["matches"], list)


def test_stream_and_resume(r, port):
    """A client cut after some events and back with Last-Event-ID gets
    exactly what it missed: with the first part it is the whole stream,
    which is the log's plays in order."""
    bots = slow_bots(r, 2)
    mid = r.start("classic2", bots)
    a = SSE(port, "/api/v1/matches/%d/events" % mid)
    assert a.status == 200
    first = []
    for i, d in a.events():
        first.append((i, d))
        if len(first) == 15:
            break
    a.close()
    b = SSE(port, "/api/v1/matches/%d/events" % mid, last=first[-1][0])
    second = list(b.events())
    b.close()
    r.wait(mid)
    c = SSE(port, "/api/v1/matches/%d/events" % mid)
    whole = list(c.events())
    c.close()
    assert first + second == whole, (len(first), len(second), len(whole))
    keys = [idkey(i) for i, _ in whole]
    assert keys == sorted(set(keys)), "ids not strictly increasing"
    evs = [json.loads(d) for _, d in whole]
    assert evs[0]["type"] == "deal" and evs[-1]["type"] == "end", evs[-1]
    plays = [(e["seat"], e["card"]) for e in evs if e["type"] == "play"]
    log = r.query("SELECT seat, card FROM plays WHERE match_id = ? ORDER "
                  "BY deal_no, seq", mid)
    assert plays == [tuple(x) for x in log], "the events are not the log"
    # a resume past the end is an empty, ended stream
    d = SSE(port, "/api/v1/matches/%d/events" % mid, last=whole[-1][0])
    assert list(d.events()) == []
    d.close()


def test_bad_requests(r, port):
    """Unknown ids, malformed paths, traversal, big headers, other
    methods: a clean 4xx with a short message, and refd plays on."""
    for path, code in (("/match/999999", 404), ("/api/v1/matches/999999",
                       404), ("/api/v1/matches/999999/events", 404),
                       ("/nowhere", 404), ("/static/nothing.js", 404),
                       ("/static/../../etc/passwd", 400),
                       ("/static/%2e%2e/x", 400), ("/match/1x", 404),
                       ("/match/99999999999999999999999", 404),
                       ("/a//b", 400), ("/" + "a" * 300, 414),
                       ("/api/v1/matches/999999/events?x=<script>", 404)):
        st, h, body = get(port, path)
        assert st == code, (path, st, body[:200])
        assert len(body) < 200 and json.loads(body)["error"] == code, body
    out = raw(port, b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 400"), out[:80]
    out = raw(port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " +
              b"a" * 20000 + b"\r\n\r\n")
    assert out[:12] in (b"HTTP/1.1 413", b"HTTP/1.1 400"), out[:80]
    out = raw(port, b"POST /api/v1/status HTTP/1.1\r\nHost: x\r\n"
              b"Content-Length: 0\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 405"), out[:80]
    out = raw(port, b"\x00\xff garbage\r\n\r\n")
    assert out == b"" or out.startswith(b"HTTP/1.1 400"), out[:80]
    st, h, body = get(port, "/api/v1/matches/1/events",
                      {"Last-Event-ID": "12x"})
    assert st in (400, 404), st
    bots = slow_bots(r, 2, 1)
    mid = r.start("classic2", bots)
    st, h, body = get(port, "/api/v1/matches/%d/events" % mid,
                      {"Last-Event-ID": "12x"})
    assert st == 400, st
    assert r.wait(mid)[1] == "played out", "a match beside them"


def test_off_by_default(tmp):
    """Without -w or an http line, refd listens for no web client."""
    d = tempfile.mkdtemp(dir=tmp)
    r = harness.Refd(d)
    try:
        assert "http" not in r.must("status"), "a site nobody asked for"
    finally:
        assert r.stop() == 0


def test_token(tmp):
    """http_token: no page or API without it, as a bearer or ?token=;
    the compiled-in files are free."""
    d = tempfile.mkdtemp(dir=tmp)
    tok = "s3cret-token-0123456789"
    conf = os.path.join(d, "refd.conf")
    with open(conf, "w") as f:
        f.write("http 127.0.0.1:0\nhttp_token %s\n" % tok)
    r = harness.Refd(d, extra=("-f", conf))
    try:
        port = site_port(r)
        for p in ("/", "/api/v1/status", "/api/v1/matches"):
            st, h, body = get(port, p)
            assert st == 401 and h.get("WWW-Authenticate") == "Bearer", st
            st, _, _ = get(port, p + "?token=wrong-token-0123456789")
            assert st == 401, st
            st, _, _ = get(port, p, {"Authorization": "Bearer " + tok})
            assert st == 200, (p, st)
            st, _, _ = get(port, p + "?token=" + tok)
            assert st == 200, (p, st)
        st, _, _ = get(port, "/static/site.js")
        assert st == 200, st
    finally:
        assert r.stop() == 0
    # a short token is refused at start
    with open(conf, "w") as f:
        f.write("http 127.0.0.1:0\nhttp_token short\n")
    p = harness.subprocess.run([harness.REFD, "-D", os.path.join(d, "x.db"),
                                "-c", os.path.join(d, "x.sock"), "-f", conf],
                               capture_output=True, text=True, timeout=30)
    assert p.returncode != 0 and "http_token" in p.stderr, p.stderr


def main():
    tmp = tempfile.mkdtemp(prefix="refd-web.")
    r = harness.Refd(tmp, extra=("-w", "127.0.0.1:0"))
    port = site_port(r)
    passed, failed = harness.run_against(
        r, [test_api, test_stream_and_resume, test_bad_requests],
        (r, port))
    p, f = harness.run_tests([test_off_by_default, test_token], (tmp,))
    harness.finish(passed + p, failed + f, tmp)


if __name__ == "__main__":
    main()
