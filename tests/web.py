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


def test_quiet_stream(r, port):
    """A stream stays open while its match is quiet for longer than the
    time a request has to arrive (10 s): bots that think 11.5 s a move.
    The heartbeat (15 s) must not be what keeps it."""
    bots = slow_bots(r, 2, 11500)
    mid = r.start("classic2", bots, "move_ms=30000")
    s = SSE(port, "/api/v1/matches/%d/events" % mid, timeout=40)
    assert s.status == 200
    t0 = time.time()
    types = []
    for _, d in s.events():
        types.append(json.loads(d)["type"])
        if types[-1] == "play":
            break
    quiet = time.time() - t0
    s.close()
    r.ctl("match_stop", str(mid))
    r.wait(mid)
    assert types[-1:] == ["play"], \
        "the stream ended after %.1f s of quiet: %s" % (quiet, types)


def test_long_history(r, port):
    """A match whose kept events are longer than a stream's queue cap
    (256 KiB) is sent whole to a client that connects: only a client
    that falls behind is dropped, never one that has just come."""
    rand = os.path.join(harness.BUILD, "bots", "randbot")
    for n, sd in (("lh_a", "5"), ("lh_b", "6")):
        if not r.ctl("bot_list")[1].count(n + " "):
            r.ctl("bot_add", n, "spawn", rand, "-s", sd)
    mid = r.start("classic2", ["lh_a", "lh_b"], "deals_to_win=12")
    r.wait(mid)
    s = SSE(port, "/api/v1/matches/%d/events" % mid)
    evs = list(s.events())
    s.close()
    assert len(s.raw) > 256 * 1024, "history of only %d bytes" % len(s.raw)
    assert json.loads(evs[-1][1])["type"] == "end", evs[-1]


def dechunk(data):
    """The body of a raw HTTP/1.1 reply in chunks."""
    head, _, rest = data.partition(b"\r\n\r\n")
    assert b"chunked" in head.lower(), head
    body = b""
    while rest:
        size, _, rest = rest.partition(b"\r\n")
        n = int(size, 16)
        if n == 0:
            break
        body += rest[:n]
        assert rest[n:n + 2] == b"\r\n", "a chunk cut short: %r" % (
            rest[n:n + 10])
        rest = rest[n + 2:]
    return body


def test_slow_reader(r, port):
    """A client that reads slowly, behind what refd writes yet within
    the queue's cap, gets every byte of its stream in order: the part
    of a chunk its socket did not take, and the chunks after it, wait
    for it."""
    rand = os.path.join(harness.BUILD, "bots", "randbot")
    for n, sd in (("sr_a", "7"), ("sr_b", "8")):
        if not r.ctl("bot_list")[1].count(n + " "):
            r.ctl("bot_add", n, "spawn", rand, "-s", sd)
    mid = r.start("classic2", ["sr_a", "sr_b"], "deals_to_win=6")
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(30)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /api/v1/matches/%d/events HTTP/1.1\r\nHost: x\r\n"
              b"\r\n" % mid)
    data = b""
    while True:
        b = s.recv(1024)
        if not b:
            break
        data += b
        time.sleep(0.002)
    s.close()
    r.wait(mid)
    whole = SSE(port, "/api/v1/matches/%d/events" % mid)
    list(whole.events())
    whole.close()
    body = dechunk(data)
    assert body == whole.raw, "slow: %d bytes, whole: %d" % (
        len(body), len(whole.raw))
    assert body.endswith(b"\n\n") and b'"type":"end"' in body[-4096:]


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


# The fields the public may be shown, by the kind of JSON they are in: a
# field not named here is a leak the recorder reports.
EVENT_KEYS = {"type", "deal", "dealer", "trump", "seat", "card", "winner",
              "points", "result", "rank", "kind", "action", "reason",
              "mpoints", "state"}
STATE_KEYS = {"state", "deal", "phase", "dealer", "trump", "trumpsuit",
              "stock", "turn", "leader", "tricks", "table", "last",
              "last_winner", "points", "mpoints", "deals_won", "joker",
              "partner", "caller", "called", "calls", "limit_ms", "bank_ms"}
MATCH_KEYS = {"id", "variant", "state", "tournament", "bots", "result",
              "options", "commitment", "move_ms", "bank_ms", "seats",
              "names", "reason", "table", "events"}


def cards_in(x):
    """Every card-like string anywhere in a JSON value."""
    if isinstance(x, str):
        return [x] if CARD.match(x) else []
    if isinstance(x, list):
        return [c for v in x for c in cards_in(v)]
    if isinstance(x, dict):
        return [c for v in x.values() for c in cards_in(v)]
    return []


