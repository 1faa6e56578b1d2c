/*
 * test_standings.c: the standings of refd-standings(7) on hand-made
 * match records whose every count was worked out on paper; the rating's
 * order, symmetry and interval; bit-for-bit determinism; the SPRT's
 * decisions; and no NaN on empty or degenerate input.  Also the time
 * report a cluster sums from its rows' thinking times (tstand_times()):
 * its figures worked out on paper, and hostile times refused.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "briscola.h"
#include "standings.h"
#include "tstand.h"

#define A	0	/* the bots of the hand-made set */
#define B	1
#define C	2
#define D	3
#define NHAND	6	/* matches in the hand-made set */
#define SEED	0x5eed5eed5eed5eedULL
#define MAXGEN	400	/* generated matches, at most */

static struct st_deal	 hand_deals[NHAND][4];
static struct st_match	 hand[NHAND];
static struct st_match	 gen[MAXGEN];	/* generated: classic2 or joker3 */
static struct st_table	 t1, t2;	/* too big for the stack */

static struct st_deal	 mkdeal(int, int, int, int, int, int, int);
static struct st_match	 mkmatch(int, int, int, int, int, int, int, int,
			    int, int, int);
static void		 build_hand(void);
static struct st_match	 duel(int, int, int);
static void		 finite_table(const struct st_table *);
static const struct st_row *rowof(const struct st_table *, int);
static void		 check_row(const struct st_row *, const int [17]);
static void		 sprt_run(int, int, int, double, double,
			    struct st_sprt *);

/* A deal record; m0..m3 are the match points it gave each seat. */
static struct st_deal
mkdeal(int result, int winner, int joker, int m0, int m1, int m2, int m3)
{
	struct st_deal	 d;

	memset(&d, 0, sizeof(d));
	d.result = result;
	d.winner = winner;
	d.joker = joker;
	d.mpoints[0] = m0;
	d.mpoints[1] = m1;
	d.mpoints[2] = m2;
	d.mpoints[3] = m3;
	return d;
}

/* A match record without deals; bots b0..b3 (-1 past nseats). */
static struct st_match
mkmatch(int variant, int b0, int b1, int b2, int b3, int m0, int m1, int m2,
    int m3, int winner, int forfeit)
{
	struct st_match	 m;

	memset(&m, 0, sizeof(m));
	m.variant = variant;
	m.nseats = bri_variant_seats((enum bri_variant)variant);
	m.bot[0] = b0;
	m.bot[1] = b1;
	m.bot[2] = b2;
	m.bot[3] = b3;
	m.mpoints[0] = m0;
	m.mpoints[1] = m1;
	m.mpoints[2] = m2;
	m.mpoints[3] = m3;
	m.winner = winner;
	m.forfeit = forfeit;
	return m;
}

/*
 * The hand-made set, worked on paper in the comments:
 * M1 joker3 A B C: A wins 5-0-1; 1 and 2 faults for A and C.
 * M2 classic2 B A: B wins 2-0 with a drawn deal between.
 * M3 classic4 A B C D: pair 1 (B, D) wins 2-0; D faulted 3 times.
 * M4 joker3 C D A: D forfeits in deal 2; C and A level on 1.
 * M5 aborted, full of nonsense: counted nowhere.
 * M6 classic2 C D: the deal cap ends it drawn 0-0.
 */
static void
build_hand(void)
{
	struct st_deal	*d;

	d = hand_deals[0];
	d[0] = mkdeal(BRI_DEAL_JOKER, -1, 0, 2, 0, 0, 0);
	d[1] = mkdeal(BRI_DEAL_ALLIES, -1, 1, 1, 0, 1, 0);
	d[2] = mkdeal(BRI_DEAL_VOID, -1, 2, 0, 0, 0, 0);
	d[3] = mkdeal(BRI_DEAL_JOKER, -1, 0, 2, 0, 0, 0);
	hand[0] = mkmatch(BRI_JOKER3, A, B, C, -1, 5, 0, 1, 0, 0, -1);
	hand[0].faults[0] = 1;
	hand[0].faults[2] = 2;
	hand[0].deals = d;
	hand[0].ndeals = 4;

	d = hand_deals[1];
	d[0] = mkdeal(BRI_DEAL_WON, 0, -1, 1, 0, 0, 0);
	d[1] = mkdeal(BRI_DEAL_DRAWN, -1, -1, 0, 0, 0, 0);
	d[2] = mkdeal(BRI_DEAL_WON, 0, -1, 1, 0, 0, 0);
	hand[1] = mkmatch(BRI_CLASSIC2, B, A, -1, -1, 2, 0, 0, 0, 0, -1);
	hand[1].deals = d;
	hand[1].ndeals = 3;

	d = hand_deals[2];
	d[0] = mkdeal(BRI_DEAL_WON, 1, -1, 0, 1, 0, 1);
	d[1] = mkdeal(BRI_DEAL_WON, 1, -1, 0, 1, 0, 1);
	hand[2] = mkmatch(BRI_CLASSIC4, A, B, C, D, 0, 2, 0, 2, 1, -1);
	hand[2].faults[3] = 3;
	hand[2].deals = d;
	hand[2].ndeals = 2;

	d = hand_deals[3];
	d[0] = mkdeal(BRI_DEAL_ALLIES, -1, 1, 1, 0, 1, 0);
	d[1] = mkdeal(BRI_DEAL_PLAYING, -1, -1, 0, 0, 0, 0);
	hand[3] = mkmatch(BRI_JOKER3, C, D, A, -1, 1, 0, 1, 0, -1, 1);
	hand[3].faults[1] = 1;
	hand[3].deals = d;
	hand[3].ndeals = 2;

	d = hand_deals[4];
	d[0] = mkdeal(BRI_DEAL_JOKER, -1, 0, 2, 0, 0, 0);
	hand[4] = mkmatch(BRI_JOKER3, D, D, 99, -1, 7, 0, 0, 0, 5, 7);
	hand[4].aborted = 1;
	hand[4].faults[0] = 9;
	hand[4].deals = d;
	hand[4].ndeals = 1;

	d = hand_deals[5];
	d[0] = mkdeal(BRI_DEAL_DRAWN, -1, -1, 0, 0, 0, 0);
	hand[5] = mkmatch(BRI_CLASSIC2, C, D, -1, -1, 0, 0, 0, 0, -1, -1);
	hand[5].deals = d;
	hand[5].ndeals = 1;
}

/* A classic2 match of bot a (seat 0) and bot b: winner seat, or -1. */
static struct st_match
duel(int a, int b, int winner)
{
	return mkmatch(BRI_CLASSIC2, a, b, -1, -1, winner == 0 ? 2 : 1,
	    winner == 1 ? 2 : 1, 0, 0, winner, -1);
}

/* Every double of a table is a number, and the table is consistent. */
static void
finite_table(const struct st_table *t)
{
	const struct st_row	*r;
	int			 i;

	for (i = 0; i < t->nbots; i++) {
		r = &t->row[i];
		assert_true(isfinite(r->joker_rate));
		assert_true(isfinite(r->mpoints_per_deal));
		assert_true(isfinite(r->score));
		assert_true(isfinite(r->elo));
		assert_true(isfinite(r->elo_lo));
		assert_true(isfinite(r->elo_hi));
		assert_true(r->elo_lo <= r->elo && r->elo <= r->elo_hi);
		assert_true(r->score >= 0 && r->score <= 1);
		assert_int_equal(r->played, r->won + r->drawn + r->lost);
		assert_int_equal(r->deals,
		    r->deals_won + r->deals_lost + r->deals_void);
		if (i > 0)
			assert_true(t->row[i - 1].elo > r->elo ||
			    (t->row[i - 1].elo == r->elo &&
			    t->row[i - 1].bot < r->bot));
	}
}

