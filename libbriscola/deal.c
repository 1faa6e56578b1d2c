/*
 * deal.c: one deal from its deck order to its result.
 *
 * The deck order is the whole truth of a deal: cards 0 .. hn-1 (h cards
 * to each of n seats, the variant's hand size) are dealt one at a time
 * starting with the seat after the dealer; where the variant turns a
 * card, card hn is turned up as trump; the rest is the stock in drawing
 * order, and the turned trump lies under it and is drawn last.  What
 * differs between variants is read from their row of variant.c; the few
 * numbers the hot path needs are copied into the deal when it starts.
 * chiamata5 deals start with an auction (bri_deal_bid, bri_deal_call)
 * that sets trump and the secret partner.  Nothing here allocates or
 * fails after a play has been checked.
 *
 * A bot trainer plays millions of deals through here, so the hot paths
 * avoid what costs most in a random playout: calls through the PLT,
 * divisions by a variable seat count, and branches on which card of a
 * hand was played, which no predictor can guess.
 */
#include <string.h>

#include "briscola.h"

/*
 * Strength inside a suit and card points by rank - 1: the numbers of
 * card.c's tables, repeated so that they can be read here without a call
 * through the PLT.  tests/deals.txt catches any difference.
 */
static const uint8_t	 strength[10] = { 10, 1, 9, 2, 3, 4, 5, 6, 7, 8 };
static const uint8_t	 cardpoints[10] = { 11, 0, 10, 0, 0, 0, 0, 2, 3, 4 };

#define ONES	0x0101010101010101ULL	/* 1 in every byte */
#define HIGHS	0x8080808080808080ULL	/* the top bit of every byte */

/* hand_find() and hand_remove() read a hand's slots as one word. */
_Static_assert(BRI_MAXHAND == 8, "a hand is one 64-bit word");

/* The seat after seat s at a table of n. */
static inline int
next_seat(int s, int n)
{
	return s + 1 == n ? 0 : s + 1;
}

/*
 * Rank of card c in a trick led in suit led with trump suit trump: a
 * trump outranks every card of the led suit, which outranks every other
 * card, and strength orders each group.  The trick goes to the card of
 * highest rank: the highest trump if any, else the highest card of the
 * led suit, as the rules say; the ranks of distinct cards of those two
 * groups never tie.  Arithmetic, not branches: the suits are random.
 */
static inline int
trick_rank(bri_card c, int led, int trump)
{
	int	 suit = BRI_CARD_SUIT(c);

	return strength[c % 10] + 16 * (suit == led) + 32 * (suit == trump);
}

/*
 * Team of a seat: seat % 2 where teams alternate (classic4, classic6);
 * in chiamata5, once the auction has a caller, 0 for the caller and the
 * partner and 1 for the others (the referee's knowledge, not a seat's);
 * the seat itself elsewhere.
 */
int
bri_deal_team(const struct bri_deal *d, int seat)
{
	switch (d->sides) {
	case BRI_SIDES_ALTERNATE:
		return seat % 2;
	case BRI_SIDES_CALLER:
		if (d->caller == BRI_NOSEAT)
			return seat;
		return seat == d->caller || seat == d->partner ? 0 : 1;
	default:
		return seat;
	}
}

/*
 * Score a finished deal by its variant's rule: the result, the winner,
 * and the match points each seat gains (chiamata5's sum to zero).
 */
