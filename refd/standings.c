/*
 * standings.c: tournament standings from match records alone: match and
 * deal counts by role, a Bradley-Terry rating on the Elo scale with a
 * cluster-bootstrap 95% interval, head-to-head tables and the sequential
 * probability ratio test of a candidate against a baseline.
 *
 * Pure computation: no I/O, no globals, no printing.  The bootstrap draws
 * from a small generator seeded by the caller, every sum is taken in a
 * fixed order and every sort has a total order, so the same records in
 * the same order give the same numbers to the last bit.  What each
 * number means, and why, is in refd-standings(7).
 */
#include "config.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "briscola.h"
#include "standings.h"

#define ST_NBOOT	200	/* bootstrap resamples */
#define ST_MAXITER	5000	/* accelerated MM cycles at most, per fit */
#define ST_TOL		1e-10	/* converged: no ln(strength) moved more */
#define ST_PRIOR	1.0	/* virtual draws of each bot with the anchor */
#define ST_MAXLOG	300.0	/* extrapolate no further: exp() stays finite */

/* What one st_compute() needs besides the table: too big for a stack. */
struct st_work {
	double		 win[ST_MAXBOTS][ST_MAXBOTS];	/* i's points vs j */
	double		 games[ST_MAXBOTS][ST_MAXBOTS];	/* games of i and j */
	double		 gamma[ST_MAXBOTS];	/* strengths of the full fit */
	double		 boot[ST_MAXBOTS][ST_NBOOT];	/* resampled ratings */
};

/* A game of two bots in a match: i against j, r > 0 if i won. */
struct st_pair {
	unsigned char	 i, j;
	signed char	 r;
};
#define ST_MAXPAIRS	(BRI_MAXSEATS * (BRI_MAXSEATS - 1) / 2)

/* The data of one fit. */
struct st_bt {
	double		(*win)[ST_MAXBOTS];	/* i's points against j */
	double		(*games)[ST_MAXBOTS];	/* games of i and j */
	double		 wins[ST_MAXBOTS];	/* i's points, prior included */
	int		 nb;			/* bots */
};

static int	 st_team(const struct st_match *, int);
static int	 st_partners(const struct st_match *, int, int);
static int	 st_level(const struct st_match *, int);
static int	 st_valid(const struct st_match *, int);
static int	 st_outcome(const struct st_match *, int);
static void	 st_count(const struct st_match *, struct st_row *, long *);
static void	 st_role(struct st_row *, const struct st_deal *, int, int);
static void	 st_head(const struct st_match *, struct st_table *);
static int	 st_pairs(const struct st_match *, struct st_pair *);
static void	 st_addpairs(const struct st_pair *, int, double,
		    double [][ST_MAXBOTS], double [][ST_MAXBOTS]);
static void	 st_mm(const struct st_bt *, const double *, double *);
static double	 st_loglik(const struct st_bt *, const double *);
static void	 st_fit(double [][ST_MAXBOTS], double [][ST_MAXBOTS], int,
		    double *, double *);
static uint64_t	 st_rand(uint64_t *);
static uint64_t	 st_uniform(uint64_t *, uint64_t);
static void	 st_sortd(double *, int);
static double	 st_quantile(const double *, int, double);
static int	 st_rowcmp(const struct st_row *, const struct st_row *);
static void	 st_sortrows(struct st_row *, int);

/* Is m played by two teams, even seats against odd (classic4, classic6)? */
static int
st_teamed(const struct st_match *m)
{
	return bri_variant_info((enum bri_variant)m->variant)->sides ==
	    BRI_SIDES_ALTERNATE;
}

/* The side a seat plays for: its team, else the seat itself. */
static int
st_team(const struct st_match *m, int seat)
{
	return st_teamed(m) ? seat % 2 : seat;
}

/* Teammates are never compared: they share every result. */
static int
st_partners(const struct st_match *m, int a, int b)
{
	return st_teamed(m) && a != b && a % 2 == b % 2;
}

/*
 * A seat's tier in its match's final ranking, so that one comparison
 * orders any two seats: 0 forfeited (in a team variant the whole team), 2 won
 * (seat or pair), 1 everyone else, who are then ordered by match points.
 */
static int
st_level(const struct st_match *m, int seat)
{
	if (m->forfeit >= 0 && st_team(m, seat) == st_team(m, m->forfeit))
		return 0;
	if (m->winner >= 0 && st_team(m, seat) == m->winner)
		return 2;
	return 1;
}

/*
 * Is m a record that can be counted: a known variant with its number of
 * seats, bot indices below nbots, winner, forfeit and deal fields in
 * range?  Checked before anything is counted, so that a bad record
 * cannot leave half a table behind.
 */
static int
st_valid(const struct st_match *m, int nbots)
{
	const struct st_deal	*d;
	int			 i, k, nwin;

	if (m->variant < 0 || m->variant >= BRI_NVARIANTS ||
	    m->nseats != bri_variant_seats((enum bri_variant)m->variant))
		return 0;
	nwin = st_teamed(m) ? 2 : m->nseats;
	if (m->winner < -1 || m->winner >= nwin ||
	    m->forfeit < -1 || m->forfeit >= m->nseats)
		return 0;
	for (i = 0; i < m->nseats; i++)
		if (m->bot[i] < 0 || m->bot[i] >= nbots)
			return 0;
	if (m->ndeals < 0 || (m->ndeals > 0 && m->deals == NULL))
		return 0;
	for (k = 0; k < m->ndeals; k++) {
		d = &m->deals[k];
		if (d->result < BRI_DEAL_PLAYING || d->result > BRI_DEAL_OTHERS ||
		    d->joker < -1 || d->joker >= m->nseats)
			return 0;
		/* a caller and a holder both, or neither (a void deal) */
		if (m->variant == BRI_CHIAMATA5 && (d->caller < -1 ||
		    d->caller >= m->nseats || d->partner < -1 ||
		    d->partner >= m->nseats || (d->caller < 0) !=
		    (d->partner < 0)))
			return 0;
	}
	return 1;
}

