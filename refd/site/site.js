/*
 * site.js: refd's pages, drawn from its JSON API (refd-http(7)).  No
 * outside request, no framework: the page asks /api/v1/ and draws.
 */
"use strict";

var token = new URLSearchParams(location.search).get("token");
var main = document.getElementById("main");
var conn = document.getElementById("conn");

/* A path of the site, with the token when the page has one. */
function url(p) {
	if (!token)
		return p;
	return p + (p.indexOf("?") < 0 ? "?" : "&") + "token=" +
	    encodeURIComponent(token);
}

/* Make an element: el("p", {class: "x"}, "text", child, ...). */
function el(tag, attrs) {
	var e = document.createElement(tag), k, i;

	for (k in attrs || {})
		if (attrs[k] !== null && attrs[k] !== undefined)
			e.setAttribute(k, attrs[k]);
	for (i = 2; i < arguments.length; i++)
		add(e, arguments[i]);
	return e;
}

/* Add a child, a text, or an array of them, to e. */
function add(e, c) {
	if (c === null || c === undefined || c === false)
		return;
	if (Array.isArray(c))
		c.forEach(function (x) { add(e, x); });
	else
		e.appendChild(c instanceof Node ? c :
		    document.createTextNode(String(c)));
}

function link(href, text) {
	return el("a", { href: url(href) }, text);
}

function api(p) {
	return fetch(url(p), { cache: "no-store" }).then(function (r) {
		if (!r.ok)
			return r.json().catch(function () { return {}; }).then(
			    function (j) {
				throw new Error(r.status + " " +
				    (j.message || r.statusText));
			    });
		return r.json();
	});
}

function fail(e) {
	main.replaceChildren(el("h1", null, "Cannot show this page"),
	    el("p", { role: "alert" }, String(e.message || e)));
}

var SUITS = { C: "Coppe", D: "Denari", B: "Bastoni", S: "Spade" };
var RANKS = { 1: "A", 8: "J", 9: "Q", 10: "K" };

/* A card "3C" as a labelled box: rank and suit letter, never colour. */
function card(c) {
	if (!c)
		return el("span", { class: "card muted" }, "-");
	var s = c.slice(-1), r = c.slice(0, -1);
	return el("span", { class: "card s-" + s, role: "img",
	    "aria-label": r + " of " + (SUITS[s] || s), title: r + " of " +
	    (SUITS[s] || s) }, RANKS[r] || r, el("small", null, s));
}

function dl(pairs) {
	var d = el("dl", { class: "kv" });
	pairs.forEach(function (p) {
		d.appendChild(el("dt", null, p[0]));
		d.appendChild(el("dd", null, p[1]));
	});
	return d;
}

function ms(v) {
	if (v === undefined || v === null || v < 0)
		return "-";
	return (v / 1000).toFixed(v < 10000 ? 1 : 0) + " s";
}

/* The front page: status, matches, tournaments. */
function pageIndex() {
	document.title = "refd";
	Promise.all([api("/api/v1/status"), api("/api/v1/matches"),
	    api("/api/v1/tournaments").catch(function () {
		return { tournaments: [] };
	    })]).then(function (r) {
		var st = r[0], ms_ = r[1].matches, ts = r[2].tournaments;
		var run = ms_.filter(function (m) {
			return m.state === "playing" || m.state === "waiting";
		});
		var done = ms_.filter(function (m) {
			return m.state !== "playing" && m.state !== "waiting";
		}).reverse().slice(0, 50);
		main.replaceChildren(el("h1", null, "refd"),
		    el("h2", null, "Running matches (" + run.length + ")"),
		    matchTable(run),
		    el("h2", null, "Tournaments (" + ts.length + ")"),
		    tourneyTable(ts),
		    el("h2", null, "Finished matches"),
		    matchTable(done),
		    el("h2", null, "Status"),
		    dl(Object.keys(st).map(function (k) {
			return [k, String(st[k])];
		    })));
	}).catch(fail);
}