static void
deal_score(struct bri_deal *d)
{
	const struct bri_variant_info *vi = bri_variant_info(d->variant);
	int	 i, best, nbest, j, side, sign;

	d->winner = BRI_NOSEAT;
	memset(d->mpoints, 0, sizeof(d->mpoints));
	switch (vi->dealscore) {
	case BRI_SCORE_JOKER:
		j = d->joker;
		if (d->points[j] >= 51) {
			d->result = BRI_DEAL_JOKER;
			d->mpoints[j] = 2;
		} else if (120 - d->points[j] >= 71) {
			d->result = BRI_DEAL_ALLIES;
			for (i = 0; i < d->nseats; i++)
				d->mpoints[i] = i != j;
		} else
			d->result = BRI_DEAL_VOID;
		return;
	case BRI_SCORE_TEAM:
		for (i = 0; i < 2; i++) {
			for (j = i, side = 0; j < d->nseats; j += 2)
				side += d->points[j];
			if (side >= 61)
				d->winner = i;
		}
		d->result = d->winner == BRI_NOSEAT ? BRI_DEAL_DRAWN :
		    BRI_DEAL_WON;
		break;
	case BRI_SCORE_CALLER:
		side = d->points[d->caller];
		if (d->partner != d->caller)
			side += d->points[d->partner];
		if (side == 60) {
			d->result = BRI_DEAL_DRAWN;
			return;
		}
		d->result = side >= 61 ? BRI_DEAL_CALLER : BRI_DEAL_OTHERS;
		d->winner = side >= 61 ? 0 : 1;
		sign = side >= 61 ? 1 : -1;
		for (i = 0; i < d->nseats; i++)
			d->mpoints[i] = (int8_t)-sign;
		if (d->partner == d->caller)
			d->mpoints[d->caller] = (int8_t)(4 * sign);
		else {
			d->mpoints[d->caller] = (int8_t)(2 * sign);
			d->mpoints[d->partner] = (int8_t)sign;
		}
		return;
	default:
		/* classic2 (61 of 120 is the single top), 3, 5, briscolone */
		best = -1;
		nbest = 0;
		for (i = 0; i < d->nseats; i++) {
			if (d->points[i] > best) {
				best = d->points[i];
				nbest = 1;
				d->winner = i;
			} else if (d->points[i] == best)
				nbest++;
		}
		if (nbest > 1)
			d->winner = BRI_NOSEAT;
		d->result = nbest > 1 ? BRI_DEAL_DRAWN : BRI_DEAL_WON;
		break;
	}
	/* a won deal is one match point to each seat of the winning side */
	if (d->result == BRI_DEAL_WON)
		for (i = 0; i < d->nseats; i++)
			d->mpoints[i] = bri_deal_team(d, i) == d->winner;
}

/* The four 2s, as a mask of card codes. */
#define TWOS	((uint64_t)1 << BRI_CARD(2, 0) | (uint64_t)1 << BRI_CARD(2, 1) | \
		 (uint64_t)1 << BRI_CARD(2, 2) | (uint64_t)1 << BRI_CARD(2, 3))

/*
 * Start a deal of variant v from the deck order deck (ncards cards) with
 * the given dealer.  The deck must hold each card once, as the variant's
 * row says: all 40, 39 with one 2 missing (joker3, classic3), or 36
 * without the 2s (classic6).  A chiamata5 deal starts in its auction.
 * Returns BRI_OK, BRI_EINVAL (variant, dealer) or BRI_EDECK.
 */
int
bri_deal_init(struct bri_deal *d, enum bri_variant v, const bri_card *deck,
    int ncards, int dealer)
{
	const struct bri_variant_info *vi;
	uint64_t	 seen = 0, missing;
	unsigned	 big = 0;
	int		 n, i, s, want, h;

	if ((vi = bri_variant_info(v)) == NULL)
		return BRI_EINVAL;
	n = vi->seats;
	if (dealer < 0 || dealer >= n || deck == NULL)
		return BRI_EINVAL;
	want = vi->ncards;
	if (ncards != want)
		return BRI_EDECK;
	/*
	 * Every card in range and none twice: then the cards missing from
	 * the deck are as many as 40 - ncards.
	 */
	for (i = 0; i < ncards; i++) {
		big |= deck[i] >= BRI_NCARDS;
		seen |= (uint64_t)1 << (deck[i] & 63);
	}
	missing = ~seen & (((uint64_t)1 << BRI_NCARDS) - 1);
	if (big || __builtin_popcountll(missing) != BRI_NCARDS - want)
		return BRI_EDECK;
	if ((vi->removal == BRI_REMOVE_NONE && missing != 0) ||
	    (vi->removal == BRI_REMOVE_ONE_TWO && (missing & ~TWOS) != 0) ||
	    (vi->removal == BRI_REMOVE_ALL_TWOS && missing != TWOS))
		return BRI_EDECK;
	memset(d, 0, sizeof(*d));
	d->removed = BRI_NOCARD;
	if (vi->removal == BRI_REMOVE_ONE_TWO)
		d->removed = (bri_card)__builtin_ctzll(missing);
	d->variant = v;
	d->nseats = n;
	d->ncards = ncards;
	d->ntricks = ncards / n;
	d->handsize = h = vi->handsize;
	d->stockbase = h * n + vi->turned;
	d->sides = vi->sides;
	memcpy(d->deck, deck, ncards);
	memset(d->hand, BRI_NOCARD, sizeof(d->hand));
	d->dealer = dealer;
	d->leader = d->turn = next_seat(dealer, n);
	for (i = 0, s = d->leader; i < h * n; i++) {
		d->hand[s][d->nhand[s]++] = deck[i];
		s = next_seat(s, n);
	}
	d->trump = vi->turned ? deck[h * n] : BRI_NOCARD;
	d->trumpsuit = vi->trump == BRI_TRUMP_TURNED ?
	    BRI_CARD_SUIT(d->trump) : BRI_NOSUIT;
	d->nstock = ncards - h * n;
	for (i = 0; i < BRI_MAXSEATS; i++)
		d->drawn[i] = BRI_NOCARD;
	d->joker = BRI_NOSEAT;
	d->winner = BRI_NOSEAT;
	d->bidder = d->caller = d->partner = BRI_NOSEAT;
	d->called = BRI_NOCARD;
	d->phase = vi->auction ? BRI_PHASE_AUCTION : BRI_PHASE_PLAY;
	return BRI_OK;
}