/*
 * The pairwise outcome of seat a against seat b in match m.
 *
 * Returns +1 when a finished above b, -1 when below, 0 when level.  The
 * ranking: a forfeiting seat (in a team variant, its team) is below every
 * other seat; the match winner (seat, or team) is above
 * every other seat; the rest are ordered by final match points, equal
 * points being a draw.  Seats of one forfeiting or one winning side are
 * level.  Returns 0 as well for an aborted match, a == b, a seat outside
 * the match, and, when team_aware is set, teammates: callers
 * that count results skip those pairs.  Antisymmetric: st_pairwise(m,
 * a, b, t) == -st_pairwise(m, b, a, t).
 */
int
st_pairwise(const struct st_match *m, int seat_a, int seat_b, int team_aware)
{
	int	 la, lb;

	assert(m != NULL);
	if (m->aborted || m->nseats < 1 || m->nseats > BRI_MAXSEATS ||
	    seat_a < 0 || seat_a >= m->nseats ||
	    seat_b < 0 || seat_b >= m->nseats || seat_a == seat_b)
		return 0;
	if (team_aware && st_partners(m, seat_a, seat_b))
		return 0;
	la = st_level(m, seat_a);
	lb = st_level(m, seat_b);
	if (la != lb)
		return la > lb ? 1 : -1;
	if (la != 1 || m->mpoints[seat_a] == m->mpoints[seat_b])
		return 0;
	return m->mpoints[seat_a] > m->mpoints[seat_b] ? 1 : -1;
}

/*
 * A seat's match result, read off its pairwise results so that the two
 * never disagree: lost if below any opponent, drawn if level with one or
 * if the match ended drawn (no winner, no forfeit), won otherwise.
 */
static int
st_outcome(const struct st_match *m, int seat)
{
	int	 i, r, level = 0;

	for (i = 0; i < m->nseats; i++) {
		if (i == seat || st_partners(m, seat, i))
			continue;
		r = st_pairwise(m, seat, i, 1);
		if (r < 0)
			return -1;
		if (r == 0)
			level++;
	}
	if (level > 0 || (m->winner < 0 && m->forfeit < 0))
		return 0;
	return 1;
}

/*
 * Count seat s's chiamata5 role in deal d, won (kind 1), lost (-1) or
 * drawn (0): the caller with a partner, the partner, the caller alone,
 * or one of the defenders.
 */
static void
st_role(struct st_row *r, const struct st_deal *d, int s, int kind)
{
	int	*n, *won, *lost;

	if (s == d->caller && d->partner == s) {
		n = &r->alone_deals;
		won = &r->alone_won;
		lost = &r->alone_lost;
	} else if (s == d->caller) {
		n = &r->caller_deals;
		won = &r->caller_won;
		lost = &r->caller_lost;
	} else if (s == d->partner) {
		n = &r->partner_deals;
		won = &r->partner_won;
		lost = &r->partner_lost;
	} else {
		n = &r->defender_deals;
		won = &r->defender_won;
		lost = &r->defender_lost;
	}
	(*n)++;
	*won += kind > 0;
	*lost += kind < 0;
}

/* Add one counted match to its bots' rows; gained[] sums match points. */
static void
st_count(const struct st_match *m, struct st_row *row, long *gained)
{
	const struct st_deal	*d;
	struct st_row		*r;
	int			 s, k, res, kind;

	for (s = 0; s < m->nseats; s++) {
		r = &row[m->bot[s]];
		r->played++;
		r->faults += m->faults[s];
		res = st_outcome(m, s);
		if (res > 0)
			r->won++;
		else if (res == 0)
			r->drawn++;
		else
			r->lost++;
		for (k = 0; k < m->ndeals; k++) {
			d = &m->deals[k];
			if (d->result == BRI_DEAL_PLAYING)
				continue;	/* cut short: not a deal */
			r->deals++;
			gained[m->bot[s]] += d->mpoints[s];
			if (d->result == BRI_DEAL_VOID ||
			    d->result == BRI_DEAL_DRAWN) {
				kind = 0;
				r->deals_void++;
			} else if (d->mpoints[s] > 0) {
				kind = 1;
				r->deals_won++;
			} else {
				kind = -1;
				r->deals_lost++;
			}
			if (d->joker == s) {
				r->joker_deals++;
				r->joker_won += kind > 0;
				r->joker_lost += kind < 0;
			} else if (d->joker >= 0) {
				r->ally_deals++;
				r->ally_won += kind > 0;
				r->ally_lost += kind < 0;
			}
			if (m->variant == BRI_CHIAMATA5 && d->caller >= 0)
				st_role(r, d, s, kind);
		}
	}
}

/* Add one counted match's pairwise results to the head-to-head table. */
static void
st_head(const struct st_match *m, struct st_table *t)
{
	struct st_h2h	*h;
	int		 a, b, r;

	for (a = 0; a < m->nseats; a++)
		for (b = 0; b < m->nseats; b++) {
			if (a == b || m->bot[a] == m->bot[b] ||
			    st_partners(m, a, b))
				continue;
			h = &t->h2h[m->bot[a]][m->bot[b]];
			r = st_pairwise(m, a, b, 1);
			if (r > 0)
				h->wins++;
			else if (r < 0)
				h->losses++;
			else
				h->draws++;
		}
}

/*
 * One match's pairwise games, the rating's inputs: each unordered pair
 * of seats of different bots, partners excepted, is one game, into p
 * (ST_MAXPAIRS at most); returns their number.
 */
static int
st_pairs(const struct st_match *m, struct st_pair *p)
{
	int	 a, b, n = 0;

	for (a = 0; a < m->nseats; a++)
		for (b = a + 1; b < m->nseats; b++) {
			if (m->bot[a] == m->bot[b] || st_partners(m, a, b))
				continue;
			p[n].i = (unsigned char)m->bot[a];
			p[n].j = (unsigned char)m->bot[b];
			p[n++].r = (signed char)st_pairwise(m, a, b, 1);
		}
	return n;
}

