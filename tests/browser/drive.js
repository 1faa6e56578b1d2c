// drive.js: refd's site in a real headless Chromium, for tests/browser.py.
// Usage: node drive.js SCENARIO URL SHOTDIR [ARG]; prints one JSON
// object: what the page showed, and every request it tried outside
// loopback (each one blocked).
"use strict";

const puppeteer = require("puppeteer-core");
const fs = require("fs");
const os = require("os");
const path = require("path");

const [scenario, base, shots, arg] = process.argv.slice(2);
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const outside = [];
const asked = [];	// every loopback path the pages asked for

function loopback(u) {
	try {
		const h = new URL(u).hostname;
		return h === "127.0.0.1" || h === "localhost" || h === "[::1]";
	} catch (e) {
		return false;
	}
}

async function open(browser, url, width, height, scheme) {
	const page = await browser.newPage();
	await page.setViewport({ width: width, height: height });
	await page.emulateMediaFeatures([{ name: "prefers-color-scheme",
	    value: scheme || "light" }]);
	await page.setRequestInterception(true);
	page.on("request", (r) => {
		const u = r.url();
		if (u.startsWith("data:") || loopback(u)) {
			if (!u.startsWith("data:"))
				asked.push(new URL(u).pathname);
			r.continue();
		}
		else {
			outside.push(u);
			r.abort();
		}
	});
	page.on("pageerror", (e) => outside.push("pageerror: " + e.message));
	await page.goto(url, { waitUntil: "domcontentloaded" });
	return page;
}

// Screenshots of an open page at a phone's size and a laptop's, light
// and dark, taken in place (a live page stays live), then back to
// 1280x800 light.
async function shoot(page, name) {
	if (!shots)
		return;
	for (const [w, h] of [[360, 800], [1280, 800]])
		for (const scheme of ["light", "dark"]) {
			await page.setViewport({ width: w, height: h });
			await page.emulateMediaFeatures([{
			    name: "prefers-color-scheme", value: scheme }]);
			await page.evaluate(() => window.scrollTo(0, 0));
			await page.screenshot({ path: path.join(shots,
			    `${name}-${w}x${h}-${scheme}.png`), fullPage: false });
		}
	await page.setViewport({ width: 1280, height: 800 });
	await page.emulateMediaFeatures([{ name: "prefers-color-scheme",
	    value: "light" }]);
}

