/*
 * deal.c: one deal from its deck order to its result.
 *
 * The deck order is the whole truth of a deal: cards 0 .. 3n-1 are dealt
 * one at a time starting with the seat after the dealer, card 3n is
 * turned up as trump, and the rest is the stock in drawing order; the
 * turned trump lies under the stock and is drawn last.  Nothing here allocates or fails after a play
 * has been checked.
 */
#include <string.h>

#include "briscola.h"

/* Does card c beat card best, the best card so far in a trick? */
static int
beats(bri_card c, bri_card best, int trumpsuit)
{
	if (BRI_CARD_SUIT(c) == BRI_CARD_SUIT(best))
		return bri_card_strength(c) > bri_card_strength(best);
	return BRI_CARD_SUIT(c) == trumpsuit;
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
	uint64_t	 seen = 0;
	int		 n, i, s, want;

	n = bri_variant_seats(v);
	if (n == 0 || dealer < 0 || dealer >= n || deck == NULL)
		return BRI_EINVAL;
	want = (v == BRI_JOKER3 || v == BRI_CLASSIC3) ? 39 : 40;
	if (ncards != want)
		return BRI_EDECK;
	for (i = 0; i < ncards; i++) {
		if (deck[i] >= BRI_NCARDS || (seen >> deck[i] & 1))
			return BRI_EDECK;
		seen |= (uint64_t)1 << deck[i];
	}
	memset(d, 0, sizeof(*d));
	d->removed = BRI_NOCARD;
	if (want == 39) {
		for (i = 0; i < BRI_NCARDS; i++)
			if (!(seen >> i & 1))
				d->removed = (bri_card)i;
		if (BRI_CARD_RANK(d->removed) != 2)
			return BRI_EDECK;
	}
	d->variant = v;
	d->nseats = n;
	d->ncards = ncards;
	d->ntricks = ncards / n;
	memcpy(d->deck, deck, ncards);
	d->dealer = dealer;
	d->leader = d->turn = (dealer + 1) % n;
	for (i = 0; i < BRI_HANDSIZE * n; i++) {
		s = (d->leader + i) % n;
		d->hand[s][d->nhand[s]++] = deck[i];
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

/* Where card c sits in seat's hand, or -1. */
static int
hand_find(const struct bri_deal *d, int seat, bri_card c)
{
	int	 i;

	for (i = 0; i < d->nhand[seat]; i++)
		if (d->hand[seat][i] == c)
			return i;
	return -1;
}

/*
 * Would seat playing c now be legal?  Returns BRI_OK, BRI_EDEALOVER,
 * BRI_EINVAL (no such seat), BRI_ETURN or BRI_ENOTINHAND.  Changes nothing.
 */
int
bri_deal_check(const struct bri_deal *d, int seat, bri_card c)
{
	if (d->over)
		return BRI_EDEALOVER;
	if (seat < 0 || seat >= d->nseats)
		return BRI_EINVAL;
	if (seat != d->turn)
		return BRI_ETURN;
	if (hand_find(d, seat, c) < 0)
		return BRI_ENOTINHAND;
	return BRI_OK;
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
	int			 e, i, at, base, best, w, pts, s, n = d->nseats;

	if ((e = bri_deal_check(d, seat, c)) != BRI_OK)
		return e;
	if (ev == NULL)
		ev = &dummy;
	ev->joker = BRI_NOSEAT;
	ev->trick_done = ev->ndraws = ev->stock_empty = 0;
	ev->deal_over = ev->match_over = 0;
	ev->trick_winner = BRI_NOSEAT;
	ev->trick_points = 0;

	at = hand_find(d, seat, c);
	for (i = at + 1; i < d->nhand[seat]; i++)
		d->hand[seat][i - 1] = d->hand[seat][i];
	d->hand[seat][--d->nhand[seat]] = BRI_NOCARD;
	d->plays[d->nplays] = c;
	d->playseat[d->nplays++] = (uint8_t)seat;
	if (d->variant == BRI_JOKER3 && d->joker == BRI_NOSEAT &&
	    BRI_CARD_SUIT(c) == d->trumpsuit)
		d->joker = ev->joker = seat;

	base = d->trick * n;
	if (d->nplays - base < n) {
		d->turn = (d->turn + 1) % n;
		return BRI_OK;
	}

	best = base;
	pts = bri_card_points(d->plays[base]);
	for (i = base + 1; i < base + n; i++) {
		pts += bri_card_points(d->plays[i]);
		if (beats(d->plays[i], d->plays[best], d->trumpsuit))
			best = i;
	}
	w = d->playseat[best];
	d->points[w] += pts;
	d->winners[d->trick] = (uint8_t)w;
	d->trickpoints[d->trick++] = (uint8_t)pts;
	ev->trick_done = 1;
	ev->trick_winner = w;
	ev->trick_points = pts;

	if (d->nstock > 0) {
		for (i = 0; i < n; i++) {
			s = (w + i) % n;
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
