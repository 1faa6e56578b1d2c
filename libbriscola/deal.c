/*
 * deal.c: one deal from its deck order to its result.
 *
 * The deck order is the whole truth of a deal: cards 0 .. 3n-1 are dealt
 * one at a time starting with the seat after the dealer, card 3n is
 * turned up as trump, and the rest is the stock in drawing order; the
 * turned trump lies under the stock and is drawn last.  Nothing here
 * allocates or fails after a play has been checked.
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

/* hand_find() and hand_remove() know a hand's three slots by name. */
_Static_assert(BRI_HANDSIZE == 3, "a hand is three cards");

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

/* Team of a seat: seat % 2 in classic4, the seat itself elsewhere. */
int
bri_deal_team(const struct bri_deal *d, int seat)
{
	return d->variant == BRI_CLASSIC4 ? seat % 2 : seat;
}

/* Score a finished deal by its variant's rule. */
static void
deal_score(struct bri_deal *d)
{
	int	 i, best, nbest, j;

	d->winner = BRI_NOSEAT;
	switch (d->variant) {
	case BRI_JOKER3:
		j = d->joker;
		if (d->points[j] >= 51)
			d->result = BRI_DEAL_JOKER;
		else if (120 - d->points[j] >= 71)
			d->result = BRI_DEAL_ALLIES;
		else
			d->result = BRI_DEAL_VOID;
		break;
	case BRI_CLASSIC4:
		for (i = 0; i < 2; i++)
			if (d->points[i] + d->points[i + 2] >= 61)
				d->winner = i;
		d->result = d->winner == BRI_NOSEAT ? BRI_DEAL_DRAWN :
		    BRI_DEAL_WON;
		break;
	default:
		/* classic2 (61 of 120 is the single top) and classic3 */
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
}

/*
 * Start a deal of variant v from the deck order deck (ncards cards) with
 * the given dealer.  The deck must hold each card once: all 40 for
 * classic2 and classic4, 39 with one 2 missing for joker3 and classic3.
 * Returns BRI_OK, BRI_EINVAL (variant, dealer) or BRI_EDECK.
 */
int
bri_deal_init(struct bri_deal *d, enum bri_variant v, const bri_card *deck,
    int ncards, int dealer)
{
	uint64_t	 seen = 0, missing;
	unsigned	 big = 0;
	int		 n, i, s, want;

	n = bri_variant_seats(v);
	if (n == 0 || dealer < 0 || dealer >= n || deck == NULL)
		return BRI_EINVAL;
	want = (v == BRI_JOKER3 || v == BRI_CLASSIC3) ? 39 : 40;
	if (ncards != want)
		return BRI_EDECK;
	/*
	 * Every card in range and none twice: then the cards missing from
	 * the deck are as many as 40 - ncards, none for 40 and one for 39.
	 */
	for (i = 0; i < ncards; i++) {
		big |= deck[i] >= BRI_NCARDS;
		seen |= (uint64_t)1 << (deck[i] & 63);
	}
	missing = ~seen & (((uint64_t)1 << BRI_NCARDS) - 1);
	if (big || (want == 40 && missing != 0) ||
	    (want == 39 && (missing == 0 || (missing & (missing - 1)) != 0)))
		return BRI_EDECK;
	memset(d, 0, sizeof(*d));
	d->removed = BRI_NOCARD;
	if (want == 39) {
		d->removed = (bri_card)__builtin_ctzll(missing);
		if (BRI_CARD_RANK(d->removed) != 2)
			return BRI_EDECK;
	}
	d->variant = v;
	d->nseats = n;
	d->ncards = ncards;
	d->ntricks = ncards / n;
	/* a copy of known length, which compilers do without a loop */
	memcpy(d->deck, deck, 39);
	if (ncards == 40)
		d->deck[39] = deck[39];
	d->dealer = dealer;
	d->leader = d->turn = next_seat(dealer, n);
	for (i = 0, s = d->leader; i < BRI_HANDSIZE * n; i++) {
		d->hand[s][d->nhand[s]++] = deck[i];
		s = next_seat(s, n);
	}
	d->trump = deck[BRI_HANDSIZE * n];
	d->trumpsuit = BRI_CARD_SUIT(d->trump);
	d->nstock = ncards - BRI_HANDSIZE * n;
	for (i = 0; i < BRI_MAXSEATS; i++)
		d->drawn[i] = BRI_NOCARD;
	d->joker = BRI_NOSEAT;
	d->winner = BRI_NOSEAT;
	return BRI_OK;
}

/*
 * Where card c sits in seat's hand, or -1.  Without a branch on the
 * slot, which is random in a playout: one bit per slot that holds c, the
 * slots past nhand left out, and the lowest bit set.
 */
static inline int
hand_find(const struct bri_deal *d, int seat, bri_card c)
{
	const bri_card	*h = d->hand[seat];
	unsigned	 bits;
	int		 at;

	bits = (h[0] == c) | (h[1] == c) << 1 | (h[2] == c) << 2;
	bits &= (1u << d->nhand[seat]) - 1;
	at = __builtin_ctz(bits | 1u << BRI_HANDSIZE);
	return at == BRI_HANDSIZE ? -1 : at;
}

/*
 * Take the card at slot at out of seat's hand, keeping the order of the
 * others; the freed last slot gets BRI_NOCARD.  The three slots are
 * shifted as one word, again to keep a random slot from steering a
 * branch.
 */
static inline void
hand_remove(struct bri_deal *d, int seat, int at)
{
	bri_card	*h = d->hand[seat];
	uint32_t	 w, keep;

	w = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16;
	keep = ((uint32_t)1 << (8 * at)) - 1;	/* the slots before at */
	w = (w & keep) | ((w >> 8) & ~keep) | (uint32_t)BRI_NOCARD << 16;
	h[0] = (bri_card)w;
	h[1] = (bri_card)(w >> 8);
	h[2] = (bri_card)(w >> 16);
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
	if (seat != d->turn)
		return BRI_ETURN;
	if ((*at = hand_find(d, seat, c)) < 0)
		return BRI_ENOTINHAND;
	return BRI_OK;
}

/*
 * Would seat playing c now be legal?  Returns BRI_OK, BRI_EDEALOVER,
 * BRI_EINVAL (no such seat), BRI_ETURN or BRI_ENOTINHAND.  Changes nothing.
 */
int
bri_deal_check(const struct bri_deal *d, int seat, bri_card c)
{
	int	 at;

	return deal_check(d, seat, c, &at);
}

/*
 * Seat plays card c.  Checked first as bri_deal_check() does; on error
 * nothing changes.  On success the play, any Joker it makes, the trick it
 * completes, the draws after it and the deal's end are applied and, if ev
 * is not NULL, described in *ev.
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

	hand_remove(d, seat, at);
	d->plays[d->nplays] = c;
	d->playseat[d->nplays++] = (uint8_t)seat;
	if (d->variant == BRI_JOKER3 && d->joker == BRI_NOSEAT &&
	    BRI_CARD_SUIT(c) == d->trumpsuit)
		d->joker = ev->joker = seat;

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
			if (--d->nstock == 0)
				c = d->trump;
			else
				c = d->deck[BRI_HANDSIZE * n + 1 + d->ndrawn];
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
		ev->deal_over = 1;
		deal_score(d);
	}
	return BRI_OK;
}
