/*
 * tstand.c: read a tournament's finished matches back from the log and
 * print standings and results.  Matches are taken in schedule order, so
 * the standings do not depend on which match happened to finish first:
 * the same log gives the same standings however many ran at once.
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "tstand.h"
#include "util.h"

#ifndef MAX
#define MAX(a, b)	((a) > (b) ? (a) : (b))
#endif

/* Parse "text", "csv" or "json". */
int
tstand_fmt_parse(const char *s, enum tstand_fmt *f)
{
	if (strcmp(s, "text") == 0)
		*f = TSTAND_TEXT;
	else if (strcmp(s, "csv") == 0)
		*f = TSTAND_CSV;
	else if (strcmp(s, "json") == 0)
		*f = TSTAND_JSON;
	else
		return -1;
	return 0;
}

/* Parse "a,b,c" into at most n integers; returns the count or -1. */
static int
intlist(const unsigned char *s, int *v, int n)
{
	const char	*p = (const char *)s;
	char		*end;
	long		 l;
	int		 k = 0;

	if (p == NULL)
		return -1;
	while (*p != '\0') {
		if (k == n)
			return -1;
		l = strtol(p, &end, 10);
		if (end == p || l < -1000000 || l > 1000000)
			return -1;
		v[k++] = (int)l;
		if (*end == ',')
			end++;
		else if (*end != '\0')
			return -1;
		p = end;
	}
	return k;
}

/* The result word of a match into winner, forfeit and aborted. */
static int
result_parse(const char *r, struct st_match *m)
{
	m->winner = m->forfeit = -1;
	m->aborted = 0;
	if (r == NULL)
		return -1;
	if (strncmp(r, "seat", 4) == 0 || strncmp(r, "team", 4) == 0)
		m->winner = atoi(r + 4);
	else if (strncmp(r, "forfeit", 7) == 0)
		m->forfeit = atoi(r + 7);
	else if (strcmp(r, "aborted") == 0)
		m->aborted = 1;
	else if (strcmp(r, "draw") != 0)
		return -1;
	if (m->winner >= m->nseats || m->forfeit >= m->nseats)
		return -1;
	return 0;
}

/* The deal result word, as the log writes it. */
static int
deal_result(const char *r)
{
	/* in the order of enum bri_deal_result */
	static const char *const names[] = { "playing", "joker", "allies",
	    "void", "won", "drawn", "caller", "others" };
	int	 i;

	for (i = 0; r != NULL && i < 8; i++)
		if (strcmp(r, names[i]) == 0)
			return i;
	return -1;
}

static int	tstand_read(sqlite3 *, sqlite3_stmt *, const struct tdef *,
		    struct tstand *, char *, size_t);

/* Free what tstand_load() allocated. */
void
tstand_free(struct tstand *t)
{
	free(t->m);
	free(t->deals);
	free(t->id);
	free(t->slot);
	free(t->tv);
	memset(t, 0, sizeof(*t));
}

/*
 * Read the finished matches of tournament tid from the log h, of slot
 * from on (0: all of them), mapping each seat's bot to its index among
 * d's participants.  Returns 0, or -1 with the reason in err; the log
 * is hostile: anything malformed is an error, never a crash.
 */
int
tstand_load(sqlite3 *h, int64_t tid, const struct tdef *d, int from,
    struct tstand *t, char *err, size_t errlen)
{
	sqlite3_stmt	*sm;

	memset(t, 0, sizeof(*t));
	if (sqlite3_prepare_v2(h, "SELECT id, slot, result, mpoints FROM "
	    "matches WHERE tournament = ? AND state = 'done' AND slot >= ? "
	    "ORDER BY slot, id", -1, &sm, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "log: %s", sqlite3_errmsg(h));
		return -1;
	}
	sqlite3_bind_int64(sm, 1, tid);
	sqlite3_bind_int(sm, 2, from);
	return tstand_read(h, sm, d, t, err, errlen);
}

/*
 * Read one finished match, match mid of the log h, into t as the match
 * of slot of d: what a cluster's worker reports (tstand_record()).
 * Returns 0, or -1 with the reason in err.
 */
int
tstand_load_match(sqlite3 *h, int64_t mid, const struct tdef *d, int slot,
    struct tstand *t, char *err, size_t errlen)
{
	sqlite3_stmt	*sm;

	memset(t, 0, sizeof(*t));
	if (sqlite3_prepare_v2(h, "SELECT id, ?2, result, mpoints FROM "
	    "matches WHERE id = ?1 AND state = 'done'", -1, &sm, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "log: %s", sqlite3_errmsg(h));
		return -1;
	}
	sqlite3_bind_int64(sm, 1, mid);
	sqlite3_bind_int(sm, 2, slot);
	if (tstand_read(h, sm, d, t, err, errlen) == -1)
		return -1;
	if (t->n != 1) {
		snprintf(err, errlen, "match %lld: not finished in the log",
		    (long long)mid);
		tstand_free(t);
		return -1;
	}
	return 0;
}

/*
 * The matches the statement sm (id, slot, result, mpoints; bound, and
 * finalized here) finds, with their seats, faults and deals, into t.
 */
static int
tstand_read(sqlite3 *h, sqlite3_stmt *sm, const struct tdef *d,
    struct tstand *t, char *err, size_t errlen)
{
	sqlite3_stmt	*ss = NULL, *sf = NULL, *sd = NULL;
	int		 nd = 0, capm = 0, capd = 0, rc = -1, i, k;
	int		 prev[BRI_MAXSEATS];
	int		 mp[BRI_MAXSEATS];
	const char	*name;

	if (sqlite3_prepare_v2(h, "SELECT seat, bot FROM seats WHERE "
	    "match_id = ? ORDER BY seat", -1, &ss, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT seat, count(*) FROM faults WHERE "
	    "match_id = ? GROUP BY seat", -1, &sf, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT r.result, r.winner, r.mpoints, "
	    "j.seat, d.caller, d.partner FROM deal_results r LEFT JOIN "
	    "jokers j ON j.match_id = r.match_id AND j.deal_no = r.deal_no "
	    "LEFT JOIN deals d ON d.match_id = r.match_id AND "
	    "d.deal_no = r.deal_no WHERE r.match_id = ? ORDER BY r.deal_no",
	    -1, &sd, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "log: %s", sqlite3_errmsg(h));
		goto out;
	}
	while (sqlite3_step(sm) == SQLITE_ROW) {
		struct st_match	*m;
		int64_t		 id = sqlite3_column_int64(sm, 0);
		int		 slot = sqlite3_column_int(sm, 1);

		if (t->n > 0 && t->slot[t->n - 1] == slot)
			continue;	/* one result per slot */
		if (t->n == capm) {
			capm = capm ? 2 * capm : 64;
			if ((t->m = reallocarray(t->m, capm, sizeof(*t->m))) ==
			    NULL || (t->id = reallocarray(t->id, capm,
			    sizeof(int64_t))) == NULL || (t->slot =
			    reallocarray(t->slot, capm, sizeof(int))) == NULL) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
		}
		m = &t->m[t->n];
		memset(m, 0, sizeof(*m));
		m->variant = d->opt.variant;
		m->nseats = bri_variant_seats(d->opt.variant);
		t->id[t->n] = id;
		t->slot[t->n] = slot;
		if (result_parse((const char *)sqlite3_column_text(sm, 2), m) ||
		    intlist(sqlite3_column_text(sm, 3), m->mpoints,
		    BRI_MAXSEATS) != m->nseats) {
			snprintf(err, errlen, "match %lld: bad result in the "
			    "log", (long long)id);
			goto out;
		}
		sqlite3_bind_int64(ss, 1, id);
		k = 0;
		while (sqlite3_step(ss) == SQLITE_ROW) {
			i = sqlite3_column_int(ss, 0);
			name = (const char *)sqlite3_column_text(ss, 1);
			if (i != k || i >= m->nseats || name == NULL)
				break;
			for (m->bot[i] = 0; m->bot[i] < d->nbots; m->bot[i]++)
				if (strcmp(d->bots[m->bot[i]], name) == 0)
					break;
			if (m->bot[i] == d->nbots)
				break;
			k++;
		}
		sqlite3_reset(ss);
		if (k != m->nseats) {
			snprintf(err, errlen, "match %lld: its seats do not "
			    "match the tournament's bots", (long long)id);
			goto out;
		}
		sqlite3_bind_int64(sf, 1, id);
		while (sqlite3_step(sf) == SQLITE_ROW) {
			i = sqlite3_column_int(sf, 0);
			if (i >= 0 && i < m->nseats)
				m->faults[i] = sqlite3_column_int(sf, 1);
		}
		sqlite3_reset(sf);
		sqlite3_bind_int64(sd, 1, id);
		memset(prev, 0, sizeof(prev));
		m->ndeals = 0;
		while (sqlite3_step(sd) == SQLITE_ROW) {
			struct st_deal *dl;

			if (nd == capd) {
				capd = capd ? 2 * capd : 1024;
				if ((t->deals = reallocarray(t->deals, capd,
				    sizeof(*t->deals))) == NULL) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
			}
			dl = &t->deals[nd];
			memset(dl, 0, sizeof(*dl));
			dl->result = deal_result((const char *)
			    sqlite3_column_text(sd, 0));
			dl->winner = sqlite3_column_type(sd, 1) == SQLITE_NULL ?
			    -1 : sqlite3_column_int(sd, 1);
			dl->joker = sqlite3_column_type(sd, 3) == SQLITE_NULL ?
			    -1 : sqlite3_column_int(sd, 3);
			/* chiamata5's roles, from the called card's columns */
			dl->caller = sqlite3_column_type(sd, 4) == SQLITE_NULL ?
			    -1 : sqlite3_column_int(sd, 4);
			dl->partner = sqlite3_column_type(sd, 5) ==
			    SQLITE_NULL ? -1 : sqlite3_column_int(sd, 5);
			if (dl->result < 0 || intlist(sqlite3_column_text(sd,
			    2), mp, BRI_MAXSEATS) != m->nseats) {
				snprintf(err, errlen, "match %lld: bad deal "
				    "result in the log", (long long)id);
				goto out;
			}
			for (i = 0; i < m->nseats; i++) {
				dl->mpoints[i] = mp[i] - prev[i];
				prev[i] = mp[i];
			}
			nd++;
			m->ndeals++;
		}
		sqlite3_reset(sd);
		t->n++;
	}
	/* the deals array may have moved: point each match at its own */
	for (i = 0, k = 0; i < t->n; i++) {
		t->m[i].deals = t->deals + k;
		k += t->m[i].ndeals;
	}
	rc = 0;
out:
	sqlite3_finalize(sm);
	sqlite3_finalize(ss);
	sqlite3_finalize(sf);
	sqlite3_finalize(sd);
	if (rc == -1)
		tstand_free(t);
	return rc;
}