/* The row of bot b. */
static const struct st_row *
rowof(const struct st_table *t, int b)
{
	int	 i;

	for (i = 0; i < t->nbots; i++)
		if (t->row[i].bot == b)
			return &t->row[i];
	fail_msg("no row for bot %d", b);
	return NULL;
}

/*
 * Compare a row's counts with the expected: played won drawn lost,
 * deals won lost void, joker deals won lost, ally deals won lost,
 * faults, then 1000 * joker_rate and 1000 * mpoints_per_deal rounded.
 */
static void
check_row(const struct st_row *r, const int e[17])
{
	assert_int_equal(r->played, e[0]);
	assert_int_equal(r->won, e[1]);
	assert_int_equal(r->drawn, e[2]);
	assert_int_equal(r->lost, e[3]);
	assert_int_equal(r->deals, e[4]);
	assert_int_equal(r->deals_won, e[5]);
	assert_int_equal(r->deals_lost, e[6]);
	assert_int_equal(r->deals_void, e[7]);
	assert_int_equal(r->joker_deals, e[8]);
	assert_int_equal(r->joker_won, e[9]);
	assert_int_equal(r->joker_lost, e[10]);
	assert_int_equal(r->ally_deals, e[11]);
	assert_int_equal(r->ally_won, e[12]);
	assert_int_equal(r->ally_lost, e[13]);
	assert_int_equal(r->faults, e[14]);
	assert_int_equal(lround(1000 * r->joker_rate), e[15]);
	assert_int_equal(lround(1000 * r->mpoints_per_deal), e[16]);
}

/* Pairwise outcomes: ranks, partners, forfeits, and antisymmetry. */
static void
test_pairwise(void **state)
{
	int	 k, a, b, ta;

	(void)state;
	build_hand();
	/* M1: the winner first, then by match points */
	assert_int_equal(st_pairwise(&hand[0], 0, 1, 1), 1);
	assert_int_equal(st_pairwise(&hand[0], 0, 2, 1), 1);
	assert_int_equal(st_pairwise(&hand[0], 1, 2, 1), -1);
	assert_int_equal(st_pairwise(&hand[0], 0, 0, 1), 0);
	assert_int_equal(st_pairwise(&hand[0], 0, 3, 1), 0);
	assert_int_equal(st_pairwise(&hand[0], -1, 0, 1), 0);
	/* the winner ranks first even with fewer match points */
	hand[0].mpoints[1] = 9;
	assert_int_equal(st_pairwise(&hand[0], 0, 1, 1), 1);
	assert_int_equal(st_pairwise(&hand[0], 2, 1, 1), -1);
	hand[0].mpoints[1] = 0;
	/* M3: pair 1 wins; partners are level */
	assert_int_equal(st_pairwise(&hand[2], 1, 0, 1), 1);
	assert_int_equal(st_pairwise(&hand[2], 3, 2, 1), 1);
	assert_int_equal(st_pairwise(&hand[2], 0, 2, 1), 0);
	assert_int_equal(st_pairwise(&hand[2], 1, 3, 0), 0);
	assert_int_equal(st_pairwise(&hand[2], 0, 2, 0), 0);
	/* M4: the forfeit is last; the others by match points */
	assert_int_equal(st_pairwise(&hand[3], 1, 0, 1), -1);
	assert_int_equal(st_pairwise(&hand[3], 1, 2, 1), -1);
	assert_int_equal(st_pairwise(&hand[3], 0, 2, 1), 0);
	hand[3].mpoints[2] = 2;
	assert_int_equal(st_pairwise(&hand[3], 2, 0, 1), 1);
	hand[3].mpoints[2] = 1;
	/* a classic4 forfeit takes the pair down */
	hand[2].forfeit = 1;
	hand[2].winner = -1;
	assert_int_equal(st_pairwise(&hand[2], 3, 0, 1), -1);
	assert_int_equal(st_pairwise(&hand[2], 3, 2, 1), -1);
	assert_int_equal(st_pairwise(&hand[2], 1, 3, 0), 0);
	build_hand();
	/* aborted: nothing */
	assert_int_equal(st_pairwise(&hand[4], 0, 1, 1), 0);
	/* M6: a drawn match, level */
	assert_int_equal(st_pairwise(&hand[5], 0, 1, 1), 0);
	for (k = 0; k < NHAND; k++)
		for (ta = 0; ta < 2; ta++)
			for (a = 0; a < hand[k].nseats; a++)
				for (b = 0; b < hand[k].nseats; b++)
					assert_int_equal(
					    st_pairwise(&hand[k], a, b, ta),
					    -st_pairwise(&hand[k], b, a, ta));
}

/* Match, deal and role counts of the hand-made set, to the unit. */
static void
test_counts(void **state)
{
	/* played W D L, deals W L V, joker W L, ally W L, faults, rates */
	static const int ea[17] = { 4, 1, 1, 2, 10, 4, 4, 2, 2, 2, 0,
	    3, 2, 0, 1, 200, 600 };
	static const int eb[17] = { 3, 2, 0, 1, 9, 4, 3, 2, 1, 0, 1,
	    3, 0, 2, 0, 111, 444 };
	static const int ec[17] = { 4, 0, 2, 2, 8, 2, 4, 2, 1, 0, 0,
	    4, 2, 2, 2, 125, 250 };
	static const int ed[17] = { 3, 1, 1, 1, 4, 2, 1, 1, 1, 0, 1,
	    0, 0, 0, 4, 250, 500 };

	(void)state;
	build_hand();
	assert_int_equal(st_compute(hand, NHAND, 4, SEED, &t1), 0);
	assert_int_equal(t1.nbots, 4);
	assert_int_equal(t1.resamples, 200);
	check_row(rowof(&t1, A), ea);
	check_row(rowof(&t1, B), eb);
	check_row(rowof(&t1, C), ec);
	check_row(rowof(&t1, D), ed);
	finite_table(&t1);
	/* the aborted match alone: nothing at all */
	assert_int_equal(st_compute(&hand[4], 1, 4, SEED, &t1), 0);
	assert_int_equal(t1.resamples, 0);
	assert_int_equal(rowof(&t1, D)->played, 0);
	assert_int_equal(rowof(&t1, D)->faults, 0);
	finite_table(&t1);
}

/* Head-to-head and score of the hand-made set, and antisymmetry. */
static void
test_h2h(void **state)
{
	/* [a][b] = wins, draws, losses of a against b */
	static const int e[4][4][3] = {
		{ { 0, 0, 0 }, { 1, 0, 2 }, { 1, 1, 0 }, { 1, 0, 1 } },
		{ { 2, 0, 1 }, { 0, 0, 0 }, { 1, 0, 1 }, { 0, 0, 0 } },
		{ { 0, 1, 1 }, { 1, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } },
		{ { 1, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 }, { 0, 0, 0 } },
	};
	const struct st_h2h	*h, *g;
	int			 a, b;

	(void)state;
	build_hand();
	assert_int_equal(st_compute(hand, NHAND, 4, SEED, &t1), 0);
	for (a = 0; a < 4; a++)
		for (b = 0; b < 4; b++) {
			h = &t1.h2h[a][b];
			g = &t1.h2h[b][a];
			assert_int_equal(h->wins, e[a][b][0]);
			assert_int_equal(h->draws, e[a][b][1]);
			assert_int_equal(h->losses, e[a][b][2]);
			assert_int_equal(h->wins, g->losses);
			assert_int_equal(h->draws, g->draws);
		}
	assert_float_equal(rowof(&t1, A)->score, 3.5 / 7, 1e-12);
	assert_float_equal(rowof(&t1, B)->score, 3.0 / 5, 1e-12);
	assert_float_equal(rowof(&t1, C)->score, 3.0 / 7, 1e-12);
	assert_float_equal(rowof(&t1, D)->score, 2.5 / 5, 1e-12);
}

