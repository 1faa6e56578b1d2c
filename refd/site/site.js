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

/* Replace e's children with the arguments after it, nulls skipped. */
function put(e) {
	e.replaceChildren();
	add(e, Array.prototype.slice.call(arguments, 1));
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
	put(main, el("h1", null, "Cannot show this page"),
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
		put(main, el("h1", null, "refd"),
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
	return table(["Match", "Variant", "Bots", "State", "Result"],
	    list.map(function (m) {
		return [link("/match/" + m.id, "#" + m.id), m.variant,
		    m.bots.join(", "), m.state, m.result || "-"];
	    }));
}

function tourneyTable(list) {
	if (list.length === 0)
		return el("p", { class: "muted" }, "None.");
	return table(["Tournament", "Name", "State", "Matches"],
	    list.map(function (t) {
		return [link("/tournament/" + t.id, "#" + t.id), t.name,
		    t.state, t.done + " / " + t.total];
	    }), [0, 0, 0, 1]);
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
	add(box, [dl(info), el("h2", null, "On the table"), table, last,
	    el("h2", null, "Seats"), el("div", { class: "seats" }, seats)]);
}

/* /match/ID: live by its events; the replay once it is over. */
function pageMatch(id) {
	document.title = "refd: match " + id;
	api("/api/v1/matches/" + id).then(function (r) {
		var m = r.match;
		if (m.state !== "playing" && m.state !== "waiting")
			return pageReplay(id);
		return pageLive(id, m);
	}, function () {
		return pageReplay(id);	/* no longer in refd's memory */
	}).catch(fail);
}

/* A row of a replay as words. */
function rowText(r, names) {
	var n = function (s) { return "seat " + s + " (" + names[s] + ")"; };

	switch (r.k) {
	case "deal": return "Deal " + r.d + ", dealer seat " + r.dealer +
	    (r.trump ? ", trump " + r.trump : "");
	case "play": return n(r.seat) + " plays " + r.card;
	case "trick": return "Trick " + (r.t + 1) + " to " + n(r.winner) +
	    ", " + r.points + " points";
	case "joker": return n(r.seat) + " is the Joker";
	case "fault": return "Fault: " + n(r.seat) + ", " + r.kind + ", " +
	    r.action;
	case "dealend": return "Deal " + r.d + " over: " + r.result;
	case "bid": return n(r.seat) + (r.call === "pass" ? " passes" :
	    " names " + r.call);
	case "called": return n(r.seat) + " calls " + r.card;
	case "end": return "Match over: " + r.result;
	}
	return r.k;
}

/* A play's time: its ms of its limit, the bank left, a fallback's. */
function playTime(r) {
	return r.ms + " ms of " + r.limit + " ms" + (r.bank >= 0 ?
	    ", bank left " + ms(r.bank) : "") + (r.fault ?
	    ", played by refd" : "");
}

/* The deep link of a row: #d3, #d3t5 (a trick), #d3t5p2 (a play). */
function rowLink(r) {
	if (r.k === "play")
		return "d" + r.d + "t" + (r.t + 1) + "p" + (r.p + 1);
	if (r.k === "trick")
		return "d" + r.d + "t" + (r.t + 1);
	if (r.d)
		return "d" + r.d;
	return "end";
}

/*
 * The audit's verdict: a line for the whole, then one for each part
 * (the rules, the chain, the signature of the match's end), the failing
 * one naming its row.
 */
function drawVerdict(v) {
	var parts = [["rules", "Rules"], ["chain", "Chain"],
	    ["signature", "Signature"]];

	return el("div", { class: "verdict" }, el("p", { id: "verdict",
	    class: v.ok ? "verdict-ok" : "verdict-bad" }, "Audit: " + v.text),
	    el("ul", { id: "verdict-parts", "aria-label": "the audit, part " +
	    "by part" }, parts.map(function (p) {
		var x = v[p[0]] || { ok: null, text: "not checked" };
		return el("li", { "data-part": p[0], "data-ok": String(x.ok),
		    class: x.ok === true ? "verdict-ok" : x.ok === false ?
		    "verdict-bad" : "muted" }, p[1] + ": " + (x.ok === true ?
		    "ok" : x.ok === false ? "FAILED" : "not known") + " \u2014 " +
		    x.text);
	    })));
}

/* /match/ID once over: the replay from the log, step by step. */
function pageReplay(id) {
	api("/api/v2/matches/" + id + "/replay").then(function (rp) {
		drawReplay(id, rp);
	}).catch(fail);
}

/*
 * Each row's hands, as arrays of cards, or null while hidden: a row's
 * "h" when it has one, else the row before's, less the card a play
 * names (API 2 writes "h" only where that is not so).
 */
function replayHands(rows) {
	var prev = null;

	return rows.map(function (r) {
		if (r.h)
			prev = r.h.map(function (h) {
				return h ? h.split(" ") : [];
			});
		else if (prev && r.k === "play") {
			prev = prev.slice();
			prev[r.seat] = prev[r.seat].filter(function (c) {
				return c !== r.card;
			});
		}
		return prev;
	});
}

function drawReplay(id, rp) {
	var m = rp.match, rows = rp.rows, names = m.names, cur = 0, timer = null;
	var links = {}, i, seatShown = -1, hands = replayHands(rows);

	rows.forEach(function (r, k) {
		var l = rowLink(r);
		if (!(l in links))
			links[l] = k;
		/* a trick's link goes to its first play */
		if (r.k === "play" && r.p === 0)
			links["d" + r.d + "t" + (r.t + 1)] = k;
	});
	var verdict = drawVerdict(rp.verdict);

	if (!rows.length) {
		put(main, el("h1", null, "Match " + id + ": replay"), verdict);
		return;
	}
	var slider = el("input", { type: "range", min: 0, max: rows.length - 1,
	    value: 0, id: "scrub", "aria-label": "step of the replay" });
	var pos = el("span", { id: "pos", "aria-live": "polite" });
	var playBtn = el("button", { id: "play", type: "button" }, "Play");
	var btn = function (label, key, fn) {
		var b = el("button", { type: "button", "aria-keyshortcuts": key },
		    label);
		b.addEventListener("click", fn);
		return b;
	};
	var view = el("div", { id: "view" });
	var log = el("ol", { class: "log", id: "moves", "aria-label": "moves" });
	var seatBox = el("div", { id: "seatbox" });
	var seatBtns = [btn("Table", "", function () { showSeat(-1); })];

	for (i = 0; i < m.seats; i++)
		seatBtns.push((function (s) {
			var b = btn("Seat " + s + ": " + names[s], "",
			    function () { showSeat(s); });
			if (!m.revealed)
				b.disabled = true;
			return b;
		})(i));
	rows.forEach(function (r, k) {
		var li = el("li", { id: "r" + k, class: r.k === "fault" ?
		    "fault" : null }, el("a", { href: "#" + rowLink(r),
		    "data-step": k }, rowText(r, names)), r.k === "play" ?
		    el("span", { class: "muted" }, " \u2014 " + playTime(r)) :
		    null);
		log.appendChild(li);
	});
	log.addEventListener("click", function (e) {
		var a = e.target.closest("a[data-step]");
		if (a) {
			e.preventDefault();
			go(+a.getAttribute("data-step"));
		}
	});
	put(main, el("h1", null, "Match " + id + ": replay"),
	    el("p", null, m.variant + ": " + names.join(" v ") + ", " +
	    m.state + ", result " + m.result + (m.tournament ?
	    " (tournament " : ""), m.tournament ? link("/tournament/" +
	    m.tournament, "#" + m.tournament) : null, m.tournament ? ")" : ""),
	    verdict,
	    el("div", { class: "controls", role: "group", "aria-label":
	    "replay controls" }, btn("|\u25c0 Start", "Home", function () {
		go(0);
	    }), btn("\u25c0 Back", "ArrowLeft", function () { go(cur - 1); }),
	    playBtn, btn("Next \u25b6", "ArrowRight", function () {
		go(cur + 1);
	    }), btn("End \u25b6|", "End", function () {
		go(rows.length - 1);
	    }), slider, pos),
	    el("p", { class: "muted" }, "Keys: \u2190 \u2192 step, space " +
	    "plays, Page Up and Page Down go by deal, Home and End."),
	    view, el("h2", null, "What each seat was told"),
	    el("div", { class: "controls", role: "group", "aria-label":
	    "seat" }, seatBtns), m.revealed ? null : el("p", { class:
	    "muted" }, "The hands and the seats' lines show once this " +
	    "match's seed may be revealed (its tournament's end)."),
	    seatBox, el("h2", null, "Moves"), log);
	playBtn.addEventListener("click", toggle);
	slider.addEventListener("input", function () { go(+slider.value); });
	document.addEventListener("keydown", function (e) {
		if (e.target.tagName === "INPUT" && e.key !== " ")
			return;
		if (e.key === "ArrowRight") go(cur + 1);
		else if (e.key === "ArrowLeft") go(cur - 1);
		else if (e.key === "Home") go(0);
		else if (e.key === "End") go(rows.length - 1);
		else if (e.key === "PageDown") go(nextDeal(1));
		else if (e.key === "PageUp") go(nextDeal(-1));
		else if (e.key === " " && e.target.tagName !== "BUTTON" &&
		    e.target.tagName !== "A") toggle();
		else
			return;
		e.preventDefault();
	});
	window.addEventListener("hashchange", fromHash);

	function nextDeal(dir) {
		var d = rows[cur].d || 0, k;
		for (k = cur + dir; k >= 0 && k < rows.length; k += dir)
			if (rows[k].k === "deal" && (dir > 0 || rows[k].d < d))
				return k;
		return dir > 0 ? rows.length - 1 : 0;
	}
	function toggle() {
		if (timer) {
			clearInterval(timer);
			timer = null;
			playBtn.textContent = "Play";
			return;
		}
		playBtn.textContent = "Pause";
		timer = setInterval(function () {
			if (cur >= rows.length - 1)
				return toggle();
			go(cur + 1);
		}, 400);
	}
	function showSeat(s) {
		seatShown = s;
		seatBtns.forEach(function (b, k) {
			b.setAttribute("aria-pressed", String(k - 1 === s));
		});
		if (s < 0) {
			seatBox.replaceChildren();
			return;
		}
		fetch(url("/api/v1/matches/" + id + "/seat/" + s)).then(
		    function (r) { return r.text(); }).then(function (t) {
			if (seatShown === s)
				put(seatBox, el("pre", { class: "lines",
				    id: "seatlines", tabindex: "0",
				    "aria-label": "lines sent to seat " + s }, t));
		});
	}
	function fromHash() {
		var h = location.hash.slice(1);
		if (h in links)
			go(links[h], true);
	}
	function go(k, fromLink) {
		var r, table = [], j, last = null, li, h;

		k = Math.max(0, Math.min(rows.length - 1, k));
		cur = k;
		r = rows[k];
		h = hands[k];
		for (j = k; j >= 0; j--) {
			if (rows[j].k === "deal")
				break;
			if (rows[j].k === "trick") {
				if (j === k)
					last = rows[j];
				else
					break;
			} else if (rows[j].k === "play")
				table.unshift([rows[j].seat, rows[j].card]);
		}
		slider.value = k;
		pos.textContent = "step " + (k + 1) + " of " + rows.length;
		var seats = [];
		for (j = 0; j < m.seats; j++)
			seats.push(el("section", { class: "seat" + (r.turn === j ?
			    " turn" : "") }, el("h3", null, "Seat " + j + ": " +
			    names[j], r.turn === j ? el("span", { class: "tag" },
			    "to play") : null), dl([["card points",
			    String(r.pts[j])], ["match points", String(r.mp[j])],
			    ["hand", h ? (h[j].length ? h[j].map(card) :
			    "empty") : "hidden"]])));
		put(view, el("p", { id: "step", "data-link":
		    rowLink(r) }, el("strong", null, rowText(r, names)),
		    r.k === "play" ? " (" + playTime(r) + ")" : ""), dl([["deal", String(r.d || "-")], ["stock",
		    String(r.stock)]]), el("h2", null, last ? "Trick taken" :
		    "On the table"), el("div", { class: "table-cards" },
		    table.length ? table.map(function (p) {
			return el("span", null, "seat " + p[0] + ": ",
			    card(p[1]), " ");
		    }) : el("span", { class: "muted" }, "no card")),
		    el("div", { class: "seats" }, seats));
		Array.prototype.forEach.call(log.querySelectorAll("li.cur"),
		    function (x) { x.classList.remove("cur"); });
		li = document.getElementById("r" + k);
		li.classList.add("cur");
		/* the list scrolls, never the page */
		if (li.offsetTop < log.scrollTop ||
		    li.offsetTop > log.scrollTop + log.clientHeight - 24)
			log.scrollTop = li.offsetTop - log.clientHeight / 2;
		if (!fromLink)
			history.replaceState(null, "", "#" + rowLink(r));
	}
	if (location.hash && location.hash.slice(1) in links)
		fromHash();
	else
		go(0, true);
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
	var st = m.table && m.table.deal !== undefined ? m.table :
	    { state: m.state };
	var since = Date.now(), es, timer;

	put(main, el("h1", null, "Match " + id), head, state, box,
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

/* The SPRT's LLR after each observation, against its two bounds. */
function sprtGraph(sp) {
	var W = 600, H = 200, pad = 30, n = Math.max(sp.llr.length, 2);
	var top = Math.max(sp.upper, Math.max.apply(null, sp.llr.concat([0]))),
	    bot = Math.min(sp.lower, Math.min.apply(null, sp.llr.concat([0])));
	var ns = "http://www.w3.org/2000/svg";
	var y = function (v) {
		return pad + (top - v) / (top - bot || 1) * (H - 2 * pad);
	};
	var x = function (i) { return pad + i / (n - 1) * (W - 2 * pad); };
	var svg = document.createElementNS(ns, "svg"), k;
	var mk = function (tag, at, text) {
		var e = document.createElementNS(ns, tag), a;
		for (a in at)
			e.setAttribute(a, at[a]);
		if (text)
			e.textContent = text;
		svg.appendChild(e);
	};

	svg.setAttribute("viewBox", "0 0 " + W + " " + H);
	svg.setAttribute("role", "img");
	svg.setAttribute("aria-label", "LLR " + (sp.llr.length ?
	    sp.llr[sp.llr.length - 1] : 0) + " after " + sp.llr.length +
	    " observations, bounds " + sp.lower + " and " + sp.upper);
	svg.style.maxWidth = "100%";
	mk("line", { class: "axis", x1: pad, x2: W - pad, y1: y(0), y2: y(0) });
	mk("line", { class: "bound", x1: pad, x2: W - pad, y1: y(sp.upper),
	    y2: y(sp.upper) });
	mk("line", { class: "bound", x1: pad, x2: W - pad, y1: y(sp.lower),
	    y2: y(sp.lower) });
	mk("text", { x: W - pad - 90, y: y(sp.upper) - 4 }, "H1 " + sp.upper);
	mk("text", { x: W - pad - 90, y: y(sp.lower) + 12 }, "H0 " + sp.lower);
	var pts = [pad + "," + y(0)];
	for (k = 0; k < sp.llr.length; k++)
		pts.push(x(k + 1 > n - 1 ? n - 1 : k + 1) + "," + y(sp.llr[k]));
	mk("polyline", { class: "llr", points: pts.join(" ") });
	return svg;
}

function table(head, rows, nums) {
	return el("div", { class: "scroll" }, el("table", null, el("thead", null,
	    el("tr", null, head.map(function (h, i) {
		return el("th", { scope: "col", class: nums && nums[i] ? "num" :
		    null }, h);
	    }))), el("tbody", null, rows.map(function (r) {
		return el("tr", null, r.map(function (c, i) {
			return el("td", { class: nums && nums[i] ? "num" : null },
			    c);
		}));
	    }))));
}

/*
 * /tournament/ID: pushed by its event stream, each event the whole
 * tournament as /api/v1/tournaments/ID gives it, sent as its matches
 * end; polled only by a browser without EventSource.
 */
function pageTournament(id) {
	var es, got = 0;

	if (!window.EventSource) {
		api("/api/v1/tournaments/" + id).then(function (r) {
			drawTournament(id, r);
			if (r.tournament.state === "running")
				setTimeout(function () { pageTournament(id); },
				    5000);
		}).catch(fail);
		return;
	}
	es = new EventSource(url("/api/v1/tournaments/" + id + "/events"));
	es.onopen = function () { conn.textContent = "live"; };
	es.onerror = function () {
		if (es.readyState !== 2) {
			conn.textContent = "reconnecting\u2026";
			return;
		}
		conn.textContent = "closed";
		if (!got)	/* refused: say why */
			api("/api/v1/tournaments/" + id).then(function (r) {
				drawTournament(id, r);
			}).catch(fail);
	};
	es.onmessage = function (msg) {
		var r = JSON.parse(msg.data);
		got++;
		drawTournament(id, r);
		main.setAttribute("data-event", msg.lastEventId);
		main.setAttribute("data-events", String(got));
		if (r.tournament.state === "done" ||
		    r.tournament.state === "cancelled") {
			es.close();
			conn.textContent = "tournament over";
		}
	};
}

/* The tournament r (the JSON of /api/v1/tournaments/ID), drawn anew. */
function drawTournament(id, r) {
	var t = r.tournament, st = r.standings, sp = r.sprt;
	document.title = "refd: tournament " + t.name;
	var bots = st ? st.standings.map(function (x) { return x.bot; }) :
	    [];
	var h2h = {};
	(st ? st.head_to_head : []).forEach(function (x) {
		h2h[x.bot + "\n" + x.against] = x.wins + "-" + x.draws +
		    "-" + x.losses;
	});
	put(main, el("h1", null, "Tournament " + id + ": " + t.name),
	    dl([["state", t.state + (t.reason ? " (" + t.reason + ")" :
		"")], ["progress", el("span", null, el("progress", {
		max: t.total, value: t.done, "aria-label": "matches done"
	    }), " ", el("span", { id: "done" }, String(t.done)), " of " +
		t.total + " matches, " + t.running + " running")],
	    ["elapsed", t.elapsed_s + " s"],
	    ["time left", t.eta_s === null ? "-" : "about " +
		t.eta_s + " s"],
	    ["started", t.started], ["ended", t.ended || "-"]]),
	    el("h2", null, "Standings"),
	    st ? table(["Rank", "Bot", "Elo", "95% interval", "Score",
		"Played", "Won", "Drawn", "Lost"], st.standings.map(
		function (x) {
		return [String(x.rank), x.bot, String(x.elo), "[" +
		    x.elo_lo + ", " + x.elo_hi + "]",
		    x.score.toFixed(3), String(x.played),
		    String(x.won), String(x.drawn), String(x.lost)];
	    }), [1, 0, 1, 0, 1, 1, 1, 1, 1]) : el("p", null, "None yet."),
	    st ? el("h2", null, "Role-aware rating") : null,
	    st ? table(["Bot", "Elo", "95% interval", "Deals",
		"Match points a deal"], st.standings.map(function (x) {
		return [x.bot, String(x.team_elo), "[" + x.team_elo_lo +
		    ", " + x.team_elo_hi + "]", String(x.deals),
		    x.mpoints_per_deal.toFixed(3)];
	    }), [0, 1, 0, 1, 1]) : null,
	    st ? el("h2", null, "Crosstable (row against column: " +
		"wins-draws-losses)") : null,
	    st ? table([""].concat(bots), bots.map(function (b) {
		return [b].concat(bots.map(function (c) {
			return b === c ? "-" : (h2h[b + "\n" + c] || "");
		}));
	    })) : null,
	    st && st.times ? el("h2", null, "Thinking time") : null,
	    st && st.times ? table(["Bot", "Moves", "Mean ms",
		"p99 ms", "Max ms", "Time-outs"], st.times.map(
		function (x) {
		return [x.bot, String(x.moves), String(x.mean_ms),
		    String(x.p99_ms), String(x.max_ms),
		    String(x.timeouts)];
	    }), [0, 1, 1, 1, 1, 1]) : null,
	    sp ? el("h2", null, "SPRT") : null,
	    sp ? el("p", null, "LLR " + (sp.llr.length ?
		sp.llr[sp.llr.length - 1] : 0) + " after " +
		sp.llr.length + " observations; bounds [" + sp.lower +
		", " + sp.upper + "]; " + sp.state) : null,
	    sp ? sprtGraph(sp) : null,
	    el("h2", null, "Matches"),
	    table(["Match", "Slot", "State", "Result"], r.matches.map(
		function (m) {
		return [link("/match/" + m.id, "#" + m.id),
		    String(m.slot), m.state, m.result || "-"];
	    }), [0, 1, 0, 0]));
}

function route() {
	var p = location.pathname, mm;

	if (p === "/")
		return pageIndex();
	if ((mm = /^\/match\/(\d+)$/.exec(p)))
		return pageMatch(mm[1]);
	if ((mm = /^\/tournament\/(\d+)$/.exec(p)))
		return pageTournament(mm[1]);
	fail(new Error("no such page"));
}

route();
