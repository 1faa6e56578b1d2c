/*
 * db.c: refd's SQLite log: the schema and its migrations, one prepared
 * statement per write, the hash chain of every match, and when a write
 * must reach the disk.  The tables and the chain's texts are described
 * in refd-log(5).
 */
#include <sys/time.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>
#include <sqlite3.h>

#include "chain.h"
#include "db.h"
#include "util.h"

/* db_migrations[]: schema/N.sql, embedded at build time, is [N - 1]. */
#include "refd/schema.inc"

#ifndef nitems
#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define DB_SCHEMA	((int)nitems(db_migrations)) /* newest version */
#define DB_BUSY_MS	200		/* wait no longer for a lock */
#define DB_TEXTMAX	1024		/* bytes kept of free text */
#define DB_LISTMAX	64		/* points or mpoints, joined */
#define DB_CKPT_LOOP	4		/* that many cycles: in the loop */
#define DB_WAL_LIMIT	"16777216"	/* bytes kept of it after one */
#define GROUPED(db)	((db)->group_hook != NULL && !(db)->solo)
#define DB_END_JOIN	8	/* matches in a group: an end joins it */
#define DB_SYNC_UNCOMMITTED UINT64_MAX /* an end not yet committed */

enum db_stmt {
	S_BEGIN,
	S_COMMIT,
	S_ROLLBACK,
	S_SAVEPOINT,
	S_RELEASE,
	S_ROLLBACK_TO,
	S_ABORT_RUNNING,
	S_RUNNING,
	S_LAST_LINK,
	S_HEAD,
	S_LOG_INSERT,
	S_KEY_LAST,
	S_MATCH_INSERT,
	S_MATCH_CHAIN0,
	S_SEAT_INSERT,
	S_SEAT_GET,
	S_SEAT_VERSION,
	S_DEAL,
	S_PLAY,
	S_TRICK,
	S_JOKER,
	S_CALL,
	S_DEAL_CALLED,
	S_FAULT,
	S_ANSWER,
	S_DEAL_END,
	S_MATCH_END,
	S_BOT_EVENT,
	S_TOURNEY_INSERT,
	S_TOURNEY_NEXT,
	S_TOURNEY_END,
	S_COUNT
};

/*
 * Every statement refd runs more than once.  In a chained write the last
 * two parameters are always chain_no and chain (see db_chained()).
 */
static const char *const db_sql[S_COUNT] = {
	[S_BEGIN] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_SAVEPOINT] = "SAVEPOINT refd",
	[S_RELEASE] = "RELEASE refd",
	[S_ROLLBACK_TO] = "ROLLBACK TO refd",
	[S_ABORT_RUNNING] =
	    "UPDATE matches SET state = 'aborted', result = 'aborted',"
	    " reason = ?3, ended = ?2"
	    " WHERE id = ?1 AND state = 'running'",
	[S_RUNNING] =
	    "SELECT id FROM matches WHERE state = 'running' ORDER BY id",
	/* a match's last link so far: its number and its hex */
	[S_LAST_LINK] = DB_LAST_LINK_SQL,
	/* the newest event, or the archive's head the chain goes on from */
	[S_HEAD] =
	    "SELECT no, link FROM (SELECT no, link FROM log_chain"
	    " ORDER BY no DESC LIMIT 1)"
	    " UNION ALL SELECT no, link FROM log_origin"
	    " ORDER BY 1 DESC LIMIT 1",
	[S_LOG_INSERT] =
	    "INSERT INTO log_chain (no, kind, match_id, tournament, text,"
	    " link, sig) VALUES (?, ?, ?, ?, ?, ?, ?)",
	/* the newest key event, or the key of the archive's head */
	[S_KEY_LAST] =
	    "SELECT text FROM (SELECT no, text FROM (SELECT no, text"
	    " FROM log_chain WHERE kind = 'key' ORDER BY no DESC LIMIT 1)"
	    " UNION ALL SELECT no, 'key ' || key FROM log_origin"
	    " ORDER BY 1 DESC LIMIT 1)",
	[S_MATCH_INSERT] =
	    "INSERT INTO matches (variant, options, seed, commitment, rng,"
	    " move_ms, bank_ms, startup_ms, policy, max_faults, tournament,"
	    " slot, started, chain_version, prev)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 2, ?)",
	[S_MATCH_CHAIN0] =
	    "UPDATE matches SET chain0 = ?2 WHERE id = ?1",
	[S_SEAT_INSERT] =
	    "INSERT INTO seats (match_id, seat, bot, version, kind, identity)"
	    " VALUES (?, ?, ?, ?, ?, ?)",
	[S_SEAT_GET] =
	    "SELECT bot, kind, identity FROM seats"
	    " WHERE match_id = ?1 AND seat = ?2",
	[S_SEAT_VERSION] =
	    "UPDATE seats SET name = ?3, version = ?4, identity = ?5,"
	    " chain_no = ?6, chain = ?7 WHERE match_id = ?1 AND seat = ?2",
	[S_DEAL] =
	    "INSERT INTO deals (match_id, deal_no, dealer, deck, removed,"
	    " trump, chain_no, chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	[S_PLAY] =
	    "INSERT INTO plays (match_id, deal_no, seq, trick, seat, card, ms,"
	    " fault, at, limit_ms, answer, chain_no, chain)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[S_TRICK] =
	    "INSERT INTO tricks (match_id, deal_no, trick, winner, points,"
	    " chain_no, chain) VALUES (?, ?, ?, ?, ?, ?, ?)",
	[S_JOKER] =
	    "INSERT INTO jokers (match_id, deal_no, seat, chain_no, chain)"
	    " VALUES (?, ?, ?, ?, ?)",
	[S_CALL] =
	    "INSERT INTO calls (match_id, deal_no, seq, kind, seat, call,"
	    " partner, ms, fault, at, limit_ms, answer, chain_no, chain)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	/* not chained: a copy of the call row's, for queries */
	[S_DEAL_CALLED] =
	    "UPDATE deals SET called = ?3, caller = ?4, partner = ?5"
	    " WHERE match_id = ?1 AND deal_no = ?2",
	[S_FAULT] =
	    "INSERT INTO faults (match_id, deal_no, seat, kind, evidence, ms,"
	    " action, at, limit_ms, chain_no, chain)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[S_ANSWER] =
	    "INSERT INTO answers (match_id, deal_no, seat, line, kind, answer,"
	    " ms, at, chain_no, chain)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[S_DEAL_END] =
	    "INSERT INTO deal_results (match_id, deal_no, result, winner,"
	    " points, mpoints, chain_no, chain)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	[S_MATCH_END] =
	    "UPDATE matches SET state = ?2, result = ?3, mpoints = ?4,"
	    " reason = ?5, ended = ?6, end_no = ?7, final_chain = ?8"
	    " WHERE id = ?1 AND state = 'running'",
	[S_BOT_EVENT] =
	    "INSERT INTO bot_events (match_id, seat, bot, kind, detail)"
	    " VALUES (?, ?, ?, ?, ?)",
	[S_TOURNEY_INSERT] =
	    "INSERT INTO tournaments (id, name, definition, seed, total)"
	    " VALUES (?, ?, ?, ?, ?)",
	[S_TOURNEY_NEXT] =
	    "SELECT coalesce(max(seq), 0) + 1 FROM (SELECT seq FROM"
	    " sqlite_sequence WHERE name = 'tournaments' UNION ALL"
	    " SELECT max(id) FROM tournaments)",
	[S_TOURNEY_END] =
	    "UPDATE tournaments SET state = ?2, reason = ?3,"
	    " ended = CASE WHEN ?2 = 'running' THEN NULL"
	    " ELSE strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END WHERE id = ?1",
};

struct db {
	sqlite3		*h;		/* the connection */
	sqlite3_stmt	*st[S_COUNT];	/* prepared once, by db_open() */
	int		 readonly;	/* opened for reading only */
	char		 err[256];	/* why the last call failed */
	char		 path[4096];	/* the log file, "" for none */
	dev_t		 dev;		/* and which file it was at open */
	ino_t		 ino;
	int		 tx_open;	/* db_begin() opened a transaction */
	struct db_match	*tx_m;		/* the match writing in it */
	uint8_t		 tx_chain[DB_HASHLEN]; /* that match's chain before */
	int		 tx_links;	/* and its links before */
	int		 tx_mpoints[BRI_MAXSEATS]; /* and its match points */
	void		(*group_hook)(void); /* group mode: a group opened */
	void		(*group_lost)(struct db_match *); /* its rows lost */
	int		 group_open;	/* the group's BEGIN is done */
	int64_t		 group_us;	/* when the group opened */
	int64_t		 group_window;	/* how long it may stay open */
	int		 group_gone;	/* SQLite rolled it back already */
	long long	 commits;	/* groups committed so far */
	int		 solo;		/* a write outside the group runs */
	unsigned	 group_gen;	/* which group is open */
	struct db_gsave	*saves;		/* chains of the matches in it */
	int		 nsaves, savecap;
	uint64_t	(*sync_ask)(void *, struct db_match *);
	void		*sync_arg;	/* sync_ask syncs a match's end */
	uint64_t	 sync_asked;	/* the last request's number */
	int		 group_ends;	/* match ends in the open group */
	long long	 ends_joined;	/* ends that joined a group so far */
	uint64_t	 sync_done;	/* every request up to it is synced */
	int		 ckpt_pages;	/* WAL pages between checkpoints */
	void		(*ckpt_ask)(void *); /* checkpoints asked of it */
	void		*ckpt_arg;
	int		 ckpt_asked;	/* one is under way there */
	int		 ckpt_tail;	/* it ended: the loop copies the rest */
	long long	 ckpts_thread;	/* made there so far */
	long long	 ckpts_loop;	/* whole ones made in the loop */
	char		 broken[256];	/* why nothing may be written, or "" */
	int		 have_key;	/* heads are signed with sk */
	uint8_t		 sk[crypto_sign_SECRETKEYBYTES];
	uint8_t		 pk[crypto_sign_PUBLICKEYBYTES];
	uint8_t		 last_link[DB_HASHLEN]; /* of the last db_log() */
	long long	 last_no;	/* and its number */
	char		 last_sig[2 * crypto_sign_BYTES + 1]; /* or "" */
};

/* A match's chain as it was when the open group first wrote for it. */
struct db_gsave {
	struct db_match	*m;
	uint8_t		 chain[DB_HASHLEN];
	int		 links;
	int		 mpoints[BRI_MAXSEATS];
};

static int	 db_failx(struct db *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));
static int	 db_fail(struct db *, const char *);
static int	 db_bindv(struct db *, sqlite3_stmt *, int, const char *,
		    va_list);
static int	 db_step(struct db *, sqlite3_stmt *, const char *);
static int	 db_run(struct db *, enum db_stmt, const char *,
		    const char *, ...);
static int	 db_chained(struct db *, struct db_match *, enum db_stmt,
		    const struct chain_text *, const char *, ...);
static int	 db_commit_step(struct db *, const char *, int);
static int	 db_group_enter(struct db *, struct db_match *);
static int	 db_group_barrier(struct db *);
static int	 db_sync_log(struct db *);
static int	 db_intact(struct db *);
static int	 db_pragma_int(struct db *, const char *, int *);
static int	 db_migrate(struct db *);
static int	 db_first(struct db *, enum db_stmt, const char *,
		    const char *, ...);
static void	 db_now(char *, size_t);
static int	 db_last_link(struct db *, int64_t, long long *, char *);
static int	 db_log(struct db *, const char *, int64_t, int64_t, int,
		    const char *, ...)
		    __attribute__((__format__(__printf__, 6, 7)));
static int	 db_legacy(struct db *);
static int	 db_legacy_tourneys(struct db *);
static int	 db_tbegin_text(char *, size_t, long long, const char *,
		    const char *, size_t, const char *, int);