/* Begin s, the SPRT of gauntlet d, at its first slot. */
void
tstand_sprt_begin(const struct tdef *d, struct st_sprt *s)
{
	memset(s, 0, sizeof(*s));
	s->elo0 = d->elo0;
	s->elo1 = d->elo1;
	s->alpha = d->alpha;
	s->beta = d->beta;
	st_sprt_begin(s);
}

/*
 * Take s, the SPRT of gauntlet d (the candidate, bot 0, against the
 * first bot of the pool, bot 1), on from slot pos, where it stopped,
 * over the finished matches ts, in schedule order: an observation is a
 * match, or with duplicate deals a whole set (the slots of one block).
 * Only the schedule's longest prefix of whole observations, every slot
 * of them done, counts, and the test stops at the first that takes it
 * to a bound: the verdict cannot depend on which match finished first.
 * ts need hold no slot before pos, so that a refd that carries s from
 * one match's end to the next reads only the matches since.  Returns
 * the number of slots of the prefix the test has read.
 */
int
tstand_sprt_more(const struct tdef *d, const struct tslot *slots, int nslots,
    const struct tstand *ts, struct st_sprt *s, int pos)
{
	int	 end, k = 0, j;

	while (pos < nslots && s->decided == 0) {
		for (end = pos + 1; d->duplicate && end < nslots &&
		    slots[end].block == slots[pos].block; end++)
			;
		while (k < ts->n && ts->slot[k] < pos)
			k++;
		for (j = pos; j < end; j++)
			if (k + j - pos >= ts->n || ts->slot[k + j - pos] != j)
				return pos;
		st_sprt_add(s, ts->m + k, end - pos, 0, 1);
		k += end - pos;
		pos = end;
	}
	return pos;
}

/* The SPRT of gauntlet d over all of ts (tstand_sprt_more()). */
int
tstand_sprt(const struct tdef *d, const struct tslot *slots, int nslots,
    const struct tstand *ts, struct st_sprt *s)
{
	tstand_sprt_begin(d, s);
	return tstand_sprt_more(d, slots, nslots, ts, s, 0);
}

/*
 * What the standings of gauntlet d count once its SPRT has decided: the
 * schedule's prefix its verdict read, in whole observations (duplicate
 * sets), and no match that finished after it, whatever the concurrency.
 * Runs the SPRT over ts into s and drops from ts every match of a later
 * slot.  Returns the first slot not counted: nslots if the test has not
 * decided (or d has none), when nothing is dropped.
 */
int
tstand_sprt_prefix(const struct tdef *d, const struct tslot *slots,
    int nslots, struct tstand *ts, struct st_sprt *s)
{
	int	 pos, k;

	if (!d->sprt)
		return nslots;
	pos = tstand_sprt(d, slots, nslots, ts, s);
	if (s->decided == 0)
		return nslots;
	/* ts is in schedule order */
	for (k = 0; k < ts->n && ts->slot[k] < pos; k++)
		;
	ts->n = k;
	ts->upto = pos;
	return pos;
}

/*
 * The unit of each finished match of ts, for resampling whole: its
 * block (a duplicate set) with duplicate deals, else its slot.  A new
 * array the caller frees, or NULL when memory runs out.
 */
int *
tstand_units(const struct tdef *d, const struct tslot *slots, int nslots,
    const struct tstand *ts)
{
	int	*u, k;

	if ((u = calloc(ts->n + 1, sizeof(int))) == NULL)
		return NULL;
	for (k = 0; k < ts->n; k++)
		u[k] = d->duplicate && ts->slot[k] >= 0 &&
		    ts->slot[k] < nslots ? slots[ts->slot[k]].block :
		    ts->slot[k];
	return u;
}

/* The state of a test in words. */
const char *
tstand_sprt_state(const struct st_sprt *s)
{
	if (!s->valid)
		return "invalid";
	return s->decided > 0 ? "H1" : s->decided < 0 ? "H0" : "undecided";
}

/* Copy text column i of st into buf, "" for NULL. */
static void
tstand_col(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const char	*s = (const char *)sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", s != NULL ? s : "");
}

/*
 * Read what the standings show besides the matches: the tournament's
 * name, seed, dates and state, and each bot's thinking time (mean,
 * nearest-rank 99th percentile and maximum of the cards it chose, and
 * its time-outs) in the finished matches, as the standings count, into
 * ts.  Returns 0, or -1 with the reason in err.
 */
