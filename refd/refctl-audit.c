/*
 * refctl-audit.c: refctl's offline tools for refd's log, which settle a
 * dispute from the SQLite file alone: audit (replay every match through
 * libbriscola and recompute its hash chain), show (a transcript, or
 * exactly the lines one seat was sent) and export (JSON).
 *
 * One walker serves all three: it reads a match's chained rows in link
 * order and checks each against what refd would have written at that
 * point of the replay, then against the chain.  Every rule comes from
 * libbriscola and every line a seat was sent from botproto, the code
 * refd itself runs.  The log is hostile input: each value is
 * type-checked and bounded before it is used, and SQLite refuses to hand
 * over any value longer than AU_SQLMAX.  See refd-audit(7).
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <sqlite3.h>

#include "briscola.h"
#include "botproto.h"
#include "db.h"
#include "refctl.h"
#include "util.h"

#define AU_CHAIN_TAG	"refd-chain-v1"	/* prefix of link 0 */
#define AU_HEX		(2 * DB_HASHLEN)	/* a link or seed in hex */
#define AU_WORDMAX	64		/* a word or refd's own phrase */
#define AU_TEXTMAX	1024		/* free text refd keeps */
#define AU_OPTMAX	1024		/* the options text */
#define AU_LINEMAX	4096		/* longest canonical text */
#define AU_ERRMAX	768		/* a discrepancy, in words */
#define AU_SQLMAX	(4 << 20)	/* longest value SQLite may return */
#define AU_MAXDEALS	100000		/* deal_cap's upper bound */
#define AU_CHUNK	28		/* bytes util_printable never cuts */

/* What the walker does with a match besides checking it. */
enum au_mode {
	AU_AUDIT,		/* one verdict line */
	AU_SHOW,		/* the transcript of the whole table */
	AU_VIEW,		/* the lines one seat was sent */
	AU_LINKS		/* the chain's texts and links, for export */
};

/* The chained rows, in the order the stream query sorts a tie. */
enum au_kind {
	AU_DEAL,
	AU_PLAY,
	AU_JOKER,
	AU_TRICK,
	AU_FAULT,
	AU_DEALEND,
	AU_MATCHEND,
	AU_NKINDS
};

/* How to read one kind of row: its numbers and texts, and their bounds. */
struct au_spec {
	const char	*word;		/* first word of its canonical text */
	const char	*table;		/* where it lives */
	int		 nnum;		/* numbers, in columns 3.. */
	const char	*num[5];	/* their column names */
	long long	 lo[5], hi[5];	/* their ranges */
	int		 ntext;		/* texts, in columns 8.. */
	const char	*text[3];	/* their column names */
	int		 max[3];	/* longest, in bytes */
	int		 null[3];	/* 1 if NULL is allowed */
	int		 deal_lo;	/* smallest deal_no, -1: no deal_no */
};

static const struct au_spec au_specs[AU_NKINDS] = {
	[AU_DEAL] = { "deal", "deals", 1, { "dealer" }, { 0 }, { 3 },
	    3, { "deck", "removed", "trump" }, { 200, 3, 3 }, { 0, 1, 0 }, 1 },
	[AU_PLAY] = { "play", "plays", 5,
	    { "seq", "trick", "seat", "ms", "fault" }, { 0, 0, 0, 0, 0 },
	    { 39, 19, 3, INT_MAX, 1 }, 1, { "card" }, { 3 }, { 0 }, 1 },
	[AU_JOKER] = { "joker", "jokers", 1, { "seat" }, { 0 }, { 3 },
	    0, { NULL }, { 0 }, { 0 }, 1 },
	[AU_TRICK] = { "trick", "tricks", 3, { "trick", "winner", "points" },
	    { 0, 0, 0 }, { 19, 3, 120 }, 0, { NULL }, { 0 }, { 0 }, 1 },
	[AU_FAULT] = { "fault", "faults", 2, { "seat", "ms" }, { 0, 0 },
	    { 3, INT_MAX }, 3, { "kind", "evidence", "action" },
	    { AU_WORDMAX, AU_TEXTMAX, AU_WORDMAX }, { 0, 0, 0 }, 0 },
	[AU_DEALEND] = { "dealend", "deal_results", 1, { "winner" }, { -1 },
	    { 3 }, 3, { "result", "points", "mpoints" }, { 16, 64, 64 },
	    { 0, 0, 0 }, 1 },
	[AU_MATCHEND] = { "matchend", "matches", 0, { NULL }, { 0 }, { 0 },
	    3, { "result", "mpoints", "reason" },
	    { AU_WORDMAX, 64, AU_TEXTMAX }, { 0, 0, 0 }, -1 },
};

/*
 * Every chained row of match ?1 in link order, in one shape: link number,
 * kind (enum au_kind), deal_no, five numbers, three texts, the stored
 * link, and a tie-breaker.  The match's end is the row of matches whose
 * link number is end_no and whose link is final_chain.
 */
static const char au_stream_sql[] =
    "SELECT chain_no, 0, deal_no, dealer, NULL, NULL, NULL, NULL,"
    " deck, removed, trump, chain, 0 FROM deals WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 1, deal_no, seq, trick, seat, ms, fault,"
    " card, NULL, NULL, chain, seq FROM plays WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 2, deal_no, seat, NULL, NULL, NULL, NULL,"
    " NULL, NULL, NULL, chain, 0 FROM jokers WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 3, deal_no, trick, winner, points, NULL,"
    " NULL, NULL, NULL, NULL, chain, trick FROM tricks WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 4, deal_no, seat, ms, NULL, NULL, NULL,"
    " kind, evidence, action, chain, id FROM faults WHERE match_id = ?1"
    " UNION ALL SELECT chain_no, 5, deal_no, winner, NULL, NULL, NULL, NULL,"
    " result, points, mpoints, chain, 0 FROM deal_results"
    " WHERE match_id = ?1"
    " UNION ALL SELECT end_no, 6, NULL, NULL, NULL, NULL, NULL, NULL,"
    " result, mpoints, reason, final_chain, 0 FROM matches WHERE id = ?1"
    " AND (end_no IS NOT NULL OR final_chain IS NOT NULL)"
    " ORDER BY 1, 2, 3, 13";

static const char au_header_sql[] =
    "SELECT id, variant, options, seed, commitment, rng, move_ms, bank_ms,"
    " startup_ms, policy, max_faults, tournament, started, ended, state,"
    " result, reason, mpoints, chain0, end_no, final_chain"
    " FROM matches WHERE id = ?1";

static const char au_seats_sql[] =
    "SELECT seat, bot, name, version, kind, identity FROM seats"
    " WHERE match_id = ?1 ORDER BY seat LIMIT 5";

/* One chained row as read: bounded and typed, texts valid until a step. */
struct au_row {
	enum au_kind	 kind;
	long long	 no;		/* link number */
	long long	 deal;		/* deal_no, 0 for the match's end */
	long long	 v[5];		/* numbers, as au_specs names them */
	const char	*s[3];		/* texts, NULL when NULL */
	int		 slen[3];	/* their lengths */
	const char	*link;		/* the stored link */
	int		 linklen;
};

/* A canonical text being built; what does not fit is an error. */
struct au_line {
	char		 buf[AU_LINEMAX];
	size_t		 len;
	int		 overflow;
};

/* One seat as the seats table has it. */
struct au_seat {
	char		 bot[AU_WORDMAX + 1];	/* registered name */
	char		 name[AU_TEXTMAX + 1];	/* answer to name */
	char		 version[AU_TEXTMAX + 1];
	char		 kind[AU_WORDMAX + 1];	/* spawn or remote */
	char		 identity[AU_TEXTMAX + 1];
};

/* One match being walked: its header, the replay, the chain. */
struct au {
	sqlite3		*h;		/* the log, read-only */
	enum au_mode	 mode;
	int		 vseat;		/* AU_VIEW: whose lines */
	long long	 only_deal;	/* AU_SHOW, AU_VIEW: 0 for all */
	FILE		*out;