/* A bot in two seats plays both, but never against itself. */
static void
test_bot_twice(void **state)
{
	struct st_match	 m[2];

	(void)state;
	m[0] = mkmatch(BRI_JOKER3, A, A, B, -1, 10, 4, 2, 0, 0, -1);
	m[1] = mkmatch(BRI_JOKER3, B, A, A, -1, 10, 4, 2, 0, 0, -1);
	assert_int_equal(st_compute(m, 2, 2, SEED, &t1), 0);
	assert_int_equal(rowof(&t1, A)->played, 4);
	assert_int_equal(rowof(&t1, A)->won, 1);
	assert_int_equal(rowof(&t1, A)->lost, 3);
	assert_int_equal(t1.h2h[A][A].wins + t1.h2h[A][A].draws +
	    t1.h2h[A][A].losses, 0);
	assert_int_equal(t1.h2h[A][B].wins, 2);
	assert_int_equal(t1.h2h[A][B].losses, 2);
	assert_float_equal(rowof(&t1, A)->score, 0.5, 1e-12);
	assert_float_equal(rowof(&t1, A)->elo, rowof(&t1, B)->elo, 1e-9);
	finite_table(&t1);
}

/*
 * A match the deal cap ended drawn: its leaders draw, the others lose,
 * and a lone leader below the target draws too, as nobody won.
 */
static void
test_drawn_match(void **state)
{
	struct st_match	 m[2];

	(void)state;
	m[0] = mkmatch(BRI_CLASSIC3, A, B, C, -1, 1, 1, 0, 0, -1, -1);
	m[1] = mkmatch(BRI_CLASSIC2, A, C, -1, -1, 1, 0, 0, 0, -1, -1);
	assert_int_equal(st_compute(m, 2, 3, SEED, &t1), 0);
	assert_int_equal(rowof(&t1, A)->drawn, 2);
	assert_int_equal(rowof(&t1, B)->drawn, 1);
	assert_int_equal(rowof(&t1, C)->lost, 2);
	assert_int_equal(rowof(&t1, A)->won + rowof(&t1, B)->won +
	    rowof(&t1, C)->won + rowof(&t1, C)->drawn, 0);
	assert_int_equal(t1.h2h[A][B].draws, 1);
	assert_int_equal(t1.h2h[A][C].wins, 2);
	assert_int_equal(t1.h2h[B][C].wins, 1);
	finite_table(&t1);
}

/* Records that cannot be counted are refused, and the table zeroed. */
static void
test_invalid(void **state)
{
	struct st_match	 m;

	(void)state;
	build_hand();
	assert_int_equal(st_compute(hand, NHAND, 3, SEED, &t1), -1);
	assert_int_equal(t1.nbots, 0);
	assert_int_equal(st_compute(hand, NHAND, ST_MAXBOTS + 1, SEED, &t1),
	    -1);
	assert_int_equal(st_compute(hand, -1, 4, SEED, &t1), -1);
	assert_int_equal(st_compute(NULL, 1, 4, SEED, &t1), -1);
	assert_int_equal(st_compute(NULL, 0, 4, SEED, &t1), 0);
	m = hand[2];
	m.winner = 2;		/* classic4 has pairs 0 and 1 */
	assert_int_equal(st_compute(&m, 1, 4, SEED, &t1), -1);
	m = hand[0];
	m.nseats = 4;
	assert_int_equal(st_compute(&m, 1, 4, SEED, &t1), -1);
	m = hand[0];
	m.forfeit = 3;
	assert_int_equal(st_compute(&m, 1, 4, SEED, &t1), -1);
}

/*
 * The ratings of the hand-made set are the maximum of the documented
 * likelihood: with strengths c 10^(elo/400), the one free scale c fitted
 * to bot A's equation by bisection, every bot's points (one virtual draw
 * with a bot of strength 1 included) equal their expectation.
 */
static void
test_fit_optimum(void **state)
{
	double	 g[4], lo = -50, hi = 50, mid = 0, f, sum;
	int	 i, j, it, n;

	(void)state;
	build_hand();
	assert_int_equal(st_compute(hand, NHAND, 4, SEED, &t1), 0);
	for (it = 0; it < 200; it++) {
		mid = (lo + hi) / 2;
		for (i = 0; i < 4; i++)
			g[i] = exp(mid) * pow(10, rowof(&t1, i)->elo / 400);
		f = -0.5 + g[0] / (g[0] + 1);
		for (j = 1; j < 4; j++) {
			n = t1.h2h[0][j].wins + t1.h2h[0][j].draws +
			    t1.h2h[0][j].losses;
			f += n * g[0] / (g[0] + g[j]) - t1.h2h[0][j].wins -
			    0.5 * t1.h2h[0][j].draws;
		}
		if (f > 0)
			hi = mid;
		else
			lo = mid;
	}
	for (i = 0; i < 4; i++) {
		sum = g[i] / (g[i] + 1) - 0.5;
		for (j = 0; j < 4; j++) {
			n = t1.h2h[i][j].wins + t1.h2h[i][j].draws +
			    t1.h2h[i][j].losses;
			if (n > 0)
				sum += n * g[i] / (g[i] + g[j]) -
				    t1.h2h[i][j].wins -
				    0.5 * t1.h2h[i][j].draws;
		}
		assert_float_equal(sum, 0, 1e-7);
	}
	/* B, with the best score, rates first */
	assert_int_equal(t1.row[0].bot, B);
}

/* A bot that wins everything rates clearly first, and stays finite. */
static void
test_dominant(void **state)
{
	double	 sum = 0;
	int	 k, i;

	(void)state;
	for (k = 0; k < 30; k++)
		gen[k] = mkmatch(BRI_JOKER3, (k + 0) % 3, (k + 1) % 3,
		    (k + 2) % 3, -1, 0, 0, 0, 0, -1, -1);
	for (k = 0; k < 30; k++) {
		for (i = 0; i < 3; i++)
			if (gen[k].bot[i] == 0)
				gen[k].winner = i;
		gen[k].mpoints[gen[k].winner] = 10;
		gen[k].mpoints[(gen[k].winner + 1 + k % 2) % 3] = 6;
	}
	assert_int_equal(st_compute(gen, 30, 3, SEED, &t1), 0);
	finite_table(&t1);
	assert_int_equal(t1.row[0].bot, 0);
	assert_int_equal(rowof(&t1, 0)->won, 30);
	assert_float_equal(rowof(&t1, 0)->score, 1.0, 0);
	assert_true(t1.row[0].elo > 200);
	assert_true(t1.row[0].elo_lo > t1.row[1].elo_hi);
	assert_true(t1.row[0].elo_lo > t1.row[2].elo_hi);
	for (i = 0; i < 3; i++)
		sum += t1.row[i].elo;
	assert_float_equal(sum, 0, 1e-9);
}

