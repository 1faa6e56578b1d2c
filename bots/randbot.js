#!/usr/bin/env node
/*
 * randbot.js: a refd bot in Node.js that plays a random card.
 *
 * It speaks refd-protocol(7) on stdin and stdout using only the readline
 * module: it answers the standard GTP commands, acknowledges every game
 * notification and answers genplay with a uniformly random card of the
 * hand it is given; in chiamata5's auction it passes or names the next
 * weaker rank, at random, and names a random suit.
 *
 * Run:		node bots/randbot.js [seed] [-r file]
 * With a seed (an integer) its choices are the same on every run.
 * With -r every line received is appended to file as received, and each
 * answer after it as "> " and the answer's first line without its id:
 * the transcript that, with the receipt in its match_end line, refctl
 * verify-receipt holds the log to.
 */
'use strict';

const fs = require('fs');
const readline = require('readline');

const COMMANDS = [
	'bid', 'called', 'deal_end', 'deal_start', 'draw', 'genbid', 'gencall',
	'genplay', 'joker', 'known_command', 'list_commands', 'match_end',
	'match_start', 'name', 'partner', 'partner_hand', 'play',
	'protocol_version', 'quit', 'trick', 'version',
];
/* The auction's ranks from the strongest down; '-' before the first. */
const RANKS = ['-', '1', '3', '10', '9', '8', '7', '6', '5', '4', '2'];

/* A seeded generator (mulberry32) when a seed is given, else Math.random. */
function makeRandom(arg) {
	if (arg === undefined)
		return Math.random;
	let t = Number.parseInt(arg, 10) >>> 0;
	return function () {
		t = (t + 0x6d2b79f5) >>> 0;
		let r = Math.imul(t ^ (t >>> 15), t | 1);
		r ^= r + Math.imul(r ^ (r >>> 7), r | 61);
		return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
	};
}

let record = null;		/* -r: the transcript's descriptor, or null */

/* Write one answer with the command's id, then the blank line. */
function answer(ok, id, text) {
	process.stdout.write((ok ? '=' : '?') + id + (text ? ' ' + text : '') +
	    '\n\n');
	if (record !== null)
		fs.writeSync(record, '> ' + (ok ? '=' : '?') +
		    text.split('\n')[0] + '\n');
}

/* Answer one command line; returns false after quit. */
function command(line, random) {
	const args = line.split('#')[0].split(/\s+/).filter((s) => s !== '');
	let id = '';

	if (args.length > 0 && /^[0-9]+$/.test(args[0]))
		id = args.shift();
	if (args.length === 0)
		return true;		/* a blank line or a comment */
	switch (args[0]) {
	case 'protocol_version':
		answer(true, id, '2');
		break;
	case 'name':
		answer(true, id, 'randbot.js');
		break;
	case 'version':
		answer(true, id, '1.0');
		break;
	case 'known_command':
		answer(true, id, COMMANDS.includes(args[1]) ? 'true' : 'false');
		break;
	case 'list_commands':
		answer(true, id, COMMANDS.join('\n'));
		break;
	case 'quit':
		answer(true, id, '');
		return false;
	case 'genplay':
		if (args.length < 3)
			answer(false, id, 'no cards in hand');
		else
			answer(true, id, args[2 +
			    Math.floor(random() * (args.length - 2))]);
		break;
	case 'genbid': {
		/* pass, or the rank just weaker than the last named */
		const i = RANKS.indexOf(args.length > 2 ? args[2] : '-');
		answer(true, id, i >= 0 && i + 1 < RANKS.length &&
		    random() < 0.5 ? RANKS[i + 1] : 'pass');
		break;
	}
	case 'gencall':
		answer(true, id, 'CDBS'[Math.floor(random() * 4)]);
		break;
	default:
		if (COMMANDS.includes(args[0]))
			answer(true, id, '');
		else
			answer(false, id, 'unknown command');
	}
	return true;
}

/* Read commands until quit or end of file. */
function main() {
	const argv = process.argv.slice(2);
	const r = argv.indexOf('-r');

	if (r >= 0) {
		record = fs.openSync(argv[r + 1], 'a');
		argv.splice(r, 2);
	}
	const random = makeRandom(argv[0]);
	const rl = readline.createInterface({ input: process.stdin,
	    crlfDelay: Infinity, terminal: false });
	let done = false;

	rl.on('line', (line) => {
		if (done)
			return;
		if (record !== null)
			fs.writeSync(record, line.replace(/\r$/, '') + '\n');
		if (!command(line, random)) {
			done = true;
			rl.close();
			process.stdout.write('', () => process.exit(0));
		}
	});
	rl.on('close', () => {
		if (!done)
			process.exit(0);
	});
}

main();