	/* the header, as logged */
	long long	 id;
	char		 variant[AU_WORDMAX + 1];
	char		 options[AU_OPTMAX + 1];
	char		 seedhex[AU_HEX + 1];
	char		 commit[AU_HEX + 1];
	char		 rng[AU_WORDMAX + 1];
	char		 policy[AU_WORDMAX + 1];
	long long	 move_ms, bank_ms, startup_ms, max_faults;
	long long	 tournament;	/* -1 for none */
	char		 started[AU_WORDMAX + 1];
	char		 ended[AU_WORDMAX + 1];	/* "" while running */
	char		 state[AU_WORDMAX + 1];
	char		 result[AU_WORDMAX + 1];
	char		 reason[AU_TEXTMAX + 1];
	char		 mpoints[AU_WORDMAX + 1];
	char		 chain0[AU_HEX + 1];
	char		 final[AU_HEX + 1];	/* "" when NULL */
	long long	 end_no;	/* -1 when NULL */
	struct au_seat	 seat[BRI_MAXSEATS];

	/* what the chained options say */
	struct bri_options opt;
	struct bri_seed	 seed;
	int		 nseats;
	int		 fallback;	/* policy fallback */
	int		 faults_max;	/* max_faults in force */
	int		 move;		/* move_ms in force */
	int		 bank;		/* bank_ms in force */

	/* the replay */
	struct bri_match bm;
	struct bri_event ev;		/* of the last play */
	int		 ev_trick;	/* the trick that play was in */
	enum au_kind	 pend[3];	/* rows the last play still owes */
	int		 npend, ipend;
	int		 fb_seat;	/* a fallback fault awaits its play */
	bri_card	 fb_card;
	int		 forfeit_seat;	/* a fault forfeited the match */
	char		 forfeit_kind[AU_WORDMAX + 1];
	int		 over;		/* the match's end was read */
	int		 nfault[BRI_MAXSEATS];
	long long	 bank_left[BRI_MAXSEATS]; /* AU_VIEW: ms, estimated */
	int		 ndone;		/* deals with their result */
	long long	 nplays;
	int		 told_start;	/* AU_VIEW: match_start written */

	/* the chain */
	uint8_t		 link[DB_HASHLEN];
	long long	 links;		/* rows chained so far */
	int		 noseat;	/* AU_VIEW: no such seat (usage) */

	long long	 at_deal;	/* the deal of the row being read */
	char		 err[AU_ERRMAX];	/* the first discrepancy */
};

static int	 au_fail(struct au *, long long, int, int, const char *, ...)
		    __attribute__((__format__(__printf__, 5, 6)));
static void	 line_add(struct au_line *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));
static void	 line_mem(struct au_line *, const char *, size_t);
static void	 au_untrusted(FILE *, const char *, size_t);
static const char *au_safe(const char *, size_t, char *, size_t);
static const char *au_value(sqlite3_stmt *, int, char *, size_t);
static int	 au_col_int(struct au *, sqlite3_stmt *, int, const char *,
		    long long, long long, int, long long *);
static int	 au_col_text(struct au *, sqlite3_stmt *, int, const char *,
		    size_t, int, char *, size_t);
static int	 au_is_hex64(const char *, size_t);
static void	 au_hash(const uint8_t *, const char *, size_t, uint8_t *);
static int	 au_open(const char *, sqlite3 **);
static int	 au_options(struct au *);
static int	 au_header(struct au *, long long);
static int	 au_seats(struct au *);
static int	 au_row_read(struct au *, sqlite3_stmt *, struct au_row *);
static int	 au_text(const struct au_row *, struct au_line *);
static const char *au_row_desc(const struct au_row *, char *, size_t);
static const char *au_cards(const bri_card *, int, char *, size_t);
static const char *au_ints(const int *, int, char *, size_t);
static int	 au_deal_active(const struct au *);
static int	 au_trick_now(const struct au *);
static int	 au_expect(struct au *, const struct au_row *);
static int	 au_deal(struct au *, const struct au_row *);
static int	 au_play(struct au *, const struct au_row *);
static int	 au_joker(struct au *, const struct au_row *);
static const char *au_trick_cards(const struct au *, char *, size_t);
static int	 au_trick(struct au *, const struct au_row *);
static int	 au_fault(struct au *, const struct au_row *);
static int	 au_dealend(struct au *, const struct au_row *);
static int	 au_matchend(struct au *, const struct au_row *);
static int	 au_chain(struct au *, const struct au_row *);
static int	 au_walk(struct au *);
static int	 au_match(struct au *, long long);
static void	 show_header(struct au *);
static int	 show_wants(const struct au *, long long);
static void	 show_row(struct au *, const struct au_row *);
static void	 view_line(struct au *, const char *);
static void	 view_genplay(struct au *);
static void	 view_deal(struct au *);
static void	 view_play(struct au *);
static void	 view_end(struct au *);
static void	 json_str(FILE *, const char *, size_t);
static void	 json_col(FILE *, sqlite3_stmt *, int);
static void	 json_list(FILE *, sqlite3_stmt *, int, int);
static int	 json_rows(struct au *, sqlite3_stmt *, const char *const *,
		    const char *, int);
static int	 export_match(struct au *, long long);
static long long au_id(const char *);

/*
 * Record the first discrepancy of a match, located as precisely as the
 * walker knows it (deal, trick, seat; -1 for unknown), and return -1.
 */
static int
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

/* Append to a canonical text, remembering if it no longer fits. */
static void
line_add(struct au_line *l, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (l->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(l->buf) - l->len)
		l->overflow = 1;
	else
		l->len += (size_t)n;
}

/* Append bytes as stored (NULs included) to a canonical text. */
static void
line_mem(struct au_line *l, const char *s, size_t n)
{
	if (l->overflow)
		return;
	if (n >= sizeof(l->buf) - l->len) {
		l->overflow = 1;
		return;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	l->buf[l->len] = '\0';
}

/*
 * Print untrusted bytes whole but harmless: util_printable in chunks it
 * never cuts, so a bot's text can neither forge a line nor be lost.
 */
static void
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
static const char *
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
 * One link, as refd-log(5) defines it: BLAKE2b-256 of the previous
 * link's 32 bytes (or of the tag, for link 0, when prev is NULL)
 * followed by the text's bytes.
 */
static void
au_hash(const uint8_t *prev, const char *text, size_t len, uint8_t *out)
{
	crypto_generichash_state	 st;

	crypto_generichash_init(&st, NULL, 0, DB_HASHLEN);
	if (prev != NULL)
		crypto_generichash_update(&st, prev, DB_HASHLEN);
	else
		crypto_generichash_update(&st, (const unsigned char *)
		    AU_CHAIN_TAG, strlen(AU_CHAIN_TAG));
	crypto_generichash_update(&st, (const unsigned char *)text, len);
	crypto_generichash_final(&st, out, DB_HASHLEN);
}

/*
 * Open the log read-only.  db_open() first checks the schema version as
 * refd would; then a connection of our own that can never write and is
 * refused any value over AU_SQLMAX bytes.  Prints why on failure.
 */
static int
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
	sqlite3_limit(*hp, SQLITE_LIMIT_LENGTH, AU_SQLMAX);
	sqlite3_busy_timeout(*hp, 2000);
	sqlite3_exec(*hp, "PRAGMA query_only = 1", NULL, NULL, NULL);
	return 0;
}

/* Do the match's options hold the word kv? */
static int
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

/* Did the match's bots run unsandboxed?  Its options say so. */
static int
au_unsandboxed(const struct au *a)
{
	return au_option(a, "sandbox=none");
}

/*
 * Read the chained options text into a->opt and the policy in force:
 * target (or match_target), deals_to_win, deal_cap, removed_two, and the
 * clocks and policy, which must agree with their own columns.
 */