/*
 * Add n games, times over, to the rating's inputs: a win is worth 1 to
 * the winner, a draw 1/2 to each.  Every sum is a whole number of
 * halves, exact in a double whatever the order: a match drawn c times
 * by a resample may be added once, c times over, to the same bit.
 */
static void
st_addpairs(const struct st_pair *p, int n, double times,
    double win[][ST_MAXBOTS], double games[][ST_MAXBOTS])
{
	int	 k, i, j;

	for (k = 0; k < n; k++) {
		i = p[k].i;
		j = p[k].j;
		games[i][j] += times;
		games[j][i] += times;
		if (p[k].r > 0)
			win[i][j] += times;
		else if (p[k].r < 0)
			win[j][i] += times;
		else {
			win[i][j] += times / 2;
			win[j][i] += times / 2;
		}
	}
}

/* The slots of st_classes()'s table for n matches: a power of 2. */
static size_t
st_nslots(int n)
{
	size_t	 size = 16;

	while (size < 2 * (size_t)n)
		size *= 2;
	return size;
}

/*
 * Sort the matches into classes of the same games (st_pairs()): cls[k]
 * gets match k's class, -1 if it is aborted, rep[c] a match of class c;
 * slot is a table of st_nslots(n) entries.  Returns the number of
 * classes.  A resample then counts how often it drew each class, and
 * adds each class's games once.
 */
static int
st_classes(const struct st_match *ms, int n, const struct st_pair *pair,
    const int *npair, int *cls, int *rep, int *slot)
{
	size_t		 size = st_nslots(n), h, i;
	int		 nc = 0, k, c;
	const uint8_t	*b;

	memset(slot, -1, size * sizeof(*slot));
	for (k = 0; k < n; k++) {
		cls[k] = -1;
		if (ms[k].aborted)
			continue;
		/* FNV-1a over the games */
		b = (const uint8_t *)(pair + (size_t)k * ST_MAXPAIRS);
		h = 2166136261u ^ (size_t)npair[k];
		for (i = 0; i < npair[k] * sizeof(*pair); i++)
			h = (h ^ b[i]) * 16777619u;
		for (h &= size - 1; (c = slot[h]) != -1; h = (h + 1) &
		    (size - 1))
			if (npair[rep[c]] == npair[k] && memcmp(pair +
			    (size_t)rep[c] * ST_MAXPAIRS, b, npair[k] *
			    sizeof(*pair)) == 0)
				break;
		if (c == -1) {
			c = slot[h] = nc++;
			rep[c] = k;
		}
		cls[k] = c;
	}
	return nc;
}

/*
 * One MM step of Hunter (2004) for the Bradley-Terry model, in log
 * strengths: each bot's new strength is its points over the sum, over
 * its games, of 1 / (its strength + the opponent's).  The anchor is
 * updated like any bot, then divided out: the likelihood does not change
 * when every strength is scaled, so this is a step of the fit with the
 * anchor held at 1, taken without crawling along the scale.  All bots
 * move together from the previous values, so that bots with identical
 * records keep identical strengths.
 */
static void
st_mm(const struct st_bt *bt, const double *th, double *out)
{
	double	 g[ST_MAXBOTS], den, anchor;
	int	 i, j;

	for (i = 0; i < bt->nb; i++)
		g[i] = exp(th[i]);
	den = 0;
	for (i = 0; i < bt->nb; i++)
		den += ST_PRIOR / (1.0 + g[i]);
	anchor = bt->nb * ST_PRIOR / 2 / den;
	for (i = 0; i < bt->nb; i++) {
		den = ST_PRIOR / (g[i] + 1.0);
		for (j = 0; j < bt->nb; j++)
			if (bt->games[i][j] > 0)
				den += bt->games[i][j] / (g[i] + g[j]);
		out[i] = log(bt->wins[i] / den / anchor);
	}
}

/* The log-likelihood of log strengths th, the anchor's games included. */
static double
st_loglik(const struct st_bt *bt, const double *th)
{
	double	 g[ST_MAXBOTS], l = 0;
	int	 i, j;

	for (i = 0; i < bt->nb; i++)
		g[i] = exp(th[i]);
	for (i = 0; i < bt->nb; i++) {
		l += ST_PRIOR / 2 * (th[i] - 2 * log(1.0 + g[i]));
		for (j = i + 1; j < bt->nb; j++)
			if (bt->games[i][j] > 0)
				l += bt->win[i][j] * th[i] +
				    bt->win[j][i] * th[j] -
				    bt->games[i][j] * log(g[i] + g[j]);
	}
	return l;
}

/*
 * Fit Bradley-Terry strengths by MM, because it needs no step size and
 * every step raises the likelihood; accelerated by SQUAREM (Varadhan and
 * Roland, 2008), because plain MM crawls when strengths lie far apart.
 * Each cycle takes two MM steps, extrapolates along them, and keeps the
 * extrapolation (after one more MM step) only if it raised the
 * likelihood at least as much as the two plain steps did, so the fit
 * still only ever goes uphill, to the same maximum.  Each bot also drew
 * ST_PRIOR games with an anchor of strength 1, which keeps a bot that
 * never lost (or never won) finite.  gamma holds the starting point and
 * gets the fit; elo gets 400 log10(strength), less the mean over nb bots.
 */
