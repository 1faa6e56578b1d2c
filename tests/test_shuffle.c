/*
 * test_shuffle: statistical tests of the seeded shuffle.
 *
 * Every deal of a match must be a uniformly random order of the cards,
 * the removed 2 of joker3 a uniformly random suit, and the first dealer
 * a uniformly random seat.  Each test counts outcomes over many seeded
 * shuffles and compares a chi-square statistic with the value that a
 * correct shuffle exceeds with probability 1e-6 (quantiles of the
 * chi-square distribution, computed with the regularised incomplete
 * gamma function).  With about a dozen such comparisons, a correct
 * library fails here with probability near 1e-5 over the choice of
 * seeds; the seeds are fixed, so the outcome is the same on every run.
 *
 * The test is not a formality: a shuffle that reduces bytes modulo n
 * without rejection, or that swaps with any position instead of only
 * the ones not yet fixed, fails the position tests by a wide margin.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "briscola.h"

#define NSHUFFLES	40000

/* Upper 1e-6 quantiles of chi-square with df degrees of freedom. */
#define CRIT_DF1	23.93
#define CRIT_DF2	27.63
#define CRIT_DF3	30.66
#define CRIT_DF4	33.38
#define CRIT_DF5	35.89
#define CRIT_DF1444	1713.99		/* (39 - 1)^2 */
#define CRIT_DF1521	1797.71		/* (40 - 1)^2 */
#define CRIT_DF1481	1754.24		/* 39 * 38 - 1 */
#define CRIT_DF1559	1838.97		/* 40 * 39 - 1 */
#define CRIT_DF1599	1882.35		/* 40 * 40 - 1 */
/* Upper 1e-6/40 quantiles, for the largest of up to 40 rows (Bonferroni). */
#define CRIT_ROW_DF38	105.93
#define CRIT_ROW_DF39	107.54

/* counts[label][position] of the shuffles of one test. */
static long	 counts[BRI_NCARDS][BRI_NCARDS];
static long	 pairs[BRI_NCARDS][BRI_NCARDS];

/* A reproducible seed for counter k, so the outcome never varies. */
static void
seed_of(uint64_t k, struct bri_seed *s)
{
	uint64_t	 z;
	int		 i;

	for (i = 0; i < BRI_SEEDLEN; i += 8) {
		z = (k += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		memcpy(s->b + i, &z, 8);
	}
}

/* Pearson's statistic of counts against the same expectation everywhere. */
static double
chi2_flat(const long *c, int ncells, double expect)
{
	double	 x = 0, d;
	int	 i;

	for (i = 0; i < ncells; i++) {
		d = (double)c[i] - expect;
		x += d * d / expect;
	}
	return x;
}

/* Report a statistic and fail if it reaches its critical value. */
static void
judge(const char *name, double x, double crit)
{
	print_message("%-40s chi2 %9.2f  (fails at %.2f)\n", name, x, crit);
	if (x >= crit)
		fail_msg("%s: chi-square %.2f >= %.2f: not uniform", name, x,
		    crit);
}

/*
 * Judge the position counts of n labels over t permutations.
 *
 * Each row (one card) is a multinomial over n positions, so its Pearson
 * statistic is chi-square with n - 1 degrees of freedom; the largest of
 * the n rows is judged at 1e-6/n.  The whole table is more sensitive to
 * a bias spread thinly over many cards, but its cells are not
 * independent: for one random permutation matrix X,
 * Cov(X_ij, X_kl) = (d_ik - 1/n)(d_jl - 1/n) / (n - 1), so the sum of
 * all cells is n/(n-1) times a chi-square with (n-1)^2 degrees of
 * freedom; the sum is scaled by (n-1)/n before judging it.
 */
static void
judge_positions(const char *name, int n, long t, double crit_all,
    double crit_row)
{
	char	 buf[80];
	double	 expect = (double)t / n, all = 0, row, worst = 0;
	int	 i;

	for (i = 0; i < n; i++) {
		row = chi2_flat(counts[i], n, expect);
		all += row;
		if (row > worst)
			worst = row;
	}
	snprintf(buf, sizeof(buf), "%s: positions, whole table", name);
	judge(buf, all * (n - 1) / n, crit_all);
	snprintf(buf, sizeof(buf), "%s: positions, worst card", name);
	judge(buf, worst, crit_row);
}

/* Judge the (first, second) card counts: n(n-1) equally likely pairs. */
static void
judge_pairs(const char *name, int n, long t, double crit)
{
	char	 buf[80];
	double	 expect = (double)t / (n * (n - 1)), x = 0, d;
	int	 i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (i == j) {
				if (pairs[i][j] != 0)
					fail_msg("%s: a card twice", name);
				continue;
			}
			d = (double)pairs[i][j] - expect;
			x += d * d / expect;
		}
	snprintf(buf, sizeof(buf), "%s: first two cards", name);
	judge(buf, x, crit);
}

/*
 * joker3: each of the 39 cards, named by its rank among the cards left
 * after the removed 2, is equally likely at each position; so is each
 * ordered pair of first two cards; and the removed 2 is of each suit
 * equally often.  One seed per shuffle.
 */
