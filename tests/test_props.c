/*
 * test_props: property tests of libbriscola over many seeded deals.
 *
 * For each variant, REFD_PROP_DEALS deals (default 100000) are shuffled
 * from one seed with consecutive deal indexes and played with random
 * legal calls and cards.  A model written here from the rules follows
 * every call of a chiamata5 auction and every play (hands, tricks,
 * draws, points, the Joker, the partner) and the library must agree
 * with it at each step; after each deal every invariant of the rules
 * files is checked and the deal is replayed to check it is the same.
 * In chiamata5, before the called card is played, no view of any seat
 * but the partner shows the partner, and moving the called card to
 * another seat's hand leaves that view unchanged, byte for byte.
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

/* The rules' numbers of each table: cards in play and tricks. */
static const int rule_cards[BRI_NVARIANTS] = {
	[BRI_JOKER3] = 39, [BRI_CLASSIC2] = 40, [BRI_CLASSIC3] = 39,
	[BRI_CLASSIC4] = 40, [BRI_CLASSIC5] = 40, [BRI_CLASSIC6] = 36,
	[BRI_BRISCOLONE] = 40, [BRI_CHIAMATA5] = 40,
};
static const int rule_tricks[BRI_NVARIANTS] = {
	[BRI_JOKER3] = 13, [BRI_CLASSIC2] = 20, [BRI_CLASSIC3] = 13,
	[BRI_CLASSIC4] = 10, [BRI_CLASSIC5] = 8, [BRI_CLASSIC6] = 6,
	[BRI_BRISCOLONE] = 20, [BRI_CHIAMATA5] = 8,
};

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
	/* the auction (chiamata5) */
	unsigned	 passed;		/* seats that passed */
	int		 bid, bidder;		/* last rank named, by whom */
	int		 ncalls, caller, partner;
	bri_card	 called;
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
	m->bidder = m->caller = m->partner = BRI_NOSEAT;
	m->called = BRI_NOCARD;
}

/* The strength of a rank, 10 for the Asso down to 1 for the 2. */
static int
rank_strength(int rank)
{
	int	 i;

	for (i = 0; i < 10; i++)
		if (rank_order[i] == rank)
			return 10 - i;
	return 0;
}

/*
 * The auction, written again from more-variants.md: seat makes call
 * rank (0 a pass).  Returns 1 once the auction is over.
 */
static int
model_bid(struct model *m, int seat, int rank)
{
	int	 left, s;

	CHECK(seat == m->turn);
	CHECK(!(m->passed >> seat & 1));
	m->ncalls++;
	if (rank == BRI_PASS)
		m->passed |= 1u << seat;
	else {
		/* strictly weaker than the last rank named */
		CHECK(m->bid == 0 || rank_strength(rank) <
		    rank_strength(m->bid));
		m->bid = rank;
		m->bidder = seat;
		if (rank == 2) {
			m->caller = seat;
			return 1;
		}
	}
	for (s = 0, left = 0; s < m->n; s++)
		left += !(m->passed >> s & 1);
	if (left == 0) {
		m->turn = m->leader;		/* five passes: void */
		return 1;
	}
	if (left == 1 && m->bidder != BRI_NOSEAT &&
	    !(m->passed >> m->bidder & 1)) {
		m->caller = m->bidder;
		return 1;
	}
	do
		m->turn = (m->turn + 1) % m->n;
	while (m->passed >> m->turn & 1);
	return 0;
}

