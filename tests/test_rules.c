/*
 * test_rules: one unit test per rule and per decision of the rules, as
 * settled in the project's rules repository: rules/joker-briscola.md,
 * rules/classic-briscola.md and rules/more-variants.md.
 *
 * Every scenario that depends on the cards is built from an explicit
 * deck order (hands by seat, the turned trump, the stock) and played
 * card by card, so each test says exactly which situation it checks.
 * Full-deal scenarios come from tests/deals.txt or were found once by a
 * seeded search and written out here.
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

/* A deal written out: hands by seat ("a,b,c/d,e,f/..."), trump, stock. */
struct scen {
	enum bri_variant v;
	int		 leader;	/* the dealer is the seat before */
	const char	*hands;
	const char	*trump;
	const char	*stock;		/* NULL: the rest, ascending */
	const char	*removed;	/* the 2 left out of that rest */
	const char	*plays;		/* NULL: nothing scripted */
};

/* Ranks from strongest to weakest, as the rules table lists them. */
static const int rank_order[10] = { 1, 3, 10, 9, 8, 7, 6, 5, 4, 2 };

/* Our own strength of a card, from the rules table rather than the library. */
static int
ref_strength(bri_card c)
{
	int	 i;

	for (i = 0; i < 10; i++)
		if (rank_order[i] == BRI_CARD_RANK(c))
			return 10 - i;
	fail_msg("no rank %d", BRI_CARD_RANK(c));
	return 0;
}

/* Our own trick winner (index into cards), written straight from rule 5. */
static int
ref_winner(const bri_card *cards, int n, int trumpsuit)
{
	int	 i, best = 0, besttrump;

	besttrump = BRI_CARD_SUIT(cards[0]) == trumpsuit;
	for (i = 1; i < n; i++) {
		if (BRI_CARD_SUIT(cards[i]) == trumpsuit) {
			if (!besttrump || ref_strength(cards[i]) >
			    ref_strength(cards[best])) {
				best = i;
				besttrump = 1;
			}
		} else if (!besttrump &&
		    BRI_CARD_SUIT(cards[i]) == BRI_CARD_SUIT(cards[0]) &&
		    ref_strength(cards[i]) > ref_strength(cards[best]))
			best = i;
	}
	return best;
}

/* Parse one card of a scenario, failing the test on a typo. */
static bri_card
card(const char *s)
{
	bri_card	 c;

	if (bri_card_parse(s, strlen(s), &c) != BRI_OK)
		fail_msg("bad card \"%s\" in a scenario", s);
	return c;
}

/* Parse a list of cards split on ',' or '/'; returns how many. */
static int
cards(const char *s, bri_card *out, int max)
{
	const char	*e;
	int		 n = 0;

	if (s == NULL || *s == '\0')
		return 0;
	for (;;) {
		e = s + strcspn(s, ",/");
		assert_true(n < max);
		if (bri_card_parse(s, (size_t)(e - s), &out[n]) != BRI_OK)
			fail_msg("bad card list \"%s\"", s);
		n++;
		if (*e == '\0')
			return n;
		s = e + 1;
	}
}

/*
 * Build the deck order of a scenario the way the library deals it:
 * card k*n+i goes to seat leader+i, then the trump, then the stock.
 */
static int
scen_deck(const struct scen *sc, bri_card deck[BRI_NCARDS])
{
	const struct bri_variant_info *vi = bri_variant_info(sc->v);
	bri_card	 hands[BRI_MAXSEATS * BRI_MAXHAND], gone = BRI_NOCARD;
	uint64_t	 used = 0;
	int		 n, k, i, nc, c, h = vi->handsize;

	n = bri_variant_seats(sc->v);
	assert_int_equal(cards(sc->hands, hands, BRI_MAXSEATS * BRI_MAXHAND),
	    n * h);
	for (k = 0; k < h; k++)
		for (i = 0; i < n; i++)
			deck[k * n + i] = hands[((sc->leader + i) % n) * h + k];
	nc = h * n;
	if (vi->turned)
		deck[nc++] = card(sc->trump);
	if (sc->stock != NULL)
		return nc + cards(sc->stock, deck + nc, BRI_NCARDS - nc);
	if (sc->removed != NULL)
		gone = card(sc->removed);
	for (i = 0; i < nc; i++)
		used |= (uint64_t)1 << deck[i];
	for (c = 0; c < BRI_NCARDS; c++)
		if (!(used >> c & 1) && c != gone &&
		    (vi->removal != BRI_REMOVE_ALL_TWOS ||
		    BRI_CARD_RANK(c) != 2))
			deck[nc++] = (bri_card)c;
	return nc;
}

/* Start the deal of a scenario, which must be accepted. */
static void
scen_deal(struct bri_deal *d, const struct scen *sc)
{
	bri_card	 deck[BRI_NCARDS];
	int		 n, nc;

	n = bri_variant_seats(sc->v);
	nc = scen_deck(sc, deck);
	assert_int_equal(bri_deal_init(d, sc->v, deck, nc,
	    (sc->leader + n - 1) % n), BRI_OK);
	assert_int_equal(d->leader, sc->leader);
	assert_int_equal(d->turn, sc->leader);
}

/*
 * Play a list of cards, each by the seat whose turn it is, and check
 * every completed trick against our own trick rule; evs (if not NULL)
 * receives one event per card.  Returns how many cards were played.
 */
static int
play_cards(struct bri_deal *d, const char *list, struct bri_event *evs)
{
	struct bri_event	 ev;
	bri_card		 c[BRI_NCARDS];
	int			 i, k, nc, base, w, pts;

	nc = cards(list, c, BRI_NCARDS);
	for (i = 0; i < nc; i++) {
		assert_int_equal(bri_deal_play(d, d->turn, c[i], &ev), BRI_OK);
		if (evs != NULL)
			evs[i] = ev;
		if (!ev.trick_done)
			continue;
		base = (d->trick - 1) * d->nseats;
		w = ref_winner(d->plays + base, d->nseats, d->trumpsuit);
		assert_int_equal(ev.trick_winner, d->playseat[base + w]);
		for (k = 0, pts = 0; k < d->nseats; k++)
			pts += bri_card_points(d->plays[base + k]);
		assert_int_equal(ev.trick_points, pts);
	}
	return nc;
}

/* Play a scenario from its deal to the end of its script. */
static void
scen_play(struct bri_deal *d, const struct scen *sc, struct bri_event *evs)
{
	scen_deal(d, sc);
	play_cards(d, sc->plays, evs);
}

/* Small deterministic generator for choosing cards and making seeds. */
static uint64_t
splitmix(uint64_t *x)
{
	uint64_t	 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A reproducible seed for counter k, so that searches are deterministic. */
static void
seed_of(uint64_t k, struct bri_seed *s)
{
	uint64_t	 x = k * 0x1000193ULL + 12345, v = 0;
	int		 i;

	for (i = 0; i < BRI_SEEDLEN; i++) {
		if (i % 8 == 0)
			v = splitmix(&x);
		s->b[i] = (uint8_t)(v >> (8 * (i % 8)));
	}
}

/* A pseudo-random card from the hand of the seat to move. */
static bri_card
pick(const struct bri_deal *d, uint64_t *x)
{
	return d->hand[d->turn][splitmix(x) % d->nhand[d->turn]];
}

/*
 * A random legal call for the seat to speak: a pass half the time (or
 * when nothing weaker is left), else a rank weaker than the last named.
 */
static int
pick_bid(const struct bri_deal *d, uint64_t *x)
{
	int	 i, n = 0, ok[10];

	for (i = 0; i < 10; i++)
		if (bri_deal_bid_check(d, d->turn, rank_order[i]) == BRI_OK)
			ok[n++] = rank_order[i];
	if (n == 0 || splitmix(x) % 2 == 0)
		return BRI_PASS;
	return ok[splitmix(x) % n];
}

/* Run a chiamata5 deal's auction and suit call at random, if it has one. */
static void
deal_auction(struct bri_deal *d, uint64_t *x)
{
	while (d->phase == BRI_PHASE_AUCTION)
		assert_int_equal(bri_deal_bid(d, d->turn, pick_bid(d, x),
		    NULL), BRI_OK);
	if (d->phase == BRI_PHASE_CALL)
		assert_int_equal(bri_deal_call(d, d->caller,
		    (int)(splitmix(x) % 4)), BRI_OK);
}

/* Play out a match's current deal at random; returns the last event. */
static struct bri_event
match_play_deal(struct bri_match *m, uint64_t *x)
{
	struct bri_event	 ev;

	memset(&ev, 0, sizeof(ev));
	while (m->deal.phase == BRI_PHASE_AUCTION)
		assert_int_equal(bri_match_bid(m, m->deal.turn,
		    pick_bid(&m->deal, x), &ev), BRI_OK);
	if (m->deal.phase == BRI_PHASE_CALL)
		assert_int_equal(bri_match_call(m, m->deal.caller,
		    (int)(splitmix(x) % 4)), BRI_OK);
	while (!m->deal.over)
		assert_int_equal(bri_match_play(m, m->deal.turn,
		    pick(&m->deal, x), &ev), BRI_OK);
	return ev;
}

/* Full deals taken from tests/deals.txt or found by a seeded search. */
static const struct scen joker_void = { BRI_JOKER3, 0,
	"4B,6B,1B/2D,4D,10B/3B,3S,8S", "4C",
	"8B,10D,10S,9S,9C,7C,1D,7B,3D,1S,9D,6D,5S,10C,1C,7D,3C,7S,5B,5C,"
	"8D,4S,9B,2B,6C,2C,6S,8C,5D", NULL,
	"4B,4D,8S,6B,10D,10S,8B,2D,7C,3B,9S,3D,3S,7B,9C,10B,1D,1B,1C,6D,"
	"7S,7D,5S,8D,10C,9D,5C,1S,9B,2B,6C,5D,3C,4C,4S,2C,6S,8C,5B" };
static const struct scen joker_51 = { BRI_JOKER3, 1,
	"6D,2S,6B/4S,3B,7C/5S,5B,4B", "4C",
	"3S,7D,8C,9S,6C,1S,10D,9C,10C,1B,9D,9B,8B,3C,6S,3D,7B,1C,7S,2B,"
	"5D,10S,10B,1D,8S,2C,4D,8D,5C", NULL,
	"7C,5B,2S,3B,7D,8C,9S,4S,5S,10D,3S,4B,1B,6C,1S,8B,10C,6S,3D,6B,"
	"1C,9C,9B,6D,10S,3C,1D,10B,7B,4D,8D,5D,7S,8S,2C,4C,9D,2B,5C" };
static const struct scen joker_49 = { BRI_JOKER3, 1,
	"6D,6C,1D/2B,4D,5B/4S,10S,4C", "3B",
	"1B,9S,2D,8D,10D,3C,9B,6B,8S,8C,9D,7C,3S,8B,7D,1S,1C,6S,9C,10C,"
	"7B,7S,10B,5D,5C,2S,5S,3D,4B", NULL,
	"5B,4C,1D,4D,4S,6C,2B,9S,2D,9B,10S,8S,8D,6B,3C,3S,6D,7D,10D,7C,"
	"8C,9D,10C,6S,9C,8B,1B,7B,7S,10B,1C,5D,1S,3D,4B,2S,5C,3B,5S" };
static const struct scen classic2_6060 = { BRI_CLASSIC2, 0,
	"7C,3C,10C/9S,7D,6C", "8S",
	"1D,10S,5D,4D,6B,7S,8D,9C,6D,1S,5B,1B,9D,3B,2B,3D,8C,2S,10D,4C,"
	"1C,10B,8B,7B,6S,2C,4S,2D,5C,4B,3S,5S,9B", NULL,
	"7C,7D,3C,6C,10C,4D,5D,10S,9S,9C,6D,1S,6B,8D,9D,7S,1B,1D,8C,3D,"
	"3B,4C,2B,10B,8B,10D,2S,2C,6S,2D,4S,1C,5C,7B,9B,5S,4B,5B,3S,8S" };
static const struct scen classic2_6159 = { BRI_CLASSIC2, 1,
	"7D,10B,6D/8D,7S,8B", "1C",
	"4C,2D,9S,10S,1S,4S,5B,2C,5C,9B,3S,7B,9C,7C,2S,6S,3D,3C,6B,1B,"
	"5S,8C,4B,10D,3B,10C,2B,5D,4D,8S,1D,6C,9D", NULL,
	"8B,6D,7S,10B,9S,2D,1S,4S,4C,10S,8D,7D,5B,2C,9C,7C,2S,6S,3S,3C,"
	"9B,3D,7B,5C,4B,6B,3B,1B,8C,5S,4D,5D,10D,10C,2B,8S,9D,1D,1C,6C" };
static const struct scen classic2_5961 = { BRI_CLASSIC2, 0,
	"3S,9C,7S/7B,7C,5D", "8B",
	"6B,5C,2D,4S,5B,8D,6S,6D,1C,8S,1B,4B,8C,10S,5S,9S,10B,2B,2S,3D,"
	"10D,4C,6C,7D,3B,9D,1S,4D,10C,1D,9B,2C,3C", NULL,
	"3S,7B,7C,7S,2D,5C,6B,4S,6S,9C,5D,6D,8S,5B,4B,10S,8C,8D,5S,2B,"
	"2S,1C,9S,10B,4C,7D,6C,1B,9D,3B,10C,1S,9B,2C,3D,8B,1D,3C,10D,4D" };
static const struct scen classic3_draw = { BRI_CLASSIC3, 1,
	"7D,5S,3D/2B,10S,5C/6D,9D,10B", "6S",
	"8C,2D,4B,1C,8D,5D,1S,8S,3S,2S,8B,4C,6C,6B,10D,3B,7C,7S,7B,9C,"
	"4S,10C,9B,1B,9S,3C,1D,4D,5B", NULL,
	"2B,9D,3D,5C,10B,5S,7D,10S,5D,8D,8S,3S,2S,8C,6D,6C,1S,2D,6B,10D,"
	"1C,7B,7C,4S,4B,9B,1B,9C,7S,1D,10C,5B,9S,6S,3C,8B,4C,4D,3B" };
static const struct scen classic3_win = { BRI_CLASSIC3, 0,
	"2B,1S,7D/4S,6D,10D/5C,1B,5S", "6B",
	"3S,3D,1C,8B,2D,8S,10B,7B,3C,8C,5B,6C,9D,9B,8D,9S,4B,10C,4C,1D,"
	"7S,5D,7C,10S,6S,4D,3B,2S,9C", NULL,
	"2B,4S,5C,3S,3D,1C,8B,2D,8S,10B,7B,3C,8C,5B,6C,9D,9B,8D,9S,4B,"
	"10C,4C,1D,7S,5D,7C,10S,6S,4D,3B,2S,9C,6B,6D,1B,1S,5S,7D,10D" };
static const struct scen classic4_win = { BRI_CLASSIC4, 0,
	"2B,1S,7D/4S,6D,10D/5C,1B,5S/6B,3S,3D", "1C",
	"8B,2D,8S,10B,7B,3C,8C,5B,6C,9D,9B,2C,8D,9S,4B,10C,4C,1D,7S,5D,"
	"7C,10S,6S,4D,3B,2S,9C", NULL,
	"2B,4S,5C,6B,8B,2D,8S,10B,7B,3C,8C,5B,6C,9D,9B,2C,8D,9S,4B,10C,"
	"4C,1D,7S,5D,7C,10S,6S,4D,3B,2S,9C,1C,1S,6D,1B,3S,7D,10D,5S,3D" };
static const struct scen classic4_draw = { BRI_CLASSIC4, 1,
	"9S,3C,1C/5C,8B,9D/7B,7S,10B/4B,8D,3D", "3B",
	"6D,5D,8C,4D,3S,6C,2D,5B,1D,10D,6B,5S,6S,2S,1S,7C,9C,4C,2C,9B,"
	"2B,7D,1B,4S,10S,8S,10C", NULL,
	"8B,7S,3D,1C,6D,7B,8D,4D,10B,6C,2D,5C,3S,4B,3C,5S,10D,2S,9D,7C,"
	"6S,6B,1S,9B,1D,9C,1B,5B,9S,8S,5D,7D,4C,2C,2B,3B,8C,10S,4S,10C" };

/* Every card's text parses back to that card, in upper and lower case. */
static void
test_card_parse_roundtrip(void **state)
{
	char		 buf[BRI_CARD_STRLEN], low[BRI_CARD_STRLEN];
	bri_card	 c, got;
	size_t		 len, i;

	(void)state;
	for (c = 0; c < BRI_NCARDS; c++) {
		bri_card_format(c, buf);
		len = strlen(buf);
		assert_true(len == 2 || len == 3);
		assert_int_equal(len == 3, BRI_CARD_RANK(c) == 10);
		assert_true(buf[len - 1] >= 'A' && buf[len - 1] <= 'Z');
		assert_int_equal(bri_card_parse(buf, len, &got), BRI_OK);
		assert_int_equal(got, c);
		for (i = 0; i <= len; i++)
			low[i] = (buf[i] >= 'A' && buf[i] <= 'Z') ?
			    buf[i] - 'A' + 'a' : buf[i];
		got = BRI_NOCARD;
		assert_int_equal(bri_card_parse(low, len, &got), BRI_OK);
		assert_int_equal(got, c);
	}
	assert_int_equal(bri_card_parse("10d", 3, &got), BRI_OK);
	assert_int_equal(got, BRI_CARD(10, BRI_DENARI));
	assert_int_equal(bri_card_parse("1c", 2, &got), BRI_OK);
	assert_int_equal(got, BRI_CARD(1, BRI_COPPE));
}

/* Text that is not exactly one card is refused and leaves *c alone. */
static void
test_card_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"0C", "11D", "1X", "", "10", "1CC", "C1", " 1C", "1C ", "01C",
		"100", "10X", "1", "C", "-1C", "+1C", "1c\n", "3 S", "1E",
		"10DD", "9", "AC", "KS", "1\tC",
	};
	bri_card	 c;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = 0x77;
		if (bri_card_parse(bad[i], strlen(bad[i]), &c) != BRI_EBADCARD)
			fail_msg("\"%s\" accepted as a card", bad[i]);
		assert_int_equal(c, 0x77);
	}
	c = 0x77;
	assert_int_equal(bri_card_parse(NULL, 2, &c), BRI_EBADCARD);
	assert_int_equal(c, 0x77);
}