function matchTable(list) {
	if (list.length === 0)
		return el("p", { class: "muted" }, "None.");
	return el("div", { class: "scroll" }, el("table", null,
	    el("thead", null, el("tr", null, el("th", null, "Match"),
	    el("th", null, "Variant"), el("th", null, "Bots"),
	    el("th", null, "State"), el("th", null, "Result"))),
	    el("tbody", null, list.map(function (m) {
		return el("tr", null, el("td", null,
		    link("/match/" + m.id, "#" + m.id)),
		    el("td", null, m.variant),
		    el("td", null, m.bots.join(", ")),
		    el("td", null, m.state), el("td", null, m.result || "-"));
	    }))));
}

function tourneyTable(list) {
	if (list.length === 0)
		return el("p", { class: "muted" }, "None.");
	return el("div", { class: "scroll" }, el("table", null,
	    el("thead", null, el("tr", null, el("th", null, "Tournament"),
	    el("th", null, "Name"), el("th", null, "State"),
	    el("th", { class: "num" }, "Matches"))),
	    el("tbody", null, list.map(function (t) {
		return el("tr", null, el("td", null,
		    link("/tournament/" + t.id, "#" + t.id)),
		    el("td", null, t.name), el("td", null, t.state),
		    el("td", { class: "num" }, t.done + " / " + t.total));
	    }))));
}

/* One event as a line of the match's log. */
function evText(e, names) {
	var n = function (s) { return "seat " + s + " (" + names[s] + ")"; };

	switch (e.type) {
	case "deal": return "Deal " + e.deal + ", dealer seat " + e.dealer +
	    (e.trump && e.trump !== "-" ? ", trump " + e.trump : "");
	case "play": return n(e.seat) + " plays " + e.card;
	case "trick": return "Trick to " + n(e.winner) + ", " + e.points +
	    " points";
	case "joker": return n(e.seat) + " is the Joker";
	case "partner": return "The partner is " + n(e.seat);
	case "bid": return n(e.seat) + (e.rank === "pass" ? " passes" :
	    " names rank " + e.rank);
	case "called": return "Called card " + e.card + " by " + n(e.seat);
	case "dealend": return "Deal " + e.deal + " over: " + e.result;
	case "fault": return "Fault: " + n(e.seat) + ", " + e.kind + ", " +
	    e.action;
	case "end": return "Match over: " + e.result + (e.reason ? " (" +
	    e.reason + ")" : "");
	}
	return e.type;
}

/* The live table of a match, redrawn from its last public state. */
function drawTable(box, m, st, since) {
	var names = m.names, seats = [], i, table;

	box.replaceChildren();
	if (!st || st.deal === undefined) {
		box.appendChild(el("p", { class: "muted" },
		    st && st.state === "waiting" ? "Waiting for the bots." :
		    "No deal yet."));
		return;
	}
	for (i = 0; i < m.seats; i++) {
		var turn = st.phase !== "over" && st.turn === i &&
		    st.state === "playing";
		var left = turn ? st.limit_ms - (Date.now() - since) : null;
		var tags = [];
		if (turn)
			tags.push(el("span", { class: "tag" }, "to play"));
		if (st.dealer === i)
			tags.push(el("span", { class: "tag" }, "dealer"));
		if (st.joker === i)
			tags.push(el("span", { class: "tag" }, "Joker"));
		if (st.caller === i)
			tags.push(el("span", { class: "tag" }, "caller"));
		if (st.partner === i)
			tags.push(el("span", { class: "tag" }, "partner"));
		seats.push(el("section", { class: "seat" + (turn ? " turn" : ""),
		    "aria-label": "seat " + i + (turn ? ", to play" : "") },
		    el("h3", null, "Seat " + i + ": " + names[i], tags),
		    dl([["card points", String(st.points[i])],
		    ["match points", String(st.mpoints[i])],
		    ["deals won", String(st.deals_won[i])],
		    ["time bank", st.bank_ms[i] < 0 ? "none" :
			ms(st.bank_ms[i] - (turn ? Date.now() - since : 0))],
		    ["this move", turn ? ms(Math.max(0, left)) : "-"]])));
	}
	table = el("div", { class: "table-cards", "aria-label":
	    "cards on the table" }, st.table.length ? st.table.map(
	    function (p) {
		return el("span", null, "seat " + p[0] + ": ", card(p[1]));
	    }) : el("span", { class: "muted" }, "no card on the table"));
	var last = st.last && st.last.length ? el("p", null, "Last trick: ",
	    st.last.map(function (p) {
		return el("span", null, "seat " + p[0] + ": ", card(p[1]));
	    }), " taken by seat " + st.last_winner) : null;
	var info = [["deal", String(st.deal)], ["phase", st.phase],
	    ["trump", st.trump ? card(st.trump) :
		(st.trumpsuit ? SUITS[st.trumpsuit] : "none yet")],
	    ["stock", String(st.stock)], ["tricks played", String(st.tricks)]];
	if (st.calls) {
		info.push(["auction", st.calls.length ? st.calls.map(
		    function (c) {
			return "seat " + c[0] + ": " + (c[1] ? c[1] : "pass");
		    }).join(", ") : "no call yet"]);
		info.push(["called card", st.called ? card(st.called) : "-"]);
		info.push(["partner", st.partner >= 0 ? "seat " + st.partner :
		    "not yet known"]);
	}
	box.append(dl(info), el("h2", null, "On the table"), table, last,
	    el("h2", null, "Seats"), el("div", { class: "seats" }, seats));
}