static int
au_options(struct au *a)
{
	char		 buf[AU_OPTMAX + 1], *w, *next, *eq, v[64];
	const char	*errstr, *key;
	enum bri_variant var;
	long long	 n;

	if (bri_variant_parse(a->variant, &var) != BRI_OK)
		return au_fail(a, -1, -1, -1, "variant '%s' is not one of "
		    "joker3, classic2, classic3, classic4",
		    au_safe(a->variant, strlen(a->variant), v, sizeof(v)));
	bri_options_default(&a->opt, var);
	a->nseats = bri_variant_seats(var);
	a->fallback = strcmp(a->policy, "fallback") == 0;
	a->faults_max = (int)a->max_faults;
	a->move = (int)a->move_ms;
	a->bank = (int)a->bank_ms;
	snprintf(buf, sizeof(buf), "%s", a->options);
	for (w = buf; w != NULL && *w != '\0'; w = next) {
		if ((next = strchr(w, ' ')) != NULL)
			*next++ = '\0';
		if ((eq = strchr(w, '=')) == NULL)
			return au_fail(a, -1, -1, -1, "options: '%s' is not "
			    "key=value", au_safe(w, strlen(w), v, sizeof(v)));
		*eq++ = '\0';
		key = w;
		if (strcmp(key, "removed_two") == 0) {
			if (strcmp(eq, "random") == 0 || strcmp(eq, "-1") == 0)
				a->opt.removed_two = -1;
			else if (strlen(eq) == 1 && strchr("CDBS", *eq) != NULL)
				a->opt.removed_two = (int)(strchr("CDBS", *eq) -
				    "CDBS");
			else if (strlen(eq) == 1 && *eq >= '0' && *eq <= '3')
				a->opt.removed_two = *eq - '0';
			else
				return au_fail(a, -1, -1, -1, "options: "
				    "removed_two=%s is no suit", au_safe(eq,
				    strlen(eq), v, sizeof(v)));
			continue;
		}
		if (strcmp(key, "policy") == 0) {
			if (strcmp(eq, a->policy) != 0)
				return au_fail(a, -1, -1, -1, "the policy "
				    "column says %s, the chained options say "
				    "%s", a->policy, au_safe(eq, strlen(eq), v,
				    sizeof(v)));
			continue;
		}
		n = util_num(eq, 0, INT_MAX, &errstr);
		if (errstr != NULL) {
			if (strcmp(key, "target") == 0 ||
			    strcmp(key, "match_target") == 0 ||
			    strcmp(key, "deals_to_win") == 0 ||
			    strcmp(key, "deal_cap") == 0 ||
			    strcmp(key, "move_ms") == 0 ||
			    strcmp(key, "bank_ms") == 0 ||
			    strcmp(key, "startup_ms") == 0 ||
			    strcmp(key, "max_faults") == 0)
				return au_fail(a, -1, -1, -1, "options: %s=%s "
				    "is %s", key, au_safe(eq, strlen(eq), v,
				    sizeof(v)), errstr);
			continue;	/* a key of a later refd */
		}
		if (strcmp(key, "target") == 0 ||
		    strcmp(key, "match_target") == 0)
			a->opt.match_target = (int)n;
		else if (strcmp(key, "deals_to_win") == 0)
			a->opt.deals_to_win = (int)n;
		else if (strcmp(key, "deal_cap") == 0)
			a->opt.deal_cap = (int)n;
		else if (strcmp(key, "max_faults") == 0) {
			if (n != a->max_faults)
				return au_fail(a, -1, -1, -1, "the max_faults "
				    "column says %lld, the chained options "
				    "say %lld", a->max_faults, n);
		} else if ((strcmp(key, "move_ms") == 0 && n != a->move_ms) ||
		    (strcmp(key, "bank_ms") == 0 && n != a->bank_ms) ||
		    (strcmp(key, "startup_ms") == 0 && n != a->startup_ms))
			return au_fail(a, -1, -1, -1, "the %s column "
			    "disagrees with the chained options (%lld)", key,
			    n);
	}
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
	if (strcmp(a->policy, "forfeit") != 0 &&
	    strcmp(a->policy, "fallback") != 0)
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
		if (au_col_int(a, st, 0, "seats.seat", 0, 3, 0, &n) == -1)
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
static int
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
		if (au_col_int(a, st, 3 + i, what, sp->lo[i], sp->hi[i], 0,
		    &r->v[i]) == -1)
			return -1;
	}
	for (i = 0; i < sp->ntext; i++) {
		snprintf(what, sizeof(what), "the %s row at link %lld: %s",
		    sp->table, r->no, sp->text[i]);
		t = sqlite3_column_type(st, 8 + i);
		if (t == SQLITE_NULL && sp->null[i])
			continue;
		if (t != SQLITE_TEXT)
			return au_fail(a, r->deal, -1, -1, "%s is %s, not text",
			    what, au_value(st, 8 + i, val, sizeof(val)));
		r->s[i] = (const char *)sqlite3_column_text(st, 8 + i);
		r->slen[i] = sqlite3_column_bytes(st, 8 + i);
		if (r->s[i] == NULL)
			return au_fail(a, r->deal, -1, -1, "%s cannot be read: "
			    "%s", what, sqlite3_errmsg(a->h));
		if (r->slen[i] > sp->max[i])
			return au_fail(a, r->deal, -1, -1, "%s is %d bytes "
			    "long, over %d", what, r->slen[i], sp->max[i]);
		if (!((r->kind == AU_FAULT && i == 1) ||
		    (r->kind == AU_MATCHEND && i == 2)) &&
		    memchr(r->s[i], '\0', (size_t)r->slen[i]) != NULL)
			return au_fail(a, r->deal, -1, -1, "%s holds a NUL "
			    "byte", what);
	}
	a->at_deal = -1;
	if (sqlite3_column_type(st, 11) != SQLITE_TEXT)
		return au_fail(a, r->deal, -1, -1, "the %s row at link %lld: "
		    "its link is %s, not text", sp->table, r->no,
		    au_value(st, 11, val, sizeof(val)));
	r->link = (const char *)sqlite3_column_text(st, 11);
	r->linklen = sqlite3_column_bytes(st, 11);
	if (!au_is_hex64(r->link, (size_t)r->linklen))
		return au_fail(a, r->deal, -1, -1, "the %s row at link %lld: "
		    "its stored link is not 64 lowercase hex digits",
		    sp->table, r->no);
	return 0;
}

/*
 * The row's canonical text, the bytes its link hashes, exactly as db.c
 * builds it (refd-log(5)); -1 if it does not fit.
 */
