-- schema/5.sql: a tournament can be cancelled for good.  A cancelled
-- tournament, like a done one, is over: it is never resumed, and its
-- master seed may be shown.  SQLite cannot change a CHECK in place, so
-- the table is rebuilt under its own name with its rows copied as they
-- are (ids and the AUTOINCREMENT counter kept), so that no chained text
-- changes.

CREATE TABLE tournaments5 (
	id		INTEGER PRIMARY KEY AUTOINCREMENT,
	name		TEXT NOT NULL,
	definition	TEXT NOT NULL,
	seed		TEXT NOT NULL CHECK (length(seed) = 64 AND
			    seed NOT GLOB '*[^0-9a-f]*'),
	total		INTEGER NOT NULL CHECK (total > 0),
	started		TEXT NOT NULL
			    DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	ended		TEXT,
	state		TEXT NOT NULL DEFAULT 'running'
			    CHECK (state IN ('running', 'done', 'stopped',
			    'cancelled')),
	reason		TEXT
);
INSERT INTO tournaments5 (id, name, definition, seed, total, started,
    ended, state, reason)
    SELECT id, name, definition, seed, total, started, ended, state, reason
    FROM tournaments;
DROP TABLE tournaments;
ALTER TABLE tournaments5 RENAME TO tournaments;

PRAGMA user_version = 5;