/*
 * A suit's letter and back: the letters a card's text ends with, the
 * upper case ones only, and nothing for what is not a suit.
 */
static void
test_suit_letters(void **state)
{
	char	 buf[BRI_CARD_STRLEN];
	int	 suit;

	(void)state;
	for (suit = 0; suit < 4; suit++) {
		bri_card_format(BRI_CARD(1, suit), buf);
		assert_int_equal(bri_suit_letter(suit), buf[1]);
		assert_int_equal(bri_suit_parse(buf[1]), suit);
	}
	assert_int_equal(bri_suit_letter(BRI_COPPE), 'C');
	assert_int_equal(bri_suit_letter(BRI_SPADE), 'S');
	assert_int_equal(bri_suit_letter(-1), '?');
	assert_int_equal(bri_suit_letter(4), '?');
	assert_int_equal(bri_suit_parse('c'), -1);
	assert_int_equal(bri_suit_parse('X'), -1);
	assert_int_equal(bri_suit_parse('\0'), -1);
}

/* Only the first len bytes count: the text need not end there. */
static void
test_card_parse_len(void **state)
{
	bri_card	 c;

	(void)state;
	assert_int_equal(bri_card_parse("1Cxyz", 2, &c), BRI_OK);
	assert_int_equal(c, BRI_CARD(1, BRI_COPPE));
	assert_int_equal(bri_card_parse("10S,5D", 3, &c), BRI_OK);
	assert_int_equal(c, BRI_CARD(10, BRI_SPADE));
	assert_int_equal(bri_card_parse("7B/", 2, &c), BRI_OK);
	assert_int_equal(c, BRI_CARD(7, BRI_BASTONI));
	c = 0x77;
	/* "10D" cut to two bytes is "10", not a card */
	assert_int_equal(bri_card_parse("10D", 2, &c), BRI_EBADCARD);
	/* the NUL is not part of a card */
	assert_int_equal(bri_card_parse("1C", 3, &c), BRI_EBADCARD);
	assert_int_equal(bri_card_parse("1C", 1, &c), BRI_EBADCARD);
	assert_int_equal(bri_card_parse("1C", 0, &c), BRI_EBADCARD);
	assert_int_equal(bri_card_parse("10DD", 4, &c), BRI_EBADCARD);
	assert_int_equal(c, 0x77);
}

/* The canonical text is rank then capital suit letter; non-cards are "?". */
static void
test_card_format(void **state)
{
	char	 buf[BRI_CARD_STRLEN];

	(void)state;
	assert_string_equal(bri_card_format(BRI_CARD(1, BRI_COPPE), buf), "1C");
	assert_string_equal(bri_card_format(BRI_CARD(10, BRI_DENARI), buf),
	    "10D");
	assert_string_equal(bri_card_format(BRI_CARD(7, BRI_BASTONI), buf),
	    "7B");
	assert_string_equal(bri_card_format(BRI_CARD(3, BRI_SPADE), buf), "3S");
	assert_ptr_equal(bri_card_format(5, buf), buf);
	assert_string_equal(bri_card_format(BRI_NOCARD, buf), "?");
	assert_string_equal(bri_card_format(BRI_NCARDS, buf), "?");
	assert_int_equal(BRI_CARD_RANK(BRI_CARD(9, BRI_SPADE)), 9);
	assert_int_equal(BRI_CARD_SUIT(BRI_CARD(9, BRI_SPADE)), BRI_SPADE);
}

/* Card points follow the table and the deck holds exactly 120. */
static void
test_card_points(void **state)
{
	static const int pts[11] = { 0, 11, 0, 10, 0, 0, 0, 0, 2, 3, 4 };
	int		 c, suit, sum, total = 0;

	(void)state;
	for (suit = 0; suit < 4; suit++) {
		sum = 0;
		for (c = 1; c <= 10; c++) {
			assert_int_equal(bri_card_points(BRI_CARD(c, suit)),
			    pts[c]);
			sum += bri_card_points(BRI_CARD(c, suit));
		}
		assert_int_equal(sum, 30);
		total += sum;
	}
	assert_int_equal(total, 120);
	assert_int_equal(bri_card_points(BRI_NOCARD), 0);
}

/* Strength inside a suit is A, 3, K, C, J, 7, 6, 5, 4, 2. */
static void
test_card_strength(void **state)
{
	int	 suit, i;

	(void)state;
	for (suit = 0; suit < 4; suit++)
		for (i = 0; i < 10; i++) {
			assert_int_equal(bri_card_strength(BRI_CARD(
			    rank_order[i], suit)), 10 - i);
			if (i > 0)
				assert_true(bri_card_strength(BRI_CARD(
				    rank_order[i - 1], suit)) >
				    bri_card_strength(BRI_CARD(rank_order[i],
				    suit)));
		}
	assert_int_equal(bri_card_strength(BRI_NOCARD), 0);
}

/* Variant names, seats and parsing agree and refuse what is not a variant. */
static void
test_variants(void **state)
{
	static const char *const names[] = {
		"joker3", "classic2", "classic3", "classic4", "classic5",
		"classic6", "briscolone", "chiamata5"
	};
	static const int seats[] = { 3, 2, 3, 4, 5, 6, 2, 5 };
	enum bri_variant v, got;

	(void)state;
	for (v = 0; v < BRI_NVARIANTS; v++) {
		assert_string_equal(bri_variant_name(v), names[v]);
		assert_int_equal(bri_variant_seats(v), seats[v]);
		assert_int_equal(bri_variant_parse(names[v], &got), BRI_OK);
		assert_int_equal(got, v);
	}
	assert_null(bri_variant_name(BRI_NVARIANTS));
	assert_int_equal(bri_variant_seats(BRI_NVARIANTS), 0);
	assert_int_equal(bri_variant_parse("Joker3", &got), BRI_EINVAL);
	assert_int_equal(bri_variant_parse("joker", &got), BRI_EINVAL);
	assert_int_equal(bri_variant_parse("", &got), BRI_EINVAL);
	assert_int_equal(bri_variant_parse(NULL, &got), BRI_EINVAL);
}

/* The defaults are the documented ones and out-of-range options fail. */
static void
test_options(void **state)
{
	struct bri_options	 o;
	enum bri_variant	 v;

	(void)state;
	for (v = 0; v < BRI_NVARIANTS; v++) {
		bri_options_default(&o, v);
		assert_int_equal(o.variant, v);
		assert_int_equal(o.deals_to_win, 2);
		assert_int_equal(o.match_target, 10);
		assert_int_equal(o.deal_cap, 100);
		assert_int_equal(o.removed_two, -1);
		assert_int_equal(bri_options_check(&o), BRI_OK);
		o.deals_to_win = 0;
		assert_int_equal(bri_options_check(&o), BRI_EINVAL);
		bri_options_default(&o, v);
		o.match_target = 0;
		assert_int_equal(bri_options_check(&o), BRI_EINVAL);
		bri_options_default(&o, v);
		o.deal_cap = 0;
		assert_int_equal(bri_options_check(&o), BRI_EINVAL);
	}
	bri_options_default(&o, BRI_JOKER3);
	o.variant = BRI_NVARIANTS;
	assert_int_equal(bri_options_check(&o), BRI_EINVAL);
}

/* Every error has its own text, and unknown codes still get some text. */
static void
test_strerror(void **state)
{
	const char	*t[10];
	int		 e, f;

	(void)state;
	for (e = 0; e >= BRI_ENOENTROPY; e--) {
		t[-e] = bri_strerror(e);
		assert_non_null(t[-e]);
		assert_string_not_equal(t[-e], "unknown error");
		for (f = 0; f > e; f--)
			assert_string_not_equal(t[-f], t[-e]);
	}
	assert_string_equal(bri_strerror(-100), "unknown error");
	assert_string_equal(bri_strerror(1), "unknown error");
}

/*
 * Play the first trick of a deal of variant v led by seat 0 under the
 * given trump and check its winner, points and Joker.
 */
static void
first_trick(enum bri_variant v, const char *hands, const char *trump,
    const char *plays, int winner, int points, int joker)
{
	struct scen		 sc;
	struct bri_deal		 d;
	struct bri_event	 ev[BRI_MAXSEATS];
	int			 n = bri_variant_seats(v), i;

	memset(&sc, 0, sizeof(sc));
	sc.v = v;
	sc.leader = 0;
	sc.hands = hands;
	sc.trump = trump;
	sc.removed = (v == BRI_JOKER3 || v == BRI_CLASSIC3) ? "2B" : NULL;
	scen_deal(&d, &sc);
	assert_int_equal(play_cards(&d, plays, ev), n);
	for (i = 0; i < n - 1; i++)
		assert_int_equal(ev[i].trick_done, 0);
	assert_int_equal(ev[n - 1].trick_done, 1);
	assert_int_equal(ev[n - 1].trick_winner, winner);
	assert_int_equal(ev[n - 1].trick_points, points);
	assert_int_equal(d.winners[0], winner);
	assert_int_equal(d.trickpoints[0], points);
	assert_int_equal(d.points[winner], points);
	assert_int_equal(d.leader, winner);
	assert_int_equal(d.turn, winner);
	assert_int_equal(d.joker, joker);
}

/* Rule 5: a trump beats the led suit, even the led suit's Asso. */
static void
test_trick_trump_beats_led(void **state)
{
	(void)state;
	first_trick(BRI_JOKER3, "1C,2D,3D/4S,5D,6D/3C,7D,9D", "7S",
	    "1C,4S,3C", 1, 21, 1);
	first_trick(BRI_CLASSIC3, "1C,2D,3D/4S,5D,6D/3C,7D,9D", "7S",
	    "1C,4S,3C", 1, 21, BRI_NOSEAT);
	first_trick(BRI_CLASSIC2, "1C,2D,3D/4S,5D,6D", "7S", "1C,4S", 1, 11,
	    BRI_NOSEAT);
}

/* Rule 5: a card of another non-trump suit never wins, however strong. */
static void
test_trick_offsuit_never_wins(void **state)
{
	(void)state;
	/* nobody follows: the led 4 takes two Assi */
	first_trick(BRI_JOKER3, "4C,2D,3D/1D,5D,6D/1B,7D,9D", "7S",
	    "4C,1D,1B", 0, 22, BRI_NOSEAT);
	/* a higher card of the led suit wins; the off-suit Asso does not */
	first_trick(BRI_JOKER3, "4C,2D,3D/1D,5D,6D/5C,7D,9D", "7S",
	    "4C,1D,5C", 2, 11, BRI_NOSEAT);
	first_trick(BRI_CLASSIC4, "4C,2D,3D/1D,5D,6D/3B,7D,9D/6C,8D,10D",
	    "7S", "4C,1D,3B,6C", 3, 21, BRI_NOSEAT);
}

/* Rule 5: with several trumps, the highest trump wins. */
static void
test_trick_highest_trump(void **state)
{
	(void)state;
	/* a low trump, then the trump Asso */
	first_trick(BRI_JOKER3, "1C,2D,3D/2S,5D,6D/1S,7D,9D", "7S",
	    "1C,2S,1S", 2, 22, 1);
	/* a trump led, a higher one, then a lower one */
	first_trick(BRI_JOKER3, "10S,2D,3D/3S,5D,6D/9S,7D,9D", "7S",
	    "10S,3S,9S", 1, 17, 0);
	/* the strongest card played is not a trump: the trump still wins */
	first_trick(BRI_CLASSIC4, "3C,2D,3D/2S,5D,6D/1C,7D,9D/4S,8D,10D",
	    "7S", "3C,2S,1C,4S", 3, 21, BRI_NOSEAT);
}

/* Rule 5: when nobody follows suit and nobody trumps, the leader wins. */
static void
test_trick_leader_wins_unfollowed(void **state)
{
	(void)state;
	first_trick(BRI_JOKER3, "2C,2D,3D/1D,5D,6D/1B,7D,9D", "7S",
	    "2C,1D,1B", 0, 22, BRI_NOSEAT);
	first_trick(BRI_CLASSIC2, "2C,2D,3D/1D,5D,6D", "7S", "2C,1D", 0, 11,
	    BRI_NOSEAT);
	first_trick(BRI_CLASSIC4, "2C,2D,3D/1D,5D,6D/1B,7D,9D/3B,8D,10D",
	    "7S", "2C,1D,1B,3B", 0, 32, BRI_NOSEAT);
}

/*
 * Rule 6: after a trick the winner draws first, then the others
 * clockwise, each taking the next card of the stock.
 */
static void
draw_order(enum bri_variant v, const char *hands, const char *plays,
    int winner)
{
	struct scen		 sc;
	struct bri_deal		 d;
	struct bri_event	 ev[BRI_MAXSEATS];
	bri_card		 deck[BRI_NCARDS];
	int			 n = bri_variant_seats(v), i, s;

	memset(&sc, 0, sizeof(sc));
	sc.v = v;
	sc.hands = hands;
	sc.trump = "7S";
	sc.removed = n == 3 ? "2B" : NULL;
	scen_deck(&sc, deck);
	scen_deal(&d, &sc);
	play_cards(&d, plays, ev);
	assert_int_equal(ev[n - 1].trick_winner, winner);
	assert_int_equal(ev[n - 1].ndraws, n);
	assert_int_equal(ev[n - 1].stock_empty, 0);
	for (i = 0; i < n; i++) {
		s = (winner + i) % n;
		assert_int_equal(ev[n - 1].draw_seat[i], s);
		assert_int_equal(ev[n - 1].draw_card[i],
		    deck[d.stockbase + i]);
		assert_int_equal(d.drawn[s], deck[d.stockbase + i]);
		assert_int_equal(d.nhand[s], d.handsize);
		assert_int_equal(d.hand[s][d.handsize - 1],
		    deck[d.stockbase + i]);
	}
	assert_int_equal(d.ndrawn, n);
	assert_int_equal(d.nstock, d.ncards - d.handsize * n - n);
}

/* Rule 6 in every table size, with a winner who did not lead. */
static void
test_draw_order(void **state)
{
	(void)state;
	draw_order(BRI_JOKER3, "4C,5C,6C/4D,5D,6D/1C,7C,8C", "4C,4D,1C", 2);
	draw_order(BRI_JOKER3, "4C,5C,6C/1C,5D,6D/4D,7C,8C", "4C,1C,4D", 1);
	draw_order(BRI_CLASSIC3, "1C,5C,6C/4D,5D,6D/4C,7C,8C", "1C,4D,4C",
	    0);
	draw_order(BRI_CLASSIC2, "4C,5C,6C/1C,5D,6D", "4C,1C", 1);
	draw_order(BRI_CLASSIC4, "4C,5C,6C/4D,5D,6D/4B,7C,8C/1C,9C,10C",
	    "4C,4D,4B,1C", 3);
	draw_order(BRI_CLASSIC4, "4C,5C,6C/4D,5D,6D/1C,7C,8C/4B,9C,10C",
	    "4C,4D,1C,4B", 2);
}