static int	 db_tourney_event(struct db *, enum db_stmt, const char *,
		    int64_t, int, const char *, int64_t *, const char *, ...);
static int	 db_prepare(struct db *);
static const char *ints_join(char *, size_t, const int *, int);
static int	 is_token(const char *);
static int	 is_printable(const char *);
static int	 is_phrase(const char *);
static int	 is_hex64(const char *);
static size_t	 text_cap(const char *);

/* Record why a call failed, in the caller's words. */
static int
db_failx(struct db *db, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(db->err, sizeof(db->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Record why a call failed: what refd was doing, then SQLite's reason. */
static int
db_fail(struct db *db, const char *what)
{
	return db_failx(db, "%s: %s", what, sqlite3_errmsg(db->h));
}

/* n integers joined by commas, the form of points and mpoints. */
static const char *
ints_join(char *buf, size_t len, const int *v, int n)
{
	size_t	 at = 0;
	int	 i;

	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, i ? ",%d" : "%d",
		    v[i]);
	return buf;
}

/* Is s a word a canonical text can hold: non-empty, printable, no space? */
static int
is_token(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s == 0x7f)
			return 0;
	return 1;
}

/* Is s free of control characters, so a canonical text stays one line? */
static int
is_printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < ' ' || (unsigned char)*s == 0x7f)
			return 0;
	return 1;
}

/*
 * Is s refd's own short text that may hold spaces, such as the action
 * "fallback 3S": non-empty, printable, and without '=', so a canonical
 * text's next "key=" still marks where it ends.
 */
static int
is_phrase(const char *s)
{
	return s != NULL && *s != '\0' && is_printable(s) &&
	    strchr(s, '=') == NULL;
}

/* Is s 64 lowercase hex digits, the form of seeds and hashes? */
static int
is_hex64(const char *s)
{
	int	 i;

	if (s == NULL)
		return 0;
	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[64] == '\0';
}

/*
 * Length to keep of free text so that it fits DB_TEXTMAX bytes without
 * cutting a UTF-8 sequence in two; bots' bytes are otherwise kept as is.
 */