/* The caller names suit: trump, the called card and its holder. */
static void
model_call(struct model *m, int suit)
{
	int	 s, holders = 0;

	m->called = BRI_CARD(m->bid, suit);
	m->trumpsuit = suit;
	for (s = 0; s < m->n; s++)
		if (m->hand[s] >> m->called & 1) {
			m->partner = s;
			holders++;
		}
	CHECK(holders == 1);		/* in exactly one hand */
	m->turn = m->leader;
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
	CHECK(d->ncalls == m->ncalls);
	CHECK(d->caller == m->caller);
	CHECK(d->called == m->called);
	CHECK(d->partner == m->partner);
	CHECK(d->trumpsuit == m->trumpsuit);
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
	case BRI_CLASSIC6:
		t0 = m->points[0] + m->points[2] + m->points[4];
		*result = t0 == 60 ? BRI_DEAL_DRAWN : BRI_DEAL_WON;
		if (t0 != 60)
			*winner = t0 >= 61 ? 0 : 1;
		break;
	case BRI_CHIAMATA5:
		if (m->caller == BRI_NOSEAT) {
			*result = BRI_DEAL_VOID;
			break;
		}
		t0 = m->points[m->caller];
		if (m->partner != m->caller)
			t0 += m->points[m->partner];
		*result = t0 == 60 ? BRI_DEAL_DRAWN : t0 >= 61 ?
		    BRI_DEAL_CALLER : BRI_DEAL_OTHERS;
		if (t0 != 60)
			*winner = t0 >= 61 ? 0 : 1;
		break;
	case BRI_CLASSIC2:
	case BRI_BRISCOLONE:
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

/*
 * A random call for the seat to speak in d's auction: a pass a little
 * under half the time, else the next weaker rank half the time and any
 * weaker rank otherwise, so that auctions end every way.
 */
static int
pick_call(const struct bri_deal *d, uint64_t *x)
{
	int	 last = d->bid != BRI_PASS ? rank_strength(d->bid) : 11;

	if (last == 1 || xorshift(x) % 16 < 7)
		return BRI_PASS;
	if (xorshift(x) % 2 == 0)
		return rank_order[10 - (last - 1)];
	return rank_order[10 - (int)(1 + xorshift(x) % (unsigned)(last - 1))];
}

/* The match points the rules give seat i for a finished deal. */
static int
model_mpoints(const struct model *m, enum bri_variant v, int result,
    int winner, int i)
{
	int	 sign;

	switch (result) {
	case BRI_DEAL_JOKER:
		return i == m->joker ? 2 : 0;
	case BRI_DEAL_ALLIES:
		return i == m->joker ? 0 : 1;
	case BRI_DEAL_WON:
		return (v == BRI_CLASSIC4 || v == BRI_CLASSIC6 ? i % 2 : i) ==
		    winner;
	case BRI_DEAL_CALLER:
	case BRI_DEAL_OTHERS:
		sign = result == BRI_DEAL_CALLER ? 1 : -1;
		if (i == m->caller)
			return sign * (m->partner == m->caller ? 4 : 2);
		return i == m->partner ? sign : -sign;
	default:
		return 0;
	}
}

/*
 * The partner information invariant, checked before a chiamata5 play:
 * until the called card is played, no seat but its holder sees the
 * partner, and the view of seat s is the same, byte for byte, when the
 * called card sits in another hand than s's (swapped there for one of
 * that hand's cards).
 */
static void
partner_secret(const struct bri_deal *d, uint64_t *x)
{
	struct bri_deal		 d2;
	struct bri_view		 v, v2;
	int			 s, b, i, j, p = d->partner;

	if (d->revealed)
		return;
	for (s = 0; s < d->nseats; s++) {
		CHECK(bri_view_of_deal(d, s, &v) == BRI_OK);
		CHECK(v.partner == (s == p ? p : BRI_NOSEAT));
		CHECK(v.called == d->called && !v.revealed);
	}
	s = (int)(xorshift(x) % d->nseats);
	b = (int)(xorshift(x) % d->nseats);
	if (s == p || b == s || b == p || d->nhand[b] == 0)
		return;
	memcpy(&d2, d, sizeof(d2));
	for (i = 0; d2.hand[p][i] != d->called; i++)
		;
	j = (int)(xorshift(x) % d->nhand[b]);
	d2.hand[p][i] = d2.hand[b][j];
	d2.hand[b][j] = d->called;
	d2.partner = (int8_t)b;
	CHECK(bri_view_of_deal(d, s, &v) == BRI_OK);
	CHECK(bri_view_of_deal(&d2, s, &v2) == BRI_OK);
	CHECK(memcmp(&v, &v2, sizeof(v)) == 0);
}

/* Run d's auction and call with x's choices, the model following. */
static void
auction(struct bri_deal *d, struct model *m, uint64_t *x)
{
	struct bri_event	 ev;
	struct bri_view		 v;
	int			 seat, r, over = 0, s, suit, last = BRI_NOSEAT;

	while (d->phase == BRI_PHASE_AUCTION) {
		seat = d->turn;
		r = pick_call(d, x);
		CHECK(bri_deal_bid(d, seat, r, &ev) == BRI_OK);
		if (r != BRI_PASS)
			last = seat;
		if (m == NULL)
			continue;
		over = model_bid(m, seat, r);
		CHECK(ev.auction_over == over);
		CHECK(ev.deal_over == (over && m->caller == BRI_NOSEAT));
		CHECK(d->turn == (over ? (m->caller == BRI_NOSEAT ?
		    m->leader : m->caller) : m->turn));
		for (s = 0; s < d->nseats; s++) {
			CHECK(bri_view_of_deal(d, s, &v) == BRI_OK);
			CHECK(v.ncalls == m->ncalls && v.partner == BRI_NOSEAT);
			CHECK(v.calls[v.ncalls - 1] == r);
			CHECK(v.callseat[v.ncalls - 1] == seat);
		}
	}
	if (d->phase != BRI_PHASE_CALL)
		return;
	suit = (int)(xorshift(x) % 4);
	CHECK(bri_deal_call(d, d->caller, suit) == BRI_OK);
	if (m == NULL)
		return;
	/* the caller is the last seat to name a rank */
	CHECK(d->caller == last && m->caller == last);
	model_call(m, suit);
}

/* Shuffle, deal and play deal k of variant v; returns the finished deal. */
static void
play_deal(enum bri_variant v, const struct bri_seed *seed, long k,
    struct bri_deal *d, struct model *m)
{
	struct bri_options	 o;
	struct bri_event	 ev;
	bri_card		 deck[BRI_NCARDS], removed, c;
	uint64_t		 x, seen = 0, all, twos = 0;
	int			 n, i, nseats, seat, jokers = 0, sum, reveals = 0;
	int			 result, winner;

	bri_options_default(&o, v);
	nseats = bri_variant_seats(v);
	n = bri_shuffle(seed, &o, (int)k, deck, &removed);

	/* 36, 39 or 40 distinct cards; the missing ones 2s */
	CHECK(n == rule_cards[v]);
	for (i = 0; i < n; i++) {
		CHECK(deck[i] < BRI_NCARDS);
		CHECK(!(seen >> deck[i] & 1));
		seen |= (uint64_t)1 << deck[i];
	}
	all = ((uint64_t)1 << BRI_NCARDS) - 1;
	for (i = 0; i < 4; i++)
		twos |= (uint64_t)1 << BRI_CARD(2, i);
	if (n == 39) {
		CHECK(removed < BRI_NCARDS && BRI_CARD_RANK(removed) == 2);
		CHECK((seen | (uint64_t)1 << removed) == all);
	} else {
		CHECK(removed == BRI_NOCARD);
		CHECK(seen == (n == 36 ? all & ~twos : all));
	}

	CHECK(bri_deal_init(d, v, deck, n, (int)(k % nseats)) == BRI_OK);
	CHECK(d->removed == removed);
	if (m == NULL) {
		/* replay: the same choices, no model */
		x = deal_rng(v, k);
		auction(d, NULL, &x);
		while (!d->over) {
			seat = d->turn;
			c = d->hand[seat][xorshift(&x) % d->nhand[seat]];
			if (d->called != BRI_NOCARD)
				partner_secret(d, &x);
			CHECK(bri_deal_play(d, seat, c, NULL) == BRI_OK);
		}
		return;
	}
	model_init(m, v, deck, n, (int)(k % nseats));
	x = deal_rng(v, k);
	auction(d, m, &x);
	agree(d, m);
	if (d->over) {
		/* five passes: a void deal, nothing played, nobody scores */
		CHECK(v == BRI_CHIAMATA5 && m->caller == BRI_NOSEAT);
		CHECK(d->result == BRI_DEAL_VOID && d->nplays == 0);
		CHECK(d->ncalls == 5);
		for (i = 0; i < nseats; i++)
			CHECK(d->points[i] == 0 && d->mpoints[i] == 0);
		return;
	}
	while (!d->over) {
		seat = d->turn;
		c = d->hand[seat][xorshift(&x) % d->nhand[seat]];
		if (d->called != BRI_NOCARD)
			partner_secret(d, &x);
		CHECK(bri_deal_play(d, seat, c, &ev) == BRI_OK);
		model_play(m, seat, c, v == BRI_JOKER3);
		agree(d, m);
		if (ev.joker != BRI_NOSEAT) {
			jokers++;
			CHECK(ev.joker == seat);
		}
		/* the partner is announced right after the called card */
		CHECK(ev.partner == (c == m->called ? m->partner :
		    BRI_NOSEAT));
		reveals += ev.partner != BRI_NOSEAT;
		CHECK(ev.deal_over == (m->nplayed == n));
		if (ev.trick_done)
			CHECK(ev.trick_winner == m->winners[m->trick - 1]);
	}
	CHECK(reveals == (v == BRI_CHIAMATA5));

	/* every card dealt once and played once, 120 points, all tricks */
	CHECK(d->nplays == n);
	CHECK(m->played == seen);
	CHECK(mask_of(d->plays, d->nplays) == seen);
	CHECK(d->trick == n / nseats);
	CHECK(d->trick == rule_tricks[v]);
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
	/* match points as the rules give them; chiamata5's sum to zero */
	for (i = 0, sum = 0; i < nseats; i++) {
		CHECK(d->mpoints[i] == model_mpoints(m, v, result, winner, i));
		sum += d->mpoints[i];
	}
	if (v == BRI_CHIAMATA5)
		CHECK(sum == 0);
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
	int			 team, d0, top, sign, sum, ntop;
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
		memset(&ev, 0, sizeof(ev));
		while (m.deal.phase == BRI_PHASE_AUCTION)
			CHECK(bri_match_bid(&m, m.deal.turn,
			    pick_call(&m.deal, &x), &ev) == BRI_OK);
		if (m.deal.phase == BRI_PHASE_CALL)
			CHECK(bri_match_call(&m, m.deal.caller,
			    (int)(xorshift(&x) % 4)) == BRI_OK);
		while (!ev.deal_over) {
			c = m.deal.hand[m.deal.turn][xorshift(&x) %
			    m.deal.nhand[m.deal.turn]];
			CHECK(bri_match_play(&m, m.deal.turn, c, &ev) ==
			    BRI_OK);
		}
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
				team = o->variant == BRI_CLASSIC4 ||
				    o->variant == BRI_CLASSIC6 ? i % 2 : i;
				want = team == m.deal.winner;
				break;
			case BRI_DEAL_CALLER:
			case BRI_DEAL_OTHERS:
				sign = m.deal.result == BRI_DEAL_CALLER ? 1 :
				    -1;
				if (i == m.deal.caller)
					want = sign * (m.deal.partner ==
					    m.deal.caller ? 4 : 2);
				else
					want = i == m.deal.partner ? sign :
					    -sign;
				break;
			default:
				want = 0;
			}
			CHECK(m.mpoints[i] - mp[i] == want);
			if (o->variant != BRI_JOKER3 &&
			    o->variant != BRI_CHIAMATA5)
				CHECK(m.deals_won[i] == m.mpoints[i]);
		}

		/* chiamata5: a fixed number of deals, the top total wins */
		if (o->variant == BRI_CHIAMATA5) {
			for (i = 0, sum = 0, top = -1000; i < n; i++) {
				sum += m.mpoints[i];
				if (m.mpoints[i] > top)
					top = m.mpoints[i];
			}
			CHECK(sum == 0);
			CHECK(ev.match_over == (m.ndeals == o->deals));
			CHECK((m.result != BRI_MATCH_PLAYING) == ev.match_over);
			if (!ev.match_over)
				continue;
			for (i = 0, ntop = 0; i < n; i++)
				ntop += m.mpoints[i] == top;
			if (ntop == 1) {
				CHECK(m.result == BRI_MATCH_WON);
				CHECK(m.mpoints[m.winner] == top);
			} else {
				CHECK(m.result == BRI_MATCH_DRAWN);
				for (i = 0; i < n; i++)
					CHECK((m.tied >> i & 1) ==
					    (m.mpoints[i] == top));
			}
			continue;
		}

		/* the match ends exactly when someone is strictly ahead */
		if (o->variant == BRI_CLASSIC4 || o->variant == BRI_CLASSIC6) {
			for (i = 2; i < n; i++)
				CHECK(m.mpoints[i] == m.mpoints[i % 2]);
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
			o.deals = 1 + k % 5;
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

/* The deal invariants hold for classic5. */
static void
test_deals_classic5(void **state)
{
	(void)state;
	deals(BRI_CLASSIC5);
}

/* The deal invariants hold for classic6. */
static void
test_deals_classic6(void **state)
{
	(void)state;
	deals(BRI_CLASSIC6);
}

/* The deal invariants hold for briscolone. */
static void
test_deals_briscolone(void **state)
{
	(void)state;
	deals(BRI_BRISCOLONE);
}

/* The deal, auction and partner invariants hold for chiamata5. */
static void
test_deals_chiamata5(void **state)
{
	(void)state;
	deals(BRI_CHIAMATA5);
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

/* Match points and match ends follow the rules in classic5. */
static void
test_matches_classic5(void **state)
{
	(void)state;
	matches(BRI_CLASSIC5);
}

/* Match points and match ends follow the rules in classic6. */
static void
test_matches_classic6(void **state)
{
	(void)state;
	matches(BRI_CLASSIC6);
}

/* Match points and match ends follow the rules in briscolone. */
static void
test_matches_briscolone(void **state)
{
	(void)state;
	matches(BRI_BRISCOLONE);
}

/* Match points, summing to zero, and fixed-length matches in chiamata5. */
static void
test_matches_chiamata5(void **state)
{
	(void)state;
	matches(BRI_CHIAMATA5);
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
		cmocka_unit_test(test_deals_classic5),
		cmocka_unit_test(test_deals_classic6),
		cmocka_unit_test(test_deals_briscolone),
		cmocka_unit_test(test_deals_chiamata5),
		cmocka_unit_test(test_matches_classic5),
		cmocka_unit_test(test_matches_classic6),
		cmocka_unit_test(test_matches_briscolone),
		cmocka_unit_test(test_matches_chiamata5),
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
