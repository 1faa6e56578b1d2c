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
 */
#ifndef REFD_AUDITLOG_H
#define REFD_AUDITLOG_H

#include <stdio.h>

#include <sqlite3.h>

int	al_log(sqlite3 *, const char *, FILE *);
int	al_tournaments(sqlite3 *, FILE *);

#endif /* REFD_AUDITLOG_H */