static int
au_text(const struct au_row *r, struct au_line *l)
{
	memset(l, 0, sizeof(*l));
	switch (r->kind) {
	case AU_DEAL:
		line_add(l, "deal %lld dealer=%lld trump=", r->deal, r->v[0]);
		line_mem(l, r->s[2], (size_t)r->slen[2]);
		line_add(l, " removed=");
		if (r->s[1] != NULL)
			line_mem(l, r->s[1], (size_t)r->slen[1]);
		else
			line_add(l, "-");
		line_add(l, " deck=");
		line_mem(l, r->s[0], (size_t)r->slen[0]);
		break;
	case AU_PLAY:
		line_add(l, "play %lld %lld trick=%lld seat=%lld card=",
		    r->deal, r->v[0], r->v[1], r->v[2]);
		line_mem(l, r->s[0], (size_t)r->slen[0]);
		line_add(l, " ms=%lld fault=%lld", r->v[3], r->v[4]);
		break;
	case AU_JOKER:
		line_add(l, "joker %lld seat=%lld", r->deal, r->v[0]);
		break;
	case AU_TRICK:
		line_add(l, "trick %lld %lld winner=%lld points=%lld", r->deal,
		    r->v[0], r->v[1], r->v[2]);
		break;
	case AU_FAULT:
		line_add(l, "fault %lld seat=%lld kind=", r->deal, r->v[0]);
		line_mem(l, r->s[0], (size_t)r->slen[0]);
		line_add(l, " ms=%lld action=", r->v[1]);
		line_mem(l, r->s[2], (size_t)r->slen[2]);
		line_add(l, " evidence=");
		line_mem(l, r->s[1], (size_t)r->slen[1]);
		break;
	case AU_DEALEND:
		line_add(l, "dealend %lld result=", r->deal);
		line_mem(l, r->s[0], (size_t)r->slen[0]);
		line_add(l, " winner=%lld points=", r->v[0]);
		line_mem(l, r->s[1], (size_t)r->slen[1]);
		line_add(l, " mpoints=");
		line_mem(l, r->s[2], (size_t)r->slen[2]);
		break;
	case AU_MATCHEND:
		line_add(l, "matchend result=");
		line_mem(l, r->s[0], (size_t)r->slen[0]);
		line_add(l, " mpoints=");
		line_mem(l, r->s[1], (size_t)r->slen[1]);
		line_add(l, " reason=");
		line_mem(l, r->s[2], (size_t)r->slen[2]);
		break;
	default:
		return -1;
	}
	return l->overflow ? -1 : 0;
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
	default:
		snprintf(buf, len, "the match's end (%s)", t[0]);
		break;
	}
	return buf;
}

/* Cards as "1C 3S" into buf. */
static const char *
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
static int
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
	if (a->fb_seat >= 0 && r->kind != AU_PLAY && !aborted)
		return au_fail(a, deal, au_trick_now(a), a->fb_seat, "the "
		    "fallback fault announced %s, but the log goes on with "
		    "%s", bri_card_format(a->fb_card, c), got);
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
	char		 want[BRI_CARD_STRLEN], got[80], where[48];
	const char	*s = r->s[0], *end, *sp;
	int		 n, i, dealer, nd = a->bm.ndeals, ns = a->nseats;

	if (au_deal_active(a))
		return au_fail(a, nd, a->bm.deal.trick, a->bm.deal.turn,
		    "play seq %d is missing: the log deals deal %lld "
		    "instead", a->bm.deal.nplays, r->deal);
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
		if (i < 3 * ns)
			snprintf(where, sizeof(where), "dealt to seat %d",
			    (dealer + 1 + i) % ns);
		else if (i == 3 * ns)
			snprintf(where, sizeof(where), "the turned trump");
		else
			snprintf(where, sizeof(where), "stock card %d",
			    i - 3 * ns);
		bri_card_format(deck[i], want);
		if (s >= end)
			return au_fail(a, r->deal, -1, -1, "the logged deck "
			    "ends after %d cards; the seed gives %d", i, n);
		if ((sp = memchr(s, ' ', (size_t)(end - s))) == NULL)
			sp = end;
		if ((size_t)(sp - s) != strlen(want) ||
		    memcmp(s, want, strlen(want)) != 0)
			return au_fail(a, r->deal, -1, i < 3 * ns ?
			    (dealer + 1 + i) % ns : -1, "deck card %d (%s): "
			    "logged %s, the seed gives %s", i, where,
			    au_safe(s, (size_t)(sp - s), got, sizeof(got)),
			    want);
		s = sp < end ? sp + 1 : sp;
	}
	if (s < end || (r->slen[0] > 0 && end[-1] == ' '))
		return au_fail(a, r->deal, -1, -1, "the logged deck holds more "
		    "than the %d cards the seed gives", n);
	bri_card_format(deck[3 * ns], want);
	if ((size_t)r->slen[2] != strlen(want) ||
	    memcmp(r->s[2], want, strlen(want)) != 0)
		return au_fail(a, r->deal, -1, -1, "logged trump %s, the seed "
		    "gives %s", au_safe(r->s[2], (size_t)r->slen[2], got,
		    sizeof(got)), want);
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
	char		 t[80], hand[BRI_HANDSIZE * BRI_CARD_STRLEN + 4];
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
	if (a->bank > 0)
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
		    "CDBS"[d->trumpsuit & 3]);
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
		    a->opt.variant == BRI_CLASSIC4 ? "team" : "seat",
		    a->bm.winner);
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
	    !(r->slen[1] == 0 && a->bm.ndeals == 0))
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
	struct au_line	 l;
	uint8_t		 link[DB_HASHLEN];
	char		 hex[AU_HEX + 1], desc[256];
	long long	 deal = r->deal > 0 ? r->deal : a->bm.ndeals;
	int		 trick = -1, seat = -1;

	if (r->kind == AU_PLAY) {
		trick = (int)r->v[1];
		seat = (int)r->v[2];
	} else if (r->kind == AU_TRICK)
		trick = (int)r->v[0];
	else if (r->kind == AU_FAULT || r->kind == AU_JOKER)
		seat = (int)r->v[0];
	au_row_desc(r, desc, sizeof(desc));
	if (r->no != a->links + 1)
		return au_fail(a, deal, trick, seat, "%s has link number "
		    "%lld where the chain is at %lld: %s", desc, r->no,
		    a->links + 1, r->no > a->links + 1 ? "rows were removed" :
		    "a row was added or renumbered");
	if (au_text(r, &l) == -1)
		return au_fail(a, deal, trick, seat, "%s: its text is too "
		    "long for a link", desc);
	au_hash(a->link, l.buf, l.len, link);
	util_hex(link, sizeof(link), hex);
	if (memcmp(hex, r->link, AU_HEX) != 0) {
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
	return 0;
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
	uint8_t		 commit[BRI_COMMITLEN], link[DB_HASHLEN];
	char		 hex[AU_HEX + 1], rng[AU_WORDMAX];
	struct au_line	 l;
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
	memset(&l, 0, sizeof(l));
	line_add(&l, "match %lld %s %s %s %s", a->id, a->variant, a->options,
	    a->commit, a->rng);
	au_hash(NULL, l.buf, l.len, link);
	util_hex(link, sizeof(link), hex);
	if (l.overflow || strcmp(hex, a->chain0) != 0)
		return au_fail(a, -1, -1, -1, "the chain breaks at link 0: "
		    "chain0 %.64s, the header gives %s (the variant, options, "
		    "commitment or rng was changed)", a->chain0, hex);
	memcpy(a->link, link, sizeof(link));
	if ((e = bri_match_init(&a->bm, &a->opt, &a->seed)) != BRI_OK)
		return au_fail(a, -1, -1, -1, "libbriscola refuses the match: "
		    "%s", bri_strerror(e));
	for (e = 0; e < a->nseats; e++)
		a->bank_left[e] = a->bank;
	if (a->mode == AU_SHOW)
		show_header(a);

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
			e = au_deal(a, &r);
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
		default:
			e = au_matchend(a, &r);
			break;
		}
		if (e == -1 || au_chain(a, &r) == -1)
			break;
		if (a->mode == AU_SHOW)
			show_row(a, &r);
		else if (a->mode == AU_VIEW) {
			if (r.kind == AU_DEAL)
				view_deal(a);
			else if (r.kind == AU_PLAY)
				view_play(a);
			else if (r.kind == AU_MATCHEND)
				view_end(a);
		}
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		au_fail(a, a->bm.ndeals, -1, -1, "the log cannot be read "
		    "after link %lld: %s%s", a->links, sqlite3_errmsg(a->h),
		    rc == SQLITE_TOOBIG ? " (a value over 4 MiB)" : "");
	sqlite3_finalize(st);
	if (a->err[0] != '\0')
		return -1;
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
static int
au_match(struct au *a, long long id)
{
	sqlite3		*h = a->h;
	enum au_mode	 mode = a->mode;
	FILE		*out = a->out;
	int		 vseat = a->vseat, r;
	long long	 only = a->only_deal;

	memset(a, 0, sizeof(*a));
	a->h = h;
	a->mode = mode;
	a->out = out;
	a->vseat = vseat;
	a->only_deal = only;
	a->end_no = -1;
	a->at_deal = -1;
	if ((r = au_header(a, id)) == 1)
		return 3;
	if (r == -1)
		return 1;
	if (strcmp(a->state, "running") == 0 && mode == AU_AUDIT)
		return 2;
	return au_walk(a) == -1 ? 1 : 0;
}

