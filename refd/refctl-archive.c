/*
 * refctl-archive.c: refctl archive, which moves the finished matches and
 * tournaments of a log's beginning into an archive log, so that a log
 * kept for years stays small, while refd goes on writing it.
 *
 * The log chain is cut after an event that refd signed, before which
 * every match and tournament that started has ended, before the date
 * given.  The archive is a copy of the log (db_copy()) cut back to that
 * event: its chain ends with that signed head.  The log then keeps the
 * head as its origin (log_origin, refd-log(5)) and loses the events and
 * rows before it, one match at a time, in transactions short enough
 * that refd, which waits 200 ms for a lock, never misses a write.  A
 * move cut short is finished by the next run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "auditlog.h"
#include "db.h"
#include "refctl.h"

/* The tables that hold a match's rows, children first. */
static const char *const arch_tables[] = { "calls", "plays", "tricks",
    "jokers", "deal_results", "faults", "bot_events", "deals", "seats" };
#define NTABLES	(sizeof(arch_tables) / sizeof(arch_tables[0]))

/* Where the log chain is cut: its last event that goes to the archive. */
struct arch_cut {
	long long	 no;		/* the event, 0 for none */
	char		 link[65];
	char		 sig[129];
	char		 key[65];	/* the key in force there */
	long long	 last_match;	/* the highest match id before it */
	long long	 last_tournament;
	long long	 nmatches;	/* matches and tournaments archived */
	long long	 ntourneys;
};

static int	 arch_date_ok(const char *);
static int	 arch_exec(sqlite3 *, const char *, long long, char *, size_t);
static int	 arch_cut_find(sqlite3 *, const struct al_origin *,
		    const char *, struct arch_cut *, char *, size_t);
static int	 arch_make(const char *, const char *, const struct arch_cut *,
		    char *, size_t);
static int	 arch_origin(sqlite3 *, const struct arch_cut *, const char *,
		    char *, size_t);
static int	 arch_purge(sqlite3 *, long long, long long, long long *,
		    char *, size_t);

/* A date as the log writes them, or its prefix: 2026-11-21[T10:04...]. */
static int
arch_date_ok(const char *d)
{
	static const char form[] = "0000-00-00T00:00:00.000Z";
	size_t	 i, n = strlen(d);

	if (n < 10 || n > sizeof(form) - 1)
		return 0;
	for (i = 0; i < n; i++)
		if (form[i] == '0' ? d[i] < '0' || d[i] > '9' : d[i] != form[i])
			return 0;
	return 1;
}

/* Run one statement on h with ?1 bound to v; -1 with the reason in err. */
static int
arch_exec(sqlite3 *h, const char *sql, long long v, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
		return -1;
	}
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, v);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Walk the log chain of h (after its origin o) and find the last event
 * where it may be cut: signed, with every match and tournament that
 * started before it ended before it, each before the date before, and
 * none still to be resumed.  0 with the cut in c (c->no 0 when there is
 * none), or -1 with the reason in err.
 */