/* Two bots with mirrored records rate equal, with mirrored intervals. */
static void
test_symmetry(void **state)
{
	const struct st_row	*a, *b;
	int			 k;

	(void)state;
	for (k = 0; k < 12; k++)
		gen[k] = duel(k % 4 < 2 ? A : B, k % 4 < 2 ? B : A,
		    k % 2 == 0 ? 0 : 1);
	assert_int_equal(st_compute(gen, 12, 2, SEED, &t1), 0);
	finite_table(&t1);
	a = rowof(&t1, A);
	b = rowof(&t1, B);
	assert_true(a->elo == b->elo);
	assert_float_equal(a->elo, 0, 1e-9);
	assert_float_equal(a->elo_lo, -b->elo_hi, 1e-9);
	assert_float_equal(a->elo_hi, -b->elo_lo, 1e-9);
	assert_true(a->elo_hi - a->elo_lo > 10);
	assert_int_equal(t1.row[0].bot, A);	/* a tie: lower index */
}

/* The interval holds the estimate and narrows as matches are added. */
static void
test_ci_narrows(void **state)
{
	const struct st_row	*r;
	double			 w[3];
	int			 k, n, i;
	static const int	 sizes[3] = { 10, 40, 160 };

	(void)state;
	for (k = 0; k < 160; k++)	/* A wins 7 in 10 */
		gen[k] = duel(k % 2 ? A : B, k % 2 ? B : A,
		    k % 10 < 7 ? (k % 2 ? 0 : 1) : (k % 2 ? 1 : 0));
	for (i = 0; i < 3; i++) {
		n = sizes[i];
		assert_int_equal(st_compute(gen, n, 2, SEED, &t1), 0);
		finite_table(&t1);
		r = rowof(&t1, A);
		assert_int_equal(r->won, 7 * n / 10);
		assert_true(r->elo > 0);
		assert_true(r->elo_lo < r->elo && r->elo < r->elo_hi);
		w[i] = r->elo_hi - r->elo_lo;
	}
	assert_true(w[1] < w[0]);
	assert_true(w[2] < w[1]);
	assert_true(rowof(&t1, A)->elo_lo > 0);	/* 112-48 is clear */
}

/* Same input, same seed: the same bits; another seed: only the CI. */
static void
test_determinism(void **state)
{
	int	 k, i, differ = 0;

	(void)state;
	for (k = 0; k < 60; k++) {
		gen[k] = mkmatch(BRI_JOKER3, k % 5, (k + 1 + k / 5 % 4) % 5,
		    (k + 3) % 5, -1, 0, 0, 0, 0, -1, -1);
		if (gen[k].bot[1] == gen[k].bot[2])
			gen[k].bot[2] = (gen[k].bot[2] + 1) % 5;
		gen[k].winner = (k * 7 + k / 3) % 3;
		gen[k].mpoints[gen[k].winner] = 10;
		gen[k].mpoints[(gen[k].winner + 1) % 3] = k % 9;
		gen[k].mpoints[(gen[k].winner + 2) % 3] = k % 7;
	}
	assert_int_equal(st_compute(gen, 60, 5, SEED, &t1), 0);
	assert_int_equal(st_compute(gen, 60, 5, SEED, &t2), 0);
	assert_memory_equal(&t1, &t2, sizeof(t1));
	finite_table(&t1);

	assert_int_equal(st_compute(gen, 60, 5, SEED + 1, &t2), 0);
	assert_memory_equal(t1.h2h, t2.h2h, sizeof(t1.h2h));
	assert_int_equal(t1.resamples, t2.resamples);
	for (i = 0; i < 5; i++) {
		differ += t1.row[i].elo_lo != t2.row[i].elo_lo ||
		    t1.row[i].elo_hi != t2.row[i].elo_hi;
		t2.row[i].elo_lo = t1.row[i].elo_lo;
		t2.row[i].elo_hi = t1.row[i].elo_hi;
	}
	assert_true(differ > 0);
	assert_memory_equal(&t1, &t2, sizeof(t1));
}

/* No NaN with nothing, one match, or nothing but draws. */
static void
test_degenerate(void **state)
{
	int	 k, i;

	(void)state;
	assert_int_equal(st_compute(NULL, 0, 0, SEED, &t1), 0);
	assert_int_equal(t1.nbots, 0);
	assert_int_equal(st_compute(NULL, 0, 3, SEED, &t1), 0);
	finite_table(&t1);
	for (i = 0; i < 3; i++) {
		assert_float_equal(t1.row[i].elo, 0, 0);
		assert_int_equal(t1.row[i].bot, i);
	}
	assert_int_equal(t1.resamples, 0);

	gen[0] = duel(A, B, 0);
	assert_int_equal(st_compute(gen, 1, 2, SEED, &t1), 0);
	finite_table(&t1);
	assert_int_equal(t1.row[0].bot, A);
	assert_true(t1.row[0].elo > 0);
	/* one match resampled is itself: the interval is the point */
	assert_float_equal(t1.row[0].elo_lo, t1.row[0].elo, 1e-9);
	assert_float_equal(t1.row[0].elo_hi, t1.row[0].elo, 1e-9);

	for (k = 0; k < 20; k++)
		gen[k] = duel(k % 3, (k + 1) % 3, -1);
	assert_int_equal(st_compute(gen, 20, 3, SEED, &t1), 0);
	finite_table(&t1);
	for (i = 0; i < 3; i++) {
		assert_int_equal(t1.row[i].drawn, t1.row[i].played);
		assert_float_equal(t1.row[i].score, 0.5, 0);
		assert_float_equal(t1.row[i].elo, 0, 1e-6);
	}
}

/*
 * chiamata5's roles, worked on paper: five bots in seats 0..4.
 * Deal 1: seat 0 calls, seat 2 holds the card, their side wins
 * (+2, -1, +1, -1, -1).  Deal 2: seat 1 calls alone and loses (+1, -4,
 * +1, +1, +1).  Deal 3: five passes, void.  Deal 4: seat 3 calls, seat 4
 * holds the card, 60: drawn.
 */
