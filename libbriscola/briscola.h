/*
 * briscola.h: the rules of Briscola as refd enforces them.
 *
 * libbriscola is pure: no I/O (except bri_seed_new, which asks the kernel
 * for entropy), no printing, no exit, no global state of its own, and no
 * allocation anywhere.  Every object is a plain struct owned by the
 * caller; separate objects may be used from separate threads.
 *
 * Call bri_init() once before anything else: it initialises libsodium,
 * whose ChaCha20 stream makes the seeded deals.
 *
 * The variants, their options and every decision taken where the written
 * rules are silent are described in libbriscola(3).
 */
#ifndef BRISCOLA_H
#define BRISCOLA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BRI_VERSION		"1.0"

/* Cards: 0..39, suit * 10 + (rank - 1); BRI_NOCARD marks an empty slot. */
typedef uint8_t bri_card;
#define BRI_NCARDS		40
#define BRI_NOCARD		0xff
#define BRI_CARD(rank, suit)	((bri_card)((suit) * 10 + (rank) - 1))
#define BRI_CARD_RANK(c)	((c) % 10 + 1)	/* 1 Asso .. 10 Re */
#define BRI_CARD_SUIT(c)	((c) / 10)
#define BRI_CARD_STRLEN		4		/* "10D" and its NUL */

enum bri_suit {
	BRI_COPPE = 0,		/* C, cups */
	BRI_DENARI,		/* D, coins */
	BRI_BASTONI,		/* B, batons */
	BRI_SPADE		/* S, swords */
};

enum bri_variant {
	BRI_JOKER3 = 0,		/* 3 players, first trump played is Joker */
	BRI_CLASSIC2,		/* 2 players */
	BRI_CLASSIC3,		/* 3 players, each for themselves */
	BRI_CLASSIC4,		/* 4 players, seats 0+2 against 1+3 */
	BRI_NVARIANTS
};

#define BRI_MAXSEATS		4
#define BRI_HANDSIZE		3
#define BRI_MAXTRICKS		20
#define BRI_NOSEAT		(-1)

/* Errors: every function that can fail returns one of these (0 is OK). */
enum bri_error {
	BRI_OK = 0,
	BRI_EINVAL = -1,	/* bad argument (variant, seat, option) */
	BRI_EBADCARD = -2,	/* text is not a card */
	BRI_ETURN = -3,		/* not this seat's turn */
	BRI_ENOTINHAND = -4,	/* card not in the seat's hand */
	BRI_EDEALOVER = -5,	/* the deal is over */
	BRI_EMATCHOVER = -6,	/* the match is over */
	BRI_EDECK = -7,		/* a deck order that is not a deck */
	BRI_ESEED = -8,		/* text is not a seed */
	BRI_ENOENTROPY = -9	/* the kernel gave no random bytes */
};

/* Options of a match; bri_options_default() fills the documented defaults. */
struct bri_options {
	enum bri_variant variant;
	int		deals_to_win;	/* classic: deals to win the match (2) */
	int		match_target;	/* joker3: match points to reach (10) */
	int		deal_cap;	/* deals before a tied match is drawn (100) */
	int		removed_two;	/* classic3: suit of the removed 2, or
					   -1 for random (default) */
};

/* Result of a deal. */
enum bri_deal_result {
	BRI_DEAL_PLAYING = 0,	/* not over yet */
	BRI_DEAL_JOKER,		/* joker3: the Joker won (51+) */
	BRI_DEAL_ALLIES,	/* joker3: the allies won (71+) */
	BRI_DEAL_VOID,		/* joker3: the Joker took exactly 50 */
	BRI_DEAL_WON,		/* classic: winner is a seat or team 0/1 */
	BRI_DEAL_DRAWN		/* classic: shared top score */
};

