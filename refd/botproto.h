/*
 * botproto.h: the text of every game message refd sends a bot, shared by
 * refd and by refctl checkbot so that both speak exactly the same lines.
 */
#ifndef REFD_BOTPROTO_H
#define REFD_BOTPROTO_H

#include <stddef.h>

#include "briscola.h"

#define BOTPROTO_MAXLINE	1024	/* longest message refd sends */

enum botmsg {
	BOTMSG_DEAL_START,	/* deal_start DEAL DEALER TRUMP CARDS */
	BOTMSG_PLAY,		/* play SEAT CARD: the last card played */
	BOTMSG_JOKER,		/* joker SEAT */
	BOTMSG_TRICK,		/* trick WINNER POINTS: the last trick */
	BOTMSG_DRAW,		/* draw CARD: the seat's own last draw */
	BOTMSG_PARTNER,		/* partner_hand CARDS (classic4) */
	BOTMSG_DEAL_END,	/* deal_end RESULT POINTS MPOINTS REMOVED */
	BOTMSG_GENPLAY,		/* genplay MS CARDS */
	/* chiamata5's auction and partner */
	BOTMSG_BID,		/* bid SEAT RANK|pass: the last call */
	BOTMSG_CALLED,		/* called CARD CALLER: card and trump named */
	BOTMSG_PARTNER_IS,	/* partner SEAT: the called card was played */
	BOTMSG_GENBID,		/* genbid MS LAST|-: this seat's call */
	BOTMSG_GENCALL		/* gencall MS RANK: the caller's suit */
};

const char	*botproto_format(enum botmsg, const struct bri_view *, int,
		    char *, size_t);
const char	*botproto_match_start_text(char *, size_t, long long,
		    const char *, int, const char *const *, int, const char *,
		    const char *);
const char	*botproto_match_end_text(char *, size_t, const char *,
		    const int *, int, const char *, const char *,
		    const char *);
const char	*botproto_deal_result(const struct bri_view *, char *, size_t);
bri_card	 botproto_fallback(const struct bri_deal *, int);
int		 botproto_parse_bid(const char *, size_t, int *);
int		 botproto_parse_suit(const char *, size_t, int *);
int		 botproto_fallback_suit(const struct bri_deal *, int);

/*
 * The checks before a match, the same in refd and checkbot: after name
 * and version, a table with an auction asks each seat known_command of
 * each of its commands.  botproto_nknown(v) is how many variant v asks
 * (0 without an auction), botproto_known(k) the k-th command's name.
 * botproto_known_refused(buf, len, ok, text, seat, name, v) judges the
 * answer ('=' if ok, text its first line): NULL if it is "true", else
 * the reason the bot is refused, written into buf.
 */
int		 botproto_nknown(enum bri_variant);
const char	*botproto_known(int);
const char	*botproto_known_refused(char *, size_t, int, const char *,
		    int, const char *, enum bri_variant);

#endif
