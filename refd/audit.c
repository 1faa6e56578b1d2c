/*
 * audit.c: the walker of refd's log, which refctl's audit, show and
 * export share (audit.h).  It reads a match's chained rows in link order
 * and checks each against what refd would have written at that point of
 * the replay, then against the chain, whose texts and links come from
 * chain.c, the code refd writes them with.  Every rule comes from
 * libbriscola, an independent derivation of what refd did.  The log is
 * hostile input: each value is type-checked and bounded before it is
 * used, and SQLite refuses to hand over any value longer than AU_SQLMAX.
 * See refd-audit(7).
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "briscola.h"
#include "audit.h"
#include "botproto.h"
#include "chain.h"
#include "db.h"
#include "mset.h"
#include "policy.h"
#include "util.h"

static void	au_reader(sqlite3 *);

#define AU_MAXDEALS	100000		/* deal_cap's upper bound */
#define AU_CHUNK	28		/* bytes util_printable never cuts */

/* How to read one kind of row: its numbers and texts, and their bounds. */
struct au_spec {
	const char	*word;		/* first word of its canonical text */
	const char	*table;		/* where it lives */
	int		 nnum;		/* numbers, in columns 3.. */
	const char	*num[6];	/* their column names */
	long long	 lo[6], hi[6];	/* their ranges */
	int		 numnull[6];	/* 1 if NULL is allowed (-1) */
	int		 ntext;		/* texts, in columns 9.. */
	const char	*text[4];	/* their column names */
	int		 max[4];	/* longest, in bytes */
	int		 null[4];	/* 1 if NULL is allowed */
	int		 deal_lo;	/* smallest deal_no, -1: no deal_no */
};

/*
 * Columns that chain_version 1 matches lack (at, limit_ms, answer,
 * ended) may be NULL here; au_text() requires them of version 2.
 */
static const struct au_spec au_specs[AU_NKINDS] = {
	[AU_DEAL] = { "deal", "deals", 1, { "dealer" }, { 0 }, { 5 }, { 0 },
	    3, { "deck", "removed", "trump" }, { 200, 3, 3 }, { 0, 1, 1 }, 1 },
	[AU_PLAY] = { "play", "plays", 6,
	    { "seq", "trick", "seat", "ms", "fault", "limit_ms" },
	    { 0, 0, 0, 0, 0, 0 }, { 39, 19, 5, INT_MAX, 1, INT_MAX },
	    { 0, 0, 0, 0, 0, 1 }, 3, { "card", "at", "answer" },
	    { 3, AU_WORDMAX, AU_TEXTMAX }, { 0, 1, 1 }, 1 },
	[AU_JOKER] = { "joker", "jokers", 1, { "seat" }, { 0 }, { 3 }, { 0 },
	    0, { NULL }, { 0 }, { 0 }, 1 },
	[AU_TRICK] = { "trick", "tricks", 3, { "trick", "winner", "points" },
	    { 0, 0, 0 }, { 19, 5, 120 }, { 0 }, 0, { NULL }, { 0 }, { 0 }, 1 },
	[AU_FAULT] = { "fault", "faults", 3, { "seat", "ms", "limit_ms" },
	    { 0, 0, 0 }, { 5, INT_MAX, INT_MAX }, { 0, 0, 1 }, 4,
	    { "kind", "evidence", "action", "at" },
	    { AU_WORDMAX, AU_TEXTMAX, AU_WORDMAX, AU_WORDMAX }, { 0, 0, 0, 1 },
	    0 },
	[AU_DEALEND] = { "dealend", "deal_results", 1, { "winner" }, { -1 },
	    { 5 }, { 0 }, 3, { "result", "points", "mpoints" }, { 16, 64, 64 },
	    { 0, 0, 0 }, 1 },
	[AU_MATCHEND] = { "matchend", "matches", 0, { NULL }, { 0 }, { 0 },
	    { 0 }, 4, { "result", "mpoints", "reason", "ended" },
	    { AU_WORDMAX, 64, AU_TEXTMAX, AU_WORDMAX }, { 0, 0, 0, 1 }, -1 },
	[AU_SEAT] = { "seat", "seats", 2, { "seat", "kind (spawn 0, remote 1)" },
	    { 0, 0 }, { 5, 1 }, { 0, 0 }, 4,
	    { "bot", "identity", "name", "version" },
	    { AU_WORDMAX, AU_TEXTMAX, AU_TEXTMAX, AU_TEXTMAX }, { 0, 0, 0, 0 },
	    -1 },
	/* schema 4: chiamata5's auction, a call and the caller's suit */
	[AU_BID] = { "bid", "calls", 6,
	    { "seq", "seat", "ms", "fault", "limit_ms", "partner" },
	    { 0, 0, 0, 0, 0, 0 }, { 16, 5, INT_MAX, 1, INT_MAX, 5 },
	    { 0, 0, 0, 0, 0, 1 }, 3, { "call", "at", "answer" },
	    { 4, AU_WORDMAX, AU_TEXTMAX }, { 0, 0, 1 }, 1 },
	/* schema 7: an answer the receipt counts that no move holds */
	[AU_ANSWER] = { "answer", "answers", 3, { "seat", "line", "ms" },
	    { 0, 1, 0 }, { 5, INT_MAX, INT_MAX }, { 0, 0, 0 }, 3,
	    { "kind", "at", "answer" }, { AU_WORDMAX, AU_WORDMAX, AU_TEXTMAX },
	    { 0, 0, 0 }, 0 },
	[AU_CALLED] = { "called", "calls", 6,
	    { "seq", "seat", "ms", "fault", "limit_ms", "partner" },
	    { 0, 0, 0, 0, 0, 0 }, { 16, 5, INT_MAX, 1, INT_MAX, 5 },
	    { 0, 0, 0, 0, 0, 0 }, 3, { "call", "at", "answer" },
	    { 3, AU_WORDMAX, AU_TEXTMAX }, { 0, 0, 1 }, 1 },
};

/*
 * Every chained row of match ?1 in link order, in one shape: link number,
 * kind (enum au_kind), deal_no, six numbers, four texts, the stored
 * link, and a tie-breaker.  The match's end is the row of matches whose
 * link number is end_no and whose link is final_chain.
 */
const char au_stream_sql[] =
    "SELECT chain_no, 0, deal_no, dealer, NULL, NULL, NULL, NULL, NULL,"
    " deck, removed, trump, NULL, chain, 0 FROM deals WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 1, deal_no, seq, trick, seat, ms, fault,"
    " limit_ms, card, at, answer, NULL, chain, seq FROM plays"
    " WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 2, deal_no, seat, NULL, NULL, NULL, NULL,"
    " NULL, NULL, NULL, NULL, NULL, chain, 0 FROM jokers WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 3, deal_no, trick, winner, points, NULL,"
    " NULL, NULL, NULL, NULL, NULL, NULL, chain, trick FROM tricks"
    " WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 4, deal_no, seat, ms, limit_ms, NULL, NULL,"
    " NULL, kind, evidence, action, at, chain, id FROM faults"
    " WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 5, deal_no, winner, NULL, NULL, NULL, NULL,"
    " NULL, result, points, mpoints, NULL, chain, 0 FROM deal_results"
    " WHERE match_id = ?1"
    " UNION ALL SELECT end_no, 6, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
    " result, mpoints, reason, CASE WHEN chain_version = 2 THEN ended END,"
    " final_chain, 0 FROM matches WHERE id = ?1"
    " AND (end_no IS NOT NULL OR final_chain IS NOT NULL)"
    " UNION ALL SELECT chain_no, 7, NULL, seat, CASE kind WHEN 'spawn'"
    " THEN 0 WHEN 'remote' THEN 1 ELSE kind END, NULL, NULL, NULL, NULL,"
    " bot, identity, name, version, chain, seat FROM seats"
    " WHERE match_id = ?1 AND (chain_no IS NOT NULL OR chain IS NOT NULL)"
    " UNION ALL SELECT chain_no, CASE kind WHEN 'bid' THEN 8 WHEN 'call'"
    " THEN 9 ELSE kind END, deal_no, seq, seat, ms, fault, limit_ms,"
    " partner, call, at, answer, NULL, chain, seq FROM calls"
    " WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 10, deal_no, seat, line, ms, NULL, NULL,"
    " NULL, kind, at, answer, NULL, chain, 0 FROM answers"
    " WHERE match_id = ?1"
    " ORDER BY 1, 2, 3, 15";

static const char au_header_sql[] =
    "SELECT id, variant, options, seed, commitment, rng, move_ms, bank_ms,"
    " startup_ms, policy, max_faults, tournament, started, ended, state,"
    " result, reason, mpoints, chain0, end_no, final_chain, chain_version,"
    " prev, slot FROM matches WHERE id = ?1";

static const char au_seats_sql[] =
    "SELECT seat, bot, name, version, kind, identity FROM seats"
    " WHERE match_id = ?1 ORDER BY seat LIMIT 7";

static const char *au_value(sqlite3_stmt *, int, char *, size_t);
static int	 au_col_int(struct au *, sqlite3_stmt *, int, const char *,
		    long long, long long, int, long long *);
static int	 au_col_text(struct au *, sqlite3_stmt *, int, const char *,
		    size_t, int, char *, size_t);
static int	 au_is_hex64(const char *, size_t);
static int	 au_options(struct au *);
static int	 au_header(struct au *, long long);
static int	 au_seats(struct au *);
static const char *au_row_desc(const struct au_row *, char *, size_t);
static const char *au_ints(const int *, int, char *, size_t);
static int	 au_trick_now(const struct au *);
static int	 au_expect(struct au *, const struct au_row *);
static int	 au_deal(struct au *, const struct au_row *);
static int	 au_play(struct au *, const struct au_row *);
static int	 au_joker(struct au *, const struct au_row *);
static const char *au_trick_cards(const struct au *, char *, size_t);
static int	 au_trick(struct au *, const struct au_row *);
static int	 au_fault(struct au *, const struct au_row *);
static int	 au_bid(struct au *, const struct au_row *);
static int	 au_uncalled(struct au *);
static int	 au_answer(struct au *, const struct au_row *);
static int	 au_called(struct au *, const struct au_row *);
static int	 au_dealend(struct au *, const struct au_row *);
static int	 au_matchend(struct au *, const struct au_row *);
static int	 au_chain(struct au *, const struct au_row *);
static int	 au_walk(struct au *);
static void	 au_receipt(struct au *);
static void	 au_header2(struct au *, struct chain_text *);
static int	 au_seatrow(struct au *, const struct au_row *);
static int	 au_when(struct au *, const struct au_row *, const char *,
		    size_t);
static int	 au_limits(struct au *, const struct au_row *);
static int	 au_limits_call(struct au *, const struct au_row *);
static int	 au_fault_auction(struct au *, const struct au_row *, int,
		    int, const char *, const char *, int);

/*
 * Record the first discrepancy of a match, located as precisely as the
 * walker knows it (deal, trick, seat; -1 for unknown), and return -1.
 */