class Recorder:
    """Everything a spectator receives while matches play: every event
    stream (opened as soon as a match is listed) and every page and API
    answer, polled."""

    def __init__(self, port):
        self.port = port
        self.streams = {}       # match id -> [(event id, data)]
        self.tstreams = {}      # tournament id -> [(event id, data)]
        self.docs = []          # (path, body)
        self.threads = []
        self.stop = False
        self.error = None
        self.poller = harness.threading.Thread(target=self.poll)
        self.poller.start()

    def follow(self, mid):
        evs = self.streams[mid] = []
        sse = SSE(self.port, "/api/v1/matches/%d/events" % mid)
        for e in sse.events():
            evs.append(e)
        sse.close()

    def follow_t(self, tid):
        evs = self.tstreams[tid] = []
        sse = SSE(self.port, "/api/v1/tournaments/%d/events" % tid)
        for e in sse.events():
            evs.append(e)
        sse.close()

    def poll(self):
        try:
            self.poll_until_stopped()
        except (OSError, AssertionError) as e:
            self.error = e

    def poll_until_stopped(self):
        n = 0
        while not self.stop:
            st, h, body = get(self.port, "/api/v1/matches")
            assert st == 200, (st, h, body)
            self.docs.append(("/api/v1/matches", body))
            for m in json.loads(body)["matches"]:
                if m["id"] not in self.streams:
                    self.streams[m["id"]] = []
                    t = harness.threading.Thread(target=self.follow,
                                                 args=(m["id"],))
                    t.start()
                    self.threads.append(t)
                if m["state"] in ("waiting", "playing"):
                    p = "/api/v1/matches/%d" % m["id"]
                    self.docs.append((p, get(self.port, p)[2]))
            st, h, body = get(self.port, "/api/v1/tournaments")
            assert st == 200, (st, h, body)
            self.docs.append(("/api/v1/tournaments", body))
            for t in json.loads(body)["tournaments"]:
                if t["id"] not in self.tstreams:
                    self.tstreams[t["id"]] = []
                    th = harness.threading.Thread(target=self.follow_t,
                                                  args=(t["id"],))
                    th.start()
                    self.threads.append(th)
            if n % 10 == 0:
                for p in ("/", "/api/v1/status", "/static/site.js"):
                    self.docs.append((p, get(self.port, p)[2]))
            n += 1
            time.sleep(0.02)

    def finish(self):
        self.stop = True
        self.poller.join()
        for t in self.threads:
            t.join(120)
        assert self.error is None, "the recorder failed: %s" % self.error


def log_deals(r, mid):
    """deal_no -> (trump, [cards played in order], [called card])."""
    out = {}
    for deal, trump in r.query("SELECT deal_no, trump FROM deals WHERE "
                               "match_id = ?", mid):
        plays = [c for (c,) in r.query(
            "SELECT card FROM plays WHERE match_id = ? AND deal_no = ? "
            "ORDER BY seq", mid, deal)]
        called = r.query("SELECT call FROM calls WHERE match_id = ? AND "
                         "deal_no = ? AND kind = 'call'", mid, deal)
        out[deal] = (trump, plays, called)
    return out


def deals_called(deals, deal):
    return deals[deal][2]


def check_state(st, deal_public, where):
    """A table's state shows no card but those deal_public allows."""
    extra = set(st) - STATE_KEYS
    assert not extra, "%s: fields %s" % (where, extra)
    if "deal" not in st:
        assert cards_in(st) == [], where
        return
    ok = deal_public(st["deal"])
    for c in cards_in(st):
        assert c in ok, "%s: card %s not public (deal %d)" % (
            where, c, st["deal"])
    if st.get("partner", -1) >= 0:
        assert st.get("called") in ok, "%s: partner before the called " \
            "card is played" % where


def check_stream(mid, evs, variant):
    """Event by event: a card appears only once the public has seen it
    (a deal's trump, a card played, the called card named), the partner
    only once the called card is played."""
    public = {}             # deal -> set of cards public in it
    played = {}             # deal -> set of cards played in it
    called = {}
    deal = 0
    for i, data in evs:
        e = json.loads(data)
        where = "match %d event %s %s" % (mid, i, e.get("type"))
        extra = set(e) - EVENT_KEYS
        assert not extra, "%s: fields %s" % (where, extra)
        intro = set()
        if e["type"] == "deal":
            deal = e["deal"]
            public.setdefault(deal, set())
            played.setdefault(deal, set())
            if e.get("trump") not in (None, "-"):
                intro.add(e["trump"])
        elif e["type"] == "play":
            intro.add(e["card"])
            played[deal].add(e["card"])
        elif e["type"] == "called":
            intro.add(e["card"])
            called[deal] = e["card"]
        own = {k: v for k, v in e.items() if k != "state"}
        for c in cards_in(own):
            assert c in public.get(deal, set()) | intro, \
                "%s: card %s not public" % (where, c)
        public.setdefault(deal, set()).update(intro)
        st = e["state"]
        # a state may run ahead to the next deal, dealt in the same
        # pass: its turned trump is public from its start
        def deal_public(d, e=e):
            s = set(public.get(d, set()))
            if d > deal:
                s |= {t for t in [st.get("trump")] if t}
            return s
        if st.get("partner", -1) >= 0:
            assert called.get(st["deal"]) in played.get(st["deal"], ()), \
                "%s: the partner before the called card" % where
        check_state(st, deal_public, where)
    return deal


