/*
 * botproto.c: the text of every game message refd sends a bot.
 *
 * Each deal message is built from the seat's own bri_view and nothing
 * else of the deal, so no code path here can put another seat's unplayed
 * card on a bot's wire: the information boundary is libbriscola's, in
 * one place.  The commands are described in refd-protocol(7).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "botproto.h"
#include "util.h"

/*
 * Cards of a list as "C1 C2 ..." into buf, each written in place: a
 * genplay's hand is on the path of every move.
 */
static const char *
cardlist(const bri_card *c, int n, char *buf, size_t len)
{
	size_t	 at = 0;
	int	 i;

	buf[0] = '\0';
	/* room for a space, a card and the NUL */
	for (i = 0; i < n && at + 1 + BRI_CARD_STRLEN <= len; i++) {
		if (i > 0)
			buf[at++] = ' ';
		at += strlen(bri_card_format(c[i], buf + at));
	}
	return buf;
}

/* A call of the auction as a word: "pass", or the rank "1" to "10". */
static const char *
rankword(int rank, char *buf, size_t len)
{
	if (rank == BRI_PASS)
		return "pass";
	util_format(buf, len, "%d", rank);
	return buf;
}

/* Integers as "a,b,c". */
static const char *
intlist(const int *v, int n, char *buf, size_t len)
{
	size_t	 at = 0;
	int	 i;

	buf[0] = '\0';
	for (i = 0; i < n && at + 12 < len; i++)
		at += util_format(buf + at, len - at, "%s%d", i ? "," : "",
		    v[i]);
	return buf;
}

/*
 * The deal result word: joker, allies, void, seatN, teamN, draw, caller
 * or others.
 */
const char *
botproto_deal_result(const struct bri_view *v, char *buf, size_t len)
{
	switch (v->result) {
	case BRI_DEAL_JOKER:	return "joker";
	case BRI_DEAL_ALLIES:	return "allies";
	case BRI_DEAL_VOID:	return "void";
	case BRI_DEAL_DRAWN:	return "draw";
	case BRI_DEAL_CALLER:	return "caller";
	case BRI_DEAL_OTHERS:	return "others";
	case BRI_DEAL_WON:
		util_format(buf, len, "%s%d",
		    bri_variant_info(v->variant)->sides ==
		    BRI_SIDES_ALTERNATE ? "team" : "seat", v->winner);
		return buf;
	}
	return "playing";
}

/*
 * The text of deal message m for the seat whose view is v, into buf (at
 * most len bytes, no id, no newline); arg is the milliseconds left for
 * genplay.  Returns buf.
 */
