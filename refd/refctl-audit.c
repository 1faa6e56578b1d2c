/*
 * refctl-audit.c: refctl audit, which settles every dispute from the log
 * alone: each match walked by audit.c (the rules replayed through
 * libbriscola, the chain recomputed), one verdict line each.  See
 * refd-audit(7).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "briscola.h"
#include "audit.h"
#include "refctl.h"
#include "auditlog.h"
#include "austand.h"
#include "util.h"
#include "wal.h"

#define AUDIT_MAXARCH	64	/* archives before a log, audited with it */

static int	 audit_missing(sqlite3 *);
static int	 audit_transcripts(sqlite3 *, long long);

/* --transcripts: rebuild each seat's signed transcript hashes too */
static int	 audit_tx;
static int	 audit_file(const char *, int, int, const char *, int, char **);
static int	 audit_junction(const char *, const char *);

/*
 * Every match id from 1 to the highest refd handed out (the matches
 * table's sqlite_sequence) must be in the log, and no row of another
 * table may name a match that is not: a deleted match is reported on a
 * line of its own; nor may any row break a foreign key or a CHECK.
 * Returns how many were reported.
 */
static int
audit_missing(sqlite3 *h)
{
	static const char *const tables[] = { "seats", "deals", "plays",
	    "tricks", "jokers", "deal_results", "faults", "bot_events" };
	sqlite3_stmt	*st;
	char		 sql[256];
	long long	 seq = 0, next = 1, id;
	struct al_origin o;
	size_t		 i;
	int		 bad = 0, rc;

	/* the matches before the log's origin are in its archive */
	if (al_origin(h, &o) == 1)
		next = o.last_match + 1;
	/* no sqlite_sequence: no match was ever started */
	if (sqlite3_prepare_v2(h, "SELECT seq FROM sqlite_sequence WHERE "
	    "name = 'matches'", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			seq = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (sqlite3_prepare_v2(h, "SELECT id FROM matches WHERE typeof(id) = "
	    "'integer' ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		printf("log FAILED: the matches cannot be read: %s\n",
		    sqlite3_errmsg(h));
		return 1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		for (; next < id && bad < 20; next++, bad++)
			printf("match %lld FAILED: missing: the log has match "
			    "%lld after it\n", next, id);
		next = id + 1;
	}
	sqlite3_finalize(st);
	for (; next <= seq && bad < 20; next++, bad++)
		printf("match %lld FAILED: missing: refd numbered matches up "
		    "to %lld (sqlite_sequence)\n", next, seq);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql), "SELECT DISTINCT match_id FROM %s "
		    "WHERE match_id IS NOT NULL AND match_id NOT IN (SELECT id "
		    "FROM matches) ORDER BY 1 LIMIT 5", tables[i]);
		if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
			continue;	/* the per-match walk says what is wrong */
		while (sqlite3_step(st) == SQLITE_ROW) {
			printf("match %lld FAILED: missing, yet rows of %s "
			    "name it\n", (long long)sqlite3_column_int64(st, 0),
			    tables[i]);
			bad++;
		}
		sqlite3_finalize(st);
	}
	/* and a row of a deal with no deal, or any other broken key: refd
	   checks its rows' parents itself (db_own_keys()), SQLite here */
	if (sqlite3_prepare_v2(h, "PRAGMA foreign_key_check", -1, &st,
	    NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW && bad < 40) {
			/* a table WITHOUT ROWID has no rowid to name */
			if (sqlite3_column_type(st, 1) == SQLITE_NULL)
				snprintf(sql, sizeof(sql), "a row");
			else
				snprintf(sql, sizeof(sql), "row %lld",
				    (long long)sqlite3_column_int64(st, 1));
			printf("log FAILED: %s of %s names a row of %s that "
			    "is not in the log\n", sql,
			    (const char *)sqlite3_column_text(st, 0),
			    (const char *)sqlite3_column_text(st, 2));
			bad++;
		}
		sqlite3_finalize(st);
	}
	/* and a row outside its CHECK, which refd's own writes do not ask
	   SQLite to evaluate either (db_own_keys()): quick_check runs every
	   CHECK and NOT NULL of every row, and finds a damaged page too */
	if (sqlite3_prepare_v2(h, "PRAGMA quick_check(40)", -1, &st, NULL) ==
	    SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			/* a table's name is the log's: hostile, printed safe */
			util_printable(sql, sizeof(sql), (const char *)
			    sqlite3_column_text(st, 0), (size_t)
			    sqlite3_column_bytes(st, 0));
			if (strcmp(sql, "ok") == 0)
				break;
			printf("log FAILED: %s\n", sql);
			bad++;
		}
		sqlite3_finalize(st);
	}
	return bad;
}