static void
test_joker3_uniform(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 s;
	bri_card		 deck[BRI_NCARDS], removed;
	long			 suits[4], k;
	int			 i, lab[BRI_NCARDS];

	(void)state;
	memset(counts, 0, sizeof(counts));
	memset(pairs, 0, sizeof(pairs));
	memset(suits, 0, sizeof(suits));
	bri_options_default(&o, BRI_JOKER3);
	for (k = 0; k < NSHUFFLES; k++) {
		seed_of((uint64_t)k, &s);
		assert_int_equal(bri_shuffle(&s, &o, 0, deck, &removed), 39);
		assert_int_equal(BRI_CARD_RANK(removed), 2);
		suits[BRI_CARD_SUIT(removed)]++;
		for (i = 0; i < BRI_NCARDS; i++)
			lab[i] = i < removed ? i : i - 1;
		for (i = 0; i < 39; i++)
			counts[lab[deck[i]]][i]++;
		pairs[lab[deck[0]]][lab[deck[1]]]++;
	}
	judge_positions("joker3", 39, NSHUFFLES, CRIT_DF1444, CRIT_ROW_DF38);
	judge_pairs("joker3", 39, NSHUFFLES, CRIT_DF1481);
	judge("joker3: suit of the removed 2",
	    chi2_flat(suits, 4, NSHUFFLES / 4.0), CRIT_DF3);
}

/*
 * classic2: the same for 40 cards, from one seed and consecutive deal
 * indexes; and the first cards of deals 2k and 2k+1 are independent.
 */
static void
test_classic2_uniform(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 s;
	bri_card		 deck[BRI_NCARDS], removed, prev = 0;
	static long		 serial[BRI_NCARDS][BRI_NCARDS];
	long			 k;
	int			 i;

	(void)state;
	memset(counts, 0, sizeof(counts));
	memset(pairs, 0, sizeof(pairs));
	memset(serial, 0, sizeof(serial));
	bri_options_default(&o, BRI_CLASSIC2);
	seed_of(0xc1a551c2ULL, &s);
	for (k = 0; k < NSHUFFLES; k++) {
		assert_int_equal(bri_shuffle(&s, &o, (int)k, deck, &removed),
		    40);
		assert_int_equal(removed, BRI_NOCARD);
		for (i = 0; i < 40; i++)
			counts[deck[i]][i]++;
		pairs[deck[0]][deck[1]]++;
		if (k % 2 == 1)
			serial[prev][deck[0]]++;
		prev = deck[0];
	}
	judge_positions("classic2", 40, NSHUFFLES, CRIT_DF1521,
	    CRIT_ROW_DF39);
	judge_pairs("classic2", 40, NSHUFFLES, CRIT_DF1559);
	judge("classic2: first cards of deals 2k, 2k+1",
	    chi2_flat(&serial[0][0], 40 * 40, NSHUFFLES / 2 / 1600.0),
	    CRIT_DF1599);
}

/* classic3 with a random 2: the removed suit is uniform over deal indexes. */
static void
test_classic3_removed_uniform(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 s;
	bri_card		 deck[BRI_NCARDS], removed;
	long			 suits[4], k;

	(void)state;
	memset(suits, 0, sizeof(suits));
	bri_options_default(&o, BRI_CLASSIC3);
	seed_of(0xc1a553ULL, &s);
	for (k = 0; k < NSHUFFLES; k++) {
		assert_int_equal(bri_shuffle(&s, &o, (int)k, deck, &removed),
		    39);
		assert_int_equal(BRI_CARD_RANK(removed), 2);
		suits[BRI_CARD_SUIT(removed)]++;
	}
	judge("classic3: suit of the removed 2",
	    chi2_flat(suits, 4, NSHUFFLES / 4.0), CRIT_DF3);
}

/* The first dealer is each seat equally often, at every table size. */
static void
test_first_dealer_uniform(void **state)
{
	static const double crit[BRI_MAXSEATS + 1] = {
		0, 0, CRIT_DF1, CRIT_DF2, CRIT_DF3, CRIT_DF4, CRIT_DF5
	};
	struct bri_seed		 s;
	long			 seats[BRI_MAXSEATS], k;
	char			 buf[80];
	int			 n, d;

	(void)state;
	for (n = 2; n <= BRI_MAXSEATS; n++) {
		memset(seats, 0, sizeof(seats));
		for (k = 0; k < NSHUFFLES; k++) {
			seed_of(((uint64_t)n << 40) + (uint64_t)k, &s);
			d = bri_first_dealer(&s, n);
			assert_in_range(d, 0, n - 1);
			seats[d]++;
		}
		snprintf(buf, sizeof(buf), "first dealer of %d seats", n);
		judge(buf, chi2_flat(seats, n, (double)NSHUFFLES / n), crit[n]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_joker3_uniform),
		cmocka_unit_test(test_classic2_uniform),
		cmocka_unit_test(test_classic3_removed_uniform),
		cmocka_unit_test(test_first_dealer_uniform),
	};

	if (bri_init() != BRI_OK) {
		fprintf(stderr, "test_shuffle: bri_init failed\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