/*
 * Play a deal to its end choosing cards with x, checking the draws after
 * every trick: the stock in order, then the turned trump, taken last by
 * the last seat to draw; returns the number of draw rounds.
 */
static int
check_draws(struct bri_deal *d, uint64_t *x)
{
	struct bri_event	 ev;
	int			 rounds = 0, ndrawn = 0, empties = 0, n, i;
	int			 nstock;

	n = d->nseats;
	nstock = d->ncards - d->handsize * n;
	while (!d->over) {
		assert_int_equal(bri_deal_play(d, d->turn, pick(d, x), &ev),
		    BRI_OK);
		for (i = 0; i < n; i++)
			assert_true(d->nhand[i] <= d->handsize);
		if (!ev.trick_done) {
			assert_int_equal(ev.ndraws, 0);
			continue;
		}
		if (ev.ndraws == 0) {
			assert_int_equal(d->nstock, 0);
			continue;
		}
		assert_int_equal(ev.ndraws, n);
		rounds++;
		for (i = 0; i < n; i++, ndrawn++) {
			assert_int_equal(ev.draw_seat[i],
			    (ev.trick_winner + i) % n);
			if (ndrawn == nstock - 1 && d->trump != BRI_NOCARD)
				assert_int_equal(ev.draw_card[i], d->trump);
			else {
				assert_int_equal(ev.draw_card[i],
				    d->deck[d->stockbase + ndrawn]);
				assert_int_not_equal(ev.draw_card[i],
				    d->trump);
			}
		}
		if (ev.stock_empty) {
			empties++;
			assert_int_equal(ndrawn, nstock);
			if (d->trump != BRI_NOCARD)
				assert_int_equal(ev.draw_card[n - 1],
				    d->trump);
		}
	}
	assert_int_equal(empties, 1);
	assert_int_equal(ndrawn, nstock);
	return rounds;
}

/*
 * Rule 6 and "Common to all": the turned trump is the last card drawn,
 * in every variant, after 10, 17, 10 and 7 draw rounds.
 */
static void
test_trump_drawn_last(void **state)
{
	/* chiamata5 has no stock: nothing to draw */
	static const int rounds[BRI_NVARIANTS] = { 10, 17, 10, 7, 5, 3, 15 };
	struct bri_options	 o;
	struct bri_seed		 s;
	struct bri_deal		 d;
	bri_card		 deck[BRI_NCARDS], removed;
	enum bri_variant	 v;
	uint64_t		 x = 1;
	int			 k, n;

	(void)state;
	for (v = 0; v < BRI_NVARIANTS; v++) {
		if (bri_variant_info(v)->auction)
			continue;
		bri_options_default(&o, v);
		for (k = 0; k < 20; k++) {
			seed_of(k, &s);
			n = bri_shuffle(&s, &o, k, deck, &removed);
			assert_int_equal(n, bri_variant_info(v)->ncards);
			assert_int_equal(bri_deal_init(&d, v, deck, n,
			    k % bri_variant_seats(v)), BRI_OK);
			assert_int_equal(check_draws(&d, &x), rounds[v]);
		}
	}
}

/* Rule 6: in joker3 the turned trump goes to the third drawer of round 10. */
static void
test_trump_third_drawer_round10(void **state)
{
	struct bri_deal		 d;
	struct bri_event	 ev[BRI_NCARDS];
	int			 i, round = 0, w;

	(void)state;
	scen_play(&d, &joker_void, ev);
	for (i = 0; i < 39; i++) {
		if (!ev[i].trick_done || ev[i].ndraws == 0)
			continue;
		round++;
		w = ev[i].trick_winner;
		if (round < 10) {
			assert_int_equal(ev[i].stock_empty, 0);
			continue;
		}
		assert_int_equal(round, 10);
		assert_int_equal(ev[i].stock_empty, 1);
		assert_int_equal(ev[i].draw_seat[2], (w + 2) % 3);
		assert_int_equal(ev[i].draw_card[2], d.trump);
		assert_int_equal(ev[i].draw_card[2], card("4C"));
		assert_int_equal(d.drawn[(w + 2) % 3], d.trump);
	}
	assert_int_equal(round, 10);
}

/* The Joker: a leader who leads a trump becomes Joker at once. */
static void
test_joker_leader_leads_trump(void **state)
{
	struct bri_deal		 d;
	struct bri_event	 ev;
	struct bri_view		 v;
	int			 s;

	(void)state;
	/* the trump is 4C; seat 1 leads the 7C */
	scen_deal(&d, &joker_51);
	assert_int_equal(d.joker, BRI_NOSEAT);
	assert_int_equal(bri_deal_play(&d, 1, card("7C"), &ev), BRI_OK);
	assert_int_equal(ev.joker, 1);
	assert_int_equal(d.joker, 1);
	assert_int_equal(ev.trick_done, 0);
	/* decision: every seat learns the new Joker right after the play */
	for (s = 0; s < 3; s++) {
		assert_int_equal(bri_view_of_deal(&d, s, &v), BRI_OK);
		assert_int_equal(v.joker, 1);
	}
}

/* Rule 4: no obligation to follow suit, even holding the led suit. */
static void
test_no_obligation_to_follow(void **state)
{
	struct bri_deal		 d;
	struct scen		 sc = { BRI_JOKER3, 0,
		"4C,2D,3D/5C,5D,6D/6C,7D,9D", "7S", NULL, "2B", NULL };
	struct bri_event	 ev[3];

	(void)state;
	scen_deal(&d, &sc);
	/* seats 1 and 2 hold a coppe each and play denari instead */
	play_cards(&d, "4C,5D,7D", ev);
	assert_int_equal(ev[2].trick_winner, 0);
	assert_int_equal(d.points[0], 0);
}

/* The Joker: the first trump played makes the Joker even if it loses. */
static void
test_joker_first_trump_loses(void **state)
{
	struct bri_deal		 d;
	struct scen		 sc = { BRI_JOKER3, 0,
		"1C,2D,3D/2S,5D,6D/1S,7D,9D", "7S", NULL, "2B", NULL };
	struct bri_event	 ev[3];

	(void)state;
	scen_deal(&d, &sc);
	play_cards(&d, "1C,2S,1S", ev);
	assert_int_equal(ev[0].joker, BRI_NOSEAT);
	assert_int_equal(ev[1].joker, 1);
	assert_int_equal(ev[2].joker, BRI_NOSEAT);
	assert_int_equal(ev[2].trick_winner, 2);
	assert_int_equal(d.joker, 1);
}

/*
 * The Joker: later trumps change nothing; the event announces the Joker
 * once, on the play that made it, and the role never moves.
 */
static void
test_joker_later_trumps(void **state)
{
	static const struct scen *const all[] = {
		&joker_void, &joker_51, &joker_49
	};
	struct bri_deal		 d;
	struct bri_event	 ev;
	bri_card		 c[BRI_NCARDS];
	size_t			 k;
	int			 i, first, announced, trumps, seat;

	(void)state;
	for (k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
		scen_deal(&d, all[k]);
		assert_int_equal(cards(all[k]->plays, c, BRI_NCARDS), 39);
		first = BRI_NOSEAT;
		announced = trumps = 0;
		for (i = 0; i < 39; i++) {
			seat = d.turn;
			if (first == BRI_NOSEAT &&
			    BRI_CARD_SUIT(c[i]) == d.trumpsuit)
				first = seat;
			trumps += BRI_CARD_SUIT(c[i]) == d.trumpsuit;
			assert_int_equal(bri_deal_play(&d, seat, c[i], &ev),
			    BRI_OK);
			if (ev.joker != BRI_NOSEAT) {
				announced++;
				assert_int_equal(ev.joker, seat);
			}
			assert_int_equal(d.joker, first);
		}
		assert_true(trumps >= 9);
		assert_int_equal(announced, 1);
		assert_true(first != BRI_NOSEAT);
	}
}

/* Classic variants have no Joker, whatever trumps are played. */
static void
test_joker_none_in_classic(void **state)
{
	static const struct scen *const all[] = {
		&classic2_6060, &classic3_draw, &classic4_win
	};
	struct bri_deal		 d;
	struct bri_event	 ev[BRI_NCARDS];
	size_t			 k;
	int			 i, n;

	(void)state;
	for (k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
		scen_deal(&d, all[k]);
		n = play_cards(&d, all[k]->plays, ev);
		for (i = 0; i < n; i++)
			assert_int_equal(ev[i].joker, BRI_NOSEAT);
		assert_int_equal(d.joker, BRI_NOSEAT);
	}
}

/* The Joker role is reset at the start of every deal of a match. */
static void
test_joker_reset_each_deal(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	uint64_t		 x = 7;
	int			 k;

	(void)state;
	bri_options_default(&o, BRI_JOKER3);
	seed_of(1, &s);
	assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
	for (k = 0; k < 5 && m.result == BRI_MATCH_PLAYING; k++) {
		assert_int_equal(bri_match_deal(&m), BRI_OK);
		assert_int_equal(m.deal.joker, BRI_NOSEAT);
		match_play_deal(&m, &x);
		assert_true(m.deal.joker != BRI_NOSEAT);
	}
	assert_int_equal(k, 5);
}

/* Play a full scenario and check its points and result. */
static void
full_deal(const struct scen *sc, const int *points, int result, int winner,
    int joker)
{
	struct bri_deal		 d;
	struct bri_event	 ev[BRI_NCARDS];
	int			 i, n, sum = 0;

	scen_deal(&d, sc);
	n = play_cards(&d, sc->plays, ev);
	assert_int_equal(n, d.ncards);
	for (i = 0; i < n - 1; i++)
		assert_int_equal(ev[i].deal_over, 0);
	assert_int_equal(ev[n - 1].deal_over, 1);
	assert_int_equal(d.over, 1);
	assert_int_equal(d.trick, d.ntricks);
	for (i = 0; i < d.nseats; i++) {
		assert_int_equal(d.points[i], points[i]);
		sum += d.points[i];
	}
	assert_int_equal(sum, 120);
	assert_int_equal(d.result, result);
	assert_int_equal(d.winner, winner);
	assert_int_equal(d.joker, joker);
}

/* Scoring: the Joker on exactly 50 makes the deal void. */
static void
test_joker_void_on_50(void **state)
{
	static const int pts[] = { 47, 23, 50 };

	(void)state;
	full_deal(&joker_void, pts, BRI_DEAL_VOID, BRI_NOSEAT, 2);
}

/* Scoring: the Joker wins with 51. */
static void
test_joker_wins_on_51(void **state)
{
	static const int pts[] = { 32, 51, 37 };

	(void)state;
	full_deal(&joker_51, pts, BRI_DEAL_JOKER, BRI_NOSEAT, 1);
}

/* Scoring: the allies win with 71 together (the Joker on 49). */
static void
test_allies_win_on_71(void **state)
{
	static const int pts[] = { 26, 49, 45 };

	(void)state;
	full_deal(&joker_49, pts, BRI_DEAL_ALLIES, BRI_NOSEAT, 1);
}

/*
 * A match: the Joker gains 2 match points, each ally 1, a void deal
 * nothing; all three outcomes are looked for over seeded matches.
 */
static void
test_match_points(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	uint64_t		 x = 3, k;
	int			 before[BRI_MAXSEATS], seen[8], i, j, want;

	(void)state;
	memset(seen, 0, sizeof(seen));
	bri_options_default(&o, BRI_JOKER3);
	for (k = 0; k < 400 && !(seen[BRI_DEAL_JOKER] &&
	    seen[BRI_DEAL_ALLIES] && seen[BRI_DEAL_VOID]); k++) {
		seed_of(k, &s);
		assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
		while (m.result == BRI_MATCH_PLAYING) {
			assert_int_equal(bri_match_deal(&m), BRI_OK);
			memcpy(before, m.mpoints, sizeof(before));
			match_play_deal(&m, &x);
			seen[m.deal.result]++;
			j = m.deal.joker;
			for (i = 0; i < 3; i++) {
				switch (m.deal.result) {
				case BRI_DEAL_JOKER:
					want = i == j ? 2 : 0;
					break;
				case BRI_DEAL_ALLIES:
					want = i == j ? 0 : 1;
					break;
				case BRI_DEAL_VOID:
					want = 0;
					break;
				default:
					want = -1;
					fail_msg("joker3 result %d",
					    m.deal.result);
				}
				assert_int_equal(m.mpoints[i] - before[i],
				    want);
			}
		}
	}
	assert_true(seen[BRI_DEAL_JOKER] > 0);
	assert_true(seen[BRI_DEAL_ALLIES] > 0);
	assert_true(seen[BRI_DEAL_VOID] > 0);
}

/* Does seat hold 10 or more match points, strictly more than each other? */
static int
strictly_ahead(const struct bri_match *m, int target)
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
 * A match ends after a deal when someone has 10 or more and strictly
 * more than each other player; a top score of 10+ that is shared keeps
 * the match going (seen at least once over the seeds tried).
 */
static void
test_match_end_rule(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	uint64_t		 x = 5, k;
	int			 w, i, top, ntop, tied = 0;

	(void)state;
	bri_options_default(&o, BRI_JOKER3);
	for (k = 0; k < 300; k++) {
		seed_of(1000 + k, &s);
		assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
		while (m.result == BRI_MATCH_PLAYING) {
			assert_int_equal(bri_match_deal(&m), BRI_OK);
			match_play_deal(&m, &x);
			w = strictly_ahead(&m, 10);
			if (w != BRI_NOSEAT) {
				assert_int_equal(m.result, BRI_MATCH_WON);
				assert_int_equal(m.winner, w);
				break;
			}
			assert_int_equal(m.result, BRI_MATCH_PLAYING);
			assert_int_equal(m.winner, BRI_NOSEAT);
			for (i = 0, top = -1, ntop = 0; i < 3; i++) {
				if (m.mpoints[i] > top) {
					top = m.mpoints[i];
					ntop = 0;
				}
				ntop += m.mpoints[i] == top;
			}
			if (top >= 10) {
				assert_true(ntop > 1);
				tied++;
			}
		}
		assert_int_equal(m.result, BRI_MATCH_WON);
		assert_int_equal(bri_match_deal(&m), BRI_EMATCHOVER);
	}
	assert_true(tied > 0);
}

/* With a target of 1, two allies tied on 1 must keep playing. */
static void
test_match_tie_on_target_continues(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	uint64_t		 x = 11, k;
	int			 found = 0;

	(void)state;
	bri_options_default(&o, BRI_JOKER3);
	o.match_target = 1;
	for (k = 0; k < 100 && !found; k++) {
		seed_of(k, &s);
		assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
		assert_int_equal(bri_match_deal(&m), BRI_OK);
		match_play_deal(&m, &x);
		if (m.deal.result != BRI_DEAL_ALLIES)
			continue;
		found = 1;
		assert_int_equal(m.result, BRI_MATCH_PLAYING);
		assert_int_equal(bri_match_deal(&m), BRI_OK);
		assert_int_equal(m.ndeals, 2);
	}
	assert_true(found);
}

/*
 * Decision: the deal cap ends a match that never separates as a draw
 * among the tied leaders; a win on the last allowed deal is still a win.
 */