def check_snapshot(doc, deals, nseats, where):
    """A match's JSON while it played: its table is the log's plays of
    that deal at exactly that point, and nothing else."""
    d = json.loads(doc)
    if "error" in d:        # over and gone from refd's memory
        assert set(d) == {"error", "message"} and not cards_in(d), d
        return
    m = d["match"]
    extra = set(m) - MATCH_KEYS
    assert not extra, "%s: fields %s" % (where, extra)
    st = m["table"]
    if "deal" not in st:
        assert cards_in(st) == [], where
        return
    trump, plays, _ = deals[st["deal"]]
    n = st["tricks"] * nseats
    table = [c for _, c in st["table"]]
    last = [c for _, c in st["last"]]
    assert table == plays[n:n + len(table)], "%s: table %s" % (where, table)
    if last:
        assert last == plays[n - nseats:n], "%s: last %s" % (where, last)
    seen = set(plays[:n + len(table)])
    # the called card is named to all (the log's calls row has it too)
    called = {c for (c,) in deals_called(deals, st["deal"])}
    check_state(st, lambda d: seen | {trump} | called, where)
    if st.get("partner", -1) >= 0:
        assert called & seen, "%s: the partner before the called card" % \
            where


def run_secrecy(r, port, tmp):
    """Matches of every variant and a chiamata5 duplicate tournament,
    recorded; returns the recorder, the match ids and their variants."""
    bots = harness.example_bots()
    for n in ("crand", "heur"):
        if not r.ctl("bot_list")[1].count(n + " "):
            r.ctl("bot_add", n, "spawn", *bots[n])
    rec = Recorder(port)
    mids = []
    for v, k in (("joker3", 3), ("classic2", 2), ("classic3", 3),
                 ("classic4", 4), ("classic5", 5), ("classic6", 6),
                 ("briscolone", 2), ("chiamata5", 5)):
        mids.append(r.start(v, [("heur", "crand")[i % 2] for i in range(k)]))
    path = os.path.join(tmp, "dup.tour")
    with open(path, "w") as f:
        f.write("name webdup\nvariant chiamata5\nduplicate yes\n"
                "bots a b c d e\nseed %s\nconcurrency 4\n" % ("ab" * 32))
        for i, n in enumerate("abcde"):
            f.write("bot %s spawn %s\n" % (n, " ".join(
                bots["crand"][:-1] + [str(40 + i)] if i else bots["heur"])))
    ok, tid = r.ctl("tournament_start", path)
    if not ok:
        rec.finish()
    assert ok, tid
    for mid in mids:
        r.wait(mid)
    state = r.must("tournament_wait", tid, timeout=600)
    assert state.startswith("done"), state
    time.sleep(0.3)
    rec.finish()
    return rec, tid


def check_tstream(tid, evs, seeds):
    """A tournament's events: no card anywhere, and no seed of it (its
    master seed, its matches') before it is over for good."""
    for i, data in evs:
        doc = json.loads(data)
        where = "tournament %d event %s" % (tid, i)
        assert cards_in(doc) == [], "%s: cards" % where
        if doc["tournament"]["state"] in ("done", "cancelled"):
            continue
        for sd in seeds:
            assert sd not in data, "%s: seed %s before the end" % (
                where, sd[:16])


def tseeds(r, tid):
    """The master seed of tournament tid and its matches' seeds."""
    return [x for (x,) in r.query("SELECT seed FROM tournaments WHERE id = "
                                  "? UNION SELECT seed FROM matches WHERE "
                                  "tournament = ?", tid, tid)]


def check_recorded(r, rec):
    """Every byte the recorder got, against the log."""
    variants = dict(r.query("SELECT id, variant FROM matches"))
    nseats = {mid: n for mid, n in r.query(
        "SELECT match_id, count(*) FROM seats GROUP BY match_id")}
    checked = 0
    for mid, evs in rec.streams.items():
        assert evs, "match %d: no event recorded" % mid
        check_stream(mid, evs, variants[mid])
        checked += len(evs)
    for tid, evs in rec.tstreams.items():
        assert evs, "tournament %d: no event recorded" % tid
        check_tstream(tid, evs, tseeds(r, tid))
        checked += len(evs)
    for path, body in rec.docs:
        if path.startswith("/api/v1/matches/"):
            mid = int(path.rsplit("/", 1)[1])
            check_snapshot(body, log_deals(r, mid), nseats[mid], path)
        elif path.startswith("/api/"):
            doc = json.loads(body)
            assert cards_in(doc) == [], "%s: cards %s" % (path, body[:200])
            for m in doc.get("matches", []):
                assert set(m) <= MATCH_KEYS, m
    return checked


