/*
 * auditlog.c: the audit of refd's log as one chain (auditlog.h).  Each
 * event of log_chain is rebuilt from the rows it names, in the words
 * db.c writes it with, and compared byte for byte; each link is
 * recomputed by chain.c; each signed head is verified with libsodium.
 * Each tournament's schedule is re-derived by tdef.c from its chained
 * definition and seed.  The log is hostile input: every value is bounded
 * before it is used.
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <sqlite3.h>

#include "briscola.h"
#include "auditlog.h"
#include "chain.h"
#include "db.h"
#include "mset.h"
#include "tdef.h"
#include "util.h"

#define AL_MAXIDS	10000000	/* matches or tournaments we track */
#define AL_SHOWN	20		/* discrepancies printed of one kind */

/* What the walk of the log chain knows. */
struct al {
	sqlite3		*h;
	FILE		*out;
	int		 bad;		/* discrepancies found */
	long long	 no;		/* the event being read */
	uint8_t		 prev[CHAIN_HASHLEN]; /* the link before it */
	int		 have_prev;
	uint8_t		 pk[crypto_sign_PUBLICKEYBYTES]; /* the key now */
	int		 have_pk;
	int		 given;		/* pk came from --key */
	long long	 nsigned;	/* signatures verified */
	unsigned char	*mseen;		/* per match: AL_START | AL_END ... */
	long long	 nm;
	char		**tlast;	/* per tournament: its last tstate */
	unsigned char	*tseen;
	long long	 nt;
};

#define AL_START	1	/* a "start" event */
#define AL_END		2	/* an "end" or "abort" event */
#define AL_LEGACY	4	/* a "legacy" event */

static void	 al_fail(struct al *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));
static int	 al_text(struct al *, const char *, const char *, ...)
		    __attribute__((__format__(__printf__, 3, 4)));
static int	 al_match_event(struct al *, const char *, long long,
		    const char *, size_t);
static int	 al_tourney_event(struct al *, const char *, long long,
		    const char *, size_t);
static int	 al_sig(struct al *, const char *, const char *,
		    const uint8_t *, int);
static long long al_max(sqlite3 *, const char *);
static int	 al_hex(const char *, size_t);
static int	 al_last_link(sqlite3 *, long long, long long *, char *);
static void	 al_after(struct al *);
static int	 al_event(struct al *, const char *, long long, long long,
		    const char *, size_t, const char *, int, const char *);

/* Report one discrepancy of the log chain, located by its event. */
static void
al_fail(struct al *al, const char *fmt, ...)
{
	va_list	 ap;

	if (al->bad++ >= AL_SHOWN)
		return;
	fprintf(al->out, "log FAILED: ");
	if (al->no > 0)
		fprintf(al->out, "log chain link %lld: ", al->no);
	va_start(ap, fmt);
	vfprintf(al->out, fmt, ap);
	va_end(ap);
	fprintf(al->out, "\n");
}

/*
 * Does the stored text (s, n bytes) equal the text fmt builds from the
 * rows?  Reports the difference and returns -1 if not.
 */
static int
al_text(struct al *al, const char *stored, const char *fmt, ...)
{
	char	 want[CHAIN_TEXTMAX], a[200], b[200];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	if (strcmp(want, stored) == 0)
		return 0;
	util_printable(a, sizeof(a), stored, strlen(stored));
	util_printable(b, sizeof(b), want, strlen(want));
	al_fail(al, "the log chain says '%s', the rows say '%s'", a, b);
	return -1;
}