int
au_fail(struct au *a, long long deal, int trick, int seat, const char *fmt,
    ...)
{
	va_list	 ap;
	size_t	 at = 0;
	int	 n;

	if (a->err[0] != '\0')
		return -1;	/* only the first one counts */
	if (deal > 0) {
		n = snprintf(a->err, sizeof(a->err), "deal %lld ", deal);
		at = n > 0 ? (size_t)n : 0;
		if (trick >= 0 && at < sizeof(a->err)) {
			n = snprintf(a->err + at, sizeof(a->err) - at,
			    "trick %d ", trick);
			at += n > 0 ? (size_t)n : 0;
		}
		if (seat >= 0 && at < sizeof(a->err)) {
			n = snprintf(a->err + at, sizeof(a->err) - at,
			    "seat %d ", seat);
			at += n > 0 ? (size_t)n : 0;
		}
		if (at > 0 && at < sizeof(a->err)) {
			a->err[at - 1] = ':';
			a->err[at++] = ' ';
		}
	} else if (seat >= 0) {
		n = snprintf(a->err, sizeof(a->err), "seat %d: ", seat);
		at = n > 0 ? (size_t)n : 0;
	}
	if (at >= sizeof(a->err))
		return -1;
	va_start(ap, fmt);
	vsnprintf(a->err + at, sizeof(a->err) - at, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Print untrusted bytes whole but harmless: util_printable in chunks it
 * never cuts, so a bot's text can neither forge a line nor be lost.
 */
void
au_untrusted(FILE *fp, const char *s, size_t n)
{
	char	 buf[160];
	size_t	 at, k;

	for (at = 0; at < n; at += k) {
		k = n - at < AU_CHUNK ? n - at : AU_CHUNK;
		util_printable(buf, sizeof(buf), s + at, k);
		fputs(buf, fp);
	}
}

/* Untrusted text shortened into buf for a message (util_printable). */
const char *
au_safe(const char *s, size_t n, char *buf, size_t len)
{
	util_printable(buf, len, s != NULL ? s : "", s != NULL ? n : 0);
	return buf;
}

/* What a column holds, for a message: "NULL", "text 'ab'", "1.5"... */
static const char *
au_value(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	const char	*s;
	char		 t[160];
	int		 n;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL:
		snprintf(buf, len, "NULL");
		break;
	case SQLITE_INTEGER:
		snprintf(buf, len, "%lld",
		    (long long)sqlite3_column_int64(st, col));
		break;
	case SQLITE_FLOAT:
		snprintf(buf, len, "the real %g",
		    sqlite3_column_double(st, col));
		break;
	case SQLITE_TEXT:
		s = (const char *)sqlite3_column_text(st, col);
		n = sqlite3_column_bytes(st, col);
		au_safe(s, n > 40 ? 40 : (size_t)n, t, sizeof(t));
		snprintf(buf, len, "the text '%s'%s (%d bytes)", t,
		    n > 40 ? "..." : "", n);
		break;
	default:
		snprintf(buf, len, "a blob of %d bytes",
		    sqlite3_column_bytes(st, col));
		break;
	}
	return buf;
}

/* Read an integer column in [lo, hi] (NULL is -1 when nullok), or fail. */
static int
au_col_int(struct au *a, sqlite3_stmt *st, int col, const char *what,
    long long lo, long long hi, int nullok, long long *v)
{
	char	 val[256];

	if (nullok && sqlite3_column_type(st, col) == SQLITE_NULL) {
		*v = -1;
		return 0;
	}
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return au_fail(a, a->at_deal, -1, -1, "%s is %s, not a number",
		    what, au_value(st, col, val, sizeof(val)));
	*v = (long long)sqlite3_column_int64(st, col);
	if (*v < lo || *v > hi)
		return au_fail(a, a->at_deal, -1, -1, "%s %lld is out of range "
		    "[%lld, %lld]", what, *v, lo, hi);
	return 0;
}

/*
 * Read a text column of at most max bytes, without NUL, into dst (NULL
 * reads as "" when nullok), or fail.
 */
static int
au_col_text(struct au *a, sqlite3_stmt *st, int col, const char *what,
    size_t max, int nullok, char *dst, size_t dstlen)
{
	const char	*s;
	char		 val[256];
	size_t		 n;

	if (nullok && sqlite3_column_type(st, col) == SQLITE_NULL) {
		dst[0] = '\0';
		return 0;
	}
	if (sqlite3_column_type(st, col) != SQLITE_TEXT)
		return au_fail(a, -1, -1, -1, "%s is %s, not text", what,
		    au_value(st, col, val, sizeof(val)));
	s = (const char *)sqlite3_column_text(st, col);
	n = (size_t)sqlite3_column_bytes(st, col);
	if (s == NULL)
		return au_fail(a, -1, -1, -1, "%s cannot be read: %s", what,
		    sqlite3_errmsg(a->h));
	if (n > max || n >= dstlen)
		return au_fail(a, -1, -1, -1, "%s is %zu bytes long, over "
		    "%zu", what, n, max);
	if (memchr(s, '\0', n) != NULL)
		return au_fail(a, -1, -1, -1, "%s holds a NUL byte", what);
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* Is s (n bytes) 64 lowercase hex digits, the form of links and seeds? */
static int
au_is_hex64(const char *s, size_t n)
{
	size_t	 i;

	if (s == NULL || n != AU_HEX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/*
 * Open the log read-only.  db_open() first checks the schema version as
 * refd would; then a connection of our own that can never write and is
 * refused any value over AU_SQLMAX bytes.  Prints why on failure.
 */
int
au_open(const char *path, sqlite3 **hp)
{
	struct db	*db;
	char		 err[512];

	*hp = NULL;
	if ((db = db_open(path, 1, err, sizeof(err))) == NULL) {
		fprintf(stderr, "refctl: %s\n", err);
		return -1;
	}
	db_close(db);
	if (sqlite3_open_v2(path, hp, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "refctl: %s: %s\n", path, *hp != NULL ?
		    sqlite3_errmsg(*hp) : "out of memory");
		sqlite3_close(*hp);
		*hp = NULL;
		return -1;
	}
	au_reader(*hp);
	return 0;
}

/*
 * Open a copy of the log at path, for a walk that may take long (tool
 * says whose): the copy is taken in one read transaction
 * (sqlite3_backup), into a file of TMPDIR that is unlinked at once, and
 * the log is let go.  A reader that held the log for the whole walk
 * would hold its write-ahead log too: refd's checkpoints could not get
 * past its snapshot, and the WAL would grow for as long as the walk
 * lasts.  Where no copy can be made, the log itself is opened, and
 * that is said.  0 with the copy or the log in *hp, or -1.
 */
int
au_open_copy(const char *tool, const char *path, sqlite3 **hp)
{
	struct db	*db;
	const char	*dir = getenv("TMPDIR");
	char		 tmp[PATH_MAX], err[512], why[400];
	int		 fd, rc = SQLITE_ERROR;

	*hp = NULL;
	if ((db = db_open(path, 1, err, sizeof(err))) == NULL) {
		fprintf(stderr, "refctl: %s\n", err);
		return -1;
	}
	db_close(db);
	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/refctl-audit.XXXXXX",
	    dir) >= sizeof(tmp) || (fd = mkstemp(tmp)) == -1) {
		snprintf(err, sizeof(err), "no file in %s for a copy", dir);
		goto direct;
	}
	close(fd);
	/* the copy is a rollback-journal database, read-only from now */
	if (db_copy(path, tmp, why, sizeof(why)) == 0 &&
	    (rc = sqlite3_open_v2(tmp, hp, SQLITE_OPEN_READWRITE, NULL)) !=
	    SQLITE_OK)
		snprintf(why, sizeof(why), "%s", sqlite3_errstr(rc));
	if (rc != SQLITE_OK)
		snprintf(err, sizeof(err), "the copy in %s failed: %s", dir,
		    why);
	unlink(tmp);		/* gone with refctl, however it ends */
	if (rc == SQLITE_OK) {
		au_reader(*hp);
		return 0;
	}
	sqlite3_close(*hp);
	*hp = NULL;
direct:
	fprintf(stderr, "refctl %s: %s; reading the log itself, whose "
	    "write-ahead log refd cannot checkpoint until this ends\n", tool,
	    err);
	return au_open(path, hp);
}

/* Set up a connection the walk reads through: bounded, read-only. */
static void
au_reader(sqlite3 *h)
{
	sqlite3_limit(h, SQLITE_LIMIT_LENGTH, AU_SQLMAX);
	sqlite3_busy_timeout(h, 2000);
	sqlite3_exec(h, "PRAGMA query_only = 1", NULL, NULL, NULL);
	/*
	 * One snapshot for the whole audit: a live refd's later writes
	 * would otherwise show half (a match without its log events).
	 */
	sqlite3_exec(h, "BEGIN", NULL, NULL, NULL);
}

/*
 * Read the chained options text into a->opt and the policy in force, by
 * the one table of match settings (mset.c): every key's type and range,
 * and no key that does not apply to the variant.  The clocks and policy
 * must agree with their own columns.
 */
static int
au_options(struct au *a)
{
	char		 v[64], why[300], buf[400];
	enum bri_variant var;
	enum fault_policy pol;
	struct mset	 ms;
	int		 k;

	if (bri_variant_parse(a->variant, &var) != BRI_OK)
		return au_fail(a, -1, -1, -1, "variant '%s' is not one "
		    "libbriscola(3) plays",
		    au_safe(a->variant, strlen(a->variant), v, sizeof(v)));
	a->nseats = bri_variant_seats(var);
	a->fallback = policy_parse(a->policy, &pol) == 0 &&
	    pol == POLICY_FALLBACK;
	a->faults_max = (int)a->max_faults;
	a->move = (int)a->move_ms;
	a->bank = (int)a->bank_ms;
	if (mset_read(&ms, var, a->options, why, sizeof(why)) == -1)
		return au_fail(a, -1, -1, -1, "options: %s", au_safe(why,
		    strlen(why), buf, sizeof(buf)));
	if (ms.given[MSET_POLICY] && strcmp(policy_name((enum fault_policy)
	    ms.val[MSET_POLICY]), a->policy) != 0)
		return au_fail(a, -1, -1, -1, "the policy column says %s, the "
		    "chained options say %s", a->policy, policy_name(
		    (enum fault_policy)ms.val[MSET_POLICY]));
	if (ms.given[MSET_MAX_FAULTS] && ms.val[MSET_MAX_FAULTS] !=
	    a->max_faults)
		return au_fail(a, -1, -1, -1, "the max_faults column says "
		    "%lld, the chained options say %lld", a->max_faults,
		    ms.val[MSET_MAX_FAULTS]);
	for (k = MSET_MOVE_MS; k <= MSET_STARTUP_MS; k++)
		if (ms.given[k] && ms.val[k] != (k == MSET_MOVE_MS ?
		    a->move_ms : k == MSET_BANK_MS ? a->bank_ms :
		    a->startup_ms))
			return au_fail(a, -1, -1, -1, "the %s column "
			    "disagrees with the chained options (%lld)",
			    mset_name(k), ms.val[k]);
	mset_options(&ms, var, &a->opt);
	if (bri_options_check(&a->opt) != BRI_OK)
		return au_fail(a, -1, -1, -1, "options '%s' are out of the "
		    "rules' ranges (libbriscola(3))", au_safe(a->options,
		    strlen(a->options), buf, sizeof(buf)));
	return 0;
}

/*
 * Read match id's row into a, checking every type and bound; 1 if there
 * is no such match, -1 (with a->err) if the row is not one refd wrote.
 */
static int
au_header(struct au *a, long long id)
{
	sqlite3_stmt	*st;
	enum fault_policy pol;
	long long	 v;
	int		 rc, r = -1;

	if (sqlite3_prepare_v2(a->h, au_header_sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return au_fail(a, -1, -1, -1, "the log has no usable "
		    "matches table: %s", sqlite3_errmsg(a->h));
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			r = 1;
		else
			au_fail(a, -1, -1, -1, "the log cannot be read: %s",
			    sqlite3_errmsg(a->h));
		goto done;
	}
	a->id = id;
	if (au_col_text(a, st, 1, "variant", AU_WORDMAX, 0, a->variant,
	    sizeof(a->variant)) == -1 ||
	    au_col_text(a, st, 2, "options", AU_OPTMAX, 0, a->options,
	    sizeof(a->options)) == -1 ||
	    au_col_text(a, st, 3, "seed", AU_HEX, 0, a->seedhex,
	    sizeof(a->seedhex)) == -1 ||
	    au_col_text(a, st, 4, "commitment", AU_HEX, 0, a->commit,
	    sizeof(a->commit)) == -1 ||
	    au_col_text(a, st, 5, "rng", AU_WORDMAX, 0, a->rng,
	    sizeof(a->rng)) == -1 ||
	    au_col_int(a, st, 6, "move_ms", 0, INT_MAX, 0, &a->move_ms) ==
	    -1 ||
	    au_col_int(a, st, 7, "bank_ms", 0, INT_MAX, 0, &a->bank_ms) ==
	    -1 ||
	    au_col_int(a, st, 8, "startup_ms", 0, INT_MAX, 0,
	    &a->startup_ms) == -1 ||
	    au_col_text(a, st, 9, "policy", AU_WORDMAX, 0, a->policy,
	    sizeof(a->policy)) == -1 ||
	    au_col_int(a, st, 10, "max_faults", 0, INT_MAX, 0,
	    &a->max_faults) == -1 ||
	    au_col_int(a, st, 11, "tournament", 1, LLONG_MAX, 1,
	    &a->tournament) == -1 ||
	    au_col_text(a, st, 12, "started", AU_WORDMAX, 0, a->started,
	    sizeof(a->started)) == -1 ||
	    au_col_text(a, st, 13, "ended", AU_WORDMAX, 1, a->ended,
	    sizeof(a->ended)) == -1 ||
	    au_col_text(a, st, 14, "state", AU_WORDMAX, 0, a->state,
	    sizeof(a->state)) == -1 ||
	    au_col_text(a, st, 15, "result", AU_WORDMAX, 1, a->result,
	    sizeof(a->result)) == -1 ||
	    au_col_text(a, st, 16, "reason", AU_TEXTMAX, 1, a->reason,
	    sizeof(a->reason)) == -1 ||
	    au_col_text(a, st, 17, "mpoints", AU_WORDMAX, 1, a->mpoints,
	    sizeof(a->mpoints)) == -1 ||
	    au_col_text(a, st, 18, "chain0", AU_HEX, 0, a->chain0,
	    sizeof(a->chain0)) == -1 ||
	    au_col_int(a, st, 19, "end_no", 1, LLONG_MAX / 2, 1, &v) == -1 ||
	    au_col_text(a, st, 20, "final_chain", AU_HEX, 1, a->final,
	    sizeof(a->final)) == -1)
		goto done;
	a->end_no = v;
	if (au_col_int(a, st, 21, "chain_version", 1, 2, 0, &a->version) ==
	    -1 || au_col_text(a, st, 22, "prev", AU_HEX, 1, a->prev,
	    sizeof(a->prev)) == -1 || au_col_int(a, st, 23, "slot", 0,
	    INT_MAX, 1, &a->slot) == -1)
		goto done;
	if (a->version == 2 && !au_is_hex64(a->prev, strlen(a->prev))) {
		au_fail(a, -1, -1, -1, "prev, the log's head before the match, "
		    "is not 64 lowercase hex digits");
		goto done;
	}
	if (policy_parse(a->policy, &pol) == -1)
		au_fail(a, -1, -1, -1, "policy '%s' is neither forfeit nor "
		    "fallback", a->policy);
	else if (strcmp(a->state, "running") != 0 &&
	    strcmp(a->state, "done") != 0 && strcmp(a->state, "aborted") != 0)
		au_fail(a, -1, -1, -1, "state '%s' is not running, done or "
		    "aborted", a->state);
	else
		r = 0;
done:
	sqlite3_finalize(st);
	return r;
}

/* Read the seats: one row for each seat of the variant, none more. */
static int
au_seats(struct au *a)
{
	sqlite3_stmt	*st;
	struct au_seat	*s;
	long long	 n;
	int		 i = 0, rc;

	if (sqlite3_prepare_v2(a->h, au_seats_sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return au_fail(a, -1, -1, -1, "the log has no usable seats "
		    "table: %s", sqlite3_errmsg(a->h));
	sqlite3_bind_int64(st, 1, a->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (au_col_int(a, st, 0, "seats.seat", 0, BRI_MAXSEATS - 1, 0,
		    &n) == -1)
			break;
		if (n != i || i >= a->nseats) {
			au_fail(a, -1, -1, (int)n, "a seats row where %s has "
			    "%d seats", a->variant, a->nseats);
			break;
		}
		s = &a->seat[i++];
		if (au_col_text(a, st, 1, "seats.bot", AU_WORDMAX, 0, s->bot,
		    sizeof(s->bot)) == -1 ||
		    au_col_text(a, st, 2, "seats.name", AU_TEXTMAX, 1,
		    s->name, sizeof(s->name)) == -1 ||
		    au_col_text(a, st, 3, "seats.version", AU_TEXTMAX, 1,
		    s->version, sizeof(s->version)) == -1 ||
		    au_col_text(a, st, 4, "seats.kind", AU_WORDMAX, 0,
		    s->kind, sizeof(s->kind)) == -1 ||
		    au_col_text(a, st, 5, "seats.identity", AU_TEXTMAX, 0,
		    s->identity, sizeof(s->identity)) == -1)
			break;
	}
	sqlite3_finalize(st);
	if (a->err[0] != '\0')
		return -1;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return au_fail(a, -1, -1, -1, "the seats cannot be read: %s",
		    sqlite3_errmsg(a->h));
	if (i != a->nseats)
		return au_fail(a, -1, -1, i, "no seats row, where %s has %d "
		    "seats", a->variant, a->nseats);
	return 0;
}

/*
 * Read the stream's current row into r: every number an integer in its
 * range, every text text of bounded length, the link 64 hex digits.
 * Fails naming the row's table and link number.
 */
int
au_row_read(struct au *a, sqlite3_stmt *st, struct au_row *r)
{
	const struct au_spec	*sp;
	char			 what[96], val[256];
	long long		 k;
	int			 i, t;

	memset(r, 0, sizeof(*r));
	a->at_deal = -1;
	if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
	    (k = sqlite3_column_int64(st, 1)) < 0 || k >= AU_NKINDS)
		return au_fail(a, -1, -1, -1, "the stream query went wrong");
	r->kind = (enum au_kind)k;
	sp = &au_specs[r->kind];
	if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
		if (r->kind == AU_MATCHEND)
			return au_fail(a, -1, -1, -1, "the match has a "
			    "final_chain but end_no is %s",
			    au_value(st, 0, val, sizeof(val)));
		return au_fail(a, -1, -1, -1, "a %s row's chain_no is %s, "
		    "not a link number", sp->table,
		    au_value(st, 0, val, sizeof(val)));
	}
	r->no = (long long)sqlite3_column_int64(st, 0);
	if (r->no < 1 || r->no > LLONG_MAX / 2)
		return au_fail(a, -1, -1, -1, "a %s row's chain_no %lld is "
		    "not a link number", sp->table, r->no);
	if (sp->deal_lo >= 0) {
		snprintf(what, sizeof(what), "the %s row at link %lld: deal_no",
		    sp->table, r->no);
		if (au_col_int(a, st, 2, what, sp->deal_lo, AU_MAXDEALS, 0,
		    &r->deal) == -1)
			return -1;
		a->at_deal = r->deal;
	}
	for (i = 0; i < sp->nnum; i++) {
		snprintf(what, sizeof(what), "the %s row at link %lld: %s",
		    sp->table, r->no, sp->num[i]);
		if (au_col_int(a, st, 3 + i, what, sp->lo[i], sp->hi[i],
		    sp->numnull[i], &r->v[i]) == -1)
			return -1;
	}
	for (i = 0; i < sp->ntext; i++) {
		snprintf(what, sizeof(what), "the %s row at link %lld: %s",
		    sp->table, r->no, sp->text[i]);
		t = sqlite3_column_type(st, 9 + i);
		if (t == SQLITE_NULL && sp->null[i])
			continue;
		if (t != SQLITE_TEXT)
			return au_fail(a, r->deal, -1, -1, "%s is %s, not text",
			    what, au_value(st, 9 + i, val, sizeof(val)));
		r->s[i] = (const char *)sqlite3_column_text(st, 9 + i);
		r->slen[i] = sqlite3_column_bytes(st, 9 + i);
		if (r->s[i] == NULL)
			return au_fail(a, r->deal, -1, -1, "%s cannot be read: "
			    "%s", what, sqlite3_errmsg(a->h));
		if (r->slen[i] > sp->max[i])
			return au_fail(a, r->deal, -1, -1, "%s is %d bytes "
			    "long, over %d", what, r->slen[i], sp->max[i]);
		if (!((r->kind == AU_FAULT && i == 1) ||
		    (r->kind == AU_MATCHEND && i == 2) ||
		    ((r->kind == AU_PLAY || r->kind == AU_BID ||
		    r->kind == AU_CALLED) && i == 2) || r->kind == AU_SEAT) &&
		    memchr(r->s[i], '\0', (size_t)r->slen[i]) != NULL)
			return au_fail(a, r->deal, -1, -1, "%s holds a NUL "
			    "byte", what);
	}
	a->at_deal = -1;
	if (sqlite3_column_type(st, 13) != SQLITE_TEXT)
		return au_fail(a, r->deal, -1, -1, "the %s row at link %lld: "
		    "its link is %s, not text", sp->table, r->no,
		    au_value(st, 13, val, sizeof(val)));
	r->link = (const char *)sqlite3_column_text(st, 13);
	r->linklen = sqlite3_column_bytes(st, 13);
	if (!au_is_hex64(r->link, (size_t)r->linklen))
		return au_fail(a, r->deal, -1, -1, "the %s row at link %lld: "
		    "its stored link is not 64 lowercase hex digits",
		    sp->table, r->no);
	return 0;
}

/*
 * The row's canonical text, the bytes its link hashes, built from the
 * stored bytes by chain.c, the code refd writes with, in the form of the
 * match's chain_version; -1 if it does not fit or lacks what that
 * version chains.
 */
int
au_text(const struct au_row *r, int version, struct chain_text *l)
{
	/* version 2 chains the time, limit and answer of plays and faults */
	if (version == 2 && (((r->kind == AU_PLAY || r->kind == AU_FAULT) &&
	    (r->s[r->kind == AU_PLAY ? 1 : 3] == NULL ||
	    r->v[r->kind == AU_PLAY ? 5 : 2] < 0)) ||
	    (r->kind == AU_MATCHEND && r->s[3] == NULL)))
		return -1;
	if (version != 2 && r->kind == AU_SEAT)
		return -1;
	switch (r->kind) {
	case AU_DEAL:
		/* no turned card: NULL, "-" in the text (schema 4) */
		chain_deal(l, r->deal, r->v[0], r->s[2] != NULL ? r->s[2] :
		    "-", r->s[2] != NULL ? (size_t)r->slen[2] : 1,
		    r->s[1], (size_t)r->slen[1], r->s[0], (size_t)r->slen[0]);
		break;
	case AU_PLAY:
		if (version == 2)
			chain_play2(l, r->deal, r->v[0], r->v[1], r->v[2],
			    r->s[0], (size_t)r->slen[0], r->v[3], r->v[4],
			    r->s[1], (size_t)r->slen[1], r->v[5],
			    r->s[2] != NULL ? r->s[2] : "",
			    (size_t)r->slen[2]);
		else
			chain_play(l, r->deal, r->v[0], r->v[1], r->v[2],
			    r->s[0], (size_t)r->slen[0], r->v[3], r->v[4]);
		break;
	case AU_JOKER:
		chain_joker(l, r->deal, r->v[0]);
		break;
	case AU_TRICK:
		chain_trick(l, r->deal, r->v[0], r->v[1], r->v[2]);
		break;
	case AU_FAULT:
		if (version == 2)
			chain_fault2(l, r->deal, r->v[0], r->s[0],
			    (size_t)r->slen[0], r->v[1], r->s[2],
			    (size_t)r->slen[2], r->s[1], (size_t)r->slen[1],
			    r->s[3], (size_t)r->slen[3], r->v[2]);
		else
			chain_fault(l, r->deal, r->v[0], r->s[0],
			    (size_t)r->slen[0], r->v[1], r->s[2],
			    (size_t)r->slen[2], r->s[1], (size_t)r->slen[1]);
		break;
	case AU_DEALEND:
		chain_dealend(l, r->deal, r->s[0], (size_t)r->slen[0], r->v[0],
		    r->s[1], (size_t)r->slen[1], r->s[2], (size_t)r->slen[2]);
		break;
	case AU_MATCHEND:
		if (version == 2)
			chain_matchend2(l, r->s[0], (size_t)r->slen[0],
			    r->s[1], (size_t)r->slen[1], r->s[3],
			    (size_t)r->slen[3], r->s[2], (size_t)r->slen[2]);
		else
			chain_matchend(l, r->s[0], (size_t)r->slen[0],
			    r->s[1], (size_t)r->slen[1], r->s[2],
			    (size_t)r->slen[2]);
		break;
	case AU_BID:
		chain_bid(l, r->deal, r->v[0], r->v[1], r->s[0],
		    (size_t)r->slen[0], r->v[2], r->v[3], r->s[1],
		    (size_t)r->slen[1], r->v[4], r->s[2] != NULL ? r->s[2] : "",
		    (size_t)r->slen[2]);
		break;
	case AU_CALLED:
		chain_called(l, r->deal, r->v[0], r->v[1], r->s[0],
		    (size_t)r->slen[0], r->v[5], r->v[2], r->v[3], r->s[1],
		    (size_t)r->slen[1], r->v[4], r->s[2] != NULL ? r->s[2] : "",
		    (size_t)r->slen[2]);
		break;
	case AU_ANSWER:
		chain_answer(l, r->deal, r->v[0], r->v[1], r->s[0],
		    (size_t)r->slen[0], r->v[2], r->s[1], (size_t)r->slen[1],
		    r->s[2], (size_t)r->slen[2]);
		break;
	case AU_SEAT:
		chain_seat(l, r->v[0], r->s[0], (size_t)r->slen[0],
		    r->v[1] ? "remote" : "spawn", r->v[1] ? 6 : 5, r->s[1],
		    (size_t)r->slen[1], r->s[2], (size_t)r->slen[2], r->s[3],
		    (size_t)r->slen[3]);
		break;
	default:
		return -1;
	}
	return l->overflow ? -1 : 0;
}

/* The first word of a kind of row's text, or "?" for no kind. */
const char *
au_kind_word(long long kind)
{
	return kind >= 0 && kind < AU_NKINDS ? au_specs[kind].word : "?";
}

/* A row in a few words, for saying what the log has where. */
static const char *
au_row_desc(const struct au_row *r, char *buf, size_t len)
{
	char	 t[3][48];
	int	 i;

	for (i = 0; i < 3; i++)
		au_safe(r->s[i], r->s[i] != NULL ? (size_t)r->slen[i] : 0,
		    t[i], sizeof(t[i]));
	switch (r->kind) {
	case AU_DEAL:
		snprintf(buf, len, "deal %lld dealt", r->deal);
		break;
	case AU_SEAT:
		snprintf(buf, len, "seat %lld's bot (%s)", r->v[0], t[0]);
		break;
	case AU_PLAY:
		snprintf(buf, len, "play seq %lld of seat %lld (%s)", r->v[0],
		    r->v[2], t[0]);
		break;
	case AU_JOKER:
		snprintf(buf, len, "a Joker (seat %lld)", r->v[0]);
		break;
	case AU_TRICK:
		snprintf(buf, len, "the end of trick %lld (seat %lld, %lld "
		    "points)", r->v[0], r->v[1], r->v[2]);
		break;
	case AU_FAULT:
		snprintf(buf, len, "a fault of seat %lld (%s, %s)", r->v[0],
		    t[0], t[2]);
		break;
	case AU_DEALEND:
		snprintf(buf, len, "the end of deal %lld (%s)", r->deal,
		    t[0]);
		break;
	case AU_BID:
		snprintf(buf, len, "call seq %lld of seat %lld (%s)", r->v[0],
		    r->v[1], t[0]);
		break;
	case AU_CALLED:
		snprintf(buf, len, "the called card %s of seat %lld", t[0],
		    r->v[1]);
		break;
	case AU_ANSWER:
		snprintf(buf, len, "a %s answer of seat %lld to its line %lld",
		    t[0], r->v[0], r->v[1]);
		break;
	default:
		snprintf(buf, len, "the match's end (%s)", t[0]);
		break;
	}
	return buf;
}

/* Cards as "1C 3S" into buf. */
const char *
au_cards(const bri_card *c, int n, char *buf, size_t len)
{
	char	 one[BRI_CARD_STRLEN];
	size_t	 at = 0;
	int	 i;

	buf[0] = '\0';
	for (i = 0; i < n && at + BRI_CARD_STRLEN + 1 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
		    i ? " " : "", bri_card_format(c[i], one));
	return buf;
}

/* Integers as "1,0,2", the form of points and mpoints in the log. */
static const char *
au_ints(const int *v, int n, char *buf, size_t len)
{
	size_t	 at = 0;
	int	 i;

	buf[0] = '\0';
	for (i = 0; i < n && at + 13 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%d",
		    i ? "," : "", v[i]);
	return buf;
}


/* Is a deal being played in the replay right now? */
int
au_deal_active(const struct au *a)
{
	return a->bm.ndeals > 0 && !a->bm.deal.over;
}

/* The trick in play (log numbering, from 0), or -1 between deals. */
static int
au_trick_now(const struct au *a)
{
	return au_deal_active(a) ? a->bm.deal.trick : -1;
}

/*
 * Is r the row refd had to write next?  After a play it owes, in order,
 * the Joker, the trick and the deal's end the rules say it caused; after
 * a fallback fault, the fallback play; after a forfeit, only the end.
 */
static int
au_expect(struct au *a, const struct au_row *r)
{
	char		 want[96], got[256], c[BRI_CARD_STRLEN];
	enum au_kind	 k;
	long long	 deal = a->bm.ndeals;
	int		 aborted;

	aborted = r->kind == AU_MATCHEND && r->slen[0] == 7 &&
	    memcmp(r->s[0], "aborted", 7) == 0;
	au_row_desc(r, got, sizeof(got));
	if (a->over)
		return au_fail(a, r->deal, -1, -1, "link %lld, %s, comes after "
		    "the match's end", r->no, got);
	if (a->forfeit_seat >= 0 && r->kind != AU_MATCHEND)
		return au_fail(a, deal, au_trick_now(a), a->forfeit_seat,
		    "the seat forfeited the match, yet the log goes on with "
		    "%s", got);
	if (a->fb_seat >= 0 && r->kind != a->fb_kind && !aborted)
		return au_fail(a, deal, au_trick_now(a), a->fb_seat, "the "
		    "fallback fault announced %s, but the log goes on with "
		    "%s", a->fb_kind == AU_BID ? "a pass" :
		    a->fb_kind == AU_CALLED ? "the caller's suit" :
		    bri_card_format(a->fb_card, c), got);
	if (a->ipend < a->npend && r->kind != a->pend[a->ipend] &&
	    !aborted) {
		k = a->pend[a->ipend];
		if (k == AU_JOKER)
			snprintf(want, sizeof(want), "the Joker (seat %d)",
			    a->ev.joker);
		else if (k == AU_TRICK)
			snprintf(want, sizeof(want), "the end of trick %d "
			    "(seat %d, %d points)", a->ev_trick,
			    a->ev.trick_winner, a->ev.trick_points);
		else
			snprintf(want, sizeof(want), "the end of deal %lld",
			    deal);
		return au_fail(a, deal, a->ev_trick, r->kind == AU_PLAY ?
		    (int)r->v[2] : r->kind == AU_FAULT ||
		    r->kind == AU_JOKER ? (int)r->v[0] : -1, "the rules make "
		    "%s the next row, the log has %s", want, got);
	}
	return 0;
}

/*
 * A deal row: the next deal of the match, whose deck, removed 2, trump
 * and dealer are those the seed gives (bri_shuffle, bri_first_dealer and
 * the rotation of libbriscola(3)).
 */
static int
au_deal(struct au *a, const struct au_row *r)
{
	bri_card	 deck[BRI_NCARDS], removed, c;
	const struct bri_variant_info *vi = bri_variant_info(a->opt.variant);
	char		 want[BRI_CARD_STRLEN], got[80], where[48];
	const char	*s = r->s[0], *end, *sp;
	int		 n, i, dealer, nd = a->bm.ndeals, ns = a->nseats;
	int		 dealt = vi->handsize * ns;	/* then trump, stock */

	if (au_deal_active(a))
		return au_fail(a, nd, a->bm.deal.trick, a->bm.deal.turn,
		    "play seq %d is missing: the log deals deal %lld "
		    "instead", a->bm.deal.nplays, r->deal);
	if (a->version == 2 && nd == 0 && a->nseatrows != ns)
		return au_fail(a, r->deal, -1, -1, "%d of the %d seats are "
		    "chained before the first deal", a->nseatrows, ns);
	if (a->bm.result != BRI_MATCH_PLAYING)
		return au_fail(a, r->deal, -1, -1, "the match was over by the "
		    "rules after deal %d, yet the log deals again", nd);
	if (r->deal != nd + 1)
		return au_fail(a, r->deal, -1, -1, "the log deals deal %lld "
		    "where the next deal is %d", r->deal, nd + 1);
	n = bri_shuffle(&a->seed, &a->opt, nd, deck, &removed);
	if (n < 0)
		return au_fail(a, r->deal, -1, -1, "the seed deals nothing: %s",
		    bri_strerror(n));
	dealer = (bri_first_dealer(&a->seed, ns) + nd) % ns;
	if (r->v[0] != dealer)
		return au_fail(a, r->deal, -1, -1, "logged dealer seat %lld, "
		    "the seed and the rotation give seat %d", r->v[0],
		    dealer);
	end = s + r->slen[0];
	for (i = 0; i < n; i++) {
		if (i < dealt)
			snprintf(where, sizeof(where), "dealt to seat %d",
			    (dealer + 1 + i) % ns);
		else if (i == dealt && vi->turned)
			snprintf(where, sizeof(where), "the turned trump");
		else
			snprintf(where, sizeof(where), "stock card %d",
			    i - dealt - (vi->turned != 0));
		bri_card_format(deck[i], want);
		if (s >= end)
			return au_fail(a, r->deal, -1, -1, "the logged deck "
			    "ends after %d cards; the seed gives %d", i, n);
		if ((sp = memchr(s, ' ', (size_t)(end - s))) == NULL)
			sp = end;
		if ((size_t)(sp - s) != strlen(want) ||
		    memcmp(s, want, strlen(want)) != 0)
			return au_fail(a, r->deal, -1, i < dealt ?
			    (dealer + 1 + i) % ns : -1, "deck card %d (%s): "
			    "logged %s, the seed gives %s", i, where,
			    au_safe(s, (size_t)(sp - s), got, sizeof(got)),
			    want);
		s = sp < end ? sp + 1 : sp;
	}
	if (s < end || (r->slen[0] > 0 && end[-1] == ' '))
		return au_fail(a, r->deal, -1, -1, "the logged deck holds more "
		    "than the %d cards the seed gives", n);
	if (!vi->turned && r->s[2] != NULL)
		return au_fail(a, r->deal, -1, -1, "logged trump %s, but %s "
		    "turns no card", au_safe(r->s[2], (size_t)r->slen[2], got,
		    sizeof(got)), a->variant);
	if (vi->turned) {
		bri_card_format(deck[dealt], want);
		if (r->s[2] == NULL || (size_t)r->slen[2] != strlen(want) ||
		    memcmp(r->s[2], want, strlen(want)) != 0)
			return au_fail(a, r->deal, -1, -1, "logged trump %s, "
			    "the seed gives %s", r->s[2] == NULL ? "-" :
			    au_safe(r->s[2], (size_t)r->slen[2], got,
			    sizeof(got)), want);
	}
	if (removed == BRI_NOCARD && r->s[1] != NULL)
		return au_fail(a, r->deal, -1, -1, "logged removed 2 %s, but "
		    "%s removes none", au_safe(r->s[1], (size_t)r->slen[1],
		    got, sizeof(got)), a->variant);
	if (removed != BRI_NOCARD) {
		bri_card_format(removed, want);
		if (r->s[1] == NULL || (size_t)r->slen[1] != strlen(want) ||
		    memcmp(r->s[1], want, strlen(want)) != 0)
			return au_fail(a, r->deal, -1, -1, "logged removed 2 "
			    "%s, the seed gives %s", r->s[1] == NULL ? "-" :
			    au_safe(r->s[1], (size_t)r->slen[1], got,
			    sizeof(got)), want);
	}
	if (bri_match_deal(&a->bm) != BRI_OK || a->bm.deal.dealer != dealer)
		return au_fail(a, r->deal, -1, -1, "libbriscola cannot deal "
		    "it");
	for (i = 0; i < n; i++) {
		c = a->bm.deal.deck[i];
		if (c != deck[i])
			return au_fail(a, r->deal, -1, -1, "libbriscola deals "
			    "another deck than bri_shuffle");
	}
	a->npend = a->ipend = 0;
	return 0;
}

/*
 * A play row: the next card of the deal in play (no seq skipped or
 * repeated, the trick right), played by the seat whose turn it was from
 * its hand (bri_deal_check); a card refd chose for a fault (fault=1)
 * only right after the fallback fault that named it.
 */
static int
au_play(struct au *a, const struct au_row *r)
{
	struct bri_deal	*d = &a->bm.deal;
	char		 t[80], hand[BRI_MAXHAND * BRI_CARD_STRLEN + 4];
	char		 c1[BRI_CARD_STRLEN];
	bri_card	 c;
	int		 e, seq = (int)r->v[0], seat = (int)r->v[2];

	if (!au_deal_active(a))
		return au_fail(a, r->deal, (int)r->v[1], seat, "play seq %d "
		    "(%s) when no deal is in play (the last deal dealt is "
		    "%d)", seq, au_safe(r->s[0], (size_t)r->slen[0], t,
		    sizeof(t)), a->bm.ndeals);
	if (r->deal != a->bm.ndeals)
		return au_fail(a, a->bm.ndeals, d->trick, d->turn, "the log "
		    "has a play of deal %lld where the play seq %d of deal %d "
		    "belongs", r->deal, d->nplays, a->bm.ndeals);
	if (seq > d->nplays)
		return au_fail(a, r->deal, d->trick, d->turn, "play seq %d is "
		    "missing: the log goes on with seq %d", d->nplays, seq);
	if (seq < d->nplays)
		return au_fail(a, r->deal, (int)r->v[1], seat, "play seq %d "
		    "comes again, after seq %d", seq, d->nplays - 1);
	if (r->v[1] != d->trick)
		return au_fail(a, r->deal, d->trick, seat, "play seq %d: "
		    "logged trick %lld, the rules give trick %d", seq,
		    r->v[1], d->trick);
	if (seat != d->turn)
		return au_fail(a, r->deal, d->trick, seat, "play seq %d: "
		    "logged seat %d plays, the rules give seat %d's turn",
		    seq, seat, d->turn);
	if (bri_card_parse(r->s[0], (size_t)r->slen[0], &c) != BRI_OK ||
	    strlen(bri_card_format(c, c1)) != (size_t)r->slen[0] ||
	    memcmp(c1, r->s[0], (size_t)r->slen[0]) != 0)
		return au_fail(a, r->deal, d->trick, seat, "play seq %d: "
		    "logged card '%s' is not a card as refd writes one", seq,
		    au_safe(r->s[0], (size_t)r->slen[0], t, sizeof(t)));
	if (r->v[4] == 1 && a->fb_seat < 0)
		return au_fail(a, r->deal, d->trick, seat, "play seq %d (%s) "
		    "is marked fault=1, but no fallback fault precedes it",
		    seq, c1);
	if (a->fb_seat >= 0 && (r->v[4] != 1 || a->fb_seat != seat ||
	    a->fb_card != c))
		return au_fail(a, r->deal, d->trick, a->fb_seat, "the "
		    "fallback fault played %s, the log's next play is %s of "
		    "seat %d with fault=%lld", bri_card_format(a->fb_card, t),
		    c1, seat, r->v[4]);
	if ((e = bri_deal_check(d, seat, c)) != BRI_OK)
		return au_fail(a, r->deal, d->trick, seat, "play seq %d: "
		    "logged card %s, but %s (seat %d holds %s)", seq, c1,
		    bri_strerror(e), seat, au_cards(d->hand[seat],
		    d->nhand[seat], hand, sizeof(hand)));
	if (au_when(a, r, r->s[1], (size_t)r->slen[1]) == -1 ||
	    au_limits(a, r) == -1)
		return -1;
	a->ev_trick = d->trick;
	if ((e = bri_match_play(&a->bm, seat, c, &a->ev)) != BRI_OK)
		return au_fail(a, r->deal, a->ev_trick, seat, "play seq %d: "
		    "libbriscola refuses %s: %s", seq, c1, bri_strerror(e));
	a->fb_seat = -1;
	a->npend = a->ipend = 0;
	if (a->ev.joker != BRI_NOSEAT)
		a->pend[a->npend++] = AU_JOKER;
	if (a->ev.trick_done)
		a->pend[a->npend++] = AU_TRICK;
	if (a->ev.deal_over)
		a->pend[a->npend++] = AU_DEALEND;
	a->nplays++;
	if (a->bank > 0 && (r->v[4] == 0 || a->fb_charged))
		a->bank_left[seat] -= r->v[3];
	return 0;
}

/* A jokers row: the seat the last play made Joker. */
static int
au_joker(struct au *a, const struct au_row *r)
{
	if (a->ipend >= a->npend || a->pend[a->ipend] != AU_JOKER)
		return au_fail(a, r->deal, a->ev_trick, (int)r->v[0], "logged "
		    "Joker seat %lld, but no Joker was made by the play "
		    "before it", r->v[0]);
	a->ipend++;
	if (r->deal != a->bm.ndeals)
		return au_fail(a, a->bm.ndeals, a->ev_trick, -1, "the Joker "
		    "row is logged for deal %lld", r->deal);
	if (r->v[0] != a->ev.joker)
		return au_fail(a, r->deal, a->ev_trick, (int)r->v[0], "logged "
		    "Joker seat %lld, the rules give seat %d", r->v[0],
		    a->ev.joker);
	return 0;
}

/* The cards of the trick just completed, for a message about it. */
static const char *
au_trick_cards(const struct au *a, char *buf, size_t len)
{
	const struct bri_deal	*d = &a->bm.deal;
	char			 c1[BRI_CARD_STRLEN];
	size_t			 at = 0;
	int			 i, first = a->ev_trick * d->nseats;

	buf[0] = '\0';
	for (i = first; i < first + d->nseats && i < d->nplays &&
	    at + 24 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%sseat %d %s",
		    i > first ? ", " : "", d->playseat[i],
		    bri_card_format(d->plays[i], c1));
	if (at + 12 < len)
		snprintf(buf + at, len - at, "; trump %c",
		    bri_suit_letter(d->trumpsuit));
	return buf;
}

/* A tricks row: the winner and points the rules give the last trick. */
static int
au_trick(struct au *a, const struct au_row *r)
{
	char	 t[128];

	if (a->ipend >= a->npend || a->pend[a->ipend] != AU_TRICK)
		return au_fail(a, r->deal, (int)r->v[0], -1, "an end of trick "
		    "(seat %lld, %lld points) where no trick was completed",
		    r->v[1], r->v[2]);
	a->ipend++;
	if (r->deal != a->bm.ndeals || r->v[0] != a->ev_trick)
		return au_fail(a, a->bm.ndeals, a->ev_trick, -1, "the end of "
		    "this trick is logged as deal %lld trick %lld", r->deal,
		    r->v[0]);
	if (r->v[1] != a->ev.trick_winner)
		return au_fail(a, r->deal, a->ev_trick, -1, "logged winner "
		    "%lld, the rules give %d (%s)", r->v[1],
		    a->ev.trick_winner, au_trick_cards(a, t, sizeof(t)));
	if (r->v[2] != a->ev.trick_points)
		return au_fail(a, r->deal, a->ev_trick, -1, "logged %lld "
		    "points, the rules give %d (%s)", r->v[2],
		    a->ev.trick_points, au_trick_cards(a, t, sizeof(t)));
	return 0;
}

/*
 * A fault in chiamata5's auction that the policy forgives costs a pass
 * (in the bidding) or the documented suit (botproto_fallback_suit(),
 * when the caller names it): "fallback pass", "fallback suit X".
 */
static int
au_fault_auction(struct au *a, const struct au_row *r, int seat, int k,
    const char *kind, const char *act, int can_fb)
{
	struct bri_deal	*d = &a->bm.deal;
	char		 want[AU_WORDMAX + 1], t[96];
	int		 bid = d->phase == BRI_PHASE_AUCTION, suit = 0;

	if (bid)
		snprintf(want, sizeof(want), "fallback pass");
	else {
		suit = botproto_fallback_suit(d, seat);
		snprintf(want, sizeof(want), "fallback suit %c",
		    bri_suit_letter(suit));
	}
	if (strncmp(act, "fallback ", 9) != 0)
		return au_fail(a, r->deal, -1, seat, "fault action '%s' in "
		    "the auction is neither forfeit nor %s", au_safe(act,
		    strlen(act), t, sizeof(t)), want);
	if (!can_fb)
		return au_fail(a, r->deal, -1, seat, "fault %d of the seat "
		    "(%s) costs %s, but the policy (%s, max_faults=%d) "
		    "forfeits it%s", k, kind, act, a->policy, a->faults_max,
		    d->turn != seat ? ": not its turn" : "");
	if (strcmp(act, want) != 0)
		return au_fail(a, r->deal, -1, seat, "logged %s, the "
		    "documented fallback is %s", au_safe(act, strlen(act), t,
		    sizeof(t)), want);
	a->fb_seat = seat;
	a->fb_kind = bid ? AU_BID : AU_CALLED;
	a->fb_suit = suit;
	return 0;
}

/*
 * A calls row of kind bid: the next call of the auction in play, made
 * by the seat whose turn it is, legal by libbriscola
 * (bri_deal_bid_check); a pass refd made for a fault (fault=1) only
 * right after the fallback fault that named it.
 */
static int
au_bid(struct au *a, const struct au_row *r)
{
	struct bri_deal	*d = &a->bm.deal;
	char		 t[80];
	int		 e, rank, seq = (int)r->v[0], seat = (int)r->v[1];

	if (!au_deal_active(a) || r->deal != a->bm.ndeals ||
	    d->phase != BRI_PHASE_AUCTION)
		return au_fail(a, r->deal, -1, seat, "call seq %d (%s) when "
		    "no auction is in play", seq, au_safe(r->s[0],
		    (size_t)r->slen[0], t, sizeof(t)));
	if (seq != d->ncalls)
		return au_fail(a, r->deal, -1, seat, "call seq %d where the "
		    "auction's next call is seq %d", seq, d->ncalls);
	if (seat != d->turn)
		return au_fail(a, r->deal, -1, seat, "call seq %d: logged "
		    "seat %d calls, the rules give seat %d's turn", seq, seat,
		    d->turn);
	if (r->v[5] != -1)
		return au_fail(a, r->deal, -1, seat, "call seq %d names a "
		    "partner (%lld): only the called card has one", seq,
		    r->v[5]);
	if (botproto_parse_bid(r->s[0], (size_t)r->slen[0], &rank) == -1)
		return au_fail(a, r->deal, -1, seat, "call seq %d: logged "
		    "call '%s' is neither pass nor a rank", seq,
		    au_safe(r->s[0], (size_t)r->slen[0], t, sizeof(t)));
	if (r->v[3] == 1 && (a->fb_seat != seat || a->fb_kind != AU_BID ||
	    rank != BRI_PASS))
		return au_fail(a, r->deal, -1, seat, "call seq %d is marked "
		    "fault=1, but no fallback fault of the seat announced "
		    "this pass", seq);
	if (a->fb_seat >= 0 && r->v[3] != 1)
		return au_fail(a, r->deal, -1, a->fb_seat, "the fallback "
		    "fault announced a pass, the log's next call is seat "
		    "%d's with fault=0", seat);
	if ((e = bri_deal_bid_check(d, seat, rank)) != BRI_OK)
		return au_fail(a, r->deal, -1, seat, "call seq %d: logged "
		    "%.*s, but %s", seq, r->slen[0], r->s[0], bri_strerror(e));
	if (au_when(a, r, r->s[1], (size_t)r->slen[1]) == -1 ||
	    au_limits(a, r) == -1)
		return -1;
	if ((e = bri_match_bid(&a->bm, seat, rank, &a->ev)) != BRI_OK)
		return au_fail(a, r->deal, -1, seat, "call seq %d: libbriscola "
		    "refuses it: %s", seq, bri_strerror(e));
	a->fb_seat = -1;
	a->npend = a->ipend = 0;
	if (a->ev.deal_over)
		a->pend[a->npend++] = AU_DEALEND;
	if (a->bank > 0 && (r->v[3] == 0 || a->fb_charged))
		a->bank_left[seat] -= r->v[2];
	return 0;
}

/*
 * A calls row of kind call: the caller names the suit, so the card
 * called, of the rank he named; its holder, by the deck, is the
 * partner, and the deal's copies (deals.called, caller, partner) say
 * the same.
 */
static int
au_called(struct au *a, const struct au_row *r)
{
	struct bri_deal	*d = &a->bm.deal;
	sqlite3_stmt	*st;
	char		 t[80], c1[BRI_CARD_STRLEN];
	const char	*cc;
	bri_card	 c;
	int		 e, ok, seq = (int)r->v[0], seat = (int)r->v[1];

	if (!au_deal_active(a) || r->deal != a->bm.ndeals ||
	    d->phase != BRI_PHASE_CALL)
		return au_fail(a, r->deal, -1, seat, "a called card (%s) when "
		    "no caller is naming a suit", au_safe(r->s[0],
		    (size_t)r->slen[0], t, sizeof(t)));
	if (seq != d->ncalls)
		return au_fail(a, r->deal, -1, seat, "the called card has seq "
		    "%d, the auction's next is seq %d", seq, d->ncalls);
	if (bri_card_parse(r->s[0], (size_t)r->slen[0], &c) != BRI_OK ||
	    strlen(bri_card_format(c, c1)) != (size_t)r->slen[0] ||
	    memcmp(c1, r->s[0], (size_t)r->slen[0]) != 0)
		return au_fail(a, r->deal, -1, seat, "the called card '%s' is "
		    "not a card as refd writes one", au_safe(r->s[0],
		    (size_t)r->slen[0], t, sizeof(t)));
	if (BRI_CARD_RANK(c) != d->bid)
		return au_fail(a, r->deal, -1, seat, "the called card %s is "
		    "not of the rank the auction ended on (%d)", c1, d->bid);
	if (r->v[3] == 1 && (a->fb_seat != seat || a->fb_kind != AU_CALLED ||
	    BRI_CARD_SUIT(c) != a->fb_suit))
		return au_fail(a, r->deal, -1, seat, "the called card %s is "
		    "marked fault=1, but no fallback fault named its suit",
		    c1);
	if (a->fb_seat >= 0 && r->v[3] != 1)
		return au_fail(a, r->deal, -1, a->fb_seat, "the fallback "
		    "fault named a suit, the log's called card has fault=0");
	if ((e = bri_deal_call_check(d, seat, BRI_CARD_SUIT(c))) != BRI_OK)
		return au_fail(a, r->deal, -1, seat, "the called card %s: %s",
		    c1, bri_strerror(e));
	if (au_when(a, r, r->s[1], (size_t)r->slen[1]) == -1 ||
	    au_limits(a, r) == -1)
		return -1;
	if ((e = bri_match_call(&a->bm, seat, BRI_CARD_SUIT(c))) != BRI_OK)
		return au_fail(a, r->deal, -1, seat, "libbriscola refuses the "
		    "called card %s: %s", c1, bri_strerror(e));
	if (r->v[5] != d->partner)
		return au_fail(a, r->deal, -1, seat, "logged partner seat "
		    "%lld, but seat %d holds %s", r->v[5], d->partner, c1);
	/* the deal's copies, outside the chain, must agree with it */
	ok = 0;
	if (sqlite3_prepare_v2(a->h, "SELECT called, caller, partner FROM "
	    "deals WHERE match_id = ?1 AND deal_no = ?2", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, a->id);
		sqlite3_bind_int64(st, 2, r->deal);
		if (sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_type(st, 1) == SQLITE_INTEGER &&
		    sqlite3_column_type(st, 2) == SQLITE_INTEGER &&
		    (cc = (const char *)sqlite3_column_text(st, 0)) != NULL)
			ok = strcmp(cc, c1) == 0 &&
			    sqlite3_column_int64(st, 1) == seat &&
			    sqlite3_column_int64(st, 2) == d->partner;
		sqlite3_finalize(st);
	}
	if (!ok)
		return au_fail(a, r->deal, -1, seat, "the deal's called, "
		    "caller and partner columns disagree with the chained "
		    "called card %s of seat %d, held by seat %d", c1, seat,
		    d->partner);
	a->called_seen = 1;
	a->fb_seat = -1;
	a->npend = a->ipend = 0;
	if (a->bank > 0 && (r->v[3] == 0 || a->fb_charged))
		a->bank_left[seat] -= r->v[2];
	return 0;
}

/*
 * An answers row (schema 7): an answer of a seat that its receipt's
 * hash counts and no move row holds, in its deal, at its time; "late"
 * ones no more than the seat's moves that timed out (checked at the
 * end: one read past its limit is chained before its time-out), a
 * "note" never the bare "=" refd does not log.
 */
static int
au_answer(struct au *a, const struct au_row *r)
{
	char	 t[96];
	int	 seat = (int)r->v[0], late;

	if (seat >= a->nseats)
		return au_fail(a, r->deal, -1, -1, "an answer of seat %d in "
		    "a %d-seat match", seat, a->nseats);
	if (r->deal != a->bm.ndeals)
		return au_fail(a, r->deal, -1, seat, "an answer logged in "
		    "deal %lld while deal %d is played", r->deal,
		    a->bm.ndeals);
	late = r->slen[0] == 4 && memcmp(r->s[0], "late", 4) == 0;
	if (!late && !(r->slen[0] == 4 && memcmp(r->s[0], "note", 4) ==
	    0) && !(r->slen[0] == 4 && memcmp(r->s[0], "move", 4) == 0))
		return au_fail(a, r->deal, -1, seat, "an answer of kind '%s', "
		    "not late, note or move", au_safe(r->s[0],
		    (size_t)r->slen[0], t, sizeof(t)));
	if (r->slen[2] < 1 || (r->s[2][0] != '=' && r->s[2][0] != '?'))
		return au_fail(a, r->deal, -1, seat, "an answer '%s' that is "
		    "neither = nor ?", au_safe(r->s[2], (size_t)r->slen[2], t,
		    sizeof(t)));
	if (r->s[0][0] == 'n' && r->slen[2] == 1 && r->s[2][0] == '=')
		return au_fail(a, r->deal, -1, seat, "a bare '=' to a "
		    "notification is logged, which refd never logs");
	if (au_when(a, r, r->s[1], (size_t)r->slen[1]) == -1)
		return -1;
	if (late)
		a->nlate[seat]++;
	return 0;
}

/*
 * The deal just walked (a->bm.ndeals, none before the first) read no
 * called card: in another variant, in a void deal of chiamata5 or one
 * cut short in its auction.  Its called, caller and partner columns,
 * copies of a called card, must then be NULL (refd-log(5)).
 */
static int
au_uncalled(struct au *a)
{
	sqlite3_stmt	*st;
	const char	*col[] = { "called", "caller", "partner" };
	char		 v[3][24];
	int		 i, set = 0;

	if (a->bm.ndeals == 0 || a->called_seen)
		return 0;
	if (sqlite3_prepare_v2(a->h, "SELECT called, caller, partner FROM "
	    "deals WHERE match_id = ?1 AND deal_no = ?2", -1, &st, NULL) !=
	    SQLITE_OK)
		return au_fail(a, a->bm.ndeals, -1, -1, "the deal's called "
		    "card cannot be read: %s", sqlite3_errmsg(a->h));
	sqlite3_bind_int64(st, 1, a->id);
	sqlite3_bind_int64(st, 2, a->bm.ndeals);
	if (sqlite3_step(st) == SQLITE_ROW)
		for (i = 0; i < 3; i++) {
			if (sqlite3_column_type(st, i) == SQLITE_NULL) {
				snprintf(v[i], sizeof(v[i]), "NULL");
				continue;
			}
			set = 1;
			au_safe((const char *)sqlite3_column_text(st, i),
			    (size_t)sqlite3_column_bytes(st, i), v[i],
			    sizeof(v[i]));
		}
	sqlite3_finalize(st);
	if (!set)
		return 0;
	return au_fail(a, a->bm.ndeals, -1, -1, "no called card is chained "
	    "in this deal (%s), yet its %s, %s and %s columns say %s, %s, "
	    "%s: they must be NULL", bri_variant_info(a->opt.variant)->auction
	    ? (a->bm.deal.over ? "a void deal" : "cut short in its auction") :
	    "no auction in this variant", col[0], col[1], col[2], v[0], v[1],
	    v[2]);
}

/*
 * A faults row, judged by the policy in force: under forfeit, or at the
 * seat's max_faults-th fault, or for a fault that is no move fault of
 * the seat to play, the match is forfeited; a refused or illegal move
 * before that costs the fallback card, and a timed-out move may cost
 * either (a notification's timeout forfeits).
 */
static int
au_fault(struct au *a, const struct au_row *r)
{
	struct bri_deal	*d = &a->bm.deal;
	char		 act[AU_WORDMAX + 1], kind[AU_WORDMAX + 1], t[96];
	char		 c1[BRI_CARD_STRLEN];
	bri_card	 c, fb;
	int		 seat = (int)r->v[0], k, move, can_fb, must_fb, trick;

	trick = au_trick_now(a);
	if (seat >= a->nseats)
		return au_fail(a, r->deal, trick, seat, "a fault of a seat "
		    "%s does not have", a->variant);
	if (r->deal != a->bm.ndeals)
		return au_fail(a, r->deal, -1, seat, "a fault logged in deal "
		    "%lld while deal %d was the last dealt", r->deal,
		    a->bm.ndeals);
	if (au_when(a, r, r->s[3], (size_t)r->slen[3]) == -1 ||
	    au_limits(a, r) == -1)
		return -1;
	memcpy(kind, r->s[0], (size_t)r->slen[0]);
	kind[r->slen[0]] = '\0';
	memcpy(act, r->s[2], (size_t)r->slen[2]);
	act[r->slen[2]] = '\0';
	k = ++a->nfault[seat];
	move = strcmp(kind, "timeout") == 0 || strcmp(kind, "refused") == 0 ||
	    strcmp(kind, "illegal") == 0;
	can_fb = a->fallback && k < a->faults_max && au_deal_active(a) &&
	    d->turn == seat && move;
	must_fb = can_fb && strcmp(kind, "timeout") != 0;
	a->fb_charged = strcmp(kind, "timeout") != 0;
	/* a command asked and timed out: its answer may come late */
	if (strcmp(kind, "timeout") == 0 && !(r->slen[1] >= 19 &&
	    memcmp(r->s[1], "time bank exhausted", 19) == 0))
		a->ntimeout[seat]++;
	if (strcmp(act, "forfeit") == 0) {
		if (must_fb)
			return au_fail(a, r->deal, trick, seat, "fault %d of "
			    "the seat (%s) under policy fallback with "
			    "max_faults=%d must cost the fallback card %s, "
			    "the log says forfeit", k, kind, a->faults_max,
			    bri_card_format(botproto_fallback(d, seat), c1));
		a->forfeit_seat = seat;
		snprintf(a->forfeit_kind, sizeof(a->forfeit_kind), "%s", kind);
		return 0;
	}
	if (au_deal_active(a) && d->phase != BRI_PHASE_PLAY)
		return au_fault_auction(a, r, seat, k, kind, act, can_fb);
	if (strncmp(act, "fallback ", 9) != 0 ||
	    bri_card_parse(act + 9, strlen(act + 9), &c) != BRI_OK ||
	    strcmp(act + 9, bri_card_format(c, c1)) != 0)
		return au_fail(a, r->deal, trick, seat, "fault action '%s' is "
		    "neither forfeit nor fallback CARD", au_safe(act,
		    strlen(act), t, sizeof(t)));
	if (!can_fb)
		return au_fail(a, r->deal, trick, seat, "fault %d of the seat "
		    "(%s) costs %s, but the policy (%s, max_faults=%d) "
		    "forfeits it%s", k, kind, act, a->policy, a->faults_max,
		    au_deal_active(a) && d->turn != seat ? ": not its turn" :
		    "");
	fb = botproto_fallback(d, seat);
	if (c != fb)
		return au_fail(a, r->deal, trick, seat, "logged %s, the "
		    "documented fallback card of the hand %s is %s", act,
		    au_cards(d->hand[seat], d->nhand[seat], t, sizeof(t)),
		    bri_card_format(fb, c1));
	a->fb_seat = seat;
	a->fb_card = c;
	a->fb_kind = AU_PLAY;
	return 0;
}

/* A deal_results row: the result, points and match points of the deal. */
static int
au_dealend(struct au *a, const struct au_row *r)
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
	struct bri_deal	*d = &a->bm.deal;
	char		 want[64], got[80];
	int		 p[BRI_MAXSEATS], i;

	if (a->ipend >= a->npend || a->pend[a->ipend] != AU_DEALEND)
		return au_fail(a, r->deal, -1, -1, "an end of deal where the "
		    "rules end none (%d of %d cards played)", d->nplays,
		    d->ncards);
	a->ipend++;
	if (r->deal != a->bm.ndeals)
		return au_fail(a, a->bm.ndeals, -1, -1, "its end is logged as "
		    "deal %lld", r->deal);
	if (d->result >= sizeof(results) / sizeof(results[0]) ||
	    results[d->result] == NULL)
		return au_fail(a, r->deal, -1, -1, "libbriscola ends the deal "
		    "with no result");
	if ((size_t)r->slen[0] != strlen(results[d->result]) ||
	    memcmp(r->s[0], results[d->result], (size_t)r->slen[0]) != 0)
		return au_fail(a, r->deal, -1, -1, "logged result %s, the "
		    "rules give %s", au_safe(r->s[0], (size_t)r->slen[0], got,
		    sizeof(got)), results[d->result]);
	if (r->v[0] != d->winner)
		return au_fail(a, r->deal, -1, -1, "logged deal winner %lld, "
		    "the rules give %d", r->v[0], d->winner);
	for (i = 0; i < a->nseats; i++)
		p[i] = d->points[i];
	au_ints(p, a->nseats, want, sizeof(want));
	if ((size_t)r->slen[1] != strlen(want) ||
	    memcmp(r->s[1], want, strlen(want)) != 0)
		return au_fail(a, r->deal, -1, -1, "logged card points %s, "
		    "the rules give %s", au_safe(r->s[1], (size_t)r->slen[1],
		    got, sizeof(got)), want);
	au_ints(a->bm.mpoints, a->nseats, want, sizeof(want));
	if ((size_t)r->slen[2] != strlen(want) ||
	    memcmp(r->s[2], want, strlen(want)) != 0)
		return au_fail(a, r->deal, -1, -1, "logged match points %s, "
		    "the rules give %s", au_safe(r->s[2], (size_t)r->slen[2],
		    got, sizeof(got)), want);
	a->ndone++;
	return 0;
}

/*
 * The match's end: after a forfeit the forfeiting seat's forfeitN;
 * played out, the winner (seatN or teamN) or a draw at the deal cap;
 * aborted at any time by the operator or a failure.  The match points
 * are the replay's and the state follows the result.
 */
static int
au_matchend(struct au *a, const struct au_row *r)
{
	char	 want[AU_WORDMAX], got[96];
	int	 aborted;

	aborted = r->slen[0] == 7 && memcmp(r->s[0], "aborted", 7) == 0;
	if (a->forfeit_seat >= 0)
		snprintf(want, sizeof(want), "forfeit%d", a->forfeit_seat);
	else if (aborted)
		snprintf(want, sizeof(want), "aborted");
	else if (a->bm.result == BRI_MATCH_WON)
		snprintf(want, sizeof(want), "%s%d",
		    bri_variant_info(a->opt.variant)->sides ==
		    BRI_SIDES_ALTERNATE ? "team" : "seat", a->bm.winner);
	else if (a->bm.result == BRI_MATCH_DRAWN)
		snprintf(want, sizeof(want), "draw");
	else
		return au_fail(a, a->bm.ndeals, -1, -1, "logged result %s, but "
		    "by the rules the match is not over (match points %s "
		    "after deal %d)", au_safe(r->s[0], (size_t)r->slen[0],
		    got, sizeof(got)), au_ints(a->bm.mpoints, a->nseats,
		    want, sizeof(want)), a->bm.ndeals);
	if ((size_t)r->slen[0] != strlen(want) ||
	    memcmp(r->s[0], want, strlen(want)) != 0)
		return au_fail(a, a->bm.ndeals, -1, -1, "logged match result "
		    "%s, the %s give %s", au_safe(r->s[0], (size_t)r->slen[0],
		    got, sizeof(got)), a->forfeit_seat >= 0 ? "faults" :
		    "rules", want);
	au_ints(a->bm.mpoints, a->nseats, want, sizeof(want));
	if (((size_t)r->slen[1] != strlen(want) ||
	    memcmp(r->s[1], want, strlen(want)) != 0) &&
	    !(r->slen[1] == 0 && a->bm.ndeals == 0 && a->version != 2))
		return au_fail(a, a->bm.ndeals, -1, -1, "logged final match "
		    "points %s, the rules give %s", au_safe(r->s[1],
		    (size_t)r->slen[1], got, sizeof(got)), want);
	if (strcmp(a->state, aborted ? "aborted" : "done") != 0)
		return au_fail(a, -1, -1, -1, "the match ended %s, but its "
		    "state is %s", aborted ? "aborted" : "with a result",
		    a->state);
	if (r->no != a->end_no)
		return au_fail(a, -1, -1, -1, "the end's link is %lld, "
		    "end_no says %lld", r->no, a->end_no);
	if (a->version == 2 && (strcmp(a->ended, a->started) < 0 ||
	    strcmp(a->ended, a->last_at) < 0))
		return au_fail(a, -1, -1, -1, "the match ended at %s, before "
		    "%s", a->ended, strcmp(a->ended, a->started) < 0 ?
		    "it started" : "its last play or fault");
	a->over = 1;
	return 0;
}

/*
 * The row's place and link in the chain: the next link number, and a
 * link that is BLAKE2b-256 of the link before and the row's text.
 */
static int
au_chain(struct au *a, const struct au_row *r)
{
	struct chain_text l;
	uint8_t		 link[CHAIN_HASHLEN];
	char		 hex[AU_HEX + 1], desc[256];
	long long	 deal = r->deal > 0 ? r->deal : a->bm.ndeals;
	int		 trick = -1, seat = -1;

	if (r->kind == AU_PLAY) {
		trick = (int)r->v[1];
		seat = (int)r->v[2];
	} else if (r->kind == AU_TRICK)
		trick = (int)r->v[0];
	else if (r->kind == AU_FAULT || r->kind == AU_JOKER ||
	    r->kind == AU_SEAT)
		seat = (int)r->v[0];
	else if (r->kind == AU_BID || r->kind == AU_CALLED)
		seat = (int)r->v[1];
	au_row_desc(r, desc, sizeof(desc));
	if (a->err[0] == '\0')
		a->err_chain = 1;	/* unless it holds */
	if (r->no != a->links + 1)
		return au_fail(a, deal, trick, seat, "%s has link number "
		    "%lld where the chain is at %lld: %s", desc, r->no,
		    a->links + 1, r->no > a->links + 1 ? "rows were removed" :
		    "a row was added or renumbered");
	if (au_text(r, (int)a->version, &l) == -1)
		return au_fail(a, deal, trick, seat, "%s: its text is too "
		    "long for a link", desc);
	if (!chain_check(a->link, &l, r->link, link)) {
		util_hex(link, sizeof(link), hex);
		if (r->kind == AU_MATCHEND)
			return au_fail(a, -1, -1, -1, "the chain breaks at "
			    "the match's end (link %lld): final_chain %.64s, "
			    "the chain gives %s", r->no, r->link, hex);
		return au_fail(a, deal, trick, seat, "the chain breaks at "
		    "link %lld, %s: its stored link does not follow from "
		    "link %lld and its text, so this row or one before it "
		    "was changed", r->no, desc, r->no - 1);
	}
	memcpy(a->link, link, sizeof(link));
	a->links = r->no;
	a->err_chain = 0;
	return 0;
}

/*
 * chain_version 2's header text, from the matches row and the seats'
 * bots: what link 0 hashes.
 */
static void
au_header2(struct au *a, struct chain_text *l)
{
	struct chain_header	 h;
	char			 names[BRI_MAXSEATS * (AU_WORDMAX + 24)];
	size_t			 at = 0;
	int			 i;

	names[0] = '\0';
	for (i = 0; i < a->nseats; i++)
		at += (size_t)snprintf(names + at, sizeof(names) - at,
		    "%s%zu:%s", i ? "," : "", strlen(a->seat[i].bot),
		    a->seat[i].bot);
	memset(&h, 0, sizeof(h));
	h.id = a->id;
	h.variant = a->variant;
	h.options = a->options;
	h.commit = a->commit;
	h.rng = a->rng;
	h.prev = a->prev;
	h.started = a->started;
	h.move_ms = a->move_ms;
	h.bank_ms = a->bank_ms;
	h.startup_ms = a->startup_ms;
	h.policy = a->policy;
	h.max_faults = a->max_faults;
	h.tournament = a->tournament > 0 ? a->tournament : -1;
	h.slot = a->tournament > 0 ? a->slot : -1;
	h.seats = names;
	chain_match2(l, &h);
}

/*
 * A seats row of chain_version 2, chained once the seat's bot answered
 * name and version, before the first deal: once per seat, and with an
 * identity that is one: "argv:" and the hash of a spawned bot's command
 * line, or the peer address of a remote bot.
 */
static int
au_seatrow(struct au *a, const struct au_row *r)
{
	char	 t[96];
	int	 seat = (int)r->v[0], i;

	if (a->version != 2)
		return au_fail(a, -1, -1, seat, "a chained seats row in a "
		    "match of chain_version 1");
	if (seat >= a->nseats)
		return au_fail(a, -1, -1, seat, "a seat %s does not have",
		    a->variant);
	if (a->bm.ndeals > 0)
		return au_fail(a, a->bm.ndeals, -1, seat, "the seat's answers "
		    "are chained after the first deal");
	if (a->nseatrow[seat]++ > 0)
		return au_fail(a, -1, -1, seat, "the seat is chained twice");
	a->nseatrows++;
	if (r->v[1] == 0) {
		for (i = 5; i < r->slen[1]; i++)
			if (!((r->s[1][i] >= '0' && r->s[1][i] <= '9') ||
			    (r->s[1][i] >= 'a' && r->s[1][i] <= 'f')))
				break;
		if (r->slen[1] != 5 + AU_HEX || memcmp(r->s[1], "argv:", 5) !=
		    0 || i != r->slen[1])
			return au_fail(a, -1, -1, seat, "the spawned bot's "
			    "identity '%s' is not argv: and the hash of its "
			    "command line", au_safe(r->s[1], (size_t)r->slen[1],
			    t, sizeof(t)));
	} else if (r->slen[1] == 0 || (r->slen[1] == 6 &&
	    memcmp(r->s[1], "remote", 6) == 0))
		return au_fail(a, -1, -1, seat, "the remote bot's identity "
		    "'%s' is no peer address", au_safe(r->s[1],
		    (size_t)r->slen[1], t, sizeof(t)));
	return 0;
}

/*
 * chain_version 2: the time of a play or fault (at, n bytes) is a time
 * refd writes, no earlier than the match's start or the row before, and
 * no later than its end.
 */
static int
au_when(struct au *a, const struct au_row *r, const char *at, size_t n)
{
	char	 t[AU_WORDMAX + 1], s[96];
	int	 seat = (int)r->v[r->kind == AU_PLAY ? 2 : 0];
	int	 trick = r->kind == AU_PLAY ? (int)r->v[1] : au_trick_now(a);

	if (a->version != 2)
		return 0;
	if (n != 24 || at[10] != 'T' || at[23] != 'Z') 
		return au_fail(a, r->deal, trick, seat, "the time '%s' is not "
		    "UTC ISO 8601 with milliseconds", au_safe(at, n, s,
		    sizeof(s)));
	memcpy(t, at, n);
	t[n] = '\0';
	if (strcmp(t, a->started) < 0)
		return au_fail(a, r->deal, trick, seat, "logged at %s, before "
		    "the match started (%s)", t, a->started);
	if (strcmp(t, a->last_at) < 0)
		return au_fail(a, r->deal, trick, seat, "logged at %s, before "
		    "the row before it (%s)", t, a->last_at);
	if (a->ended[0] != '\0' && strcmp(t, a->ended) > 0)
		return au_fail(a, r->deal, trick, seat, "logged at %s, after "
		    "the match ended (%s)", t, a->ended);
	memcpy(a->last_at, t, n + 1);
	return 0;
}

/*
 * chain_version 2: the limit in force (never over move_ms; without a
 * bank, move_ms itself; with one, no more than the bank the logged times
 * leave), a bot's play within it and its answer the card played, and a
 * time-out that took at least the limit.
 */
static int
au_limits(struct au *a, const struct au_row *r)
{
	char		 t[96], c1[BRI_CARD_STRLEN];
	const char	*ans;
	long long	 limit, ms;
	size_t		 n;
	int		 seat, trick, play = r->kind == AU_PLAY;
	int		 call = r->kind == AU_BID || r->kind == AU_CALLED;

	if (a->version != 2)
		return 0;
	if (call)
		return au_limits_call(a, r);
	seat = (int)r->v[play ? 2 : 0];
	trick = play ? (int)r->v[1] : au_trick_now(a);
	limit = r->v[play ? 5 : 2];
	ms = r->v[play ? 3 : 1];
	if (limit > a->move_ms)
		return au_fail(a, r->deal, trick, seat, "the limit in force is "
		    "logged as %lld ms, over move_ms %lld", limit, a->move_ms);
	if (a->bank_ms == 0 && limit != a->move_ms && au_deal_active(a))
		return au_fail(a, r->deal, trick, seat, "the limit in force is "
		    "logged as %lld ms, but without a bank it is move_ms %lld",
		    limit, a->move_ms);
	if (a->bank_ms > 0 && a->nfault[seat] == 0 && au_deal_active(a) &&
	    limit > a->bank_left[seat])
		return au_fail(a, r->deal, trick, seat, "the limit in force is "
		    "logged as %lld ms, but the seat's logged times leave "
		    "%lld ms of its bank", limit, a->bank_left[seat]);
	if (play && r->v[4] == 0 && ms > limit)
		return au_fail(a, r->deal, trick, seat, "play seq %lld took "
		    "%lld ms, over the %lld ms limit in force, yet it stands",
		    r->v[0], ms, limit);
	if (!play && r->slen[0] == 7 && memcmp(r->s[0], "timeout", 7) == 0 &&
	    ms < limit)
		return au_fail(a, r->deal, trick, seat, "a time-out after %lld "
		    "ms, within the %lld ms limit in force", ms, limit);
	if (play && r->v[4] == 0) {
		ans = r->s[2];
		n = ans != NULL ? (size_t)r->slen[2] : 0;
		snprintf(c1, sizeof(c1), "%.*s", r->slen[0], r->s[0]);
		if (n < 1 + strlen(c1) || ans[0] != '=' ||
		    memcmp(ans + 1, c1, strlen(c1)) != 0 ||
		    (n > 1 + strlen(c1) && ans[1 + strlen(c1)] != ' '))
			return au_fail(a, r->deal, trick, seat, "play seq %lld "
			    "is %s, but the bot answered '%s'", r->v[0], c1,
			    au_safe(ans, n, t, sizeof(t)));
	}
	return 0;
}

/*
 * au_limits() of a call or the called card: the limit in force as for a
 * play, the bot's time within it, and its answer the call (pass or the
 * rank) or the suit of the called card, in either case.
 */
static int
au_limits_call(struct au *a, const struct au_row *r)
{
	char		 t[96], w[8];
	const char	*ans = r->s[2];
	long long	 limit = r->v[4], ms = r->v[2];
	size_t		 n = ans != NULL ? (size_t)r->slen[2] : 0, wl;
	int		 seat = (int)r->v[1];

	if (limit > a->move_ms || (a->bank_ms == 0 && limit != a->move_ms))
		return au_fail(a, r->deal, -1, seat, "the limit in force is "
		    "logged as %lld ms, but move_ms is %lld", limit,
		    a->move_ms);
	if (a->bank_ms > 0 && a->nfault[seat] == 0 &&
	    limit > a->bank_left[seat])
		return au_fail(a, r->deal, -1, seat, "the limit in force is "
		    "logged as %lld ms, but the seat's logged times leave "
		    "%lld ms of its bank", limit, a->bank_left[seat]);
	if (r->v[3] != 0)
		return 0;
	if (ms > limit)
		return au_fail(a, r->deal, -1, seat, "%s took %lld ms, over "
		    "the %lld ms limit in force, yet it stands",
		    r->kind == AU_BID ? "a call" : "the caller's suit", ms,
		    limit);
	if (r->kind == AU_BID)
		snprintf(w, sizeof(w), "%.*s", r->slen[0], r->s[0]);
	else
		snprintf(w, sizeof(w), "%c", r->s[0][r->slen[0] - 1]);
	wl = strlen(w);
	if (n < 1 + wl || ans[0] != '=' || (r->kind == AU_BID ?
	    memcmp(ans + 1, w, wl) != 0 :
	    (ans[1] & ~0x20) != w[0]) ||
	    (n > 1 + wl && ans[1 + wl] != ' ' && ans[1 + wl] != '\n'))
		return au_fail(a, r->deal, -1, seat, "logged %s, but the bot "
		    "answered '%s'", w, au_safe(ans, n, t, sizeof(t)));
	return 0;
}

/*
 * The receipt refd sent with match_end, as the log chain has it: the
 * signed "end" event of the match and the key in force then.  Left
 * empty when the log has none; the log chain's audit judges the rest.
 */
static void
au_receipt(struct au *a)
{
	sqlite3_stmt	*st;
	const char	*link, *sig, *key, *text;
	char		 tx[CHAIN_TXMAX];
	long long	 no;

	a->receipt[0] = '\0';
	/* the key in force: a key event before, or the archive's head's */
	if (sqlite3_prepare_v2(a->h, "SELECT e.no, e.link, e.sig,"
	    " coalesce((SELECT substr(k.text, 5) FROM log_chain AS k WHERE"
	    " k.kind = 'key' AND k.no < e.no ORDER BY k.no DESC LIMIT 1),"
	    " (SELECT key FROM log_origin WHERE no < e.no)), e.text"
	    " FROM log_chain AS e"
	    " WHERE e.kind = 'end' AND e.match_id = ?1 ORDER BY e.no LIMIT 1",
	    -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, a->id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		no = sqlite3_column_int64(st, 0);
		link = (const char *)sqlite3_column_text(st, 1);
		sig = (const char *)sqlite3_column_text(st, 2);
		key = (const char *)sqlite3_column_text(st, 3);
		if (link != NULL && sig != NULL && key != NULL &&
		    au_is_hex64(link, strlen(link)) && strlen(sig) == 128 &&
		    strspn(sig, "0123456789abcdef") == 128 &&
		    au_is_hex64(key, strlen(key)))
			snprintf(a->receipt, sizeof(a->receipt), "head=%lld:%s "
			    "sig=%s key=%s", no, link, sig, key);
		/* the seat's own transcript hashes end its receipt */
		text = (const char *)sqlite3_column_text(st, 4);
		if (a->receipt[0] != '\0' && text != NULL &&
		    a->mode == AU_VIEW &&
		    chain_tx_find(text, a->vseat, tx, sizeof(tx)) == 1 &&
		    strcmp(tx, "-") != 0)
			snprintf(a->receipt + strlen(a->receipt),
			    sizeof(a->receipt) - strlen(a->receipt),
			    " transcript=%d:%s", a->vseat, tx);
	}
	sqlite3_finalize(st);
}

/*
 * Walk the match whose header is in a: the commitment, link 0, then
 * every chained row in link order, each checked against the replay and
 * then against the chain, the output of a->mode written as it goes.
 */
static int
au_walk(struct au *a)
{
	sqlite3_stmt	*st;
	struct au_row	 r;
	uint8_t		 commit[BRI_COMMITLEN], link[CHAIN_HASHLEN];
	char		 hex[AU_HEX + 1], rng[AU_WORDMAX];
	struct chain_text l;
	int		 rc, e;

	a->fb_seat = a->forfeit_seat = -1;
	if (au_options(a) == -1)
		return -1;
	if (a->mode == AU_VIEW && a->vseat >= a->nseats) {
		a->noseat = 1;
		return au_fail(a, -1, -1, -1, "%s has no seat %d", a->variant,
		    a->vseat);
	}
	if (au_seats(a) == -1)
		return -1;
	if (bri_seed_parse(a->seedhex, &a->seed) != BRI_OK ||
	    !au_is_hex64(a->seedhex, strlen(a->seedhex)))
		return au_fail(a, -1, -1, -1, "the seed is not 64 lowercase "
		    "hex digits");
	bri_seed_commit(&a->seed, commit);
	util_hex(commit, sizeof(commit), hex);
	if (strcmp(hex, a->commit) != 0)
		return au_fail(a, -1, -1, -1, "the seed does not match its "
		    "commitment: logged commitment %.64s, the seed gives %s",
		    a->commit, hex);
	snprintf(rng, sizeof(rng), "%s/%d", BRI_RNG_NAME, BRI_RNG_VERSION);
	if (strcmp(a->rng, rng) != 0)
		return au_fail(a, -1, -1, -1, "rng '%s' is not %s, the only "
		    "one this refctl knows", a->rng, rng);
	if (a->version == 2)
		au_header2(a, &l);
	else
		chain_match(&l, a->id, a->variant, a->options, a->commit,
		    a->rng);
	if (a->version == 2)
		chain_link0v(2, &l, link);
	if (a->version == 2 ? l.overflow || !chain_same(link, a->chain0) :
	    !chain_check(NULL, &l, a->chain0, link)) {
		util_hex(link, sizeof(link), hex);
		a->err_chain = 1;
		return au_fail(a, -1, -1, -1, "the chain breaks at link 0: "
		    "chain0 %.64s, the header gives %s (%s was changed)",
		    a->chain0, hex, a->version == 2 ? "the variant, options, "
		    "commitment, rng, the log's head before it, the start "
		    "time, a clock, the policy, the tournament slot or a "
		    "seat's bot" : "the variant, options, commitment or rng");
	}
	memcpy(a->link, link, sizeof(link));
	if ((e = bri_match_init(&a->bm, &a->opt, &a->seed)) != BRI_OK)
		return au_fail(a, -1, -1, -1, "libbriscola refuses the match: "
		    "%s", bri_strerror(e));
	for (e = 0; e < a->nseats; e++)
		a->bank_left[e] = a->bank;
	if (a->on_start != NULL)
		a->on_start(a);

	if (sqlite3_prepare_v2(a->h, au_stream_sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return au_fail(a, -1, -1, -1, "the log's tables cannot be "
		    "read: %s", sqlite3_errmsg(a->h));
	sqlite3_bind_int64(st, 1, a->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (au_row_read(a, st, &r) == -1 || au_expect(a, &r) == -1)
			break;
		switch (r.kind) {
		case AU_DEAL:
			if ((e = au_uncalled(a)) == 0)
				e = au_deal(a, &r);
			a->called_seen = 0;
			break;
		case AU_PLAY:
			e = au_play(a, &r);
			break;
		case AU_JOKER:
			e = au_joker(a, &r);
			break;
		case AU_TRICK:
			e = au_trick(a, &r);
			break;
		case AU_FAULT:
			e = au_fault(a, &r);
			break;
		case AU_DEALEND:
			e = au_dealend(a, &r);
			break;
		case AU_SEAT:
			e = au_seatrow(a, &r);
			break;
		case AU_BID:
			e = au_bid(a, &r);
			break;
		case AU_CALLED:
			e = au_called(a, &r);
			break;
		case AU_ANSWER:
			e = au_answer(a, &r);
			break;
		default:
			e = au_matchend(a, &r);
			break;
		}
		if (e == -1 || au_chain(a, &r) == -1)
			break;
		if (a->on_row != NULL)
			a->on_row(a, &r);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		au_fail(a, a->bm.ndeals, -1, -1, "the log cannot be read "
		    "after link %lld: %s%s", a->links, sqlite3_errmsg(a->h),
		    rc == SQLITE_TOOBIG ? " (a value over 4 MiB)" : "");
	sqlite3_finalize(st);
	if (a->err[0] == '\0')
		au_uncalled(a);
	for (e = 0; e < a->nseats && a->err[0] == '\0'; e++)
		if (a->nlate[e] > a->ntimeout[e])
			au_fail(a, -1, -1, e, "%d late answers of the seat are "
			    "chained, but only %d of its moves timed out",
			    a->nlate[e], a->ntimeout[e]);
	if (a->err[0] != '\0')
		return -1;
	/* rows missing at the end: the chain's to say */
	a->err_chain = !a->over;
	if (!a->over && strcmp(a->state, "done") == 0)
		return au_fail(a, a->bm.ndeals, -1, -1, "the match is done, "
		    "but its end is not in the chain after link %lld",
		    a->links);
	if (!a->over && a->final[0] != '\0')
		return au_fail(a, -1, -1, -1, "final_chain is set, but the "
		    "match's end is not in the chain");
	return 0;
}

/*
 * Audit (or show, in a->mode) match id: 0 verified, 1 failed (a->err),
 * 2 still running, 3 not in the log.
 */
int
au_match(struct au *a, long long id)
{
	struct au	 keep = *a;
	int		 r;

	/* the caller's settings stay, the walk starts afresh */
	memset(a, 0, sizeof(*a));
	a->h = keep.h;
	a->mode = keep.mode;
	a->out = keep.out;
	a->vseat = keep.vseat;
	a->only_deal = keep.only_deal;
	a->on_start = keep.on_start;
	a->on_row = keep.on_row;
	a->arg = keep.arg;
	a->end_no = -1;
	a->at_deal = -1;
	if ((r = au_header(a, id)) == 1)
		return 3;
	if (r == -1)
		return 1;
	au_receipt(a);
	if (strcmp(a->state, "running") == 0 && a->mode == AU_AUDIT)
		return 2;
	return au_walk(a) == -1 ? 1 : 0;
}

/* Parse a match id (or deal number) from the command line, or -1. */
long long
au_id(const char *s)
{
	const char	*errstr;
	long long	 v;

	v = util_num(s, 1, LLONG_MAX, &errstr);
	return errstr != NULL ? -1 : v;
}

/* Do the match's options hold the word kv ("sandbox=none")? */
int
au_option(const struct au *a, const char *kv)
{
	const char	*p = a->options;
	size_t		 n = strlen(kv);

	while ((p = strstr(p, kv)) != NULL) {
		if ((p == a->options || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ' '))
			return 1;
		p += n;
	}
	return 0;
}
