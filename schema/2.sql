-- schema/2.sql: tournaments.  A tournament's definition is kept whole,
-- so that it can be resumed from the log alone; each of its matches
-- records its slot in the schedule the definition generates.

CREATE TABLE tournaments (
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
			    CHECK (state IN ('running', 'done', 'stopped')),
	reason		TEXT
);

-- The slot of a tournament match in its schedule (0-based).
ALTER TABLE matches ADD COLUMN slot INTEGER CHECK (slot >= 0);
CREATE INDEX matches_slot ON matches (tournament, slot)
    WHERE tournament IS NOT NULL;

PRAGMA user_version = 2;