const scenarios = {
	// the live page: its event log grows as plays happen
	async live(browser) {
		const page = await open(browser, base, 1280, 800);
		try {
			await page.waitForFunction(() =>
			    document.querySelectorAll("#log li").length >= 3,
			    { timeout: 60000 });
		} catch (e) {
			throw new Error(e.message + ": the page shows " +
			    await page.$eval("main", (m) => m.innerText.slice(0,
			    300)));
		}
		await shoot(page, "match-live");
		const first = await page.$$eval("#log li", (l) => l.length);
		const t0 = await page.$eval("#table", (e) => e.textContent);
		await page.waitForFunction((n) =>
		    document.querySelectorAll("#log li").length > n + 3,
		    { timeout: 60000 }, first);
		const later = await page.$$eval("#log li", (l) => l.length);
		const t1 = await page.$eval("#table", (e) => e.textContent);
		const plays = await page.$$eval("#log li", (l) => l.map(
		    (x) => x.textContent).filter((x) => / plays /.test(x)));
		// the keyboard reaches the links: tab from the top
		await page.keyboard.press("Tab");
		const focus = await page.evaluate(
		    () => document.activeElement.textContent);
		await page.close();
		return { first, later, changed: t0 !== t1, plays, focus };
	},
	// the replay: a deep link, the keyboard, the seat toggle
	async replay(browser, seat) {
		const page = await open(browser, base, 1280, 800);
		await page.waitForSelector("#step", { timeout: 30000 });
		const link = await page.$eval("#step", (e) =>
		    e.getAttribute("data-link"));
		const text = await page.$eval("#step", (e) => e.textContent);
		const hash = await page.evaluate(() => location.hash);
		const verdict = await page.$eval("#verdict", (e) =>
		    e.textContent);
		// every seat's hand shown, as its cards' titles
		const shown = () => page.$$eval("#view section.seat", (l) =>
		    l.map((sec) => {
			const dd = Array.from(sec.querySelectorAll("dt")).find(
			    (t) => t.textContent === "hand").nextElementSibling;
			const cs = dd.querySelectorAll(".card");
			return cs.length ? Array.from(cs).map((c) =>
			    c.getAttribute("title")) : dd.textContent;
		    }));
		const hands = await shown();
		// the keyboard: a step on, then back
		await page.keyboard.press("ArrowRight");
		const next = await page.$eval("#step", (e) =>
		    e.getAttribute("data-link"));
		await page.keyboard.press("ArrowLeft");
		const back = await page.$eval("#step", (e) =>
		    e.getAttribute("data-link"));
		await page.keyboard.press("End");
		const end = await page.$eval("#step", (e) => e.textContent);
		// the hands at the trick's first play, by its link
		await page.evaluate(() => { location.hash = "#d2t3p1"; });
		await page.waitForFunction(() => document.getElementById(
		    "step").getAttribute("data-link") === "d2t3p1",
		    { timeout: 30000 });
		const hands1 = await shown();
		// the seat toggle, by its button
		const buttons = await page.$$("#seatbox ~ * button, " +
		    "div[aria-label=seat] button");
		await buttons[Number(seat) + 1].click();
		await page.waitForSelector("#seatlines", { timeout: 30000 });
		const lines = await page.$eval("#seatlines", (e) =>
		    e.textContent);
		await shoot(page, "match-replay");
		await page.close();
		return { link, text, hash, verdict, hands, hands1, next, back,
		    end, lines };
	},
	// the audit's verdict on a replay, part by part
	async verdict(browser) {
		const page = await open(browser, base, 1280, 800);
		await page.waitForSelector("#verdict-parts li",
		    { timeout: 30000 });
		const verdict = await page.$eval("#verdict", (e) =>
		    e.textContent);
		const parts = await page.$$eval("#verdict-parts li", (l) =>
		    l.map((x) => ({ part: x.getAttribute("data-part"),
		    ok: x.getAttribute("data-ok"), text: x.textContent })));
		await page.close();
		return { verdict, parts };
	},
	// a tournament live: the page follows its matches' ends without a
	// reload and without asking again, until it is over
	async tlive(browser) {
		const page = await open(browser, base, 1280, 800);
		const done = () => page.$eval("#done", (e) =>
		    Number(e.textContent));
		await page.waitForSelector("#done", { timeout: 30000 });
		await page.evaluate(() => { window.stayed = 1; });
		const first = await done();
		await page.waitForFunction((n) => {
			const e = document.getElementById("done");
			return e && Number(e.textContent) >= n + 2;
		}, { timeout: 120000 }, first);
		const later = await done();
		await shoot(page, "tournament-live");
		await page.waitForFunction(() => document.getElementById(
		    "conn").textContent === "tournament over",
		    { timeout: 300000 });
		const end = await done();
		const stayed = await page.evaluate(() => window.stayed === 1);
		const events = await page.$eval("main", (e) =>
		    Number(e.getAttribute("data-events")));
		const rows = await page.$$eval("main table", (ts) =>
		    Array.from(ts[0].querySelectorAll("tbody tr")).map((tr) =>
		    Array.from(tr.querySelectorAll("td")).map((td) =>
		    td.textContent)));
		await page.close();
		return { first, later, end, stayed, events, rows, asked };
	},
	// a tournament: its standings table, the SPRT's graph
	async tournament(browser) {
		const page = await open(browser, base, 1280, 800);
		await page.waitForSelector("table", { timeout: 30000 });
		const rows = await page.$$eval("main table", (ts) =>
		    Array.from(ts[0].querySelectorAll("tbody tr")).map((tr) =>
		    Array.from(tr.querySelectorAll("td")).map((td) =>
		    td.textContent)));
		const llr = await page.$$eval("svg polyline", (l) => l.length);
		const text = await page.$eval("main", (e) => e.innerText);
		await shoot(page, "tournament");
		await page.close();
		return { rows, llr, text };
	},
	// the front page: its tables and status
	async index(browser) {
		const page = await open(browser, base, 1280, 800);
		await page.waitForSelector("h2", { timeout: 30000 });
		const text = await page.$eval("main", (e) => e.innerText);
		const links = await page.$$eval("main a", (l) => l.map(
		    (a) => a.getAttribute("href")));
		await shoot(page, "index");
		await page.close();
		return { text, links };
	},
};

(async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "refd-chromium."));
	const browser = await puppeteer.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: ["--headless", "--no-sandbox", "--disable-gpu",
		    "--disable-quic", "--no-first-run",
		    "--disable-background-networking",
		    "--disable-component-update", "--disable-sync",
		    "--user-data-dir=" + dir],
	});
	let out;
	try {
		out = await scenarios[scenario](browser, arg);
	} finally {
		await browser.close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
	out.outside = outside;
	process.stdout.write(JSON.stringify(out) + "\n");
})().catch((e) => {
	process.stdout.write(JSON.stringify({ error: String(e.stack || e),
	    outside }) + "\n");
	process.exit(1);
});