static void
test_chiamata_roles(void **state)
{
	static struct st_deal	 dl[4];
	static const int	 caller[4] = { 0, 1, -1, 3 };
	static const int	 partner[4] = { 2, 1, -1, 4 };
	static const int	 result[4] = { BRI_DEAL_CALLER, BRI_DEAL_OTHERS,
				    BRI_DEAL_VOID, BRI_DEAL_DRAWN };
	static const int	 mp[4][5] = { { 2, -1, 1, -1, -1 },
				    { 1, -4, 1, 1, 1 }, { 0 }, { 0 } };
	const struct st_row	*r;
	struct st_match		 m;
	int			 k, i;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.variant = BRI_CHIAMATA5;
	m.nseats = 5;
	for (i = 0; i < 5; i++) {
		m.bot[i] = i;
		for (k = 0; k < 4; k++)
			m.mpoints[i] += mp[k][i];
	}
	m.winner = 0;		/* 3 points */
	m.forfeit = -1;
	for (k = 0; k < 4; k++) {
		dl[k].result = result[k];
		dl[k].winner = -1;
		dl[k].joker = -1;
		dl[k].caller = caller[k];
		dl[k].partner = partner[k];
		memcpy(dl[k].mpoints, mp[k], sizeof(mp[k]));
	}
	m.ndeals = 4;
	m.deals = dl;
	assert_int_equal(st_compute(&m, 1, 5, SEED, &t1), 0);
	r = rowof(&t1, 0);	/* caller won, defender won */
	assert_int_equal(r->caller_deals, 1);
	assert_int_equal(r->caller_won, 1);
	assert_int_equal(r->defender_deals, 2);
	assert_int_equal(r->defender_won, 1);
	assert_int_equal(r->defender_lost, 0);
	r = rowof(&t1, 1);	/* defender lost, alone lost, defender drawn */
	assert_int_equal(r->alone_deals, 1);
	assert_int_equal(r->alone_lost, 1);
	assert_int_equal(r->caller_deals, 0);
	assert_int_equal(r->defender_deals, 2);
	assert_int_equal(r->defender_lost, 1);
	r = rowof(&t1, 2);	/* partner won, defender won, defender drawn */
	assert_int_equal(r->partner_deals, 1);
	assert_int_equal(r->partner_won, 1);
	assert_int_equal(r->defender_deals, 2);
	assert_int_equal(r->defender_won, 1);
	r = rowof(&t1, 3);	/* defender lost, won; caller drawn */
	assert_int_equal(r->caller_deals, 1);
	assert_int_equal(r->caller_won + r->caller_lost, 0);
	assert_int_equal(r->defender_deals, 2);
	r = rowof(&t1, 4);	/* the drawn deal's partner */
	assert_int_equal(r->partner_deals, 1);
	assert_int_equal(r->partner_won + r->partner_lost, 0);
	for (i = 0; i < 5; i++) {
		r = rowof(&t1, i);
		/* every played deal in one role; the void one in none */
		assert_int_equal(r->caller_deals + r->partner_deals +
		    r->alone_deals + r->defender_deals, 3);
		assert_int_equal(r->deals_void, 2);
	}
	/* a caller without a holder is no record refd writes */
	dl[0].partner = -1;
	assert_int_equal(st_compute(&m, 1, 5, SEED, &t1), -1);
	dl[0].partner = 5;
	assert_int_equal(st_compute(&m, 1, 5, SEED, &t1), -1);
}

/* Run the SPRT of cand against base on gen[0..n-1], elo0/elo1, 5%/5%. */
static void
sprt_run(int n, int cand, int base, double elo0, double elo1,
    struct st_sprt *s)
{
	memset(s, 0, sizeof(*s));
	s->elo0 = elo0;
	s->elo1 = elo1;
	s->alpha = 0.05;
	s->beta = 0.05;
	st_sprt(gen, n, NULL, cand, base, s);
	assert_false(isnan(s->llr));
	assert_int_equal(s->valid, 1);
	assert_float_equal(s->lower, log(0.05 / 0.95), 1e-12);
	assert_float_equal(s->upper, log(0.95 / 0.05), 1e-12);
}

/*
 * Winning every game reaches H1, losing every game H0, exactly when the
 * binomial SPRT says: with only wins the most likely distribution of
 * mean s is P(win) = s, P(loss) = 1 - s, so after k wins LLR = k
 * ln(s1/s0) and after k losses k ln((1 - s1)/(1 - s0)).  With 0/50 Elo,
 * s1 = 0.571463: H1 after ceil(ln 19 / 0.133582) = 23 wins, H0 after
 * ceil(ln 19 / 0.154210) = 20 losses.  One win (the 0.001 trick gave
 * LLR 5.69 there) is worth ln(s1/s0) = 0.133582, far from a bound.
 */
static void
test_sprt_decides(void **state)
{
	struct st_sprt	 s;
	double		 s1 = 1 / (1 + pow(10, -50.0 / 400));
	int		 k, first = 0;

	(void)state;
	for (k = 0; k < 100; k++)
		gen[k] = duel(k % 2 ? A : B, k % 2 ? B : A, k % 2 ? 0 : 1);
	for (k = 1; k <= 100 && first == 0; k++) {
		sprt_run(k, A, B, 0, 50, &s);
		assert_int_equal(s.wins, k);
		assert_int_equal(s.units, k);
		assert_float_equal(s.llr, k * log(2 * s1), 1e-9);
		assert_int_equal(s.decided, s.llr >= s.upper);
		if (s.decided != 0)
			first = k;
	}
	assert_int_equal(first, 23);
	assert_int_equal(s.decided, 1);

	for (k = 1, first = 0; k <= 100 && first == 0; k++) {
		sprt_run(k, B, A, 0, 50, &s);
		assert_int_equal(s.losses, k);
		assert_float_equal(s.llr, k * log(2 * (1 - s1)), 1e-9);
		assert_int_equal(s.decided, -(s.llr <= s.lower));
		if (s.decided != 0)
			first = k;
	}
	assert_int_equal(first, 20);
	assert_int_equal(s.decided, -1);

	/* 0/10: even 20 straight wins cannot decide (20 x 0.028368) */
	sprt_run(20, A, B, 0, 10, &s);
	assert_int_equal(s.decided, 0);
	assert_float_equal(s.llr, 20 * 0.028368160050, 1e-9);
}

/* An even candidate stays undecided for a small number of games. */
static void
test_sprt_even(void **state)
{
	static const int pattern[4] = { 0, 1, -1, -1 };	/* W L D D */
	struct st_sprt	 s;
	int		 k;

	(void)state;
	for (k = 0; k < 40; k++)
		gen[k] = duel(A, B, pattern[k % 4]);
	for (k = 1; k <= 40; k++) {
		sprt_run(k, A, B, 0, 5, &s);
		assert_int_equal(s.decided, 0);
		assert_true(s.llr > s.lower && s.llr < s.upper);
		if (k % 4 == 0)		/* a score of 1/2 favours H0 */
			assert_true(s.llr <= 0);
	}
	assert_int_equal(s.wins + s.draws + s.losses, 40);
	assert_int_equal(s.draws, 20);
}

/*
 * The LLR against values computed independently of refd's method: the
 * constrained maximum likelihood found by golden-section search over the
 * free probabilities (one for the trinomial, three for the
 * pentanomial), with no Lagrange multiplier, in Python:
 *	trinomial, P(D) = 2 (s - P(W)), P(L) = 1 - 2 s + P(W):
 *	  W D L = 30 10 20, 0/10 Elo:	0.315742177195
 *	  W D L = 12  0  2, -10/20 Elo:	0.846084555506
 *	  W D L =  0  5  0, 0/10 Elo:	-0.145982336374
 *	pentanomial LL LD LW+DD DW WW = 1 3 8 5 3, 0/10 Elo: 0.2629848623
 * (fishtest's LLR_logistic gives the same wherever no count is 0.)
 */