static void
test_match_deal_cap(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m, copy;
	struct bri_seed		 s;
	struct bri_event	 ev;
	uint64_t		 x = 13, k;
	unsigned		 mask;
	int			 i, top, seen2 = 0, seenwin = 0;

	(void)state;
	/* never reachable target: the cap decides after 3 deals */
	bri_options_default(&o, BRI_JOKER3);
	o.match_target = 1000;
	o.deal_cap = 3;
	seed_of(77, &s);
	assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
	for (k = 0; k < 3; k++) {
		assert_int_equal(m.result, BRI_MATCH_PLAYING);
		assert_int_equal(bri_match_deal(&m), BRI_OK);
		ev = match_play_deal(&m, &x);
		assert_int_equal(ev.match_over, k == 2);
	}
	assert_int_equal(m.result, BRI_MATCH_DRAWN);
	assert_int_equal(m.winner, BRI_NOSEAT);
	for (i = 0, top = -1; i < 3; i++)
		if (m.mpoints[i] > top)
			top = m.mpoints[i];
	for (i = 0, mask = 0; i < 3; i++)
		if (m.mpoints[i] == top)
			mask |= 1u << i;
	assert_int_equal(m.tied, mask);
	memcpy(&copy, &m, sizeof(m));
	assert_int_equal(bri_match_deal(&m), BRI_EMATCHOVER);
	assert_int_equal(bri_match_play(&m, m.deal.turn, m.deal.plays[0],
	    &ev), BRI_EMATCHOVER);
	assert_memory_equal(&copy, &m, sizeof(m));

	/* cap 1, target 2: allies tied on 1 draw; a Joker on 2 wins */
	bri_options_default(&o, BRI_JOKER3);
	o.match_target = 2;
	o.deal_cap = 1;
	for (k = 0; k < 200 && !(seen2 && seenwin); k++) {
		seed_of(k, &s);
		assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
		assert_int_equal(bri_match_deal(&m), BRI_OK);
		match_play_deal(&m, &x);
		switch (m.deal.result) {
		case BRI_DEAL_ALLIES:
			seen2 = 1;
			assert_int_equal(m.result, BRI_MATCH_DRAWN);
			assert_int_equal(m.tied,
			    7u & ~(1u << m.deal.joker));
			assert_int_equal(m.winner, BRI_NOSEAT);
			break;
		case BRI_DEAL_JOKER:
			seenwin = 1;
			assert_int_equal(m.result, BRI_MATCH_WON);
			assert_int_equal(m.winner, m.deal.joker);
			break;
		default:
			assert_int_equal(m.result, BRI_MATCH_DRAWN);
			assert_int_equal(m.tied, 7);
		}
	}
	assert_true(seen2 && seenwin);
}

/* Rule 1 of a match: the dealer moves one seat clockwise every deal. */
static void
test_match_dealer_rotation(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	struct bri_view		 view;
	enum bri_variant	 v;
	uint64_t		 x = 17, k;
	int			 n, i, first;

	(void)state;
	for (v = 0; v < BRI_NVARIANTS; v++) {
		n = bri_variant_seats(v);
		bri_options_default(&o, v);
		o.deal_cap = 9;
		o.deals_to_win = 1000;
		o.match_target = 1000;
		o.deals = 9;		/* chiamata5: a fixed number of deals */
		for (k = 0; k < 8; k++) {
			seed_of(k, &s);
			first = bri_first_dealer(&s, n);
			assert_true(first >= 0 && first < n);
			assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
			assert_int_equal(m.first_dealer, first);
			for (i = 0; i < 9; i++) {
				assert_int_equal(bri_match_deal(&m), BRI_OK);
				assert_int_equal(m.ndeals, i + 1);
				assert_int_equal(m.deal.dealer,
				    (first + i) % n);
				assert_int_equal(m.deal.leader,
				    (first + i + 1) % n);
				assert_int_equal(bri_view_build(&m, 0, &view),
				    BRI_OK);
				assert_int_equal(view.deal_no, i + 1);
				assert_int_equal(view.dealer, (first + i) % n);
				match_play_deal(&m, &x);
			}
			if (bri_variant_info(v)->matchscore ==
			    BRI_MSCORE_FIXED)
				assert_int_not_equal(m.result,
				    BRI_MATCH_PLAYING);
			else
				assert_int_equal(m.result, BRI_MATCH_DRAWN);
		}
	}
}

/* classic2: 61 wins the deal, 60 each is a drawn deal. */
static void
test_classic2_scoring(void **state)
{
	static const int p6060[] = { 60, 60 }, p6159[] = { 61, 59 };
	static const int p5961[] = { 59, 61 };

	(void)state;
	full_deal(&classic2_6060, p6060, BRI_DEAL_DRAWN, BRI_NOSEAT,
	    BRI_NOSEAT);
	full_deal(&classic2_6159, p6159, BRI_DEAL_WON, 0, BRI_NOSEAT);
	full_deal(&classic2_5961, p5961, BRI_DEAL_WON, 1, BRI_NOSEAT);
}

/* classic3: the single top total wins; a shared top score is drawn. */
static void
test_classic3_scoring(void **state)
{
	static const int pdraw[] = { 34, 43, 43 }, pwin[] = { 71, 5, 44 };

	(void)state;
	full_deal(&classic3_draw, pdraw, BRI_DEAL_DRAWN, BRI_NOSEAT,
	    BRI_NOSEAT);
	full_deal(&classic3_win, pwin, BRI_DEAL_WON, 0, BRI_NOSEAT);
}

/*
 * classic3: the removed 2 is an option, random by default or a fixed
 * suit; the option is refused for every other variant.
 */
static void
test_classic3_removed_two(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 s;
	struct bri_match	 m;
	bri_card		 deck[BRI_NCARDS], removed;
	enum bri_variant	 v;
	int			 suit, k, i, seen[4];

	(void)state;
	seed_of(5, &s);
	bri_options_default(&o, BRI_CLASSIC3);
	for (suit = 0; suit < 4; suit++) {
		o.removed_two = suit;
		assert_int_equal(bri_options_check(&o), BRI_OK);
		for (k = 0; k < 50; k++) {
			assert_int_equal(bri_shuffle(&s, &o, k, deck,
			    &removed), 39);
			assert_int_equal(removed, BRI_CARD(2, suit));
			for (i = 0; i < 39; i++)
				assert_int_not_equal(deck[i], removed);
		}
		assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
		assert_int_equal(bri_match_deal(&m), BRI_OK);
		assert_int_equal(m.deal.removed, BRI_CARD(2, suit));
	}
	o.removed_two = -1;
	memset(seen, 0, sizeof(seen));
	for (k = 0; k < 100; k++) {
		assert_int_equal(bri_shuffle(&s, &o, k, deck, &removed), 39);
		assert_int_equal(BRI_CARD_RANK(removed), 2);
		seen[BRI_CARD_SUIT(removed)]++;
	}
	for (suit = 0; suit < 4; suit++)
		assert_true(seen[suit] > 0);
	o.removed_two = 4;
	assert_int_equal(bri_options_check(&o), BRI_EINVAL);
	o.removed_two = -2;
	assert_int_equal(bri_options_check(&o), BRI_EINVAL);
	for (v = 0; v < BRI_NVARIANTS; v++) {
		if (v == BRI_CLASSIC3)
			continue;
		bri_options_default(&o, v);
		o.removed_two = BRI_SPADE;
		assert_int_equal(bri_options_check(&o), BRI_EINVAL);
		assert_int_equal(bri_shuffle(&s, &o, 0, deck, &removed),
		    BRI_EINVAL);
		assert_int_equal(bri_match_init(&m, &o, &s), BRI_EINVAL);
	}
}

/* classic4: partners sit opposite and team totals decide the deal. */
static void
test_classic4_teams(void **state)
{
	static const int pwin[] = { 56, 32, 18, 14 };
	static const int pdraw[] = { 30, 23, 30, 37 };
	struct bri_options	 o;
	struct bri_seed		 seed;
	struct bri_deal		 d;
	struct bri_view		 view;
	bri_card		 deck[BRI_NCARDS], removed;
	uint64_t		 x = 47, k;
	int			 s, t0, draws = 0;

	(void)state;
	scen_deal(&d, &classic4_win);
	for (s = 0; s < 4; s++) {
		assert_int_equal(bri_deal_team(&d, s), s % 2);
		assert_int_equal(bri_deal_team(&d, s),
		    bri_deal_team(&d, (s + 2) % 4));
		assert_int_not_equal(bri_deal_team(&d, s),
		    bri_deal_team(&d, (s + 1) % 4));
		assert_int_equal(bri_view_of_deal(&d, s, &view), BRI_OK);
		assert_int_equal(view.partner, (s + 2) % 4);
	}
	/* team 0 has 56 + 18 = 74; no seat alone reaches 61 */
	full_deal(&classic4_win, pwin, BRI_DEAL_WON, 0, BRI_NOSEAT);
	/* 30 + 30 against 23 + 37 */
	full_deal(&classic4_draw, pdraw, BRI_DEAL_DRAWN, BRI_NOSEAT,
	    BRI_NOSEAT);

	/* seeded deals: the result follows the totals of 0+2 and 1+3 */
	bri_options_default(&o, BRI_CLASSIC4);
	for (k = 0; k < 200; k++) {
		seed_of(400 + k, &seed);
		assert_int_equal(bri_shuffle(&seed, &o, 0, deck, &removed), 40);
		assert_int_equal(bri_deal_init(&d, BRI_CLASSIC4, deck, 40,
		    k % 4), BRI_OK);
		while (!d.over)
			assert_int_equal(bri_deal_play(&d, d.turn, pick(&d, &x),
			    NULL), BRI_OK);
		t0 = d.points[0] + d.points[2];
		assert_int_equal(t0 + d.points[1] + d.points[3], 120);
		if (t0 == 60) {
			assert_int_equal(d.result, BRI_DEAL_DRAWN);
			assert_int_equal(d.winner, BRI_NOSEAT);
			draws++;
		} else {
			assert_int_equal(d.result, BRI_DEAL_WON);
			assert_int_equal(d.winner, t0 > 60 ? 0 : 1);
		}
	}
	assert_true(draws > 0);
}

/* classic4: both partners of the winning pair gain the won deal. */
static void
test_classic4_match(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	uint64_t		 x = 19, k;
	int			 before[BRI_MAXSEATS], i, t;

	(void)state;
	bri_options_default(&o, BRI_CLASSIC4);
	for (k = 0; k < 30; k++) {
		seed_of(k, &s);
		assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
		while (m.result == BRI_MATCH_PLAYING) {
			assert_int_equal(bri_match_deal(&m), BRI_OK);
			memcpy(before, m.mpoints, sizeof(before));
			match_play_deal(&m, &x);
			for (i = 0; i < 4; i++) {
				t = m.deal.result == BRI_DEAL_WON &&
				    bri_deal_team(&m.deal, i) == m.deal.winner;
				assert_int_equal(m.mpoints[i] - before[i], t);
			}
			assert_int_equal(m.mpoints[0], m.mpoints[2]);
			assert_int_equal(m.mpoints[1], m.mpoints[3]);
		}
		assert_int_equal(m.result, BRI_MATCH_WON);
		assert_true(m.winner == 0 || m.winner == 1);
		assert_int_equal(m.mpoints[m.winner], 2);
		assert_true(m.mpoints[1 - m.winner] < 2);
	}
}

/* A classic match is won by the first to win N deals (default 2). */
static void
test_classic_match_end(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	enum bri_variant	 v;
	uint64_t		 x = 23, k;
	int			 i, n, top, wins;

	(void)state;
	for (v = BRI_CLASSIC2; v <= BRI_CLASSIC3; v++) {
		n = bri_variant_seats(v);
		for (wins = 2; wins <= 3; wins++) {
			bri_options_default(&o, v);
			o.deals_to_win = wins;
			for (k = 0; k < 30; k++) {
				seed_of(k, &s);
				assert_int_equal(bri_match_init(&m, &o, &s),
				    BRI_OK);
				while (m.result == BRI_MATCH_PLAYING) {
					assert_int_equal(bri_match_deal(&m),
					    BRI_OK);
					match_play_deal(&m, &x);
					for (i = 0, top = 0; i < n; i++) {
						assert_int_equal(m.mpoints[i],
						    m.deals_won[i]);
						if (m.mpoints[i] > top)
							top = m.mpoints[i];
					}
					assert_int_equal(top >= wins,
					    m.result == BRI_MATCH_WON);
				}
				assert_int_equal(m.mpoints[m.winner], wins);
			}
		}
	}
}

/* Does the view of seat agree with the deal and hide what it must? */
static void
check_view(const struct bri_deal *d, int seat)
{
	struct bri_view		 v, v2;
	struct bri_deal		 d2;
	bri_card		*slot[BRI_NCARDS], t;
	uint64_t		 secret = 0;
	int			 i, s, p, reveal, nslot = 0;

	assert_int_equal(bri_view_of_deal(d, seat, &v), BRI_OK);
	p = d->variant == BRI_CLASSIC4 && seat != BRI_NOSEAT ? (seat + 2) % 4 :
	    BRI_NOSEAT;
	reveal = p != BRI_NOSEAT && d->nstock == 0;
	/* chiamata5: the partner only once revealed, or to its holder */
	if (d->variant == BRI_CHIAMATA5)
		p = d->partner != BRI_NOSEAT &&
		    (d->revealed || d->partner == seat) ? d->partner :
		    BRI_NOSEAT;

	/* what the seat may see, exactly; the public (BRI_NOSEAT) no hand */
	assert_int_equal(v.seat, (uint8_t)seat);
	assert_int_equal(v.trump, d->trump);
	assert_int_equal(v.nhand, seat == BRI_NOSEAT ? 0 : d->nhand[seat]);
	for (i = 0; i < BRI_MAXHAND; i++)
		assert_int_equal(v.hand[i], seat != BRI_NOSEAT &&
		    i < d->nhand[seat] ? d->hand[seat][i] : BRI_NOCARD);
	assert_int_equal(v.drawn, seat == BRI_NOSEAT ? BRI_NOCARD :
	    d->drawn[seat]);
	assert_int_equal(v.nplays, d->nplays);
	for (i = 0; i < BRI_NCARDS; i++)
		assert_int_equal(v.plays[i],
		    i < d->nplays ? d->plays[i] : BRI_NOCARD);
	assert_int_equal(v.partner, p);
	assert_int_equal(v.npartner, reveal ? d->nhand[p] : 0);
	for (i = 0; i < BRI_MAXHAND; i++)
		assert_int_equal(v.partner_hand[i], reveal &&
		    i < d->nhand[p] ? d->hand[p][i] : BRI_NOCARD);
	assert_int_equal(v.removed, d->over ? d->removed : BRI_NOCARD);
	assert_int_equal(v.joker, d->joker);
	assert_int_equal(v.ncalls, d->ncalls);
	assert_memory_equal(v.calls, d->calls, d->ncalls);
	assert_memory_equal(v.callseat, d->callseat, d->ncalls);
	assert_int_equal(v.called, d->called);
	assert_int_equal(v.caller, d->caller);

	/* what it may not see: other hands, the stock, the removed 2 */
	memcpy(&d2, d, sizeof(d2));
	for (s = 0; s < d->nseats; s++) {
		if (s == seat || (reveal && s == p))
			continue;
		for (i = 0; i < d->nhand[s]; i++) {
			slot[nslot++] = &d2.hand[s][i];
			secret |= (uint64_t)1 << d->hand[s][i];
		}
	}
	for (i = d->stockbase + d->ndrawn; i < d->ncards; i++) {
		slot[nslot++] = &d2.deck[i];
		secret |= (uint64_t)1 << d->deck[i];
	}
	if (!d->over && d->removed != BRI_NOCARD) {
		slot[nslot++] = &d2.removed;
		secret |= (uint64_t)1 << d->removed;
	}
	if (d->trump != BRI_NOCARD)	/* seen by all, all deal */
		secret &= ~((uint64_t)1 << d->trump);
	for (i = 0; i < BRI_MAXHAND; i++) {
		if (v.hand[i] != BRI_NOCARD)
			assert_false(secret >> v.hand[i] & 1);
		if (v.partner_hand[i] != BRI_NOCARD)
			assert_false(secret >> v.partner_hand[i] & 1);
	}
	for (i = 0; i < v.nplays; i++)
		assert_false(secret >> v.plays[i] & 1);
	if (v.drawn != BRI_NOCARD)
		assert_false(secret >> v.drawn & 1);
	if (v.removed != BRI_NOCARD)
		assert_false(secret >> v.removed & 1);

	/* the view must not change when the hidden cards are moved around */
	if (nslot > 1) {
		t = *slot[0];
		for (i = 0; i < nslot - 1; i++)
			*slot[i] = *slot[i + 1];
		*slot[nslot - 1] = t;
		assert_int_equal(bri_view_of_deal(&d2, seat, &v2), BRI_OK);
		assert_memory_equal(&v, &v2, sizeof(v));
	}
}

/*
 * The view never shows another seat's unplayed card, except the classic4
 * partner's hand once the stock is empty, and shows the removed 2 only
 * when the deal is over; checked for every seat after every play.
 */
