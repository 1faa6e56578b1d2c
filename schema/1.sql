-- schema/1.sql: refd's log, version 1; every column is described in
-- refd-log(5).  refd applies this file as migration 1, in one
-- transaction, to a database whose user_version is 0.  Times are UTC
-- ISO-8601 with milliseconds; hashes and seeds are lowercase hex.

-- One row per match, written when it starts and updated when it ends.
CREATE TABLE matches (
	id		INTEGER PRIMARY KEY AUTOINCREMENT,
	variant		TEXT NOT NULL,
	options		TEXT NOT NULL,
	seed		TEXT NOT NULL CHECK (length(seed) = 64 AND
			    seed NOT GLOB '*[^0-9a-f]*'),
	commitment	TEXT NOT NULL CHECK (length(commitment) = 64 AND
			    commitment NOT GLOB '*[^0-9a-f]*'),
	rng		TEXT NOT NULL,
	move_ms		INTEGER NOT NULL CHECK (move_ms >= 0),
	bank_ms		INTEGER NOT NULL CHECK (bank_ms >= 0),
	startup_ms	INTEGER NOT NULL CHECK (startup_ms >= 0),
	policy		TEXT NOT NULL CHECK (policy IN ('forfeit', 'fallback')),
	max_faults	INTEGER NOT NULL CHECK (max_faults >= 0),
	tournament	INTEGER CHECK (tournament > 0),
	started		TEXT NOT NULL
			    DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	ended		TEXT,
	state		TEXT NOT NULL DEFAULT 'running'
			    CHECK (state IN ('running', 'done', 'aborted')),
	result		TEXT,
	reason		TEXT,
	mpoints		TEXT,
	chain0		TEXT CHECK (length(chain0) = 64),
	end_no		INTEGER CHECK (end_no > 0),
	final_chain	TEXT CHECK (length(final_chain) = 64),
	CHECK ((state = 'running') = (ended IS NULL))
);
CREATE INDEX matches_state ON matches (state);
CREATE INDEX matches_tournament ON matches (tournament)
    WHERE tournament IS NOT NULL;

-- Who sat where.
CREATE TABLE seats (
	match_id	INTEGER NOT NULL REFERENCES matches (id),
	seat		INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
	bot		TEXT NOT NULL,
	name		TEXT NOT NULL DEFAULT '',
	version		TEXT NOT NULL DEFAULT '',
	kind		TEXT NOT NULL CHECK (kind IN ('spawn', 'remote')),
	identity	TEXT NOT NULL,
	PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
CREATE INDEX seats_bot ON seats (bot);

-- Each deal as dealt: the deck order is the whole truth of a deal.
CREATE TABLE deals (
	match_id	INTEGER NOT NULL REFERENCES matches (id),
	deal_no		INTEGER NOT NULL CHECK (deal_no >= 1),
	dealer		INTEGER NOT NULL CHECK (dealer BETWEEN 0 AND 3),
	deck		TEXT NOT NULL,
	removed		TEXT,
	trump		TEXT NOT NULL,
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, deal_no)
) WITHOUT ROWID;

-- Every card played, committed before the next move is asked for.
CREATE TABLE plays (
	match_id	INTEGER NOT NULL,
	deal_no		INTEGER NOT NULL,
	seq		INTEGER NOT NULL CHECK (seq BETWEEN 0 AND 39),
	trick		INTEGER NOT NULL CHECK (trick BETWEEN 0 AND 19),
	seat		INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
	card		TEXT NOT NULL,
	ms		INTEGER NOT NULL CHECK (ms >= 0),
	fault		INTEGER NOT NULL CHECK (fault IN (0, 1)),
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, deal_no, seq),
	FOREIGN KEY (match_id, deal_no) REFERENCES deals (match_id, deal_no)
) WITHOUT ROWID;

-- Every trick completed.
CREATE TABLE tricks (
	match_id	INTEGER NOT NULL,
	deal_no		INTEGER NOT NULL,
	trick		INTEGER NOT NULL CHECK (trick BETWEEN 0 AND 19),
	winner		INTEGER NOT NULL CHECK (winner BETWEEN 0 AND 3),
	points		INTEGER NOT NULL CHECK (points BETWEEN 0 AND 120),
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, deal_no, trick),
	FOREIGN KEY (match_id, deal_no) REFERENCES deals (match_id, deal_no)
) WITHOUT ROWID;

-- joker3: the seat that became the Joker in a deal.
CREATE TABLE jokers (
	match_id	INTEGER NOT NULL,
	deal_no		INTEGER NOT NULL,
	seat		INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, deal_no),
	FOREIGN KEY (match_id, deal_no) REFERENCES deals (match_id, deal_no)
) WITHOUT ROWID;

-- The result of each finished deal.
CREATE TABLE deal_results (
	match_id	INTEGER NOT NULL,
	deal_no		INTEGER NOT NULL,
	result		TEXT NOT NULL CHECK (result IN
			    ('joker', 'allies', 'void', 'won', 'drawn')),
	winner		INTEGER NOT NULL CHECK (winner BETWEEN -1 AND 3),
	points		TEXT NOT NULL,
	mpoints		TEXT NOT NULL,
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, deal_no),
	FOREIGN KEY (match_id, deal_no) REFERENCES deals (match_id, deal_no)
) WITHOUT ROWID;

-- Every fault a seat committed; deal_no is 0 before the first deal.
CREATE TABLE faults (
	id		INTEGER PRIMARY KEY,
	match_id	INTEGER NOT NULL REFERENCES matches (id),
	deal_no		INTEGER NOT NULL CHECK (deal_no >= 0),
	seat		INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
	kind		TEXT NOT NULL,
	evidence	TEXT NOT NULL CHECK (length(CAST(evidence AS BLOB))
			    <= 1024),
	ms		INTEGER NOT NULL CHECK (ms >= 0),
	action		TEXT NOT NULL,
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64)
);
CREATE INDEX faults_match ON faults (match_id, deal_no);

-- What happened to bots outside the chain: starts, exits, connections.
CREATE TABLE bot_events (
	id		INTEGER PRIMARY KEY,
	time		TEXT NOT NULL
			    DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	match_id	INTEGER REFERENCES matches (id),
	seat		INTEGER CHECK (seat BETWEEN 0 AND 3),
	bot		TEXT NOT NULL,
	kind		TEXT NOT NULL,
	detail		TEXT NOT NULL
);
CREATE INDEX bot_events_bot ON bot_events (bot, time);
CREATE INDEX bot_events_match ON bot_events (match_id)
    WHERE match_id IS NOT NULL;

PRAGMA user_version = 1;