int
tstand_extra(sqlite3 *h, int64_t tid, const struct tdef *d, struct tstand *ts,
    char *err, size_t errlen)
{
	sqlite3_stmt	*st = NULL, *sq = NULL, *sp = NULL, *sf = NULL;
	struct tstand_time *tm;
	int		 i, rc = -1;

	memset(&ts->meta, 0, sizeof(ts->meta));
	memset(ts->time, 0, sizeof(ts->time));
	if (sqlite3_prepare_v2(h, "SELECT name, seed, started, "
	    "coalesce(ended, ''), state FROM tournaments WHERE id = ?", -1,
	    &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT count(*), coalesce(avg(p.ms), 0), "
	    "coalesce(max(p.ms), 0) FROM plays p JOIN seats s ON s.match_id = "
	    "p.match_id AND s.seat = p.seat JOIN matches m ON m.id = "
	    "p.match_id WHERE m.tournament = ?1 AND m.state = 'done' AND "
	    "s.bot = ?2 AND p.fault = 0 AND m.slot < ?4", -1, &sq, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT p.ms FROM plays p JOIN seats s ON "
	    "s.match_id = p.match_id AND s.seat = p.seat JOIN matches m ON "
	    "m.id = p.match_id WHERE m.tournament = ?1 AND m.state = 'done' "
	    "AND s.bot = ?2 AND p.fault = 0 AND m.slot < ?4 ORDER BY p.ms LIMIT 1 OFFSET ?3",
	    -1, &sp, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT count(*) FROM faults f JOIN seats s "
	    "ON s.match_id = f.match_id AND s.seat = f.seat JOIN matches m ON "
	    "m.id = f.match_id WHERE m.tournament = ?1 AND m.state = 'done' "
	    "AND s.bot = ?2 AND f.kind = 'timeout' AND m.slot < ?4", -1, &sf, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "log: %s", sqlite3_errmsg(h));
		goto out;
	}
	sqlite3_bind_int64(st, 1, tid);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "no tournament %lld in the log",
		    (long long)tid);
		goto out;
	}
	ts->meta.id = tid;
	tstand_col(st, 0, ts->meta.name, sizeof(ts->meta.name));
	tstand_col(st, 1, ts->meta.seed, sizeof(ts->meta.seed));
	tstand_col(st, 2, ts->meta.started, sizeof(ts->meta.started));
	tstand_col(st, 3, ts->meta.ended, sizeof(ts->meta.ended));
	tstand_col(st, 4, ts->meta.state, sizeof(ts->meta.state));
	/* a seed that may deal again is no one's to read */
	if (!tdef_over(ts->meta.state))
		snprintf(ts->meta.seed, sizeof(ts->meta.seed), "-");
	for (i = 0; i < d->nbots; i++) {
		tm = &ts->time[i];
		sqlite3_reset(sq);
		sqlite3_bind_int64(sq, 1, tid);
		sqlite3_bind_text(sq, 2, d->bots[i], -1, SQLITE_STATIC);
		sqlite3_bind_int(sq, 4, ts->upto > 0 ? ts->upto : INT_MAX);
		if (sqlite3_step(sq) == SQLITE_ROW) {
			tm->moves = sqlite3_column_int(sq, 0);
			tm->mean = sqlite3_column_double(sq, 1);
			tm->max = sqlite3_column_int(sq, 2);
		}
		if (tm->moves > 0) {
			/* nearest rank: the ceil(0.99 n)-th smallest */
			sqlite3_reset(sp);
			sqlite3_bind_int64(sp, 1, tid);
			sqlite3_bind_text(sp, 2, d->bots[i], -1, SQLITE_STATIC);
			sqlite3_bind_int(sp, 4, ts->upto > 0 ? ts->upto :
			    INT_MAX);
			sqlite3_bind_int(sp, 3, (int)((99LL * tm->moves + 99) /
			    100) - 1);
			if (sqlite3_step(sp) == SQLITE_ROW)
				tm->p99 = sqlite3_column_int(sp, 0);
		}
		sqlite3_reset(sf);
		sqlite3_bind_int64(sf, 1, tid);
		sqlite3_bind_text(sf, 2, d->bots[i], -1, SQLITE_STATIC);
		sqlite3_bind_int(sf, 4, ts->upto > 0 ? ts->upto : INT_MAX);
		if (sqlite3_step(sf) == SQLITE_ROW)
			tm->timeouts = sqlite3_column_int(sf, 0);
	}
	ts->have_extra = 1;
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(sq);
	sqlite3_finalize(sp);
	sqlite3_finalize(sf);
	return rc;
}

/* A string as JSON, with every control character escaped. */
void
tstand_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 32 || c == 127)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * Two lines on the SPRT sp of tournament d, each within 80 columns:
 * hypotheses and error rates, then LLR, bounds, counts and state.
 */
void
tstand_sprt_print(FILE *f, const struct tdef *d, const struct st_sprt *sp)
{
	fprintf(f, "\nSPRT %.16s against %.16s: H0 %g Elo, H1 %g Elo, alpha %g, "
	    "beta %g\n", d->bots[0], d->nbots > 1 ? d->bots[1] : "-",
	    sp->elo0, sp->elo1, sp->alpha, sp->beta);
	fprintf(f, "LLR %.3f [%.3f, %.3f], %d %s, games %d-%d-%d: %s\n",
	    sp->llr, sp->lower, sp->upper, sp->units, d->duplicate ? "sets" :
	    "matches", sp->wins, sp->draws, sp->losses,
	    sp->decided > 0 ? "H1 accepted" : sp->decided < 0 ?
	    "H0 accepted" : "undecided");
}

/* Why a tournament ends by its SPRT, in words, into buf. */
void
tstand_sprt_reason(const struct tdef *d, const struct st_sprt *s, char *buf,
    size_t len)
{
	snprintf(buf, len, "SPRT: %s (LLR %.2f, bounds [%.2f, %.2f], "
	    "%d %s, games %d-%d-%d)", s->decided > 0 ? "H1 accepted" :
	    s->decided < 0 ? "H0 accepted" : "undecided at the match limit",
	    s->llr, s->lower, s->upper, s->units, d->duplicate ? "sets" :
	    "matches", s->wins, s->draws, s->losses);
}

/*
 * The crosstable: bots by rank, against each other by rank number, each
 * cell wins-draws-losses of the row's bot against the column's.  When
 * it would not fit in 80 columns, one line per pair instead.
 */
static void
tstand_cross(FILE *f, const struct tdef *d, const struct st_table *t)
{
	const struct st_h2h	*h;
	char			 cell[40];
	int			 i, j, w = 2, a, b;

	for (i = 0; i < t->nbots; i++)
		for (j = 0; j < t->nbots; j++) {
			h = &t->h2h[t->row[i].bot][t->row[j].bot];
			w = MAX(w, snprintf(cell, sizeof(cell), "%d-%d-%d",
			    h->wins, h->draws, h->losses) + 1);
		}
	fprintf(f, "\nhead to head (row against column: wins-draws-losses)\n");
	if (21 + t->nbots * w > 80) {
		for (i = 0; i < t->nbots; i++)
			for (j = i + 1; j < t->nbots; j++) {
				a = t->row[i].bot;
				b = t->row[j].bot;
				h = &t->h2h[a][b];
				fprintf(f, "%d %.16s - %d %.16s: %d-%d-%d\n",
				    i + 1, d->bots[a], j + 1, d->bots[b],
				    h->wins, h->draws, h->losses);
			}
		return;
	}
	fprintf(f, "%-21s", "");
	for (j = 0; j < t->nbots; j++)
		fprintf(f, "%*d", w, j + 1);
	fputc('\n', f);
	for (i = 0; i < t->nbots; i++) {
		fprintf(f, "%-4d %-16.16s", i + 1, d->bots[t->row[i].bot]);
		for (j = 0; j < t->nbots; j++) {
			h = &t->h2h[t->row[i].bot][t->row[j].bot];
			if (i == j)
				snprintf(cell, sizeof(cell), "-");
			else
				snprintf(cell, sizeof(cell), "%d-%d-%d",
				    h->wins, h->draws, h->losses);
			fprintf(f, "%*s", w, cell);
		}
		fputc('\n', f);
	}
}

/*
 * chiamata5: each bot's deals by role, won/lost of those played, in
 * rank order (a drawn deal counts in neither).
 */
static void
tstand_roles(FILE *f, const struct tdef *d, const struct st_table *t)
{
	const struct st_row	*r;
	char			 c[4][24];
	int			 i;

	fprintf(f, "\n%-16s %13s %13s %13s %13s\n", "roles (w/l of n)",
	    "caller", "partner", "alone", "defender");
	for (i = 0; i < t->nbots; i++) {
		r = &t->row[i];
		snprintf(c[0], sizeof(c[0]), "%d/%d of %d", r->caller_won,
		    r->caller_lost, r->caller_deals);
		snprintf(c[1], sizeof(c[1]), "%d/%d of %d", r->partner_won,
		    r->partner_lost, r->partner_deals);
		snprintf(c[2], sizeof(c[2]), "%d/%d of %d", r->alone_won,
		    r->alone_lost, r->alone_deals);
		snprintf(c[3], sizeof(c[3]), "%d/%d of %d", r->defender_won,
		    r->defender_lost, r->defender_deals);
		fprintf(f, "%-16.16s %13s %13s %13s %13s\n", d->bots[r->bot],
		    c[0], c[1], c[2], c[3]);
	}
}

