-- schema/4.sql: every variant libbriscola plays.  Seats and dealers go
-- up to 5 (classic5, classic6, chiamata5); a deal may have no turned
-- trump card (briscolone, chiamata5: trump is NULL); a deal may end
-- with the caller's side winning or losing (caller, others); and
-- chiamata5's auction is logged and chained, call by call, like plays
-- (calls), with the called card, its caller and its holder, the secret
-- partner, copied into deals once the caller named the suit.  SQLite
-- cannot change a CHECK in place: each table whose bounds widen is
-- rebuilt under its own name, its rows copied as they are, so that no
-- chained text changes.  Foreign keys are off during a migration.

CREATE TABLE seats4 (
	match_id	INTEGER NOT NULL REFERENCES matches (id),
	seat		INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
	bot		TEXT NOT NULL,
	name		TEXT NOT NULL DEFAULT '',
	version		TEXT NOT NULL DEFAULT '',
	kind		TEXT NOT NULL CHECK (kind IN ('spawn', 'remote')),
	identity	TEXT NOT NULL,
	chain_no	INTEGER CHECK (chain_no > 0),
	chain		TEXT CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
INSERT INTO seats4 (match_id, seat, bot, name, version, kind, identity,
    chain_no, chain)
    SELECT match_id, seat, bot, name, version, kind, identity, chain_no,
    chain FROM seats;
DROP TABLE seats;
ALTER TABLE seats4 RENAME TO seats;
CREATE INDEX seats_bot ON seats (bot);

CREATE TABLE deals4 (
	match_id	INTEGER NOT NULL REFERENCES matches (id),
	deal_no		INTEGER NOT NULL CHECK (deal_no >= 1),
	dealer		INTEGER NOT NULL CHECK (dealer BETWEEN 0 AND 5),
	deck		TEXT NOT NULL,
	removed		TEXT,
	trump		TEXT,
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	called		TEXT,
	caller		INTEGER CHECK (caller BETWEEN 0 AND 5),
	partner		INTEGER CHECK (partner BETWEEN 0 AND 5),
	PRIMARY KEY (match_id, deal_no)
) WITHOUT ROWID;
INSERT INTO deals4 (match_id, deal_no, dealer, deck, removed, trump,
    chain_no, chain)
    SELECT match_id, deal_no, dealer, deck, removed, trump, chain_no,
    chain FROM deals;
DROP TABLE deals;
ALTER TABLE deals4 RENAME TO deals;

CREATE TABLE plays4 (
	match_id	INTEGER NOT NULL,
	deal_no		INTEGER NOT NULL,
	seq		INTEGER NOT NULL CHECK (seq BETWEEN 0 AND 39),
	trick		INTEGER NOT NULL CHECK (trick BETWEEN 0 AND 19),
	seat		INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
	card		TEXT NOT NULL,
	ms		INTEGER NOT NULL CHECK (ms >= 0),
	fault		INTEGER NOT NULL CHECK (fault IN (0, 1)),
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	at		TEXT,
	limit_ms	INTEGER CHECK (limit_ms >= 0),
	answer		TEXT CHECK (length(CAST(answer AS BLOB)) <= 1024),
	PRIMARY KEY (match_id, deal_no, seq),
	FOREIGN KEY (match_id, deal_no) REFERENCES deals (match_id, deal_no)
) WITHOUT ROWID;
INSERT INTO plays4 (match_id, deal_no, seq, trick, seat, card, ms, fault,
    chain_no, chain, at, limit_ms, answer)
    SELECT match_id, deal_no, seq, trick, seat, card, ms, fault, chain_no,
    chain, at, limit_ms, answer FROM plays;
DROP TABLE plays;
ALTER TABLE plays4 RENAME TO plays;

CREATE TABLE tricks4 (
	match_id	INTEGER NOT NULL,
	deal_no		INTEGER NOT NULL,
	trick		INTEGER NOT NULL CHECK (trick BETWEEN 0 AND 19),
	winner		INTEGER NOT NULL CHECK (winner BETWEEN 0 AND 5),
	points		INTEGER NOT NULL CHECK (points BETWEEN 0 AND 120),
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, deal_no, trick),
	FOREIGN KEY (match_id, deal_no) REFERENCES deals (match_id, deal_no)
) WITHOUT ROWID;
INSERT INTO tricks4 SELECT match_id, deal_no, trick, winner, points,
    chain_no, chain FROM tricks;
