/*
 * test_schedule.c: the seatings of tournament schedules (tdef.c) for
 * every table of 2 to 6 seats, counted from the schedule itself: each
 * bot in each seat equally often (and every k matches of a block), each
 * bot right after each other equally often, teammates (classic4 and
 * classic6) as even as can be, every seating of a block distinct, and
 * duplicate deals on one seed per block.  Five and six seats sample
 * their 120 and 720 seatings: the blocks must be smaller than that.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "briscola.h"
#include "tdef.h"

/* A definition of nbots bots for variant v, built as tdef_parse would. */
static void
make_def(struct tdef *d, enum bri_variant v, enum tdef_format f, int nbots,
    int duplicate)
{
	int	 i;

	memset(d, 0, sizeof(*d));
	bri_options_default(&d->opt, v);
	d->format = f;
	d->duplicate = duplicate;
	d->nbots = nbots;
	for (i = 0; i < nbots; i++)
		snprintf(d->bots[i], sizeof(d->bots[i]), "b%d", i);
	memset(d->seed.b, 0x5e, sizeof(d->seed.b));
}

static int
factorial(int k)
{
	return k <= 1 ? 1 : k * factorial(k - 1);
}

static int
choose(int n, int k)
{
	return k == 0 ? 1 : choose(n - 1, k - 1) * n / k;
}

/*
 * Check one block of narr matches of a table of k seats: returns
 * nothing, fails the test at the first imbalance.
 */
static void
check_block(const struct tslot *b, int narr, int k, enum bri_variant v,
    int duplicate)
{
	int	 seat[64][BRI_MAXSEATS], after[64][64], mate[64][64];
	int	 bots[BRI_MAXSEATS], nb = 0, i, j, a, x, y, want;
	const struct bri_variant_info *vi = bri_variant_info(v);

	memset(seat, 0, sizeof(seat));
	memset(after, 0, sizeof(after));
	memset(mate, 0, sizeof(mate));
	for (i = 0; i < k; i++)
		bots[nb++] = b[0].bot[i];
	for (a = 0; a < narr; a++) {
		/* the same table throughout, every seating once */
		for (i = 0; i < k; i++) {
			for (j = 0; j < k && bots[j] != b[a].bot[i]; j++)
				;
			assert_true(j < k);
		}
		for (j = 0; j < a; j++)
			assert_true(memcmp(b[a].bot, b[j].bot,
			    sizeof(b[a].bot)) != 0);
		if (duplicate)
			assert_memory_equal(b[a].seed.b, b[0].seed.b,
			    sizeof(b[0].seed.b));
		else
			for (j = 0; j < a; j++)
				assert_true(memcmp(b[a].seed.b, b[j].seed.b,
				    sizeof(b[0].seed.b)) != 0);
		for (i = 0; i < k; i++) {
			x = b[a].bot[i];
			seat[x][i]++;
			after[x][b[a].bot[(i + 1) % k]]++;
			for (j = 0; j < k; j++)
				if (j != i && (vi->sides != BRI_SIDES_ALTERNATE ||
				    (j - i) % 2 == 0))
					mate[x][b[a].bot[j]]++;
		}
		/* every k matches from the block's start balance the seats */
		if ((a + 1) % k == 0)
			for (i = 0; i < k; i++)
				for (j = 0; j < k; j++)
					assert_int_equal(seat[bots[j]][i],
					    (a + 1) / k);
	}
	for (x = 0; x < k; x++)
		for (y = 0; y < k; y++) {
			if (x == y)
				continue;
			/* each bot right after each other equally often */
			assert_int_equal(after[bots[x]][bots[y]],
			    narr / (k - 1));
			/* teammates as even as the table allows */
			if (vi->sides == BRI_SIDES_ALTERNATE) {
				want = narr * (k / 2 - 1) / (k - 1);
				assert_int_equal(mate[bots[x]][bots[y]], want);
			}
		}
}

/* Does participant x sit at the match? */
static int
seated(const struct tslot *m, int k, int x)
{
	int	 i;

	for (i = 0; i < k; i++)
		if (m->bot[i] == x)
			return 1;
	return 0;
}

/* Every variant, round robin and gauntlet, with and without duplicate. */
static void
test_balanced(void **state)
{
	struct tdef	 d;
	struct tslot	*s;
	enum bri_variant v;
	char		 err[256];
	int		 k, n, nbots, dup, fmt, narr, ntables, t;

	(void)state;
	for (v = 0; v < BRI_NVARIANTS; v++) {
		k = bri_variant_seats(v);
		narr = tdef_seatings(k);
		/* 5 and 6 seats sample a balanced part of their seatings */
		if (k <= 4)
			assert_int_equal(narr, factorial(k));
		else
			assert_true(narr < factorial(k) / 2 && narr % k == 0);
		for (nbots = k; nbots <= k + 2; nbots++)
			for (fmt = 0; fmt < 2; fmt++)
				for (dup = 0; dup < 2; dup++) {
					make_def(&d, v, fmt ? TDEF_GAUNTLET :
					    TDEF_ROUNDROBIN, nbots, dup);
					assert_int_equal(tdef_schedule(&d, &s,
					    &n, err, sizeof(err)), 0);
					ntables = fmt ? choose(nbots - 1, k - 1) :
					    choose(nbots, k);
					assert_int_equal(n, ntables * narr);
					for (t = 0; t < ntables; t++) {
						check_block(s + t * narr, narr,
						    k, v, dup);
						if (fmt)	/* the candidate */
							assert_true(seated(
							    &s[t * narr], k, 0));
					}
					free(s);
				}
	}
}

/* A cycle goes on with new seeds; a count cuts it only at a block. */
static void
test_cycles(void **state)
{
	struct tdef	 d;
	struct tslot	*s;
	char		 err[256];
	int		 n, k, narr, c;

	(void)state;
	make_def(&d, BRI_CLASSIC6, TDEF_ROUNDROBIN, 6, 1);
	k = 6;
	narr = tdef_seatings(k);
	d.matches = 3 * narr;
	assert_int_equal(tdef_schedule(&d, &s, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3 * narr);
	for (c = 0; c < 3; c++) {
		check_block(s + c * narr, narr, k, BRI_CLASSIC6, 1);
		assert_int_equal(s[c * narr].block, c);
	}
	/* each cycle on its own seed */
	assert_true(memcmp(s[0].seed.b, s[narr].seed.b, sizeof(s[0].seed.b))
	    != 0);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balanced),
		cmocka_unit_test(test_cycles),
	};

	if (bri_init() != BRI_OK)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