static void
test_view_secrecy(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 s;
	struct bri_deal		 d;
	struct bri_view		 v;
	bri_card		 deck[BRI_NCARDS], removed;
	enum bri_variant	 vr;
	uint64_t		 x = 29;
	int			 k, n, seat;

	(void)state;
	for (vr = 0; vr < BRI_NVARIANTS; vr++) {
		bri_options_default(&o, vr);
		for (k = 0; k < 10; k++) {
			seed_of(100 + k, &s);
			n = bri_shuffle(&s, &o, k, deck, &removed);
			assert_int_equal(bri_deal_init(&d, vr, deck, n,
			    k % bri_variant_seats(vr)), BRI_OK);
			assert_int_equal(d.removed, removed);
			for (;;) {
				for (seat = BRI_NOSEAT; seat < d.nseats;
				    seat++)
					check_view(&d, seat);
				if (d.over)
					break;
				if (d.phase == BRI_PHASE_AUCTION)
					assert_int_equal(bri_deal_bid(&d,
					    d.turn, pick_bid(&d, &x), NULL),
					    BRI_OK);
				else if (d.phase == BRI_PHASE_CALL)
					assert_int_equal(bri_deal_call(&d,
					    d.caller, (int)(splitmix(&x) % 4)),
					    BRI_OK);
				else
					assert_int_equal(bri_deal_play(&d,
					    d.turn, pick(&d, &x), NULL),
					    BRI_OK);
			}
			assert_int_equal(bri_view_of_deal(&d, -2, &v),
			    BRI_EINVAL);
			assert_int_equal(bri_view_of_deal(&d, d.nseats, &v),
			    BRI_EINVAL);
		}
	}
}

/*
 * classic4: a partner's hand becomes visible exactly when the stock
 * empties (after the seventh trick's draws) and never before.
 */
static void
test_classic4_partner_reveal(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 s;
	struct bri_deal		 d;
	struct bri_view		 v;
	struct bri_event	 ev;
	bri_card		 deck[BRI_NCARDS], removed;
	uint64_t		 x = 31;
	int			 k, seat, p, i, shown;

	(void)state;
	bri_options_default(&o, BRI_CLASSIC4);
	for (k = 0; k < 20; k++) {
		seed_of(200 + k, &s);
		assert_int_equal(bri_shuffle(&s, &o, k, deck, &removed), 40);
		assert_int_equal(bri_deal_init(&d, BRI_CLASSIC4, deck, 40,
		    k % 4), BRI_OK);
		shown = 0;
		memset(&ev, 0, sizeof(ev));
		for (;;) {
			for (seat = 0; seat < 4; seat++) {
				p = (seat + 2) % 4;
				assert_int_equal(bri_view_of_deal(&d, seat,
				    &v), BRI_OK);
				assert_int_equal(v.partner, p);
				if (d.trick < 7) {
					assert_int_equal(v.npartner, 0);
					for (i = 0; i < BRI_MAXHAND; i++)
						assert_int_equal(
						    v.partner_hand[i],
						    BRI_NOCARD);
					continue;
				}
				assert_int_equal(v.npartner, d.nhand[p]);
				assert_memory_equal(v.partner_hand, d.hand[p],
				    d.nhand[p]);
			}
			if (d.trick == 7 && d.nplays == 28) {
				/* the play that just ended trick 7 */
				assert_int_equal(ev.stock_empty, 1);
				shown = 1;
			}
			if (d.over)
				break;
			assert_int_equal(bri_deal_play(&d, d.turn,
			    pick(&d, &x), &ev), BRI_OK);
		}
		assert_true(shown);
	}
}

/* bri_view_build adds the deal number and the match points. */
static void
test_view_build(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	struct bri_view		 v;
	uint64_t		 x = 37;
	int			 seat;

	(void)state;
	bri_options_default(&o, BRI_JOKER3);
	seed_of(3, &s);
	assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
	assert_int_equal(bri_match_deal(&m), BRI_OK);
	match_play_deal(&m, &x);
	assert_int_equal(bri_match_deal(&m), BRI_OK);
	for (seat = 0; seat < 3; seat++) {
		assert_int_equal(bri_view_build(&m, seat, &v), BRI_OK);
		assert_int_equal(v.deal_no, 2);
		assert_memory_equal(v.mpoints, m.mpoints, sizeof(v.mpoints));
		assert_int_equal(v.removed, BRI_NOCARD);
	}
	assert_int_equal(bri_view_build(&m, 3, &v), BRI_EINVAL);
}

/* A refused play must leave the deal byte for byte as it was. */
static void
refused(struct bri_deal *d, int seat, bri_card c, int want)
{
	struct bri_deal		 before;
	struct bri_event	 ev;

	memcpy(&before, d, sizeof(before));
	assert_int_equal(bri_deal_check(d, seat, c), want);
	assert_int_equal(bri_deal_play(d, seat, c, &ev), want);
	assert_int_equal(bri_deal_play(d, seat, c, NULL), want);
	assert_memory_equal(&before, d, sizeof(before));
}

/*
 * Faults: out of turn, a card not held (another's, played, removed, the
 * trump before it is drawn, a non-card), a seat not at the table; each
 * refused play changes nothing.
 */
static void
test_play_errors(void **state)
{
	struct bri_deal		 d;

	(void)state;
	scen_deal(&d, &joker_void);
	/* seat 0 leads; the trump is 4C; the 2 of spade is removed */
	refused(&d, 1, card("2D"), BRI_ETURN);
	refused(&d, 2, card("3S"), BRI_ETURN);
	refused(&d, 0, card("2D"), BRI_ENOTINHAND);
	refused(&d, 0, card("4C"), BRI_ENOTINHAND);
	refused(&d, 0, card("2S"), BRI_ENOTINHAND);
	refused(&d, 0, card("8B"), BRI_ENOTINHAND);
	refused(&d, 0, BRI_NCARDS, BRI_ENOTINHAND);
	refused(&d, 0, BRI_NOCARD, BRI_ENOTINHAND);
	refused(&d, -1, card("4B"), BRI_EINVAL);
	refused(&d, 3, card("4B"), BRI_EINVAL);
	play_cards(&d, "4B", NULL);
	refused(&d, 0, card("6B"), BRI_ETURN);
	refused(&d, 1, card("4B"), BRI_ENOTINHAND);
	play_cards(&d, "4D,8S", NULL);
	/* seat 0 won and drew 8B, seat 1 drew 10D; 9S is still stock */
	assert_int_equal(d.turn, 0);
	assert_int_equal(d.drawn[0], card("8B"));
	refused(&d, 0, card("10D"), BRI_ENOTINHAND);
	refused(&d, 0, card("9S"), BRI_ENOTINHAND);
	refused(&d, 0, card("4B"), BRI_ENOTINHAND);
	play_cards(&d, "8B", NULL);
}

/*
 * At every moment of a deal, exactly the seat to move may play exactly
 * the cards it holds; every other attempt is refused without effect.
 */
static void
test_play_legality_exhaustive(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 s;
	struct bri_deal		 d;
	bri_card		 deck[BRI_NCARDS], removed, c;
	enum bri_variant	 v;
	uint64_t		 x = 41;
	int			 seat, i, held, want;

	(void)state;
	for (v = 0; v < BRI_NVARIANTS; v++) {
		bri_options_default(&o, v);
		seed_of(300 + v, &s);
		assert_int_equal(bri_deal_init(&d, v, deck,
		    bri_shuffle(&s, &o, 0, deck, &removed), 0), BRI_OK);
		/* until the auction is over, every card is refused */
		while (d.phase == BRI_PHASE_AUCTION) {
			for (c = 0; c < BRI_NCARDS; c++)
				refused(&d, d.turn, c, BRI_EPHASE);
			deal_auction(&d, &x);
		}
		while (!d.over) {
			for (seat = -1; seat <= d.nseats; seat++)
				for (c = 0; c <= BRI_NCARDS; c++) {
					for (i = 0, held = 0; seat >= 0 &&
					    seat < d.nseats &&
					    i < d.nhand[seat]; i++)
						held |= d.hand[seat][i] == c;
					if (seat < 0 || seat >= d.nseats)
						want = BRI_EINVAL;
					else if (seat != d.turn)
						want = BRI_ETURN;
					else if (!held)
						want = BRI_ENOTINHAND;
					else
						want = BRI_OK;
					if (want != BRI_OK)
						refused(&d, seat, c, want);
					else
						assert_int_equal(bri_deal_check(
						    &d, seat, c), BRI_OK);
				}
			assert_int_equal(bri_deal_play(&d, d.turn,
			    pick(&d, &x), NULL), BRI_OK);
		}
	}
}

/* Once every card is played the deal refuses any play with EDEALOVER. */
static void
test_play_after_deal_over(void **state)
{
	struct bri_deal		 d;
	int			 seat;
	bri_card		 c;

	(void)state;
	scen_play(&d, &joker_49, NULL);
	assert_int_equal(d.over, 1);
	for (seat = 0; seat < 3; seat++)
		for (c = 0; c < BRI_NCARDS; c++)
			refused(&d, seat, c, BRI_EDEALOVER);
}

/*
 * A match refuses plays before its first deal and between deals
 * (EDEALOVER), a new deal while one is in play (EINVAL), and everything
 * once over (EMATCHOVER), changing nothing.
 */
static void
test_match_errors(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m, before;
	struct bri_seed		 s;
	struct bri_event	 ev;
	uint64_t		 x = 43;

	(void)state;
	bri_options_default(&o, BRI_CLASSIC2);
	o.deals_to_win = 1;
	seed_of(9, &s);
	assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
	memcpy(&before, &m, sizeof(m));
	assert_int_equal(bri_match_play(&m, 0, 0, &ev), BRI_EDEALOVER);
	assert_memory_equal(&before, &m, sizeof(m));
	assert_int_equal(bri_match_deal(&m), BRI_OK);
	assert_int_equal(bri_match_deal(&m), BRI_EINVAL);
	memcpy(&before, &m, sizeof(m));
	assert_int_equal(bri_match_play(&m, 1 - m.deal.turn,
	    m.deal.hand[1 - m.deal.turn][0], &ev), BRI_ETURN);
	assert_int_equal(bri_match_play(&m, m.deal.turn,
	    m.deal.hand[1 - m.deal.turn][0], &ev), BRI_ENOTINHAND);
	assert_memory_equal(&before, &m, sizeof(m));
	/* one deal won is the match, unless it is drawn */
	while (m.result == BRI_MATCH_PLAYING) {
		if (m.deal.over)
			assert_int_equal(bri_match_deal(&m), BRI_OK);
		match_play_deal(&m, &x);
	}
	memcpy(&before, &m, sizeof(m));
	assert_int_equal(bri_match_play(&m, 0, 0, &ev), BRI_EMATCHOVER);
	assert_int_equal(bri_match_deal(&m), BRI_EMATCHOVER);
	assert_memory_equal(&before, &m, sizeof(m));
	assert_int_equal(bri_match_init(&m, NULL, &s), BRI_EINVAL);
	assert_int_equal(bri_match_init(&m, &o, NULL), BRI_EINVAL);
}

/*
 * bri_deal_init takes only a deck of the variant: each card once, 39
 * cards missing one 2 or all 40, a dealer at the table.
 */
static void
test_deal_init_rejects(void **state)
{
	struct bri_deal		 d;
	bri_card		 deck[BRI_NCARDS + 1], full[BRI_NCARDS];
	int			 i, n;

	(void)state;
	for (i = 0; i < BRI_NCARDS; i++)
		full[i] = (bri_card)i;
	/* classic2 and classic4 take 40 distinct cards only */
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC2, full, 40, 0), BRI_OK);
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC4, full, 40, 3), BRI_OK);
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC2, full, 39, 0),
	    BRI_EDECK);
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC4, full, 38, 0),
	    BRI_EDECK);
	memcpy(deck, full, sizeof(full));
	deck[40] = 5;
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC2, deck, 41, 0),
	    BRI_EDECK);
	deck[17] = deck[3];
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC2, deck, 40, 0),
	    BRI_EDECK);
	memcpy(deck, full, sizeof(full));
	deck[39] = BRI_NCARDS;
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC4, deck, 40, 0),
	    BRI_EDECK);
	deck[39] = BRI_NOCARD;
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC4, deck, 40, 0),
	    BRI_EDECK);

	/* joker3 and classic3: 39 cards, the one missing a 2 */
	for (n = 0; n < BRI_NCARDS; n++) {
		for (i = 0; i < n; i++)
			deck[i] = full[i];
		for (i = n + 1; i < BRI_NCARDS; i++)
			deck[i - 1] = full[i];
		assert_int_equal(bri_deal_init(&d, BRI_JOKER3, deck, 39, 0),
		    BRI_CARD_RANK(n) == 2 ? BRI_OK : BRI_EDECK);
		assert_int_equal(bri_deal_init(&d, BRI_CLASSIC3, deck, 39, 2),
		    BRI_CARD_RANK(n) == 2 ? BRI_OK : BRI_EDECK);
		if (BRI_CARD_RANK(n) == 2) {
			assert_int_equal(d.removed, n);
			/* a duplicate in place of another card */
			deck[20] = deck[21];
			assert_int_equal(bri_deal_init(&d, BRI_JOKER3, deck,
			    39, 0), BRI_EDECK);
		}
	}
	assert_int_equal(bri_deal_init(&d, BRI_JOKER3, full, 40, 0),
	    BRI_EDECK);
	assert_int_equal(bri_deal_init(&d, BRI_JOKER3, full + 1, 38, 0),
	    BRI_EDECK);
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC3, full, 40, 0),
	    BRI_EDECK);

	/* dealer and variant */
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC2, full, 40, 2),
	    BRI_EINVAL);
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC2, full, 40, -1),
	    BRI_EINVAL);
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC4, full, 40, 4),
	    BRI_EINVAL);
	assert_int_equal(bri_deal_init(&d, BRI_NVARIANTS, full, 40, 0),
	    BRI_EINVAL);
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC2, NULL, 40, 0),
	    BRI_EINVAL);
}

/* The deal takes its cards from the deck order exactly as documented. */
static void
test_deal_from_deck(void **state)
{
	struct bri_deal		 d;
	bri_card		 deck[BRI_NCARDS];
	enum bri_variant	 v;
	int			 i, n, dealer, nc;

	(void)state;
	for (v = 0; v < BRI_NVARIANTS; v++) {
		const struct bri_variant_info *vi = bri_variant_info(v);
		int	 h = vi->handsize;

		n = bri_variant_seats(v);
		nc = 0;
		/* 40 cards ascending, 39 descending without the 2C, or 36
		   ascending without the 2s */
		for (i = 0; i < BRI_NCARDS; i++) {
			if (vi->removal == BRI_REMOVE_ALL_TWOS &&
			    BRI_CARD_RANK(i) == 2)
				continue;
			deck[nc++] = (bri_card)i;
		}
		if (vi->removal == BRI_REMOVE_ONE_TWO) {
			nc = 39;
			for (i = 0; i < nc; i++)
				deck[i] = (bri_card)(39 - i);
			deck[38] = 0;
		}
		assert_int_equal(nc, vi->ncards);
		for (dealer = 0; dealer < n; dealer++) {
			assert_int_equal(bri_deal_init(&d, v, deck, nc, dealer),
			    BRI_OK);
			assert_int_equal(d.ncards, nc);
			assert_int_equal(d.ntricks, nc / n);
			assert_int_equal(d.dealer, dealer);
			assert_int_equal(d.leader, (dealer + 1) % n);
			for (i = 0; i < h * n; i++)
				assert_int_equal(d.hand[(dealer + 1 + i) % n]
				    [i / n], deck[i]);
			if (vi->turned) {
				assert_int_equal(d.trump, deck[h * n]);
				assert_int_equal(d.trumpsuit,
				    BRI_CARD_SUIT(deck[h * n]));
			} else {
				assert_int_equal(d.trump, BRI_NOCARD);
				assert_int_equal(d.trumpsuit, BRI_NOSUIT);
			}
			assert_int_equal(d.nstock, nc - h * n);
			assert_int_equal(d.removed, nc == 39 ? BRI_CARD(2,
			    BRI_COPPE) : BRI_NOCARD);
			assert_int_equal(d.joker, BRI_NOSEAT);
			assert_int_equal(d.over, 0);
			assert_int_equal(d.phase, vi->auction ?
			    BRI_PHASE_AUCTION : BRI_PHASE_PLAY);
		}
	}
}