static void
st_fit(double win[][ST_MAXBOTS], double games[][ST_MAXBOTS], int nb,
    double *gamma, double *elo)
{
	struct st_bt	 bt;
	double		 th[ST_MAXBOTS], t1[ST_MAXBOTS], t2[ST_MAXBOTS];
	double		 tx[ST_MAXBOTS], t3[ST_MAXBOTS];
	double		 r, v, rr, vv, a, change, mean;
	int		 i, j, it, ok;

	if (nb == 0)
		return;
	bt.win = win;
	bt.games = games;
	bt.nb = nb;
	for (i = 0; i < nb; i++) {
		bt.wins[i] = ST_PRIOR / 2;
		for (j = 0; j < nb; j++)
			bt.wins[i] += win[i][j];
		th[i] = log(gamma[i]);
	}
	for (it = 0; it < ST_MAXITER; it++) {
		st_mm(&bt, th, t1);
		st_mm(&bt, t1, t2);
		change = rr = vv = 0;
		for (i = 0; i < nb; i++) {
			change = fmax(change, fabs(t2[i] - t1[i]));
			r = t1[i] - th[i];
			v = t2[i] - 2 * t1[i] + th[i];
			rr += r * r;
			vv += v * v;
		}
		a = vv > 0 ? -sqrt(rr / vv) : -1;
		ok = change >= ST_TOL && a < -1;
		for (i = 0; ok && i < nb; i++) {
			r = t1[i] - th[i];
			v = t2[i] - 2 * t1[i] + th[i];
			tx[i] = th[i] - 2 * a * r + a * a * v;
			ok = fabs(tx[i]) < ST_MAXLOG;
		}
		if (ok) {
			st_mm(&bt, tx, t3);
			ok = st_loglik(&bt, t3) >= st_loglik(&bt, t2);
		}
		for (i = 0; i < nb; i++)
			th[i] = ok ? t3[i] : t2[i];
		if (change < ST_TOL)
			break;
	}
	mean = 0;
	for (i = 0; i < nb; i++) {
		gamma[i] = exp(th[i]);
		elo[i] = 400.0 * th[i] / log(10.0);
		mean += elo[i];
	}
	if (nb > 0)
		mean /= nb;
	for (i = 0; i < nb; i++)
		elo[i] -= mean;
}

/*
 * SplitMix64 (Steele, Lea and Flood, 2014): tiny, seedable from any
 * 64-bit value and the same everywhere, which is all the bootstrap needs.
 */