static int
arch_cut_find(sqlite3 *h, const struct al_origin *o, const char *before,
    struct arch_cut *c, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	const char	*kind, *link, *sig, *text, *mend, *tbeg, *tend, *mbeg;
	char		 key[65];
	long long	 no, mid, tid, topmatch = o->last_match;
	long long	 toptour = o->last_tournament, nm = 0, nt = 0;
	int		 open = 0, rc;

	memset(c, 0, sizeof(*c));
	snprintf(key, sizeof(key), "%s", o->key);
	if (sqlite3_prepare_v2(h, "SELECT l.no, l.kind, l.match_id,"
	    " l.tournament, l.link, l.sig, l.text, m.started, m.ended,"
	    " t.started, t.ended FROM log_chain AS l"
	    " LEFT JOIN matches AS m ON m.id = l.match_id"
	    " LEFT JOIN tournaments AS t ON t.id = l.tournament"
	    " ORDER BY l.no", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		no = sqlite3_column_int64(st, 0);
		kind = (const char *)sqlite3_column_text(st, 1);
		mid = sqlite3_column_int64(st, 2);
		tid = sqlite3_column_int64(st, 3);
		link = (const char *)sqlite3_column_text(st, 4);
		sig = (const char *)sqlite3_column_text(st, 5);
		text = (const char *)sqlite3_column_text(st, 6);
		mbeg = (const char *)sqlite3_column_text(st, 7);
		mend = (const char *)sqlite3_column_text(st, 8);
		tbeg = (const char *)sqlite3_column_text(st, 9);
		tend = (const char *)sqlite3_column_text(st, 10);
		if (kind == NULL || link == NULL || text == NULL)
			break;
		if (strcmp(kind, "key") == 0 && strlen(text) == 68)
			snprintf(key, sizeof(key), "%s", text + 4);
		else if (strcmp(kind, "start") == 0) {
			if (mbeg == NULL || strcmp(mbeg, before) >= 0)
				break;
			open++;
			nm++;
			topmatch = mid > topmatch ? mid : topmatch;
		} else if (strcmp(kind, "end") == 0 ||
		    strcmp(kind, "abort") == 0) {
			if (mend == NULL || strcmp(mend, before) >= 0)
				break;
			open--;
		} else if (strcmp(kind, "legacy") == 0) {
			/* a match older than the chain, over then */
			if (mend == NULL || strcmp(mend, before) >= 0)
				break;
			nm++;
			topmatch = mid > topmatch ? mid : topmatch;
		} else if (strcmp(kind, "tbegin") == 0) {
			if (tbeg == NULL || strcmp(tbeg, before) >= 0)
				break;
			open++;
			nt++;
			toptour = tid > toptour ? tid : toptour;
		} else if (strcmp(kind, "tstate") == 0) {
			/* stopped may be resumed: done or cancelled ends it */
			if (strstr(text, " state=done ") != NULL ||
			    strstr(text, " state=cancelled ") != NULL) {
				if (tend == NULL || strcmp(tend, before) >= 0)
					break;
				open--;
			}
		}
		if (open == 0 && sig != NULL && strlen(sig) == 128 &&
		    strlen(link) == 64 && key[0] != '\0') {
			c->no = no;
			snprintf(c->link, sizeof(c->link), "%s", link);
			snprintf(c->sig, sizeof(c->sig), "%s", sig);
			snprintf(c->key, sizeof(c->key), "%s", key);
			c->last_match = topmatch;
			c->last_tournament = toptour;
			c->nmatches = nm;
			c->ntourneys = nt;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
		return -1;
	}
	/* the matches numbered up to the cut are the ones started before */
	if (c->no > 0) {
		if (sqlite3_prepare_v2(h, "SELECT count(*) FROM matches WHERE"
		    " id > ?1 AND id <= ?2", -1, &st, NULL) != SQLITE_OK) {
			snprintf(err, errlen, "%s", sqlite3_errmsg(h));
			return -1;
		}
		sqlite3_bind_int64(st, 1, o->last_match);
		sqlite3_bind_int64(st, 2, c->last_match);
		nm = sqlite3_step(st) == SQLITE_ROW ?
		    sqlite3_column_int64(st, 0) : -1;
		sqlite3_finalize(st);
		if (nm != c->nmatches) {
			snprintf(err, errlen, "the log holds %lld matches up to "
			    "%lld, its chain starts %lld: audit it first", nm,
			    c->last_match, c->nmatches);
			return -1;
		}
	}
	return 0;
}

/*
 * The archive: the log db copied into file (new) at one instant, then
 * cut back to the event c and the matches and tournaments before it,
 * compacted, checked to audit as a log chain, synced and linked into
 * place.  0, or -1 with the reason in err.
 */
static int
arch_make(const char *db, const char *file, const struct arch_cut *c,
    char *err, size_t errlen)
{
	sqlite3		*h = NULL;
	FILE		*null;
	char		 tmp[PATH_MAX], why[400], sql[256];
	size_t		 i;
	int		 fd, rc = -1;

	if (backup_tmp(db, file, tmp, sizeof(tmp), err, errlen) == -1)
		return -1;
	if (sqlite3_open_v2(tmp, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", tmp, h ? sqlite3_errmsg(h) :
		    "out of memory");
		goto out;
	}
	/* what came after the cut stays in the log only */
	if (arch_exec(h, "BEGIN", 0, why, sizeof(why)) == -1 ||
	    arch_exec(h, "DELETE FROM log_chain WHERE no > ?1", c->no, why,
	    sizeof(why)) == -1)
		goto fail;
	for (i = 0; i < NTABLES; i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE match_id > ?1"
		    "%s", arch_tables[i], strcmp(arch_tables[i], "bot_events") ==
		    0 ? " OR match_id IS NULL" : "");
		if (arch_exec(h, sql, c->last_match, why, sizeof(why)) == -1)
			goto fail;
	}
	if (arch_exec(h, "DELETE FROM matches WHERE id > ?1", c->last_match,
	    why, sizeof(why)) == -1 ||
	    arch_exec(h, "DELETE FROM tournaments WHERE id > ?1",
	    c->last_tournament, why, sizeof(why)) == -1 ||
	    arch_exec(h, "UPDATE sqlite_sequence SET seq = ?1 WHERE name ="
	    " 'matches'", c->last_match, why, sizeof(why)) == -1 ||
	    arch_exec(h, "UPDATE sqlite_sequence SET seq = ?1 WHERE name ="
	    " 'tournaments'", c->last_tournament, why, sizeof(why)) == -1 ||
	    arch_exec(h, "COMMIT", 0, why, sizeof(why)) == -1 ||
	    arch_exec(h, "VACUUM", 0, why, sizeof(why)) == -1)
		goto fail;
	/* it must audit as a chain before the log loses anything */
	if ((null = fopen("/dev/null", "w")) == NULL ||
	    al_log(h, NULL, null) != 0) {
		if (null != NULL)
			fclose(null);
		snprintf(err, errlen, "%s: the archive does not audit: the log "
		    "is left as it was (refctl audit --db %s --all)", file, db);
		goto out;
	}
	fclose(null);
	if (sqlite3_close(h) != SQLITE_OK) {
		h = NULL;
		snprintf(err, errlen, "%s: cannot close it", tmp);
		goto out;
	}
	h = NULL;
	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) == -1 || fsync(fd) == -1 ||
	    link(tmp, file) == -1) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		if (fd != -1)
			close(fd);
		goto out;
	}
	close(fd);
	if (backup_syncdir(file) == -1) {
		snprintf(err, errlen, "%s: its directory cannot be synced: %s",
		    file, strerror(errno));
		unlink(file);
		goto out;
	}
	rc = 0;
	goto out;