/* Parse a match id (or deal number) from the command line, or -1. */
static long long
au_id(const char *s)
{
	const char	*errstr;
	long long	 v;

	v = util_num(s, 1, LLONG_MAX, &errstr);
	return errstr != NULL ? -1 : v;
}

/*
 * refctl audit --db FILE [--all] [MATCH ...]: settle every dispute from
 * the log alone.  One line per match, then a summary; exit 0 only if
 * every match audited agrees with the rules and its chain.
 */
int
cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	sqlite3_stmt	*st = NULL;
	struct au	*a;
	const char	*path = NULL;
	char		 why[160];
	long long	 id;
	int		 ch, all = 0, i, ok = 0, bad = 0, running = 0, r;
	int		 rc;

	optind = 0;	/* glibc: start afresh, permuting again */
	while ((ch = getopt_long(argc, argv, "d:a", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			path = optarg;
			break;
		case 'a':
			all = 1;
			break;
		default:
			goto usage;
		}
	}
	if (path == NULL)
		goto usage;
	for (i = optind; i < argc; i++)
		if (au_id(argv[i]) < 0) {
			fprintf(stderr, "refctl audit: bad match id %s\n",
			    argv[i]);
			return 2;
		}
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		fprintf(stderr, "refctl audit: out of memory\n");
		return 2;
	}
	if (au_open(path, &a->h) == -1) {
		free(a);
		return 2;
	}
	a->mode = AU_AUDIT;
	a->out = stdout;
	all = all || optind == argc;
	if (all && sqlite3_prepare_v2(a->h, "SELECT id FROM matches "
	    "ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "refctl audit: %s: %s\n", path,
		    sqlite3_errmsg(a->h));
		sqlite3_close(a->h);
		free(a);
		return 2;
	}
	for (i = optind;;) {
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
			if (i >= argc)
				break;
			id = au_id(argv[i++]);
		}
		switch ((r = au_match(a, id))) {
		case 0:
			ok++;
			if (strcmp(a->state, "aborted") == 0)
				printf("match %lld verified: aborted (%s) after "
				    "%d complete deal%s%s, %lld plays, chain ok "
				    "to link %lld\n", id, au_safe(a->reason,
				    strlen(a->reason), why, sizeof(why)),
				    a->ndone,
				    a->ndone == 1 ? "" : "s",
				    au_deal_active(a) ? " and one cut short" : "",
				    a->nplays, a->links);
			else
				printf("match %lld verified: %d deal%s, %lld "
				    "plays, chain ok\n", id, a->ndone,
				    a->ndone == 1 ? "" : "s", a->nplays);
			if (au_unsandboxed(a))
				printf("match %lld ran unsandboxed (sandbox "
				    "none): its bots could reach the log and "
				    "each other\n", id);
			break;
		case 1:
			bad++;
			printf("match %lld FAILED: %s\n", id, a->err);
			break;
		case 2:
			running++;
			printf("match %lld running: skipped\n", id);
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
	sqlite3_close(a->h);
	free(a);
	printf("%d match%s verified, %d failed", ok, ok == 1 ? "" : "es", bad);
	if (running > 0)
		printf(", %d running (skipped)", running);
	printf("\n");
	return bad > 0 ? 1 : 0;
usage:
	fprintf(stderr, "usage: refctl audit --db FILE [--all] [MATCH ...]\n");
	return 2;
}

/* The header of a transcript: everything the match row and seats hold. */
static void
show_header(struct au *a)
{
	FILE	*fp = a->out;
	int	 i;

	fprintf(fp, "match %lld  %s  %s", a->id, a->variant, a->state);
	if (a->result[0] != '\0')
		fprintf(fp, "  result %s", a->result);
	fprintf(fp, "\noptions     ");
	au_untrusted(fp, a->options, strlen(a->options));
	if (au_unsandboxed(a))
		fprintf(fp, "\nsandbox     none: the bots ran unsandboxed");
	fprintf(fp, "\nseed        %s\ncommitment  %s (the seed gives it)\n"
	    "rng         %s\npolicy      %s, max_faults %lld\n"
	    "clocks      move_ms %lld, bank_ms %lld, startup_ms %lld\n",
	    a->seedhex, a->commit, a->rng, a->policy, a->max_faults,
	    a->move_ms, a->bank_ms, a->startup_ms);
	if (a->tournament > 0)
		fprintf(fp, "tournament  %lld\n", a->tournament);
	fprintf(fp, "started     %s\nended       %s\n", a->started,
	    a->ended[0] ? a->ended : "(running)");
	for (i = 0; i < a->nseats; i++) {
		fprintf(fp, "seat %d      %s: name \"", i, a->seat[i].bot);
		au_untrusted(fp, a->seat[i].name, strlen(a->seat[i].name));
		fprintf(fp, "\" version \"");
		au_untrusted(fp, a->seat[i].version,
		    strlen(a->seat[i].version));
		fprintf(fp, "\", %s: ", a->seat[i].kind);
		au_untrusted(fp, a->seat[i].identity,
		    strlen(a->seat[i].identity));
		fprintf(fp, "\n");
	}
	if (a->result[0] != '\0') {
		fprintf(fp, "result      %s, match points %s, reason: ",
		    a->result, a->mpoints);
		au_untrusted(fp, a->reason, strlen(a->reason));
		fprintf(fp, "\n");
	}
	fprintf(fp, "chain0      %s\nfinal_chain %s\n", a->chain0,
	    a->final[0] ? a->final : "(none)");
}

/* Does the transcript show what happens in deal (0: between deals)? */
static int
show_wants(const struct au *a, long long deal)
{
	return a->only_deal == 0 || a->only_deal == deal;
}

/* One row of the transcript, after the walker has checked it. */
static void
show_row(struct au *a, const struct au_row *r)
{
	struct bri_deal	*d = &a->bm.deal;
	FILE		*fp = a->out;
	char		 c1[BRI_CARD_STRLEN], list[BRI_NCARDS * 4];
	int		 i, s, n3 = 3 * a->nseats;

	if (r->kind == AU_MATCHEND ? a->only_deal != 0 :
	    !show_wants(a, r->deal))
		return;
	switch (r->kind) {
	case AU_DEAL:
		fprintf(fp, "\ndeal %lld  dealer %d  trump %s  removed %s\n",
		    r->deal, d->dealer, bri_card_format(d->trump, c1),
		    d->removed == BRI_NOCARD ? "-" : bri_card_format(d->removed,
		    list));
		for (i = 1; i <= a->nseats; i++) {
			s = (d->dealer + i) % a->nseats;
			fprintf(fp, "  seat %d is dealt %s\n", s, au_cards(
			    d->hand[s], d->nhand[s], list, sizeof(list)));
		}
		fprintf(fp, "  stock, in drawing order: %s, then the trump "
		    "%s\n", au_cards(d->deck + n3 + 1, d->ncards - n3 - 1, list,
		    sizeof(list)), bri_card_format(d->trump, c1));
		break;
	case AU_PLAY:
		if (r->v[0] % a->nseats == 0)
			fprintf(fp, "  trick %lld, seat %lld leads\n", r->v[1],
			    r->v[2]);
		fprintf(fp, "    play %2lld  seat %lld  %-3s  %lld ms%s\n",
		    r->v[0], r->v[2], r->s[0], r->v[3],
		    r->v[4] ? "  (fallback: refd played it for the seat)" :
		    "");
		break;
	case AU_JOKER:
		fprintf(fp, "    seat %lld becomes the Joker\n", r->v[0]);
		break;
	case AU_TRICK:
		fprintf(fp, "    seat %lld wins trick %lld: %lld points\n",
		    r->v[1], r->v[0], r->v[2]);
		if (a->ev.ndraws > 0) {
			fprintf(fp, "    draws:");
			for (i = 0; i < a->ev.ndraws; i++)
				fprintf(fp, "%s seat %d %s", i ? "," : "",
				    a->ev.draw_seat[i], bri_card_format(
				    a->ev.draw_card[i], c1));
			fprintf(fp, "%s\n", a->ev.stock_empty ?
			    "; the stock is empty" : "");
		}
		break;
	case AU_FAULT:
		fprintf(fp, "  FAULT of seat %lld: ", r->v[0]);
		au_untrusted(fp, r->s[0], (size_t)r->slen[0]);
		fprintf(fp, " after %lld ms; action: ", r->v[1]);
		au_untrusted(fp, r->s[2], (size_t)r->slen[2]);
		if (au_deal_active(a))
			fprintf(fp, "; seat %lld held %s", r->v[0], au_cards(
			    d->hand[r->v[0]], d->nhand[r->v[0]], list,
			    sizeof(list)));
		fprintf(fp, "; evidence: ");
		au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		fprintf(fp, "\n");
		break;
	case AU_DEALEND:
		fprintf(fp, "  deal %lld ends: %s, winner %lld; card points ",
		    r->deal, r->s[0], r->v[0]);
		au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		fprintf(fp, "; match points ");
		au_untrusted(fp, r->s[2], (size_t)r->slen[2]);
		fprintf(fp, "\n");
		break;
	default:
		fprintf(fp, "\nmatch end: ");
		au_untrusted(fp, r->s[0], (size_t)r->slen[0]);
		fprintf(fp, "; match points ");
		au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		fprintf(fp, "; reason: ");
		au_untrusted(fp, r->s[2], (size_t)r->slen[2]);
		fprintf(fp, "\n");
		break;
	}
}

