-- schema/7.sql: every answer a seat's receipt counts, in the log.  A
-- receipt's transcript hashes cover every answer refd read from the
-- seat during its match; the chained moves hold the answers that became
-- moves.  The rest are chained here, as they arrive, so that an auditor
-- can rebuild the answers' hash from the log alone: an answer to a move
-- read after its time-out ('late'), an answer to a notification other
-- than a bare '=' ('note'), and an answer to a move that became no move
-- ('move': it forfeited the match, or came out of turn).  line is the number of the command it
-- answers among the lines the seat was sent from match_start on
-- (refd-protocol(7), RECEIPTS), ms the time since that command left.
CREATE TABLE answers (
	match_id	INTEGER NOT NULL REFERENCES matches (id),
	deal_no		INTEGER NOT NULL CHECK (deal_no >= 0),
	seat		INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
	line		INTEGER NOT NULL CHECK (line > 0),
	kind		TEXT NOT NULL CHECK (kind IN ('late', 'note', 'move')),
	answer		TEXT NOT NULL CHECK (length(CAST(answer AS BLOB)) <= 1024),
	ms		INTEGER NOT NULL CHECK (ms >= 0),
	at		TEXT NOT NULL,
	chain_no	INTEGER NOT NULL CHECK (chain_no > 0),
	chain		TEXT NOT NULL CHECK (length(chain) = 64),
	PRIMARY KEY (match_id, chain_no)
) WITHOUT ROWID;

PRAGMA user_version = 7;
