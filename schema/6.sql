-- schema/6.sql: a log that lives for years.  refctl archive moves the
-- finished matches and tournaments of a log's beginning, with the
-- events of its log chain, into an archive log that ends with a signed
-- head; the log keeps that head as its origin, and its chain goes on
-- from it (refd-log(5), The log chain).  At most one row: the newest
-- archive's end.
CREATE TABLE log_origin (
	no		INTEGER PRIMARY KEY CHECK (no > 0),
	link		TEXT NOT NULL CHECK (length(link) = 64),
	sig		TEXT NOT NULL CHECK (length(sig) = 128),
	key		TEXT NOT NULL CHECK (length(key) = 64),
	last_match	INTEGER NOT NULL CHECK (last_match >= 0),
	last_tournament	INTEGER NOT NULL CHECK (last_tournament >= 0),
	archive		TEXT NOT NULL,
	archived	TEXT NOT NULL
);

PRAGMA user_version = 6;