/* A deal in play. Fields are read-only to callers. */
struct bri_deal {
	uint8_t		variant;	/* enum bri_variant */
	uint8_t		nseats;		/* 2, 3 or 4 */
	uint8_t		ncards;		/* 39 or 40 */
	uint8_t		ntricks;	/* tricks in the deal */
	uint8_t		deck[BRI_NCARDS]; /* dealt cards, trump, then stock */
	bri_card	removed;	/* the removed 2, or BRI_NOCARD */
	bri_card	trump;		/* the turned card */
	uint8_t		trumpsuit;	/* its suit */
	uint8_t		dealer;		/* seat that dealt */
	uint8_t		leader;		/* seat leading the current trick */
	uint8_t		turn;		/* seat to play next */
	uint8_t		ndrawn;		/* cards drawn after the deal */
	uint8_t		nstock;		/* cards left to draw, trump included */
	uint8_t		nhand[BRI_MAXSEATS];		/* cards in hand */
	bri_card	hand[BRI_MAXSEATS][BRI_HANDSIZE];
	bri_card	drawn[BRI_MAXSEATS];	/* last card each seat drew */
	uint8_t		nplays;		/* cards played so far */
	bri_card	plays[BRI_NCARDS];	/* every card played, in order */
	uint8_t		playseat[BRI_NCARDS];	/* who played it */
	uint8_t		trick;		/* tricks completed */
	uint8_t		winners[BRI_MAXTRICKS];	/* winner of each trick */
	uint8_t		trickpoints[BRI_MAXTRICKS]; /* points of each trick */
	int8_t		joker;		/* joker3: the Joker, or BRI_NOSEAT */
	uint8_t		over;		/* every card has been played */
	int16_t		points[BRI_MAXSEATS];	/* card points won per seat */
	uint8_t		result;		/* enum bri_deal_result */
	int8_t		winner;		/* BRI_DEAL_WON: seat or team */
};

/* What one play did, for a referee to announce. */
struct bri_event {
	int		joker;		/* seat made Joker by this play, or -1 */
	int		trick_done;	/* the play completed a trick */
	int		trick_winner;	/* its winner */
	int		trick_points;	/* its card points */
	int		ndraws;		/* draws that followed the trick */
	uint8_t		draw_seat[BRI_MAXSEATS]; /* in draw order */
	bri_card	draw_card[BRI_MAXSEATS];
	int		stock_empty;	/* those draws emptied the stock */
	int		deal_over;	/* the play ended the deal */
	int		match_over;	/* ... and the match (bri_match_play) */
};

/* The 32-byte seed of a match; text form is 64 lowercase hex digits. */
#define BRI_SEEDLEN		32
#define BRI_SEED_STRLEN		(2 * BRI_SEEDLEN + 1)
#define BRI_COMMITLEN		32
#define BRI_RNG_NAME		"chacha20-ietf"		/* RFC 8439 stream */
#define BRI_RNG_VERSION		1	/* bumped if dealing ever changes */
struct bri_seed {
	uint8_t		b[BRI_SEEDLEN];
};

/* Result of a match. */
enum bri_match_result {
	BRI_MATCH_PLAYING = 0,
	BRI_MATCH_WON,		/* winner is a seat, or a team in classic4 */
	BRI_MATCH_DRAWN		/* deal cap reached; tied leaders in mask */
};

/* A match: options, seed, match points and the deal in play. */
struct bri_match {
	struct bri_options opt;
	struct bri_seed	seed;
	uint8_t		nseats;
	uint8_t		first_dealer;	/* drawn from the seed */
	int		ndeals;		/* deals started so far */
	int		mpoints[BRI_MAXSEATS];	/* match points per seat */
	int		deals_won[BRI_MAXSEATS];/* deals won per seat */
	uint8_t		result;		/* enum bri_match_result */
	int8_t		winner;		/* BRI_MATCH_WON: seat or team */
	uint8_t		tied;		/* BRI_MATCH_DRAWN: bitmask of seats */
	struct bri_deal	deal;		/* current (or last) deal */
};

