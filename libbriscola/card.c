/*
 * card.c: cards, their text notation and error text.
 */
#include <string.h>

#include <sodium.h>

#include "briscola.h"

/* Strength inside a suit, by rank - 1: Asso, 3, Re, Cavallo, Fante, 7..2. */
static const uint8_t strength[10] = { 10, 1, 9, 2, 3, 4, 5, 6, 7, 8 };
/* Card points by rank - 1. */
static const uint8_t cardpoints[10] = { 11, 0, 10, 0, 0, 0, 0, 2, 3, 4 };
static const char suitletter[4] = { 'C', 'D', 'B', 'S' };

/*
 * Initialise the library: libsodium must be ready before a seed is
 * expanded.  Safe to call more than once and from several threads.
 * Returns BRI_OK, or BRI_EINVAL if libsodium cannot start.
 */
int
bri_init(void)
{
	return sodium_init() < 0 ? BRI_EINVAL : BRI_OK;
}

/* Static English text for an error code; never NULL. */
const char *
bri_strerror(int e)
{
	switch (e) {
	case BRI_OK:		return "no error";
	case BRI_EINVAL:	return "invalid argument";
	case BRI_EBADCARD:	return "not a card";
	case BRI_ETURN:		return "not your turn";
	case BRI_ENOTINHAND:	return "card not in hand";
	case BRI_EDEALOVER:	return "deal over";
	case BRI_EMATCHOVER:	return "match over";
	case BRI_EDECK:		return "not a deck for this variant";
	case BRI_ESEED:		return "not a seed";
	case BRI_ENOENTROPY:	return "no entropy from the kernel";
	case BRI_EPHASE:	return "not now in this deal";
	case BRI_EBID:		return "not a rank weaker than the last named";
	case BRI_EPASSED:	return "already passed";
	case BRI_ENOTCALLER:	return "only the caller names the suit";
	case BRI_ESUIT:		return "not a suit";
	}
	return "unknown error";
}

/*
 * Parse the first len bytes of s as a card: rank 1..10 then a suit letter
 * C, D, B or S, in either case, nothing else.  On success stores the card
 * in *c and returns BRI_OK; otherwise BRI_EBADCARD and *c is untouched.
 */
int
bri_card_parse(const char *s, size_t len, bri_card *c)
{
	int	 rank, suit;
	char	 l;

	if (s == NULL || len < 2 || len > 3)
		return BRI_EBADCARD;
	if (len == 3) {
		if (s[0] != '1' || s[1] != '0')
			return BRI_EBADCARD;
		rank = 10;
	} else {
		if (s[0] < '1' || s[0] > '9')
			return BRI_EBADCARD;
		rank = s[0] - '0';
	}
	l = s[len - 1];
	if (l >= 'a' && l <= 'z')
		l -= 'a' - 'A';
	if ((suit = bri_suit_parse(l)) == -1)
		return BRI_EBADCARD;
	*c = BRI_CARD(rank, suit);
	return BRI_OK;
}

/* The canonical letter of a suit (C, D, B or S), or '?' for none. */
char
bri_suit_letter(int suit)
{
	return suit >= 0 && suit < 4 ? suitletter[suit] : '?';
}

/* The suit of a canonical (upper-case) letter, or -1 for none. */
int
bri_suit_parse(int letter)
{
	int	 suit;

	for (suit = 0; suit < 4; suit++)
		if (suitletter[suit] == letter)
			return suit;
	return -1;
}

/* Canonical text of a card into buf ("?" for a non-card); returns buf. */
const char *
bri_card_format(bri_card c, char buf[BRI_CARD_STRLEN])
{
	int	 rank, i = 0;

	if (c >= BRI_NCARDS) {
		buf[0] = '?';
		buf[1] = '\0';
		return buf;
	}
	rank = BRI_CARD_RANK(c);
	if (rank == 10) {
		buf[i++] = '1';
		buf[i++] = '0';
	} else
		buf[i++] = '0' + rank;
	buf[i++] = suitletter[BRI_CARD_SUIT(c)];
	buf[i] = '\0';
	return buf;
}

/* Card points of a card: 11, 10, 4, 3, 2 or 0. */
int
bri_card_points(bri_card c)
{
	return c < BRI_NCARDS ? cardpoints[c % 10] : 0;
}

/* Strength inside its suit, 1 (the 2) to 10 (the Asso). */
int
bri_card_strength(bri_card c)
{
	return c < BRI_NCARDS ? strength[c % 10] : 0;
}
