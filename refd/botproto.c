/*
 * botproto.c: every game message refd sends a bot.
 *
 * Each function takes the seat's own bri_view and nothing else of the
 * deal, so no code path here can put another seat's unplayed card on a
 * bot's wire: the information boundary is libbriscola's, in one place.
 * The commands are described in refd-protocol(7).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "refd.h"
#include "util.h"

/* Notifications are due within this long when no move is asked. */
#define NOTE_MS(m)	((m)->conf.move_ms > 1000 ? (m)->conf.move_ms : 1000)

/* Cards of a list as "C1 C2 ..." into buf. */
static const char *
cardlist(const bri_card *c, int n, char sep, char *buf, size_t len)
{
	char	 one[BRI_CARD_STRLEN];
	size_t	 at = 0;
	int	 i;

	buf[0] = '\0';
	for (i = 0; i < n && at + 5 < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? (char[]){sep, 0} :
		    "", bri_card_format(c[i], one));
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
		at += snprintf(buf + at, len - at, "%s%d", i ? "," : "", v[i]);
	return buf;
}

/* The deal result word: joker, allies, void, seatN, teamN or draw. */
const char *
botproto_deal_result(const struct bri_view *v, char *buf, size_t len)
{
	switch (v->result) {
	case BRI_DEAL_JOKER:	return "joker";
	case BRI_DEAL_ALLIES:	return "allies";
	case BRI_DEAL_VOID:	return "void";
	case BRI_DEAL_DRAWN:	return "draw";
	case BRI_DEAL_WON:
		snprintf(buf, len, "%s%d", v->variant == BRI_CLASSIC4 ?
		    "team" : "seat", v->winner);
		return buf;
	}
	return "playing";
}

/* match_start: the table, the options and the seed's commitment. */
int
botproto_match_start(struct seat *s, const struct match *m)
{
	char	 names[BRI_MAXSEATS * (REFD_NAMELEN + 1) + 1];
	size_t	 at = 0;
	int	 i;

	names[0] = '\0';
	for (i = 0; i < m->nseats; i++)
		at += snprintf(names + at, sizeof(names) - at, "%s%s",
		    i ? "," : "", m->conf.bots[i]);
	return seat_send(s, PEND_NOTE, NOTE_MS(m), "match_start match=%lld "
	    "variant=%s seat=%d seats=%s commit=%s %s", (long long)m->id,
	    bri_variant_name(m->conf.opt.variant), s->index, names, m->commit,
	    m->options);
}

/* deal_start: deal number, dealer, the turned trump and the own hand. */
int
botproto_deal_start(struct seat *s, const struct bri_view *v)
{
	char	 t[BRI_CARD_STRLEN], hand[32];

	return seat_send(s, PEND_NOTE, NOTE_MS(s->match), "deal_start %d %d %s %s",
	    v->deal_no, v->dealer, bri_card_format(v->trump, t),
	    cardlist(v->hand, v->nhand, ' ', hand, sizeof(hand)));
}

/* play: the last card played, by whom. */
int
botproto_play(struct seat *s, const struct bri_view *v)
{
	char	 c[BRI_CARD_STRLEN];

	return seat_send(s, PEND_NOTE, NOTE_MS(s->match), "play %d %s",
	    v->playseat[v->nplays - 1],
	    bri_card_format(v->plays[v->nplays - 1], c));
}

/* joker: who became the Joker with the last play. */
int
botproto_joker(struct seat *s, const struct bri_view *v)
{
	return seat_send(s, PEND_NOTE, NOTE_MS(s->match), "joker %d", v->joker);
}

/* trick: the winner and points of the trick just completed. */
int
botproto_trick(struct seat *s, const struct bri_view *v)
{
	int	 t = v->trick - 1, i, pts = 0;

	for (i = t * v->nseats; i < (t + 1) * v->nseats; i++)
		pts += bri_card_points(v->plays[i]);
	return seat_send(s, PEND_NOTE, NOTE_MS(s->match), "trick %d %d",
	    v->winners[t], pts);
}

/* draw: the card this seat just drew. */
int
botproto_draw(struct seat *s, const struct bri_view *v)
{
	char	 c[BRI_CARD_STRLEN];

	return seat_send(s, PEND_NOTE, NOTE_MS(s->match), "draw %s",
	    bri_card_format(v->drawn, c));
}

/* partner_hand: classic4, the partner's hand once the stock is empty. */
int
botproto_partner(struct seat *s, const struct bri_view *v)
{
	char	 hand[32];

	return seat_send(s, PEND_NOTE, NOTE_MS(s->match), "partner_hand %s",
	    cardlist(v->partner_hand, v->npartner, ' ', hand, sizeof(hand)));
}

/* deal_end: result, card points, match points and the removed 2. */
int
botproto_deal_end(struct seat *s, const struct bri_view *v)
{
	char	 res[16], pts[64], mp[64], rm[BRI_CARD_STRLEN];
	int	 p[BRI_MAXSEATS], i;

	for (i = 0; i < v->nseats; i++)
		p[i] = v->points[i];
	return seat_send(s, PEND_NOTE, NOTE_MS(s->match), "deal_end %s %s %s %s",
	    botproto_deal_result(v, res, sizeof(res)),
	    intlist(p, v->nseats, pts, sizeof(pts)),
	    intlist(v->mpoints, v->nseats, mp, sizeof(mp)),
	    v->removed == BRI_NOCARD ? "-" : bri_card_format(v->removed, rm));
}

/* match_end: result, match points, the revealed seed, the final link. */
int
botproto_match_end(struct seat *s, const struct match *m)
{
	char	 mp[64], seed[BRI_SEED_STRLEN], chain[2 * DB_HASHLEN + 1];

	util_hex(m->dbm.chain, DB_HASHLEN, chain);
	return seat_send(s, PEND_NOTE, NOTE_MS(m), "match_end %s %s %s %s",
	    m->result, intlist(m->bm.mpoints, m->nseats, mp, sizeof(mp)),
	    bri_seed_format(&m->bm.seed, seed), chain);
}

/* genplay: the time left for this move and the seat's own hand. */
int
botproto_genplay(struct seat *s, const struct bri_view *v, int ms)
{
	char	 hand[32];

	return seat_send(s, PEND_GENPLAY, ms, "genplay %d %s", ms,
	    cardlist(v->hand, v->nhand, ' ', hand, sizeof(hand)));
}