static void
test_sprt_published(void **state)
{
	static const int tri[][5] = {	/* W, D, L, elo0, elo1 */
		{ 30, 10, 20, 0, 10 }, { 12, 0, 2, -10, 20 },
		{ 0, 5, 0, 0, 10 },
	};
	static const double want[] = { 0.315742177195, 0.846084555506,
	    -0.145982336374 };
	/* the pairs of each pentanomial class: -1 draw, else the winner */
	static const int pair[5][2] = { { 1, 1 }, { 1, -1 }, { 1, 0 },
	    { -1, 0 }, { 0, 0 } };
	static const int penta[5] = { 1, 3, 8, 5, 3 };
	int		 unit[MAXGEN];
	struct st_sprt	 s;
	int		 c, k, n, i;

	(void)state;
	for (c = 0; c < 3; c++) {
		n = 0;
		for (k = 0; k < tri[c][0]; k++)
			gen[n++] = duel(A, B, 0);
		for (k = 0; k < tri[c][1]; k++)
			gen[n++] = duel(B, A, -1);
		for (k = 0; k < tri[c][2]; k++)
			gen[n++] = duel(B, A, 0);
		sprt_run(n, A, B, tri[c][3], tri[c][4], &s);
		assert_float_equal(s.llr, want[c], 1e-9);
		assert_int_equal(s.wins, tri[c][0]);
		assert_int_equal(s.draws, tri[c][1]);
		assert_int_equal(s.losses, tri[c][2]);
	}
	/* 20 game pairs, A against B, each pair one observation */
	n = 0;
	for (c = 0; c < 5; c++)
		for (k = 0; k < penta[c]; k++)
			for (i = 0; i < 2; i++) {
				unit[n] = n / 2;
				gen[n++] = i == 0 ? duel(A, B, pair[c][0]) :
				    duel(B, A, pair[c][1] < 0 ? -1 :
				    1 - pair[c][1]);
			}
	memset(&s, 0, sizeof(s));
	s.elo1 = 10;
	s.alpha = s.beta = 0.05;
	st_sprt(gen, n, unit, A, B, &s);
	assert_int_equal(s.units, 20);
	assert_int_equal(s.wins + s.draws + s.losses, 40);
	assert_float_equal(s.llr, 0.2629848623, 1e-8);
	/* the same games one by one are another, trinomial, test */
	st_sprt(gen, n, NULL, A, B, &s);
	assert_int_equal(s.units, 40);
	assert_true(fabs(s.llr - 0.2629848623) > 1e-3);
}

/*
 * The test reads observations in order and stops at the first that
 * reaches a bound: what comes after changes nothing.  A duplicate set
 * whose games cancel (a win and a loss) is one observation of score 1/2.
 */
static void
test_sprt_order(void **state)
{
	int		 unit[MAXGEN];
	struct st_sprt	 s;
	int		 k;

	(void)state;
	for (k = 0; k < 23; k++)
		gen[k] = duel(A, B, 0);
	for (; k < 200; k++)
		gen[k] = duel(A, B, 1);
	sprt_run(200, A, B, 0, 50, &s);
	assert_int_equal(s.decided, 1);
	assert_int_equal(s.units, 23);
	assert_int_equal(s.losses, 0);

	/* twin bots whose sets always cancel: never H1, in time H0 */
	for (k = 0; k < 240; k++) {
		gen[k] = duel(A, B, k % 2);
		unit[k] = k / 2;
	}
	memset(&s, 0, sizeof(s));
	s.elo1 = 10;
	s.alpha = s.beta = 0.05;
	st_sprt(gen, 40, unit, A, B, &s);
	assert_int_equal(s.units, 20);
	assert_int_equal(s.decided, 0);
	/* every set at 1/2: LLR = n ln(P1(1/2)), P1(1/2) = 2 (1 - s1) */
	assert_float_equal(s.llr, 20 * log(2 * (1 - 1 / (1 + pow(10,
	    -10.0 / 400)))), 1e-9);
	st_sprt(gen, 240, unit, A, B, &s);	/* -0.0292 a set */
	assert_int_equal(s.decided, -1);
	assert_int_equal(s.units, 101);
}

/*
 * The average number of observations to a decision is Wald's: about
 * (P(H1) upper + P(H0) lower) / E[LLR step], the expected step being the
 * drift of the LLR under the true distribution (computed here from a
 * very large sample of that distribution).  A candidate 107.5 Elo
 * stronger (win 0.55, draw 0.2, loss 0.25: score 0.65) tested with 0/50
 * Elo; 2000 runs from a fixed generator.  Wald's figure neglects the
 * overshoot past the bound, so the runs take somewhat longer.  A twin
 * (0.4, 0.2, 0.4) under 0/50 must accept H1 rarely: at most alpha.
 */
static void
test_sprt_asn(void **state)
{
	struct st_sprt	 s, big;
	uint64_t	 x = 42;
	double		 drift, theory, mean;
	long		 total = 0;
	int		 run, h1 = 0, wrong = 0, u;
	struct st_match	 w, d, l;

	(void)state;
	w = duel(A, B, 0);
	d = duel(A, B, -1);
	l = duel(A, B, 1);
	memset(&big, 0, sizeof(big));
	big.elo1 = 50;
	big.alpha = big.beta = 0.05;
	st_sprt_begin(&big);
	big.ncat = 3;
	big.cat[0] = 1, big.catn[0] = 550000;
	big.cat[1] = 0.5, big.catn[1] = 200000;
	big.cat[2] = 0, big.catn[2] = 250000;
	drift = st_sprt_llr(&big) / 1e6;
	for (run = 0; run < 4000; run++) {
		memset(&s, 0, sizeof(s));
		s.elo1 = 50;
		s.alpha = s.beta = 0.05;
		st_sprt_begin(&s);
		for (u = 0; u < 100000 && s.decided == 0; u++) {
			double r;

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			r = (double)(x >> 11) / 9007199254740992.0;
			if (run < 2000)
				st_sprt_add(&s, r < 0.55 ? &w : r < 0.75 ? &d :
				    &l, 1, A, B);
			else
				st_sprt_add(&s, r < 0.4 ? &w : r < 0.6 ? &d :
				    &l, 1, A, B);
		}
		if (run < 2000) {
			total += s.units;
			h1 += s.decided > 0;
		} else
			wrong += s.decided > 0;
	}
	mean = total / 2000.0;
	theory = (h1 / 2000.0 * big.upper + (1 - h1 / 2000.0) * big.lower) /
	    drift;
	print_message("ASN: %.2f observations, Wald %.2f; H1 %d/2000; "
	    "twin H1 %d/2000\n", mean, theory, h1, wrong);
	assert_true(h1 >= 1900);
	assert_true(mean >= 0.95 * theory && mean <= 1.35 * theory);
	assert_true(wrong <= 0.05 * 2000);
}

/* No games, bad parameters, the bot against itself: nothing decided. */
static void
test_sprt_edges(void **state)
{
	static const double bad[][4] = {	/* elo0, elo1, alpha, beta */
		{ 0, 5, 0, 0.05 }, { 0, 5, 0.5, 0.05 }, { 0, 5, 0.05, 0.5 },
		{ 5, 5, 0.05, 0.05 }, { 10, 5, 0.05, 0.05 },
		{ 0, NAN, 0.05, 0.05 }, { NAN, 5, 0.05, 0.05 },
		{ 0, 2000, 0.05, 0.05 }, { 0, 5, 0.6, 0.3 },
	};
	struct st_sprt	 s;
	size_t		 i;

	(void)state;
	sprt_run(0, A, B, 0, 5, &s);
	assert_int_equal(s.wins + s.draws + s.losses, 0);
	assert_float_equal(s.llr, 0, 0);
	assert_int_equal(s.decided, 0);

	gen[0] = duel(A, B, 0);
	sprt_run(1, A, A, 0, 5, &s);
	assert_int_equal(s.wins + s.draws + s.losses, 0);
	assert_int_equal(s.decided, 0);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(st_sprt_valid(bad[i][0], bad[i][1], bad[i][2],
		    bad[i][3]));
		memset(&s, 0, sizeof(s));
		s.elo0 = bad[i][0];
		s.elo1 = bad[i][1];
		s.alpha = bad[i][2];
		s.beta = bad[i][3];
		st_sprt(gen, 1, NULL, A, B, &s);
		assert_int_equal(s.valid, 0);
		assert_int_equal(s.wins, 1);
		assert_float_equal(s.llr, 0, 0);
		assert_float_equal(s.upper, 0, 0);
		assert_int_equal(s.decided, 0);
	}
	assert_true(st_sprt_valid(-1000, 1000, 0.49, 1e-6));

	build_hand();		/* an aborted match counts nowhere */
	memset(&s, 0, sizeof(s));
	s.elo1 = 5;
	s.alpha = s.beta = 0.05;
	st_sprt(&hand[4], 1, NULL, D, D, &s);
	st_sprt(&hand[4], 1, NULL, D, 99, &s);
	assert_int_equal(s.wins + s.draws + s.losses, 0);
	st_sprt(hand, NHAND, NULL, C, D, &s);	/* the h2h of C against D */
	assert_int_equal(s.wins, 1);
	assert_int_equal(s.draws, 1);
	assert_int_equal(s.losses, 1);
}

