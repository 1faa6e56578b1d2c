-- schema/3.sql: everything that can decide a dispute is chained, and the
-- log is one chain.  Matches written from this version on have
-- chain_version 2 (see refd-log(5)): their link 0 commits to the log's
-- head before them, to their start time, clocks, policy, tournament slot
-- and seats; a seat's identity, name and version, every play's and
-- fault's time, limit in force and the bot's answer, and the match's end
-- time are in their links.  Matches written before keep chain_version 1
-- and their chains as they were.  The log chain (log_chain) ties every
-- match's start and end and every tournament event together; its heads
-- at a match's end and a tournament's end are signed.

ALTER TABLE matches ADD COLUMN chain_version INTEGER NOT NULL DEFAULT 1
    CHECK (chain_version IN (1, 2));
ALTER TABLE matches ADD COLUMN prev TEXT CHECK (length(prev) = 64);

ALTER TABLE seats ADD COLUMN chain_no INTEGER CHECK (chain_no > 0);
ALTER TABLE seats ADD COLUMN chain TEXT CHECK (length(chain) = 64);

ALTER TABLE plays ADD COLUMN at TEXT;
ALTER TABLE plays ADD COLUMN limit_ms INTEGER CHECK (limit_ms >= 0);
ALTER TABLE plays ADD COLUMN answer TEXT
    CHECK (length(CAST(answer AS BLOB)) <= 1024);

ALTER TABLE faults ADD COLUMN at TEXT;
ALTER TABLE faults ADD COLUMN limit_ms INTEGER CHECK (limit_ms >= 0);

-- The log's own chain: one link per event, in the order refd wrote them.
CREATE TABLE log_chain (
	no		INTEGER PRIMARY KEY CHECK (no > 0),
	kind		TEXT NOT NULL CHECK (kind IN ('legacy', 'key',
			    'start', 'end', 'abort', 'tbegin', 'tstate')),
	match_id	INTEGER,
	tournament	INTEGER,
	text		TEXT NOT NULL,
	link		TEXT NOT NULL CHECK (length(link) = 64),
	sig		TEXT CHECK (length(sig) = 128)
);
CREATE INDEX log_chain_match ON log_chain (match_id)
    WHERE match_id IS NOT NULL;

PRAGMA user_version = 3;
