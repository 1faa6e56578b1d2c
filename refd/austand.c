/*
 * austand.c: audit --all recounts each tournament's standings.  While
 * the audit walks a tournament's match, each deal's result is taken from
 * its replay through libbriscola (the state the row was just checked
 * against), and at the end the match's result, match points and faults;
 * then the standings are computed from those records by standings.c and
 * compared, bot by bot, with the standings refctl tournament standings
 * computes from the log's rows (tstand.c).  A difference names the bot
 * and the figure: a stored input that disagrees with the play, or a
 * loader that reads the log otherwise than the rules played it.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "briscola.h"
#include "audit.h"
#include "austand.h"
#include "standings.h"
#include "tdef.h"
#include "tstand.h"

/* One tournament match as the audit replayed it. */
struct as_rec {
	long long	 tid, slot, id;
	struct st_match	 m;
	struct st_deal	*deals;
	int		 cap;
	char		 bot[BRI_MAXSEATS][AU_WORDMAX + 1];
};

static int	as_cmp(const void *, const void *);
static int	as_table(struct as_count *, long long, const struct tdef *,
		    int, struct st_table *, int *, char *, size_t);
static void	as_prefix(const struct tdef *, struct tstand *);
static int	as_compare(FILE *, long long, const struct tdef *,
		    const struct st_table *, const struct st_table *);
static const char *as_unverified(const struct as_count *, long long,
		    const struct tstand *, char *, size_t);

/* A deal's end was checked: keep the replay's result of it. */
void
as_row(struct au *a, const struct au_row *r)
{
	struct as_count	*c = a->arg;
	struct as_rec	*rec;
	struct st_deal	*d, *nd;
	int		 i;

	if (c == NULL || (rec = c->cur) == NULL || r->kind != AU_DEALEND)
		return;
	if (rec->m.ndeals == rec->cap) {
		rec->cap = rec->cap ? 2 * rec->cap : 16;
		if ((nd = reallocarray(rec->deals, rec->cap, sizeof(*nd))) ==
		    NULL) {
			c->nomem = 1;
			return;
		}
		rec->deals = nd;
	}
	d = &rec->deals[rec->m.ndeals++];
	memset(d, 0, sizeof(*d));
	d->result = a->bm.deal.result;
	d->winner = a->bm.deal.winner;
	d->joker = a->bm.deal.joker;
	for (i = 0; i < a->nseats && i < BRI_MAXSEATS; i++)
		d->mpoints[i] = a->bm.deal.mpoints[i];
}

/* A match is about to be walked: its deals are counted as they end. */
void
as_start(struct as_count *c, struct au *a)
{
	a->arg = c;
	a->on_row = as_row;
	if (c->cur == NULL && (c->cur = calloc(1, sizeof(*c->cur))) == NULL)
		c->nomem = 1;
	if (c->cur != NULL) {
		free(c->cur->deals);
		memset(c->cur, 0, sizeof(*c->cur));
	}
}

/*
 * The walk ended with verdict r (au_match()): a tournament match that
 * verified and ended done is kept, its result taken from the replay.
 */
void
as_done(struct as_count *c, const struct au *a, int r)
{
	struct as_rec	*rec = c->cur, *nr;
	struct st_match	*m;
	int		 i;

	if (rec == NULL || r != 0 || a->tournament <= 0 ||
	    strcmp(a->state, "done") != 0)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		if ((nr = reallocarray(c->rec, c->cap, sizeof(*nr))) == NULL) {
			c->nomem = 1;
			return;
		}
		c->rec = nr;
	}
	m = &rec->m;
	rec->tid = a->tournament;
	rec->slot = a->slot;
	rec->id = a->id;
	m->variant = a->opt.variant;
	m->nseats = a->nseats;
	m->winner = m->forfeit = -1;
	if (a->forfeit_seat >= 0)
		m->forfeit = a->forfeit_seat;
	else if (a->bm.result == BRI_MATCH_WON)
		m->winner = a->bm.winner;
	for (i = 0; i < a->nseats && i < BRI_MAXSEATS; i++) {
		m->mpoints[i] = a->bm.mpoints[i];
		m->faults[i] = a->nfault[i];
		snprintf(rec->bot[i], sizeof(rec->bot[i]), "%s",
		    a->seat[i].bot);
	}
	c->rec[c->n++] = *rec;
	memset(rec, 0, sizeof(*rec));	/* its deals are the kept one's */
}