/* /match/ID: live by its events; the replay once it is over. */
function pageMatch(id) {
	api("/api/v1/matches/" + id).then(function (r) {
		var m = r.match;
		document.title = "refd: match " + id;
		if (m.state !== "playing" && m.state !== "waiting" &&
		    typeof pageReplay === "function")
			return pageReplay(id, m);
		return pageLive(id, m);
	}).catch(fail);
}

function pageLive(id, m) {
	var head = el("p", null, m.variant + ": " + m.names.join(" v ") +
	    (m.tournament ? " (tournament " : ""),
	    m.tournament ? link("/tournament/" + m.tournament,
	    "#" + m.tournament) : null, m.tournament ? ")" : "");
	var state = el("p", { id: "state", role: "status" }, m.state);
	var box = el("div", { id: "table" });
	var log = el("ol", { class: "log", id: "log", "aria-label":
	    "events", "aria-live": "off" });
	var st = m.state === "waiting" ? { state: "waiting" } : null;
	var since = Date.now(), es, timer;

	main.replaceChildren(el("h1", null, "Match " + id), head, state, box,
	    el("h2", null, "Events"), log);
	drawTable(box, m, st, since);
	es = new EventSource(url("/api/v1/matches/" + id + "/events"));
	es.onopen = function () { conn.textContent = "live"; };
	es.onerror = function () {
		conn.textContent = es.readyState === 2 ? "closed" :
		    "reconnecting\u2026";
	};
	es.onmessage = function (msg) {
		var e = JSON.parse(msg.data);
		log.appendChild(el("li", { "data-id": msg.lastEventId,
		    class: e.type === "fault" ? "fault" : null },
		    evText(e, m.names)));
		log.scrollTop = log.scrollHeight;
		if (e.type === "end") {
			state.textContent = "over: " + e.result +
			    (e.reason ? " (" + e.reason + ")" : "");
			es.close();
			conn.textContent = "match over";
			clearInterval(timer);
			if (st)
				st.state = "done";
			drawTable(box, m, st, since);
			return;
		}
		st = e.state;
		since = Date.now();
		state.textContent = st.state;
		drawTable(box, m, st, since);
	};
	timer = setInterval(function () {
		if (st && st.state === "playing")
			drawTable(box, m, st, since);
	}, 500);
}

function route() {
	var p = location.pathname, mm;

	if (p === "/")
		return pageIndex();
	if ((mm = /^\/match\/(\d+)$/.exec(p)))
		return pageMatch(mm[1]);
	if ((mm = /^\/tournament\/(\d+)$/.exec(p)) &&
	    typeof pageTournament === "function")
		return pageTournament(mm[1]);
	fail(new Error("no such page"));
}

route();
