/*
 * test_props: property tests of libbriscola over many seeded deals.
 *
 * For each variant, REFD_PROP_DEALS deals (default 100000) are shuffled
 * from one seed with consecutive deal indexes and played with random
 * legal cards.  A model written here from the rules follows every play
 * (hands, tricks, draws, points, the Joker) and the library must agree
 * with it at each step; after each deal every invariant of the rules
 * files is checked and the deal is replayed to check it is the same.
 * Then whole matches are played through the match interface and their
 * match points and ends checked against the rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "briscola.h"

#define DEFAULT_DEALS	100000

/* Deals per variant, and a match per this many deals. */
static long	 ndeals = DEFAULT_DEALS;
#define DEALS_PER_MATCH	40

/* Which deal or match a failure is about. */
static const char	*what = "";
static long		 which;

/*
 * Fail with the variant and deal number: cmocka's own assertions cost a
 * call each, too slow for millions of checks that almost never fail.
 */
#define CHECK(c) do {							\
	if (!(c))							\
		fail_msg("%s %ld: %s (line %d)", what, which, #c,	\
		    __LINE__);						\
} while (0)

/* Ranks from strongest to weakest, as the rules table lists them. */
static const int rank_order[10] = { 1, 3, 10, 9, 8, 7, 6, 5, 4, 2 };
static int	 strength[BRI_NCARDS];
static const int points[11] = { 0, 11, 0, 10, 0, 0, 0, 0, 2, 3, 4 };

/* Fill our own strength table from the rules, not from the library. */
static void
model_tables(void)
{
	int	 c, i;

	for (c = 0; c < BRI_NCARDS; c++)
		for (i = 0; i < 10; i++)
			if (rank_order[i] == BRI_CARD_RANK(c))
				strength[c] = 10 - i;
}

/* xorshift64: a tiny PRNG, seeded per deal, to choose the cards played. */
static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A PRNG state for deal k of a variant, never zero. */
static uint64_t
deal_rng(int v, long k)
{
	uint64_t	 x = ((uint64_t)k << 8 | (uint64_t)v) *
			    0x9e3779b97f4a7c15ULL;

	return x ^ 0x2545f4914f6cdd1dULL;
}

/* A reproducible seed for counter k. */
static void
seed_of(uint64_t k, struct bri_seed *s)
{
	int	 i;

	for (i = 0; i < BRI_SEEDLEN; i++) {
		k = k * 6364136223846793005ULL + 1442695040888963407ULL;
		s->b[i] = (uint8_t)(k >> 56);
	}
}

/* The rules' own model of a deal, kept beside the library's. */
struct model {
	int		 n, ncards, ntricks, h, turned;
	uint64_t	 hand[BRI_MAXSEATS];	/* bitmask of cards */
	int		 nhand[BRI_MAXSEATS];
	const bri_card	*stock;			/* deck + 3n + 1 */
	int		 nstock, ndrawn;	/* trump included */
	bri_card	 trump;
	int		 trumpsuit, leader, turn, trick, joker, firsttrump;
	bri_card	 cur[BRI_MAXSEATS];	/* current trick, by order */
	int		 curseat[BRI_MAXSEATS], ncur;
	int		 points[BRI_MAXSEATS];
	int		 winners[BRI_MAXTRICKS];
	uint64_t	 played;
	int		 nplayed;
};

/* Deal the model from the deck order, as rule 2 and 3 describe. */
static void
model_init(struct model *m, enum bri_variant v, const bri_card *deck,
    int ncards, int dealer)
{
	int	 i, s;

	memset(m, 0, sizeof(*m));
	m->n = bri_variant_seats(v);
	m->ncards = ncards;
	m->ntricks = ncards / m->n;
	m->leader = m->turn = (dealer + 1) % m->n;
	m->h = bri_variant_info(v)->handsize;
	for (i = 0; i < m->h * m->n; i++) {
		s = (m->leader + i) % m->n;
		m->hand[s] |= (uint64_t)1 << deck[i];
		m->nhand[s]++;
	}
	m->turned = bri_variant_info(v)->turned;
	m->trump = m->turned ? deck[m->h * m->n] : BRI_NOCARD;
	m->trumpsuit = m->turned ? BRI_CARD_SUIT(m->trump) : BRI_NOSUIT;
	m->stock = deck + m->h * m->n + m->turned;
	m->nstock = ncards - m->h * m->n;
	m->joker = m->firsttrump = BRI_NOSEAT;
}