/*
 * What one seat may know at one moment: the only source of what a
 * referee tells a bot.  Another seat's unplayed cards never appear here,
 * except the partner's hand in classic4 once the stock is empty.
 */
struct bri_view {
	uint8_t		variant;
	uint8_t		nseats;
	uint8_t		seat;		/* whose view */
	int		deal_no;	/* 1-based */
	uint8_t		dealer;
	bri_card	trump;		/* the turned card, seen all deal */
	uint8_t		nhand;
	bri_card	hand[BRI_HANDSIZE];	/* own hand */
	bri_card	drawn;		/* own last draw, or BRI_NOCARD */
	uint8_t		stock;		/* cards left to draw, trump included */
	uint8_t		turn;		/* seat to play */
	uint8_t		leader;		/* seat leading the current trick */
	uint8_t		nplays;
	bri_card	plays[BRI_NCARDS];	/* every card played, in order */
	uint8_t		playseat[BRI_NCARDS];
	uint8_t		trick;		/* tricks completed */
	uint8_t		winners[BRI_MAXTRICKS];
	int8_t		joker;		/* or BRI_NOSEAT */
	int16_t		points[BRI_MAXSEATS];	/* card points won */
	int		mpoints[BRI_MAXSEATS];	/* match points */
	int8_t		partner;	/* classic4 partner, or BRI_NOSEAT */
	uint8_t		npartner;	/* partner's cards shown (classic4) */
	bri_card	partner_hand[BRI_HANDSIZE];
	uint8_t		over;		/* deal over */
	uint8_t		result;		/* enum bri_deal_result, when over */
	int8_t		winner;
	bri_card	removed;	/* the removed 2, only when over */
};

/* Library. */
int		 bri_init(void);
const char	*bri_strerror(int);

/* Cards. */
int		 bri_card_parse(const char *, size_t, bri_card *);
const char	*bri_card_format(bri_card, char [BRI_CARD_STRLEN]);
char		 bri_suit_letter(int);
int		 bri_suit_parse(int);
int		 bri_card_points(bri_card);
int		 bri_card_strength(bri_card);

/* Variants. */
const char	*bri_variant_name(enum bri_variant);
int		 bri_variant_parse(const char *, enum bri_variant *);
int		 bri_variant_seats(enum bri_variant);
void		 bri_options_default(struct bri_options *, enum bri_variant);
int		 bri_options_check(const struct bri_options *);

/* Seeds. */
int		 bri_seed_new(struct bri_seed *);
int		 bri_seed_parse(const char *, struct bri_seed *);
const char	*bri_seed_format(const struct bri_seed *, char [BRI_SEED_STRLEN]);
void		 bri_seed_commit(const struct bri_seed *, uint8_t [BRI_COMMITLEN]);
int		 bri_shuffle(const struct bri_seed *, const struct bri_options *,
		    int, bri_card [BRI_NCARDS], bri_card *);
int		 bri_first_dealer(const struct bri_seed *, int);

/* Deals. */
int		 bri_deal_init(struct bri_deal *, enum bri_variant,
		    const bri_card *, int, int);
int		 bri_deal_check(const struct bri_deal *, int, bri_card);
int		 bri_deal_play(struct bri_deal *, int, bri_card,
		    struct bri_event *);
int		 bri_deal_team(const struct bri_deal *, int);

/* Matches. */
int		 bri_match_init(struct bri_match *, const struct bri_options *,
		    const struct bri_seed *);
int		 bri_match_deal(struct bri_match *);
int		 bri_match_play(struct bri_match *, int, bri_card,
		    struct bri_event *);

/* Views. */
int		 bri_view_build(const struct bri_match *, int, struct bri_view *);
int		 bri_view_of_deal(const struct bri_deal *, int, struct bri_view *);

#ifdef __cplusplus
}
#endif

#endif /* BRISCOLA_H */
