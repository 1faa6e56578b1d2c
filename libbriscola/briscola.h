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

#define BRI_VERSION		"2.0"

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

#define BRI_NOSUIT		4	/* no trump suit (yet) */

/* New variants are appended: the values are part of the ABI and the log. */
enum bri_variant {
	BRI_JOKER3 = 0,		/* 3 players, first trump played is Joker */
	BRI_CLASSIC2,		/* 2 players */
	BRI_CLASSIC3,		/* 3 players, each for themselves */
	BRI_CLASSIC4,		/* 4 players, seats 0+2 against 1+3 */
	BRI_CLASSIC5,		/* 5 players, each for themselves */
	BRI_CLASSIC6,		/* 6 players, seats 0+2+4 against 1+3+5 */
	BRI_BRISCOLONE,		/* 2 players, 5 cards each, no trump */
	BRI_CHIAMATA5,		/* 5 players, auction, secret partner */
	BRI_NVARIANTS
};

#define BRI_MAXSEATS		6
#define BRI_MAXHAND		8	/* the largest hand of any variant */
#define BRI_MAXTRICKS		20
#define BRI_MAXCALLS		16	/* 10 ranks and 5 passes at most */
#define BRI_NOSEAT		(-1)
#define BRI_PASS		0	/* a pass in the auction */

/* Which cards a variant takes out of the 40 before shuffling. */
enum bri_removal {
	BRI_REMOVE_NONE = 0,	/* all 40 cards */
	BRI_REMOVE_ONE_TWO,	/* one 2, random or the removed_two option */
	BRI_REMOVE_ALL_TWOS	/* the four 2s: 36 cards */
};

/* Where trump comes from. */
enum bri_trumprule {
	BRI_TRUMP_TURNED = 0,	/* the turned card, under the stock */
	BRI_TRUMP_NONE,		/* no trump at all */
	BRI_TRUMP_CALLED	/* the suit of the card the auction calls */
};

/* Who plays with whom. */
enum bri_sides {
	BRI_SIDES_EACH = 0,	/* each for themselves */
	BRI_SIDES_ALTERNATE,	/* two teams: even seats, odd seats */
	BRI_SIDES_JOKER,	/* the first to play a trump against the rest */
	BRI_SIDES_CALLER	/* caller and partner against the rest */
};

/* How a finished deal is scored from the card points. */
enum bri_dealscore {
	BRI_SCORE_TOP = 0,	/* the single highest total; a shared top draws */
	BRI_SCORE_TEAM,		/* a team with 61 wins; 60-60 draws */
	BRI_SCORE_JOKER,	/* Joker 51+, allies 71+, else void */
	BRI_SCORE_CALLER	/* caller's side 61+ wins, 60 draws */
};

/* How deals make a match. */
enum bri_matchscore {
	BRI_MSCORE_DEALS = 0,	/* first to deals_to_win won deals */
	BRI_MSCORE_TARGET,	/* first strictly ahead at match_target points */
	BRI_MSCORE_FIXED	/* a fixed number of deals, highest total */
};

/*
 * One variant, as data: the deal, the play loop, the view and scoring
 * read this and nothing else about the variant.
 */
struct bri_variant_info {
	const char	*name;		/* "joker3", ... */
	uint8_t		 seats;		/* players at the table */
	uint8_t		 removal;	/* enum bri_removal */
	uint8_t		 ncards;	/* cards in play: 36, 39 or 40 */
	uint8_t		 handsize;	/* cards dealt to each seat */
	uint8_t		 turned;	/* a card is turned under the stock */
	uint8_t		 trump;		/* enum bri_trumprule */
	uint8_t		 sides;		/* enum bri_sides */
	uint8_t		 dealscore;	/* enum bri_dealscore */
	uint8_t		 matchscore;	/* enum bri_matchscore */
	uint8_t		 auction;	/* an auction precedes the play */
	uint8_t		 showpartner;	/* the partner's hand is shown once
					   the stock is empty (classic4) */
};

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
	BRI_ENOENTROPY = -9,	/* the kernel gave no random bytes */
	BRI_EPHASE = -10,	/* not now: a card in the auction, a bid in play */
	BRI_EBID = -11,		/* not a rank weaker than the last one named */
	BRI_EPASSED = -12,	/* the seat passed, and a pass is final */
	BRI_ENOTCALLER = -13,	/* only the caller names the suit */
	BRI_ESUIT = -14		/* not a suit */
};

/* Options of a match; bri_options_default() fills the documented defaults. */
struct bri_options {
	enum bri_variant variant;
	int		deals_to_win;	/* classic: deals to win the match (2) */
	int		match_target;	/* joker3: match points to reach (10) */
	int		deal_cap;	/* deals before a tied match is drawn (100) */
	int		removed_two;	/* classic3: suit of the removed 2, or
					   -1 for random (default) */
	int		deals;		/* chiamata5: deals in a match (5) */
};

/* Result of a deal. */
enum bri_deal_result {
	BRI_DEAL_PLAYING = 0,	/* not over yet */
	BRI_DEAL_JOKER,		/* joker3: the Joker won (51+) */
	BRI_DEAL_ALLIES,	/* joker3: the allies won (71+) */
	BRI_DEAL_VOID,		/* joker3: the Joker took exactly 50;
				   chiamata5: all five passed */
	BRI_DEAL_WON,		/* classic: winner is a seat or team 0/1 */
	BRI_DEAL_DRAWN,		/* classic: shared top score; chiamata5: 60 */
	BRI_DEAL_CALLER,	/* chiamata5: the caller's side took 61+ */
	BRI_DEAL_OTHERS		/* chiamata5: the caller's side took 59- */
};