/* Rule 5, written again: the index of the winning card in cur. */
static int
model_winner(const struct model *m)
{
	int	 i, best = 0;

	for (i = 1; i < m->ncur; i++) {
		if (BRI_CARD_SUIT(m->cur[i]) == BRI_CARD_SUIT(m->cur[best])) {
			if (strength[m->cur[i]] > strength[m->cur[best]])
				best = i;
		} else if (BRI_CARD_SUIT(m->cur[i]) == m->trumpsuit)
			best = i;
	}
	return best;
}

/* Apply one play to the model: the trick, the Joker, the draws (rule 6). */
static void
model_play(struct model *m, int seat, bri_card c, int joker3)
{
	int	 i, w, pts, s;

	CHECK(seat == m->turn);
	CHECK(m->hand[seat] >> c & 1);
	m->hand[seat] &= ~((uint64_t)1 << c);
	m->nhand[seat]--;
	m->played |= (uint64_t)1 << c;
	m->nplayed++;
	if (BRI_CARD_SUIT(c) == m->trumpsuit && m->firsttrump == BRI_NOSEAT)
		m->firsttrump = seat;
	if (joker3 && m->joker == BRI_NOSEAT &&
	    BRI_CARD_SUIT(c) == m->trumpsuit)
		m->joker = seat;
	m->cur[m->ncur] = c;
	m->curseat[m->ncur++] = seat;
	if (m->ncur < m->n) {
		m->turn = (m->turn + 1) % m->n;
		return;
	}
	w = m->curseat[model_winner(m)];
	for (i = 0, pts = 0; i < m->n; i++)
		pts += points[BRI_CARD_RANK(m->cur[i])];
	m->points[w] += pts;
	m->winners[m->trick++] = w;
	m->ncur = 0;
	m->leader = m->turn = w;
	if (m->nstock == 0)
		return;
	for (i = 0; i < m->n; i++) {
		s = (w + i) % m->n;
		c = m->nstock == 1 && m->turned ? m->trump :
		    m->stock[m->ndrawn];
		m->hand[s] |= (uint64_t)1 << c;
		m->nhand[s]++;
		m->nstock--;
		m->ndrawn++;
	}
}

/* The bitmask of a library hand. */
static uint64_t
mask_of(const bri_card *h, int n)
{
	uint64_t	 b = 0;
	int		 i;

	for (i = 0; i < n; i++)
		b |= (uint64_t)1 << h[i];
	return b;
}

/* Does the library's deal agree with the model, seat by seat? */
static void
agree(const struct bri_deal *d, const struct model *m)
{
	int	 s;

	CHECK(d->turn == m->turn);
	CHECK(d->trick == m->trick);
	CHECK(d->nplays == m->nplayed);
	CHECK(d->nstock == m->nstock);
	CHECK(d->joker == m->joker);
	for (s = 0; s < m->n; s++) {
		CHECK(d->nhand[s] <= m->h);
		CHECK(d->nhand[s] == m->nhand[s]);
		CHECK(mask_of(d->hand[s], d->nhand[s]) == m->hand[s]);
		CHECK(d->points[s] == m->points[s]);
	}
}

/* The result the rules give for the model's points. */
static void
model_result(const struct model *m, enum bri_variant v, int *result,
    int *winner)
{
	int	 i, best, nbest, t0, t1;

	*winner = BRI_NOSEAT;
	switch (v) {
	case BRI_JOKER3:
		if (m->points[m->joker] >= 51)
			*result = BRI_DEAL_JOKER;
		else if (120 - m->points[m->joker] >= 71)
			*result = BRI_DEAL_ALLIES;
		else
			*result = BRI_DEAL_VOID;
		break;
	case BRI_CLASSIC4:
		t0 = m->points[0] + m->points[2];
		t1 = m->points[1] + m->points[3];
		*result = t0 == 60 ? BRI_DEAL_DRAWN : BRI_DEAL_WON;
		if (t0 >= 61)
			*winner = 0;
		else if (t1 >= 61)
			*winner = 1;
		break;
	case BRI_CLASSIC2:
		*result = m->points[0] == 60 ? BRI_DEAL_DRAWN : BRI_DEAL_WON;
		if (m->points[0] >= 61)
			*winner = 0;
		else if (m->points[1] >= 61)
			*winner = 1;
		break;
	default:
		for (i = 0, best = -1, nbest = 0; i < m->n; i++) {
			if (m->points[i] > best) {
				best = m->points[i];
				nbest = 0;
				*winner = i;
			}
			nbest += m->points[i] == best;
		}
		*result = nbest > 1 ? BRI_DEAL_DRAWN : BRI_DEAL_WON;
		if (nbest > 1)
			*winner = BRI_NOSEAT;
		break;
	}
}