/* Schedule order, as tstand_load() reads: by slot, then by id. */
static int
as_cmp(const void *x, const void *y)
{
	const struct as_rec *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->slot != b->slot)
		return a->slot < b->slot ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * The standings of tournament tid from the replayed records, the first
 * match to end in each slot counting, into t; *n gets how many.
 */
static int
as_table(struct as_count *c, long long tid, const struct tdef *d, int upto,
    struct st_table *t, int *n, char *err, size_t errlen)
{
	struct st_match	*ms;
	int		 i, k, b, rc;

	if ((ms = calloc((size_t)c->n + 1, sizeof(*ms))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (*n = 0, i = 0; i < c->n; i++) {
		struct as_rec *r = &c->rec[i];

		if (r->tid != tid || (upto > 0 && r->slot >= upto) || (i > 0 &&
		    c->rec[i - 1].tid == tid && c->rec[i - 1].slot == r->slot))
			continue;
		ms[*n] = r->m;
		ms[*n].deals = r->deals;
		for (k = 0; k < r->m.nseats; k++) {
			for (b = 0; b < d->nbots; b++)
				if (strcmp(d->bots[b], r->bot[k]) == 0)
					break;
			if (b == d->nbots) {
				snprintf(err, errlen, "match %lld seats %s, "
				    "not one of its bots", r->id, r->bot[k]);
				free(ms);
				return -1;
			}
			ms[*n].bot[k] = b;
		}
		(*n)++;
	}
	rc = st_compute(ms, *n, d->nbots, 1, t);
	free(ms);
	if (rc == -1)
		snprintf(err, errlen, "the standings cannot be computed from "
		    "the replayed matches");
	return rc;
}

/*
 * After a gauntlet's SPRT verdict the standings count only the prefix of
 * the schedule it read (tstand_sprt_prefix()): so does the recount.
 */
static void
as_prefix(const struct tdef *d, struct tstand *ts)
{
	struct tslot	*slots;
	struct st_sprt	 s;
	char		 err[256];
	int		 n;

	if (!d->sprt || tdef_schedule(d, &slots, &n, err, sizeof(err)) == -1)
		return;
	tstand_sprt_prefix(d, slots, n, ts, &s);
	free(slots);
}

/*
 * The matches refd's standings count that the recount has not, named
 * in buf (", not match N, ..."), or "".
 */
static const char *
as_unverified(const struct as_count *c, long long tid,
    const struct tstand *ts, char *buf, size_t len)
{
	size_t	 at = 0;
	int	 i, k, shown = 0;

	buf[0] = '\0';
	for (i = 0; i < ts->n && shown < 5; i++) {
		for (k = 0; k < c->n; k++)
			if (c->rec[k].tid == tid && c->rec[k].id == ts->id[i])
				break;
		if (k < c->n || at >= len)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%lld",
		    shown++ == 0 ? ": not match " : ", ", (long long)ts->id[i]);
	}
	return buf;
}

/* Each bot's line of the two tables, figure by figure: 0 if alike. */
static int
as_compare(FILE *out, long long tid, const struct tdef *d,
    const struct st_table *got, const struct st_table *want)
{
	static const struct {
		const char	*what;
		size_t		 off;
	} f[] = {
#define F(x)	{ #x, offsetof(struct st_row, x) }
		F(played), F(won), F(drawn), F(lost), F(deals),
		F(deals_won), F(deals_lost), F(deals_void), F(joker_deals),
		F(joker_won), F(joker_lost), F(ally_deals), F(ally_won),
		F(ally_lost), F(faults)
#undef F
	};
	const struct st_row *g, *w;
	size_t		 k;
	int		 i, j, bad = 0;

	for (i = 0; i < want->nbots && bad < 5; i++) {
		w = &want->row[i];
		for (j = 0; j < got->nbots && got->row[j].bot != w->bot; j++)
			continue;
		if (j == got->nbots) {
			fprintf(out, "tournament %lld FAILED: the standings "
			    "refd reports rank %s, the recount does not\n",
			    tid, d->bots[w->bot]);
			bad++;
			continue;
		}
		g = &got->row[j];
		for (k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
			int gv = *(const int *)(const void *)((const char *)g +
			    f[k].off);
			int wv = *(const int *)(const void *)((const char *)w +
			    f[k].off);

			if (gv == wv)
				continue;
			fprintf(out, "tournament %lld FAILED: the standings "
			    "refd reports give %s %s %d, the matches as "
			    "replayed give %d\n", tid, d->bots[w->bot],
			    f[k].what, wv, gv);
			bad++;
			break;
		}
		if (k == sizeof(f) / sizeof(f[0]) && i == j &&
		    (g->mpoints_per_deal != w->mpoints_per_deal ||
		    g->score != w->score || g->elo != w->elo)) {
			fprintf(out, "tournament %lld FAILED: the standings "
			    "refd reports rate %s %.1f, the matches as "
			    "replayed %.1f\n", tid, d->bots[w->bot], w->elo,
			    g->elo);
			bad++;
		} else if (k == sizeof(f) / sizeof(f[0]) && i != j) {
			fprintf(out, "tournament %lld FAILED: the standings "
			    "refd reports rank %s %d, the recount %d\n", tid,
			    d->bots[w->bot], i + 1, j + 1);
			bad++;
		}
	}
	return bad;
}

/*
 * Every tournament of the log: its standings recounted from the matches
 * the audit replayed, against those tstand.c reads from the rows.
 * Returns the number of failures printed.
 */
int
as_check(struct as_count *c, sqlite3 *h, FILE *out)
{
	sqlite3_stmt	*st;
	struct st_table	*got = NULL, *want = NULL;
	struct tstand	 ts;
	struct tdef	 d;
	const char	*def;
	char		 err[512], name[64];
	long long	 tid;
	int		 bad = 0, n, b;

	if (c->nomem) {
		fprintf(out, "log FAILED: out of memory recounting the "
		    "standings\n");
		return 1;
	}
	if (sqlite3_prepare_v2(h, "SELECT id, definition FROM tournaments"
	    " ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return 0;	/* al_tournaments() said why */
	if ((got = malloc(sizeof(*got))) == NULL ||
	    (want = malloc(sizeof(*want))) == NULL) {
		fprintf(out, "log FAILED: out of memory recounting the "
		    "standings\n");
		bad++;
		goto done;
	}
	if (c->n > 0)
		qsort(c->rec, (size_t)c->n, sizeof(*c->rec), as_cmp);
	while (sqlite3_step(st) == SQLITE_ROW) {
		tid = sqlite3_column_int64(st, 0);
		def = (const char *)sqlite3_column_text(st, 1);
		snprintf(name, sizeof(name), "tournament %lld", tid);
		memset(&d, 0, sizeof(d));
		if (def == NULL || tdef_parse(def, name, &d, err,
		    sizeof(err)) == -1) {
			tdef_free(&d);
			continue;	/* al_tournaments() said so */
		}
		if (tstand_load(h, tid, &d, 0, &ts, err, sizeof(err)) == -1) {
			fprintf(out, "tournament %lld FAILED: refctl "
			    "tournament standings cannot read it: %s\n", tid,
			    err);
			bad++;
		} else if (as_prefix(&d, &ts), as_table(c, tid, &d, ts.upto,
		    got, &n, err, sizeof(err)) == -1) {
			fprintf(out, "tournament %lld FAILED: %s\n", tid, err);
			bad++;
			tstand_free(&ts);
		} else {
			if (st_compute(ts.m, ts.n, d.nbots, 1, want) == -1) {
				fprintf(out, "tournament %lld FAILED: the "
				    "standings cannot be computed from its "
				    "rows\n", tid);
				b = 1;
			} else if (ts.n != n) {
				fprintf(out, "tournament %lld FAILED: the "
				    "standings refd reports count %d matches, "
				    "the audit verified %d that ended%s\n", tid,
				    ts.n, n, as_unverified(c, tid, &ts, err,
				    sizeof(err)));
				b = 1;
			} else
				b = as_compare(out, tid, &d, got, want);
			if (b == 0)
				fprintf(out, "tournament %lld standings "
				    "recounted: %d matches, as refctl's "
				    "standings\n", tid,
				    n);
			bad += b;
			tstand_free(&ts);
		}
		tdef_free(&d);
	}
done:
	sqlite3_finalize(st);
	free(got);
	free(want);
	return bad;
}

/* Free the records. */
void
as_free(struct as_count *c)
{
	int	 i;

	for (i = 0; i < c->n; i++)
		free(c->rec[i].deals);
	free(c->rec);
	if (c->cur != NULL)
		free(c->cur->deals);
	free(c->cur);
	memset(c, 0, sizeof(*c));
}