/* Deals for the role-aware tests: many matches, few deals each. */
#define TDEALS	8
static struct st_deal	 tdeal[MAXGEN][TDEALS];

/*
 * joker3 with strengths 4, 1 and 1/4 (Elo +240.8, 0, -240.8 before
 * centring) and a Joker role worth 1/2 (-120.4 Elo): 360 matches, each
 * bot Joker in 120, holding the expected counts of each comparison.
 * The fit finds them back: the likelihood's maximum for exact expected
 * counts is the truth, but for the small prior.
 */
static void
test_teams_recover(void **state)
{
	static const double gam[3] = { 4, 1, 0.25 };
	double		 theta = 0.5, pj, want[3], mean = 0;
	int		 k, j, d, wins, s, i;
	const struct st_row *r;

	(void)state;
	for (k = 0; k < 360; k++) {
		j = k % 3;		/* the Joker's seat and bot */
		gen[k] = mkmatch(BRI_JOKER3, A, B, C, -1, 0, 0, 0, 0, -1, -1);
		pj = theta * gam[j] / (theta * gam[j] + gam[(j + 1) % 3] +
		    gam[(j + 2) % 3]);
		/* of every 120 x 8 deals, 960 pj Joker wins, spread out */
		for (d = 0; d < TDEALS; d++) {
			wins = (k / 3) * TDEALS + d;
			s = floor((wins + 1) * pj) > floor(wins * pj) ?
			    BRI_DEAL_JOKER : BRI_DEAL_ALLIES;
			tdeal[k][d] = mkdeal(s, -1, j, 0, 0, 0, 0);
		}
		gen[k].deals = tdeal[k];
		gen[k].ndeals = TDEALS;
	}
	assert_int_equal(st_compute(gen, 360, 3, SEED, &t1), 0);
	assert_int_equal(st_teams(gen, 360, NULL, 3, SEED, &t1), 0);
	assert_int_equal(t1.tdeals, 360 * TDEALS);
	for (i = 0; i < 3; i++)
		mean += (want[i] = 400 * log10(gam[i])) / 3;
	for (i = 0; i < 3; i++) {
		r = rowof(&t1, i);
		assert_float_equal(r->telo, want[i] - mean, 3.0);
		print_message("bot %d: %.1f [%.1f, %.1f], truth %.1f\n", i,
		    r->telo, r->telo_lo, r->telo_hi, want[i] - mean);
		assert_true(r->telo_lo <= want[i] - mean &&
		    want[i] - mean <= r->telo_hi);
		assert_true(r->telo_hi - r->telo_lo < 150);
	}
	assert_float_equal(t1.joker, 400 * log10(theta), 3.0);
	assert_true(t1.joker_lo < t1.joker && t1.joker < t1.joker_hi);
}

/*
 * classic4 where three bots are equal (strength 1) and S is nine times
 * stronger, so that S's side wins 10/12 of the deals, the counts exact
 * and spread out; but S partners W1 in 8 matches of 10.  The
 * match-level rating credits W1 with S's wins; the role-aware one sees
 * that W1's record is S's and rates W1, W2 and W3 alike.  (Bot
 * indices: S = A, W1 = B, W2 = C, W3 = D.)
 */
static void
test_teams_partner(void **state)
{
	int		 k, d, p, q, o1, o2, sw, idx, win, ws;
	const struct st_row *w1, *w2, *w3;

	(void)state;
	for (k = 0, idx = 0; k < 200; k++) {
		p = k % 10 < 8 ? B : k % 10 == 8 ? C : D;	/* S's partner */
		q = p == B ? C : B;
		o1 = q;
		o2 = B + C + D - p - q;
		ws = k % 2;		/* S's team: seats 0+2 or 1+3 */
		for (d = sw = 0; d < 6; d++, idx++) {
			win = (idx + 1) * 10 / 12 > idx * 10 / 12;
			sw += win;
			tdeal[k][d] = mkdeal(BRI_DEAL_WON, win ? ws : 1 - ws,
			    -1, 0, 0, 0, 0);
		}
		/* the match: the side with more deals, else drawn */
		win = sw > 3 ? ws : sw < 3 ? 1 - ws : -1;
		if (ws == 0)
			gen[k] = mkmatch(BRI_CLASSIC4, A, o1, p, o2, sw, 6 - sw,
			    sw, 6 - sw, win, -1);
		else
			gen[k] = mkmatch(BRI_CLASSIC4, o1, A, o2, p, 6 - sw, sw,
			    6 - sw, sw, win, -1);
		gen[k].deals = tdeal[k];
		gen[k].ndeals = 6;
	}
	assert_int_equal(st_compute(gen, 200, 4, SEED, &t1), 0);
	assert_int_equal(st_teams(gen, 200, NULL, 4, SEED, &t1), 0);
	w1 = rowof(&t1, B);
	w2 = rowof(&t1, C);
	w3 = rowof(&t1, D);
	print_message("partner: elo W1 %.1f W2 %.1f; role-aware W1 %.1f "
	    "W2 %.1f W3 %.1f S %.1f\n", w1->elo, w2->elo, w1->telo, w2->telo,
	    w3->telo, rowof(&t1, A)->telo);
	assert_true(w1->elo - w2->elo > 100);	/* the pairwise view */
	assert_true(fabs(w1->telo - w2->telo) < 30);
	assert_true(fabs(w2->telo - w3->telo) < 30);
	/* S: 400 log10 9 = 381.7 above the others */
	assert_float_equal(rowof(&t1, A)->telo - w2->telo, 381.7, 40);
	assert_float_equal(t1.joker, 0, 0);	/* no Joker in classic4 */
}

/*
 * classic6 is played by two teams of three, seats 0, 2, 4 against 1, 3,
 * 5: a match won by team 1 is won by the three bots of seats 1, 3 and 5,
 * and lost by the others; teammates are never compared; and each deal
 * is one comparison of team against team in the role-aware rating.
 */
static void
test_classic6_teams(void **state)
{
	static struct st_deal	 dl[2];
	const struct st_row	*r;
	struct st_match		 m;
	int			 i, k;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.variant = BRI_CLASSIC6;
	m.nseats = 6;
	for (i = 0; i < 6; i++) {
		m.bot[i] = i;
		m.mpoints[i] = i % 2 ? 2 : 0;
	}
	m.winner = 1;
	m.forfeit = -1;
	for (i = 0; i < 2; i++) {
		memset(&dl[i], 0, sizeof(dl[i]));
		dl[i].result = BRI_DEAL_WON;
		dl[i].winner = 1;
		dl[i].joker = -1;
		dl[i].caller = dl[i].partner = -1;
		for (k = 1; k < 6; k += 2)
			dl[i].mpoints[k] = 1;
	}
	m.deals = dl;
	m.ndeals = 2;
	assert_int_equal(st_compute(&m, 1, 6, SEED, &t1), 0);
	for (i = 0; i < 6; i++) {
		r = rowof(&t1, i);
		assert_int_equal(r->played, 1);
		assert_int_equal(r->won, i % 2);
		assert_int_equal(r->lost, 1 - i % 2);
		assert_int_equal(r->deals_won, i % 2 ? 2 : 0);
	}
	/* teammates share their result: no head-to-head between them */
	assert_int_equal(t1.h2h[1][3].wins + t1.h2h[1][3].draws +
	    t1.h2h[1][3].losses, 0);
	assert_int_equal(t1.h2h[1][0].wins, 1);
	assert_int_equal(st_teams(&m, 1, NULL, 6, SEED, &t1), 0);
	assert_int_equal(t1.tdeals, 2);
	assert_true(rowof(&t1, 5)->telo > rowof(&t1, 4)->telo);
}