static uint64_t
st_rand(uint64_t *state)
{
	uint64_t	 z;

	z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform integer below n > 0, by rejection so that none is favoured. */
static uint64_t
st_uniform(uint64_t *state, uint64_t n)
{
	uint64_t	 r, lim = -n % n;	/* 2^64 mod n */

	do
		r = st_rand(state);
	while (r < lim);
	return r % n;
}

/* Sort n doubles ascending; insertion sort, as n is at most ST_NBOOT. */
static void
st_sortd(double *x, int n)
{
	double	 v;
	int	 i, j;

	for (i = 1; i < n; i++) {
		v = x[i];
		for (j = i; j > 0 && x[j - 1] > v; j--)
			x[j] = x[j - 1];
		x[j] = v;
	}
}

/*
 * The p-quantile of n sorted values, interpolating between neighbours
 * (Hyndman and Fan's type 7), so that the 2.5% and 97.5% points of a
 * mirrored sample mirror each other.
 */
static double
st_quantile(const double *x, int n, double p)
{
	double	 h = p * (n - 1);
	int	 lo = (int)floor(h);

	if (lo >= n - 1)
		return x[n - 1];
	return x[lo] + (h - lo) * (x[lo + 1] - x[lo]);
}

/* Standings order: higher rating first, then lower bot index. */
static int
st_rowcmp(const struct st_row *a, const struct st_row *b)
{
	if (a->elo != b->elo)
		return a->elo > b->elo ? -1 : 1;
	return (a->bot > b->bot) - (a->bot < b->bot);
}

/* Sort the rows; insertion sort, stable and with no library to differ. */
static void
st_sortrows(struct st_row *row, int n)
{
	struct st_row	 v;
	int		 i, j;

	for (i = 1; i < n; i++) {
		v = row[i];
		for (j = i; j > 0 && st_rowcmp(&row[j - 1], &v) > 0; j--)
			row[j] = row[j - 1];
		row[j] = v;
	}
}

/*
 * Compute the standings of bots 0..nbots-1 from the n match records ms
 * into *t, which is overwritten entirely.
 *
 * Aborted matches are skipped entirely and need not be valid; every
 * other record must be valid: a known variant with its number of seats,
 * bot indices below nbots, winner (seat, or team), forfeit
 * and every deal's result and Joker in range.  seed drives the
 * bootstrap and nothing else: a different seed changes elo_lo and
 * elo_hi only.  t->row[] is sorted by rating, best first, ties by bot
 * index; t->h2h[][] is indexed by bot.  ms is only read and may be NULL
 * when n is 0.  Returns 0, or -1 (with *t zeroed) when nbots is not in
 * 0..ST_MAXBOTS, n is negative, a record is invalid or memory runs out.
 * The meaning of every field is in refd-standings(7).
 */
int
st_compute(const struct st_match *ms, int n, int nbots, uint64_t seed,
    struct st_table *t)
{
	struct st_work	*w;
	struct st_row	*r;
	struct st_h2h	*h;
	struct st_pair	*pair;
	double		 gamma[ST_MAXBOTS], elo[ST_MAXBOTS];
	double		 points, games;
	long		 gained[ST_MAXBOTS];
	uint64_t	 state = seed;
	int		 i, j, k, b, usable = 0, nc, rc = -1;
	int		*npair, *cls, *rep, *drawn, *slot;

	assert(t != NULL);
	memset(t, 0, sizeof(*t));
	if (nbots < 0 || nbots > ST_MAXBOTS || n < 0 ||
	    (n > 0 && ms == NULL))
		return -1;
	for (k = 0; k < n; k++)
		if (!ms[k].aborted && !st_valid(&ms[k], nbots))
			return -1;
	/* each match's games, found once for the fit and its resamples */
	w = calloc(1, sizeof(*w));
	pair = calloc((size_t)n + 1, ST_MAXPAIRS * sizeof(*pair));
	npair = calloc((size_t)n + 1, sizeof(*npair));
	cls = calloc((size_t)n + 1, sizeof(*cls));
	rep = calloc((size_t)n + 1, sizeof(*rep));
	drawn = calloc((size_t)n + 1, sizeof(*drawn));
	slot = calloc(st_nslots(n), sizeof(*slot));
	if (w == NULL || pair == NULL || npair == NULL || cls == NULL ||
	    rep == NULL || drawn == NULL || slot == NULL)
		goto out;

	t->nbots = nbots;
	for (i = 0; i < nbots; i++) {
		t->row[i].bot = i;
		gained[i] = 0;
		w->gamma[i] = 1.0;
	}
	for (k = 0; k < n; k++) {
		if (ms[k].aborted)
			continue;
		usable++;
		st_count(&ms[k], t->row, gained);
		st_head(&ms[k], t);
		npair[k] = st_pairs(&ms[k], pair + (size_t)k * ST_MAXPAIRS);
		st_addpairs(pair + (size_t)k * ST_MAXPAIRS, npair[k], 1,
		    w->win, w->games);
	}
	for (i = 0; i < nbots; i++) {
		r = &t->row[i];
		if (r->deals > 0) {
			r->joker_rate = (double)r->joker_deals / r->deals;
			r->mpoints_per_deal = (double)gained[i] / r->deals;
		}
		points = games = 0;
		for (j = 0; j < nbots; j++) {
			h = &t->h2h[i][j];
			points += h->wins + 0.5 * h->draws;
			games += h->wins + h->draws + h->losses;
		}
		r->score = games > 0 ? points / games : 0.5;
	}

	/* the rating, from all the counted matches */
	st_fit(w->win, w->games, nbots, w->gamma, elo);
	for (i = 0; i < nbots; i++)
		t->row[i].elo = t->row[i].elo_lo = t->row[i].elo_hi = elo[i];

	/* its interval: refit on whole matches drawn with replacement */
	nc = st_classes(ms, n, pair, npair, cls, rep, slot);
	if (usable > 0 && nbots > 0) {
		for (b = 0; b < ST_NBOOT; b++) {
			memset(w->win, 0, sizeof(w->win));
			memset(w->games, 0, sizeof(w->games));
			memset(drawn, 0, nc * sizeof(int));
			for (k = 0; k < usable; k++) {
				do
					j = (int)st_uniform(&state,
					    (uint64_t)n);
				while (cls[j] == -1);
				drawn[cls[j]]++;
			}
			for (j = 0; j < nc; j++)
				if (drawn[j] > 0)
					st_addpairs(pair + (size_t)rep[j] *
					    ST_MAXPAIRS, npair[rep[j]],
					    drawn[j], w->win, w->games);
			for (i = 0; i < nbots; i++)
				gamma[i] = w->gamma[i];
			st_fit(w->win, w->games, nbots, gamma, elo);
			for (i = 0; i < nbots; i++)
				w->boot[i][b] = elo[i];
		}
		t->resamples = ST_NBOOT;
		for (i = 0; i < nbots; i++) {
			r = &t->row[i];
			st_sortd(w->boot[i], ST_NBOOT);
			r->elo_lo = st_quantile(w->boot[i], ST_NBOOT, 0.025);
			r->elo_hi = st_quantile(w->boot[i], ST_NBOOT, 0.975);
			/* a skewed resample can miss the estimate: widen */
			r->elo_lo = fmin(r->elo_lo, r->elo);
			r->elo_hi = fmax(r->elo_hi, r->elo);
		}
	}
	st_sortrows(t->row, nbots);
	rc = 0;
out:
	free(w);
	free(pair);
	free(npair);
	free(cls);
	free(rep);
	free(drawn);
	free(slot);
	return rc;
}

/*
 * Do these parameters make a test?  Both error rates in (0, 1/2), so
 * that the lower bound is below 0 and the upper above; elo0 < elo1,
 * both finite and within +-1000, so that the hypotheses differ.
 * Anything else would decide at once or never.
 */
int
st_sprt_valid(double elo0, double elo1, double alpha, double beta)
{
	return alpha > 0 && alpha < 0.5 && beta > 0 && beta < 0.5 &&
	    elo0 >= -1000 && elo1 <= 1000 && elo0 < elo1;
}

/* Start a test: the caller has set elo0, elo1, alpha and beta. */
void
st_sprt_begin(struct st_sprt *s)
{
	assert(s != NULL);
	s->valid = st_sprt_valid(s->elo0, s->elo1, s->alpha, s->beta);
	s->llr = s->lower = s->upper = 0;
	s->units = s->wins = s->draws = s->losses = 0;
	s->decided = 0;
	s->ncat = 0;
	if (s->valid) {
		s->lower = log(s->beta / (1 - s->alpha));
		s->upper = log((1 - s->beta) / s->alpha);
	}
}

/*
 * The Lagrange multiplier of the maximum-likelihood distribution over
 * the observed scores with expected score sc (Van den Bergh's
 * Proposition 1.1): the root of
 *	f(l) = sum_i n_i (a_i - sc) / (1 + l (a_i - sc))
 * on [-1 / (1 - sc), 1 / sc], the range where every possible score,
 * 0 and 1 included, keeps a probability >= 0.  When f keeps its sign up
 * to an end of that range, the maximum puts the missing mass on the
 * unobserved extreme score (0 or 1) and the multiplier is that end:
 * exactly, without giving empty counts a weight.  f is decreasing, so
 * safeguarded Newton steps within a shrinking bracket find the root.
 */
static double
st_f(const struct st_sprt *s, double sc, double l, double *df)
{
	double	 f = 0, d, t;
	int	 i;

	*df = 0;
	for (i = 0; i < s->ncat; i++) {
		d = s->cat[i] - sc;
		t = 1 + l * d;
		f += s->catn[i] * d / t;
		*df -= s->catn[i] * d * d / (t * t);
	}
	return f;
}

static double
st_lambda(const struct st_sprt *s, double sc)
{
	double	 lo = -1 / (1 - sc), hi = 1 / sc, l = 0, f, df, t;
	int	 i, it, has0 = 0, has1 = 0;

	for (i = 0; i < s->ncat; i++) {
		has0 |= s->cat[i] == 0;
		has1 |= s->cat[i] == 1;
	}
	/* at an end, f is finite only if the score beyond is unobserved */
	if (!has0 && st_f(s, sc, hi, &df) >= 0)
		return hi;
	if (!has1 && st_f(s, sc, lo, &df) <= 0)
		return lo;
	for (it = 0; it < 200; it++) {
		f = st_f(s, sc, l, &df);
		if (f == 0)
			break;
		if (f > 0)
			lo = l;
		else
			hi = l;
		t = df < 0 ? l - f / df : (lo + hi) / 2;
		if (!(t > lo && t < hi))
			t = lo / 2 + hi / 2;
		if (t == l || hi - lo <= 1e-14 * fmax(1, fabs(l)))
			break;
		l = t;
	}
	return l;
}

/*
 * The generalized log-likelihood ratio of the observations so far:
 * the log-likelihood of the most likely distribution of observation
 * scores whose expectation is s1 = 1 / (1 + 10^(-elo1/400)), less that
 * for s0.  Each maximum is p_i = phat_i / (1 + l (a_i - s)), so the
 * empirical term cancels and
 *	LLR = sum_i n_i [ln(1 + l0 (a_i - s0)) - ln(1 + l1 (a_i - s1))].
 */
double
st_sprt_llr(const struct st_sprt *s)
{
	double	 s0, s1, l0, l1, llr = 0;
	int	 i;

	if (!s->valid || s->ncat == 0)
		return 0;
	s0 = 1 / (1 + pow(10, -s->elo0 / 400));
	s1 = 1 / (1 + pow(10, -s->elo1 / 400));
	l0 = st_lambda(s, s0);
	l1 = st_lambda(s, s1);
	for (i = 0; i < s->ncat; i++)
		llr += s->catn[i] * (log1p(l0 * (s->cat[i] - s0)) -
		    log1p(l1 * (s->cat[i] - s1)));
	return isfinite(llr) ? llr : 0;
}

/*
 * Add one observation, the n match records ms (one match, or a whole
 * duplicate set), to the test of bot candidate against bot baseline.
 * Its pairwise games are every ordered pair of seats, candidate against
 * baseline, of its counted matches (not aborted, valid as for
 * st_compute(), teammates excepted); its score is their mean,
 * 1 a win and 1/2 a draw.  With one game per match that is fishtest's
 * trinomial, with game pairs its pentanomial, and with the k! matches
 * of a k-seat duplicate set the same model over the set's possible
 * means.  An observation without such a game counts for nothing.
 * Once the test has decided, nothing more is added.  Returns
 * s->decided: 1 when the LLR reached the upper bound (H1 accepted), -1
 * the lower (H0), else 0.
 */
int
st_sprt_add(struct st_sprt *s, const struct st_match *ms, int n,
    int candidate, int baseline)
{
	const struct st_match	*m;
	int			 k, a, b, r, i, games = 0, half = 0;
	double			 sc;

	assert(s != NULL);
	if (s->decided != 0 || ms == NULL || candidate == baseline)
		return s->decided;
	for (k = 0; k < n; k++) {
		m = &ms[k];
		if (m->aborted || !st_valid(m, INT_MAX))
			continue;
		for (a = 0; a < m->nseats; a++)
			for (b = 0; b < m->nseats; b++) {
				if (m->bot[a] != candidate ||
				    m->bot[b] != baseline ||
				    st_partners(m, a, b))
					continue;
				r = st_pairwise(m, a, b, 1);
				games++;
				half += r + 1;
				if (r > 0)
					s->wins++;
				else if (r < 0)
					s->losses++;
				else
					s->draws++;
			}
	}
	if (games == 0)
		return 0;
	sc = (double)half / (2.0 * games);
	for (i = 0; i < s->ncat && s->cat[i] != sc; i++)
		;
	if (i == ST_SPRT_MAXCAT)
		return 0;	/* more kinds of set than any schedule makes */
	if (i == s->ncat) {
		s->cat[i] = sc;
		s->catn[i] = 0;
		s->ncat++;
	}
	s->catn[i]++;
	s->units++;
	if (!s->valid)
		return 0;
	s->llr = st_sprt_llr(s);
	if (s->llr >= s->upper)
		s->decided = 1;
	else if (s->llr <= s->lower)
		s->decided = -1;
	return s->decided;
}

/*
 * Run the test over the n match records ms, taken in their order:
 * consecutive records with the same unit[] form one observation (unit
 * may be NULL: each match its own).  The caller sets s->elo0, s->elo1,
 * s->alpha and s->beta; st_sprt() fills the rest.  The test stops at
 * the first observation that takes the LLR to a bound, so records after
 * it change nothing.  Invalid parameters (st_sprt_valid()) leave llr
 * and both bounds 0 and decide nothing; the games are still counted.
 * Never NaN.  ms may be NULL when n is 0.
 */
void
st_sprt(const struct st_match *ms, int n, const int *unit, int candidate,
    int baseline, struct st_sprt *s)
{
	int	 k, j;

	st_sprt_begin(s);
	if (ms == NULL)
		return;
	for (k = 0; k < n; k = j) {
		for (j = k + 1; unit != NULL && j < n && unit[j] == unit[k];
		    j++)
			;
		st_sprt_add(s, ms + k, j - k, candidate, baseline);
	}
}

/*
 * The role-aware rating.  Each decided deal is one comparison between
 * the sides of that deal: in joker3 the Joker against the two allies, in
 * classic4 and classic6 team against team, elsewhere each seat for
 * itself.  A side's strength is the sum of its bots' strengths, the
 * Joker's multiplied by a constant of the role (Huang, Weng and Lin,
 * 2006); the side that won had probability its strength over the sum
 * of all sides'.  Hunter's (2004) MM algorithm fits it.  Void and drawn
 * deals are dropped: they say nothing about who is stronger.
 */
#define ST_TMAXEV	4096	/* kinds of comparison told apart */
#define ST_TITER	2000	/* MM steps at most */
#define ST_TTOL		1e-9	/* converged: no ln(strength) moved more */
#define ST_TBOOT	100	/* resamples of whole units */
#define ST_TSIDE	3	/* bots on one side at most (classic6) */

/* One kind of comparison: its sides, which is the Joker's, who won. */
struct st_tev {
	int		 nsides;
	int		 size[BRI_MAXSEATS];
	int		 bot[BRI_MAXSEATS][ST_TSIDE]; /* each side's bots,
						   sorted, -1 past size */
	int		 joker;		/* the Joker's side, or -1 */
	int		 win;		/* the side that won */
};

/* What one fit needs: the kinds and how often each happened. */
struct st_tfit {
	struct st_tev	 ev[ST_TMAXEV];
	double		 w[ST_TMAXEV];
	int		 nev;
	int		 nb;
};

/* The comparison a deal of m makes, into *e; 0 if it makes none. */
static int
st_tevent(const struct st_match *m, const struct st_deal *d,
    struct st_tev *e)
{
	int	 s, k, t, i;

	memset(e, 0, sizeof(*e));
	e->joker = -1;
	if (m->variant == BRI_JOKER3) {
		if ((d->result != BRI_DEAL_JOKER &&
		    d->result != BRI_DEAL_ALLIES) || d->joker < 0)
			return 0;
		e->nsides = 2;
		e->joker = 0;
		e->size[0] = 1;
		e->bot[0][0] = m->bot[d->joker];
		for (s = 0; s < m->nseats; s++)
			if (s != d->joker)
				e->bot[1][e->size[1]++] = m->bot[s];
		e->win = d->result == BRI_DEAL_JOKER ? 0 : 1;
	} else if (st_teamed(m)) {
		if (d->result != BRI_DEAL_WON || d->winner < 0 || d->winner > 1)
			return 0;
		e->nsides = 2;
		for (s = 0; s < m->nseats; s++)
			e->bot[s % 2][e->size[s % 2]++] = m->bot[s];
		e->win = d->winner;
	} else {
		if (d->result != BRI_DEAL_WON || d->winner < 0 ||
		    d->winner >= m->nseats)
			return 0;
		e->nsides = m->nseats;
		for (s = 0; s < m->nseats; s++) {
			e->size[s] = 1;
			e->bot[s][0] = m->bot[s];
		}
		e->win = d->winner;
	}
	for (k = 0; k < e->nsides; k++) {	/* one order, to tell apart */
		for (s = 1; s < e->size[k]; s++)
			for (i = s; i > 0 && e->bot[k][i - 1] > e->bot[k][i];
			    i--) {
				t = e->bot[k][i];
				e->bot[k][i] = e->bot[k][i - 1];
				e->bot[k][i - 1] = t;
			}
		for (s = e->size[k]; s < ST_TSIDE; s++)
			e->bot[k][s] = -1;
	}
	return 1;
}

/*
 * Add one of each comparison of match m to f, and their kinds' indices
 * in f to kind (m->ndeals at most); returns how many, or -1 when f is
 * full.
 */
static int
st_tadd(struct st_tfit *f, const struct st_match *m, int *kind)
{
	struct st_tev	 e;
	int		 k, i, n = 0;

	if (m->aborted)
		return 0;
	for (k = 0; k < m->ndeals; k++) {
		if (!st_tevent(m, &m->deals[k], &e))
			continue;
		for (i = 0; i < f->nev; i++)
			if (memcmp(&f->ev[i], &e, sizeof(e)) == 0)
				break;
		if (i == f->nev) {
			if (f->nev == ST_TMAXEV)
				return -1;
			f->ev[f->nev] = e;
			f->w[f->nev++] = 0;
		}
		f->w[i] += 1;
		kind[n++] = i;
	}
	return n;
}

/*
 * Add again to f comparisons st_tadd() put in all: n of them, of the
 * kinds kind[] in all.  at[k] is kind k's index in f, or -1 if f has
 * none yet; a new kind takes the next, as st_tadd() would have given
 * it, so that a resample's fit sums in the same order as if its
 * matches had been read again.
 */
static void
st_tagain(struct st_tfit *f, const struct st_tfit *all, const int *kind,
    int n, int *at)
{
	int	 k;

	for (k = 0; k < n; k++) {
		if (at[kind[k]] < 0) {
			at[kind[k]] = f->nev;
			f->ev[f->nev] = all->ev[kind[k]];
			f->w[f->nev++] = 0;
		}
		f->w[at[kind[k]]] += 1;
	}
}

/*
 * Fit strengths g[0..nb-1] and the Joker constant *theta by MM: each
 * step maximizes Hunter's minorizer, where the winning side's
 * ln(sum of strengths) is bounded below by Jensen's inequality with the
 * current shares and each -ln(total) by its tangent.  Each bot also
 * drew ST_PRIOR games with an anchor of strength 1, as in st_fit(), so
 * that a bot that never lost stays finite.  Strengths start at 1.
 */
static void
st_tfitmm(const struct st_tfit *f, double *g, double *theta)
{
	double	 num[ST_MAXBOTS], den[ST_MAXBOTS], ng[ST_MAXBOTS];
	double	 side[BRI_MAXSEATS], tot, jw, jd, change, nt;
	int	 it, i, k, s, b, nb = f->nb;

	for (i = 0; i < nb; i++)
		g[i] = 1;
	*theta = 1;
	for (it = 0; it < ST_TITER; it++) {
		jw = jd = 0;
		for (i = 0; i < nb; i++) {
			num[i] = ST_PRIOR / 2;
			den[i] = ST_PRIOR / (g[i] + 1);
		}
		for (k = 0; k < f->nev; k++) {
			const struct st_tev *e = &f->ev[k];

			tot = 0;
			for (s = 0; s < e->nsides; s++) {
				side[s] = 0;
				for (b = 0; b < e->size[s]; b++)
					side[s] += g[e->bot[s][b]];
				tot += (s == e->joker ? *theta : 1) * side[s];
			}
			for (s = 0; s < e->nsides; s++)
				for (b = 0; b < e->size[s]; b++) {
					i = e->bot[s][b];
					den[i] += f->w[k] * (s == e->joker ?
					    *theta : 1) / tot;
					if (s == e->win)
						num[i] += f->w[k] * g[i] /
						    side[s];
				}
			if (e->joker >= 0) {
				jd += f->w[k] * side[e->joker] / tot;
				if (e->win == e->joker)
					jw += f->w[k];
			}
		}
		change = 0;
		for (i = 0; i < nb; i++) {
			ng[i] = num[i] / den[i];
			change = fmax(change, fabs(log(ng[i] / g[i])));
		}
		for (i = 0; i < nb; i++)
			g[i] = ng[i];
		if (jd > 0) {
			/* one drawn game of the role keeps it finite too */
			nt = (jw + 0.5) / (jd + 1 / (*theta + 1));
			change = fmax(change, fabs(log(nt / *theta)));
			*theta = nt;
		}
		if (change < ST_TTOL)
			break;
	}
}

/* Strengths to Elo, centred on the mean. */
static void
st_telo(const double *g, int nb, double *elo)
{
	double	 mean = 0;
	int	 i;

	for (i = 0; i < nb; i++)
		mean += (elo[i] = 400 * log10(g[i])) / nb;
	for (i = 0; i < nb; i++)
		elo[i] -= mean;
}

/*
 * Fill t's role-aware ratings (telo, its interval, the Joker constant
 * and tdeals), t having been filled by st_compute() from the same
 * records.  unit[k] (or NULL: each match its own) groups the records
 * into the units the interval resamples whole: duplicate sets, whose
 * permutations share their cards' luck, or matches.  Returns 0, or -1
 * (the fields left 0) on bad input or when memory runs out.
 */
int
st_teams(const struct st_match *ms, int n, const int *unit, int nbots,
    uint64_t seed, struct st_table *t)
{
	struct st_tfit	*f = NULL, *fb = NULL;
	double		 g[ST_MAXBOTS], elo[ST_MAXBOTS], theta;
	double		*boot = NULL, jboot[ST_TBOOT];
	int		*start = NULL, *kind = NULL, *kstart = NULL, *at = NULL;
	int		 nu = 0, i, k, b, j, r, nd = 0;
	uint64_t	 state = seed ^ 0x7465616d73ULL;	/* "teams" */

	if (nbots < 1 || nbots > ST_MAXBOTS || n < 0 || t->nbots != nbots ||
	    (n > 0 && ms == NULL))
		return -1;
	for (k = 0; k < n; k++) {
		if (!ms[k].aborted && !st_valid(&ms[k], nbots))
			return -1;
		nd += ms[k].aborted ? 0 : ms[k].ndeals;
	}
	/* each match's comparisons, found once for the fit and resamples */
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (fb = calloc(1, sizeof(*fb))) == NULL ||
	    (start = calloc(n + 1, sizeof(int))) == NULL ||
	    (kstart = calloc(n + 1, sizeof(int))) == NULL ||
	    (kind = calloc(nd + 1, sizeof(int))) == NULL ||
	    (at = calloc(ST_TMAXEV, sizeof(int))) == NULL ||
	    (boot = calloc((size_t)nbots * ST_TBOOT, sizeof(double))) == NULL)
		goto fail;
	f->nb = fb->nb = nbots;
	for (k = 0; k < n; k++) {
		if (k == 0 || unit == NULL || unit[k] != unit[k - 1])
			start[nu++] = k;
		if ((r = st_tadd(f, &ms[k], kind + kstart[k])) == -1)
			goto fail;
		kstart[k + 1] = kstart[k] + r;
	}
	start[nu] = n;
	for (k = 0, t->tdeals = 0; k < f->nev; k++)
		t->tdeals += (int)f->w[k];
	st_tfitmm(f, g, &theta);
	st_telo(g, nbots, elo);
	t->joker = t->joker_lo = t->joker_hi = 400 * log10(theta);
	for (r = 0; r < nbots; r++) {
		i = t->row[r].bot;
		t->row[r].telo = t->row[r].telo_lo = t->row[r].telo_hi =
		    elo[i];
	}
	for (b = 0; nu > 0 && b < ST_TBOOT; b++) {
		fb->nev = 0;
		memset(at, -1, f->nev * sizeof(int));
		for (k = 0; k < nu; k++) {
			j = (int)st_uniform(&state, (uint64_t)nu);
			st_tagain(fb, f, kind + kstart[start[j]],
			    kstart[start[j + 1]] - kstart[start[j]], at);
		}
		st_tfitmm(fb, g, &theta);
		st_telo(g, nbots, elo);
		for (i = 0; i < nbots; i++)
			boot[i * ST_TBOOT + b] = elo[i];
		jboot[b] = 400 * log10(theta);
	}
	if (nu > 0) {
		t->tresamples = ST_TBOOT;
		for (r = 0; r < nbots; r++) {
			i = t->row[r].bot;
			st_sortd(boot + i * ST_TBOOT, ST_TBOOT);
			t->row[r].telo_lo = fmin(t->row[r].telo,
			    st_quantile(boot + i * ST_TBOOT, ST_TBOOT, 0.025));
			t->row[r].telo_hi = fmax(t->row[r].telo,
			    st_quantile(boot + i * ST_TBOOT, ST_TBOOT, 0.975));
		}
		st_sortd(jboot, ST_TBOOT);
		t->joker_lo = fmin(t->joker, st_quantile(jboot, ST_TBOOT,
		    0.025));
		t->joker_hi = fmax(t->joker, st_quantile(jboot, ST_TBOOT,
		    0.975));
	}
	r = 0;
	goto out;
fail:
	t->tdeals = t->tresamples = 0;
	r = -1;
out:
	free(f);
	free(fb);
	free(start);
	free(kstart);
	free(kind);
	free(at);
	free(boot);
	return r;
}