static size_t
text_cap(const char *s)
{
	size_t	 n = strlen(s);

	if (n <= DB_TEXTMAX)
		return n;
	n = DB_TEXTMAX;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

/*
 * Bind parameters from index first on, one per letter of fmt: 'i' an
 * int, 'I' an int64_t, 'j' an int and 'J' an int64_t that bind NULL
 * when below 0 and 1, 's' a string (NULL binds NULL), 'S' a size_t
 * length then a string of that length.  Returns the next free index, or
 * -1.
 */
static int
db_bindv(struct db *db, sqlite3_stmt *st, int first, const char *fmt,
    va_list ap)
{
	const char	*s;
	size_t		 len;
	int64_t		 v64;
	int		 i = first, rc = SQLITE_OK, v;

	for (; *fmt != '\0' && rc == SQLITE_OK; fmt++, i++) {
		switch (*fmt) {
		case 'i':
			rc = sqlite3_bind_int(st, i, va_arg(ap, int));
			break;
		case 'I':
			rc = sqlite3_bind_int64(st, i,
			    (sqlite3_int64)va_arg(ap, int64_t));
			break;
		case 's':
			s = va_arg(ap, const char *);
			rc = s == NULL ? sqlite3_bind_null(st, i) :
			    sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
			break;
		case 'S':
			len = va_arg(ap, size_t);
			s = va_arg(ap, const char *);
			rc = sqlite3_bind_text(st, i, s, (int)len,
			    SQLITE_STATIC);
			break;
		case 'j':
			v = va_arg(ap, int);
			rc = v < 0 ? sqlite3_bind_null(st, i) :
			    sqlite3_bind_int(st, i, v);
			break;
		case 'J':
			v64 = va_arg(ap, int64_t);
			rc = v64 < 1 ? sqlite3_bind_null(st, i) :
			    sqlite3_bind_int64(st, i, (sqlite3_int64)v64);
			break;
		default:
			abort();	/* a bad format is refd's bug */
		}
	}
	if (rc != SQLITE_OK)
		return db_fail(db, "bind");
	return i;
}

/* Step a statement to its end and reset it, so each call stands alone. */
static int
db_step(struct db *db, sqlite3_stmt *st, const char *what)
{
	int	 rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		db_fail(db, what);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Bind fmt's values to a prepared statement and run it once. */
static int
db_run(struct db *db, enum db_stmt s, const char *what, const char *fmt,
    ...)
{
	va_list	 ap;
	int	 n;

	if (db_group_enter(db, NULL) == -1)
		return -1;
	va_start(ap, fmt);
	n = db_bindv(db, db->st[s], 1, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sqlite3_clear_bindings(db->st[s]);
		return -1;
	}
	return db_step(db, db->st[s], what);
}

/*
 * Bind fmt's values to a query and step it once: 1 with its first row
 * (the caller reads it, then sqlite3_reset()s the statement), 0 when
 * there is none, -1 on an error.
 */
static int
db_first(struct db *db, enum db_stmt s, const char *what, const char *fmt,
    ...)
{
	sqlite3_stmt	*st = db->st[s];
	va_list		 ap;
	int		 n, rc;

	va_start(ap, fmt);
	n = db_bindv(db, st, 1, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sqlite3_clear_bindings(st);
		return -1;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE)
		db_fail(db, what);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Now, as the log writes times: UTC, ISO 8601, milliseconds.  Every play
 * is stamped, so the second's text is made once a second, not per row.
 */
static void
db_now(char *buf, size_t len)
{
	static time_t	 sec = -1;
	static char	 s[24];
	struct timeval	 tv;
	struct tm	 tm;
	unsigned	 ms;

	gettimeofday(&tv, NULL);
	if (tv.tv_sec != sec) {
		gmtime_r(&tv.tv_sec, &tm);
		if (strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
			s[0] = '\0';
		sec = tv.tv_sec;
	}
	ms = (unsigned)(tv.tv_usec / 1000) % 1000;
	util_format(buf, len, "%s.%c%c%cZ", s, '0' + ms / 100,
	    '0' + ms / 10 % 10, '0' + ms % 10);
}

/*
 * The last link match id has so far: its number into *no (0 for link 0)
 * and its hex into hex (DB_HASHLEN * 2 + 1 bytes; "-" if it is no
 * link).  0, or -1.
 */
static int
db_last_link(struct db *db, int64_t id, long long *no, char *hex)
{
	sqlite3_stmt	*st = db->st[S_LAST_LINK];
	const char	*h;
	int		 rc;

	if ((rc = db_first(db, S_LAST_LINK, "last link", "I", id)) != 1)
		return rc == 0 ? db_failx(db, "match %lld has no chain",
		    (long long)id) : -1;
	*no = sqlite3_column_int64(st, 0);
	h = (const char *)sqlite3_column_text(st, 1);
	/* "-": a link that is not one, for the audit to report */
	if (h != NULL && is_hex64(h))
		memcpy(hex, h, 2 * DB_HASHLEN + 1);
	else
		snprintf(hex, 2 * DB_HASHLEN + 1, "-");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return 0;
}

/*
 * Append an event to the log chain, inside the caller's transaction: its
 * text from fmt, its link over the head before it, and when sign is set
 * and refd holds a key, the Ed25519 signature of that link.  The link
 * and signature are kept in db->last_link and db->last_sig.
 */
static int
db_log(struct db *db, const char *kind, int64_t match_id, int64_t tourney,
    int sign, const char *fmt, ...)
{
	sqlite3_stmt		*st = db->st[S_HEAD];
	struct chain_text	 t;
	va_list			 ap;
	uint8_t			 prev[DB_HASHLEN], sig[crypto_sign_BYTES];
	char			 hex[2 * DB_HASHLEN + 1];
	const char		*h;
	long long		 no = 0;
	int			 n, rc, have = 0;

	if ((rc = db_first(db, S_HEAD, "log head", "")) == -1)
		return -1;
	if (rc == 1) {
		no = sqlite3_column_int64(st, 0);
		h = (const char *)sqlite3_column_text(st, 1);
		have = h != NULL && is_hex64(h) &&
		    sodium_hex2bin(prev, sizeof(prev), h, 2 * DB_HASHLEN,
		    NULL, NULL, NULL) == 0;
		sqlite3_reset(st);
		if (!have)
			return db_failx(db, "the log chain's head is damaged");
	}
	chain_text_init(&t);
	va_start(ap, fmt);
	n = vsnprintf(t.buf, sizeof(t.buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(t.buf))
		return db_failx(db, "log event too long");
	t.len = (size_t)n;
	chain_log_link(have ? prev : NULL, &t, db->last_link);
	db->last_no = no + 1;
	sodium_bin2hex(hex, sizeof(hex), db->last_link, DB_HASHLEN);
	db->last_sig[0] = '\0';
	if (sign && db->have_key) {
		crypto_sign_detached(sig, NULL, db->last_link, DB_HASHLEN,
		    db->sk);
		sodium_bin2hex(db->last_sig, sizeof(db->last_sig), sig,
		    sizeof(sig));
	}
	return db_run(db, S_LOG_INSERT, "log chain", "IsJJsss",
	    (int64_t)(no + 1), kind, match_id, tourney, t.buf, hex,
	    db->last_sig[0] != '\0' ? db->last_sig : NULL);
}

/*
 * The tournaments of a log written before schema 3 enter the log chain
 * as they are: their "tbegin", then their state unless still running.
 */
static int
db_legacy_tourneys(struct db *db)
{
	sqlite3_stmt	*st;
	const char	*name, *def, *seed, *state, *reason;
	char		 text[DB_TEXTMAX + 128];
	long long	 id;
	int		 rc, n;

	if (sqlite3_prepare_v2(db->h, "SELECT id, name, definition, seed,"
	    " total, state, reason FROM tournaments ORDER BY id", -1, &st,
	    NULL) != SQLITE_OK)
		return db_fail(db, "legacy tournaments");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		name = (const char *)sqlite3_column_text(st, 1);
		def = (const char *)sqlite3_column_text(st, 2);
		seed = (const char *)sqlite3_column_text(st, 3);
		state = (const char *)sqlite3_column_text(st, 5);
		reason = (const char *)sqlite3_column_text(st, 6);
		if (db_tbegin_text(text, sizeof(text), id, name ? name : "-",
		    def ? def : "", def ? (size_t)sqlite3_column_bytes(st, 2) :
		    0, seed, sqlite3_column_int(st, 4)) == -1)
			snprintf(text, sizeof(text), "tbegin %lld", id);
		if (db_log(db, "tbegin", 0, id, 0, "%s", text) == -1)
			break;
		if (state == NULL || strcmp(state, "running") == 0)
			continue;
		n = reason != NULL ? (int)text_cap(reason) : 0;
		if (db_log(db, "tstate", 0, id, 1, "tstate %lld state=%s "
		    "reason=%d:%.*s", id, state, n, n, reason ? reason : "") ==
		    -1)
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * A log written before schema 3 has no log chain: each of its matches
 * enters it as a "legacy" event, its last link and their number, so that
 * what they were when this refd first opened the log is chained too.
 */
static int
db_legacy(struct db *db)
{
	sqlite3_stmt	*st;
	char		 hex[2 * DB_HASHLEN + 1];
	long long	 no;
	int64_t		 id;
	int		 rc, n = 0;

	if (db_first(db, S_HEAD, "log head", "") != 0) {
		sqlite3_reset(db->st[S_HEAD]);
		return 0;	/* it has one, or cannot tell: leave it */
	}
	if (sqlite3_prepare_v2(db->h, "SELECT id FROM matches ORDER BY id",
	    -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "legacy matches");
	if (db_step(db, db->st[S_BEGIN], "legacy") == -1) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		if (db_last_link(db, id, &no, hex) == -1 ||
		    db_log(db, "legacy", id, 0, 0, "legacy %lld links=%lld "
		    "last=%s", (long long)id, no, hex) == -1)
			break;
		n++;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE && db_legacy_tourneys(db) == -1)
		rc = SQLITE_ROW;
	if (rc != SQLITE_DONE || db_step(db, db->st[S_COMMIT], "legacy") ==
	    -1) {
		if (rc != SQLITE_DONE && rc != SQLITE_ROW)
			db_fail(db, "legacy matches");
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/*
 * Write one chained row: the row's values from fmt, then its link number
 * and the link over text.  Only a written row moves m's chain on, so a
 * failed write leaves the chain as the table has it (db_rollback() moves
 * it back over rows a rolled-back transaction held).
 */
static int
db_chained(struct db *db, struct db_match *m, enum db_stmt s,
    const struct chain_text *text, const char *fmt, ...)
{
	sqlite3_stmt	*st = db->st[s];
	uint8_t		 link[DB_HASHLEN];
	char		 hex[2 * DB_HASHLEN + 1], what[256];
	va_list		 ap;
	int		 n;

	if (m == NULL || m->id <= 0)
		return db_failx(db, "%.32s: match not begun", text->buf);
	if (text->overflow)
		return db_failx(db, "match %lld: event text too long",
		    (long long)m->id);
	if (db_group_enter(db, m) == -1)
		return -1;
	chain_link(m->chain, text, link);
	/* a link is public: no need of sodium's constant-time hex, which
	   took a thousand instructions a row */
	util_hex(link, sizeof(link), hex);
	va_start(ap, fmt);
	n = db_bindv(db, st, 1, fmt, ap);
	va_end(ap);
	if (n < 0 || sqlite3_bind_int(st, n, m->links + 1) != SQLITE_OK ||
	    sqlite3_bind_text(st, n + 1, hex, -1, SQLITE_STATIC) !=
	    SQLITE_OK) {
		if (n >= 0)
			db_fail(db, "bind");
		sqlite3_clear_bindings(st);
		return -1;
	}
	if (db_step(db, st, "") == -1) {
		/* SQLite may have rolled back the whole group (a full disk):
		   db_rollback() notes it inside db_begin(), this alone */
		if (GROUPED(db) && db->group_open && !db->tx_open &&
		    sqlite3_get_autocommit(db->h) != 0)
			db->group_gone = 1;
		/* the row's name only now: a write that works needs none */
		snprintf(what, sizeof(what), "%s", db->err);
		return db_failx(db, "match %lld: %.32s%s", (long long)m->id,
		    text->buf, what);
	}
	memcpy(m->chain, link, DB_HASHLEN);
	m->links++;
	return 0;
}

/*
 * A row of deal deal_no of m needs that deal's row first.  SQLite's
 * foreign keys say the same, but refd's own connection turns them off
 * (db_own_keys()): the lookup cost a few thousand instructions a row.
 */
static int
db_in_deal(struct db *db, const struct db_match *m, int deal_no)
{
	if (deal_no < 1 || deal_no > m->deals)
		return db_failx(db, "match %lld: deal %d is not logged",
		    (long long)m->id, deal_no);
	return 0;
}

/*
 * A number of a row within the bounds the schema's CHECK gives it.  refd's
 * own connection has SQLite skip the CHECKs (db_own_keys()): evaluating
 * them took some 3,000 instructions a play, so the rows written at every
 * move check their numbers here, and refctl audit runs the CHECKs over
 * the whole log.
 */
static int
db_range(struct db *db, const char *row, const char *name, long long v,
    long long lo, long long hi)
{
	if (v < lo || v > hi)
		return db_failx(db, "%s: %s %lld out of range", row, name, v);
	return 0;
}

/* CLOCK_MONOTONIC in microseconds, the clock of the event loop's callers. */
static int64_t
db_mono_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * Group mode: open the group's transaction at its first write, and tell
 * the daemon (the hook), which commits it once its loop pass is over.
 * m, when given, is a match about to chain a row: its chain is kept so
 * that a lost group can put it back.  Nothing to do outside group mode.
 */
static int
db_group_enter(struct db *db, struct db_match *m)
{
	struct db_gsave	*ns;
	int		 cap;

	if (!GROUPED(db))
		return 0;
	if (!db->group_open) {
		if (db_step(db, db->st[S_BEGIN], "group begin") == -1)
			return -1;
		db->group_open = 1;
		db->group_us = db_mono_us();
		db->group_gen++;
		db->group_hook();
	}
	if (m == NULL || m->group == db->group_gen)
		return 0;
	if (db->nsaves == db->savecap) {
		cap = db->savecap ? 2 * db->savecap : 16;
		if ((ns = realloc(db->saves, (size_t)cap * sizeof(*ns))) ==
		    NULL)
			return db_failx(db, "group: out of memory");
		db->saves = ns;
		db->savecap = cap;
	}
	db->saves[db->nsaves].m = m;
	memcpy(db->saves[db->nsaves].chain, m->chain, DB_HASHLEN);
	memcpy(db->saves[db->nsaves].mpoints, m->mpoints, sizeof(m->mpoints));
	db->saves[db->nsaves++].links = m->links;
	m->group = db->group_gen;
	return 0;
}

/*
 * fsync the write-ahead log, as synchronous=FULL would have at the
 * commit just made: every row committed so far survives a power loss.
 */
static int
db_sync_log(struct db *db)
{
	sqlite3_file	*f = NULL;

	if (sqlite3_file_control(db->h, "main", SQLITE_FCNTL_JOURNAL_POINTER,
	    &f) != SQLITE_OK || f == NULL || f->pMethods == NULL)
		return 0;	/* no log file: ":memory:" */
	if (f->pMethods->xSync(f, SQLITE_SYNC_NORMAL) != SQLITE_OK)
		return db_failx(db, "sync: the log could not be synced");
	db->sync_done = db->sync_asked;
	return 0;
}

/*
 * Put refd's log in group mode: the writes of one or more loop passes go
 * into one transaction, which the daemon commits (db_group_commit())
 * when its window is over (db_group_due()), never synced on its own.
 * hook is called when a group opens; lost(m), for each match that wrote
 * in a group that could not be committed, after its chain is back as
 * the table has it.  The start of a match, and tournaments, are not
 * grouped: they commit what is open, then themselves, as outside group
 * mode; so is a match's end, unless it joins a busy group
 * (db_end_joins()).
 */
void
db_group_mode(struct db *db, void (*hook)(void),
    void (*lost)(struct db_match *))
{
	db->group_hook = hook;
	db->group_lost = lost;
}

/*
 * After each commit, with pages the write-ahead log now holds.  A
 * checkpoint copies them into the database, once however many times
 * the log has each, and lets the log start again from its beginning.
 * At SQLite's default, every 1,000 pages, sixty-four matches' pages were
 * copied over and over, at a sixth of the plays a second: every
 * ckpt_pages instead (PERFORMANCE.md).  Made here, it holds up the loop
 * for tens of milliseconds at 1,000 matches: with ckpt_ask, a thread
 * makes it (ckpt.c) and the loop copies only what the thread left, once
 * done, or everything if the log reaches DB_CKPT_LOOP cycles meanwhile.
 * Errors are SQLite's to report again: the log holds every page until a
 * checkpoint succeeds.
 */
static int
db_wal_hook(void *arg, sqlite3 *h, const char *name, int pages)
{
	struct db	*db = arg;

	if (db->ckpt_pages <= 0)
		return SQLITE_OK;
	if (db->ckpt_tail || pages >= DB_CKPT_LOOP * db->ckpt_pages ||
	    (db->ckpt_ask == NULL && pages >= db->ckpt_pages)) {
		if (!db->ckpt_tail)
			db->ckpts_loop++;
		db->ckpt_tail = 0;
		(void)sqlite3_wal_checkpoint_v2(h, name,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	} else if (db->ckpt_ask != NULL && !db->ckpt_asked &&
	    pages >= db->ckpt_pages) {
		db->ckpt_asked = 1;
		db->ckpt_ask(db->ckpt_arg);
	}
	return SQLITE_OK;
}

/* Checkpoint every pages of write-ahead log; 0: never. */
void
db_ckpt_pages(struct db *db, int pages)
{
	db->ckpt_pages = pages;
}

/*
 * Have ask(arg) make the checkpoints, on another connection, instead of
 * making them here; NULL makes them here again.
 */
void
db_ckpt_async(struct db *db, void (*ask)(void *), void *arg)
{
	db->ckpt_ask = ask;
	db->ckpt_arg = arg;
	db->ckpt_asked = 0;
}

/*
 * The checkpoint asked of ckpt_ask has ended: after the next commit the
 * loop copies what it left, and another may be asked for.
 */
void
db_ckpt_done(struct db *db)
{
	db->ckpt_asked = 0;
	db->ckpt_tail = 1;
	db->ckpts_thread++;
}

/* Checkpoints made so far by ckpt_ask's thread, and whole in the loop. */
void
db_ckpt_counts(struct db *db, long long *thread, long long *loop)
{
	*thread = db->ckpts_thread;
	*loop = db->ckpts_loop;
}

/*
 * Have ask(arg, m) sync the log after m's end is committed
 * (db_match_end_async()), or ask(arg, NULL) after a group holding ends
 * is, instead of syncing it here; NULL syncs here again.  ask returns
 * the number of its request, and its owner says when it is done
 * (db_sync_heard()); or 0, and the log is synced here.  Ends join a
 * group only with an ask: its owner must answer NULL with a request,
 * as the group's ends are announced when their sync is heard of.
 */
void
db_group_async(struct db *db, uint64_t (*ask)(void *, struct db_match *),
    void *arg)
{
	db->sync_ask = ask;
	db->sync_arg = arg;
}

/*
 * The syncs asked for are done up to request n: ask's owner heard so.
 * Nothing of what was written before is lost with the power any more.
 */
void
db_sync_heard(struct db *db, uint64_t n)
{
	if (n > db->sync_done)
		db->sync_done = n;
}

/* Every request up to the one returned is synced, here or elsewhere. */
uint64_t
db_sync_done(struct db *db)
{
	return db->sync_done;
}

/*
 * Is m's end, committed, not yet known to be on the disk?  It is not
 * announced until it is.
 */
int
db_match_unsynced(struct db *db, const struct db_match *m)
{
	return m->syncwait > db->sync_done;
}

/*
 * m's end is committed: have it synced on the owner's thread (m waits,
 * db_match_unsynced()) or here.
 */
static int
db_end_sync(struct db *db, struct db_match *m)
{
	uint64_t	 req = 0;

	if (db->sync_ask != NULL)
		req = db->sync_ask(db->sync_arg, m);
	m->syncwait = req;
	if (req != 0) {
		db->sync_asked = req;
		return 0;
	}
	return db_sync_log(db);
}

/*
 * Sync the log here and now, as a match's end is; the open group first
 * committed if it holds ends, which are then synced too.
 */
int
db_sync_now(struct db *db)
{
	if (!db_intact(db))
		return -1;
	if (db->group_ends > 0 && db_group_commit(db) == -1)
		return -1;
	return db_sync_log(db);
}

/*
 * The log can no longer be trusted to keep what it was given (a sync
 * failed): every write from now on fails, with why.
 */
void
db_break(struct db *db, const char *why)
{
	snprintf(db->broken, sizeof(db->broken), "%s", why);
}

/* Is a group open, with rows not yet committed? */
int
db_group_pending(struct db *db)
{
	return db->group_open;
}

/*
 * The durability policy (refd(8), DURABILITY): must the open group be
 * committed now?  Yes once it has been open its window
 * (db_group_window()); otherwise *wait_us says in how long it must be.
 * Its rows are never synced on their own: the next match end's sync
 * keeps them, with every row committed before it.
 */
int
db_group_due(struct db *db, int64_t now_us, int64_t *wait_us)
{
	*wait_us = 0;
	if (!db->group_open || db->group_gone)
		return db->group_open;
	if (now_us - db->group_us >= db->group_window)
		return 1;
	*wait_us = db->group_us + db->group_window - now_us;
	return 0;
}

/* Groups committed so far. */
long long
db_group_commits(struct db *db)
{
	return db->commits;
}

/* Match ends that joined a group so far (db_end_joins()). */
long long
db_group_ends(struct db *db)
{
	return db->ends_joined;
}

/* How long a group may stay open across passes; 0: commit every pass. */
void
db_group_window(struct db *db, int64_t us)
{
	db->group_window = us > 0 ? us : 0;
}

/*
 * May a group stay open past the pass that wrote it (group mode and a
 * window)?  Then a pass's lines may leave before its rows are committed,
 * and a row may as well be written just after the lines it explains.
 */
int
db_group_spans(struct db *db)
{
	return GROUPED(db) && db->group_window > 0;
}

/* Is the file at the log's path the one that was opened? */
static int
db_samefile(struct db *db)
{
	struct stat	 sb;

	return stat(db->path, &sb) == 0 && sb.st_dev == db->dev &&
	    sb.st_ino == db->ino;
}

/*
 * Is the log file still at its path, the file that was opened?  Deleted
 * or replaced, what refd writes would reach nobody: such a write fails.
 */
static int
db_intact(struct db *db)
{
	if (db->broken[0] != '\0') {
		db_failx(db, "%s", db->broken);
		return 0;
	}
	if (db->path[0] == '\0' || db_samefile(db))
		return 1;
	db_failx(db, "the log file %.200s was deleted or replaced", db->path);
	return 0;
}

/*
 * The group just committed held the ends of matches among its n: have
 * them synced, on the thread of db_group_async() (each waits for that
 * request, db_match_unsynced()), or here if it syncs nothing.  A sync
 * here that fails breaks the log, and those matches hear that it lost
 * them (db_group_mode()'s lost): their ends are never announced.
 */
static int
db_group_ends_sync(struct db *db, int n)
{
	struct db_match	**lost;
	char		 keep[sizeof(db->err)];
	uint64_t	 req;
	int		 i, nlost = 0, rc = 0;

	req = db->sync_ask != NULL ? db->sync_ask(db->sync_arg, NULL) : 0;
	if (req != 0)
		db->sync_asked = req;
	else if ((rc = db_sync_log(db)) == -1)
		db_break(db, db->err);
	/* lost() may write again, into a new group that reuses saves */
	lost = rc == -1 ? calloc((size_t)(n > 0 ? n : 1), sizeof(*lost)) :
	    NULL;
	for (i = 0; i < n; i++)
		if (db->saves[i].m->syncwait == DB_SYNC_UNCOMMITTED) {
			db->saves[i].m->syncwait = req;
			if (lost != NULL)
				lost[nlost++] = db->saves[i].m;
		}
	memcpy(keep, db->err, sizeof(keep));
	for (i = 0; i < nlost && db->group_lost != NULL; i++)
		db->group_lost(lost[i]);
	memcpy(db->err, keep, sizeof(keep));
	free(lost);
	return rc;
}

/*
 * Commit the open group, unsynced.  Returns 0, or -1 when the group's
 * rows are lost (rolled back: each match's chain goes back, then lost()
 * hears of it).
 */
int
db_group_commit(struct db *db)
{
	struct db_gsave	*g;
	struct db_match	**lost;
	char		 keep[sizeof(db->err)];
	int		 i, n, ends, committed = 0;

	if (!db->group_open)
		return 0;
	if (!db->group_gone && db_intact(db) &&
	    db_step(db, db->st[S_COMMIT], "group commit") == 0) {
		committed = 1;
		db->commits++;
	}
	else if (sqlite3_get_autocommit(db->h) == 0) {
		memcpy(keep, db->err, sizeof(keep));
		db_step(db, db->st[S_ROLLBACK], "group rollback");
		memcpy(db->err, keep, sizeof(keep));
	}
	db->group_open = db->group_gone = 0;
	n = db->nsaves;
	db->nsaves = 0;
	ends = db->group_ends;
	db->group_ends = 0;
	if (committed)
		return ends > 0 ? db_group_ends_sync(db, n) : 0;
	for (i = 0; i < n; i++) {
		g = &db->saves[i];
		if (!committed) {
			memcpy(g->m->chain, g->chain, DB_HASHLEN);
			g->m->links = g->links;
			memcpy(g->m->mpoints, g->mpoints, sizeof(g->mpoints));
		}
		g->m->group = 0;
	}
	/* lost() may write again, into a new group that reuses saves */
	if (db->group_lost != NULL &&
	    (lost = calloc((size_t)(n > 0 ? n : 1), sizeof(*lost))) != NULL) {
		for (i = 0; i < n; i++)
			lost[i] = db->saves[i].m;
		memcpy(keep, db->err, sizeof(keep));
		for (i = 0; i < n; i++)
			db->group_lost(lost[i]);
		memcpy(db->err, keep, sizeof(keep));
		free(lost);
	}
	return -1;
}

/*
 * Before a write that is not grouped: commit the group first, so that
 * the log keeps the order in which refd did things.
 */
static int
db_group_barrier(struct db *db)
{
	char	 keep[sizeof(db->err)];

	if (!db_intact(db))
		return -1;
	if (db->group_open && db_group_commit(db) == -1) {
		memcpy(keep, db->err, sizeof(keep));
		return db_failx(db, "an earlier write was lost: %s", keep);
	}
	return 0;
}

/*
 * COMMIT, then sync the log if sync, which makes what was committed and
 * every row before it survive a power loss.  Not through PRAGMA
 * synchronous: SQLite applies a pragma when it prepares it, so a
 * prepared one stepped again changes nothing.
 */
static int
db_commit_step(struct db *db, const char *what, int sync)
{
	if (db_step(db, db->st[S_COMMIT], what) == -1)
		return -1;
	return sync ? db_sync_log(db) : 0;
}

/* Read an integer pragma, such as user_version. */
static int
db_pragma_int(struct db *db, const char *pragma, int *v)
{
	sqlite3_stmt	*st;
	char		 sql[64];
	int		 rc;

	snprintf(sql, sizeof(sql), "PRAGMA %s", pragma);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, sql);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	else if (rc != SQLITE_DONE)
		db_fail(db, sql);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/*
 * Bring the schema up to DB_SCHEMA, one migration per transaction, so a
 * crash leaves the file at some whole version.  The version is read
 * again under the write lock, so two refds starting on one file never
 * both apply a migration.  Foreign keys are off meanwhile (a migration
 * may rebuild a table) and checked before each commit.
 */
static int
db_migrate(struct db *db)
{
	sqlite3_stmt	*st;
	char		*msg = NULL;
	int		 v, after, bad;

	if (db_pragma_int(db, "user_version", &v) == -1)
		return -1;
	if (v > DB_SCHEMA)
		return db_failx(db, "schema version %d is newer than this "
		    "refd knows (%d): use a newer refd", v, DB_SCHEMA);
	if (v == DB_SCHEMA)
		return 0;
	if (v < 0)
		return db_failx(db, "bad schema version %d", v);
	if (db->readonly)
		return db_failx(db, "schema version %d is older than %d: "
		    "open it once with refd to migrate", v, DB_SCHEMA);
	if (sqlite3_db_readonly(db->h, "main") == 1)
		return db_failx(db, "schema version %d is older than %d "
		    "and the file is read-only", v, DB_SCHEMA);

	if (sqlite3_exec(db->h, "PRAGMA foreign_keys = OFF;"
	    " PRAGMA ignore_check_constraints = ON", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return db_fail(db, "foreign_keys=OFF, ignore_check_constraints=ON");
	for (;;) {
		if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL,
		    NULL) != SQLITE_OK)
			return db_fail(db, "migration");
		if (db_pragma_int(db, "user_version", &v) == -1)
			goto fail;
		if (v >= DB_SCHEMA)
			break;
		if (sqlite3_exec(db->h, db_migrations[v], NULL, NULL,
		    &msg) != SQLITE_OK) {
			db_failx(db, "migration %d (schema/%d.sql): %s",
			    v + 1, v + 1, msg ? msg : "failed");
			sqlite3_free(msg);
			goto fail;
		}
		if (db_pragma_int(db, "user_version", &after) == -1)
			goto fail;
		if (after != v + 1) {
			db_failx(db, "migration %d left user_version %d",
			    v + 1, after);
			goto fail;
		}
		if (sqlite3_prepare_v2(db->h, "PRAGMA foreign_key_check", -1,
		    &st, NULL) != SQLITE_OK) {
			db_fail(db, "foreign_key_check");
			goto fail;
		}
		bad = sqlite3_step(st) != SQLITE_DONE;
		sqlite3_finalize(st);
		if (bad) {
			db_failx(db, "migration %d breaks a foreign key",
			    v + 1);
			goto fail;
		}
		if (sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) !=
		    SQLITE_OK) {
			db_fail(db, "migration commit");
			goto fail;
		}
	}
	if (sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, "migration commit");
		goto fail;
	}
	if (sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL,
	    NULL) != SQLITE_OK)
		return db_fail(db, "foreign_keys=ON");
	return 0;
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Prepare every statement once, so no write compiles SQL mid-match. */
static int
db_prepare(struct db *db)
{
	int	 i;

	for (i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v3(db->h, db_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &db->st[i], NULL) != SQLITE_OK)
			return db_fail(db, db_sql[i]);
	return 0;
}

/*
 * Open the log at path.  Writable (readonly 0): creates the file, puts
 * it in WAL mode and applies every migration it lacks; ":memory:" is a
 * log in memory, gone at exit, for benchmarks that leave the disk out.  Read-only: the
 * schema must already be this refd's.  Either way a file whose schema
 * is newer than this refd knows is refused.  Locks are waited for at
 * most DB_BUSY_MS.  Returns the handle, or NULL with the reason in err
 * (which may be NULL); the caller frees the handle with db_close().
 */
struct db *
db_open(const char *path, int readonly, char *err, size_t errlen)
{
	struct db	*db;
	sqlite3_stmt	*st;
	const char	*mode;
	int		 flags, wal;

	if ((db = calloc(1, sizeof(*db))) == NULL) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	db->readonly = readonly != 0;
	/*
	 * One thread uses a connection: no mutex around each of its calls,
	 * and no global one around every allocation to count memory that
	 * nobody reads.  (sqlite3_config() may only run before SQLite
	 * starts; later it fails harmlessly.)
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	flags = SQLITE_OPEN_NOMUTEX | (readonly ? SQLITE_OPEN_READONLY :
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	if (sodium_init() < 0) {
		db_failx(db, "libsodium failed to start");
		goto fail;
	}
	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		if (db->h == NULL)
			db_failx(db, "out of memory");
		else
			db_fail(db, "open");
		goto fail;
	}
	sqlite3_extended_result_codes(db->h, 1);
	if (sqlite3_busy_timeout(db->h, DB_BUSY_MS) != SQLITE_OK) {
		db_fail(db, "busy_timeout");
		goto fail;
	}
	if (!readonly) {
		if (sqlite3_prepare_v2(db->h, "PRAGMA journal_mode = WAL", -1,
		    &st, NULL) != SQLITE_OK) {
			db_fail(db, "journal_mode=WAL");
			goto fail;
		}
		wal = 0;
		if (sqlite3_step(st) == SQLITE_ROW &&
		    (mode = (const char *)sqlite3_column_text(st, 0)) != NULL)
			/* ":memory:" (benchmarks) keeps its journal in memory */
			wal = strcmp(mode, "wal") == 0 ||
			    (strcmp(path, ":memory:") == 0 &&
			    strcmp(mode, "memory") == 0);
		else
			db_fail(db, "journal_mode=WAL");
		sqlite3_finalize(st);
		if (!wal) {
			if (db->err[0] == '\0')
				db_failx(db, "journal_mode=WAL refused");
			goto fail;
		}
		if (sqlite3_exec(db->h, "PRAGMA synchronous = NORMAL", NULL,
		    NULL, NULL) != SQLITE_OK) {
			db_fail(db, "synchronous=NORMAL");
			goto fail;
		}
		/*
		 * Checkpoints by db_wal_hook(), not SQLite's.  A reader
		 * holding a transaction stops them from restarting the log,
		 * which grows meanwhile: once they can, it is truncated back
		 * to DB_WAL_LIMIT.
		 */
		db->ckpt_pages = DB_CKPT_PAGES;
		sqlite3_wal_hook(db->h, db_wal_hook, db);
		if (sqlite3_exec(db->h, "PRAGMA journal_size_limit = "
		    DB_WAL_LIMIT, NULL, NULL, NULL) != SQLITE_OK) {
			db_fail(db, "checkpoints");
			goto fail;
		}
	}
	if (db_migrate(db) == -1)
		goto fail;
	if (sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL,
	    NULL) != SQLITE_OK) {
		db_fail(db, "foreign_keys=ON");
		goto fail;
	}
	if (db_prepare(db) == -1)
		goto fail;
	if (!readonly && db_legacy(db) == -1)
		goto fail;
	if (!readonly && strcmp(path, ":memory:") != 0) {
		struct stat	 sb;

		if (stat(path, &sb) == -1 || strlen(path) >= sizeof(db->path)) {
			db_failx(db, "cannot stat the log");
			goto fail;
		}
		snprintf(db->path, sizeof(db->path), "%s", path);
		db->dev = sb.st_dev;
		db->ino = sb.st_ino;
	}
	return db;
fail:
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: %s", path, db->err);
	db_close(db);
	return NULL;
}

/*
 * refd's own connection: SQLite's foreign-key lookups and CHECKs off.
 * Each row of a deal looked its deal up, a few thousand instructions a
 * play, and evaluated its CHECKs, as many again.  db.c checks the same
 * itself where refd writes at every move: parents (a match's rows need
 * db_match_begin(), a deal's rows its db_deal(): db_in_deal()) and
 * numbers (db_range()); its other rows take values refd made.  A
 * migration still runs foreign_key_check, and refctl audit checks every
 * key and every CHECK of the log.
 */
int
db_own_keys(struct db *db)
{
	if (sqlite3_exec(db->h, "PRAGMA foreign_keys = OFF", NULL, NULL,
	    NULL) != SQLITE_OK)
		return db_fail(db, "foreign_keys=OFF, ignore_check_constraints=ON");
	return 0;
}

/*
 * Commit what is open and sync it (a clean stop keeps everything), then
 * finalize every statement and close the file; NULL is allowed.
 */
void
db_close(struct db *db)
{
	int	 i;

	if (db == NULL)
		return;
	db->group_lost = NULL;
	if (db_group_commit(db) == 0 && db->h != NULL && !db->readonly)
		(void)db_sync_log(db);
	for (i = 0; i < S_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	free(db->saves);
	sqlite3_close(db->h);
	free(db);
}

/* Why the last failed call failed: never NULL, valid until the next call. */
const char *
db_error(struct db *db)
{
	if (db == NULL)
		return "no database";
	return db->err[0] != '\0' ? db->err : "no error";
}

/*
 * Can a write transaction start now?  Tries BEGIN IMMEDIATE and rolls
 * back: 1 if it could, 0 (reason in db_error()) if the file is read-only,
 * locked by another writer for longer than DB_BUSY_MS, or broken.
 */
int
db_writable(struct db *db)
{
	if (db->readonly) {
		db_failx(db, "opened read-only");
		return 0;
	}
	/*
	 * SQLite opens a file it may not write read-only, and in WAL mode
	 * BEGIN IMMEDIATE still succeeds there: ask first.
	 */
	if (sqlite3_db_readonly(db->h, "main") != 0) {
		db_failx(db, "the database file is read-only");
		return 0;
	}
	/* what is grouped must reach the file first, to know */
	if (db_group_barrier(db) == -1)
		return 0;
	if (db_step(db, db->st[S_BEGIN], "write transaction") == -1)
		return 0;
	if (sqlite3_get_autocommit(db->h) == 0 &&
	    db_step(db, db->st[S_ROLLBACK], "rollback") == -1)
		return 0;
	return 1;
}

/*
 * Mark every match still running in the log as aborted, with reason:
 * at startup those refd stopped under ("refd restarted"), at a clean
 * stop those whose end could not be logged.  Their chains end at their
 * last row, and the log chain says which row that is (an "abort" event,
 * signed), so a chain cut shorter later shows.  Stores how many in *n
 * (n may be NULL).
 */
int
db_abort_unfinished(struct db *db, const char *reason, int *n)
{
	sqlite3_stmt	*st = db->st[S_RUNNING];
	int64_t		*ids = NULL, *nids;
	char		 hex[2 * DB_HASHLEN + 1], ended[32], keep[sizeof(db->err)];
	long long	 no;
	size_t		 rlen;
	int		 rc, i, cap = 0, count = 0;

	if (!is_phrase(reason) || (rlen = strlen(reason)) > 200)
		return db_failx(db, "abort: bad reason");
	/* never grouped: what is grouped goes first, then this alone */
	if (db_group_barrier(db) == -1)
		return -1;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (count == cap) {
			cap = cap ? 2 * cap : 16;
			if ((nids = realloc(ids, (size_t)cap * sizeof(*ids))) ==
			    NULL) {
				sqlite3_reset(st);
				free(ids);
				return db_failx(db, "out of memory");
			}
			ids = nids;
		}
		ids[count++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(ids);
		return db_fail(db, "running matches");
	}
	if (n != NULL)
		*n = count;
	if (count == 0) {
		free(ids);
		return 0;
	}
	db->solo++;
	db_now(ended, sizeof(ended));
	rc = db_step(db, db->st[S_BEGIN], "abort unfinished matches");
	for (i = 0; rc == 0 && i < count; i++)
		if (db_last_link(db, ids[i], &no, hex) == -1 ||
		    db_run(db, S_ABORT_RUNNING, "abort unfinished matches",
		    "Iss", ids[i], ended, reason) == -1 ||
		    db_log(db, "abort", ids[i], 0, 1, "abort %lld links=%lld "
		    "last=%s reason=%zu:%s", (long long)ids[i], no, hex, rlen,
		    reason) == -1)
			rc = -1;
	if (rc == 0)
		rc = db_commit_step(db, "abort commit", 1);
	if (rc == -1 && sqlite3_get_autocommit(db->h) == 0) {
		memcpy(keep, db->err, sizeof(keep));
		db_step(db, db->st[S_ROLLBACK], "rollback");
		memcpy(db->err, keep, sizeof(keep));
	}
	free(ids);
	db->solo--;
	return rc;
}

/*
 * Open one transaction for the next writes of match m, so that a play
 * and the rows that follow from it (Joker, trick, deal result) stand or
 * fall together.  m's chain is kept so that db_rollback() can restore
 * it.  Returns 0, or -1 with nothing open.
 */
int
db_begin(struct db *db, struct db_match *m)
{
	if (db->tx_open)
		return db_failx(db, "begin: a transaction is already open");
	/* in group mode, a savepoint inside the group */
	if (db_group_enter(db, m) == -1 ||
	    db_step(db, db->st[GROUPED(db) ? S_SAVEPOINT : S_BEGIN],
	    "begin") == -1)
		return -1;
	db->tx_open = 1;
	db->tx_m = m;
	memcpy(db->tx_chain, m->chain, DB_HASHLEN);
	db->tx_links = m->links;
	memcpy(db->tx_mpoints, m->mpoints, sizeof(m->mpoints));
	return 0;
}

/*
 * Commit the transaction db_begin() opened.  Returns 0; or -1, and then
 * the caller calls db_rollback(), which undoes whatever is undone.
 */
int
db_commit(struct db *db)
{
	if (!db->tx_open)
		return db_failx(db, "commit: no transaction open");
	if ((GROUPED(db) ? db_step(db, db->st[S_RELEASE], "commit") :
	    db_commit_step(db, "commit", 0)) == -1)
		return -1;
	db->tx_open = 0;
	return 0;
}

/*
 * Give up the transaction db_begin() opened, if still open: roll it back
 * and put its match's chain back as the table has it.  db_error() keeps
 * the reason of the failure that led here.
 */
void
db_rollback(struct db *db)
{
	char	 keep[sizeof(db->err)];

	if (!db->tx_open)
		return;
	memcpy(keep, db->err, sizeof(keep));
	if (GROUPED(db) && sqlite3_get_autocommit(db->h) != 0)
		db->group_gone = 1;	/* SQLite rolled the group back */
	else if (GROUPED(db)) {
		db_step(db, db->st[S_ROLLBACK_TO], "rollback");
		db_step(db, db->st[S_RELEASE], "rollback");
	} else if (sqlite3_get_autocommit(db->h) == 0)
		db_step(db, db->st[S_ROLLBACK], "rollback");
	memcpy(db->tx_m->chain, db->tx_chain, DB_HASHLEN);
	db->tx_m->links = db->tx_links;
	memcpy(db->tx_m->mpoints, db->tx_mpoints, sizeof(db->tx_mpoints));
	db->tx_open = 0;
	memcpy(db->err, keep, sizeof(db->err));
}

/*
 * Record a starting match and its nseats seats in one transaction; on
 * success set m->id, link 0 of the chain in m->chain (BLAKE2b-256 of
 * "refd-chain-v1" then "match ID VARIANT OPTIONS COMMIT RNG") and
 * m->links to 0.  On failure nothing is written and m is unchanged.
 */
int
db_match_begin(struct db *db, struct db_match *m, const struct db_seat *seats,
    int nseats)
{
	struct chain_header	 h;
	struct chain_text	 l;
	sqlite3_stmt		*st = db->st[S_HEAD];
	uint8_t			 chain0[DB_HASHLEN];
	char			 hex[2 * DB_HASHLEN + 1];
	char			 prev[2 * DB_HASHLEN + 1], started[32];
	char			 names[BRI_MAXSEATS * 72];
	const char		*p;
	size_t			 at = 0;
	int64_t			 id;
	int			 i, rc;

	if (!is_token(m->variant) || m->options == NULL ||
	    !is_printable(m->options) || !is_hex64(m->seed_hex) ||
	    !is_hex64(m->commit_hex) || !is_token(m->rng) ||
	    !is_token(m->policy))
		return db_failx(db, "match begin: bad match header");
	if (nseats < 2 || nseats > BRI_MAXSEATS || seats == NULL)
		return db_failx(db, "match begin: %d seats", nseats);
	/* each name with its length: no name can pass for two */
	for (i = 0; i < nseats; i++) {
		if (seats[i].bot == NULL || strlen(seats[i].bot) > 64 ||
		    seats[i].kind == NULL)
			return db_failx(db, "match begin: seat %d incomplete",
			    i);
		at += (size_t)snprintf(names + at, sizeof(names) - at,
		    "%s%zu:%s", i ? "," : "", strlen(seats[i].bot),
		    seats[i].bot);
	}

	/* never grouped: a match starts only if the log takes it now */
	if (db_group_barrier(db) == -1)
		return -1;
	db->solo++;
	if (db_step(db, db->st[S_BEGIN], "match begin") == -1) {
		db->solo--;
		return -1;
	}
	/* link 0 commits to the log's head: no match vanishes unseen */
	if ((rc = db_first(db, S_HEAD, "log head", "")) == -1)
		goto fail;
	memset(prev, '0', 2 * DB_HASHLEN);
	prev[2 * DB_HASHLEN] = '\0';
	if (rc == 1) {
		p = (const char *)sqlite3_column_text(st, 1);
		if (p != NULL && is_hex64(p))
			memcpy(prev, p, sizeof(prev));
		sqlite3_reset(st);
	}
	db_now(started, sizeof(started));
	if (db_run(db, S_MATCH_INSERT, "insert match", "sssssiiisiJjss",
	    m->variant, m->options, m->seed_hex, m->commit_hex, m->rng,
	    m->move_ms, m->bank_ms, m->startup_ms, m->policy, m->max_faults,
	    m->tournament, m->tournament > 0 ? m->slot : -1, started,
	    prev) == -1)
		goto fail;
	id = sqlite3_last_insert_rowid(db->h);
	for (i = 0; i < nseats; i++)
		if (db_run(db, S_SEAT_INSERT, "insert seat", "Iissss", id,
		    seats[i].seat, seats[i].bot,
		    seats[i].version ? seats[i].version : "", seats[i].kind,
		    seats[i].identity ? seats[i].identity : "") == -1)
			goto fail;

	memset(&h, 0, sizeof(h));
	h.id = (long long)id;
	h.variant = m->variant;
	h.options = m->options;
	h.commit = m->commit_hex;
	h.rng = m->rng;
	h.prev = prev;
	h.started = started;
	h.move_ms = m->move_ms;
	h.bank_ms = m->bank_ms;
	h.startup_ms = m->startup_ms;
	h.policy = m->policy;
	h.max_faults = m->max_faults;
	h.tournament = m->tournament > 0 ? m->tournament : -1;
	h.slot = m->tournament > 0 ? m->slot : -1;
	h.seats = names;
	chain_match2(&l, &h);
	if (l.overflow) {
		db_failx(db, "match begin: header too long");
		goto fail;
	}
	chain_link0v(2, &l, chain0);
	sodium_bin2hex(hex, sizeof(hex), chain0, sizeof(chain0));
	if (db_run(db, S_MATCH_CHAIN0, "match chain", "Is", id, hex) == -1 ||
	    db_log(db, "start", id, m->tournament, 0, "start %lld link0=%s",
	    (long long)id, hex) == -1)
		goto fail;
	if (db_step(db, db->st[S_COMMIT], "match begin commit") == -1)
		goto fail;
	db->solo--;
	m->id = id;
	memcpy(m->chain, chain0, DB_HASHLEN);
	m->links = 0;
	return 0;
fail:
	if (sqlite3_get_autocommit(db->h) == 0)
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	db->solo--;
	return -1;
}

/*
 * Record the name and version a seat's bot gave when asked, and its
 * identity (NULL: as recorded when the match began; a remote bot's peer
 * address once it connected), as a chained row: "seat S bot=B kind=K
 * identity=.. name=.. version=..".
 */
int
db_seat_version(struct db *db, struct db_match *m, int seat, const char *name,
    const char *version, const char *identity)
{
	sqlite3_stmt		*st = db->st[S_SEAT_GET];
	struct chain_text	 l;
	char			 bot[80], kind[16], ident[DB_TEXTMAX + 1];
	const char		*b, *k, *id;
	int			 rc;

	if ((rc = db_first(db, S_SEAT_GET, "seat", "Ii", m->id, seat)) != 1)
		return rc == 0 ? db_failx(db, "match %lld has no seat %d",
		    (long long)m->id, seat) : -1;
	b = (const char *)sqlite3_column_text(st, 0);
	k = (const char *)sqlite3_column_text(st, 1);
	id = (const char *)sqlite3_column_text(st, 2);
	snprintf(bot, sizeof(bot), "%s", b ? b : "");
	snprintf(kind, sizeof(kind), "%s", k ? k : "");
	snprintf(ident, sizeof(ident), "%s", id ? id : "");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (identity != NULL)
		snprintf(ident, sizeof(ident), "%s", identity);
	if (name == NULL)
		name = "";
	if (version == NULL)
		version = "";
	chain_seat(&l, seat, bot, strlen(bot), kind, strlen(kind), ident,
	    strlen(ident), name, text_cap(name), version, text_cap(version));
	if (db_chained(db, m, S_SEAT_VERSION, &l, "IiSSs", m->id, seat,
	    text_cap(name), name, text_cap(version), version, ident) == -1)
		return -1;
	if (sqlite3_changes(db->h) != 1)
		return db_failx(db, "match %lld has no seat %d",
		    (long long)m->id, seat);
	return 0;
}

/*
 * Record deal deal_no as dealt: its dealer, its deck order (the whole
 * truth of the deal), the removed 2 and the trump.  Canonical text:
 * "deal D dealer=S trump=C removed=C|- deck=C C ...".
 */
int
db_deal(struct db *db, struct db_match *m, const struct bri_deal *d,
    int deal_no)
{
	struct chain_text l;
	char		 deck[BRI_NCARDS * BRI_CARD_STRLEN];
	char		 trump[BRI_CARD_STRLEN], removed[BRI_CARD_STRLEN];
	size_t		 n = 0;
	int		 i;

	if (deal_no < 1 || d->ncards < 36 || d->ncards > BRI_NCARDS)
		return db_failx(db, "deal %d: bad deal", deal_no);
	/* BRI_CARD_STRLEN holds a card and its NUL: room for the space */
	for (i = 0; i < d->ncards; i++) {
		if (i > 0)
			deck[n++] = ' ';
		n += strlen(bri_card_format(d->deck[i], deck + n));
	}
	/* no turned card (briscolone, chiamata5): NULL, "-" in the text */
	snprintf(trump, sizeof(trump), "-");
	if (d->trump != BRI_NOCARD)
		bri_card_format(d->trump, trump);
	if (d->removed != BRI_NOCARD)
		bri_card_format(d->removed, removed);
	chain_deal(&l, deal_no, d->dealer, trump, strlen(trump),
	    d->removed != BRI_NOCARD ? removed : NULL,
	    d->removed != BRI_NOCARD ? strlen(removed) : 0, deck, n);
	if (db_chained(db, m, S_DEAL, &l, "Iiisss", m->id, deal_no,
	    (int)d->dealer, deck, d->removed != BRI_NOCARD ? removed : NULL,
	    d->trump != BRI_NOCARD ? trump : NULL) == -1)
		return -1;
	if (deal_no > m->deals)
		m->deals = deal_no;
	return 0;
}

/*
 * Record one card played, committed before the next move is asked for:
 * in its own transaction, or in the one db_begin() opened for it and the
 * rows that follow from it.  fault is 1 when refd
 * played the card for a seat that faulted.  Canonical text:
 * "play D SEQ trick=T seat=S card=C ms=MS fault=0|1".
 */
int
db_play(struct db *db, struct db_match *m, int deal_no, int seq, int trick,
    int seat, bri_card card, int ms, int fault)
{
	struct chain_text l;
	char		 c[BRI_CARD_STRLEN], at[32];
	const char	*ans = m->answer;
	size_t		 n = ans != NULL ? text_cap(ans) : 0;

	if (card >= BRI_NCARDS)
		return db_failx(db, "play %d %d: not a card", deal_no, seq);
	if (db_in_deal(db, m, deal_no) == -1 ||
	    db_range(db, "play", "seq", seq, 0, 39) == -1 ||
	    db_range(db, "play", "trick", trick, 0, 19) == -1 ||
	    db_range(db, "play", "seat", seat, 0, BRI_MAXSEATS - 1) == -1 ||
	    db_range(db, "play", "ms", ms, 0, INT_MAX) == -1)
		return -1;
	bri_card_format(card, c);
	fault = fault != 0;
	db_now(at, sizeof(at));
	chain_play2(&l, deal_no, seq, trick, seat, c, strlen(c), ms, fault, at,
	    strlen(at), m->limit_ms, ans != NULL ? ans : "", n);
	return db_chained(db, m, S_PLAY, &l, "IiiiisiisiS", m->id, deal_no,
	    seq, trick, seat, c, ms, fault, at, m->limit_ms,
	    ans != NULL ? n : 0, ans);
}

/*
 * Record a completed trick (0-based) and who won its points.  Canonical
 * text: "trick D T winner=S points=P".
 */
int
db_trick(struct db *db, struct db_match *m, int deal_no, int trick,
    int winner, int points)
{
	struct chain_text l;

	if (db_in_deal(db, m, deal_no) == -1 ||
	    db_range(db, "trick", "trick", trick, 0, 19) == -1 ||
	    db_range(db, "trick", "winner", winner, 0, BRI_MAXSEATS - 1) == -1 ||
	    db_range(db, "trick", "points", points, 0, 120) == -1)
		return -1;
	chain_trick(&l, deal_no, trick, winner, points);
	return db_chained(db, m, S_TRICK, &l, "Iiiii", m->id, deal_no, trick,
	    winner, points);
}

/*
 * Record one call of chiamata5's auction, as db_play() a card: seat's
 * rank (BRI_PASS: a pass) as call seq of the deal, with the bot's time,
 * the limit in force and its answer.  Canonical text: "bid D SEQ seat=S
 * call=pass|R ms=MS fault=0|1 at=TIME limit=MS answer=LEN:..".
 */
int
db_bid(struct db *db, struct db_match *m, int deal_no, int seq, int seat,
    int rank, int ms, int fault)
{
	struct chain_text l;
	char		 call[8], at[32];
	const char	*ans = m->answer;
	size_t		 n = ans != NULL ? text_cap(ans) : 0;

	if (rank < 0 || rank > 10)
		return db_failx(db, "bid %d %d: not a rank", deal_no, seq);
	if (db_in_deal(db, m, deal_no) == -1 ||
	    db_range(db, "bid", "seq", seq, 0, 16) == -1 ||
	    db_range(db, "bid", "seat", seat, 0, BRI_MAXSEATS - 1) == -1 ||
	    db_range(db, "bid", "ms", ms, 0, INT_MAX) == -1)
		return -1;
	if (rank == BRI_PASS)
		snprintf(call, sizeof(call), "pass");
	else
		snprintf(call, sizeof(call), "%d", rank);
	fault = fault != 0;
	db_now(at, sizeof(at));
	chain_bid(&l, deal_no, seq, seat, call, strlen(call), ms, fault, at,
	    strlen(at), m->limit_ms, ans != NULL ? ans : "", n);
	return db_chained(db, m, S_CALL, &l, "IiisisjiisiS", m->id, deal_no,
	    seq, "bid", seat, call, -1, ms, fault, at, m->limit_ms,
	    ans != NULL ? n : 0, ans);
}

/*
 * Record the caller's suit as the called card and its holder, the
 * partner (the caller when alone), as seq after the bids, and copy them
 * into the deal's row.  The log is the referee's: the partner is in it
 * from this moment, never on a bot's wire.  Canonical text: "called D
 * SEQ seat=S card=C partner=P ms=MS fault=0|1 at=TIME limit=MS
 * answer=LEN:..".
 */
int
db_called(struct db *db, struct db_match *m, int deal_no, int seq, int seat,
    bri_card card, int partner, int ms, int fault)
{
	struct chain_text l;
	char		 c[BRI_CARD_STRLEN], at[32];
	const char	*ans = m->answer;
	size_t		 n = ans != NULL ? text_cap(ans) : 0;

	if (card >= BRI_NCARDS || partner < 0 || partner >= BRI_MAXSEATS)
		return db_failx(db, "called %d: no card or holder", deal_no);
	if (db_in_deal(db, m, deal_no) == -1 ||
	    db_range(db, "called", "seq", seq, 0, 16) == -1 ||
	    db_range(db, "called", "seat", seat, 0, BRI_MAXSEATS - 1) == -1 ||
	    db_range(db, "called", "ms", ms, 0, INT_MAX) == -1)
		return -1;
	bri_card_format(card, c);
	fault = fault != 0;
	db_now(at, sizeof(at));
	chain_called(&l, deal_no, seq, seat, c, strlen(c), partner, ms, fault,
	    at, strlen(at), m->limit_ms, ans != NULL ? ans : "", n);
	if (db_chained(db, m, S_CALL, &l, "IiisisjiisiS", m->id, deal_no, seq,
	    "call", seat, c, partner, ms, fault, at, m->limit_ms,
	    ans != NULL ? n : 0, ans) == -1)
		return -1;
	if (db_run(db, S_DEAL_CALLED, "deal called", "Iisii", m->id, deal_no,
	    c, seat, partner) == -1)
		return -1;
	if (sqlite3_changes(db->h) != 1)
		return db_failx(db, "called %d: no such deal", deal_no);
	return 0;
}

/* Record the seat a joker3 deal made Joker.  Text: "joker D seat=S". */
int
db_joker(struct db *db, struct db_match *m, int deal_no, int seat)
{
	struct chain_text l;

	if (db_in_deal(db, m, deal_no) == -1 ||
	    db_range(db, "joker", "seat", seat, 0, 3) == -1)
		return -1;
	chain_joker(&l, deal_no, seat);
	return db_chained(db, m, S_JOKER, &l, "Iii", m->id, deal_no, seat);
}

/*
 * Record a seat's fault: kind is a word, action refd's phrase (such as
 * "fallback 3S", no '='), evidence the bot's bytes as given, kept up to
 * DB_TEXTMAX.  Canonical text:
 * "fault D seat=S kind=K ms=MS action=A evidence=TEXT".
 */
int
db_fault(struct db *db, struct db_match *m, int deal_no, int seat,
    const char *kind, const char *evidence, int ms, const char *action)
{
	struct chain_text l;
	char		 at[32];
	size_t		 n;

	if (!is_token(kind) || !is_phrase(action))
		return db_failx(db, "fault: bad kind or action");
	if (db_range(db, "fault", "deal", deal_no, 0, INT_MAX) == -1 ||
	    db_range(db, "fault", "seat", seat, 0, BRI_MAXSEATS - 1) == -1 ||
	    db_range(db, "fault", "ms", ms, 0, INT_MAX) == -1)
		return -1;
	if (evidence == NULL)
		evidence = "";
	n = text_cap(evidence);
	db_now(at, sizeof(at));
	chain_fault2(&l, deal_no, seat, kind, strlen(kind), ms, action,
	    strlen(action), evidence, n, at, strlen(at), m->limit_ms);
	if (db_chained(db, m, S_FAULT, &l, "IiisSissi", m->id, deal_no,
	    seat, kind, n, evidence, ms, action, at, m->limit_ms) == -1)
		return -1;
	return 0;
}

/*
 * Record an answer of seat that no move holds (schema 7): kind "late"
 * for one to a move read after its time-out, "note" for one to a
 * notification other than a bare "=".  line is the command it answers
 * among the seat's lines from match_start on, ms its time.  Canonical
 * text: "answer D seat=S line=L kind=K ms=MS at=TIME answer=LEN:..".
 */
int
db_answer(struct db *db, struct db_match *m, int deal_no, int seat,
    long long line, const char *kind, const char *answer, int ms)
{
	struct chain_text l;
	char		 at[32];
	size_t		 n;

	if ((strcmp(kind, "late") != 0 && strcmp(kind, "note") != 0 &&
	    strcmp(kind, "move") != 0) || line < 1)
		return db_failx(db, "answer: bad kind or line");
	if (db_range(db, "answer", "deal", deal_no, 0, INT_MAX) == -1 ||
	    db_range(db, "answer", "seat", seat, 0, BRI_MAXSEATS - 1) == -1 ||
	    db_range(db, "answer", "ms", ms, 0, INT_MAX) == -1)
		return -1;
	n = text_cap(answer);
	db_now(at, sizeof(at));
	chain_answer(&l, deal_no, seat, line, kind, strlen(kind), ms, at,
	    strlen(at), answer, n);
	return db_chained(db, m, S_ANSWER, &l, "IiiIsSis", m->id, deal_no,
	    seat, (int64_t)line, kind, n, answer, ms, at);
}

/*
 * Record the result of the deal just over in match bm.  Canonical text:
 * "dealend D result=R winner=W points=P,P,.. mpoints=M,M,..".
 */
int
db_deal_end(struct db *db, struct db_match *m, const struct bri_match *bm)
{
	static const char *const results[] = {
		[BRI_DEAL_JOKER] = "joker",
		[BRI_DEAL_ALLIES] = "allies",
		[BRI_DEAL_VOID] = "void",
		[BRI_DEAL_WON] = "won",
		[BRI_DEAL_DRAWN] = "drawn",
		[BRI_DEAL_CALLER] = "caller",
		[BRI_DEAL_OTHERS] = "others",
	};
	const struct bri_deal	*d = &bm->deal;
	struct chain_text	 l;
	char			 pts[DB_LISTMAX], mpts[DB_LISTMAX];
	int			 p[BRI_MAXSEATS], i, rc;

	if (!d->over || d->result >= nitems(results) ||
	    results[d->result] == NULL || bm->nseats > BRI_MAXSEATS)
		return db_failx(db, "deal end %d: deal not over", bm->ndeals);
	if (db_in_deal(db, m, bm->ndeals) == -1)
		return -1;
	for (i = 0; i < bm->nseats; i++)
		p[i] = d->points[i];
	ints_join(pts, sizeof(pts), p, bm->nseats);
	ints_join(mpts, sizeof(mpts), bm->mpoints, bm->nseats);
	chain_dealend(&l, bm->ndeals, results[d->result],
	    strlen(results[d->result]), d->winner, pts, strlen(pts), mpts,
	    strlen(mpts));
	rc = db_chained(db, m, S_DEAL_END, &l, "Iisiss", m->id, bm->ndeals,
	    results[d->result], (int)d->winner, pts, mpts);
	if (rc == 0)
		memcpy(m->mpoints, bm->mpoints, bm->nseats * sizeof(int));
	return rc;
}

/*
 * The rows of m's end, inside the caller's transaction: the match's row
 * closed with its end link l, and the log chain's signed "end" event.
 */
static int
db_end_rows(struct db *db, struct db_match *m, const struct chain_text *l,
    const char *state, const char *result, const char *mpts, size_t n,
    const char *reason, const char *ended)
{
	char	 fhex[2 * DB_HASHLEN + 1];

	if (db_chained(db, m, S_MATCH_END, l, "IsssSs", m->id, state, result,
	    mpts, n, reason, ended) == -1)
		return -1;
	if (sqlite3_changes(db->h) != 1)
		return db_failx(db, "match %lld was not running",
		    (long long)m->id);
	sodium_bin2hex(fhex, sizeof(fhex), m->chain, DB_HASHLEN);
	return db_log(db, "end", m->id, m->tournament, 1, "end %lld "
	    "links=%d final=%s result=%s tournament=%lld slot=%d%s%s",
	    (long long)m->id, m->links, fhex, result,
	    (long long)(m->tournament > 0 ? m->tournament : -1),
	    m->tournament > 0 ? m->slot : -1, m->transcripts != NULL ?
	    " transcripts=" : "", m->transcripts != NULL ? m->transcripts :
	    "");
}

/* m's end is written: the log's head at it, for its receipt. */
static void
db_end_head(struct db *db, struct db_match *m)
{
	memcpy(m->head, db->last_link, DB_HASHLEN);
	m->head_no = db->last_no;
	memcpy(m->sig, db->last_sig, sizeof(m->sig));
}

/*
 * May a match's end join the open group, to be committed and synced
 * with it (db_group_commit()), rather than commit the group and then
 * itself at once?  Only when the group holds the rows of DB_END_JOIN
 * matches or more: a commit then writes a page or more of each of them
 * to the write-ahead log, and a commit of its own for every end made
 * the log write those pages again and again (PERFORMANCE.md).  With
 * fewer matches a commit is small, and the end is announced sooner.
 */
static int
db_end_joins(struct db *db)
{
	return GROUPED(db) && db->group_window > 0 && db->group_open &&
	    !db->group_gone && !db->tx_open && db->sync_ask != NULL &&
	    db->nsaves >= DB_END_JOIN;
}

/*
 * Record how the match ended, durably, and close its row: result is a
 * word ("seat1", "team0", "draw", "forfeit1", "aborted"; "aborted" marks
 * the match aborted, anything else done), reason free text, mpoints the
 * match points of nseats seats (NULL with 0 when none were scored).  The
 * match's last link goes to matches.final_chain.  Canonical text:
 * "matchend result=R mpoints=M,M,.. reason=TEXT".
 */
static int
db_match_end_at(struct db *db, struct db_match *m, const char *result,
    const char *reason, const int *mpoints, int nseats, int here)
{
	struct chain_text l;
	char		 mpts[DB_LISTMAX], ended[32], keep[sizeof(db->err)];
	uint8_t		 chain[DB_HASHLEN];
	const char	*state;
	size_t		 n;
	int		 rc, links = m->links;

	if (!is_token(result))
		return db_failx(db, "match end: bad result");
	if (nseats < 0 || nseats > BRI_MAXSEATS ||
	    (nseats > 0 && mpoints == NULL))
		return db_failx(db, "match end: bad match points");
	if (reason == NULL)
		reason = "";
	n = text_cap(reason);
	state = strcmp(result, "aborted") == 0 ? "aborted" : "done";
	ints_join(mpts, sizeof(mpts), mpoints, nseats);
	db_now(ended, sizeof(ended));
	chain_matchend2(&l, result, strlen(result), mpts, strlen(mpts), ended,
	    strlen(ended), reason, n);

	if (!here && db_end_joins(db)) {
		/* in the open group, under a savepoint of its own */
		if (db_begin(db, m) == -1)
			return -1;
		rc = db_end_rows(db, m, &l, state, result, mpts, n, reason,
		    ended);
		if (rc == 0)
			rc = db_commit(db);
		if (rc == -1) {
			db_rollback(db);
			return -1;
		}
		m->syncwait = DB_SYNC_UNCOMMITTED;
		db->group_ends++;
		db->ends_joined++;
		db_end_head(db, m);
		return 0;
	}
	/* not grouped: the result is on disk before it is announced */
	if (db_group_barrier(db) == -1)
		return -1;
	db->solo++;
	memcpy(chain, m->chain, DB_HASHLEN);
	/* the match's end and the log's signed head, in one commit */
	rc = db_step(db, db->st[S_BEGIN], "match end");
	if (rc == 0)
		rc = db_end_rows(db, m, &l, state, result, mpts, n, reason,
		    ended);
	if (rc == 0)
		rc = db_commit_step(db, "match end commit", here);
	if (rc == 0 && !here)
		rc = db_end_sync(db, m);
	if (rc == 0)
		db_end_head(db, m);
	else {
		memcpy(keep, db->err, sizeof(keep));
		if (sqlite3_get_autocommit(db->h) == 0)
			db_step(db, db->st[S_ROLLBACK], "rollback");
		memcpy(db->err, keep, sizeof(keep));
		memcpy(m->chain, chain, DB_HASHLEN);
		m->links = links;
	}
	db->solo--;
	return rc;
}

/* The end of match m, committed and synced here before this returns. */
int
db_match_end(struct db *db, struct db_match *m, const char *result,
    const char *reason, const int *mpoints, int nseats)
{
	return db_match_end_at(db, m, result, reason, mpoints, nseats, 1);
}

/*
 * The end of match m, committed; its sync asked of the owner of
 * db_group_async(), who may have the log synced here (then it is done
 * when this returns) or elsewhere: db_match_unsynced() says until when
 * the end is not yet known to be on the disk.
 */
int
db_match_end_async(struct db *db, struct db_match *m, const char *result,
    const char *reason, const int *mpoints, int nseats)
{
	return db_match_end_at(db, m, result, reason, mpoints, nseats, 0);
}

/*
 * Record something that happened to a bot outside the chain (started,
 * exited, connected, wrote to stderr): match_id 0 and seat -1 for none;
 * detail is kept up to DB_TEXTMAX bytes.
 */
int
db_bot_event(struct db *db, int64_t match_id, int seat, const char *bot,
    const char *kind, const char *detail)
{
	if (bot == NULL || !is_token(kind))
		return db_failx(db, "bot event: bad bot or kind");
	if (detail == NULL)
		detail = "";
	return db_run(db, S_BOT_EVENT, "bot event", "JjssS", match_id, seat,
	    bot, kind, text_cap(detail), detail);
}

/*
 * Run one event of a tournament on its own, never grouped: the row's
 * statement s with fmt's values, then the log chain's event text, in one
 * durable commit.  Sets *id to the new row's id when id is not NULL.
 */
static int
db_tourney_event(struct db *db, enum db_stmt s, const char *what,
    int64_t tourney, int sign, const char *text, int64_t *id,
    const char *fmt, ...)
{
	char	 keep[sizeof(db->err)];
	va_list	 ap;
	int	 rc, n;

	if (db_group_barrier(db) == -1)
		return -1;
	db->solo++;
	rc = db_step(db, db->st[S_BEGIN], what);
	if (rc == 0) {
		va_start(ap, fmt);
		n = db_bindv(db, db->st[s], 1, fmt, ap);
		va_end(ap);
		rc = n < 0 ? -1 : db_step(db, db->st[s], what);
		if (n < 0)
			sqlite3_clear_bindings(db->st[s]);
	}
	if (rc == 0 && id != NULL)
		tourney = *id = sqlite3_last_insert_rowid(db->h);
	if (rc == 0 && db_log(db, id != NULL ? "tbegin" : "tstate", 0,
	    tourney, sign, "%s", text) == -1)
		rc = -1;
	if (rc == 0)
		rc = db_commit_step(db, what, 1);
	if (rc == -1 && sqlite3_get_autocommit(db->h) == 0) {
		memcpy(keep, db->err, sizeof(keep));
		db_step(db, db->st[S_ROLLBACK], "rollback");
		memcpy(db->err, keep, sizeof(keep));
	}
	db->solo--;
	return rc;
}

/*
 * The text of a tournament's "tbegin" event: "tbegin T name=N total=K
 * commitment=HEX definition=HEX", the master seed's commitment and
 * BLAKE2b-256 of the definition's n bytes.  0, or -1 for a bad seed.
 */
static int
db_tbegin_text(char *text, size_t len, long long id, const char *name,
    const char *definition, size_t n, const char *seed_hex, int total)
{
	struct bri_seed	 seed;
	uint8_t		 h[DB_HASHLEN], c[BRI_COMMITLEN];
	char		 dhex[2 * DB_HASHLEN + 1], chex[2 * BRI_COMMITLEN + 1];

	if (seed_hex == NULL || bri_seed_parse(seed_hex, &seed) != BRI_OK)
		return -1;
	crypto_generichash(h, sizeof(h), (const unsigned char *)definition,
	    n, NULL, 0);
	sodium_bin2hex(dhex, sizeof(dhex), h, sizeof(h));
	bri_seed_commit(&seed, c);
	sodium_bin2hex(chex, sizeof(chex), c, sizeof(c));
	snprintf(text, len, "tbegin %lld name=%s total=%d commitment=%s "
	    "definition=%s", id, name, total, chex, dhex);
	return 0;
}

/*
 * Record a tournament as it starts: its name, its whole definition (so
 * that it can resume from the log alone), its master seed and its number
 * of matches.  Sets *id.  Durable, like a result, and in the log chain:
 * "tbegin T name=N total=K commitment=HEX definition=HEX", the seed's
 * commitment and BLAKE2b-256 of the definition.
 */
int
db_tourney_begin(struct db *db, const char *name, const char *definition,
    const char *seed_hex, int total, int64_t *id)
{
	char		 text[512];
	long long	 next;
	int		 rc;

	if (!is_token(name) || strlen(name) > 64 || !is_hex64(seed_hex) ||
	    total < 1 || definition == NULL)
		return db_failx(db, "tournament: bad header");
	/* the id to be: the text is built before the row is in */
	if ((rc = db_first(db, S_TOURNEY_NEXT, "tournament id", "")) == -1)
		return -1;
	next = rc == 1 ? sqlite3_column_int64(db->st[S_TOURNEY_NEXT], 0) : 1;
	sqlite3_reset(db->st[S_TOURNEY_NEXT]);
	if (db_tbegin_text(text, sizeof(text), next, name, definition,
	    strlen(definition), seed_hex, total) == -1)
		return db_failx(db, "tournament: bad header");
	rc = db_tourney_event(db, S_TOURNEY_INSERT, "insert tournament", 0, 0,
	    text, id, "Isssi", (int64_t)next, name, definition, seed_hex,
	    total);
	return rc;
}

/*
 * A tournament's state changes: running (resumed), done or stopped; in
 * the log chain as "tstate T state=S reason=LEN:TEXT", signed when it
 * ends.
 */
int
db_tourney_state(struct db *db, int64_t id, const char *state,
    const char *reason)
{
	char	 text[DB_TEXTMAX + 128];
	size_t	 n;

	if (!is_token(state))
		return db_failx(db, "tournament: bad state");
	n = reason != NULL ? text_cap(reason) : 0;
	snprintf(text, sizeof(text), "tstate %lld state=%s reason=%zu:%.*s",
	    (long long)id, state, n, (int)n, reason != NULL ? reason : "");
	return db_tourney_event(db, S_TOURNEY_END, "tournament state", id,
	    strcmp(state, "running") != 0, text, NULL, "Iss", id, state,
	    reason);
}

/*
 * Hold refd's Ed25519 secret key (libsodium's 64-byte form): from now on
 * every match's end, every abort and every tournament's end is signed.
 * When the log's last "key" event names another public key, or none, a
 * new "key PUBLICKEY" event (signed by it) enters the log chain.
 */
int
db_set_key(struct db *db, const uint8_t *sk)
{
	char		 hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	char		 want[8 + sizeof(hex)];
	const char	*t;
	int		 rc, same = 0;

	memcpy(db->sk, sk, sizeof(db->sk));
	crypto_sign_ed25519_sk_to_pk(db->pk, db->sk);
	db->have_key = 1;
	sodium_bin2hex(hex, sizeof(hex), db->pk, sizeof(db->pk));
	snprintf(want, sizeof(want), "key %s", hex);
	if ((rc = db_first(db, S_KEY_LAST, "key", "")) == -1)
		return -1;
	if (rc == 1) {
		t = (const char *)sqlite3_column_text(db->st[S_KEY_LAST], 0);
		same = t != NULL && strcmp(t, want) == 0;
		sqlite3_reset(db->st[S_KEY_LAST]);
	}
	if (same)
		return 0;
	if (db_group_barrier(db) == -1 ||
	    db_step(db, db->st[S_BEGIN], "key") == -1)
		return -1;
	if (db_log(db, "key", 0, 0, 1, "%s", want) == -1 ||
	    db_step(db, db->st[S_COMMIT], "key commit") == -1) {
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/* The public key refd signs with, hex, into hex (65 bytes); -1 if none. */
int
db_public_key(struct db *db, char *hex, size_t len)
{
	if (!db->have_key || len < 2 * crypto_sign_PUBLICKEYBYTES + 1)
		return -1;
	sodium_bin2hex(hex, len, db->pk, sizeof(db->pk));
	return 0;
}

/* The newest schema version this build knows: the migrations it has. */
int
db_schema_version(void)
{
	return DB_SCHEMA;
}

/* The connection, for read-only queries of tools that share it. */
sqlite3 *
db_handle(struct db *db)
{
	return db->h;
}

/* Is the log a file, which other connections may open: not ":memory:"? */
int
db_has_file(struct db *db)
{
	return db->path[0] != '\0';
}

/*
 * A connection of its own, read-only, to the log db opened, for long
 * reads that another thread makes while refd writes (WAL: they never
 * wait for each other); the caller closes it.  NULL, with the reason in
 * err, if the log is in memory or not the file it opened any more.
 */
sqlite3 *
db_reader(struct db *db, char *err, size_t errlen)
{
	sqlite3		*h = NULL;

	if (!db_has_file(db)) {
		snprintf(err, errlen, "the log has no file");
		return NULL;
	}
	if (sqlite3_open_v2(db->path, &h, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "log: %s", h != NULL ?
		    sqlite3_errmsg(h) : "out of memory");
		sqlite3_close(h);
		return NULL;
	}
	/* opened by name: it must be the file refd writes */
	if (!db_samefile(db)) {
		snprintf(err, errlen, "the log file %.200s was deleted or "
		    "replaced", db->path);
		sqlite3_close(h);
		return NULL;
	}
	sqlite3_busy_timeout(h, 1000);
	return h;
}

/*
 * Copy the log at src, whole, into the file dst (new, or empty) with
 * SQLite's online backup API, in one step: one read transaction, so the
 * copy is the log as it was at one instant, every committed row and no
 * half of a transaction, while refd writes on beside it (WAL: a writer
 * never waits for the copy).  The copy is a database of its own in
 * rollback-journal mode, no -wal beside it, synced to its disk when this
 * returns.  Returns 0, or -1 with the reason in err.
 */
int
db_copy(const char *src, const char *dst, char *err, size_t errlen)
{
	sqlite3		*s = NULL, *d = NULL;
	sqlite3_backup	*b;
	int		 rc, fd = -1, tries;

	rc = sqlite3_open_v2(src, &s, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(s, 2000);
		rc = sqlite3_open_v2(dst, &d, SQLITE_OPEN_READWRITE |
		    SQLITE_OPEN_CREATE, NULL);
	}
	/* a checkpoint or a recovery in the way: a few tries */
	for (tries = 0; rc == SQLITE_OK && tries < 20; tries++) {
		if ((b = sqlite3_backup_init(d, "main", s, "main")) == NULL) {
			rc = sqlite3_errcode(d);
			break;
		}
		rc = sqlite3_backup_step(b, -1);
		sqlite3_backup_finish(b);
		if (rc == SQLITE_DONE) {
			rc = SQLITE_OK;
			break;
		}
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			break;
		rc = SQLITE_OK;
		usleep(50000);
	}
	if (rc == SQLITE_OK && tries == 20)
		rc = SQLITE_BUSY;
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(d, "PRAGMA journal_mode = DELETE", NULL, NULL,
		    NULL);
	if (rc != SQLITE_OK)
		snprintf(err, errlen, "%s", d != NULL && sqlite3_errcode(d) ==
		    rc ? sqlite3_errmsg(d) : sqlite3_errstr(rc));
	sqlite3_close(s);
	if (sqlite3_close(d) != SQLITE_OK && rc == SQLITE_OK) {
		snprintf(err, errlen, "cannot close the copy");
		rc = SQLITE_ERROR;
	}
	if (rc == SQLITE_OK && ((fd = open(dst, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fsync(fd) == -1)) {
		snprintf(err, errlen, "%s", strerror(errno));
		rc = SQLITE_IOERR;
	}
	if (fd != -1)
		close(fd);
	return rc == SQLITE_OK ? 0 : -1;
}