/* Shuffle, deal and play deal k of variant v; returns the finished deal. */
static void
play_deal(enum bri_variant v, const struct bri_seed *seed, long k,
    struct bri_deal *d, struct model *m)
{
	struct bri_options	 o;
	struct bri_event	 ev;
	bri_card		 deck[BRI_NCARDS], removed, c;
	uint64_t		 x, seen = 0, all;
	int			 n, i, nseats, seat, jokers = 0, sum;
	int			 result, winner;

	bri_options_default(&o, v);
	nseats = bri_variant_seats(v);
	n = bri_shuffle(seed, &o, (int)k, deck, &removed);

	/* 39 or 40 distinct cards; the missing one a 2 */
	CHECK(n == (v == BRI_CLASSIC2 || v == BRI_CLASSIC4 ? 40 : 39));
	for (i = 0; i < n; i++) {
		CHECK(deck[i] < BRI_NCARDS);
		CHECK(!(seen >> deck[i] & 1));
		seen |= (uint64_t)1 << deck[i];
	}
	all = ((uint64_t)1 << BRI_NCARDS) - 1;
	if (n == 39) {
		CHECK(removed < BRI_NCARDS && BRI_CARD_RANK(removed) == 2);
		CHECK((seen | (uint64_t)1 << removed) == all);
	} else {
		CHECK(removed == BRI_NOCARD);
		CHECK(seen == all);
	}

	CHECK(bri_deal_init(d, v, deck, n, (int)(k % nseats)) == BRI_OK);
	CHECK(d->removed == removed);
	if (m == NULL) {
		/* replay: the same choices, no model */
		x = deal_rng(v, k);
		while (!d->over) {
			seat = d->turn;
			c = d->hand[seat][xorshift(&x) % d->nhand[seat]];
			CHECK(bri_deal_play(d, seat, c, NULL) == BRI_OK);
		}
		return;
	}
	model_init(m, v, deck, n, (int)(k % nseats));
	agree(d, m);
	x = deal_rng(v, k);
	while (!d->over) {
		seat = d->turn;
		c = d->hand[seat][xorshift(&x) % d->nhand[seat]];
		CHECK(bri_deal_play(d, seat, c, &ev) == BRI_OK);
		model_play(m, seat, c, v == BRI_JOKER3);
		agree(d, m);
		if (ev.joker != BRI_NOSEAT) {
			jokers++;
			CHECK(ev.joker == seat);
		}
		CHECK(ev.deal_over == (m->nplayed == n));
		if (ev.trick_done)
			CHECK(ev.trick_winner == m->winners[m->trick - 1]);
	}

	/* every card dealt once and played once, 120 points, all tricks */
	CHECK(d->nplays == n);
	CHECK(m->played == seen);
	CHECK(mask_of(d->plays, d->nplays) == seen);
	CHECK(d->trick == n / nseats);
	CHECK(d->trick == (v == BRI_CLASSIC2 ? 20 : v == BRI_CLASSIC4 ? 10 :
	    13));
	CHECK(m->nstock == 0 && m->ndrawn == n - m->h * nseats);
	for (i = 0, sum = 0; i < d->trick; i++) {
		CHECK(d->winners[i] == m->winners[i]);
		sum += d->trickpoints[i];
	}
	CHECK(sum == 120);
	for (i = 0, sum = 0; i < nseats; i++) {
		CHECK(d->nhand[i] == 0);
		sum += d->points[i];
	}
	CHECK(sum == 120);