/* Units resampled whole; equal records give equal numbers. */
static void
test_teams_units(void **state)
{
	int		 unit[MAXGEN], k;
	struct st_match	 one[1];

	(void)state;
	test_teams_recover(state);
	for (k = 0; k < 360; k++)
		unit[k] = k / 6;
	assert_int_equal(st_compute(gen, 360, 3, SEED, &t2), 0);
	assert_int_equal(st_teams(gen, 360, unit, 3, SEED, &t2), 0);
	assert_int_equal(t2.tresamples, 100);
	/* the same fit, another interval */
	for (k = 0; k < 3; k++) {
		assert_float_equal(t2.row[k].telo, t1.row[k].telo, 1e-9);
		assert_true(t2.row[k].telo_lo <= t2.row[k].telo);
	}
	assert_int_equal(st_teams(gen, 360, unit, 3, SEED, &t1), 0);
	assert_memory_equal(&t1, &t2, sizeof(t1));	/* deterministic */
	/* bad input */
	assert_int_equal(st_teams(gen, 360, NULL, 2, SEED, &t1), -1);
	memset(one, 0, sizeof(one));
	one[0].variant = 99;
	t2.nbots = 3;
	assert_int_equal(st_teams(one, 1, NULL, 3, SEED, &t2), -1);
}

/*
 * A cluster's time report: two matches' thinking times summed per bot,
 * the seats swapped in the second, as one log of the same moves gives
 * them (nearest-rank 99th percentile); only the slots the standings
 * count; malformed times refused, nothing of them kept.
 */
static void
test_times(void **state)
{
	static const char *const bad[] = { "", "t1", "t1 0/", "t1 0/ 0/ 0/",
	    "t2 0/ 0/", "t1 0/5*1,5*1 0/", "t1 0/5*1,4*1 0/", "t1 0/5*0 0/",
	    "t1 -1/ 0/", "t1 0/86400001*1 0/", "t1 0/1*1000001 0/",
	    "t1 1000001/ 0/", "t1 0/1*1, 0/", "t1 0/1 0/", "t1 0/1*1  0/",
	    "t1 0/ 0/ ", "t1 0/+1*1 0/", "t1 0/1*1 0/x", "T1 0/ 0/",
	    "t1 0/99999999999999999999*1 0/" };
	struct st_match	 m[2];
	struct tstand	 t;
	int		 slot[2] = { 0, 1 }, i;
	char		 err[128], why[256], *big;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(m, 0, sizeof(m));
	m[0].nseats = m[1].nseats = 2;
	m[0].bot[0] = m[1].bot[1] = 0;
	m[0].bot[1] = m[1].bot[0] = 1;
	t.m = m;
	t.slot = slot;
	t.n = 2;
	assert_int_equal(tstand_add_times(&t, 0, "t1 2/0*3,5*1,9*2 0/", err,
	    sizeof(err)), 0);
	assert_int_equal(tstand_add_times(&t, 1, "t1 0/4*1 1/7*95,100*5", err,
	    sizeof(err)), 0);
	assert_int_equal(t.timed, 2);
	assert_int_equal(tstand_times(&t, 2), 0);
	/* bot 0: 0 x3, 5, 9 x2, 7 x95, 100 x5: 106 moves, 1188 ms */
	assert_int_equal(t.time[0].moves, 106);
	assert_true(t.time[0].mean == 1188.0 / 106.0);
	assert_int_equal(t.time[0].p99, 100);	/* the 105th of 106 */
	assert_int_equal(t.time[0].max, 100);
	assert_int_equal(t.time[0].timeouts, 3);
	assert_int_equal(t.time[1].moves, 1);
	assert_true(t.time[1].mean == 4.0);
	assert_int_equal(t.time[1].p99, 4);
	assert_int_equal(t.time[1].max, 4);
	assert_int_equal(t.time[1].timeouts, 0);
	/* after an SPRT's decision, only the slots it read */
	t.upto = 1;
	assert_int_equal(tstand_times(&t, 2), 0);
	assert_int_equal(t.time[0].moves, 6);
	assert_true(t.time[0].mean == 23.0 / 6.0);
	assert_int_equal(t.time[0].p99, 9);
	assert_int_equal(t.time[0].timeouts, 2);
	assert_int_equal(t.time[1].moves, 0);
	assert_true(t.time[1].mean == 0.0);
	assert_int_equal(t.time[1].p99, 0);
	/* hostile: refused, and nothing kept */
	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		assert_int_equal(tstand_add_times(&t, 0, bad[i], err,
		    sizeof(err)), -1);
		assert_int_equal(t.ntv, 8);
		assert_int_equal(t.timed, 2);
	}
	assert_int_equal(tstand_add_times(&t, 0, NULL, err, sizeof(err)), -1);
	big = malloc(TSTAND_TIMESMAX + 16);
	assert_non_null(big);
	memcpy(big, "t1 0/", 5);
	for (i = 5; i < TSTAND_TIMESMAX + 8; i += 4)
		memcpy(big + i, "1*1,", 4);
	memcpy(big + i - 1, " 0/", 4);
	assert_int_equal(tstand_add_times(&t, 0, big, err, sizeof(err)), -1);
	free(big);
	/* which seat's figures a forged time changes */
	assert_int_equal(tstand_times_diff("t1 0/1*2 0/", "t1 0/1*2 0/", 2,
	    why, sizeof(why)), -1);
	assert_int_equal(tstand_times_diff("t1 0/1*2 1/3*1", "t1 0/1*2 0/3*1",
	    2, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "seat 1's thinking times reported (1 "
	    "moves, mean 3.0, p99 3, max 3, 1 timeouts) are not the log's (1 "
	    "moves, mean 3.0, p99 3, max 3, 0 timeouts)"));
	assert_int_equal(tstand_times_diff("t1 0/1*3 0/", "t1 0/1*2 0/", 2,
	    why, sizeof(why)), 0);
	free(t.tv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairwise),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_h2h),
		cmocka_unit_test(test_bot_twice),
		cmocka_unit_test(test_drawn_match),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_fit_optimum),
		cmocka_unit_test(test_dominant),
		cmocka_unit_test(test_symmetry),
		cmocka_unit_test(test_ci_narrows),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_chiamata_roles),
		cmocka_unit_test(test_classic6_teams),
		cmocka_unit_test(test_sprt_decides),
		cmocka_unit_test(test_sprt_even),
		cmocka_unit_test(test_sprt_published),
		cmocka_unit_test(test_sprt_order),
		cmocka_unit_test(test_sprt_asn),
		cmocka_unit_test(test_sprt_edges),
		cmocka_unit_test(test_teams_recover),
		cmocka_unit_test(test_teams_partner),
		cmocka_unit_test(test_teams_units),
		cmocka_unit_test(test_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
