/*
 * match.c: a match of deals from one seed, its match points and its end,
 * and the per-seat view that is all a seat may know.
 */
#include <string.h>

#include "briscola.h"

/*
 * Start a match with options o and seed s: checks the options, draws the
 * first dealer, and deals nothing yet (call bri_match_deal()).  Returns
 * BRI_OK or BRI_EINVAL.
 */
int
bri_match_init(struct bri_match *m, const struct bri_options *o,
    const struct bri_seed *s)
{
	if (o == NULL || s == NULL || bri_options_check(o) != BRI_OK)
		return BRI_EINVAL;
	memset(m, 0, sizeof(*m));
	m->opt = *o;
	m->seed = *s;
	m->nseats = bri_variant_seats(o->variant);
	m->first_dealer = (uint8_t)bri_first_dealer(s, m->nseats);
	m->winner = BRI_NOSEAT;
	m->deal.over = 1;		/* no deal in play yet */
	return BRI_OK;
}

/*
 * Deal the next deal: its deck comes from the seed and its index, its
 * dealer is the first dealer moved one seat clockwise per deal.  Returns
 * BRI_OK, BRI_EMATCHOVER, or BRI_EINVAL while a deal is still in play.
 */
int
bri_match_deal(struct bri_match *m)
{
	bri_card	 deck[BRI_NCARDS], removed;
	int		 n, e;

	if (m->result != BRI_MATCH_PLAYING)
		return BRI_EMATCHOVER;
	if (!m->deal.over)
		return BRI_EINVAL;
	n = bri_shuffle(&m->seed, &m->opt, m->ndeals, deck, &removed);
	if (n < 0)
		return n;
	e = bri_deal_init(&m->deal, m->opt.variant, deck, n,
	    (m->first_dealer + m->ndeals) % m->nseats);
	if (e != BRI_OK)
		return e;
	m->ndeals++;
	return BRI_OK;
}

/* Seats holding the top match points, as a bitmask; *top gets the value. */
static unsigned
match_leaders(const struct bri_match *m, int *top)
{
	unsigned	 mask = 0;
	int		 i;

	*top = -1;
	for (i = 0; i < m->nseats; i++) {
		if (m->mpoints[i] > *top) {
			*top = m->mpoints[i];
			mask = 0;
		}
		if (m->mpoints[i] == *top)
			mask |= 1u << i;
	}
	return mask;
}

/*
 * Apply a finished deal to the match points and decide the match's end,
 * by the variant's match rule: first to a number of won deals, first
 * strictly ahead at a target of match points, or a fixed number of
 * deals.  A won deal is a deal that gave the seat match points.
 */
static void
match_score(struct bri_match *m)
{
	const struct bri_variant_info *vi = bri_variant_info(m->opt.variant);
	struct bri_deal	*d = &m->deal;
	unsigned	 lead, side;
	int		 i, top, target;

	for (i = 0; i < m->nseats; i++) {
		m->mpoints[i] += d->mpoints[i];
		m->deals_won[i] += d->mpoints[i] > 0;
	}

	lead = match_leaders(m, &top);
	if (vi->matchscore == BRI_MSCORE_FIXED) {
		if (m->ndeals < m->opt.deals)
			return;
		if ((lead & (lead - 1)) == 0) {
			m->result = BRI_MATCH_WON;
			m->winner = (int8_t)__builtin_ctz(lead);
		} else {
			m->result = BRI_MATCH_DRAWN;
			m->tied = (uint8_t)lead;
		}
		return;
	}
	target = vi->matchscore == BRI_MSCORE_TARGET ? m->opt.match_target :
	    m->opt.deals_to_win;
	/* teammates share their points: one side may be several leaders */
	for (i = 0, side = 0; i < m->nseats; i++)
		if (lead >> i & 1)
			side |= 1u << bri_deal_team(d, i);
	if (top >= target && (side & (side - 1)) == 0) {
		m->result = BRI_MATCH_WON;
		m->winner = (int8_t)bri_deal_team(d, __builtin_ctz(lead));
	} else if (m->ndeals >= m->opt.deal_cap) {
		m->result = BRI_MATCH_DRAWN;
		m->tied = (uint8_t)lead;
	}
}

/* After a play or a bid that ended the deal: score it into the match. */
static void
match_after(struct bri_match *m, struct bri_event *ev)
{
	if (ev->deal_over) {
		match_score(m);
		ev->match_over = m->result != BRI_MATCH_PLAYING;
	}
}

/*
 * Seat plays card c in the current deal, as bri_deal_play(); when that
 * ends the deal, the match points move and ev->match_over says whether
 * the match is over.  Returns what bri_deal_play() returns, or
 * BRI_EMATCHOVER.
 */
int
bri_match_play(struct bri_match *m, int seat, bri_card c,
    struct bri_event *ev)
{
	struct bri_event	 dummy;
	int			 e;