/* Seeds survive text and back; either case is read, lowercase written. */
static void
test_seed_roundtrip(void **state)
{
	static const char hex[] =
	    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
	static const char upper[] =
	    "00FF02030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1EaB";
	struct bri_seed		 s, t;
	char			 buf[BRI_SEED_STRLEN];
	int			 i;
	uint64_t		 k;

	(void)state;
	assert_int_equal(bri_seed_parse(hex, &s), BRI_OK);
	for (i = 0; i < BRI_SEEDLEN; i++)
		assert_int_equal(s.b[i], i);
	assert_string_equal(bri_seed_format(&s, buf), hex);
	assert_int_equal(bri_seed_parse(upper, &s), BRI_OK);
	assert_int_equal(s.b[1], 0xff);
	assert_int_equal(s.b[31], 0xab);
	assert_string_equal(bri_seed_format(&s, buf),
	    "00ff02030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1eab");
	for (k = 0; k < 100; k++) {
		seed_of(k, &s);
		bri_seed_format(&s, buf);
		assert_int_equal(strlen(buf), 2 * BRI_SEEDLEN);
		assert_int_equal(bri_seed_parse(buf, &t), BRI_OK);
		assert_memory_equal(&s, &t, sizeof(s));
	}
}

/* Text that is not exactly 64 hex digits is not a seed; *s is untouched. */
static void
test_seed_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"0",
		"000102030405060708090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1",
		"000102030405060708090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1f0",
		"000102030405060708090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1g",
		"g00102030405060708090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1f",
		" 00102030405060708090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1f",
		"000102030405060708090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1 ",
		"0x0102030405060708090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1f",
		"000102030405060708090a0b0c0d0e0f"
		    "-01112131415161718191a1b1c1d1e1f",
	};
	struct bri_seed		 s, before;
	size_t			 i;

	(void)state;
	memset(&s, 0x5a, sizeof(s));
	memcpy(&before, &s, sizeof(s));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (bri_seed_parse(bad[i], &s) != BRI_ESEED)
			fail_msg("\"%s\" accepted as a seed", bad[i]);
		assert_memory_equal(&s, &before, sizeof(s));
	}
	assert_int_equal(bri_seed_parse(NULL, &s), BRI_ESEED);
	assert_memory_equal(&s, &before, sizeof(s));
}

/*
 * The same seed always gives the same decks and first dealer; another
 * deal index or another seed gives another deck.
 */
static void
test_seed_determinism(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 s, t;
	bri_card		 a[BRI_NCARDS], b[BRI_NCARDS], ra, rb;
	static bri_card		 all[100][BRI_NCARDS];
	enum bri_variant	 v;
	int			 k, j, n, m;

	(void)state;
	seed_of(42, &s);
	for (v = 0; v < BRI_NVARIANTS; v++) {
		bri_options_default(&o, v);
		for (k = 0; k < 100; k++) {
			n = bri_shuffle(&s, &o, k, a, &ra);
			m = bri_shuffle(&s, &o, k, b, &rb);
			assert_int_equal(n, m);
			assert_memory_equal(a, b, n);
			assert_int_equal(ra, rb);
			memcpy(all[k], a, sizeof(a));
			for (j = 0; j < k; j++)
				assert_memory_not_equal(all[j], a, n);
		}
		t = s;
		t.b[31] ^= 1;
		n = bri_shuffle(&s, &o, 0, a, &ra);
		bri_shuffle(&t, &o, 0, b, &rb);
		assert_memory_not_equal(a, b, n);
	}
	for (n = 2; n <= BRI_MAXSEATS; n++)
		assert_int_equal(bri_first_dealer(&s, n),
		    bri_first_dealer(&s, n));
	assert_int_equal(bri_first_dealer(&s, 1), BRI_EINVAL);
	assert_int_equal(bri_first_dealer(&s, BRI_MAXSEATS + 1), BRI_EINVAL);
	bri_options_default(&o, BRI_JOKER3);
	assert_int_equal(bri_shuffle(&s, &o, -1, a, &ra), BRI_EINVAL);
	o.deal_cap = 0;
	assert_int_equal(bri_shuffle(&s, &o, 0, a, &ra), BRI_EINVAL);
}

/* Print a deck as card text separated by commas, for comparisons. */
static void
deck_text(const bri_card *deck, int n, char *buf, size_t len)
{
	char	 c[BRI_CARD_STRLEN];
	int	 i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i > 0)
			strncat(buf, ",", len - strlen(buf) - 1);
		strncat(buf, bri_card_format(deck[i], c),
		    len - strlen(buf) - 1);
	}
}

/*
 * Known answers for the documented seed expansion, computed with an
 * independent Python implementation of ChaCha20 (RFC 8439) following
 * the procedure in seed.c, so that a change to dealing cannot go unseen.
 */
static void
test_seed_known_answers(void **state)
{
	static const struct {
		enum bri_variant v;
		int		 index, removed_two;
		const char	*deck, *removed;
	} kat[] = {
		{ BRI_JOKER3, 0, -1, "3D,2C,8D,9B,9S,4B,7S,5D,4S,5S,10C,3B,7D,"
		  "10B,1B,1D,4C,6B,7C,6S,5C,8S,8B,2S,2D,5B,8C,6C,1C,4D,3C,"
		  "3S,9D,9C,1S,7B,6D,10D,10S", "2B" },
		{ BRI_JOKER3, 1, -1, "5D,7D,10C,9C,1C,4S,1B,3S,9B,10S,9D,4B,"
		  "7C,5S,6C,2B,3C,10B,7B,2S,3D,4C,1D,6B,9S,2D,8S,5B,1S,6D,"
		  "5C,8C,6S,7S,8B,8D,3B,10D,4D", "2C" },
		{ BRI_CLASSIC2, 5, -1, "9C,2S,1B,3B,7S,2C,1D,6B,5B,10C,10D,"
		  "7C,9S,2B,8B,10B,6D,9D,1C,4S,8C,7D,2D,8S,6C,3C,9B,8D,1S,"
		  "5C,5D,3S,5S,6S,4B,3D,10S,7B,4D,4C", "?" },
		{ BRI_CLASSIC3, 2, 3, "3S,10S,8B,2D,1S,9C,7C,7B,1C,4S,1B,3D,"
		  "6S,5B,2C,5S,7D,6B,9D,4C,9S,8S,10B,8C,4D,5D,6D,3C,10D,7S,"
		  "5C,10C,6C,4B,9B,1D,3B,8D,2B", "2S" },
		{ BRI_CLASSIC3, 7, -1, "9B,6D,2S,5S,7D,7S,3B,5C,4B,6B,9D,8D,"
		  "1B,7C,8C,7B,5D,9S,2B,9C,8B,1D,4C,4S,1C,1S,5B,10D,10S,3C,"
		  "6S,6C,3D,10B,4D,3S,8S,2C,10C", "2D" },
		{ BRI_CLASSIC4, 0, -1, "3D,7B,2C,1B,3B,5D,6S,9B,4S,5B,2B,10S,"
		  "5S,10C,1D,8D,7D,4C,7S,7C,1S,5C,8S,8B,3S,2D,4B,8C,6C,1C,"
		  "4D,3C,2S,9D,9C,10B,6B,6D,10D,9S", "?" },
	};
	struct bri_options	 o;
	struct bri_seed		 s;
	bri_card		 deck[BRI_NCARDS], removed;
	char			 buf[200], c[BRI_CARD_STRLEN];
	size_t			 i;
	int			 n;

	(void)state;
	assert_int_equal(bri_seed_parse("000102030405060708090a0b0c0d0e0f"
	    "101112131415161718191a1b1c1d1e1f", &s), BRI_OK);
	for (i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
		bri_options_default(&o, kat[i].v);
		o.removed_two = kat[i].removed_two;
		n = bri_shuffle(&s, &o, kat[i].index, deck, &removed);
		deck_text(deck, n, buf, sizeof(buf));
		assert_string_equal(buf, kat[i].deck);
		assert_string_equal(bri_card_format(removed, c),
		    kat[i].removed);
	}
	assert_int_equal(bri_first_dealer(&s, 2), 1);
	assert_int_equal(bri_first_dealer(&s, 3), 1);
	assert_int_equal(bri_first_dealer(&s, 4), 3);
	memset(&s, 0xff, sizeof(s));
	assert_int_equal(bri_first_dealer(&s, 2), 0);
	assert_int_equal(bri_first_dealer(&s, 3), 2);
	assert_int_equal(bri_first_dealer(&s, 4), 2);
}

/*
 * The commitment is deterministic, differs for different seeds, and is
 * BLAKE2b-256("refd-seed-v1" || seed) as computed by Python's hashlib.
 */
static void
test_seed_commit(void **state)
{
	struct bri_seed		 s, t;
	uint8_t			 a[BRI_COMMITLEN], b[BRI_COMMITLEN];
	struct bri_seed		 hex;
	int			 i;

	(void)state;
	assert_int_equal(bri_seed_parse("000102030405060708090a0b0c0d0e0f"
	    "101112131415161718191a1b1c1d1e1f", &s), BRI_OK);
	bri_seed_commit(&s, a);
	bri_seed_commit(&s, b);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(bri_seed_parse("20b8cfa4c45dbb00c25d8dfcb8dc865a"
	    "761412eb5032f9e10193381caee896ab", &hex), BRI_OK);
	assert_memory_equal(a, hex.b, sizeof(a));
	assert_memory_not_equal(a, s.b, sizeof(a));
	memset(&t, 0, sizeof(t));
	bri_seed_commit(&t, b);
	assert_int_equal(bri_seed_parse("cd695c6777add61292ffd591f81ce7ae"
	    "d795f1a52b60033d46d02af8662b4827", &hex), BRI_OK);
	assert_memory_equal(b, hex.b, sizeof(b));
	for (i = 0; i < BRI_SEEDLEN * 8; i += 37) {
		t = s;
		t.b[i / 8] ^= (uint8_t)(1 << (i % 8));
		bri_seed_commit(&t, b);
		assert_memory_not_equal(a, b, sizeof(a));
	}
}

/* Fresh seeds come from the kernel and are not repeated. */
static void
test_seed_new(void **state)
{
	struct bri_seed		 s, t;

	(void)state;
	assert_int_equal(bri_seed_new(&s), BRI_OK);
	assert_int_equal(bri_seed_new(&t), BRI_OK);
	assert_memory_not_equal(&s, &t, sizeof(s));
}

/*
 * more-variants.md: the new tables.  Edge cases below are the
 * hand-checked deals that open the newer block of tests/deals.txt.
 */
static const struct scen classic6_6060 = { BRI_CLASSIC6, 0,
	"3S,1S,6S/4C,6B,10D/7S,8D,4S/1D,9S,1B/9B,8S,7B/3D,10C,5S", "5C",
	"9D,3C,4B,7D,6C,10S,8B,4D,6D,9C,8C,7C,5D,1C,3B,10B,5B", NULL,
	"3S,4C,8D,1D,7B,10C,5S,1S,6B,7S,1B,9B,6S,4B,4S,6C,10S,3D,5D,1C,"
	"7C,8B,10D,7D,8C,9D,3C,4D,5C,9C,10B,5B,6D,9S,8S,3B" };
static const struct scen briscolone_6060 = { BRI_BRISCOLONE, 1,
	"5B,3B,1C,8B,1B/7B,6S,10D,10C,6B", "-",
	"6D,3D,8C,3C,3S,7D,10S,5S,4D,5C,9D,9B,7S,4S,1D,9C,2C,6C,2S,2D,4B,"
	"7C,10B,2B,1S,5D,8D,4C,8S,9S", NULL,
	"6B,3B,1B,10D,8C,3C,3D,5B,3S,5S,7B,7D,9D,6D,7S,9B,10C,4S,6S,6C,"
	"10S,9C,1D,2D,4B,8B,1C,10B,7C,4C,8S,4D,2B,2S,8D,9S,5C,5D,1S,2C" };
static const struct scen classic5_sharedtop = { BRI_CLASSIC5, 3,
	"3C,2C,8D/2D,6C,3S/7D,6D,7S/9D,8S,1B/3B,6B,5D", "10S",
	"5S,5C,10D,7B,1D,3D,4B,5B,4S,10B,1C,7C,10C,9S,9B,8C,4D,6S,4C,9C,"
	"2S,1S,2B,8B", NULL,
	"9D,6B,2C,3S,7D,5S,5C,1B,7B,1D,3D,6D,8S,3B,3C,10D,5D,10C,2D,9B,"
	"1C,4S,10B,4C,4B,2S,8D,9S,9C,5B,2B,7S,8C,4D,6S,8B,10S,7C,1S,6C" };
/* chiamata5: leader is dealer + 1; the auction and suit come apart */
static const struct scen chiamata_alone = { BRI_CHIAMATA5, 3,
	"2S,8D,1D,9D,5S,4D,3D,1C/5C,4S,3B,3C,7D,5D,1B,8B/"
	"3S,2D,8C,9B,6D,8S,10S,10C/6B,4B,10D,9C,2B,6C,10B,7C/"
	"7S,7B,2C,5B,6S,1S,9S,4C", NULL, NULL, NULL,
	"10B,7B,8D,3C,2D,5S,3B,6D,2B,6S,10C,6B,7S,9D,1B,1C,8B,9B,7C,5B,"
	"2S,4S,10S,9C,1S,2C,1D,5C,8S,10D,3D,7D,8C,6C,4C,4D,5D,3S,4B,9S" };
static const struct scen chiamata_pair = { BRI_CHIAMATA5, 4,
	"2B,7D,10D,3C,9C,1S,2D,9D/4D,4B,1C,10B,7C,1D,2S,6B/"
	"8S,6S,9S,4C,10C,4S,3B,1B/3D,2C,6C,7B,8D,7S,5C,5S/"
	"9B,8B,3S,8C,10S,6D,5D,5B", NULL, NULL, NULL,
	"8B,1S,1C,8S,8D,5S,8C,9D,4D,10C,2D,4B,4S,7S,10S,7D,1D,4C,3D,5D,"
	"7C,9S,2C,3S,3C,2B,10B,3B,7B,9B,6S,6C,5B,10D,6B,9C,2S,1B,5C,6D" };
static const struct scen chiamata_6060 = { BRI_CHIAMATA5, 3,
	"3C,8C,4S,5B,6C,5D,6B,9D/10S,8D,7D,9C,1D,1B,4C,2S/"
	"1C,6D,4B,8S,2D,3D,7B,3B/2B,9S,4D,10C,6S,3S,5C,2C/"
	"10B,1S,8B,5S,7C,7S,9B,10D", NULL, NULL, NULL,
	"5C,8B,3C,1D,2D,7D,4B,2B,1S,8C,1B,6D,9S,5S,5D,3D,6S,7C,6C,4C,7B,"
	"4D,10B,4S,10S,10C,9B,5B,2S,3B,2C,10D,9D,8D,8S,7S,6B,9C,1C,3S" };
static const struct scen chiamata_two = { BRI_CHIAMATA5, 4,
	"9D,8C,5D,3B,10S,9S,2B,6C/9B,7S,4D,5S,4C,3D,8D,3S/"
	"5B,7C,4S,1S,5C,4B,7D,8B/2D,6D,10C,2S,1D,9C,3C,2C/"
	"10B,7B,10D,6B,1C,6S,8S,1B", NULL, NULL, NULL,
	"6S,5D,9B,4S,2C,3D,7C,3C,10D,3B,9D,5S,1S,9C,7B,10B,2B,8D,4B,1D,"
	"1C,8C,4C,7D,2S,6B,10S,7S,5C,2D,1B,9S,3S,5B,6D,8S,6C,4D,8B,10C" };
static const struct scen chiamata_void = { BRI_CHIAMATA5, 1,
	"10B,7S,2C,10D,4D,9S,8D,2B/9C,6D,6S,3D,2S,4B,7D,3S/"
	"4C,3B,9D,4S,7C,5B,9B,10C/8B,10S,1C,6C,7B,1B,8S,8C/"
	"5C,1D,2D,1S,5S,5D,6B,3C", NULL, NULL, NULL, NULL };

/* Make a list of calls ("1,pass,3"), each by the seat whose turn it is. */
static void
bid_list(struct bri_deal *d, const char *list, struct bri_event *last)
{
	struct bri_event	 ev;
	const char		*e;
	int			 r;

	while (list != NULL && *list != '\0') {
		e = list + strcspn(list, ",");
		r = strncmp(list, "pass", 4) == 0 ? BRI_PASS : atoi(list);
		assert_int_equal(bri_deal_bid(d, d->turn, r, &ev), BRI_OK);
		list = *e == ',' ? e + 1 : e;
	}
	if (last != NULL)
		*last = ev;
}

/* A refused call or suit must leave the deal byte for byte as it was. */
static void
refused_bid(struct bri_deal *d, int seat, int rank, int want)
{
	struct bri_deal		 before;

	memcpy(&before, d, sizeof(before));
	assert_int_equal(bri_deal_bid_check(d, seat, rank), want);
	assert_int_equal(bri_deal_bid(d, seat, rank, NULL), want);
	assert_memory_equal(&before, d, sizeof(before));
}