	/* exactly one Joker in joker3: the first seat to play a trump */
	if (v == BRI_JOKER3) {
		CHECK(jokers == 1);
		CHECK(d->joker != BRI_NOSEAT && d->joker == m->firsttrump);
	} else {
		CHECK(jokers == 0);
		CHECK(d->joker == BRI_NOSEAT);
	}
	model_result(m, v, &result, &winner);
	CHECK(d->result == result);
	CHECK(d->winner == winner);
}

/* Every invariant over ndeals seeded deals of variant v. */
static void
deals(enum bri_variant v)
{
	struct bri_seed		 seed;
	struct bri_deal		 d, again;
	struct model		 m;
	long			 k;

	what = bri_variant_name(v);
	seed_of(1000 + v, &seed);
	for (k = 0; k < ndeals; k++) {
		which = k;
		play_deal(v, &seed, k, &d, &m);
		/* the same seed and choices make the same deal, bytewise */
		play_deal(v, &seed, k, &again, NULL);
		CHECK(memcmp(&d, &again, sizeof(d)) == 0);
	}
}

/* Who, if anyone, has target or more and strictly more than every other? */
static int
leader_of(const struct bri_match *m, int target)
{
	int	 i, j, ok;

	for (i = 0; i < m->nseats; i++) {
		if (m->mpoints[i] < target)
			continue;
		for (j = 0, ok = 1; j < m->nseats; j++)
			if (j != i && m->mpoints[j] >= m->mpoints[i])
				ok = 0;
		if (ok)
			return i;
	}
	return BRI_NOSEAT;
}

/*
 * Play one whole match of the given options and seed, checking after
 * every deal that the match points moved as the rules say and that the
 * match ended exactly when it should.
 */
static void
play_match(const struct bri_options *o, const struct bri_seed *seed,
    uint64_t x)
{
	struct bri_match	 m, before;
	struct bri_event	 ev;
	int			 mp[BRI_MAXSEATS], i, n, w, target, want;
	int			 team, d0, top;
	bri_card		 c;

	CHECK(bri_match_init(&m, o, seed) == BRI_OK);
	n = m.nseats;
	CHECK(m.first_dealer == bri_first_dealer(seed, n));
	target = o->variant == BRI_JOKER3 ? o->match_target : o->deals_to_win;
	while (m.result == BRI_MATCH_PLAYING) {
		d0 = m.ndeals;
		CHECK(bri_match_deal(&m) == BRI_OK);
		CHECK(m.ndeals == d0 + 1);
		CHECK(m.deal.dealer == (m.first_dealer + d0) % n);
		CHECK(m.deal.joker == BRI_NOSEAT);
		memcpy(mp, m.mpoints, sizeof(mp));
		do {
			c = m.deal.hand[m.deal.turn][xorshift(&x) %
			    m.deal.nhand[m.deal.turn]];
			CHECK(bri_match_play(&m, m.deal.turn, c, &ev) ==
			    BRI_OK);
		} while (!ev.deal_over);
		CHECK(m.deal.over);

		/* match points move only as "A match" says */
		for (i = 0; i < n; i++) {
			switch (m.deal.result) {
			case BRI_DEAL_JOKER:
				want = i == m.deal.joker ? 2 : 0;
				break;
			case BRI_DEAL_ALLIES:
				want = i == m.deal.joker ? 0 : 1;
				break;
			case BRI_DEAL_WON:
				team = o->variant == BRI_CLASSIC4 ? i % 2 : i;
				want = team == m.deal.winner;
				break;
			default:
				want = 0;
			}
			CHECK(m.mpoints[i] - mp[i] == want);
			if (o->variant != BRI_JOKER3)
				CHECK(m.deals_won[i] == m.mpoints[i]);
		}

		/* the match ends exactly when someone is strictly ahead */
		if (o->variant == BRI_CLASSIC4) {
			CHECK(m.mpoints[0] == m.mpoints[2]);
			CHECK(m.mpoints[1] == m.mpoints[3]);
			w = m.mpoints[0] >= target && m.mpoints[0] >
			    m.mpoints[1] ? 0 : m.mpoints[1] >= target &&
			    m.mpoints[1] > m.mpoints[0] ? 1 : BRI_NOSEAT;
		} else
			w = leader_of(&m, target);
		CHECK(ev.match_over == (m.result != BRI_MATCH_PLAYING));
		if (w != BRI_NOSEAT) {
			CHECK(m.result == BRI_MATCH_WON);
			CHECK(m.winner == w);
		} else if (m.ndeals >= o->deal_cap) {
			CHECK(m.result == BRI_MATCH_DRAWN);
			CHECK(m.winner == BRI_NOSEAT);
			for (i = 0, top = 0; i < n; i++)
				if (m.mpoints[i] > top)
					top = m.mpoints[i];
			for (i = 0; i < n; i++)
				CHECK((m.tied >> i & 1) ==
				    (m.mpoints[i] == top));
		} else {
			CHECK(m.result == BRI_MATCH_PLAYING);
			CHECK(m.winner == BRI_NOSEAT);
		}
	}
	memcpy(&before, &m, sizeof(m));
	CHECK(bri_match_deal(&m) == BRI_EMATCHOVER);
	CHECK(bri_match_play(&m, m.deal.turn, 0, &ev) == BRI_EMATCHOVER);
	CHECK(memcmp(&before, &m, sizeof(m)) == 0);
}