	if (m->result != BRI_MATCH_PLAYING)
		return BRI_EMATCHOVER;
	if (ev == NULL)
		ev = &dummy;
	if ((e = bri_deal_play(&m->deal, seat, c, ev)) != BRI_OK)
		return e;
	match_after(m, ev);
	return BRI_OK;
}

/*
 * Seat names rank or passes in the current deal's auction, as
 * bri_deal_bid(); a void deal (five passes) ends here, and the match
 * with it after its last deal.  Returns what bri_deal_bid() returns, or
 * BRI_EMATCHOVER.
 */
int
bri_match_bid(struct bri_match *m, int seat, int rank, struct bri_event *ev)
{
	struct bri_event	 dummy;
	int			 e;

	if (m->result != BRI_MATCH_PLAYING)
		return BRI_EMATCHOVER;
	if (ev == NULL)
		ev = &dummy;
	if ((e = bri_deal_bid(&m->deal, seat, rank, ev)) != BRI_OK)
		return e;
	match_after(m, ev);
	return BRI_OK;
}

/* The caller names suit in the current deal, as bri_deal_call(). */
int
bri_match_call(struct bri_match *m, int seat, int suit)
{
	if (m->result != BRI_MATCH_PLAYING)
		return BRI_EMATCHOVER;
	return bri_deal_call(&m->deal, seat, suit);
}

/*
 * What seat may know of deal d now, into *v: its own hand, the trump
 * card, every card played, the Joker, the scores; in classic4 its
 * partner's hand once the stock is empty; in chiamata5 every call of the
 * auction, the caller, the called card once named and the partner once
 * revealed (or to its holder); the removed 2 once the deal is over.  Returns BRI_OK or BRI_EINVAL for a seat not at the table.
 */
int
bri_view_of_deal(const struct bri_deal *d, int seat, struct bri_view *v)
{
	const struct bri_variant_info *vi = bri_variant_info(d->variant);
	int	 p, pub = seat == BRI_NOSEAT;

	if ((seat < 0 || seat >= d->nseats) && !pub)
		return BRI_EINVAL;
	memset(v, 0, sizeof(*v));
	v->variant = d->variant;
	v->nseats = d->nseats;
	v->seat = (uint8_t)seat;
	v->dealer = d->dealer;
	v->trump = d->trump;
	/* the public's view (BRI_NOSEAT): no hand at all */
	v->nhand = pub ? 0 : d->nhand[seat];
	if (pub)
		memset(v->hand, BRI_NOCARD, sizeof(v->hand));
	else
		memcpy(v->hand, d->hand[seat], sizeof(v->hand));
	v->drawn = pub ? BRI_NOCARD : d->drawn[seat];
	v->stock = d->nstock;
	v->turn = d->turn;
	v->leader = d->leader;
	v->nplays = d->nplays;
	memcpy(v->plays, d->plays, d->nplays);
	memcpy(v->playseat, d->playseat, d->nplays);
	memset(v->plays + d->nplays, BRI_NOCARD, BRI_NCARDS - d->nplays);
	v->trick = d->trick;
	memcpy(v->winners, d->winners, d->trick);
	v->joker = d->joker;
	memcpy(v->points, d->points, sizeof(v->points));
	v->partner = BRI_NOSEAT;
	memset(v->partner_hand, BRI_NOCARD, sizeof(v->partner_hand));
	if (vi->showpartner && !pub) {
		p = (seat + 2) % 4;
		v->partner = (int8_t)p;
		if (d->nstock == 0) {
			v->npartner = d->nhand[p];
			memcpy(v->partner_hand, d->hand[p], d->nhand[p]);
		}
	}
	v->trumpsuit = d->trumpsuit;
	v->phase = d->phase;
	v->ncalls = d->ncalls;
	memcpy(v->calls, d->calls, d->ncalls);
	memcpy(v->callseat, d->callseat, d->ncalls);
	v->caller = d->caller;
	v->called = d->called;
	v->revealed = d->revealed;
	/*
	 * The partner: to all once the called card is played, before that
	 * only to its holder, who sees the card in its own hand.  Nothing
	 * else in the view depends on who holds it.
	 */
	if (d->partner != BRI_NOSEAT && (d->revealed || d->partner == seat))
		v->partner = d->partner;
	v->over = d->over;
	v->result = d->result;
	v->winner = d->winner;
	if (d->over)
		memcpy(v->dmpoints, d->mpoints, sizeof(v->dmpoints));
	v->removed = d->over ? d->removed : BRI_NOCARD;
	return BRI_OK;
}

/* bri_view_of_deal() of the match's current deal, with match points. */
int
bri_view_build(const struct bri_match *m, int seat, struct bri_view *v)
{
	int	 e;

	if ((e = bri_view_of_deal(&m->deal, seat, v)) != BRI_OK)
		return e;
	v->deal_no = m->ndeals;
	memcpy(v->mpoints, m->mpoints, sizeof(v->mpoints));
	return BRI_OK;
}