/*
 * Print the standings table t of tournament d in format fmt, with the
 * state of its SPRT sp (NULL: none) and, if ts has them (tstand_extra()),
 * the tournament's name, seed and dates and each bot's thinking time.
 */
/*
 * Does every bot that played have an interval of zero width?  Then the
 * bootstrap had nothing to vary: one duplicate set resampled whole, or
 * results all alike.
 */
static int
tstand_flat(const struct st_table *t, int team)
{
	const struct st_row	*r;
	int			 i, n = 0;

	if (team && t->tdeals == 0)
		return 0;
	for (i = 0; i < t->nbots; i++) {
		r = &t->row[i];
		if (r->played == 0)
			continue;
		if ((team ? r->telo_hi - r->telo_lo : r->elo_hi - r->elo_lo) >
		    1e-9)
			return 0;
		n++;
	}
	return n > 0;
}

/* The warning under a table whose intervals all have zero width. */
static void
tstand_flat_warn(FILE *f)
{
	fprintf(f, "warning: every interval has zero width: the resamples "
	    "never differed\n(a single duplicate set, or results all "
	    "alike): they say nothing of the error\n");
}

/*
 * The time report: each bot's thinking times of ts (tstand_extra() or
 * tstand_times()), as text, in the rank order of the table t, or in d's
 * order without one.
 */
void
tstand_times_print(FILE *f, const struct tdef *d, const struct tstand *ts,
    const struct st_table *t)
{
	const struct tstand_time *tm;
	int			 i, b;

	fprintf(f, "\n%-16s %8s %9s %9s %9s %8s\n", "thinking (ms)", "moves",
	    "mean", "p99", "max", "timeouts");
	for (i = 0; i < (t != NULL ? t->nbots : d->nbots); i++) {
		b = t != NULL ? t->row[i].bot : i;
		tm = &ts->time[b];
		fprintf(f, "%-16.16s %8d %9.1f %9d %9d %8d\n", d->bots[b],
		    tm->moves, tm->mean, tm->p99, tm->max, tm->timeouts);
	}
}

void
tstand_print(FILE *f, const struct tdef *d, const struct tstand *ts,
    const struct st_table *t, const struct st_sprt *sp, enum tstand_fmt fmt)
{
	const struct st_row	*r;
	const struct tstand_time *tm;
	int			 i, j, first, joker = d->opt.variant == BRI_JOKER3;
	int			 chiamata = d->opt.variant == BRI_CHIAMATA5;

	if (fmt == TSTAND_CSV) {
		fprintf(f, "rank,bot,elo,elo_lo,elo_hi,score,played,won,drawn,"
		    "lost,deals,deals_won,deals_lost,deals_void,joker_deals,"
		    "joker_won,joker_lost,ally_deals,ally_won,ally_lost,"
		    "joker_rate,mpoints_per_deal,faults,sprt_llr,sprt_lower,"
		    "sprt_upper,sprt_units,sprt_state,moves,think_mean_ms,"
		    "think_p99_ms,think_max_ms,timeouts,tournament,id,seed,"
		    "started,ended,team_elo,team_elo_lo,team_elo_hi,"
		    "joker_role_elo\n");
		for (i = 0; i < t->nbots; i++) {
			r = &t->row[i];
			fprintf(f, "%d,%s,%.1f,%.1f,%.1f,%.4f,%d,%d,%d,%d,%d,%d,"
			    "%d,%d,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%d", i + 1,
			    d->bots[r->bot], r->elo, r->elo_lo, r->elo_hi,
			    r->score, r->played, r->won, r->drawn, r->lost,
			    r->deals, r->deals_won, r->deals_lost,
			    r->deals_void, r->joker_deals, r->joker_won,
			    r->joker_lost, r->ally_deals, r->ally_won,
			    r->ally_lost, r->joker_rate, r->mpoints_per_deal,
			    r->faults);
			if (sp != NULL)
				fprintf(f, ",%.4f,%.4f,%.4f,%d,%s", sp->llr,
				    sp->lower, sp->upper, sp->units,
				    tstand_sprt_state(sp));
			else
				fprintf(f, ",,,,,");
			if (ts != NULL && ts->have_extra) {
				tm = &ts->time[r->bot];
				/* the name is checked: no comma, no quote */
				fprintf(f, ",%d,%.1f,%d,%d,%d,%s,%lld,%s,%s,%s",
				    tm->moves, tm->mean, tm->p99, tm->max,
				    tm->timeouts, d->name,
				    (long long)ts->meta.id, ts->meta.seed,
				    ts->meta.started, ts->meta.ended);
			} else
				fprintf(f, ",,,,,,%s,,,,", d->name);
			if (t->tdeals > 0)
				fprintf(f, ",%.1f,%.1f,%.1f,", r->telo,
				    r->telo_lo, r->telo_hi);
			else
				fprintf(f, ",,,,");
			if (t->tdeals > 0 && joker)
				fprintf(f, "%.1f\n", t->joker);
			else
				fputc('\n', f);
		}
		return;
	}
	if (fmt == TSTAND_JSON) {
		fprintf(f, "{\"tournament\": ");
		tstand_json_str(f, d->name);
		if (tstand_flat(t, 0) || tstand_flat(t, 1))
			fprintf(f, ", \"warning\": \"every interval %shas zero "
			    "width\"", tstand_flat(t, 0) ? "" :
			    "of the role-aware rating ");
		fprintf(f, ", \"variant\": \"%s\", \"resamples\": %d, "
		    "\"standings\": [", bri_variant_name(d->opt.variant),
		    t->resamples);
		for (i = 0; i < t->nbots; i++) {
			r = &t->row[i];
			fprintf(f, "%s\n  {\"rank\": %d, \"bot\": ", i ? "," : "",
			    i + 1);
			tstand_json_str(f, d->bots[r->bot]);
			fprintf(f, ", \"elo\": %.1f, \"elo_lo\": %.1f, "
			    "\"elo_hi\": %.1f, \"score\": %.4f, \"played\": %d, "
			    "\"won\": %d, \"drawn\": %d, \"lost\": %d, "
			    "\"deals\": %d, \"deals_won\": %d, \"deals_lost\": "
			    "%d, \"deals_void\": %d, \"joker_deals\": %d, "
			    "\"joker_won\": %d, \"joker_lost\": %d, "
			    "\"ally_deals\": %d, \"ally_won\": %d, "
			    "\"ally_lost\": %d, \"joker_rate\": %.4f, "
			    "\"mpoints_per_deal\": %.4f, \"faults\": %d",
			    r->elo, r->elo_lo, r->elo_hi, r->score, r->played,
			    r->won, r->drawn, r->lost, r->deals, r->deals_won,
			    r->deals_lost, r->deals_void, r->joker_deals,
			    r->joker_won, r->joker_lost, r->ally_deals,
			    r->ally_won, r->ally_lost, r->joker_rate,
			    r->mpoints_per_deal, r->faults);
			if (chiamata)
				fprintf(f, ", \"caller_deals\": %d, "
				    "\"caller_won\": %d, \"caller_lost\": %d, "
				    "\"partner_deals\": %d, \"partner_won\": %d, "
				    "\"partner_lost\": %d, \"alone_deals\": %d, "
				    "\"alone_won\": %d, \"alone_lost\": %d, "
				    "\"defender_deals\": %d, \"defender_won\": "
				    "%d, \"defender_lost\": %d", r->caller_deals,
				    r->caller_won, r->caller_lost,
				    r->partner_deals, r->partner_won,
				    r->partner_lost, r->alone_deals,
				    r->alone_won, r->alone_lost,
				    r->defender_deals, r->defender_won,
				    r->defender_lost);
			if (t->tdeals > 0)
				fprintf(f, ", \"team_elo\": %.1f, "
				    "\"team_elo_lo\": %.1f, \"team_elo_hi\": "
				    "%.1f", r->telo, r->telo_lo, r->telo_hi);
			fputc('}', f);
		}
		fprintf(f, "\n], \"role_aware\": {\"deals\": %d, "
		    "\"resamples\": %d", t->tdeals, t->tresamples);
		if (joker)
			fprintf(f, ", \"joker_role_elo\": %.1f, "
			    "\"joker_role_lo\": %.1f, \"joker_role_hi\": %.1f",
			    t->joker, t->joker_lo, t->joker_hi);
		fprintf(f, "}, \"head_to_head\": [");
		for (i = 0, first = 1; i < t->nbots; i++)
			for (j = 0; j < t->nbots; j++) {
				if (i == j)
					continue;
				fprintf(f, "%s\n  {\"bot\": ", first ? "" : ",");
				first = 0;
				tstand_json_str(f, d->bots[i]);
				fprintf(f, ", \"against\": ");
				tstand_json_str(f, d->bots[j]);
				fprintf(f, ", \"wins\": %d, \"draws\": %d, "
				    "\"losses\": %d}", t->h2h[i][j].wins,
				    t->h2h[i][j].draws, t->h2h[i][j].losses);
			}
		fprintf(f, "\n]");
		if (ts != NULL && ts->have_extra) {
			fprintf(f, ", \"id\": %lld, \"seed\": \"%s\", "
			    "\"started\": \"%s\", \"ended\": ",
			    (long long)ts->meta.id, ts->meta.seed,
			    ts->meta.started);
			if (ts->meta.ended[0] != '\0')
				fprintf(f, "\"%s\"", ts->meta.ended);
			else
				fprintf(f, "null");
			fprintf(f, ", \"state\": ");
			tstand_json_str(f, ts->meta.state);
			fprintf(f, ", \"times\": [");
			for (i = 0; i < d->nbots; i++) {
				tm = &ts->time[i];
				fprintf(f, "%s\n  {\"bot\": ", i ? "," : "");
				tstand_json_str(f, d->bots[i]);
				fprintf(f, ", \"moves\": %d, \"mean_ms\": %.1f, "
				    "\"p99_ms\": %d, \"max_ms\": %d, "
				    "\"timeouts\": %d}", tm->moves, tm->mean,
				    tm->p99, tm->max, tm->timeouts);
			}
			fprintf(f, "\n]");
		}
		if (sp != NULL)
			fprintf(f, ", \"sprt\": {\"elo0\": %g, \"elo1\": %g, "
			    "\"alpha\": %g, \"beta\": %g, \"llr\": %.4f, "
			    "\"lower\": %.4f, \"upper\": %.4f, \"units\": %d, "
			    "\"wins\": %d, \"draws\": %d, \"losses\": %d, "
			    "\"state\": \"%s\"}", sp->elo0, sp->elo1, sp->alpha,
			    sp->beta, sp->llr, sp->lower, sp->upper, sp->units,
			    sp->wins, sp->draws, sp->losses,
			    tstand_sprt_state(sp));
		fprintf(f, "}\n");
		return;
	}
	/* text: three tables, each within 80 columns */
	fprintf(f, "%-4s %-16s %6s %17s %5s %5s %4s %4s %4s\n", "rank", "bot",
	    "elo", "95% interval", "score", "games", "won", "drew", "lost");
	for (i = 0; i < t->nbots; i++) {
		r = &t->row[i];
		fprintf(f, "%-4d %-16.16s %6.1f [%7.1f,%7.1f] %5.3f %5d %4d %4d "
		    "%4d\n", i + 1, d->bots[r->bot], r->elo, r->elo_lo,
		    r->elo_hi, r->score, r->played, r->won, r->drawn, r->lost);
	}
	if (tstand_flat(t, 0))
		tstand_flat_warn(f);
	fprintf(f, "\n%-16s %6s %11s %6s", "bot", "deals", "w/l/v", "mp/dl");
	if (joker)
		fprintf(f, " %7s %9s %9s", "joker%", "as joker", "as ally");
	fprintf(f, " %6s\n", "faults");
	for (i = 0; i < t->nbots; i++) {
		char wlv[40], aj[24], aa[24];

		r = &t->row[i];
		snprintf(wlv, sizeof(wlv), "%d/%d/%d", r->deals_won,
		    r->deals_lost, r->deals_void);
		fprintf(f, "%-16.16s %6d %11s %6.3f", d->bots[r->bot], r->deals,
		    wlv, r->mpoints_per_deal);
		if (joker) {
			snprintf(aj, sizeof(aj), "%d/%d", r->joker_won,
			    r->joker_lost);
			snprintf(aa, sizeof(aa), "%d/%d", r->ally_won,
			    r->ally_lost);
			fprintf(f, " %6.1f%% %9s %9s", 100 * r->joker_rate, aj,
			    aa);
		}
		fprintf(f, " %6d\n", r->faults);
	}
	if (chiamata)
		tstand_roles(f, d, t);
	if (ts != NULL && ts->have_extra)
		tstand_times_print(f, d, ts, t);
	if (t->tdeals > 0) {
		fprintf(f, "\nrole-aware rating: %d deals, side against side\n",
		    t->tdeals);
		if (joker)
			fprintf(f, "the Joker role: %+.1f [%.1f, %.1f]\n",
			    t->joker, t->joker_lo, t->joker_hi);
		fprintf(f, "%-16s %6s %17s\n", "bot", "elo", "95% interval");
		for (i = 0; i < t->nbots; i++) {
			r = &t->row[i];
			fprintf(f, "%-16.16s %6.1f [%7.1f,%7.1f]\n",
			    d->bots[r->bot], r->telo, r->telo_lo, r->telo_hi);
		}
		if (tstand_flat(t, 1))
			tstand_flat_warn(f);
	}
	tstand_cross(f, d, t);
	if (sp != NULL)
		tstand_sprt_print(f, d, sp);
}

