/*
 * auditlog.h: the audit of refd's log as a whole (auditlog.c), beside
 * the walk of each match (audit.c): the log chain that ties every
 * match's start and end and every tournament event together, its
 * signed heads, and each tournament's schedule against its matches.
 *
 * al_log(h, key, out) walks the log chain of the log h, checking every
 * link, every event against the rows it names, every signature (with
 * key, 64 hex digits, when not NULL; else with the keys the log itself
 * records), and that every match and tournament is in it.  It prints a
 * line per discrepancy ("log FAILED: ...", "match N FAILED: ...",
 * "tournament N FAILED: ...") and a summary line, and returns how many
 * discrepancies it found.  al_tournaments(h, out) re-derives each
 * tournament's schedule from its chained definition and master seed and
 * checks each of its matches against its slot; same output and result.
 *
 * al_end(h, id, key, out) checks the signed end of match id alone, with
 * al_log's code: its event of the log chain linked from the event
 * before it, its text rebuilt from the match's row (its final link, its
 * result), its signature verified with key when not NULL, else with the
 * key the log chain has in force there.  It prints the discrepancies as
 * al_log does ("log FAILED: log chain link N: ...") or a line saying
 * which link and key, and returns how many it found, or -1 when the log
 * chain holds no end of the match or the end is unsigned for want of a
 * key.
 *
 * A log whose beginning was archived (refctl archive) has an origin
 * (table log_origin): the archive's last event, a signed head, which
 * al_log verifies and walks on from.  al_origin(h, o) reads it: 1 with
 * it in o, 0 when the log has none, -1 when it cannot be read or is
 * malformed.  al_junction(older, newer, out) holds a log to the archive
 * before it: the newer log's origin is the older one's last event, link,
 * signature and key, and their matches and tournaments do not overlap
 * and leave no gap; it prints a line and returns the discrepancies.
 */
#ifndef REFD_AUDITLOG_H
#define REFD_AUDITLOG_H

#include <stdio.h>

#include <sqlite3.h>

/* Where a log's chain goes on from: the end of the archive before it. */
struct al_origin {
	long long	 no;		/* the archive's last event */
	char		 link[65];	/* its link, hex */
	char		 sig[129];	/* its signature, hex */
	char		 key[65];	/* the public key that signed it, hex */
	long long	 last_match;	/* the highest match id archived */
	long long	 last_tournament; /* the highest tournament id */
};

int	al_log(sqlite3 *, const char *, FILE *);
int	al_end(sqlite3 *, long long, const char *, FILE *);
int	al_origin(sqlite3 *, struct al_origin *);
int	al_junction(sqlite3 *, const char *, sqlite3 *, const char *, FILE *);
int	al_tournaments(sqlite3 *, FILE *);

#endif /* REFD_AUDITLOG_H */