const char *
botproto_format(enum botmsg m, const struct bri_view *v, int arg, char *buf,
    size_t len)
{
	char	 c1[BRI_CARD_STRLEN], c2[BRI_CARD_STRLEN], l1[64], l2[64];
	char	 res[16];
	int	 p[BRI_MAXSEATS], i, t = v->trick - 1, pts = 0;

	switch (m) {
	case BOTMSG_DEAL_START:
		/* "-" where no card is turned (briscolone) */
		util_format(buf, len, "deal_start %d %d %s %s", v->deal_no,
		    v->dealer, v->trump == BRI_NOCARD ? "-" :
		    bri_card_format(v->trump, c1),
		    cardlist(v->hand, v->nhand, l1, sizeof(l1)));
		break;
	case BOTMSG_PLAY:
		util_format(buf, len, "play %d %s", v->playseat[v->nplays - 1],
		    bri_card_format(v->plays[v->nplays - 1], c1));
		break;
	case BOTMSG_JOKER:
		util_format(buf, len, "joker %d", v->joker);
		break;
	case BOTMSG_TRICK:
		/* the points are public: the trick's cards were all shown */
		for (i = t * v->nseats; i < (t + 1) * v->nseats; i++)
			pts += bri_card_points(v->plays[i]);
		util_format(buf, len, "trick %d %d", v->winners[t], pts);
		break;
	case BOTMSG_DRAW:
		util_format(buf, len, "draw %s", bri_card_format(v->drawn, c1));
		break;
	case BOTMSG_PARTNER:
		util_format(buf, len, "partner_hand %s",
		    cardlist(v->partner_hand, v->npartner, l1, sizeof(l1)));
		break;
	case BOTMSG_DEAL_END:
		for (i = 0; i < v->nseats; i++)
			p[i] = v->points[i];
		util_format(buf, len, "deal_end %s %s %s %s",
		    botproto_deal_result(v, res, sizeof(res)),
		    intlist(p, v->nseats, l1, sizeof(l1)),
		    intlist(v->mpoints, v->nseats, l2, sizeof(l2)),
		    v->removed == BRI_NOCARD ? "-" :
		    bri_card_format(v->removed, c2));
		break;
	case BOTMSG_GENPLAY:
		/*
		 * The cards already on the table in this trick follow as a
		 * comment, which every bot must ignore (refd-protocol(7)):
		 * an old bot reads the line it always read, a new one need
		 * not rebuild the trick from the play lines.
		 */
		i = v->trick * v->nseats;
		util_format(buf, len, "genplay %d %s%s%s", arg,
		    cardlist(v->hand, v->nhand, l1, sizeof(l1)),
		    i < v->nplays ? " # trick " : "", i < v->nplays ?
		    cardlist(v->plays + i, v->nplays - i, l2, sizeof(l2)) : "");
		break;
	case BOTMSG_BID:
		/* the same line to every seat, whoever holds what */
		i = v->ncalls - 1;
		util_format(buf, len, "bid %d %s", v->callseat[i],
		    rankword(v->calls[i], l1, sizeof(l1)));
		break;
	case BOTMSG_CALLED:
		util_format(buf, len, "called %s %d",
		    bri_card_format(v->called, c1), v->caller);
		break;
	case BOTMSG_PARTNER_IS:
		util_format(buf, len, "partner %d", v->partner);
		break;
	case BOTMSG_GENBID:
		for (i = v->ncalls - 1; i >= 0 && v->calls[i] == BRI_PASS; i--)
			;
		util_format(buf, len, "genbid %d %s", arg, i < 0 ? "-" :
		    rankword(v->calls[i], l1, sizeof(l1)));
		break;
	case BOTMSG_GENCALL:
		for (i = v->ncalls - 1; i >= 0 && v->calls[i] == BRI_PASS; i--)
			;
		util_format(buf, len, "gencall %d %s", arg, i < 0 ? "-" :
		    rankword(v->calls[i], l1, sizeof(l1)));
		break;
	}
	return buf;
}

/* match_start: the table, the options and the seed's commitment. */
const char *
botproto_match_start_text(char *buf, size_t len, long long id,
    const char *variant, int seat, const char *const *names, int n,
    const char *commit, const char *options)
{
	size_t	 at;
	int	 i;

	at = util_format(buf, len, "match_start match=%lld variant=%s seat=%d "
	    "seats=", id, variant, seat);
	for (i = 0; i < n && at < len; i++)
		at += util_format(buf + at, len - at, "%s%s", i ? "," : "",
		    names[i]);
	if (at < len)
		util_format(buf + at, len - at, " commit=%s %s", commit,
		    options);
	return buf;
}

/*
 * match_end: result, match points, the revealed seed, the final link,
 * then the receipt when there is one ("head=N:LINK sig=SIG key=KEY": the
 * log chain's signed head at the match's end, refd-protocol(7)).
 */
const char *
botproto_match_end_text(char *buf, size_t len, const char *result,
    const int *mpoints, int n, const char *seed, const char *chain,
    const char *receipt)
{
	char	 mp[64];

	util_format(buf, len, "match_end %s %s %s %s%s%s", result,
	    intlist(mpoints, n, mp, sizeof(mp)), seed, chain,
	    receipt != NULL ? " " : "", receipt != NULL ? receipt : "");
	return buf;
}