/* One protocol line of the seat being viewed, if its deal is shown. */
static void
view_line(struct au *a, const char *line)
{
	if (show_wants(a, a->bm.ndeals))
		fprintf(a->out, "%s\n", line);
}

/*
 * The genplay refd sends the seat to play: move_ms, or what is left of
 * its time bank (estimated from the logged milliseconds) when smaller.
 */
static void
view_genplay(struct au *a)
{
	struct bri_view	 v;
	char		 buf[BOTPROTO_MAXLINE];
	long long	 ms = a->move;

	if (a->bm.deal.over || a->bm.deal.turn != a->vseat)
		return;
	if (a->bank > 0 && a->bank_left[a->vseat] < ms)
		ms = a->bank_left[a->vseat];
	if (ms <= 0)
		return;		/* refd faults the seat unasked */
	bri_view_build(&a->bm, a->vseat, &v);
	view_line(a, botproto_format(BOTMSG_GENPLAY, &v, (int)ms, buf,
	    sizeof(buf)));
}

/* What the seat is sent when a deal is dealt (after match_start once). */
static void
view_deal(struct au *a)
{
	struct bri_view	 v;
	const char	*names[BRI_MAXSEATS];
	char		 buf[BOTPROTO_MAXLINE];
	int		 i;

	if (!a->told_start) {
		for (i = 0; i < a->nseats; i++)
			names[i] = a->seat[i].bot;
		if (a->only_deal == 0)
			fprintf(a->out, "%s\n", botproto_match_start_text(buf,
			    sizeof(buf), a->id, a->variant, a->vseat, names,
			    a->nseats, a->commit, a->options));
		a->told_start = 1;
	}
	bri_view_build(&a->bm, a->vseat, &v);
	view_line(a, botproto_format(BOTMSG_DEAL_START, &v, 0, buf,
	    sizeof(buf)));
	view_genplay(a);
}

/* What the seat is sent after a play, in refd's order, then genplay. */
static void
view_play(struct au *a)
{
	struct bri_view	 v;
	char		 buf[BOTPROTO_MAXLINE];

	bri_view_build(&a->bm, a->vseat, &v);
	view_line(a, botproto_format(BOTMSG_PLAY, &v, 0, buf, sizeof(buf)));
	if (a->ev.joker != BRI_NOSEAT)
		view_line(a, botproto_format(BOTMSG_JOKER, &v, 0, buf,
		    sizeof(buf)));
	if (a->ev.trick_done)
		view_line(a, botproto_format(BOTMSG_TRICK, &v, 0, buf,
		    sizeof(buf)));
	if (a->ev.ndraws > 0)
		view_line(a, botproto_format(BOTMSG_DRAW, &v, 0, buf,
		    sizeof(buf)));
	if (a->ev.stock_empty && v.partner != BRI_NOSEAT)
		view_line(a, botproto_format(BOTMSG_PARTNER, &v, 0, buf,
		    sizeof(buf)));
	if (a->ev.deal_over)
		view_line(a, botproto_format(BOTMSG_DEAL_END, &v, 0, buf,
		    sizeof(buf)));
	else
		view_genplay(a);
}

/*
 * match_end, with the seed and the final link, unless the seat is the
 * one whose fault broke its connection (refd writes nothing more to it).
 */
static void
view_end(struct au *a)
{
	char	 buf[BOTPROTO_MAXLINE];

	if (a->only_deal != 0 || (a->forfeit_seat == a->vseat &&
	    strcmp(a->forfeit_kind, "timeout") != 0 &&
	    strcmp(a->forfeit_kind, "illegal") != 0 &&
	    strcmp(a->forfeit_kind, "refused") != 0))
		return;
	fprintf(a->out, "%s\n", botproto_match_end_text(buf, sizeof(buf),
	    a->result, a->bm.mpoints, a->nseats, au_option(a,
	    "seed_reveal=tournament") ? "-" : a->seedhex, a->final));
}

/*
 * refctl show --db FILE MATCH [--deal N] [--seat S]: the transcript of a
 * match for a dispute, or with --seat exactly the lines refd sent that
 * seat, rebuilt from its bri_view by botproto; exit 1 if the log fails
 * its audit on the way (the transcript stops there).
 */