DROP TABLE tricks;
ALTER TABLE tricks4 RENAME TO tricks;

CREATE TABLE deal_results4 (
	match_id	INTEGER NOT NULL,
	deal_no		INTEGER NOT NULL,
	result		TEXT NOT NULL CHECK (result IN ('joker', 'allies',
			    'void', 'won', 'drawn', 'caller', 'others')),
	winner		INTEGER NOT NULL CHECK (winner BETWEEN -1 AND 5),
	points		TEXT NOT NULL,
	mpoints		TEXT NOT NULL,
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, deal_no),
	FOREIGN KEY (match_id, deal_no) REFERENCES deals (match_id, deal_no)
) WITHOUT ROWID;
INSERT INTO deal_results4 SELECT match_id, deal_no, result, winner, points,
    mpoints, chain_no, chain FROM deal_results;
DROP TABLE deal_results;
ALTER TABLE deal_results4 RENAME TO deal_results;

CREATE TABLE faults4 (
	id		INTEGER PRIMARY KEY,
	match_id	INTEGER NOT NULL REFERENCES matches (id),
	deal_no		INTEGER NOT NULL CHECK (deal_no >= 0),
	seat		INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
	kind		TEXT NOT NULL,
	evidence	TEXT NOT NULL CHECK (length(CAST(evidence AS BLOB))
			    <= 1024),
	ms		INTEGER NOT NULL CHECK (ms >= 0),
	action		TEXT NOT NULL,
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	at		TEXT,
	limit_ms	INTEGER CHECK (limit_ms >= 0)
);
INSERT INTO faults4 (id, match_id, deal_no, seat, kind, evidence, ms,
    action, chain_no, chain, at, limit_ms)
    SELECT id, match_id, deal_no, seat, kind, evidence, ms, action,
    chain_no, chain, at, limit_ms FROM faults;
DROP TABLE faults;
ALTER TABLE faults4 RENAME TO faults;
CREATE INDEX faults_match ON faults (match_id, deal_no);

CREATE TABLE bot_events4 (
	id		INTEGER PRIMARY KEY,
	time		TEXT NOT NULL
			    DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	match_id	INTEGER REFERENCES matches (id),
	seat		INTEGER CHECK (seat BETWEEN 0 AND 5),
	bot		TEXT NOT NULL,
	kind		TEXT NOT NULL,
	detail		TEXT NOT NULL
);
INSERT INTO bot_events4 SELECT id, time, match_id, seat, bot, kind, detail
    FROM bot_events;
DROP TABLE bot_events;
ALTER TABLE bot_events4 RENAME TO bot_events;
CREATE INDEX bot_events_bot ON bot_events (bot, time);
CREATE INDEX bot_events_match ON bot_events (match_id)
    WHERE match_id IS NOT NULL;

-- chiamata5's auction: each call (kind 'bid': call is 'pass' or a rank,
-- 1 to 10) and the caller's suit (kind 'call': call is the called card,
-- partner its holder, the caller himself when alone), in order (seq),
-- with the bot's time, the limit in force and its answer as given.
CREATE TABLE calls (
	match_id	INTEGER NOT NULL,
	deal_no		INTEGER NOT NULL,
	seq		INTEGER NOT NULL CHECK (seq BETWEEN 0 AND 16),
	kind		TEXT NOT NULL CHECK (kind IN ('bid', 'call')),
	seat		INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
	call		TEXT NOT NULL,
	partner		INTEGER CHECK (partner BETWEEN 0 AND 5),
	ms		INTEGER NOT NULL CHECK (ms >= 0),
	fault		INTEGER NOT NULL CHECK (fault IN (0, 1)),
	at		TEXT NOT NULL,
	limit_ms	INTEGER NOT NULL CHECK (limit_ms >= 0),
	answer		TEXT CHECK (length(CAST(answer AS BLOB)) <= 1024),
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, deal_no, seq),
	FOREIGN KEY (match_id, deal_no) REFERENCES deals (match_id, deal_no)
) WITHOUT ROWID;

PRAGMA user_version = 4;