static void
refused_call(struct bri_deal *d, int seat, int suit, int want)
{
	struct bri_deal		 before;

	memcpy(&before, d, sizeof(before));
	assert_int_equal(bri_deal_call_check(d, seat, suit), want);
	assert_int_equal(bri_deal_call(d, seat, suit), want);
	assert_memory_equal(&before, d, sizeof(before));
}

/* The shape of every new table, as more-variants.md gives it. */
static void
test_new_tables(void **state)
{
	static const struct {
		enum bri_variant v;
		int	 seats, ncards, hand, turned, stock, tricks, rounds;
		int	 trump, sides;
	} t[] = {
		{ BRI_CLASSIC5, 5, 40, 3, 1, 25, 8, 5, BRI_TRUMP_TURNED,
		    BRI_SIDES_EACH },
		{ BRI_CLASSIC6, 6, 36, 3, 1, 18, 6, 3, BRI_TRUMP_TURNED,
		    BRI_SIDES_ALTERNATE },
		{ BRI_BRISCOLONE, 2, 40, 5, 0, 30, 20, 15, BRI_TRUMP_NONE,
		    BRI_SIDES_EACH },
		{ BRI_CHIAMATA5, 5, 40, 8, 0, 0, 8, 0, BRI_TRUMP_CALLED,
		    BRI_SIDES_CALLER },
	};
	const struct bri_variant_info *vi;
	struct bri_options	 o;
	struct bri_seed		 s;
	struct bri_deal		 d;
	bri_card		 deck[BRI_NCARDS], removed;
	uint64_t		 x = 5;
	size_t			 i;
	int			 k, n;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		vi = bri_variant_info(t[i].v);
		assert_non_null(vi);
		assert_int_equal(vi->seats, t[i].seats);
		assert_int_equal(vi->ncards, t[i].ncards);
		assert_int_equal(vi->handsize, t[i].hand);
		assert_int_equal(vi->turned, t[i].turned);
		assert_int_equal(vi->trump, t[i].trump);
		assert_int_equal(vi->sides, t[i].sides);
		assert_int_equal(vi->auction, t[i].v == BRI_CHIAMATA5);
		bri_options_default(&o, t[i].v);
		for (k = 0; k < 10; k++) {
			seed_of(700 + k, &s);
			n = bri_shuffle(&s, &o, k, deck, &removed);
			assert_int_equal(n, t[i].ncards);
			assert_int_equal(removed, BRI_NOCARD);
			assert_int_equal(bri_deal_init(&d, t[i].v, deck, n,
			    k % t[i].seats), BRI_OK);
			assert_int_equal(d.nstock, t[i].stock);
			assert_int_equal(d.ntricks, t[i].tricks);
			if (t[i].v == BRI_CLASSIC6)
				/* the 2s are out of the deck */
				for (k = 0; k < n; k++)
					assert_int_not_equal(
					    BRI_CARD_RANK(deck[k]), 2);
			if (t[i].v == BRI_CHIAMATA5) {
				deal_auction(&d, &x);
				if (d.over)
					continue;
			}
			if (t[i].rounds > 0)
				assert_int_equal(check_draws(&d, &x),
				    t[i].rounds);
			else
				while (!d.over) {
					assert_int_equal(bri_deal_play(&d,
					    d.turn, pick(&d, &x), NULL),
					    BRI_OK);
					assert_int_equal(d.nstock, 0);
				}
			assert_int_equal(d.trick, t[i].tricks);
		}
	}
	assert_null(bri_variant_info(BRI_NVARIANTS));
	/* a 36-card deck is classic6's only, and it must lack the 2s */
	bri_options_default(&o, BRI_CLASSIC6);
	n = bri_shuffle(&s, &o, 0, deck, &removed);
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC2, deck, n, 0),
	    BRI_EDECK);
	deck[0] = BRI_CARD(2, BRI_SPADE);
	assert_int_equal(bri_deal_init(&d, BRI_CLASSIC6, deck, n, 0),
	    BRI_EDECK);
}

/* classic5: the single highest total wins; a shared top draws. */
static void
test_classic5_scoring(void **state)
{
	static const int shared[] = { 17, 43, 2, 43, 15 };
	struct bri_options	 o;
	struct bri_seed		 seed;
	struct bri_deal		 d;
	bri_card		 deck[BRI_NCARDS], removed;
	uint64_t		 x = 31, k;
	int			 i, best, nbest, w;

	(void)state;
	full_deal(&classic5_sharedtop, shared, BRI_DEAL_DRAWN, BRI_NOSEAT,
	    BRI_NOSEAT);
	bri_options_default(&o, BRI_CLASSIC5);
	for (k = 0; k < 200; k++) {
		seed_of(900 + k, &seed);
		bri_shuffle(&seed, &o, 0, deck, &removed);
		assert_int_equal(bri_deal_init(&d, BRI_CLASSIC5, deck, 40,
		    (int)(k % 5)), BRI_OK);
		while (!d.over)
			assert_int_equal(bri_deal_play(&d, d.turn, pick(&d, &x),
			    NULL), BRI_OK);
		for (i = 0, best = -1, nbest = 0, w = -1; i < 5; i++) {
			if (d.points[i] > best) {
				best = d.points[i];
				nbest = 0;
				w = i;
			}
			nbest += d.points[i] == best;
		}
		assert_int_equal(d.result, nbest > 1 ? BRI_DEAL_DRAWN :
		    BRI_DEAL_WON);
		assert_int_equal(d.winner, nbest > 1 ? BRI_NOSEAT : w);
		for (i = 0; i < 5; i++)
			assert_int_equal(d.mpoints[i], nbest == 1 && i == w);
	}
}

/*
 * classic6: teams alternate (0, 2, 4 against 1, 3, 5), team totals
 * count, 61 wins, 60-60 draws; and no hand is ever shown to a teammate.
 */
static void
test_classic6_teams(void **state)
{
	static const int p6060[] = { 43, 0, 0, 14, 17, 46 };
	struct bri_deal		 d;
	struct bri_view		 v;
	uint64_t		 x = 3;
	int			 s, t0;

	(void)state;
	full_deal(&classic6_6060, p6060, BRI_DEAL_DRAWN, BRI_NOSEAT,
	    BRI_NOSEAT);
	scen_deal(&d, &classic6_6060);
	for (s = 0; s < 6; s++)
		assert_int_equal(bri_deal_team(&d, s), s % 2);
	while (!d.over) {
		for (s = 0; s < 6; s++) {
			assert_int_equal(bri_view_of_deal(&d, s, &v), BRI_OK);
			assert_int_equal(v.partner, BRI_NOSEAT);
			assert_int_equal(v.npartner, 0);
		}
		assert_int_equal(bri_deal_play(&d, d.turn, pick(&d, &x), NULL),
		    BRI_OK);
	}
	t0 = d.points[0] + d.points[2] + d.points[4];
	assert_int_equal(d.result, t0 == 60 ? BRI_DEAL_DRAWN : BRI_DEAL_WON);
	if (t0 != 60) {
		assert_int_equal(d.winner, t0 >= 61 ? 0 : 1);
		for (s = 0; s < 6; s++)
			assert_int_equal(d.mpoints[s], s % 2 == d.winner);
	}
}

/* classic5 and classic6: first (team) to N won deals wins the match. */
static void
test_classic56_match(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	enum bri_variant	 v;
	uint64_t		 x = 77, k;
	int			 i, n;

	(void)state;
	for (v = BRI_CLASSIC5; v <= BRI_CLASSIC6; v++) {
		n = bri_variant_seats(v);
		bri_options_default(&o, v);
		o.deals_to_win = 3;
		for (k = 0; k < 30; k++) {
			seed_of(k, &s);
			assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
			while (m.result == BRI_MATCH_PLAYING) {
				assert_int_equal(bri_match_deal(&m), BRI_OK);
				match_play_deal(&m, &x);
				if (v == BRI_CLASSIC6)
					for (i = 2; i < n; i++)
						assert_int_equal(m.mpoints[i],
						    m.mpoints[i % 2]);
			}
			assert_int_equal(m.result, BRI_MATCH_WON);
			assert_int_equal(m.mpoints[m.winner], 3);
			for (i = 0; i < n; i++)
				if (bri_deal_team(&m.deal, i) != m.winner)
					assert_true(m.mpoints[i] < 3);
		}
	}
}

/*
 * briscolone: no card turned, no trump; a card of another suit never
 * wins, however strong; 5 cards each, the stock drawn to its last card.
 */
static void
test_briscolone(void **state)
{
	static const int p6060[] = { 60, 60 };
	struct scen		 sc;
	struct bri_deal		 d;
	struct bri_event	 ev[2];

	(void)state;
	memset(&sc, 0, sizeof(sc));
	sc.v = BRI_BRISCOLONE;
	sc.leader = 0;
	sc.hands = "2C,4C,5C,6C,7C/1D,1B,1S,3D,3B";
	scen_deal(&d, &sc);
	assert_int_equal(d.trump, BRI_NOCARD);
	assert_int_equal(d.trumpsuit, BRI_NOSUIT);
	assert_int_equal(d.nhand[0], 5);
	assert_int_equal(d.nstock, 30);
	/* the 2 led wins against an Asso of another suit */
	play_cards(&d, "2C,1D", ev);
	assert_int_equal(ev[1].trick_winner, 0);
	assert_int_equal(ev[1].trick_points, 11);
	assert_int_equal(ev[1].ndraws, 2);
	assert_int_equal(d.nhand[0], 5);
	/* a higher card of the suit led wins */
	memset(&sc, 0, sizeof(sc));
	sc.v = BRI_BRISCOLONE;
	sc.leader = 1;
	sc.hands = "2C,4C,5C,6C,1C/1D,1B,1S,3D,3C";
	scen_deal(&d, &sc);
	play_cards(&d, "3C,1C", ev);
	assert_int_equal(ev[1].trick_winner, 0);
	full_deal(&briscolone_6060, p6060, BRI_DEAL_DRAWN, BRI_NOSEAT,
	    BRI_NOSEAT);
}

/* chiamata5: dealt 8 each from the seat after the dealer, all 40. */
static void
test_chiamata_deal(void **state)
{
	struct bri_deal		 d;
	struct bri_view		 v;
	int			 s;

	(void)state;
	scen_deal(&d, &chiamata_alone);
	assert_int_equal(d.dealer, 2);
	assert_int_equal(d.phase, BRI_PHASE_AUCTION);
	assert_int_equal(d.turn, 3);
	assert_int_equal(d.nstock, 0);
	assert_int_equal(d.trump, BRI_NOCARD);
	assert_int_equal(d.trumpsuit, BRI_NOSUIT);
	for (s = 0; s < 5; s++) {
		assert_int_equal(d.nhand[s], 8);
		assert_int_equal(bri_view_of_deal(&d, s, &v), BRI_OK);
		assert_int_equal(v.phase, BRI_PHASE_AUCTION);
		assert_int_equal(v.called, BRI_NOCARD);
		assert_int_equal(v.caller, BRI_NOSEAT);
		assert_int_equal(v.partner, BRI_NOSEAT);
	}
	assert_int_equal(d.hand[0][0], card("2S"));
	assert_int_equal(d.hand[3][0], card("6B"));
	/* no card may be played before the auction and the call */
	refused(&d, 3, card("6B"), BRI_EPHASE);
}

/*
 * The auction: the seat after the dealer speaks first, then clockwise,
 * skipping who passed; each rank strictly weaker than the last; a pass
 * is final; jumps are allowed; errors for each illegal call.
 */
static void
test_chiamata_auction_rules(void **state)
{
	struct bri_deal		 d;
	struct bri_event	 ev;

	(void)state;
	scen_deal(&d, &chiamata_pair);	/* dealer 3 */
	assert_int_equal(d.turn, 4);
	refused_bid(&d, 0, 1, BRI_ETURN);
	refused_bid(&d, 4, 0 - 1, BRI_EBID);
	refused_bid(&d, 4, 11, BRI_EBID);
	refused_bid(&d, 5, 1, BRI_EINVAL);
	refused_call(&d, 4, 0, BRI_EPHASE);
	bid_list(&d, "3", NULL);		/* seat 4: Tre */
	refused_bid(&d, 0, 3, BRI_EBID);	/* not weaker */
	refused_bid(&d, 0, 1, BRI_EBID);	/* stronger */
	bid_list(&d, "pass", NULL);		/* seat 0 */
	assert_int_equal(d.turn, 1);
	refused_bid(&d, 0, 10, BRI_EPASSED);	/* a pass is final */
	bid_list(&d, "7", &ev);			/* seat 1 jumps from 3 to 7 */
	assert_int_equal(ev.auction_over, 0);
	bid_list(&d, "pass,pass,5", NULL);	/* seats 2, 3 pass; 4 says 5 */
	assert_int_equal(d.turn, 1);		/* 0, 2, 3 are skipped */
	bid_list(&d, "pass", &ev);		/* seat 1: only 4 is left */
	assert_int_equal(ev.auction_over, 1);
	assert_int_equal(ev.caller, 4);
	assert_int_equal(d.caller, 4);
	assert_int_equal(d.phase, BRI_PHASE_CALL);
	assert_int_equal(d.ncalls, 7);
	refused_bid(&d, 4, 4, BRI_EPHASE);
	refused_call(&d, 1, BRI_DENARI, BRI_ENOTCALLER);
	refused_call(&d, 4, 4, BRI_ESUIT);
	refused_call(&d, 4, -1, BRI_ESUIT);
	refused(&d, 4, d.hand[4][0], BRI_EPHASE);
	assert_int_equal(bri_deal_call(&d, 4, BRI_DENARI), BRI_OK);
	assert_int_equal(d.called, card("5D"));
	assert_int_equal(d.trumpsuit, BRI_DENARI);
	assert_int_equal(d.partner, 4);		/* 5D is in 4's hand */
	assert_int_equal(d.phase, BRI_PHASE_PLAY);
	assert_int_equal(d.turn, 4);		/* dealer + 1 leads */
	refused_call(&d, 4, BRI_DENARI, BRI_EPHASE);
	refused_bid(&d, 4, 2, BRI_EPHASE);
}

/* The auction ends at once when a seat names the 2. */
static void
test_chiamata_two_ends(void **state)
{
	struct bri_deal		 d;
	struct bri_event	 ev;

	(void)state;
	scen_deal(&d, &chiamata_two);		/* dealer 3, 4 speaks */
	bid_list(&d, "2", &ev);
	assert_int_equal(ev.auction_over, 1);
	assert_int_equal(ev.caller, 4);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(bri_deal_call(&d, 4, BRI_BASTONI), BRI_OK);
	assert_int_equal(d.partner, 0);		/* 2B is seat 0's */
	play_cards(&d, chiamata_two.plays, NULL);
	assert_int_equal(d.result, BRI_DEAL_CALLER);
	assert_int_equal(d.mpoints[4], 2);
	assert_int_equal(d.mpoints[0], 1);
	/* a later speaker naming the 2 ends it too, others unheard */
	scen_deal(&d, &chiamata_two);
	bid_list(&d, "1,pass,10", NULL);
	bid_list(&d, "2", &ev);
	assert_int_equal(ev.caller, 2);
	assert_int_equal(d.phase, BRI_PHASE_CALL);
}

/*
 * Four passes then the fifth still speaks: a rank makes it the caller
 * at once; a pass makes five passes and a void deal, nothing played,
 * nobody scoring.
 */
static void
test_chiamata_fifth_speaker(void **state)
{
	struct bri_deal		 d;
	struct bri_event	 ev;
	struct bri_view		 v;
	int			 s;

	(void)state;
	scen_deal(&d, &chiamata_void);		/* dealer 0, 1 speaks */
	bid_list(&d, "pass,pass,pass,pass", &ev);
	assert_int_equal(ev.auction_over, 0);
	assert_int_equal(d.turn, 0);
	bid_list(&d, "1", &ev);
	assert_int_equal(ev.auction_over, 1);
	assert_int_equal(ev.caller, 0);

	scen_deal(&d, &chiamata_void);
	bid_list(&d, "pass,pass,pass,pass,pass", &ev);
	assert_int_equal(ev.auction_over, 1);
	assert_int_equal(ev.caller, BRI_NOSEAT);
	assert_int_equal(ev.deal_over, 1);
	assert_int_equal(d.over, 1);
	assert_int_equal(d.phase, BRI_PHASE_OVER);
	assert_int_equal(d.result, BRI_DEAL_VOID);
	assert_int_equal(d.nplays, 0);
	assert_int_equal(d.called, BRI_NOCARD);
	for (s = 0; s < 5; s++) {
		assert_int_equal(d.points[s], 0);
		assert_int_equal(d.mpoints[s], 0);
		assert_int_equal(bri_view_of_deal(&d, s, &v), BRI_OK);
		assert_int_equal(v.ncalls, 5);
		assert_int_equal(v.result, BRI_DEAL_VOID);
	}
	refused(&d, d.turn, d.hand[d.turn][0], BRI_EDEALOVER);
	refused_bid(&d, 1, 1, BRI_EDEALOVER);
}