fail:
	snprintf(err, errlen, "%s: %s", tmp, why);
out:
	sqlite3_close(h);
	unlink(tmp);
	return rc;
}

/*
 * The log goes on from the archive's head: its origin set, its events
 * up to the cut gone, in one short transaction.  0, or -1 with err.
 */
static int
arch_origin(sqlite3 *h, const struct arch_cut *c, const char *file,
    char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	struct tm	 tm;
	time_t		 now = time(NULL);
	char		 at[32];
	int		 rc;

	gmtime_r(&now, &tm);
	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
	if (arch_exec(h, "BEGIN IMMEDIATE", 0, err, errlen) == -1)
		return -1;
	if (arch_exec(h, "DELETE FROM log_origin", 0, err, errlen) == -1 ||
	    sqlite3_prepare_v2(h, "INSERT INTO log_origin (no, link, sig, key,"
	    " last_match, last_tournament, archive, archived) VALUES"
	    " (?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(st, 1, c->no);
	sqlite3_bind_text(st, 2, c->link, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, c->sig, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, c->key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, c->last_match);
	sqlite3_bind_int64(st, 6, c->last_tournament);
	sqlite3_bind_text(st, 7, file, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, at, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE ||
	    arch_exec(h, "DELETE FROM log_chain WHERE no <= ?1", c->no, err,
	    errlen) == -1 ||
	    arch_exec(h, "COMMIT", 0, err, errlen) == -1)
		goto fail;
	return 0;
fail:
	if (*err == '\0')
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
	sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/*
 * Remove from the log the matches up to last_match and the tournaments
 * up to last_tournament, which its archive holds: a match per short
 * transaction, so that refd's writes never wait long.  The count of
 * matches removed in *n; 0, or -1 with the reason in err.
 */
static int
arch_purge(sqlite3 *h, long long last_match, long long last_tournament,
    long long *n, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	char		 sql[128];
	long long	 id;
	size_t		 i;

	*n = 0;
	for (;;) {
		if (sqlite3_prepare_v2(h, "SELECT min(id) FROM matches WHERE"
		    " id <= ?1", -1, &st, NULL) != SQLITE_OK) {
			snprintf(err, errlen, "%s", sqlite3_errmsg(h));
			return -1;
		}
		sqlite3_bind_int64(st, 1, last_match);
		id = sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_type(st, 0) == SQLITE_INTEGER ?
		    sqlite3_column_int64(st, 0) : 0;
		sqlite3_finalize(st);
		if (id <= 0)
			break;
		if (arch_exec(h, "BEGIN IMMEDIATE", 0, err, errlen) == -1)
			return -1;
		for (i = 0; i < NTABLES; i++) {
			snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE "
			    "match_id = ?1", arch_tables[i]);
			if (arch_exec(h, sql, id, err, errlen) == -1)
				goto fail;
		}
		if (arch_exec(h, "DELETE FROM matches WHERE id = ?1", id, err,
		    errlen) == -1 ||
		    arch_exec(h, "COMMIT", 0, err, errlen) == -1)
			goto fail;
		(*n)++;
	}
	return arch_exec(h, "DELETE FROM tournaments WHERE id <= ?1",
	    last_tournament, err, errlen);
fail:
	sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* refctl archive DB --before DATE FILE */
int
cmd_archive(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "before", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 }
	};
	struct al_origin o;
	struct arch_cut	 c;
	struct db	*d;
	sqlite3		*h = NULL;
	const char	*before = NULL, *db, *file;
	char		 err[PATH_MAX + 512];
	long long	 n;
	int		 ch, rc;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "b:", opts, NULL)) != -1) {
		if (ch != 'b')
			goto usage;
		before = optarg;
	}
	if (before == NULL || argc - optind != 2)
		goto usage;
	db = argv[optind];
	file = argv[optind + 1];
	if (!arch_date_ok(before)) {
		fprintf(stderr, "refctl archive: --before %s: a date such as "
		    "2026-11-21 or 2026-11-21T10:04:05Z is needed\n", before);
		return 2;
	}
	if (access(file, F_OK) == 0) {
		fprintf(stderr, "refctl archive: %s exists already: an archive "
		    "never replaces a file\n", file);
		return 2;
	}
	/* a refd log, of the version this refctl writes */
	if ((d = db_open(db, 1, err, sizeof(err))) == NULL) {
		fprintf(stderr, "refctl archive: %s\n", err);
		return 2;
	}
	db_close(d);
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		fprintf(stderr, "refctl archive: %s: %s\n", db, h ?
		    sqlite3_errmsg(h) : "out of memory");
		sqlite3_close(h);
		return 2;
	}
	sqlite3_busy_timeout(h, 10000);
	err[0] = '\0';
	if ((rc = al_origin(h, &o)) == -1) {
		snprintf(err, sizeof(err), "its origin (log_origin) is "
		    "malformed");
		goto fail;
	}
	/* a move cut short: its archive is whole, the rest goes now */
	if (rc == 1) {
		if (arch_purge(h, o.last_match, o.last_tournament, &n, err,
		    sizeof(err)) == -1)
			goto fail;
		if (n > 0)
			printf("%s: the %lld matches left of the last archive "
			    "move removed\n", db, n);
	}
	if (arch_cut_find(h, &o, before, &c, err, sizeof(err)) == -1)
		goto fail;
	if (c.no == 0) {
		printf("%s: nothing to archive before %s: no signed event "
		    "before which every match and tournament has ended\n", db,
		    before);
		sqlite3_close(h);
		return 0;
	}
	if (arch_make(db, file, &c, err, sizeof(err)) == -1)
		goto fail;
	if (arch_origin(h, &c, file, err, sizeof(err)) == -1) {
		unlink(file);
		goto fail;
	}
	if (arch_purge(h, c.last_match, c.last_tournament, &n, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "refctl archive: %s: %s; run it again to "
		    "finish the move\n", db, err);
		sqlite3_close(h);
		return 2;
	}
	sqlite3_close(h);
	printf("%s: %lld match%s and %lld tournament%s archived, log chain "
	    "to link %lld, signed\n", file, c.nmatches, c.nmatches == 1 ? "" :
	    "es", c.ntourneys, c.ntourneys == 1 ? "" : "s", c.no);
	printf("%s: goes on from link %lld; audit both with refctl audit "
	    "--db %s --archive %s\n", db, c.no, db, file);
	return 0;
fail:
	fprintf(stderr, "refctl archive: %s: %s\n", db, err[0] != '\0' ? err :
	    sqlite3_errmsg(h));
	sqlite3_close(h);
	return 2;
usage:
	fprintf(stderr, "usage: refctl archive DB --before DATE FILE\n");
	return 2;
}