def test_secrecy(r, port):
    """The secrecy recorder: everything a spectator receives while
    matches of every variant and a chiamata5 duplicate tournament play
    names no card before the public may see it, and no partner before
    the called card is played; a leak planted into what was recorded
    is caught."""
    rec, tid = run_secrecy(r, port, r.tmp)
    n = check_recorded(r, rec)
    variants = {v for (v,) in r.query("SELECT DISTINCT variant FROM "
                                      "matches m WHERE id IN (%s)" % ",".join(
                                          str(x) for x in rec.streams))}
    assert len(variants) == 8, variants
    dup = [m for m in rec.streams if r.query(
        "SELECT tournament FROM matches WHERE id = ?", m)[0][0] == int(tid)]
    assert dup, "no match of the duplicate tournament recorded"
    tevs = rec.tstreams.get(int(tid), [])
    running = [(i, d) for i, d in tevs
               if json.loads(d)["tournament"]["state"] == "running"]
    assert running and json.loads(tevs[-1][1])["tournament"]["state"] == \
        "done", "the duplicate tournament's stream: %s" % [i for i, _ in tevs]
    # plant its seed in an event while it ran
    i, d = running[-1]
    doc = json.loads(d)
    doc["standings"]["seed"] = tseeds(r, int(tid))[0]
    try:
        check_tstream(int(tid), [(i, json.dumps(doc))], tseeds(r, int(tid)))
    except AssertionError as x:
        assert "seed" in str(x), x
    else:
        raise AssertionError("a planted seed went unseen")
    print("# %d events of %d matches and %d answers checked" % (
        n, len(rec.streams), len(rec.docs)))
    # every variant replayed from the log, verified, its plays the log's
    for mid in rec.streams:
        st, _, body = get(port, "/api/v1/matches/%d/replay" % mid)
        assert st == 200, (mid, st, body[:200])
        rp = json.loads(body)
        assert rp["verdict"]["ok"], (mid, rp["verdict"])
        plays = [(x["seat"], x["card"]) for x in rp["rows"]
                 if x["k"] == "play"]
        log = r.query("SELECT seat, card FROM plays WHERE match_id = ? "
                      "ORDER BY deal_no, seq", mid)
        assert plays == [tuple(x) for x in log], mid
        check_hands(port, mid)
    # plant a leak: an unplayed card of the deal in a recorded table
    mid = dup[0]
    evs = list(rec.streams[mid])
    deals = log_deals(r, mid)
    for k, (i, data) in enumerate(evs):
        e = json.loads(data)
        if e["type"] == "play" and e["state"].get("deal"):
            trump, plays, _ = deals[e["state"]["deal"]]
            hidden = plays[-1]
            e["state"]["table"].append([0, hidden])
            evs[k] = (i, json.dumps(e))
            break
    try:
        check_stream(mid, evs, "chiamata5")
    except AssertionError as x:
        assert "not public" in str(x), x
    else:
        raise AssertionError("a planted card went unseen")
    # and a hand, as numbers, under a field of its own
    e = json.loads(rec.streams[mid][0][1])
    e["state"]["hand"] = [1, 2, 3]
    try:
        check_stream(mid, [("1", json.dumps(e))], "chiamata5")
    except AssertionError as x:
        assert "fields" in str(x), x
    else:
        raise AssertionError("a planted field went unseen")


# A spectator process: N event streams of the given paths, each read and
# thrown away as it comes; "ready" once every one has its headers.
SPECTATOR = r"""
import selectors, socket, sys
port, n, paths = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
sel = selectors.DefaultSelector()
socks = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" %
               paths[i % len(paths)]).encode())
    socks.append(s)
got = 0
for s in socks:
    s.settimeout(30)
    if s.recv(65536).startswith(b"HTTP/1.1 200"):
        got += 1
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
print("ready %d" % got, flush=True)
while True:
    for key, _ in sel.select(1):
        try:
            if not key.fileobj.recv(65536):
                sel.unregister(key.fileobj)
        except OSError:
            sel.unregister(key.fileobj)
"""


def proc_usage(pid):
    """refd's descriptors and resident memory (KiB)."""
    fds = len(os.listdir("/proc/%d/fd" % pid))
    with open("/proc/%d/status" % pid) as f:
        rss = [int(l.split()[1]) for l in f if l.startswith("VmRSS:")][0]
    return fds, rss


def status(port):
    return json.loads(get(port, "/api/v1/status")[2])


def wait_for(what, cond, secs):
    deadline = time.time() + secs
    while time.time() < deadline:
        if cond():
            return time.time()
        time.sleep(0.2)
    raise AssertionError("%s: not within %d s" % (what, secs))