/*
 * The fallback card refd plays for a seat under the fallback policy:
 * of its hand, the card with the fewest points, then the weakest, then
 * the first.  Policy, not a rule of the game, so it is here and not in
 * libbriscola; refd, checkbot and the audit all take it from here.
 * BRI_NOCARD for an empty hand.
 */
bri_card
botproto_fallback(const struct bri_deal *d, int seat)
{
	bri_card	 best, c;
	int		 i;

	if (d->nhand[seat] == 0)
		return BRI_NOCARD;
	best = d->hand[seat][0];
	for (i = 1; i < d->nhand[seat]; i++) {
		c = d->hand[seat][i];
		if (bri_card_points(c) < bri_card_points(best) ||
		    (bri_card_points(c) == bri_card_points(best) &&
		    bri_card_strength(c) < bri_card_strength(best)))
			best = c;
	}
	return best;
}

/*
 * A bot's answer to genbid, the first len bytes of s: "pass", or a rank
 * 1 to 10 without sign or leading zero, into *rank (BRI_PASS for a
 * pass).  Whether the rank is legal now is libbriscola's to say.
 * Returns 0, or -1 for anything else.
 */
int
botproto_parse_bid(const char *s, size_t len, int *rank)
{
	if (len == 4 && memcmp(s, "pass", 4) == 0) {
		*rank = BRI_PASS;
		return 0;
	}
	if (len == 1 && s[0] >= '1' && s[0] <= '9') {
		*rank = s[0] - '0';
		return 0;
	}
	if (len == 2 && s[0] == '1' && s[1] == '0') {
		*rank = 10;
		return 0;
	}
	return -1;
}

/*
 * A caller's answer to gencall: one suit letter, C, D, B or S, in either
 * case, into *suit (0 to 3).  Returns 0, or -1 for anything else.
 */
int
botproto_parse_suit(const char *s, size_t len, int *suit)
{
	char			 c;

	if (len != 1)
		return -1;
	c = s[0] >= 'a' && s[0] <= 'z' ? (char)(s[0] - 'a' + 'A') : s[0];
	if ((*suit = bri_suit_parse(c)) == -1)
		return -1;
	return 0;
}

/*
 * The suit refd names for a caller under the fallback policy: the first
 * suit, in the order C, D, B, S, whose card of the rank named the caller
 * does not hold, so that a fault never makes him play alone; C if he
 * holds all four.  A bid's fallback is simply a pass.
 */
int
botproto_fallback_suit(const struct bri_deal *d, int seat)
{
	int	 suit, i, held;

	for (suit = 0; suit < 4; suit++) {
		for (i = 0, held = 0; i < d->nhand[seat]; i++)
			held |= d->hand[seat][i] == BRI_CARD(d->bid, suit);
		if (!held)
			return suit;
	}
	return 0;
}

/* The commands a bot must know to play a table with an auction. */
static const char *const botproto_known_list[] = { "genbid", "gencall" };

int
botproto_nknown(enum bri_variant v)
{
	return bri_variant_info(v)->auction ? (int)(sizeof(botproto_known_list)
	    / sizeof(botproto_known_list[0])) : 0;
}

const char *
botproto_known(int k)
{
	return botproto_known_list[k];
}

const char *
botproto_known_refused(char *buf, size_t len, int ok, const char *text,
    int seat, const char *name, enum bri_variant v)
{
	char	 ev[160];

	if (ok && strncmp(text, "true", 4) == 0 &&
	    (text[4] == '\0' || text[4] == '\n'))
		return NULL;
	util_printable(ev, sizeof(ev), text, strcspn(text, "\n"));
	snprintf(buf, len, "seat %d (%s) does not know the auction's "
	    "commands: known_command answered %c%s; %s needs genbid and "
	    "gencall (refd-protocol(7))", seat, name, ok ? '=' : '?', ev,
	    bri_variant_name(v));
	return buf;
}