/*
 * Is the seed of tournament tid's matches still secret, the tournament
 * not over for good (tdef_over())?  A match of no tournament (tid < 1)
 * has no secret seed; a tournament the log lacks or cannot show has.
 */
int
tstand_seed_secret(sqlite3 *h, int64_t tid)
{
	sqlite3_stmt	*st;
	int		 secret = 1;

	if (tid < 1)
		return 0;
	if (sqlite3_prepare_v2(h, "SELECT state FROM tournaments WHERE id = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_int64(st, 1, tid);
	if (sqlite3_step(st) == SQLITE_ROW)
		secret = !tdef_over((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return secret;
}

/*
 * Print every match of tournament tid: slot, id, seats, result, points,
 * and its seed once the tournament is over ("-" before).
 */
int
tstand_results(FILE *f, sqlite3 *h, int64_t tid, enum tstand_fmt fmt,
    char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	int		 first = 1, secret = tstand_seed_secret(h, tid);

	if (sqlite3_prepare_v2(h, "SELECT m.slot, m.id, m.variant, m.state, "
	    "coalesce(m.result, ''), coalesce(m.mpoints, ''), m.seed, "
	    "(SELECT group_concat(bot, ' ') FROM (SELECT bot FROM seats s "
	    "WHERE s.match_id = m.id ORDER BY seat)) FROM matches m WHERE "
	    "m.tournament = ? ORDER BY m.slot, m.id", -1, &st, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "log: %s", sqlite3_errmsg(h));
		return -1;
	}
	sqlite3_bind_int64(st, 1, tid);
	if (fmt == TSTAND_CSV)
		fprintf(f, "slot,match,variant,state,result,mpoints,seed,"
		    "bots\n");
	else if (fmt == TSTAND_TEXT)
		fprintf(f, "%-5s %-6s %-10s %-7s %-8s %-9s %s\n", "slot",
		    "match", "variant", "state", "result", "mpoints", "bots");
	else if (fmt == TSTAND_JSON)
		fprintf(f, "[");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c[8];
		int i;
		for (i = 0; i < 8; i++) {
			c[i] = (const char *)sqlite3_column_text(st, i);
			if (c[i] == NULL)
				c[i] = "";
		}
		if (secret)
			c[6] = "-";
		if (fmt == TSTAND_JSON) {
			fprintf(f, "%s\n  {\"slot\": %s, \"match\": %s, "
			    "\"variant\": ", first ? "" : ",", c[0][0] ? c[0] :
			    "null", c[1]);
			tstand_json_str(f, c[2]);
			fprintf(f, ", \"state\": ");
			tstand_json_str(f, c[3]);
			fprintf(f, ", \"result\": ");
			tstand_json_str(f, c[4]);
			fprintf(f, ", \"mpoints\": ");
			tstand_json_str(f, c[5]);
			fprintf(f, ", \"seed\": ");
			tstand_json_str(f, c[6]);
			fprintf(f, ", \"bots\": ");
			tstand_json_str(f, c[7]);
			fprintf(f, "}");
		} else if (fmt == TSTAND_CSV)
			fprintf(f, "%s,%s,%s,%s,%s,\"%s\",%s,%s\n", c[0], c[1],
			    c[2], c[3], c[4], c[5], c[6], c[7]);
		else
			/* within 80 columns: the seeds are in CSV and JSON */
			fprintf(f, "%-5s %-6s %-10s %-7s %-8s %-9s %s\n", c[0],
			    c[1], c[2], c[3], c[4], c[5], c[7]);
		first = 0;
	}
	if (fmt == TSTAND_JSON)
		fprintf(f, "\n]\n");
	sqlite3_finalize(st);
	return 0;
}

/*
 * A finished match as one line of text, so that its result travels
 * from wherever it was played (a cluster's worker, refd-cluster(7)) to
 * the standings, which read it back with tstand_add_record():
 *
 *	r1 RESULT MPOINTS BOTS FAULTS NDEALS DEAL...
 *
 * RESULT is wN (seat or team N won), fN (seat N forfeited) or draw;
 * MPOINTS, BOTS (participant of each seat) and FAULTS are lists of one
 * number per seat, "3,1"; each DEAL is
 * RESULT:WINNER:JOKER:CALLER:PARTNER:GAINS, the deal result's number
 * (enum bri_deal_result), -1 where none, and the match points each seat
 * gained.
 */

/* Append "a,b,c" of n numbers at *p, within end; -1 if cut. */
static int
tstand_put_list(char **p, char *end, const int *v, int n)
{
	int	 i, k;

	for (i = 0; i < n; i++) {
		k = snprintf(*p, end - *p, "%s%d", i ? "," : "", v[i]);
		if (k < 0 || k >= end - *p)
			return -1;
		*p += k;
	}
	return 0;
}

/* Append with printf, within end; -1 if cut. */
static int
tstand_put(char **p, char *end, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int
tstand_put(char **p, char *end, const char *fmt, ...)
{
	va_list	 ap;
	int	 k;

	va_start(ap, fmt);
	k = vsnprintf(*p, end - *p, fmt, ap);
	va_end(ap);
	if (k < 0 || k >= end - *p)
		return -1;
	*p += k;
	return 0;
}

/* Match i of t as a record into buf (len bytes); 0, or -1 if cut. */
int
tstand_record(const struct tstand *t, int i, char *buf, size_t len)
{
	const struct st_match	*m = &t->m[i];
	const struct st_deal	*dl;
	char			*p = buf, *end = buf + len;
	int			 k;

	if (len == 0)
		return -1;
	if (m->winner >= 0)
		k = tstand_put(&p, end, "r1 w%d ", m->winner);
	else if (m->forfeit >= 0)
		k = tstand_put(&p, end, "r1 f%d ", m->forfeit);
	else
		k = tstand_put(&p, end, "r1 draw ");
	if (k == -1 || tstand_put_list(&p, end, m->mpoints, m->nseats) ||
	    tstand_put(&p, end, " ") ||
	    tstand_put_list(&p, end, m->bot, m->nseats) ||
	    tstand_put(&p, end, " ") ||
	    tstand_put_list(&p, end, m->faults, m->nseats) ||
	    tstand_put(&p, end, " %d", m->ndeals))
		return -1;
	for (k = 0; k < m->ndeals; k++) {
		dl = &m->deals[k];
		if (tstand_put(&p, end, " %d:%d:%d:%d:%d:", dl->result,
		    dl->winner, dl->joker, dl->caller, dl->partner) ||
		    tstand_put_list(&p, end, dl->mpoints, m->nseats))
			return -1;
	}
	return 0;
}

/* A number of rec at *p in [lo, hi], then sep (or the end if 0). */
static int
tstand_get(const char **p, int lo, int hi, int sep, int *v)
{
	char	*e;
	long	 l;

	if (**p != '-' && (**p < '0' || **p > '9'))
		return -1;
	l = strtol(*p, &e, 10);
	if (e == *p || l < lo || l > hi || *e != sep)
		return -1;
	*v = (int)l;
	*p = sep ? e + 1 : e;
	return 0;
}

/* n numbers "a,b,c" of rec at *p in [lo, hi], then sep. */
static int
tstand_get_list(const char **p, int n, int lo, int hi, int sep, int *v)
{
	int	 i;

	for (i = 0; i < n; i++)
		if (tstand_get(p, lo, hi, i == n - 1 ? sep : ',', &v[i]) == -1)
			return -1;
	return 0;
}

/*
 * Add the record rec (tstand_record()) to t as the match of slot, with
 * id, a match of d; records come in schedule order.  A record is
 * hostile: anything malformed or out of range is refused, with the
 * reason in err.  Returns 0 or -1; t stays usable either way.
 */
int
tstand_add_record(struct tstand *t, const struct tdef *d, int slot,
    int64_t id, const char *rec, char *err, size_t errlen)
{
	const int		 seats = bri_variant_seats(d->opt.variant);
	const int		 P = 1000000;
	const struct st_deal	*old = t->deals;
	struct st_match		 m;
	struct st_deal		*dl;
	const char		*p = rec;
	int			 k, i, nd, v, c;

	memset(&m, 0, sizeof(m));
	m.variant = d->opt.variant;
	m.nseats = seats;
	m.winner = m.forfeit = -1;
	if (rec == NULL || strlen(rec) > TSTAND_RECMAX ||
	    strncmp(p, "r1 ", 3) != 0)
		goto bad;
	p += 3;
	if (strncmp(p, "draw ", 5) == 0)
		p += 5;
	else if (*p == 'w' || *p == 'f') {
		c = *p++;
		if (tstand_get(&p, 0, seats - 1, ' ', &v) == -1)
			goto bad;
		if (c == 'w')
			m.winner = v;
		else
			m.forfeit = v;
	} else
		goto bad;
	if (tstand_get_list(&p, seats, -P, P, ' ', m.mpoints) ||
	    tstand_get_list(&p, seats, 0, d->nbots - 1, ' ', m.bot) ||
	    tstand_get_list(&p, seats, 0, P, ' ', m.faults) ||
	    tstand_get(&p, 0, 100000, *p != '\0' && strchr(p, ' ') ? ' ' : 0,
	    &nd) == -1)
		goto bad;
	if (t->n == t->capm) {
		k = t->capm ? 2 * t->capm : 64;
		if ((t->m = reallocarray(t->m, k, sizeof(*t->m))) == NULL ||
		    (t->id = reallocarray(t->id, k, sizeof(int64_t))) ==
		    NULL || (t->slot = reallocarray(t->slot, k,
		    sizeof(int))) == NULL)
			goto oom;
		t->capm = k;
	}
	for (k = 0; k < nd; k++) {
		if (t->nd == t->capd) {
			i = t->capd ? 2 * t->capd : 1024;
			if ((t->deals = reallocarray(t->deals, i,
			    sizeof(*t->deals))) == NULL)
				goto oom;
			t->capd = i;
		}
		dl = &t->deals[t->nd + k];
		memset(dl, 0, sizeof(*dl));
		if (tstand_get(&p, 0, 7, ':', &dl->result) ||
		    tstand_get(&p, -1, seats - 1, ':', &dl->winner) ||
		    tstand_get(&p, -1, seats - 1, ':', &dl->joker) ||
		    tstand_get(&p, -1, seats - 1, ':', &dl->caller) ||
		    tstand_get(&p, -1, seats - 1, ':', &dl->partner) ||
		    tstand_get_list(&p, seats, -P, P, k == nd - 1 ? 0 : ' ',
		    dl->mpoints))
			goto bad;
	}
	if (*p != '\0')
		goto bad;
	m.ndeals = nd;
	t->m[t->n] = m;
	t->id[t->n] = id;
	t->slot[t->n] = slot;
	t->n++;
	t->nd += nd;
	/* the deals may have moved: point each match at its own */
	if (t->deals != old || nd > 0)
		for (i = 0, k = 0; i < t->n; i++) {
			t->m[i].deals = t->deals + k;
			k += t->m[i].ndeals;
		}
	return 0;
bad:
	snprintf(err, errlen, "slot %d: a malformed record", slot);
	return -1;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/*
 * A finished match's thinking times as one line of text, so that they
 * travel with its record (tstand_record()) from a cluster's worker to
 * the time report, which sums them exactly (tstand_add_times(),
 * tstand_times()):
 *
 *	t1 SEAT...
 *
 * one SEAT a seat, TIMEOUTS/MS*N,MS*N...: its time-out faults, then
 * each time in milliseconds the cards it chose itself took, in
 * ascending order, with how many took it (nothing after the slash for
 * a seat that chose none).  The whole distribution, not a summary, so
 * that the 99th percentile over every move of a tournament is the same
 * as one log gives.
 */
#define TSTAND_MSMAX	86400000	/* a move's time, at most */
#define TSTAND_NMAX	1000000		/* moves of one time, time-outs */

/* Match mid of the log h (nseats seats) as times into buf. */
int
tstand_times_record(sqlite3 *h, int64_t mid, int nseats, char *buf,
    size_t len, char *err, size_t errlen)
{
	sqlite3_stmt	*sp = NULL, *sf = NULL;
	char		*p = buf, *end = buf + len;
	int		 to[BRI_MAXSEATS], seat, i, row, rc = -1;

	memset(to, 0, sizeof(to));
	if (sqlite3_prepare_v2(h, "SELECT seat, ms, count(*) FROM plays WHERE "
	    "match_id = ? AND fault = 0 GROUP BY seat, ms ORDER BY seat, ms",
	    -1, &sp, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT seat, count(*) FROM faults WHERE "
	    "match_id = ? AND kind = 'timeout' GROUP BY seat", -1, &sf,
	    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "log: %s", sqlite3_errmsg(h));
		goto out;
	}
	sqlite3_bind_int64(sf, 1, mid);
	while (sqlite3_step(sf) == SQLITE_ROW)
		if ((i = sqlite3_column_int(sf, 0)) >= 0 && i < nseats)
			to[i] = sqlite3_column_int(sf, 1);
	sqlite3_bind_int64(sp, 1, mid);
	row = sqlite3_step(sp) == SQLITE_ROW;
	if (tstand_put(&p, end, "t1") == -1)
		goto cut;
	for (seat = 0; seat < nseats; seat++) {
		if (tstand_put(&p, end, " %d/", to[seat]) == -1)
			goto cut;
		for (i = 0; row && sqlite3_column_int(sp, 0) == seat; i++) {
			if (tstand_put(&p, end, "%s%d*%d", i ? "," : "",
			    sqlite3_column_int(sp, 1),
			    sqlite3_column_int(sp, 2)) == -1)
				goto cut;
			row = sqlite3_step(sp) == SQLITE_ROW;
		}
	}
	if (row) {
		snprintf(err, errlen, "match %lld: a play of seat %d, not one "
		    "of its %d", (long long)mid, sqlite3_column_int(sp, 0),
		    nseats);
		goto out;
	}
	rc = 0;
	goto out;
cut:
	snprintf(err, errlen, "match %lld: thinking times too long",
	    (long long)mid);
out:
	sqlite3_finalize(sp);
	sqlite3_finalize(sf);
	return rc;
}

/* A number of rec at *p in [lo, hi], digits only, nothing after read. */
static int
tstand_num(const char **p, int lo, int hi, int *v)
{
	char	*e;
	long	 l;

	if (**p < '0' || **p > '9')
		return -1;
	l = strtol(*p, &e, 10);
	if (l < lo || l > hi)
		return -1;
	*v = (int)l;
	*p = e;
	return 0;
}

/* Room for one more figure in t->tv; -1 when memory runs out. */
static int
tstand_tv_add(struct tstand *t, int slot, int bot, int ms, int n)
{
	struct tstand_tv	*v;
	int			 cap;

	if (t->ntv == t->captv) {
		cap = t->captv ? 2 * t->captv : 256;
		if ((v = reallocarray(t->tv, cap, sizeof(*v))) == NULL)
			return -1;
		t->tv = v;
		t->captv = cap;
	}
	v = &t->tv[t->ntv++];
	v->slot = slot;
	v->bot = bot;
	v->ms = ms;
	v->n = n;
	return 0;
}

/*
 * Add the thinking times rec (tstand_times_record()) of match k of t,
 * whose seats say whose they are.  Hostile: anything malformed, out of
 * range or out of order is refused, with the reason in err, and t keeps
 * nothing of it.  Returns 0 or -1.
 */
int
tstand_add_times(struct tstand *t, int k, const char *rec, char *err,
    size_t errlen)
{
	const struct st_match	*m = &t->m[k];
	const char		*p = rec;
	int			 base = t->ntv, seat, to, ms, n, prev;

	if (rec == NULL || strlen(rec) > TSTAND_TIMESMAX ||
	    strncmp(p, "t1", 2) != 0)
		goto bad;
	p += 2;
	for (seat = 0; seat < m->nseats; seat++) {
		if (*p++ != ' ' || tstand_num(&p, 0, TSTAND_NMAX, &to) == -1 ||
		    *p++ != '/')
			goto bad;
		if (to > 0 && tstand_tv_add(t, t->slot[k], m->bot[seat], -1,
		    to) == -1)
			goto oom;
		for (prev = -1; *p != ' ' && *p != '\0'; prev = ms) {
			if ((prev >= 0 && *p++ != ',') ||
			    tstand_num(&p, 0, TSTAND_MSMAX, &ms) == -1 ||
			    ms <= prev || *p++ != '*' ||
			    tstand_num(&p, 1, TSTAND_NMAX, &n) == -1)
				goto bad;
			if (tstand_tv_add(t, t->slot[k], m->bot[seat], ms,
			    n) == -1)
				goto oom;
		}
	}
	if (*p != '\0')
		goto bad;
	t->timed++;
	return 0;
bad:
	t->ntv = base;
	snprintf(err, errlen, "slot %d: malformed thinking times", t->slot[k]);
	return -1;
oom:
	t->ntv = base;
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int
tstand_tv_cmp(const void *a, const void *b)
{
	const struct tstand_tv	*x = a, *y = b;

	return (x->ms > y->ms) - (x->ms < y->ms);
}

/*
 * Each of nbots bots' thinking time (struct tstand_time) summed from
 * the figures tstand_add_times() took, of the slots the standings count
 * (below t->upto, if set), into t->time: what tstand_extra() reads from
 * one log, the same figures from the same moves.  Returns 0, or -1 when
 * memory runs out or the counts overflow.
 */
int
tstand_times(struct tstand *t, int nbots)
{
	struct tstand_time	*tm;
	struct tstand_tv	*v;
	long long		 moves, sum, rank, c, x;
	int			 b, i, nv, rc = -1;

	if ((v = calloc(t->ntv + 1, sizeof(*v))) == NULL)
		return -1;
	memset(t->time, 0, sizeof(t->time));
	for (b = 0; b < nbots && b < TDEF_MAXBOTS; b++) {
		tm = &t->time[b];
		moves = sum = 0;
		for (i = nv = 0; i < t->ntv; i++) {
			if (t->tv[i].bot != b || (t->upto > 0 &&
			    t->tv[i].slot >= t->upto))
				continue;
			if (t->tv[i].ms < 0) {
				if (__builtin_add_overflow(tm->timeouts,
				    t->tv[i].n, &tm->timeouts))
					goto out;
				continue;
			}
			v[nv++] = t->tv[i];
			if (__builtin_mul_overflow((long long)t->tv[i].ms,
			    t->tv[i].n, &x) ||
			    __builtin_add_overflow(sum, x, &sum))
				goto out;
			moves += t->tv[i].n;
		}
		if (moves == 0)
			continue;
		if (moves > INT_MAX)
			goto out;
		qsort(v, nv, sizeof(*v), tstand_tv_cmp);
		tm->moves = (int)moves;
		/* as SQLite's avg() of the integers */
		tm->mean = (double)sum / (double)moves;
		tm->max = v[nv - 1].ms;
		/* nearest rank: the ceil(0.99 n)-th smallest */
		rank = (99 * moves + 99) / 100;
		for (i = 0, c = 0; i < nv; i++)
			if ((c += v[i].n) >= rank) {
				tm->p99 = v[i].ms;
				break;
			}
	}
	rc = 0;
out:
	free(v);
	return rc;
}

/*
 * Which seat's thinking times differ between a (reported) and b (the
 * log's), two records of a match of nseats seats, with their figures
 * in why: the seat, or -1 if they do not differ.
 */
int
tstand_times_diff(const char *a, const char *b, int nseats, char *why,
    size_t len)
{
	struct st_match		 m;
	struct tstand		 t[2];
	const struct tstand_time *x, *y;
	const char		*ga = a, *gb = b;
	char			 err[128];
	int			 slot = 0, i, ok[2], seat = -1;

	if (strcmp(a, b) == 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.nseats = nseats;
	for (i = 0; i < nseats; i++)
		m.bot[i] = i;
	for (i = 0; i < 2; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].m = &m;
		t[i].slot = &slot;
		t[i].n = 1;
		ok[i] = tstand_add_times(&t[i], 0, i ? b : a, err,
		    sizeof(err)) == 0 && tstand_times(&t[i], nseats) == 0;
	}
	if (!ok[0] || !ok[1]) {
		snprintf(why, len, "the thinking times %s are malformed",
		    ok[0] ? "of the log" : "reported");
		seat = 0;
		goto out;
	}
	/* the first seat whose part of the text differs */
	for (seat = 0; seat < nseats; seat++) {
		ga = strchr(ga, ' ');
		gb = strchr(gb, ' ');
		if (ga == NULL || gb == NULL)
			break;
		ga++;
		gb++;
		if (strcspn(ga, " ") != strcspn(gb, " ") ||
		    strncmp(ga, gb, strcspn(ga, " ")) != 0)
			break;
	}
	if (seat == nseats)
		seat = nseats - 1;
	x = &t[0].time[seat];
	y = &t[1].time[seat];
	snprintf(why, len, "seat %d's thinking times reported (%d moves, "
	    "mean %.1f, p99 %d, max %d, %d timeouts) are not the log's (%d "
	    "moves, mean %.1f, p99 %d, max %d, %d timeouts)", seat, x->moves,
	    x->mean, x->p99, x->max, x->timeouts, y->moves, y->mean, y->p99,
	    y->max, y->timeouts);
out:
	free(t[0].tv);
	free(t[1].tv);
	return seat;
}

/*
 * The standings of d over the finished matches ts, printed in fmt: the
 * table (st_compute()), the role-aware rating by units of the schedule,
 * and a gauntlet's SPRT in schedule order; what `refctl tournament
 * standings` prints from a log and `refctl cluster standings` from a
 * cluster's rows.  Returns 0, or -1 when memory runs out.
 */
int
tstand_report(FILE *f, const struct tdef *d, struct tstand *ts,
    enum tstand_fmt fmt)
{
	struct st_table	*tab;
	struct st_sprt	 sp;
	struct tslot	*slots = NULL;
	char		 err[256];
	int		 nslots = 0, *unit;

	if ((tab = malloc(sizeof(*tab))) == NULL)
		return -1;
	/* the schedule's shape: its seeds play no part here */
	if (tdef_schedule(d, &slots, &nslots, err, sizeof(err)) == 0)
		/* after the SPRT's verdict, only what it read counts */
		tstand_sprt_prefix(d, slots, nslots, ts, &sp);
	/* a cluster's times, of the matches counted (tstand_add_times()) */
	if (ts->timed > 0 && tstand_times(ts, d->nbots) == -1) {
		free(slots);
		free(tab);
		return -1;
	}
	st_compute(ts->m, ts->n, d->nbots, 1, tab);
	if (slots != NULL) {
		if ((unit = tstand_units(d, slots, nslots, ts)) != NULL)
			st_teams(ts->m, ts->n, unit, d->nbots, 1, tab);
		free(unit);
	}
	tstand_print(f, d, ts, tab, slots != NULL && d->sprt ? &sp : NULL,
	    fmt);
	free(slots);
	free(tab);
	return 0;
}

/*
 * The definition of tournament tid as the log h has it, parsed into d,
 * with its logged seed.  Returns 0, or -1 with the reason in err; d is
 * the caller's to tdef_free() after a 0.
 */
int
tstand_def(struct sqlite3 *h, int64_t tid, struct tdef *d, char *err,
    size_t errlen)
{
	sqlite3_stmt	*st;
	char		 why[512], name[64];
	const char	*text, *seed;
	int		 rc = -1;

	if (sqlite3_prepare_v2(h, "SELECT definition, seed FROM tournaments "
	    "WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
		return -1;
	}
	sqlite3_bind_int64(st, 1, tid);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "no tournament %lld in the log",
		    (long long)tid);
		goto out;
	}
	text = (const char *)sqlite3_column_text(st, 0);
	seed = (const char *)sqlite3_column_text(st, 1);
	snprintf(name, sizeof(name), "tournament %lld", (long long)tid);
	if (text == NULL || tdef_parse(text, name, d, why, sizeof(why)) ==
	    -1) {
		snprintf(err, errlen, "%s", text ? why : "no definition");
		goto out;
	}
	if (seed != NULL)
		bri_seed_parse(seed, &d->seed);
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/*
 * Tournament tid's standings from the log h in fmt, through
 * tstand_report() as refctl tournament standings prints them (the
 * web site's).  Returns 0, or -1 with the reason in err.
 */
int
tstand_log_report(FILE *f, struct sqlite3 *h, int64_t tid,
    enum tstand_fmt fmt, char *err, size_t errlen)
{
	struct tdef	 d;
	struct tstand	 ts;
	char		 why[512];
	int		 rc = -1;

	if (tstand_def(h, tid, &d, err, errlen) == -1)
		return -1;
	if (tstand_load(h, tid, &d, 0, &ts, err, errlen) == -1)
		goto out;
	if (tstand_extra(h, tid, &d, &ts, why, sizeof(why)) == -1)
		snprintf(err, errlen, "%s", why);
	if (tstand_report(f, &d, &ts, fmt) == 0)
		rc = 0;
	else
		snprintf(err, errlen, "out of memory");
	tstand_free(&ts);
out:
	tdef_free(&d);
	return rc;
}

/*
 * Tournament tid's SPRT as it went, for a graph: {"lower", "upper",
 * "llr": the LLR after each observation, in schedule order, as
 * tstand_sprt_more() takes them}, or null without an SPRT.  Returns 0,
 * or -1 with the reason in err.
 */
int
tstand_sprt_path(FILE *f, struct sqlite3 *h, int64_t tid, char *err,
    size_t errlen)
{
	struct tdef	 d;
	struct tstand	 ts;
	struct st_sprt	 s;
	struct tslot	*slots = NULL;
	int		 nslots = 0, pos = 0, end, k = 0, j, n = 0;

	if (tstand_def(h, tid, &d, err, errlen) == -1)
		return -1;
	if (!d.sprt || tdef_schedule(&d, &slots, &nslots, err, errlen) == -1 ||
	    tstand_load(h, tid, &d, 0, &ts, err, errlen) == -1) {
		fprintf(f, "null");
		free(slots);
		tdef_free(&d);
		return 0;
	}
	tstand_sprt_begin(&d, &s);
	fprintf(f, "{\"lower\": %.4f, \"upper\": %.4f, \"llr\": [", s.lower,
	    s.upper);
	while (pos < nslots && s.decided == 0) {
		for (end = pos + 1; d.duplicate && end < nslots &&
		    slots[end].block == slots[pos].block; end++)
			;
		while (k < ts.n && ts.slot[k] < pos)
			k++;
		for (j = pos; j < end; j++)
			if (k + j - pos >= ts.n || ts.slot[k + j - pos] != j)
				break;
		if (j < end)
			break;
		st_sprt_add(&s, ts.m + k, end - pos, 0, 1);
		fprintf(f, "%s%.4f", n++ ? ", " : "", st_sprt_llr(&s));
		k += end - pos;
		pos = end;
	}
	fprintf(f, "], \"state\": \"%s\"}", tstand_sprt_state(&s));
	free(slots);
	tstand_free(&ts);
	tdef_free(&d);
	return 0;
}