def spectators(port, n, paths):
    p = harness.subprocess.Popen([sys.executable, "-c", SPECTATOR,
                                  str(port), str(n)] + paths,
                                 stdout=harness.subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("ready"), line
    return p, int(line.split()[1])


CROWD = os.path.join(harness.BUILD, "bench", "crowd")


def crowd_flood(port, rate, secs):
    """bench/crowd's flood: rate requests a second for secs seconds of
    the status API, each on its own connection; its figures."""
    assert os.access(CROWD, os.X_OK), \
        "%s is not built: the flood needs it (make)" % CROWD
    p = harness.subprocess.run(
        [CROWD, "-a", "127.0.0.1:%d" % port, "-f", "%d:%d" % (rate, secs)],
        capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    line = p.stdout.split("\n")[0]
    assert line.startswith("flood "), p.stdout
    return {k: float(v) for k, v in (w.split("=") for w in line.split()[1:])}


def test_flood(tmp):
    """10,000 requests sent within a second, each on its own connection,
    beside a healthy match: the match finishes untouched (no fault, no
    forfeit), every request is answered, refused or failed, and refd
    still answers.  Prints the loop's worst delay before and after."""
    d = tempfile.mkdtemp(dir=tmp)
    conf = os.path.join(d, "refd.conf")
    with open(conf, "w") as f:
        f.write("http 127.0.0.1:0\nhttp_max_connections 2000\n"
                "http_max_per_address 1000\n")
    r = harness.Refd(d, extra=("-f", conf))
    try:
        port = site_port(r)
        bots = slow_bots(r, 2, 10)
        mid = r.start("classic2", bots, "deals_to_win=4")
        wait_for("the match playing", lambda: r.query(
            "SELECT count(*) FROM plays WHERE match_id = ?", mid)[0][0] > 0,
                 30)
        lag0 = status(port)["loop_lag_max_us"]
        f = crowd_flood(port, 10000, 1)
        playing = r.query("SELECT count(*) FROM plays WHERE match_id = ?",
                          mid)[0][0]
        lag1 = status(port)["loop_lag_max_us"]
        print("# 10,000 requests sent in 1 s, done in %.2f s: %d answered, "
              "%d refused (503), %d errors (%d reset); each p50 %.1f ms, "
              "p99 %.1f ms, worst %.1f ms; %d plays of the match by then; "
              "loop's worst delay %d us before, %d us after" % (
                  f["seconds"], f["answered"], f["refused"], f["errors"],
                  f["reset"], f["p50_ms"], f["p99_ms"], f["max_ms"],
                  playing, lag0, lag1))
        assert f["sent"] == 10000, f
        assert f["answered"] + f["refused"] + f["errors"] == 10000, f
        assert f["answered"] > 0, f
        assert r.wait(mid)[1] == "played out", mid
        assert r.query("SELECT count(*) FROM faults WHERE match_id = ?",
                       mid)[0][0] == 0, "a fault in match %d" % mid
        # the flood's connections all go (the status request's own stays)
        wait_for("the flood's connections closed", lambda: status(port)[
            "http_connections"] <= 1, 30)
    finally:
        assert r.stop() == 0


def test_caps(tmp):
    """Spectators never endanger matches: slowloris clients and clients
    that never read are closed, and 500
    event streams on live matches, 100 of them killed at once, leave
    refd's descriptors and memory at their baseline within 30 s, while
    healthy matches beside them finish untouched.  Prints the loop's
    worst delay."""
    d = tempfile.mkdtemp(dir=tmp)
    conf = os.path.join(d, "refd.conf")
    with open(conf, "w") as f:
        f.write("http 127.0.0.1:0\nhttp_max_connections 2000\n"
                "http_max_per_address 1000\n")
    r = harness.Refd(d, extra=("-f", conf))
    try:
        port = site_port(r)
        pid = r.proc.pid
        bots = slow_bots(r, 2, 20)
        long_bots = slow_bots(r, 2, 30)
        fast = slow_bots(r, 2, 1)

        def running(mids):
            """None of mids is over: each waits for its bots or plays."""
            ms = json.loads(get(port, "/api/v1/matches")[2])["matches"]
            return all(m["state"] in ("waiting", "playing") for m in ms
                       if m["id"] in mids)

        def live_round(n_kill):
            mids = [r.start("classic2", long_bots, "deals_to_win=6")
                    for _ in range(4)]
            paths = ["/api/v1/matches/%d/events" % m for m in mids]
            procs = []
            for _ in range(5):
                p, got = spectators(port, 100, paths)
                assert got == 100, got
                procs.append(p)
            wait_for("500 streams", lambda: status(port)["http_streams"]
                     >= 500, 30)
            procs[0].kill()
            procs[0].wait()
            t0 = time.time()
            t = wait_for("100 killed streams closed", lambda: status(port)[
                "http_streams"] <= 400, 30)
            gone = t - t0
            # not closed by the matches' end: they still run (a slow
            # build may still be starting their bots)
            assert running(mids), "the matches ended under the test"
            for p in procs[1:]:
                p.kill()
                p.wait()
            for m in mids:
                assert r.wait(m)[1] == "played out", m
            return gone, mids

        # a first round warms refd's allocator; the baseline is after it
        live_round(100)
        wait_for("streams closed", lambda: status(port)["http_streams"] == 0,
                 30)
        time.sleep(1.5)
        base_fds, base_rss = proc_usage(pid)
        lag0 = status(port)["loop_lag_max_us"]

        # healthy matches beside the attacks
        healthy = [r.start("classic2", fast) for _ in range(2)]

        # slowloris: a header byte every half second, never whole
        slow = []
        for _ in range(40):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET / HTTP/1.1\r\n")
            slow.append(s)
        # never reading: a tiny receive buffer, an event stream
        deaf = []
        mid = r.start("classic2", bots)
        for _ in range(20):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /api/v1/matches/%d/events HTTP/1.1\r\n"
                      b"Host: x\r\n\r\n" % mid)
            deaf.append(s)
        t0 = time.time()
        closed = set()
        while len(closed) < len(slow) and time.time() < t0 + 25:
            for i, s in enumerate(slow):
                if i in closed:
                    continue
                try:
                    s.sendall(b"X")
                    s.setblocking(False)
                    if s.recv(1) == b"":
                        closed.add(i)
                except BlockingIOError:
                    pass
                except OSError:
                    closed.add(i)
                finally:
                    s.setblocking(True)
            time.sleep(0.5)
        slowloris_s = time.time() - t0
        assert len(closed) == len(slow), "slowloris kept %d" % (
            len(slow) - len(closed))

        # 500 spectators on live matches, 100 killed at once
        gone, mids = live_round(100)
        assert r.wait(mid)[1] == "played out"
        for s in slow + deaf:
            s.close()
        t0 = time.time()
        wait_for("descriptors back to %d" % base_fds,
                 lambda: proc_usage(pid)[0] <= base_fds, 30)
        fds_s = time.time() - t0
        for m in healthy + mids + [mid]:
            assert r.wait(m)[1] == "played out", m
            assert r.query("SELECT count(*) FROM faults WHERE match_id = ?",
                           m)[0][0] == 0, "a fault in match %d" % m
        # what refd keeps by design: the events of the matches since
        # the baseline, for a resume (refd-http(7))
        kept = sum(len(get(port, "/api/v1/matches/%d/events" % m)[2])
                   for m in healthy + mids + [mid])
        t0 = time.time()
        try:
            wait_for("memory back to its baseline", lambda: proc_usage(
                pid)[1] <= base_rss + kept // 1024 + 2048,
                     30 if "ASAN_OPTIONS" not in os.environ else 1)
        except AssertionError:
            pass
        mem_s = time.time() - t0
        fds, rss = proc_usage(pid)
        lag = status(port)["loop_lag_max_us"]
        print("# slowloris closed within %.1f s; 100 killed streams "
              "closed in %.1f s; descriptors %d -> %d in %.1f s; RSS %d "
              "-> %d KiB in %.1f s (%d KiB of events kept); loop's worst "
              "delay %d us before, %d us after" % (
                  slowloris_s, gone, base_fds, fds, fds_s, base_rss, rss,
                  mem_s, kept // 1024, lag0, lag))
        # AddressSanitizer (scripts/sanitize) keeps freed memory in its
        # quarantine: refd's memory is judged only in a plain build
        if "ASAN_OPTIONS" not in os.environ:
            assert rss <= base_rss + kept // 1024 + 2048, (base_rss, rss,
                                                           kept)
    finally:
        assert r.stop() == 0


def start_tournament(r, name, n, ms):
    """A classic2 tournament of n matches, one at a time, between two
    bots each ms late; its id."""
    path = os.path.join(r.tmp, name + ".tour")
    slow = slow_bots(r, 2, ms)
    with open(path, "w") as f:
        f.write("name %s\nvariant classic2\nbots %s %s\nmatches %d\n"
                "concurrency 1\n" % (name, slow[0], slow[1], n))
    ok, tid = r.ctl("tournament_start", path)
    assert ok, tid
    return int(tid)


def refctl_standings(r, tid):
    """refctl tournament standings --format json, from the log."""
    p = harness.subprocess.run(
        [harness.REFCTL, "tournament", "standings", "--db", r.db, str(tid),
         "--format", "json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def tdone(r, tid):
    return r.query("SELECT count(*) FROM matches WHERE tournament = ? AND "
                   "state = 'done'", tid)[0][0]


def test_tournament_stream(r, port):
    """A tournament's events, pushed as its matches end: each event's id
    is its matches done; each event's standings are those refctl
    tournament standings gives at that point (taken when no match ended
    meanwhile), the last one's at the end; a client cut after two events
    and back with Last-Event-ID gets exactly what a client that stayed
    got after them; a client back after the end gets 204."""
    tid = start_tournament(r, "webstream", 6, 10)
    path = "/api/v1/tournaments/%d/events" % tid
    seen = []           # (id, data, done before, standings, done after)
    b = SSE(port, path)
    assert b.status == 200, b.status

    def follow():
        for i, d in b.events():
            before = tdone(r, tid)
            st = refctl_standings(r, tid)
            seen.append((i, d, before, st, tdone(r, tid)))
    th = harness.threading.Thread(target=follow)
    th.start()
    a = SSE(port, path)
    assert a.status == 200
    part = []
    for e in a.events():
        part.append(e)
        if len(part) == 2:
            break
    a.close()
    deadline = time.time() + 300
    while time.time() < deadline and len(
            [x for x in seen if idkey(x[0]) > idkey(part[-1][0])]) < 2:
        time.sleep(0.1)
    a = SSE(port, path, last=part[-1][0])
    assert a.status == 200
    rest = list(a.events())
    a.close()
    th.join(300)
    assert not th.is_alive(), "the stream did not end with the tournament"
    b.close()
    state = r.must("tournament_wait", str(tid), timeout=60)
    assert state.startswith("done"), state
    ids = [x[0] for x in seen]
    assert ids == sorted(ids, key=idkey) and len(set(ids)) == len(ids), ids
    k = ids.index(part[0][0])
    assert [x[:2] for x in seen[k:]] == part + rest, \
        "the resumed client: %s, the one that stayed: %s" % (
            [i for i, _ in part + rest], ids[k:])
    strict = 0
    for i, d, before, st, after in seen:
        doc = json.loads(d)
        assert idkey(i)[0] == doc["tournament"]["done"], (i, doc["tournament"])
        if before == after == doc["tournament"]["done"]:
            assert doc["standings"] == st, "event %s: %s, refctl: %s" % (
                i, doc["standings"], st)
            strict += 1
    assert strict >= 3, "only %d events compared" % strict
    last = json.loads(seen[-1][1])
    assert last["tournament"]["state"] == "done" and \
        last["tournament"]["done"] == 6, last["tournament"]
    assert last["standings"] == refctl_standings(r, tid)
    st, _, _ = get(port, path, {"Last-Event-ID": seen[-1][0]})
    assert st == 204, st
    # a client after the end, without an id: the last event, then the end
    a = SSE(port, path)
    assert [x[0] for x in a.events()] == [seen[-1][0]]
    a.close()
    st, _, _ = get(port, path, {"Last-Event-ID": "x1"})
    assert st == 400, st
    st, _, _ = get(port, "/api/v1/tournaments/999999/events")
    assert st == 404, st


def derive_hands(rows):
    """Each row's hands as site.js derives them from the replay of API 2:
    a row's "h" when it has one, else the row before's hands, less the
    card of a play in its seat's hand; None while none was given."""
    out, prev = [], None
    for x in rows:
        if "h" in x:
            prev = [h.split() for h in x["h"]]
        elif prev is not None and x["k"] == "play":
            prev = [list(h) for h in prev]
            assert x["card"] in prev[x["seat"]], (x, prev)
            prev[x["seat"]].remove(x["card"])
        out.append(prev)
    return out


def check_hands(port, mid):
    """The replay of API 2 loses nothing of API 1's: every row's fields
    but "h" the same, and every row's hands, derived as the page derives
    them, the hands API 1 writes in full on every row (the table of
    libbriscola's replay of the log after that row); "h" is left out of
    most play rows."""
    st, _, body = get(port, "/api/v1/matches/%d/replay" % mid)
    assert st == 200, (mid, st)
    full = json.loads(body)
    st, _, body = get(port, "/api/v2/matches/%d/replay" % mid)
    assert st == 200, (mid, st, body[:200])
    rp = json.loads(body)
    assert rp["api"] == 2 and full["api"] == 1, (rp["api"], full["api"])
    assert rp["match"] == full["match"] and rp["verdict"] == \
        full["verdict"], mid
    assert full["match"]["revealed"], mid
    rows, frows = rp["rows"], full["rows"]
    assert len(rows) == len(frows), mid
    for k, (x, y) in enumerate(zip(rows, frows)):
        assert {a: b for a, b in x.items() if a != "h"} == \
            {a: b for a, b in y.items() if a != "h"}, (mid, k, x, y)
    for k, (h, y) in enumerate(zip(derive_hands(rows), frows)):
        assert h == [x.split() for x in y["h"]], (mid, k, h, y["h"])
    plays = [x for x in rows if x["k"] == "play"]
    assert sum("h" in x for x in plays) * 2 < len(plays), \
        "hands on most play rows of match %d" % mid


def replay_path(mid):
    """The replay the page asks for, as site.js names it."""
    with open(os.path.join(harness.SRC, "refd", "site", "site.js")) as f:
        v = re.search(r'"/api/v(\d)/matches/" \+ id \+ "/replay"',
                      f.read())
    assert v, "site.js asks for no replay"
    return "/api/v%s/matches/%d/replay" % (v.group(1), mid)


def test_replay_weight(r, port):
    """A replay page with its data weighs under 100 KiB uncompressed
    (issue 33's goal): the page, its style sheet, its script and the
    replay it asks for, of a chiamata5 match of 5 deals, as scripts/bench
    web weighs it."""
    heur = os.path.join(harness.BUILD, "bots", "heurbot")
    rand = os.path.join(harness.BUILD, "bots", "randbot")
    r.add("wheur", [heur])
    r.add("wrand", [rand, "-s", "4"])
    mid = r.start("chiamata5", [("wheur", "wrand")[i % 2]
                                for i in range(5)])
    r.wait(mid)
    deals = r.query("SELECT count(*) FROM deals WHERE match_id = ?",
                    mid)[0][0]
    size = {}
    for p in ("/match/%d" % mid, "/static/site.css", "/static/site.js",
              replay_path(mid)):
        st, _, body = get(port, p)
        assert st == 200, (p, st)
        size[p] = len(body)
    total = sum(size.values())
    print("# a chiamata5 replay page of %d deals: %.1f KiB (%s)" % (
        deals, total / 1024, ", ".join("%s %d" % x for x in size.items())))
    assert deals == 5, deals
    assert total < 100 * 1024, "%.1f KiB: %s" % (total / 1024, size)


def test_replay_secret(r, port):
    """A finished match of a tournament still running is replayed
    without hands, seed or any seat's lines, in API 1 and 2; once the
    tournament is over they show.  A lone match shows them at once."""
    bots = slow_bots(r, 2, 1)
    lone = r.start("classic2", bots)
    r.wait(lone)
    rp = json.loads(get(port, "/api/v1/matches/%d/replay" % lone)[2])
    assert rp["match"]["revealed"] and rp["match"]["seed"], rp["match"]
    assert any("h" in x for x in rp["rows"]), "a lone match's hands"
    assert get(port, "/api/v1/matches/%d/seat/0" % lone)[0] == 200
    path = os.path.join(r.tmp, "secret.tour")
    slow = slow_bots(r, 2, 40)
    with open(path, "w") as f:
        f.write("name websecret\nvariant classic2\nbots %s %s\n"
                "matches 4\nconcurrency 1\n" % tuple(slow))
    ok, tid = r.ctl("tournament_start", path)
    assert ok, tid
    done = []
    deadline = time.time() + 300
    while not done and time.time() < deadline:
        done = [m for (m,) in r.query(
            "SELECT id FROM matches WHERE tournament = ? AND state = "
            "'done'", int(tid))]
        time.sleep(0.2)
    assert done, "no match of the tournament finished"
    state = r.query("SELECT state FROM tournaments WHERE id = ?",
                    int(tid))[0][0]
    assert state == "running", state
    st, _, body = get(port, "/api/v1/matches/%d/replay" % done[0])
    rp = json.loads(body)
    assert st == 200 and not rp["match"]["revealed"], rp["match"]
    assert rp["match"]["seed"] is None, rp["match"]
    assert not any("h" in x for x in rp["rows"]), "hands before the end"
    seed = r.query("SELECT seed FROM matches WHERE id = ?", done[0])[0][0]
    assert seed.encode() not in body, "the seed in the replay"
    st, _, body2 = get(port, "/api/v2/matches/%d/replay" % done[0])
    rp2 = json.loads(body2)
    assert st == 200 and not rp2["match"]["revealed"], rp2["match"]
    assert not any("h" in x for x in rp2["rows"]), "API 2: hands"
    assert seed.encode() not in body2, "the seed in API 2's replay"
    st, _, body = get(port, "/api/v1/matches/%d/seat/0" % done[0])
    assert st == 403, (st, body)
    st, _, body = get(port, "/api/v1/tournaments/%s" % tid)
    assert st == 200 and seed.encode() not in body, "a seed in standings"
    r.must("tournament_wait", tid, timeout=600)
    rp = json.loads(get(port, "/api/v1/matches/%d/replay" % done[0])[2])
    assert rp["match"]["revealed"] and rp["match"]["seed"] == seed
    assert get(port, "/api/v1/matches/%d/seat/0" % done[0])[0] == 200


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


def test_verdict(tmp):
    """The replay's verdict, part by part, from the audit's own code: an
    honest log says ok for the rules, the chain and the signature; a
    signed row changed (a play's time, which no rule sees) fails the
    chain at that row's link; the end's signature replaced fails the
    signature at its link of the log chain.  A refd of its own: its log
    is forged under it."""
    d = tempfile.mkdtemp(dir=tmp)
    r = harness.Refd(d, extra=("-w", "127.0.0.1:0"))
    try:
        port = site_port(r)
        mid = r.start("classic2", slow_bots(r, 2, 1))
        r.wait(mid)

        def verdict():
            st, _, body = get(port, "/api/v1/matches/%d/replay" % mid)
            assert st == 200, (st, body[:200])
            return json.loads(body)["verdict"]
        v = verdict()
        assert v["ok"], v
        for part in ("rules", "chain", "signature"):
            assert v[part]["ok"] is True, (part, v)
        assert "signed with key" in v["signature"]["text"], v
        con = harness.sqlite3.connect(r.db, timeout=30)
        try:
            no, ms = con.execute(
                "SELECT chain_no, ms FROM plays WHERE match_id = ? AND "
                "deal_no = 2 ORDER BY seq LIMIT 1 OFFSET 5",
                (mid,)).fetchone()
            with con:
                con.execute("UPDATE plays SET ms = ? WHERE match_id = ? "
                            "AND chain_no = ?", (ms + 1, mid, no))
            v = verdict()
            assert not v["ok"], v
            assert v["chain"]["ok"] is False and \
                "the chain breaks at link %d," % no in v["chain"]["text"], v
            assert v["rules"]["ok"] is None, v
            assert v["signature"]["ok"] is True, v
            with con:
                con.execute("UPDATE plays SET ms = ? WHERE match_id = ? "
                            "AND chain_no = ?", (ms, mid, no))
            assert verdict()["ok"]
            eno, sig = con.execute(
                "SELECT no, sig FROM log_chain WHERE kind = 'end' AND "
                "match_id = ?", (mid,)).fetchone()
            other = con.execute(
                "SELECT sig FROM log_chain WHERE sig IS NOT NULL AND "
                "no <> ? ORDER BY no DESC LIMIT 1", (eno,)).fetchone()[0]
            with con:
                con.execute("UPDATE log_chain SET sig = ? WHERE no = ?",
                            (other, eno))
            v = verdict()
            assert not v["ok"], v
            assert v["signature"]["ok"] is False and \
                "log chain link %d: the end's signature does not verify" \
                % eno in v["signature"]["text"], v
            assert v["rules"]["ok"] is True and v["chain"]["ok"] is True, v
            with con:
                con.execute("UPDATE log_chain SET sig = ? WHERE no = ?",
                            (sig, eno))
            assert verdict()["ok"]
        finally:
            con.close()
    finally:
        assert r.stop() == 0


def main():
    tmp = tempfile.mkdtemp(prefix="refd-web.")
    r = harness.Refd(tmp, extra=("-w", "127.0.0.1:0"))
    port = site_port(r)
    passed, failed = harness.run_against(
        r, [test_api, test_stream_and_resume, test_quiet_stream,
            test_long_history, test_slow_reader,
            test_bad_requests,
            test_secrecy, test_replay_weight, test_replay_secret,
            test_tournament_stream],
        (r, port))
    p, f = harness.run_tests([test_off_by_default, test_token, test_verdict,
                              test_flood, test_caps],
                             (tmp,))
    harness.finish(passed + p, failed + f, tmp)


if __name__ == "__main__":
    main()