int
cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "deal", required_argument, NULL, 'n' },
		{ "seat", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct au	*a;
	const char	*path = NULL, *errstr;
	long long	 id, deal = 0;
	int		 ch, seat = -1, r;

	optind = 0;	/* glibc: start afresh, permuting again */
	while ((ch = getopt_long(argc, argv, "d:n:s:", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			path = optarg;
			break;
		case 'n':
			if ((deal = au_id(optarg)) < 0)
				goto usage;
			break;
		case 's':
			seat = (int)util_num(optarg, 0, BRI_MAXSEATS - 1,
			    &errstr);
			if (errstr != NULL)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (path == NULL || optind != argc - 1 || (id = au_id(argv[optind])) <
	    0)
		goto usage;
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		fprintf(stderr, "refctl show: out of memory\n");
		return 2;
	}
	if (au_open(path, &a->h) == -1) {
		free(a);
		return 2;
	}
	a->mode = seat >= 0 ? AU_VIEW : AU_SHOW;
	a->vseat = seat;
	a->only_deal = deal;
	a->out = stdout;
	r = au_match(a, id);
	if (r == 1 && a->noseat) {
		fprintf(stderr, "refctl show: %s\n", a->err);
		r = 4;
	} else if (r == 0 && a->mode == AU_SHOW)
		printf("\naudit: verified, %d complete deal%s, %lld plays, "
		    "chain ok to link %lld\n", a->ndone, a->ndone == 1 ? "" :
		    "s", a->nplays, a->links);
	else if (r == 1) {
		fflush(stdout);
		if (a->mode == AU_SHOW)
			printf("\naudit: match %lld FAILED: %s\n", id, a->err);
		else
			fprintf(stderr, "refctl show: match %lld FAILED: %s\n",
			    id, a->err);
	} else if (r == 3)
		fprintf(stderr, "refctl show: no match %lld in the log\n", id);
	sqlite3_close(a->h);
	free(a);
	return r == 0 ? 0 : r == 1 ? 1 : 2;
usage:
	fprintf(stderr, "usage: refctl show --db FILE MATCH [--deal N] "
	    "[--seat S]\n");
	return 2;
}

/*
 * Write n bytes as a JSON string: quote, backslash and every control
 * character escaped (\u00XX), valid UTF-8 as is, and any other byte as
 * \u00XX of its value, so the document is always valid JSON.
 */
static void
json_str(FILE *fp, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i, k, len;

	fputc('"', fp);
	for (i = 0; i < n; i++) {
		if (p[i] == '"' || p[i] == '\\') {
			fprintf(fp, "\\%c", p[i]);
			continue;
		}
		if (p[i] < 0x20 || p[i] == 0x7f) {
			fprintf(fp, "\\u%04x", p[i]);
			continue;
		}
		if (p[i] < 0x80) {
			fputc(p[i], fp);
			continue;
		}
		len = p[i] >= 0xc2 && p[i] <= 0xdf ? 2 : p[i] >= 0xe0 &&
		    p[i] <= 0xef ? 3 : p[i] >= 0xf0 && p[i] <= 0xf4 ? 4 : 0;
		for (k = 1; len > 0 && k < len; k++)
			if (i + k >= n || (p[i + k] & 0xc0) != 0x80)
				len = 0;
		if (len == 0) {
			fprintf(fp, "\\u%04x", p[i]);
			continue;
		}
		fwrite(p + i, 1, len, fp);
		i += len - 1;
	}
	fputc('"', fp);
}

/* A column as JSON by its storage class: number, string or null. */
static void
json_col(FILE *fp, sqlite3_stmt *st, int col)
{
	const unsigned char	*b;
	const char		*s;
	double			 d;
	int			 i, n;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		fprintf(fp, "%lld", (long long)sqlite3_column_int64(st, col));
		break;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, col);
		if (d == d && d - d == 0)
			fprintf(fp, "%.17g", d);
		else
			fprintf(fp, "null");
		break;
	case SQLITE_TEXT:
		s = (const char *)sqlite3_column_text(st, col);
		json_str(fp, s, (size_t)sqlite3_column_bytes(st, col));
		break;
	case SQLITE_BLOB:
		b = sqlite3_column_blob(st, col);
		n = sqlite3_column_bytes(st, col);
		fputc('"', fp);
		for (i = 0; i < n && b != NULL; i++)
			fprintf(fp, "%02x", b[i]);
		fputc('"', fp);
		break;
	default:
		fprintf(fp, "null");
		break;
	}
}

/*
 * A list column as a JSON array when it is one: sep ' ' gives strings
 * (a deck), ',' integers (points, mpoints).  Anything else, as stored.
 */
static void
json_list(FILE *fp, sqlite3_stmt *st, int col, int sep)
{
	const char	*s, *p, *q, *end;
	int		 n, ok = 1;

	if (sqlite3_column_type(st, col) != SQLITE_TEXT) {
		json_col(fp, st, col);
		return;
	}
	s = (const char *)sqlite3_column_text(st, col);
	n = sqlite3_column_bytes(st, col);
	end = s + n;
	if (sep == ',') {
		/* -?[0-9]{1,10} joined by commas, or empty */
		for (p = s; p < end && ok; p = q + 1) {
			q = p + (*p == '-');
			while (q < end && *q >= '0' && *q <= '9' &&
			    q - p < 11)
				q++;
			ok = q > p + (*p == '-') && (q == end || (*q == ',' &&
			    q + 1 < end));
		}
		if (!ok) {
			json_col(fp, st, col);
			return;
		}
	}
	fputc('[', fp);
	for (p = s; n > 0 && p <= end; p = q + 1) {
		if ((q = memchr(p, sep, (size_t)(end - p))) == NULL)
			q = end;
		if (p != s)
			fputc(',', fp);
		if (sep == ',')
			fwrite(p, 1, (size_t)(q - p), fp);
		else
			json_str(fp, p, (size_t)(q - p));
	}
	fputc(']', fp);
}

/*
 * Run st (bound by the caller) and write each row as a JSON object whose
 * keys are names[], a list type per key in types ('v' as stored, 'd' a
 * deck, 'l' integers); as an array, or the first row alone (or null)
 * when one is set.  Returns -1 on a read error (a->err).
 */
static int
json_rows(struct au *a, sqlite3_stmt *st, const char *const *names,
    const char *types, int one)
{
	FILE	*fp = a->out;
	int	 rc, i, n = 0;

	if (!one)
		fputc('[', fp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (one && n > 0)
			continue;
		fprintf(fp, "%s{", n++ > 0 ? "," : "");
		for (i = 0; names[i] != NULL; i++) {
			fprintf(fp, "%s\"%s\":", i ? "," : "", names[i]);
			if (types[i] == 'd')
				json_list(fp, st, i, ' ');
			else if (types[i] == 'l')
				json_list(fp, st, i, ',');
			else
				json_col(fp, st, i);
		}
		fputc('}', fp);
	}
	if (one && n == 0)
		fprintf(fp, "null");
	if (!one)
		fputc(']', fp);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return au_fail(a, -1, -1, -1, "the log cannot be read: %s",
		    sqlite3_errmsg(a->h));
	return 0;
}

/*
 * One match as one JSON document on one line: the log as it is (no
 * verdict), nested by deal, with every link's canonical text (see
 * refd-audit(7)).  Returns 0, 1 (a->err) or 3 for no such match.
 */