/* Whole matches of variant v, with default and small options. */
static void
matches(enum bri_variant v)
{
	struct bri_options	 o;
	struct bri_seed		 seed;
	long			 k, nmatches;

	what = "match";
	nmatches = ndeals / DEALS_PER_MATCH;
	if (nmatches < 10)
		nmatches = 10;
	for (k = 0; k < nmatches; k++) {
		which = k;
		seed_of(((uint64_t)v << 32) + (uint64_t)k, &seed);
		bri_options_default(&o, v);
		/* every fourth match: a small cap and target, to end by both */
		if (k % 4 == 3) {
			o.deal_cap = 1 + k % 5;
			if (v == BRI_JOKER3)
				o.match_target = 1 + k % 3;
			else
				o.deals_to_win = 1 + k % 3;
		}
		play_match(&o, &seed, deal_rng(v, k) ^ 0x5bd1e995);
	}
}

/* The deal invariants hold for joker3. */
static void
test_deals_joker3(void **state)
{
	(void)state;
	deals(BRI_JOKER3);
}

/* The deal invariants hold for classic2. */
static void
test_deals_classic2(void **state)
{
	(void)state;
	deals(BRI_CLASSIC2);
}

/* The deal invariants hold for classic3. */
static void
test_deals_classic3(void **state)
{
	(void)state;
	deals(BRI_CLASSIC3);
}

/* The deal invariants hold for classic4. */
static void
test_deals_classic4(void **state)
{
	(void)state;
	deals(BRI_CLASSIC4);
}

/* Match points and match ends follow the rules in joker3. */
static void
test_matches_joker3(void **state)
{
	(void)state;
	matches(BRI_JOKER3);
}

/* Match points and match ends follow the rules in classic2. */
static void
test_matches_classic2(void **state)
{
	(void)state;
	matches(BRI_CLASSIC2);
}

/* Match points and match ends follow the rules in classic3. */
static void
test_matches_classic3(void **state)
{
	(void)state;
	matches(BRI_CLASSIC3);
}

/* Match points and match ends follow the rules in classic4. */
static void
test_matches_classic4(void **state)
{
	(void)state;
	matches(BRI_CLASSIC4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deals_joker3),
		cmocka_unit_test(test_deals_classic2),
		cmocka_unit_test(test_deals_classic3),
		cmocka_unit_test(test_deals_classic4),
		cmocka_unit_test(test_matches_joker3),
		cmocka_unit_test(test_matches_classic2),
		cmocka_unit_test(test_matches_classic3),
		cmocka_unit_test(test_matches_classic4),
	};
	const char	*e;
	char		*end;

	if ((e = getenv("REFD_PROP_DEALS")) != NULL && *e != '\0') {
		ndeals = strtol(e, &end, 10);
		if (*end != '\0' || ndeals < 1) {
			fprintf(stderr, "test_props: bad REFD_PROP_DEALS\n");
			return 1;
		}
	}
	if (bri_init() != BRI_OK) {
		fprintf(stderr, "test_props: bri_init failed\n");
		return 1;
	}
	model_tables();
	printf("# %ld deals per variant, %ld matches per variant\n", ndeals,
	    ndeals / DEALS_PER_MATCH < 10 ? 10 : ndeals / DEALS_PER_MATCH);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