/*
 * The transcript hashes match id's signed end chains for its seats,
 * rebuilt from the log by a walker of their own (refctl-receipt.c): 0,
 * or -1 with the failure printed.
 */
static int
audit_transcripts(sqlite3 *h, long long id)
{
	struct au	*b;
	int		 r;

	if ((b = calloc(1, sizeof(*b))) == NULL) {
		printf("match %lld FAILED: out of memory\n", id);
		return -1;
	}
	b->h = h;
	r = receipt_rebuild(b, id);
	free(b);
	return r;
}

/*
 * refctl audit --db FILE [--all] [--allow-running] [MATCH ...]: settle
 * every dispute from the log alone.  One line per match, then a summary;
 * exit 0 only if every match audited agrees with the rules and its
 * chain and has ended.  A match still running fails, unless
 * --allow-running (an operator auditing a live log) skips it by name; a
 * damaged write-ahead log, and with --all a missing match, fail too.
 */
int
cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ "allow-running", no_argument, NULL, 'r' },
		{ "key", required_argument, NULL, 'k' },
		{ "archive", required_argument, NULL, 'A' },
		{ "transcripts", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*path = NULL, *key = NULL, *arch[AUDIT_MAXARCH + 1];
	int		 ch, all = 0, i, live = 0, narch = 0, rc, worst = 0;

	optind = 0;	/* glibc: start afresh, permuting again */
	audit_tx = 0;
	while ((ch = getopt_long(argc, argv, "d:ark:A:t", opts, NULL)) != -1) {
		switch (ch) {
		case 't':
			audit_tx = 1;
			break;
		case 'd':
			path = optarg;
			break;
		case 'a':
			all = 1;
			break;
		case 'r':
			live = 1;
			break;
		case 'k':
			key = optarg;
			break;
		case 'A':
			if (narch == AUDIT_MAXARCH) {
				fprintf(stderr, "refctl audit: at most %d "
				    "archives\n", AUDIT_MAXARCH);
				return 2;
			}
			arch[narch++] = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (path == NULL || (narch > 0 && optind != argc))
		goto usage;
	for (i = optind; i < argc; i++)
		if (au_id(argv[i]) < 0) {
			fprintf(stderr, "refctl audit: bad match id %s\n",
			    argv[i]);
			return 2;
		}
	if (narch == 0)
		return audit_file(path, all, live, key, argc - optind,
		    argv + optind);
	/* the archives, oldest first, then the log: each alone, then each
	 * junction */
	arch[narch] = path;
	for (i = 0; i <= narch; i++) {
		printf("%s:\n", arch[i]);
		fflush(stdout);
		rc = audit_file(arch[i], 1, i == narch ? live : 0, key, 0, NULL);
		worst = rc > worst ? rc : worst;
	}
	for (i = 0; i < narch; i++) {
		rc = audit_junction(arch[i], arch[i + 1]);
		worst = rc > worst ? rc : worst;
	}
	return worst;
usage:
	fprintf(stderr, "usage: refctl audit --db FILE [--all] "
	    "[--allow-running] [--key PUBLICKEY]\n"
	    "                    [--transcripts] [--archive FILE ...] "
	    "[MATCH ...]\n");
	return 2;
}

/*
 * Hold the log newer to the archive older that it goes on from (the
 * newer log's origin): 0 when it does, 1 when not, 2 when one cannot be
 * opened as a log.
 */
static int
audit_junction(const char *older, const char *newer)
{
	sqlite3	*o, *n;
	int	 bad;

	if (au_open(older, &o) == -1)
		return 2;
	if (au_open(newer, &n) == -1) {
		sqlite3_close(o);
		return 2;
	}
	bad = al_junction(o, older, n, newer, stdout);
	sqlite3_close(o);
	sqlite3_close(n);
	return bad > 0 ? 1 : 0;
}

/*
 * Audit the log at path: every match (all, or none given) or the n
 * given in ids.  Prints the verdicts and the summary; returns the exit
 * status.
 */
static int
audit_file(const char *path, int all, int live, const char *key, int n,
    char **ids)
{
	sqlite3_stmt	*st = NULL;
	struct as_count	 cnt = { NULL, 0, 0, NULL, 0 };
	struct au	*a;
	char		 why[512];
	long long	 id;
	int		 i, ok = 0, bad = 0, running = 0, r, rc;

	if ((a = calloc(1, sizeof(*a))) == NULL) {
		fprintf(stderr, "refctl audit: out of memory\n");
		return 2;
	}
	/* before SQLite reads it, and silently drops a damaged tail */
	if (wal_check(path, why, sizeof(why)) == -1) {
		printf("log FAILED: %s\n", why);
		bad++;
	}
	/*
	 * Every match may take minutes: walk a copy, so that a live log's
	 * write-ahead log is held only while the copy is taken.
	 */
	all = all || n == 0;
	if ((all ? au_open_copy("audit", path, &a->h) :
	    au_open(path, &a->h)) == -1) {
		free(a);
		return 2;
	}
	a->mode = AU_AUDIT;
	a->out = stdout;
	if (all && sqlite3_prepare_v2(a->h, "SELECT id FROM matches "
	    "ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "refctl audit: %s: %s\n", path,
		    sqlite3_errmsg(a->h));
		sqlite3_close(a->h);
		free(a);
		return 2;
	}
	/* the log as one chain, its signed heads, its tournaments */
	bad += al_log(a->h, key, stdout);
	if (all)
		bad += audit_missing(a->h) + al_tournaments(a->h, stdout);
	for (i = 0;;) {
		if (all) {
			if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
				if (rc != SQLITE_DONE) {
					printf("the list of matches cannot be "
					    "read: %s\n", sqlite3_errmsg(a->h));
					bad++;
				}
				break;
			}
			if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
				printf("a match FAILED: its id is not a "
				    "number\n");
				bad++;
				continue;
			}
			id = (long long)sqlite3_column_int64(st, 0);
		} else {
			if (i >= n)
				break;
			id = au_id(ids[i++]);
		}
		if (all)	/* the standings are recounted from the walk */
			as_start(&cnt, a);
		r = au_match(a, id);
		if (all)
			as_done(&cnt, a, r);
		/*
		 * with --transcripts, every seat's signed transcript hashes,
		 * from the log alone (a walk of the match per seat), unless
		 * it ended on a log failure, which may have lost the rows of
		 * the last lines its seats were told
		 */
		if (r == 0 && audit_tx && !receipt_lost(a) &&
		    audit_transcripts(a->h, id) == -1) {
			bad++;
			fflush(stdout);
			continue;
		}
		switch (r) {
		case 0:
			ok++;
			if (strcmp(a->state, "aborted") == 0)
				printf("match %lld verified: aborted (%s) after "
				    "%d complete deal%s%s, %lld plays, chain ok "
				    "to link %lld%s\n", id, au_safe(a->reason,
				    strlen(a->reason), why, 160),
				    a->ndone,
				    a->ndone == 1 ? "" : "s",
				    au_deal_active(a) ? " and one cut short" : "",
				    a->nplays, a->links,
				    /* refd(8) DURABILITY: such a match may
				     * have played on past its last commit */
				    strcmp(a->reason, "refd restarted") == 0 ||
				    strncmp(a->reason, "log failure", 11) == 0 ?
				    "; plays of its last milliseconds before "
				    "then may be missing (commit_ms)" : "");
			else
				printf("match %lld verified: %d deal%s, %lld "
				    "plays, chain ok\n", id, a->ndone,
				    a->ndone == 1 ? "" : "s", a->nplays);
			if (au_option(a, "sandbox=none"))
				printf("match %lld ran unsandboxed (sandbox "
				    "none): its bots could reach the log and "
				    "each other\n", id);
			else if (au_option(a, "memcg=none"))
				printf("match %lld ran without memory cgroups: "
				    "bot_memory_mb bounded each process, not "
				    "the sandbox\n", id);
			break;
		case 1:
			bad++;
			printf("match %lld FAILED: %s\n", id, a->err);
			break;
		case 2:
			if (live) {
				running++;
				printf("match %lld running: skipped "
				    "(--allow-running)\n", id);
			} else {
				bad++;
				printf("match %lld FAILED: not ended: its state "
				    "is running, so refd is still playing it "
				    "(--allow-running skips it) or the log lost "
				    "its end\n", id);
			}
			break;
		default:
			bad++;
			printf("match %lld FAILED: no such match in the log\n",
			    id);
			break;
		}
		fflush(stdout);
	}
	sqlite3_finalize(st);
	if (all)
		bad += as_check(&cnt, a->h, stdout);
	as_free(&cnt);
	sqlite3_close(a->h);
	free(a);
	printf("%d match%s verified, %d failed", ok, ok == 1 ? "" : "es", bad);
	if (running > 0)
		printf(", %d running (skipped)", running);
	printf("\n");
	return bad > 0 ? 1 : 0;
}