/* A hand's slots as one word, slot 0 in the lowest byte. */
static inline uint64_t
hand_word(const bri_card *h)
{
	uint64_t	 w;

	memcpy(&w, h, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/*
 * Where card c sits in seat's hand, or -1.  Without a branch on the
 * slot, which is random in a playout: the slots are XORed with c as one
 * word, so that c's slot becomes a zero byte; the lowest zero byte found
 * by the borrow trick is exact (a false one can only sit above a true
 * one), and the slots past nhand are masked off.
 */
static inline int
hand_find(const struct bri_deal *d, int seat, bri_card c)
{
	uint64_t	 x, zero, live;
	unsigned	 nh = d->nhand[seat];

	x = hand_word(d->hand[seat]) ^ (c * ONES);
	zero = (x - ONES) & ~x & HIGHS;
	live = nh == 0 ? 0 : ~0ULL >> (64 - 8 * nh);
	zero &= live;
	return zero == 0 ? -1 : __builtin_ctzll(zero) / 8;
}

/*
 * Take the card at slot at out of seat's hand, keeping the order of the
 * others; the freed last slot gets BRI_NOCARD.  The slots are shifted as
 * one word, again to keep a random slot from steering a branch.
 */
static inline void
hand_remove(struct bri_deal *d, int seat, int at)
{
	uint64_t	 w, keep;

	w = hand_word(d->hand[seat]);
	keep = ((uint64_t)1 << (8 * at)) - 1;	/* the slots before at */
	w = (w & keep) | ((w >> 8) & ~keep) | (uint64_t)BRI_NOCARD << 56;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	memcpy(d->hand[seat], &w, sizeof(w));
	d->nhand[seat]--;
}

/* bri_deal_check(), also giving the card's place in the hand in *at. */
static inline int
deal_check(const struct bri_deal *d, int seat, bri_card c, int *at)
{
	if (d->over)
		return BRI_EDEALOVER;
	if (seat < 0 || seat >= d->nseats)
		return BRI_EINVAL;
	if (d->phase != BRI_PHASE_PLAY)
		return BRI_EPHASE;
	if (seat != d->turn)
		return BRI_ETURN;
	if ((*at = hand_find(d, seat, c)) < 0)
		return BRI_ENOTINHAND;
	return BRI_OK;
}

/*
 * Would seat playing c now be legal?  Returns BRI_OK, BRI_EDEALOVER,
 * BRI_EINVAL (no such seat), BRI_EPHASE (the auction is not over),
 * BRI_ETURN or BRI_ENOTINHAND.  Changes nothing.
 */
int
bri_deal_check(const struct bri_deal *d, int seat, bri_card c)
{
	int	 at;

	return deal_check(d, seat, c, &at);
}

/*
 * Seat plays card c.  Checked first as bri_deal_check() does; on error
 * nothing changes.  On success the play, any Joker it makes, the partner
 * it reveals, the trick it completes, the draws after it and the deal's
 * end are applied and, if ev is not NULL, described in *ev.
 */
int
bri_deal_play(struct bri_deal *d, int seat, bri_card c, struct bri_event *ev)
{
	struct bri_event	 dummy;
	int			 e, i, at, base, led, best, rank, brank, w, pts;
	int			 s, n = d->nseats;

	if ((e = deal_check(d, seat, c, &at)) != BRI_OK)
		return e;
	if (ev == NULL)
		ev = &dummy;
	ev->joker = BRI_NOSEAT;
	ev->trick_done = ev->ndraws = ev->stock_empty = 0;
	ev->deal_over = ev->match_over = 0;
	ev->trick_winner = BRI_NOSEAT;
	ev->trick_points = 0;
	ev->partner = ev->caller = BRI_NOSEAT;
	ev->auction_over = 0;

	hand_remove(d, seat, at);
	d->plays[d->nplays] = c;
	d->playseat[d->nplays++] = (uint8_t)seat;
	if (d->sides == BRI_SIDES_JOKER && d->joker == BRI_NOSEAT &&
	    BRI_CARD_SUIT(c) == d->trumpsuit)
		d->joker = ev->joker = seat;
	if (c == d->called) {
		d->revealed = 1;
		ev->partner = d->partner;
	}

	base = d->trick * n;
	if (d->nplays - base < n) {
		d->turn = next_seat(d->turn, n);
		return BRI_OK;
	}

	led = BRI_CARD_SUIT(d->plays[base]);
	best = base;
	brank = pts = 0;
	for (i = base; i < base + n; i++) {
		pts += cardpoints[d->plays[i] % 10];
		rank = trick_rank(d->plays[i], led, d->trumpsuit);
		best = rank > brank ? i : best;
		brank = rank > brank ? rank : brank;
	}
	w = d->playseat[best];
	d->points[w] += pts;
	d->winners[d->trick] = (uint8_t)w;
	d->trickpoints[d->trick++] = (uint8_t)pts;
	ev->trick_done = 1;
	ev->trick_winner = w;
	ev->trick_points = pts;

	if (d->nstock > 0) {
		for (i = 0, s = w; i < n; i++, s = next_seat(s, n)) {
			/* the stock lies on the turned trump, drawn last */
			if (--d->nstock == 0 && d->trump != BRI_NOCARD)
				c = d->trump;
			else
				c = d->deck[d->stockbase + d->ndrawn];
			d->ndrawn++;
			d->hand[s][d->nhand[s]++] = c;
			d->drawn[s] = c;
			ev->draw_seat[i] = (uint8_t)s;
			ev->draw_card[i] = c;
		}
		ev->ndraws = n;
		ev->stock_empty = d->nstock == 0;
	}
	d->leader = d->turn = (uint8_t)w;
	if (d->trick == d->ntricks) {
		d->over = 1;
		d->phase = BRI_PHASE_OVER;
		ev->deal_over = 1;
		deal_score(d);
	}
	return BRI_OK;
}

/*
 * Would seat naming rank (1..10, or BRI_PASS) now be legal in the
 * auction?  Returns BRI_OK, BRI_EDEALOVER, BRI_EINVAL (no such seat),
 * BRI_EPHASE (no auction in progress), BRI_EPASSED (the seat passed:
 * a pass is final), BRI_ETURN, or BRI_EBID (not a rank, or not strictly
 * weaker than the last rank named).  Changes nothing.
 */
int
bri_deal_bid_check(const struct bri_deal *d, int seat, int rank)
{
	if (d->over)
		return BRI_EDEALOVER;
	if (seat < 0 || seat >= d->nseats)
		return BRI_EINVAL;
	if (d->phase != BRI_PHASE_AUCTION)
		return BRI_EPHASE;
	if (d->passed >> seat & 1)
		return BRI_EPASSED;
	if (seat != d->turn)
		return BRI_ETURN;
	if (rank == BRI_PASS)
		return BRI_OK;
	if (rank < 1 || rank > 10)
		return BRI_EBID;
	/* strength orders the ranks: a weaker rank claims a stronger hand */
	if (d->bid != BRI_PASS &&
	    strength[rank - 1] >= strength[d->bid - 1])
		return BRI_EBID;
	return BRI_OK;
}

/* The auction is over with caller c (or void, c < 0): say so. */
static void
auction_end(struct bri_deal *d, int c, struct bri_event *ev)
{
	ev->auction_over = 1;
	ev->caller = c;
	if (c < 0) {
		/* five passes: a void deal, nothing played, nobody scores */
		d->over = 1;
		d->phase = BRI_PHASE_OVER;
		d->result = BRI_DEAL_VOID;
		d->turn = d->leader;
		ev->deal_over = 1;
		return;
	}
	d->caller = (int8_t)c;
	d->phase = BRI_PHASE_CALL;
	d->turn = (uint8_t)c;
}

/*
 * Seat names rank in the auction, or passes (rank BRI_PASS).  Checked
 * first as bri_deal_bid_check() does; on error nothing changes.  The
 * auction ends when every seat but one has passed and that one has
 * named a rank, when a seat names the 2, or after five passes (a void
 * deal: ev->deal_over).  Otherwise the turn goes to the next seat
 * clockwise that has not passed.  ev (if not NULL) says whether the
 * auction ended and with which caller.
 */
int
bri_deal_bid(struct bri_deal *d, int seat, int rank, struct bri_event *ev)
{
	struct bri_event	 dummy;
	int			 e, s, n = d->nseats, left;

	if ((e = bri_deal_bid_check(d, seat, rank)) != BRI_OK)
		return e;
	if (ev == NULL)
		ev = &dummy;
	memset(ev, 0, sizeof(*ev));
	ev->joker = ev->trick_winner = ev->partner = ev->caller = BRI_NOSEAT;
	d->calls[d->ncalls] = (uint8_t)rank;
	d->callseat[d->ncalls++] = (uint8_t)seat;
	if (rank == BRI_PASS)
		d->passed |= 1u << seat;
	else {
		d->bid = (uint8_t)rank;
		d->bidder = (int8_t)seat;
		if (rank == 2) {
			auction_end(d, seat, ev);
			return BRI_OK;
		}
	}
	left = n - __builtin_popcount(d->passed);
	if (left == 0) {
		auction_end(d, BRI_NOSEAT, ev);
		return BRI_OK;
	}
	if (left == 1 && d->bidder != BRI_NOSEAT &&
	    !(d->passed >> d->bidder & 1)) {
		auction_end(d, d->bidder, ev);
		return BRI_OK;
	}
	for (s = next_seat(seat, n); d->passed >> s & 1; s = next_seat(s, n))
		;
	d->turn = (uint8_t)s;
	return BRI_OK;
}

/*
 * Would the caller naming suit now be legal?  Returns BRI_OK,
 * BRI_EDEALOVER, BRI_EINVAL (no such seat), BRI_EPHASE (not the moment
 * to name a suit), BRI_ENOTCALLER or BRI_ESUIT.  Changes nothing.
 */
int
bri_deal_call_check(const struct bri_deal *d, int seat, int suit)
{
	if (d->over)
		return BRI_EDEALOVER;
	if (seat < 0 || seat >= d->nseats)
		return BRI_EINVAL;
	if (d->phase != BRI_PHASE_CALL)
		return BRI_EPHASE;
	if (seat != d->caller)
		return BRI_ENOTCALLER;
	if (suit < 0 || suit > 3)
		return BRI_ESUIT;
	return BRI_OK;
}

/*
 * The caller names suit: the called card is the rank the caller named
 * last in that suit, its suit is trump, its holder is the partner (the
 * caller himself when he holds it: he plays alone).  Then the play
 * begins, led by the seat after the dealer.  Checked first as
 * bri_deal_call_check() does; on error nothing changes.
 */
int
bri_deal_call(struct bri_deal *d, int seat, int suit)
{
	bri_card	 c;
	int		 e, s, i;

	if ((e = bri_deal_call_check(d, seat, suit)) != BRI_OK)
		return e;
	c = BRI_CARD(d->bid, suit);
	d->called = c;
	d->trumpsuit = (uint8_t)suit;
	for (s = 0; s < d->nseats; s++)
		for (i = 0; i < d->nhand[s]; i++)
			if (d->hand[s][i] == c)
				d->partner = (int8_t)s;
	d->phase = BRI_PHASE_PLAY;
	d->turn = d->leader;
	return BRI_OK;
}