/*
 * The partner: the holder of the called card, known only to itself
 * until the card is played, then announced to all right after the play;
 * a caller who calls his own card plays alone, +4/-1.
 */
static void
test_chiamata_partner(void **state)
{
	static const int palone[] = { 79, 13, 10, 0, 18 };
	struct bri_deal		 d;
	struct bri_event	 ev;
	struct bri_view		 v;
	bri_card		 c[BRI_NCARDS];
	int			 n, i, s, seen;

	(void)state;
	/* pair: seat 0 calls the 8 of coins, held by seat 3 */
	scen_deal(&d, &chiamata_pair);
	bid_list(&d, "1,3,9,pass,pass,pass,8,pass", &ev);
	assert_int_equal(ev.caller, 0);
	assert_int_equal(bri_deal_call(&d, 0, BRI_DENARI), BRI_OK);
	assert_int_equal(d.called, card("8D"));
	assert_int_equal(d.partner, 3);
	/* the seat after the dealer (3) leads, not the caller (0) */
	assert_int_equal(d.turn, 4);
	assert_int_equal(d.leader, 4);
	n = cards(chiamata_pair.plays, c, BRI_NCARDS);
	for (i = 0, seen = 0; i < n; i++) {
		for (s = 0; s < 5; s++) {
			assert_int_equal(bri_view_of_deal(&d, s, &v), BRI_OK);
			assert_int_equal(v.called, card("8D"));
			assert_int_equal(v.caller, 0);
			assert_int_equal(v.trumpsuit, BRI_DENARI);
			assert_int_equal(v.partner, seen || s == 3 ? 3 :
			    BRI_NOSEAT);
			assert_int_equal(v.revealed, seen);
		}
		assert_int_equal(bri_deal_play(&d, d.turn, c[i], &ev), BRI_OK);
		assert_int_equal(ev.partner, c[i] == card("8D") ? 3 :
		    BRI_NOSEAT);
		seen |= c[i] == card("8D");
	}
	assert_int_equal(bri_deal_team(&d, 0), 0);
	assert_int_equal(bri_deal_team(&d, 3), 0);
	assert_int_equal(bri_deal_team(&d, 1), 1);
	assert_int_equal(d.result, BRI_DEAL_CALLER);
	assert_int_equal(d.mpoints[0], 2);
	assert_int_equal(d.mpoints[3], 1);
	assert_int_equal(d.mpoints[1] + d.mpoints[2] + d.mpoints[4], -3);

	/* alone: seat 0 calls the 3 of coins from its own hand */
	scen_deal(&d, &chiamata_alone);
	bid_list(&d, "1,pass,3,pass,pass,pass", &ev);
	assert_int_equal(ev.caller, 0);
	assert_int_equal(bri_deal_call(&d, 0, BRI_DENARI), BRI_OK);
	assert_int_equal(d.partner, 0);
	for (s = 1; s < 5; s++) {
		assert_int_equal(bri_view_of_deal(&d, s, &v), BRI_OK);
		assert_int_equal(v.partner, BRI_NOSEAT);
	}
	assert_int_equal(bri_view_of_deal(&d, 0, &v), BRI_OK);
	assert_int_equal(v.partner, 0);		/* he knows: his own card */
	n = cards(chiamata_alone.plays, c, BRI_NCARDS);
	for (i = 0; i < n; i++) {
		assert_int_equal(bri_deal_play(&d, d.turn, c[i], &ev), BRI_OK);
		if (c[i] == card("3D"))
			assert_int_equal(ev.partner, 0);
	}
	for (s = 0; s < 5; s++)
		assert_int_equal(d.points[s], palone[s]);
	assert_int_equal(d.result, BRI_DEAL_CALLER);
	assert_int_equal(d.mpoints[0], 4);
	for (s = 1; s < 5; s++)
		assert_int_equal(d.mpoints[s], -1);
}

/*
 * Scoring: 61+ for the caller's side wins, 59- loses, 60 draws; match
 * points as the table, summing to zero; losses mirror wins.
 */
static void
test_chiamata_scoring(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 seed;
	struct bri_deal		 d;
	bri_card		 deck[BRI_NCARDS], removed;
	uint64_t		 x = 61, k;
	int			 s, side, sum, c, p, seen[4] = { 0 };

	(void)state;
	scen_deal(&d, &chiamata_6060);
	bid_list(&d, "1,3,10,9,8,pass,7,pass,6,pass,pass", NULL);
	assert_int_equal(d.caller, 1);
	assert_int_equal(bri_deal_call(&d, 1, BRI_DENARI), BRI_OK);
	play_cards(&d, chiamata_6060.plays, NULL);
	assert_int_equal(d.partner, 2);
	assert_int_equal(d.points[1] + d.points[2], 60);
	assert_int_equal(d.result, BRI_DEAL_DRAWN);
	for (s = 0; s < 5; s++)
		assert_int_equal(d.mpoints[s], 0);

	bri_options_default(&o, BRI_CHIAMATA5);
	for (k = 0; k < 2000; k++) {
		seed_of(1200 + k, &seed);
		bri_shuffle(&seed, &o, 0, deck, &removed);
		assert_int_equal(bri_deal_init(&d, BRI_CHIAMATA5, deck, 40,
		    (int)(k % 5)), BRI_OK);
		deal_auction(&d, &x);
		if (d.over)
			continue;
		while (!d.over)
			assert_int_equal(bri_deal_play(&d, d.turn, pick(&d, &x),
			    NULL), BRI_OK);
		c = d.caller;
		p = d.partner;
		side = d.points[c] + (p != c ? d.points[p] : 0);
		for (s = 0, sum = 0; s < 5; s++)
			sum += d.mpoints[s];
		assert_int_equal(sum, 0);
		if (side == 60) {
			assert_int_equal(d.result, BRI_DEAL_DRAWN);
			continue;
		}
		assert_int_equal(d.result, side >= 61 ? BRI_DEAL_CALLER :
		    BRI_DEAL_OTHERS);
		seen[(p == c) * 2 + (side >= 61)] = 1;
		for (s = 0; s < 5; s++) {
			if (s == c)
				assert_int_equal(d.mpoints[s], (p == c ? 4 : 2) *
				    (side >= 61 ? 1 : -1));
			else if (s == p)
				assert_int_equal(d.mpoints[s], side >= 61 ?
				    1 : -1);
			else
				assert_int_equal(d.mpoints[s], side >= 61 ?
				    -1 : 1);
		}
	}
	/* every row of the table was met: pair and alone, won and lost */
	for (s = 0; s < 4; s++)
		assert_true(seen[s]);
}

/*
 * The match: a fixed number of deals (option deals, default 5); every
 * deal's match points are added; the single highest total wins, a
 * shared top is a draw among the tied; a void deal counts as a deal.
 */
static void
test_chiamata_match(void **state)
{
	struct bri_options	 o;
	struct bri_match	 m;
	struct bri_seed		 s;
	uint64_t		 x = 88, k;
	int			 i, top, ntop, total, deals, draws = 0, voids = 0;

	(void)state;
	bri_options_default(&o, BRI_CHIAMATA5);
	assert_int_equal(o.deals, 5);
	for (deals = 1; deals <= 7; deals += 3) {
		o.deals = deals;
		for (k = 0; k < 200; k++) {
			seed_of(k, &s);
			assert_int_equal(bri_match_init(&m, &o, &s), BRI_OK);
			while (m.result == BRI_MATCH_PLAYING) {
				assert_int_equal(bri_match_deal(&m), BRI_OK);
				/* after a void deal too, the next dealer deals */
				assert_int_equal(m.deal.dealer,
				    (m.first_dealer + m.ndeals - 1) % 5);
				match_play_deal(&m, &x);
				voids += m.deal.result == BRI_DEAL_VOID;
				for (i = 0, total = 0; i < 5; i++)
					total += m.mpoints[i];
				assert_int_equal(total, 0);
				assert_int_equal(m.result == BRI_MATCH_PLAYING,
				    m.ndeals < deals);
			}
			assert_int_equal(m.ndeals, deals);
			for (i = 0, top = -100, ntop = 0; i < 5; i++)
				if (m.mpoints[i] > top)
					top = m.mpoints[i];
			for (i = 0; i < 5; i++)
				ntop += m.mpoints[i] == top;
			if (ntop == 1) {
				assert_int_equal(m.result, BRI_MATCH_WON);
				assert_int_equal(m.mpoints[m.winner], top);
			} else {
				draws++;
				assert_int_equal(m.result, BRI_MATCH_DRAWN);
				for (i = 0; i < 5; i++)
					assert_int_equal(m.tied >> i & 1,
					    m.mpoints[i] == top);
			}
			assert_int_equal(bri_match_deal(&m), BRI_EMATCHOVER);
			assert_int_equal(bri_match_bid(&m, 0, BRI_PASS, NULL),
			    BRI_EMATCHOVER);
			assert_int_equal(bri_match_call(&m, 0, 0),
			    BRI_EMATCHOVER);
		}
	}
	assert_true(draws > 0);
	assert_true(voids > 0);
	o.deals = 0;
	assert_int_equal(bri_options_check(&o), BRI_EINVAL);
	o.deals = 1001;
	assert_int_equal(bri_options_check(&o), BRI_EINVAL);
}

/*
 * What a seat may know in chiamata5: every call in order, the called
 * card, the partner only once revealed or to its holder.  Moving the
 * called card between two other seats' hands (swapping it with one of
 * their cards) never changes a third seat's view, byte for byte.
 */
static void
test_chiamata_view_secrecy(void **state)
{
	struct bri_options	 o;
	struct bri_seed		 seed;
	struct bri_deal		 d, d2;
	struct bri_view		 v, v2;
	bri_card		 deck[BRI_NCARDS], removed, t;
	uint64_t		 x = 71, k;
	int			 s, a, b, i, j, p, compared = 0;

	(void)state;
	bri_options_default(&o, BRI_CHIAMATA5);
	for (k = 0; k < 300; k++) {
		seed_of(1500 + k, &seed);
		bri_shuffle(&seed, &o, 0, deck, &removed);
		assert_int_equal(bri_deal_init(&d, BRI_CHIAMATA5, deck, 40,
		    (int)(k % 5)), BRI_OK);
		while (d.phase == BRI_PHASE_AUCTION) {
			for (s = 0; s < 5; s++) {
				check_view(&d, s);
				assert_int_equal(bri_view_of_deal(&d, s, &v),
				    BRI_OK);
				assert_int_equal(v.ncalls, d.ncalls);
				assert_int_equal(v.phase, BRI_PHASE_AUCTION);
			}
			assert_int_equal(bri_deal_bid(&d, d.turn,
			    pick_bid(&d, &x), NULL), BRI_OK);
		}
		if (d.over)
			continue;
		assert_int_equal(bri_deal_call(&d, d.caller,
		    (int)(splitmix(&x) % 4)), BRI_OK);
		while (!d.over) {
			p = d.partner;
			for (s = 0; s < 5; s++) {
				check_view(&d, s);
				if (d.revealed || s == p)
					continue;
				/* another seat a (not s) holds the card: move
				   it to b, neither s, taking b's card back */
				for (a = 0; a < 5; a++)
					for (b = 0; b < 5; b++) {
					if (a != p || b == a || b == s ||
					    a == s || d.nhand[b] == 0 ||
					    d.nhand[a] != d.nhand[b])
						continue;
					memcpy(&d2, &d, sizeof(d2));
					for (i = 0; d2.hand[a][i] != d.called;
					    i++)
						;
					j = (int)(splitmix(&x) % d.nhand[b]);
					t = d2.hand[a][i];
					d2.hand[a][i] = d2.hand[b][j];
					d2.hand[b][j] = t;
					d2.partner = (int8_t)b;
					assert_int_equal(bri_view_of_deal(&d, s,
					    &v), BRI_OK);
					assert_int_equal(bri_view_of_deal(&d2,
					    s, &v2), BRI_OK);
					assert_memory_equal(&v, &v2,
					    sizeof(v));
					assert_int_equal(v.partner,
					    BRI_NOSEAT);
					compared++;
				}
			}
			assert_int_equal(bri_deal_play(&d, d.turn, pick(&d, &x),
			    NULL), BRI_OK);
		}
		for (s = 0; s < 5; s++)
			check_view(&d, s);
	}
	assert_true(compared > 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_card_parse_roundtrip),
		cmocka_unit_test(test_card_parse_rejects),
		cmocka_unit_test(test_suit_letters),
		cmocka_unit_test(test_card_parse_len),
		cmocka_unit_test(test_card_format),
		cmocka_unit_test(test_card_points),
		cmocka_unit_test(test_card_strength),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_trick_trump_beats_led),
		cmocka_unit_test(test_trick_offsuit_never_wins),
		cmocka_unit_test(test_trick_highest_trump),
		cmocka_unit_test(test_trick_leader_wins_unfollowed),
		cmocka_unit_test(test_draw_order),
		cmocka_unit_test(test_trump_drawn_last),
		cmocka_unit_test(test_trump_third_drawer_round10),
		cmocka_unit_test(test_joker_leader_leads_trump),
		cmocka_unit_test(test_no_obligation_to_follow),
		cmocka_unit_test(test_joker_first_trump_loses),
		cmocka_unit_test(test_joker_later_trumps),
		cmocka_unit_test(test_joker_none_in_classic),
		cmocka_unit_test(test_joker_reset_each_deal),
		cmocka_unit_test(test_joker_void_on_50),
		cmocka_unit_test(test_joker_wins_on_51),
		cmocka_unit_test(test_allies_win_on_71),
		cmocka_unit_test(test_match_points),
		cmocka_unit_test(test_match_end_rule),
		cmocka_unit_test(test_match_tie_on_target_continues),
		cmocka_unit_test(test_match_deal_cap),
		cmocka_unit_test(test_match_dealer_rotation),
		cmocka_unit_test(test_classic2_scoring),
		cmocka_unit_test(test_classic3_scoring),
		cmocka_unit_test(test_classic3_removed_two),
		cmocka_unit_test(test_classic4_teams),
		cmocka_unit_test(test_classic4_match),
		cmocka_unit_test(test_classic_match_end),
		cmocka_unit_test(test_view_secrecy),
		cmocka_unit_test(test_classic4_partner_reveal),
		cmocka_unit_test(test_view_build),
		cmocka_unit_test(test_play_errors),
		cmocka_unit_test(test_play_legality_exhaustive),
		cmocka_unit_test(test_play_after_deal_over),
		cmocka_unit_test(test_match_errors),
		cmocka_unit_test(test_deal_init_rejects),
		cmocka_unit_test(test_deal_from_deck),
		cmocka_unit_test(test_seed_roundtrip),
		cmocka_unit_test(test_seed_rejects),
		cmocka_unit_test(test_seed_determinism),
		cmocka_unit_test(test_seed_known_answers),
		cmocka_unit_test(test_seed_commit),
		cmocka_unit_test(test_seed_new),
		cmocka_unit_test(test_new_tables),
		cmocka_unit_test(test_classic5_scoring),
		cmocka_unit_test(test_classic6_teams),
		cmocka_unit_test(test_classic56_match),
		cmocka_unit_test(test_briscolone),
		cmocka_unit_test(test_chiamata_deal),
		cmocka_unit_test(test_chiamata_auction_rules),
		cmocka_unit_test(test_chiamata_two_ends),
		cmocka_unit_test(test_chiamata_fifth_speaker),
		cmocka_unit_test(test_chiamata_partner),
		cmocka_unit_test(test_chiamata_scoring),
		cmocka_unit_test(test_chiamata_match),
		cmocka_unit_test(test_chiamata_view_secrecy),
	};

	if (bri_init() != BRI_OK) {
		fprintf(stderr, "test_rules: bri_init failed\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