static int
export_match(struct au *a, long long id)
{
	static const char *const hdr[] = { "id", "variant", "options", "seed",
	    "commitment", "rng", "move_ms", "bank_ms", "startup_ms", "policy",
	    "max_faults", "tournament", "started", "ended", "state", "result",
	    "reason", "mpoints", "chain0", "end_no", "final_chain", NULL };
	static const char *const seats[] = { "seat", "bot", "name", "version",
	    "kind", "identity", NULL };
	static const char *const deal[] = { "deal_no", "dealer", "deck",
	    "removed", "trump", "chain_no", "chain", NULL };
	static const char *const plays[] = { "seq", "trick", "seat", "card",
	    "ms", "fault", "chain_no", "chain", NULL };
	static const char *const tricks[] = { "trick", "winner", "points",
	    "chain_no", "chain", NULL };
	static const char *const joker[] = { "seat", "chain_no", "chain",
	    NULL };
	static const char *const res[] = { "result", "winner", "points",
	    "mpoints", "chain_no", "chain", NULL };
	static const char *const faults[] = { "id", "deal_no", "seat", "kind",
	    "evidence", "ms", "action", "chain_no", "chain", NULL };
	static const char *const sql[] = {
	    "SELECT id, variant, options, seed, commitment, rng, move_ms,"
	    " bank_ms, startup_ms, policy, max_faults, tournament, started,"
	    " ended, state, result, reason, mpoints, chain0, end_no,"
	    " final_chain FROM matches WHERE id = ?1",
	    "SELECT seat, bot, name, version, kind, identity FROM seats"
	    " WHERE match_id = ?1 ORDER BY seat",
	    "SELECT deal_no, dealer, deck, removed, trump, chain_no, chain"
	    " FROM deals WHERE match_id = ?1 ORDER BY deal_no",
	    "SELECT seq, trick, seat, card, ms, fault, chain_no, chain"
	    " FROM plays WHERE match_id = ?1 AND deal_no = ?2 ORDER BY seq",
	    "SELECT trick, winner, points, chain_no, chain FROM tricks"
	    " WHERE match_id = ?1 AND deal_no = ?2 ORDER BY trick",
	    "SELECT seat, chain_no, chain FROM jokers"
	    " WHERE match_id = ?1 AND deal_no = ?2",
	    "SELECT result, winner, points, mpoints, chain_no, chain"
	    " FROM deal_results WHERE match_id = ?1 AND deal_no = ?2",
	    "SELECT id, deal_no, seat, kind, evidence, ms, action, chain_no,"
	    " chain FROM faults WHERE match_id = ?1 ORDER BY id",
	};
	enum { Q_HDR, Q_SEATS, Q_DEALS, Q_PLAYS, Q_TRICKS, Q_JOKER, Q_RES,
	    Q_FAULTS, Q_N };
	sqlite3_stmt	*st[Q_N] = { NULL }, *ch = NULL;
	struct au_row	 r;
	struct au_line	 l;
	FILE		*fp = a->out;
	int		 i, rc, n = 0, ret = 1;

	memset(a->err, 0, sizeof(a->err));
	for (i = 0; i < Q_N; i++)
		if (sqlite3_prepare_v2(a->h, sql[i], -1, &st[i], NULL) !=
		    SQLITE_OK) {
			au_fail(a, -1, -1, -1, "the log's tables cannot be "
			    "read: %s", sqlite3_errmsg(a->h));
			goto done;
		}
	if (sqlite3_prepare_v2(a->h, au_stream_sql, -1, &ch, NULL) !=
	    SQLITE_OK) {
		au_fail(a, -1, -1, -1, "the log's tables cannot be read: %s",
		    sqlite3_errmsg(a->h));
		goto done;
	}
	for (i = 0; i < Q_N; i++)
		sqlite3_bind_int64(st[i], 1, id);
	sqlite3_bind_int64(ch, 1, id);
	if ((rc = sqlite3_step(st[Q_HDR])) != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			ret = 3;
		else
			au_fail(a, -1, -1, -1, "the log cannot be read: %s",
			    sqlite3_errmsg(a->h));
		goto done;
	}
	sqlite3_reset(st[Q_HDR]);
	fprintf(fp, "{\"format\":\"refd-export-1\",\"match\":");
	if (json_rows(a, st[Q_HDR], hdr, "vvvvvvvvvvvvvvvvvlvvv", 1) == -1)
		goto done;
	fprintf(fp, ",\"seats\":");
	if (json_rows(a, st[Q_SEATS], seats, "vvvvvv", 0) == -1)
		goto done;
	fprintf(fp, ",\"deals\":[");
	while ((rc = sqlite3_step(st[Q_DEALS])) == SQLITE_ROW) {
		fprintf(fp, "%s{", n++ > 0 ? "," : "");
		for (i = 0; deal[i] != NULL; i++) {
			fprintf(fp, "%s\"%s\":", i ? "," : "", deal[i]);
			if (i == 2)
				json_list(fp, st[Q_DEALS], i, ' ');
			else
				json_col(fp, st[Q_DEALS], i);
		}
		for (i = Q_PLAYS; i <= Q_RES; i++)
			sqlite3_bind_value(st[i], 2,
			    sqlite3_column_value(st[Q_DEALS], 0));
		fprintf(fp, ",\"plays\":");
		if (json_rows(a, st[Q_PLAYS], plays, "vvvvvvvv", 0) == -1)
			goto done;
		fprintf(fp, ",\"tricks\":");
		if (json_rows(a, st[Q_TRICKS], tricks, "vvvvv", 0) == -1)
			goto done;
		fprintf(fp, ",\"joker\":");
		if (json_rows(a, st[Q_JOKER], joker, "vvv", 1) == -1)
			goto done;
		fprintf(fp, ",\"result\":");
		if (json_rows(a, st[Q_RES], res, "vvllvv", 1) == -1)
			goto done;
		fputc('}', fp);
	}
	if (rc != SQLITE_DONE) {
		au_fail(a, -1, -1, -1, "the deals cannot be read: %s",
		    sqlite3_errmsg(a->h));
		goto done;
	}
	fprintf(fp, "],\"faults\":");
	if (json_rows(a, st[Q_FAULTS], faults, "vvvvvvvvv", 0) == -1)
		goto done;
	fprintf(fp, ",\"chain\":[");
	n = 0;
	while ((rc = sqlite3_step(ch)) == SQLITE_ROW) {
		a->err[0] = '\0';
		fprintf(fp, "%s{\"no\":", n++ > 0 ? "," : "");
		json_col(fp, ch, 0);
		fprintf(fp, ",\"row\":\"%s\",\"text\":",
		    sqlite3_column_type(ch, 1) == SQLITE_INTEGER &&
		    sqlite3_column_int64(ch, 1) >= 0 &&
		    sqlite3_column_int64(ch, 1) < AU_NKINDS ?
		    au_specs[sqlite3_column_int64(ch, 1)].word : "?");
		if (au_row_read(a, ch, &r) == 0 && au_text(&r, &l) == 0)
			json_str(fp, l.buf, l.len);
		else
			fprintf(fp, "null");
		fprintf(fp, ",\"link\":");
		json_col(fp, ch, 11);
		fputc('}', fp);
	}
	a->err[0] = '\0';
	if (rc != SQLITE_DONE) {
		au_fail(a, -1, -1, -1, "the chain cannot be read: %s",
		    sqlite3_errmsg(a->h));
		goto done;
	}
	fprintf(fp, "],\"final_chain\":");
	sqlite3_reset(st[Q_HDR]);
	if (sqlite3_step(st[Q_HDR]) == SQLITE_ROW)
		json_col(fp, st[Q_HDR], 20);
	else
		fprintf(fp, "null");
	fprintf(fp, "}\n");
	ret = 0;
done:
	if (ret != 0 && ret != 3)
		fprintf(fp, "\n");
	for (i = 0; i < Q_N; i++)
		sqlite3_finalize(st[i]);
	sqlite3_finalize(ch);
	return ret;
}

/*
 * refctl export --db FILE [--format json] [--all] MATCH ...: each match
 * as one JSON document on one line, for tools of one's own.
 */
int
cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	sqlite3_stmt	*st = NULL;
	struct au	*a;
	const char	*path = NULL;
	long long	 id;
	int		 ch, i, all = 0, bad = 0, r;

	optind = 0;	/* glibc: start afresh, permuting again */
	while ((ch = getopt_long(argc, argv, "d:f:a", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			path = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "json") != 0) {
				fprintf(stderr, "refctl export: the only "
				    "format is json\n");
				return 2;
			}
			break;
		case 'a':
			all = 1;
			break;
		default:
			goto usage;
		}
	}
	if (path == NULL || (optind == argc) == !all)
		goto usage;
	for (i = optind; i < argc; i++)
		if (au_id(argv[i]) < 0)
			goto usage;
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		fprintf(stderr, "refctl export: out of memory\n");
		return 2;
	}
	if (au_open(path, &a->h) == -1) {
		free(a);
		return 2;
	}
	a->mode = AU_LINKS;
	a->out = stdout;
	if (all && sqlite3_prepare_v2(a->h, "SELECT id FROM matches WHERE"
	    " typeof(id) = 'integer' ORDER BY id", -1, &st, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "refctl export: %s\n", sqlite3_errmsg(a->h));
		bad++;
	}
	for (i = optind; bad == 0;) {
		if (all) {
			if (sqlite3_step(st) != SQLITE_ROW)
				break;
			id = (long long)sqlite3_column_int64(st, 0);
		} else if (i < argc)
			id = au_id(argv[i++]);
		else
			break;
		if ((r = export_match(a, id)) == 3) {
			fprintf(stderr, "refctl export: no match %lld in the "
			    "log\n", id);
			bad++;
		} else if (r != 0) {
			fprintf(stderr, "refctl export: match %lld: %s\n", id,
			    a->err);
			bad++;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(a->h);
	free(a);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "refctl export: cannot write the output\n");
		return 2;
	}
	return bad > 0 ? 1 : 0;
usage:
	fprintf(stderr, "usage: refctl export --db FILE [--format json] "
	    "{--all | MATCH ...}\n");
	return 2;
}