/* Where a deal is. */
enum bri_phase {
	BRI_PHASE_PLAY = 0,	/* cards are played */
	BRI_PHASE_AUCTION,	/* chiamata5: ranks are named or passed */
	BRI_PHASE_CALL,		/* chiamata5: the caller names a suit */
	BRI_PHASE_OVER		/* every card played, or the auction void */
};

/* A deal in play. Fields are read-only to callers. */
struct bri_deal {
	uint8_t		variant;	/* enum bri_variant */
	uint8_t		nseats;		/* 2 to 6 */
	uint8_t		ncards;		/* 36, 39 or 40 */
	uint8_t		ntricks;	/* tricks in the deal */
	uint8_t		handsize;	/* cards dealt to each seat */
	uint8_t		stockbase;	/* deck index of the first stock card */
	uint8_t		sides;		/* enum bri_sides, from the table */
	uint8_t		phase;		/* enum bri_phase */
	uint8_t		deck[BRI_NCARDS]; /* dealt cards, trump, then stock */
	bri_card	removed;	/* the removed 2, or BRI_NOCARD */
	bri_card	trump;		/* the turned card, or BRI_NOCARD */
	uint8_t		trumpsuit;	/* trump's suit, or BRI_NOSUIT */
	uint8_t		dealer;		/* seat that dealt */
	uint8_t		leader;		/* seat leading the current trick */
	uint8_t		turn;		/* seat to play next */
	uint8_t		ndrawn;		/* cards drawn after the deal */
	uint8_t		nstock;		/* cards left to draw, trump included */
	uint8_t		nhand[BRI_MAXSEATS];		/* cards in hand */
	bri_card	hand[BRI_MAXSEATS][BRI_MAXHAND]; /* BRI_NOCARD past
							    nhand */
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
	int8_t		mpoints[BRI_MAXSEATS];	/* match points it gives */
	/* the auction (chiamata5) */
	uint8_t		ncalls;		/* calls made so far */
	uint8_t		calls[BRI_MAXCALLS];	/* rank named, or BRI_PASS */
	uint8_t		callseat[BRI_MAXCALLS];	/* who made it */
	uint8_t		passed;		/* bitmask of seats that passed */
	uint8_t		bid;		/* last rank named, or BRI_PASS */
	int8_t		bidder;		/* who named it, or BRI_NOSEAT */
	int8_t		caller;		/* the auction's winner, or BRI_NOSEAT */
	bri_card	called;		/* the called card, or BRI_NOCARD */
	int8_t		partner;	/* its holder (the caller when alone),
					   or BRI_NOSEAT; secret */
	uint8_t		revealed;	/* the called card has been played */
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
	int		partner;	/* chiamata5: the partner this play
					   revealed (the caller when alone),
					   or -1 */
	int		auction_over;	/* bid: the auction ended */
	int		caller;		/* ... with this caller, or -1: void */
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
 * except the partner's hand in classic4 once the stock is empty; in
 * chiamata5 the partner's seat appears only once the called card has
 * been played, or in the view of the seat that holds it.
 */
struct bri_view {
	uint8_t		variant;
	uint8_t		nseats;
	uint8_t		seat;		/* whose view */
	int		deal_no;	/* 1-based */
	uint8_t		dealer;
	bri_card	trump;		/* the turned card, seen all deal,
					   or BRI_NOCARD */
	uint8_t		trumpsuit;	/* or BRI_NOSUIT: none, or not yet */
	uint8_t		phase;		/* enum bri_phase */
	uint8_t		nhand;
	bri_card	hand[BRI_MAXHAND];	/* own hand */
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
	int8_t		partner;	/* classic4: own partner; chiamata5:
					   the caller's partner once revealed,
					   or to the holder of the called
					   card; else BRI_NOSEAT */
	uint8_t		npartner;	/* partner's cards shown (classic4) */
	bri_card	partner_hand[BRI_MAXHAND];
	/* the auction, all public (chiamata5) */
	uint8_t		ncalls;
	uint8_t		calls[BRI_MAXCALLS];	/* rank named, or BRI_PASS */
	uint8_t		callseat[BRI_MAXCALLS];
	int8_t		caller;		/* or BRI_NOSEAT */
	bri_card	called;		/* once named, or BRI_NOCARD */
	uint8_t		revealed;	/* the called card has been played */
	int8_t		dmpoints[BRI_MAXSEATS];	/* match points of the deal,
						   when over */
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
const struct bri_variant_info *bri_variant_info(enum bri_variant);
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
int		 bri_deal_bid_check(const struct bri_deal *, int, int);
int		 bri_deal_bid(struct bri_deal *, int, int, struct bri_event *);
int		 bri_deal_call_check(const struct bri_deal *, int, int);
int		 bri_deal_call(struct bri_deal *, int, int);

/* Matches. */
int		 bri_match_init(struct bri_match *, const struct bri_options *,
		    const struct bri_seed *);
int		 bri_match_deal(struct bri_match *);
int		 bri_match_play(struct bri_match *, int, bri_card,
		    struct bri_event *);
int		 bri_match_bid(struct bri_match *, int, int, struct bri_event *);
int		 bri_match_call(struct bri_match *, int, int);

/* Views. */
int		 bri_view_build(const struct bri_match *, int, struct bri_view *);
int		 bri_view_of_deal(const struct bri_deal *, int, struct bri_view *);

#ifdef __cplusplus
}
#endif

#endif /* BRISCOLA_H */