/* The highest id of a table (0 when empty, -1 on an error). */
static long long
al_max(sqlite3 *h, const char *sql)
{
	sqlite3_stmt	*st;
	long long	 v = -1;

	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 :
		    sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* A match's last link now, as db.c names it: 0, or -1. */
static int
al_last_link(sqlite3 *h, long long id, long long *no, char *hex)
{
	sqlite3_stmt	*st;
	const char	*s;
	int		 rc = -1;

	if (sqlite3_prepare_v2(h, DB_LAST_LINK_SQL, -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*no = sqlite3_column_int64(st, 0);
		s = (const char *)sqlite3_column_text(st, 1);
		snprintf(hex, CHAIN_HEXLEN + 1, "%s", s != NULL &&
		    sqlite3_column_bytes(st, 1) == CHAIN_HEXLEN ? s : "-");
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * An event that names a match: rebuilt from the match's row, and
 * remembered so that every match is found in the log chain once.
 */
static int
al_match_event(struct al *al, const char *kind, long long id,
    const char *text, size_t n)
{
	sqlite3_stmt	*st;
	const char	*c0, *fin, *res, *prev, *state, *reason, *tx;
	char		 hex[CHAIN_HEXLEN + 1], head[CHAIN_TEXTMAX];
	long long	 endno, t, slot, links = -1;
	int		 version, rc = -1;

	(void)n;
	if (id < 1 || id > al->nm) {
		al_fail(al, "%s of match %lld, which is not in the log", kind,
		    id);
		if (id > 0 && id <= AL_MAXIDS)
			fprintf(al->out, "match %lld FAILED: missing, yet the "
			    "log chain names it\n", id);
		return -1;
	}
	if (sqlite3_prepare_v2(al->h, "SELECT chain0, end_no, final_chain,"
	    " result, coalesce(tournament, -1), coalesce(slot, -1),"
	    " chain_version, prev, state, reason FROM matches WHERE id = ?1",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		al_fail(al, "%s of match %lld, which is not in the log", kind,
		    id);
		fprintf(al->out, "match %lld FAILED: missing, yet the log "
		    "chain names it\n", id);
		return -1;
	}
	c0 = (const char *)sqlite3_column_text(st, 0);
	endno = sqlite3_column_int64(st, 1);
	fin = (const char *)sqlite3_column_text(st, 2);
	res = (const char *)sqlite3_column_text(st, 3);
	t = sqlite3_column_int64(st, 4);
	slot = sqlite3_column_int64(st, 5);
	version = sqlite3_column_int(st, 6);
	prev = (const char *)sqlite3_column_text(st, 7);
	state = (const char *)sqlite3_column_text(st, 8);
	reason = (const char *)sqlite3_column_text(st, 9);
	if (strcmp(kind, "start") == 0) {
		if (al->mseen[id] & AL_START)
			al_fail(al, "match %lld starts twice", id);
		al->mseen[id] |= AL_START;
		if (version != 2)
			al_fail(al, "a start of match %lld, whose chain_version "
			    "is %d", id, version);
		rc = al_text(al, text, "start %lld link0=%s", id,
		    c0 ? c0 : "-");
		if (al->have_prev)
			util_hex(al->prev, CHAIN_HASHLEN, head);
		else
			memset(head, '0', CHAIN_HEXLEN), head[CHAIN_HEXLEN] = 0;
		if (rc == 0 && (prev == NULL || strcmp(prev, head) != 0)) {
			al_fail(al, "match %lld's link 0 commits to the log's "
			    "head %.64s, but the head before its start is %s: "
			    "a match before it was removed or rewritten", id,
			    prev ? prev : "(none)", head);
			rc = -1;
		}
	} else if (strcmp(kind, "end") == 0) {
		if (al->mseen[id] & AL_END)
			al_fail(al, "match %lld ends twice", id);
		al->mseen[id] |= AL_END;
		/* the seats' transcript hashes stand on the signature alone */
		if ((tx = strstr(text, CHAIN_TXWORD)) != NULL &&
		    chain_tx_find(text, -1, NULL, 0) != 1) {
			al_fail(al, "match %lld's end holds malformed "
			    "transcript hashes", id);
			rc = -1;
		} else {
			snprintf(head, sizeof(head), "%.*s", tx != NULL ?
			    (int)(tx - text) : (int)strlen(text), text);
			rc = al_text(al, head, "end %lld links=%lld final=%s "
			    "result=%s tournament=%lld slot=%lld", id, endno,
			    fin ? fin : "-", res ? res : "-", t,
			    t > 0 ? slot : -1);
		}
	} else {
		al->mseen[id] |= strcmp(kind, "abort") == 0 ? AL_END :
		    AL_LEGACY;
		if (al_last_link(al->h, id, &links, hex) == -1)
			snprintf(hex, sizeof(hex), "-");
		if (strcmp(kind, "abort") == 0)
			rc = al_text(al, text, "abort %lld links=%lld last=%s "
			    "reason=%zu:%s", id, links, hex, reason ?
			    strlen(reason) : 0, reason ? reason : "");
		else
			rc = al_text(al, text, "legacy %lld links=%lld last=%s",
			    id, links, hex);
		if (strcmp(kind, "abort") == 0 && (state == NULL ||
		    strcmp(state, "aborted") != 0)) {
			al_fail(al, "match %lld was aborted outside a game, but "
			    "its row says %s", id, state ? state : "-");
			rc = -1;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Does a "tstate" text end its tournament for good (done, cancelled:
 * tdef_over()), so that nothing of it may follow?
 */
static int
al_tover(const char *tstate)
{
	const char	*p;
	char		 state[16];
	size_t		 n;

	if (tstate == NULL || (p = strstr(tstate, " state=")) == NULL)
		return 0;
	p += 7;
	n = strcspn(p, " ");
	if (n >= sizeof(state))
		return 0;
	memcpy(state, p, n);
	state[n] = '\0';
	return tdef_over(state);
}

/*
 * An event that names a tournament: "tbegin" rebuilt from its row (the
 * seed's commitment, the definition's hash); "tstate" kept, for its last
 * one to be compared with the row's state at the end.
 */
static int
al_tourney_event(struct al *al, const char *kind, long long id,
    const char *text, size_t n)
{
	sqlite3_stmt	*st;
	struct bri_seed	 seed;
	const char	*name, *def, *seedhex;
	uint8_t		 h[CHAIN_HASHLEN], c[BRI_COMMITLEN];
	char		 dhex[CHAIN_HEXLEN + 1], chex[2 * BRI_COMMITLEN + 1];
	int		 total, rc;

	if (id < 1 || id > al->nt) {
		al_fail(al, "%s of tournament %lld, which is not in the log",
		    kind, id);
		return -1;
	}
	if (strcmp(kind, "tstate") == 0) {
		if (al_tover(al->tlast[id]))
			al_fail(al, "tournament %lld changes state after it "
			    "was over for good", id);
		free(al->tlast[id]);
		if ((al->tlast[id] = malloc(n + 1)) != NULL)
			memcpy(al->tlast[id], text, n + 1);
		return 0;
	}
	if (al->tseen[id]++ > 0)
		al_fail(al, "tournament %lld begins twice", id);
	if (sqlite3_prepare_v2(al->h, "SELECT name, definition, seed, total"
	    " FROM tournaments WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		al_fail(al, "tournament %lld is in the log chain, but not in "
		    "the log", id);
		return -1;
	}
	name = (const char *)sqlite3_column_text(st, 0);
	def = (const char *)sqlite3_column_text(st, 1);
	seedhex = (const char *)sqlite3_column_text(st, 2);
	total = sqlite3_column_int(st, 3);
	snprintf(chex, sizeof(chex), "-");
	if (seedhex != NULL && bri_seed_parse(seedhex, &seed) == BRI_OK) {
		bri_seed_commit(&seed, c);
		util_hex(c, sizeof(c), chex);
	}
	crypto_generichash(h, sizeof(h), (const unsigned char *)(def ? def :
	    ""), def ? (size_t)sqlite3_column_bytes(st, 1) : 0, NULL, 0);
	util_hex(h, sizeof(h), dhex);
	rc = al_text(al, text, "tbegin %lld name=%s total=%d commitment=%s "
	    "definition=%s", id, name ? name : "-", total, chex, dhex);
	sqlite3_finalize(st);
	return rc;
}

/*
 * A signature over link (hex sig or NULL): required when must is set and
 * a key is known; verified with the key in force.
 */
static int
al_sig(struct al *al, const char *kind, const char *sig, const uint8_t *link,
    int must)
{
	uint8_t	 s[crypto_sign_BYTES];
	size_t	 n;

	if (sig == NULL) {
		if (must && al->have_pk) {
			al_fail(al, "the %s is not signed", kind);
			return -1;
		}
		return 0;
	}
	if (!al->have_pk) {
		al_fail(al, "the %s is signed, but no key is known yet", kind);
		return -1;
	}
	if (sodium_hex2bin(s, sizeof(s), sig, strlen(sig), NULL, &n, NULL) !=
	    0 || n != sizeof(s) ||
	    crypto_sign_verify_detached(s, link, CHAIN_HASHLEN, al->pk) != 0) {
		al_fail(al, "the %s's signature does not verify with %s key: "
		    "the log chain was rewritten by someone without it", kind,
		    al->given ? "the given" : "the log's");
		return -1;
	}
	al->nsigned++;
	return 0;
}

/* After the walk: every match and tournament must be in the chain. */
static void
al_after(struct al *al)
{
	sqlite3_stmt	*st;
	const char	*state, *reason;
	char		 want[CHAIN_TEXTMAX];
	long long	 id;
	int		 version, n = 0;

	al->no = 0;
	if (sqlite3_prepare_v2(al->h, "SELECT id, chain_version, state FROM"
	    " matches WHERE typeof(id) = 'integer' ORDER BY id", -1, &st,
	    NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			id = sqlite3_column_int64(st, 0);
			version = sqlite3_column_int(st, 1);
			state = (const char *)sqlite3_column_text(st, 2);
			if (id < 1 || id > al->nm)
				continue;
			if (version == 2 && !(al->mseen[id] & AL_START)) {
				fprintf(al->out, "match %lld FAILED: its start "
				    "is not in the log chain\n", id);
				al->bad++;
			} else if (version == 2 && state != NULL &&
			    strcmp(state, "running") != 0 &&
			    !(al->mseen[id] & AL_END)) {
				fprintf(al->out, "match %lld FAILED: it ended "
				    "(%s), but its end is not in the log "
				    "chain\n", id, state);
				al->bad++;
			} else if (version != 2 && !(al->mseen[id] &
			    AL_LEGACY)) {
				fprintf(al->out, "match %lld FAILED: it is older "
				    "than the log chain, but not in it\n", id);
				al->bad++;
			}
		}
		sqlite3_finalize(st);
	}
	if (sqlite3_prepare_v2(al->h, "SELECT id, state, reason FROM"
	    " tournaments WHERE typeof(id) = 'integer' ORDER BY id", -1, &st,
	    NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		state = (const char *)sqlite3_column_text(st, 1);
		reason = (const char *)sqlite3_column_text(st, 2);
		if (id < 1 || id > al->nt)
			continue;
		if (!al->tseen[id]) {
			fprintf(al->out, "tournament %lld FAILED: its "
			    "definition is not in the log chain\n", id);
			al->bad++;
			continue;
		}
		n = reason != NULL ? sqlite3_column_bytes(st, 2) : 0;
		snprintf(want, sizeof(want), "tstate %lld state=%s "
		    "reason=%d:%s", id, state ? state : "-", n,
		    reason ? reason : "");
		if (al->tlast[id] == NULL ? state == NULL ||
		    strcmp(state, "running") != 0 :
		    strcmp(al->tlast[id], want) != 0) {
			fprintf(al->out, "tournament %lld FAILED: its state "
			    "(%s) is not the last one the log chain "
			    "records\n", id, state ? state : "-");
			al->bad++;
		}
	}
	sqlite3_finalize(st);
}

/*
 * One event of the log chain, numbered al->no: its link from the link
 * before (al->prev) and its text, its text against the rows it names,
 * its signature with the key in force (al->pk), which a key event
 * changes.  Discrepancies are reported; returns -1 when the chain
 * cannot be followed past it, else 0.
 */
static int
al_event(struct al *al, const char *kind, long long id, long long tid,
    const char *text, size_t n, const char *stored, int storedlen,
    const char *sig)
{
	struct chain_text	 t;
	uint8_t			 link[CHAIN_HASHLEN];
	uint8_t			 pk[crypto_sign_PUBLICKEYBYTES];
	size_t			 bin;
	int			 must;

	if (kind == NULL || text == NULL || stored == NULL ||
	    storedlen != CHAIN_HEXLEN || n >= CHAIN_TEXTMAX ||
	    memchr(text, '\0', n) != NULL) {
		al_fail(al, "not an event refd writes");
		return -1;
	}
	chain_log_text(&t, text, n);
	chain_log_link(al->have_prev ? al->prev : NULL, &t, link);
	if (!chain_same(link, stored)) {
		al_fail(al, "the chain breaks: its link does not follow "
		    "from the link before and its text (%s), so this "
		    "event or one before it was changed, removed or "
		    "added", kind);
		return -1;
	}
	must = strcmp(kind, "end") == 0 || strcmp(kind, "abort") == 0 ||
	    strcmp(kind, "key") == 0 || (strcmp(kind, "tstate") == 0 &&
	    strstr(text, " state=running ") == NULL);
	if (strcmp(kind, "key") == 0) {
		if (n != 4 + 2 * sizeof(pk) || memcmp(text, "key ", 4) !=
		    0 || sodium_hex2bin(pk, sizeof(pk), text + 4,
		    n - 4, NULL, &bin, NULL) != 0 || bin != sizeof(pk))
			al_fail(al, "a key event without a key");
		else if (al->given && memcmp(pk, al->pk, sizeof(pk)) != 0)
			al_fail(al, "the log names the key %s, not "
			    "the one given", text + 4);
		else {
			memcpy(al->pk, pk, sizeof(pk));
			al->have_pk = 1;
		}
	} else if (strcmp(kind, "start") == 0 ||
	    strcmp(kind, "end") == 0 || strcmp(kind, "abort") == 0 ||
	    strcmp(kind, "legacy") == 0) {
		if (strcmp(kind, "start") == 0 && tid > 0 &&
		    tid <= al->nt && al_tover(al->tlast[tid]))
			al_fail(al, "match %lld of tournament %lld "
			    "starts after the tournament was over for "
			    "good", id, tid);
		al_match_event(al, kind, id, text, n);
	}
	else if (strcmp(kind, "tbegin") == 0 ||
	    strcmp(kind, "tstate") == 0)
		al_tourney_event(al, kind, tid, text, n);
	else
		al_fail(al, "an event of kind '%s'", kind);
	al_sig(al, kind, sig, link, must);
	memcpy(al->prev, link, sizeof(link));
	al->have_prev = 1;
	return 0;
}

/*
 * A walk of the log h begun: al cleared, and the key given in hex, if
 * any, taken as the one every signature must verify with (what names
 * it in the failure).  0, or -1 with the failure printed.
 */
static int
al_begin(struct al *al, sqlite3 *h, FILE *out, const char *key,
    const char *what)
{
	size_t	 bin;

	memset(al, 0, sizeof(*al));
	al->h = h;
	al->out = out;
	if (key == NULL)
		return 0;
	if (sodium_hex2bin(al->pk, sizeof(al->pk), key, strlen(key), NULL,
	    &bin, NULL) != 0 || bin != sizeof(al->pk)) {
		fprintf(out, "log FAILED: %s is not 64 hex digits\n", what);
		return -1;
	}
	al->have_pk = al->given = 1;
	return 0;
}

int
al_log(sqlite3 *h, const char *key, FILE *out)
{
	struct al		 al;
	sqlite3_stmt		*st;
	uint8_t			 pk[crypto_sign_PUBLICKEYBYTES];
	const char		*kind, *text, *sig, *stored;
	char			 hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	struct al_origin	 origin;
	long long		 no, id, tid, i, count = 0;
	size_t			 n;
	int			 rc;

	if (al_begin(&al, h, out, key, "--key") == -1)
		return 1;
	al.nm = al_max(h, "SELECT max(max(coalesce((SELECT max(id) FROM"
	    " matches), 0), coalesce((SELECT max(match_id) FROM log_chain),"
	    " 0)), 0)");
	al.nt = al_max(h, "SELECT max(coalesce((SELECT max(id) FROM"
	    " tournaments), 0), coalesce((SELECT max(tournament) FROM"
	    " log_chain), 0))");
	if (al.nm < 0 || al.nt < 0 || al.nm > AL_MAXIDS || al.nt > AL_MAXIDS) {
		fprintf(out, "log FAILED: the log chain cannot be read: %s\n",
		    al.nm < 0 || al.nt < 0 ? sqlite3_errmsg(h) :
		    "ids out of range");
		return 1;
	}
	/* a log whose beginning was archived: on from the archive's head */
	if ((rc = al_origin(h, &origin)) == -1) {
		fprintf(out, "log FAILED: its origin (log_origin) is "
		    "malformed\n");
		return 1;
	}
	if (rc == 1) {
		if (sodium_hex2bin(al.prev, sizeof(al.prev), origin.link, 64,
		    NULL, NULL, NULL) != 0 || sodium_hex2bin(pk, sizeof(pk),
		    origin.key, 64, NULL, NULL, NULL) != 0) {
			fprintf(out, "log FAILED: its origin is malformed\n");
			return 1;
		}
		if (al.given && memcmp(pk, al.pk, sizeof(pk)) != 0) {
			fprintf(out, "log FAILED: it goes on from an archive "
			    "whose head the key %s signed, not the one given\n",
			    origin.key);
			return 1;
		}
		memcpy(al.pk, pk, sizeof(pk));
		al.have_pk = al.have_prev = 1;
		al.no = count = origin.no;
		if (al_sig(&al, "archive's head (log_origin)", origin.sig,
		    al.prev, 1) == -1)
			return 1;
	}
	al.mseen = calloc((size_t)al.nm + 1, 1);
	al.tseen = calloc((size_t)al.nt + 1, 1);
	al.tlast = calloc((size_t)al.nt + 1, sizeof(*al.tlast));
	if (al.mseen == NULL || al.tseen == NULL || al.tlast == NULL ||
	    sqlite3_prepare_v2(h, "SELECT no, kind, match_id, tournament,"
	    " text, link, sig FROM log_chain ORDER BY no", -1, &st, NULL) !=
	    SQLITE_OK) {
		fprintf(out, "log FAILED: the log chain cannot be read: %s\n",
		    sqlite3_errmsg(h));
		al.bad = 1;
		goto done;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		no = sqlite3_column_int64(st, 0);
		kind = (const char *)sqlite3_column_text(st, 1);
		id = sqlite3_column_int64(st, 2);
		tid = sqlite3_column_int64(st, 3);
		text = (const char *)sqlite3_column_text(st, 4);
		n = (size_t)sqlite3_column_bytes(st, 4);
		stored = (const char *)sqlite3_column_text(st, 5);
		sig = (const char *)sqlite3_column_text(st, 6);
		al.no = no;
		if (no != ++count) {
			al_fail(&al, "numbered %lld where the log chain is at "
			    "%lld: events were removed or added", no, count);
			break;
		}
		if (al_event(&al, kind, id, tid, text, n, stored,
		    sqlite3_column_bytes(st, 5), sig) == -1)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		al_fail(&al, "the log chain cannot be read: %s",
		    sqlite3_errmsg(h));
	sqlite3_finalize(st);
	al_after(&al);
	if (al.bad == 0) {
		if (al.have_pk)
			util_hex(al.pk, sizeof(al.pk), hex);
		fprintf(out, "log chain ok: %lld link%s, %lld signed head%s "
		    "verified, key %s", count, count == 1 ? "" : "s",
		    al.nsigned, al.nsigned == 1 ? "" : "s",
		    al.have_pk ? hex : "(none)");
		if (origin.no > 0)
			fprintf(out, "; links 1 to %lld and matches up to %lld "
			    "are archived", origin.no, origin.last_match);
		fprintf(out, "\n");
	}
done:
	for (i = 0; al.tlast != NULL && i <= al.nt; i++)
		free(al.tlast[i]);
	free(al.tlast);
	free(al.tseen);
	free(al.mseen);
	return al.bad;
}


int
al_end(sqlite3 *h, long long id, const char *key, FILE *out)
{
	struct al		 al;
	struct al_origin	 o;
	sqlite3_stmt		*st;
	const char		*kind, *text, *stored, *sig, *prev, *k;
	char			 hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	int			 rc = -1, orc;

	if (id < 1 || id > AL_MAXIDS)
		return -1;
	if (al_begin(&al, h, out, key, "the key") == -1)
		return 1;
	al.nm = id;
	if ((orc = al_origin(h, &o)) == -1) {
		fprintf(out, "log FAILED: its origin (log_origin) is "
		    "malformed\n");
		return 1;
	}
	if ((al.mseen = calloc((size_t)id + 1, 1)) == NULL ||
	    sqlite3_prepare_v2(h, "SELECT e.no, e.kind, e.text, e.link, e.sig,"
	    " (SELECT p.link FROM log_chain AS p WHERE p.no = e.no - 1),"
	    " (SELECT substr(k.text, 5) FROM log_chain AS k WHERE k.kind ="
	    " 'key' AND k.no < e.no ORDER BY k.no DESC LIMIT 1)"
	    " FROM log_chain AS e WHERE e.match_id = ?1 AND e.kind IN"
	    " ('end', 'abort') ORDER BY e.no LIMIT 1", -1, &st, NULL) !=
	    SQLITE_OK) {
		fprintf(out, "log FAILED: the log chain cannot be read: %s\n",
		    sqlite3_errmsg(h));
		free(al.mseen);
		return 1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		fprintf(out, "the log chain holds no end of match %lld\n", id);
		goto done;
	}
	al.no = sqlite3_column_int64(st, 0);
	kind = (const char *)sqlite3_column_text(st, 1);
	text = (const char *)sqlite3_column_text(st, 2);
	stored = (const char *)sqlite3_column_text(st, 3);
	sig = (const char *)sqlite3_column_text(st, 4);
	prev = (const char *)sqlite3_column_text(st, 5);
	k = (const char *)sqlite3_column_text(st, 6);
	/* the link before it: the event before, or the archive's head */
	if (prev == NULL && orc == 1 && o.no == al.no - 1)
		prev = o.link;
	if (prev != NULL && al_hex(prev, CHAIN_HEXLEN) &&
	    sodium_hex2bin(al.prev, sizeof(al.prev), prev, CHAIN_HEXLEN,
	    NULL, NULL, NULL) == 0)
		al.have_prev = 1;
	else if (al.no != 1) {
		al_fail(&al, "the event before the end of match %lld is "
		    "missing or malformed", id);
		rc = al.bad;
		goto done;
	}
	/* the key in force there, as a key event would set it */
	if (k == NULL && orc == 1)
		k = o.key;
	if (k != NULL && al.given && strcmp(k, key) != 0)
		al_fail(&al, "the log names the key %s, not the one given", k);
	else if (k != NULL && !al.given && al_hex(k, 2 * sizeof(al.pk)) &&
	    sodium_hex2bin(al.pk, sizeof(al.pk), k, 2 * sizeof(al.pk), NULL,
	    NULL, NULL) == 0)
		al.have_pk = 1;
	al_event(&al, kind, id, 0, text, (size_t)sqlite3_column_bytes(st, 2),
	    stored, sqlite3_column_bytes(st, 3), sig);
	rc = al.bad;
	if (rc == 0 && al.nsigned == 0) {
		fprintf(out, "the end of match %lld, link %lld of the log "
		    "chain, is not signed: the log has no key\n", id, al.no);
		rc = -1;
	} else if (rc == 0) {
		util_hex(al.pk, sizeof(al.pk), hex);
		fprintf(out, "the end of match %lld, link %lld of the log "
		    "chain, is signed with key %s\n", id, al.no, hex);
	}
done:
	sqlite3_finalize(st);
	free(al.mseen);
	return rc;
}

/* Is s exactly n lowercase hex digits? */
static int
al_hex(const char *s, size_t n)
{
	return s != NULL && strlen(s) == n && strspn(s, "0123456789abcdef") ==
	    n;
}

int
al_origin(sqlite3 *h, struct al_origin *o)
{
	sqlite3_stmt	*st;
	const char	*link, *sig, *key;
	int		 rc, n = 0;

	memset(o, 0, sizeof(*o));
	/* a log of before schema 5 has none */
	if (sqlite3_prepare_v2(h, "SELECT no, link, sig, key, last_match,"
	    " last_tournament FROM log_origin ORDER BY no", -1, &st, NULL) !=
	    SQLITE_OK)
		return sqlite3_errcode(h) == SQLITE_ERROR ? 0 : -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n++ == 0) {
		o->no = sqlite3_column_int64(st, 0);
		link = (const char *)sqlite3_column_text(st, 1);
		sig = (const char *)sqlite3_column_text(st, 2);
		key = (const char *)sqlite3_column_text(st, 3);
		o->last_match = sqlite3_column_int64(st, 4);
		o->last_tournament = sqlite3_column_int64(st, 5);
		if (!al_hex(link, 64) || !al_hex(sig, 128) || !al_hex(key, 64) ||
		    o->no < 1 || o->last_match < 0 || o->last_tournament < 0) {
			n = 2;	/* malformed */
			break;
		}
		memcpy(o->link, link, 65);
		memcpy(o->sig, sig, 129);
		memcpy(o->key, key, 65);
	}
	sqlite3_finalize(st);
	if (n > 1 || (rc != SQLITE_ROW && rc != SQLITE_DONE))
		return -1;
	return n;
}

/* The highest id of a table of h, refd's counter or its rows. */
static long long
al_top(sqlite3 *h, const char *table)
{
	char	 sql[256];

	snprintf(sql, sizeof(sql), "SELECT max(coalesce((SELECT seq FROM"
	    " sqlite_sequence WHERE name = '%s'), 0), coalesce((SELECT"
	    " max(id) FROM %s), 0))", table, table);
	return al_max(h, sql);
}

int
al_junction(sqlite3 *older, const char *oname, sqlite3 *newer,
    const char *nname, FILE *out)
{
	struct al_origin o, oo;
	sqlite3_stmt	*st;
	const char	*link, *sig, *key;
	long long	 no = 0, lowest;
	int		 bad = 0, rc;

	if ((rc = al_origin(newer, &o)) != 1) {
		fprintf(out, "log FAILED: %s does not go on from an archive: "
		    "%s\n", nname, rc == 0 ? "it has no origin" :
		    "its origin cannot be read");
		return 1;
	}
	/* the older log's last event and the key in force there */
	if (sqlite3_prepare_v2(older, "SELECT e.no, e.link, e.sig,"
	    " coalesce((SELECT substr(k.text, 5) FROM log_chain AS k WHERE"
	    " k.kind = 'key' ORDER BY k.no DESC LIMIT 1), (SELECT key FROM"
	    " log_origin)) FROM log_chain AS e ORDER BY e.no DESC LIMIT 1",
	    -1, &st, NULL) != SQLITE_OK) {
		fprintf(out, "log FAILED: %s: its log chain cannot be read: "
		    "%s\n", oname, sqlite3_errmsg(older));
		return 1;
	}
	link = sig = key = NULL;
	if (sqlite3_step(st) == SQLITE_ROW) {
		no = sqlite3_column_int64(st, 0);
		link = (const char *)sqlite3_column_text(st, 1);
		sig = (const char *)sqlite3_column_text(st, 2);
		key = (const char *)sqlite3_column_text(st, 3);
	}
	if (link == NULL || no != o.no || strcmp(link, o.link) != 0) {
		fprintf(out, "log FAILED: %s goes on from link %lld (%.16s...),"
		    " but %s ends at link %lld (%.16s...): not the archive "
		    "before it, or one of them was rewritten\n", nname, o.no,
		    o.link, oname, no, link != NULL ? link : "none");
		bad++;
	} else if (sig == NULL || strcmp(sig, o.sig) != 0) {
		fprintf(out, "log FAILED: %s ends at link %lld %s than the "
		    "origin of %s\n", oname, no, sig == NULL ? "unsigned, "
		    "rather" : "signed otherwise", nname);
		bad++;
	} else if (key == NULL || strcmp(key, o.key) != 0) {
		fprintf(out, "log FAILED: %s ends under the key %.16s..., the "
		    "origin of %s names %.16s...\n", oname, key ? key : "none",
		    nname, o.key);
		bad++;
	}
	sqlite3_finalize(st);
	/* every match and tournament in one of them, once */
	if (al_top(older, "matches") != o.last_match ||
	    al_top(older, "tournaments") != o.last_tournament) {
		fprintf(out, "log FAILED: %s numbers matches up to %lld and "
		    "tournaments up to %lld, the origin of %s says %lld and "
		    "%lld\n", oname, al_top(older, "matches"),
		    al_top(older, "tournaments"), nname, o.last_match,
		    o.last_tournament);
		bad++;
	}
	lowest = al_max(newer, "SELECT coalesce(min(id), 0) FROM matches");
	if (lowest > 0 && lowest <= o.last_match) {
		fprintf(out, "log FAILED: %s still holds match %lld, which its "
		    "origin says was archived\n", nname, lowest);
		bad++;
	}
	lowest = al_max(newer, "SELECT coalesce(min(id), 0) FROM tournaments");
	if (lowest > 0 && lowest <= o.last_tournament) {
		fprintf(out, "log FAILED: %s still holds tournament %lld, which "
		    "its origin says was archived\n", nname, lowest);
		bad++;
	}
	/* an archive's own origin: the same key goes on, or a key event */
	if (al_origin(older, &oo) == -1) {
		fprintf(out, "log FAILED: %s: its origin cannot be read\n",
		    oname);
		bad++;
	}
	if (bad == 0)
		fprintf(out, "archive ok: %s ends at link %lld, signed, with "
		    "matches up to %lld and tournaments up to %lld; %s goes "
		    "on from it\n", oname, no, o.last_match, o.last_tournament,
		    nname);
	return bad;
}

/*
 * Does a match's options text o hold the rules want gives variant v?
 * Only the rules that apply to v are compared: the first four variants'
 * texts also carry rule keys they never used.
 */
static int
al_rules_match(const struct mset *want, enum bri_variant v, const char *o)
{
	struct mset	 got;
	char		 why[200];
	int		 k;

	if (o == NULL || mset_read(&got, v, o, why, sizeof(why)) == -1)
		return 0;
	for (k = MSET_TARGET; k <= MSET_DEALS; k++)
		if (mset_applies(k, v) && (!got.given[k] ||
		    got.val[k] != want->val[k]))
			return 0;
	return 1;
}
/*
 * Each tournament against its schedule: the definition parsed and the
 * schedule generated again (tdef.c) from the master seed in the log;
 * each of its matches has a slot of that schedule, that slot's seed, its
 * seating and the definition's variant and rules; no slot is played to
 * the end twice; and a tournament that says every match was played has
 * every slot played once.
 */
int
al_tournaments(sqlite3 *h, FILE *out)
{
	sqlite3_stmt	*st, *ms = NULL, *ss = NULL;
	struct tdef	 d;
	struct tslot	*slots = NULL;
	const char	*def, *seedhex, *state, *reason, *v, *o, *sd;
	char		 err[512], name[64], sh[BRI_SEED_STRLEN];
	struct mset	 want;
	unsigned char	*done = NULL;
	long long	 tid, mid, slot;
	int		 bad = 0, tbad, n, i, k, played, seat;

	if (sqlite3_prepare_v2(h, "SELECT id, definition, seed, state, reason"
	    " FROM tournaments ORDER BY id", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT id, slot, variant, options, seed,"
	    " state FROM matches WHERE tournament = ?1 ORDER BY id", -1, &ms,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT seat, bot FROM seats WHERE"
	    " match_id = ?1 ORDER BY seat", -1, &ss, NULL) != SQLITE_OK) {
		fprintf(out, "log FAILED: the tournaments cannot be read: %s\n",
		    sqlite3_errmsg(h));
		sqlite3_finalize(st);
		sqlite3_finalize(ms);
		return 1;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		tid = sqlite3_column_int64(st, 0);
		def = (const char *)sqlite3_column_text(st, 1);
		seedhex = (const char *)sqlite3_column_text(st, 2);
		state = (const char *)sqlite3_column_text(st, 3);
		reason = (const char *)sqlite3_column_text(st, 4);
		tbad = 0;
		snprintf(name, sizeof(name), "tournament %lld", tid);
		memset(&d, 0, sizeof(d));
		if (def == NULL || tdef_parse(def, name, &d, err,
		    sizeof(err)) == -1 || seedhex == NULL ||
		    bri_seed_parse(seedhex, &d.seed) != BRI_OK ||
		    tdef_schedule(&d, &slots, &n, err, sizeof(err)) == -1) {
			fprintf(out, "tournament %lld FAILED: its definition or "
			    "seed cannot be read again: %s\n", tid,
			    def == NULL || seedhex == NULL ? "missing" : err);
			bad++;
			tdef_free(&d);
			continue;
		}
		d.have_seed = 1;
		if ((done = calloc((size_t)n, 1)) == NULL) {
			tdef_free(&d);
			free(slots);
			bad++;
			break;
		}
		/* the rules the definition gives each match, by mset.c */
		mset_of(&want, &d.opt, 0, 0, 0, POLICY_FORFEIT, 0);
		sqlite3_bind_int64(ms, 1, tid);
		while (sqlite3_step(ms) == SQLITE_ROW && tbad < AL_SHOWN) {
			mid = sqlite3_column_int64(ms, 0);
			slot = sqlite3_column_type(ms, 1) == SQLITE_INTEGER ?
			    sqlite3_column_int64(ms, 1) : -1;
			v = (const char *)sqlite3_column_text(ms, 2);
			o = (const char *)sqlite3_column_text(ms, 3);
			sd = (const char *)sqlite3_column_text(ms, 4);
			if (slot < 0 || slot >= n) {
				fprintf(out, "tournament %lld FAILED: match %lld "
				    "has slot %lld of a schedule of %d\n", tid,
				    mid, slot, n);
				tbad++;
				continue;
			}
			bri_seed_format(&slots[slot].seed, sh);
			if (v == NULL || strcmp(v,
			    bri_variant_name(d.opt.variant)) != 0 ||
			    !al_rules_match(&want, d.opt.variant, o)) {
				fprintf(out, "tournament %lld FAILED: match %lld "
				    "(slot %lld) is not played by the "
				    "definition's variant and rules\n", tid, mid,
				    slot);
				tbad++;
			} else if (sd == NULL || strcmp(sd, sh) != 0) {
				fprintf(out, "tournament %lld FAILED: match %lld "
				    "(slot %lld) is dealt from another seed than "
				    "the one the master seed gives its slot\n",
				    tid, mid, slot);
				tbad++;
			}
			sqlite3_bind_int64(ss, 1, mid);
			for (k = 0; sqlite3_step(ss) == SQLITE_ROW; k++) {
				seat = sqlite3_column_int(ss, 0);
				v = (const char *)sqlite3_column_text(ss, 1);
				if (seat != k || k >= bri_variant_seats(
				    d.opt.variant) || v == NULL || strcmp(v,
				    d.bots[slots[slot].bot[k]]) != 0) {
					fprintf(out, "tournament %lld FAILED: "
					    "match %lld (slot %lld) seats %s "
					    "in seat %d, the schedule seats "
					    "%s\n", tid, mid, slot, v ? v : "-",
					    seat, k < bri_variant_seats(
					    d.opt.variant) ?
					    d.bots[slots[slot].bot[k]] : "no one");
					tbad++;
					break;
				}
			}
			sqlite3_reset(ss);
			state = (const char *)sqlite3_column_text(ms, 5);
			if (state != NULL && strcmp(state, "done") == 0 &&
			    done[slot]++ > 0) {
				fprintf(out, "tournament %lld FAILED: slot %lld "
				    "is played to the end twice (again by match "
				    "%lld)\n", tid, slot, mid);
				tbad++;
			}
		}
		sqlite3_reset(ms);
		/* the state read again: the matches' statement moved on */
		state = (const char *)sqlite3_column_text(st, 3);
		played = 0;
		for (i = 0; i < n; i++)
			played += done[i] > 0;
		if (tbad == 0 && state != NULL && strcmp(state, "done") == 0 &&
		    reason != NULL && strcmp(reason, "every match played") ==
		    0 && played != n) {
			for (i = 0; i < n && done[i]; i++)
				;
			fprintf(out, "tournament %lld FAILED: done with every "
			    "match played, but slot %d of %d has no match that "
			    "ended\n", tid, i, n);
			tbad++;
		}
		if (tbad == 0)
			fprintf(out, "tournament %lld verified: %d of %d slots "
			    "played once each, as scheduled\n", tid, played,
			    n);
		bad += tbad;
		free(done);
		done = NULL;
		free(slots);
		slots = NULL;
		tdef_free(&d);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ms);
	sqlite3_finalize(ss);
	return bad;
}
