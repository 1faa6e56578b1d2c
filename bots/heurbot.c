/*
 * heurbot.c: a refd bot that plays a greedy, deterministic Briscola.
 *
 * It follows the game from refd's notifications (refd-protocol(7)): the
 * trump, the cards played in the current trick, every card seen so far,
 * the Joker in joker3, the partner in classic4, and in chiamata5 the
 * auction, the called card and the partner once revealed.  When asked to
 * move it wins a trick that carries points as cheaply as it can, gives
 * points to a friend who is sure to win, keeps its trumps for tricks
 * worth taking, and otherwise throws away its least useful card.
 * Friends are the teammates in classic4 and classic6, the other ally
 * once a Joker is known in joker3 (before that, a joker3 bot avoids
 * becoming the Joker for little), and in chiamata5 the caller's side or
 * the defenders, as far as the bot knows them.
 *
 * In chiamata5's auction it values its hand with each suit as trump
 * (card points, and length and strength in trump) and names weaker
 * ranks, claiming more, the better its best suit; as caller it calls the
 * rank in its best suit it does not hold, or, with a very strong hand,
 * in its best suit even if it holds it, and then plays alone.
 *
 * It uses libbriscola only for cards and the variants' table.
 * Given the same commands it always gives the same answers.
 *
 * Run:		bots/heurbot [-r file]
 * With -r every line received is appended to file as received, and each
 * answer after it as "> " and the answer's first line without its id:
 * the transcript that, with the receipt in its match_end line, refctl
 * verify-receipt holds the log to.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "briscola.h"

#define LINEMAX		4096	/* refd never sends a longer line */
#define MAXARGS		64

/* What the bot knows of the match and the deal in play. */
struct game {
	int		 variant;	/* enum bri_variant */
	int		 seat;		/* our seat */
	int		 nseats;	/* seats at the table */
	bri_card	 trump;		/* the turned card */
	int		 trumpsuit;	/* its suit */
	int		 joker;		/* joker3: the Joker, or BRI_NOSEAT */
	uint64_t	 seen;		/* cards played this deal, as bits */
	uint64_t	 partner;	/* classic4: partner's hand once shown */
	int		 ntrick;	/* cards in the current trick */
	int		 trickseat[BRI_MAXSEATS];	/* who played them */
	bri_card	 trickcard[BRI_MAXSEATS];	/* and what */
	bri_card	 hand[BRI_MAXHAND];	/* as dealt, for the auction */
	int		 nhand;
	int		 caller;	/* chiamata5: the caller, or BRI_NOSEAT */
	bri_card	 called;	/* the called card, or BRI_NOCARD */
	int		 partner_seat;	/* once revealed, or BRI_NOSEAT */
	int		 holder;	/* we hold the called card */
};

/* Ranks from the strongest down, as the auction names them. */
static const int ranks[10] = { 1, 3, 10, 9, 8, 7, 6, 5, 4, 2 };
/* A hand worth less than this (see hand_value) passes at once. */
#define BID_FLOOR	45
#define BID_STEP	5	/* each weaker rank needs this much more */
#define ALONE_VALUE	85	/* and this much calls in hand, alone */

/* A command: its name, and the function that answers it. */
struct command {
	const char	*name;
	int		(*fn)(struct game *, int, char **, char *, size_t);
};

static int	cmd_protocol_version(struct game *, int, char **, char *,
		    size_t);
static int	cmd_name(struct game *, int, char **, char *, size_t);
static int	cmd_version(struct game *, int, char **, char *, size_t);
static int	cmd_known_command(struct game *, int, char **, char *,
		    size_t);
static int	cmd_list_commands(struct game *, int, char **, char *,
		    size_t);
static int	cmd_match_start(struct game *, int, char **, char *, size_t);
static int	cmd_deal_start(struct game *, int, char **, char *, size_t);
static int	cmd_play(struct game *, int, char **, char *, size_t);
static int	cmd_joker(struct game *, int, char **, char *, size_t);
static int	cmd_trick(struct game *, int, char **, char *, size_t);
static int	cmd_partner_hand(struct game *, int, char **, char *,
		    size_t);
static int	cmd_ignore(struct game *, int, char **, char *, size_t);
static int	cmd_genplay(struct game *, int, char **, char *, size_t);
static int	cmd_bid(struct game *, int, char **, char *, size_t);
static int	cmd_called(struct game *, int, char **, char *, size_t);
static int	cmd_partner(struct game *, int, char **, char *, size_t);
static int	cmd_genbid(struct game *, int, char **, char *, size_t);
static int	cmd_gencall(struct game *, int, char **, char *, size_t);

/* Sorted by name; quit is handled by the main loop. */
static const struct command commands[] = {
	{ "bid",		cmd_bid },
	{ "called",		cmd_called },
	{ "deal_end",		cmd_ignore },
	{ "deal_start",		cmd_deal_start },
	{ "draw",		cmd_ignore },
	{ "genbid",		cmd_genbid },
	{ "gencall",		cmd_gencall },
	{ "genplay",		cmd_genplay },
	{ "joker",		cmd_joker },
	{ "known_command",	cmd_known_command },
	{ "list_commands",	cmd_list_commands },
	{ "match_end",		cmd_ignore },
	{ "match_start",	cmd_match_start },
	{ "name",		cmd_name },
	{ "partner",		cmd_partner },
	{ "partner_hand",	cmd_partner_hand },
	{ "play",		cmd_play },
	{ "protocol_version",	cmd_protocol_version },
	{ "quit",		NULL },
	{ "trick",		cmd_trick },
	{ "version",		cmd_version },
};
#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

/* The table entry of a command name, or NULL. */
static const struct command *
command_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* Parse a decimal integer in [lo, hi] into *out; 0 on success, -1 if not. */
static int
number(const char *s, int lo, int hi, int *out)
{
	char	*end;
	long	 l;

	errno = 0;
	l = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || l < lo || l > hi)
		return -1;
	*out = (int)l;
	return 0;
}

/* Parse a card in refd's notation; 0 on success, -1 if not a card. */
static int
card(const char *s, bri_card *c)
{
	return bri_card_parse(s, strlen(s), c) == BRI_OK ? 0 : -1;
}

/* Does card c beat card best, the best card so far in a trick? */
static int
beats(const struct game *g, bri_card c, bri_card best)
{
	if (BRI_CARD_SUIT(c) == BRI_CARD_SUIT(best))
		return bri_card_strength(c) > bri_card_strength(best);
	return BRI_CARD_SUIT(c) == g->trumpsuit;
}

/* Is card c a trump? */
static int
trump(const struct game *g, bri_card c)
{
	return BRI_CARD_SUIT(c) == g->trumpsuit;
}

/* Is seat s on our side (but not us)? */
static int
friend(const struct game *g, int s)
{
	if (s == g->seat)
		return 0;
	switch (bri_variant_info(g->variant)->sides) {
	case BRI_SIDES_ALTERNATE:
		return s % 2 == g->seat % 2;
	case BRI_SIDES_JOKER:
		return g->joker != BRI_NOSEAT && g->joker != g->seat &&
		    s != g->joker;
	case BRI_SIDES_CALLER:
		if (g->caller == BRI_NOSEAT)
			return 0;
		if (g->seat == g->caller)	/* alone: partner is us */
			return s == g->partner_seat;
		if (g->holder)
			return s == g->caller;
		/* a defender knows its friends once the partner shows */
		return g->partner_seat != BRI_NOSEAT && s != g->caller &&
		    s != g->partner_seat;
	default:
		return 0;
	}
}

/*
 * Could a card whose place we do not know (not played, not ours, not
 * the shown partner's) beat c, if c were the best card of the trick?
 */
static int
beatable(const struct game *g, uint64_t mine, bri_card c)
{
	uint64_t	 known = g->seen | mine | g->partner;
	bri_card	 u;

	for (u = 0; u < BRI_NCARDS; u++)
		if (!(known >> u & 1) && beats(g, u, c))
			return 1;
	return 0;
}

/*
 * How much we lose by throwing card c away to a trick we do not win:
 * its points, and a trump's worth for later tricks; becoming the Joker
 * by accident costs more.  Lower is cheaper.
 */
static int
waste(const struct game *g, bri_card c)
{
	int	 w = 2 * bri_card_points(c);

	if (trump(g, c)) {
		w += 8 + bri_card_strength(c);
		if (g->variant == BRI_JOKER3 && g->joker == BRI_NOSEAT)
			w += 12;
	}
	return w;
}

/* Index of the card of hand (n cards) that minimises waste(); ties: first. */
static int
cheapest(const struct game *g, const bri_card *hand, int n)
{
	int	 i, best = 0, w, bw = INT_MAX;

	for (i = 0; i < n; i++) {
		w = waste(g, hand[i]) * 16 + bri_card_strength(hand[i]);
		if (w < bw) {
			bw = w;
			best = i;
		}
	}
	return best;
}

/*
 * Choose a card of hand (n cards, n >= 1) for the trick in play; returns
 * its index.  Deterministic: ties go to the first card in hand.
 */
static int
choose(const struct game *g, const bri_card *hand, int n)
{
	uint64_t	 mine = 0;
	bri_card	 best;
	int		 i, after, table = 0, bi = 0, pick, pv, v, safe;

	for (i = 0; i < n; i++)
		mine |= (uint64_t)1 << hand[i];
	after = g->nseats - g->ntrick - 1;	/* seats still to play */

	if (g->ntrick == 0) {
		/* Lead a sure winner that carries points, else our cheapest. */
		for (i = 0; i < n; i++)
			if (bri_card_points(hand[i]) > 0 && !trump(g, hand[i]) &&
			    !beatable(g, mine, hand[i]))
				return i;
		return cheapest(g, hand, n);
	}

	for (i = 0; i < g->ntrick; i++) {
		table += bri_card_points(g->trickcard[i]);
		if (i > 0 && beats(g, g->trickcard[i], g->trickcard[bi]))
			bi = i;
	}
	best = g->trickcard[bi];

	if (friend(g, g->trickseat[bi])) {
		/* A friend holds the trick: feed it points if it is safe. */
		if (after > 0 && beatable(g, mine, best))
			return cheapest(g, hand, n);
		pick = -1;
		pv = 0;
		for (i = 0; i < n; i++)
			if (!trump(g, hand[i]) && bri_card_points(hand[i]) > pv) {
				pv = bri_card_points(hand[i]);
				pick = i;
			}
		return pick >= 0 ? pick : cheapest(g, hand, n);
	}

	/*
	 * An opponent holds the trick.  Score each card that would take it:
	 * a safe non-trump winner cashes its own points; a trump is spent
	 * only on a trick worth it, the weakest trump that is enough.
	 */
	pick = -1;
	pv = INT_MIN;
	for (i = 0; i < n; i++) {
		if (!beats(g, hand[i], best))
			continue;
		safe = after == 0 || !beatable(g, mine, hand[i]);
		if (!trump(g, hand[i])) {
			if (!safe)
				continue;
			v = 1000 + table + bri_card_points(hand[i]);
		} else {
			if (table < (g->variant == BRI_JOKER3 &&
			    g->joker == BRI_NOSEAT ? 10 : 4))
				continue;
			if (!safe && table < 10)
				continue;
			v = 500 - waste(g, hand[i]) + (safe ? 100 : 0);
		}
		if (v > pv) {
			pv = v;
			pick = i;
		}
	}
	return pick >= 0 ? pick : cheapest(g, hand, n);
}

/* protocol_version: this bot speaks version 2. */
static int
cmd_protocol_version(struct game *g, int ac, char **av, char *out,
    size_t len)
{
	(void)g, (void)ac, (void)av;
	snprintf(out, len, "2");
	return 0;
}

/* name: the bot's name, for the log. */
static int
cmd_name(struct game *g, int ac, char **av, char *out, size_t len)
{
	(void)g, (void)ac, (void)av;
	snprintf(out, len, "heurbot");
	return 0;
}

/* version: the bot's version, for the log. */
static int
cmd_version(struct game *g, int ac, char **av, char *out, size_t len)
{
	(void)g, (void)ac, (void)av;
	snprintf(out, len, "1.0");
	return 0;
}

/* known_command NAME: true if NAME is in the table. */
static int
cmd_known_command(struct game *g, int ac, char **av, char *out, size_t len)
{
	(void)g;
	snprintf(out, len, "%s",
	    ac > 1 && command_find(av[1]) != NULL ? "true" : "false");
	return 0;
}

/* list_commands: every name in the table, one a line. */
static int
cmd_list_commands(struct game *g, int ac, char **av, char *out, size_t len)
{
	size_t	 i, used = 0;

	(void)g, (void)ac, (void)av;
	out[0] = '\0';
	for (i = 0; i < NCOMMANDS && used < len; i++)
		used += snprintf(out + used, len - used, "%s%s",
		    i > 0 ? "\n" : "", commands[i].name);
	return 0;
}

/* match_start key=value...: learn the variant, our seat, the seats. */
static int
cmd_match_start(struct game *g, int ac, char **av, char *out, size_t len)
{
	enum bri_variant	 v;
	int			 i, n;
	char			*p;

	(void)out, (void)len;
	for (i = 1; i < ac; i++) {
		if (strncmp(av[i], "variant=", 8) == 0 &&
		    bri_variant_parse(av[i] + 8, &v) == BRI_OK) {
			g->variant = v;
			g->nseats = bri_variant_seats(v);
		} else if (strncmp(av[i], "seat=", 5) == 0 &&
		    number(av[i] + 5, 0, BRI_MAXSEATS - 1, &n) == 0)
			g->seat = n;
	}
	for (i = 1; i < ac; i++)
		if (strncmp(av[i], "seats=", 6) == 0) {
			for (n = 1, p = av[i]; *p != '\0'; p++)
				n += *p == ',';
			if (n >= 2 && n <= BRI_MAXSEATS)
				g->nseats = n;
		}
	return 0;
}

/* deal_start DEAL DEALER TRUMP|- C1 ...: forget the last deal. */
static int
cmd_deal_start(struct game *g, int ac, char **av, char *out, size_t len)
{
	bri_card	 c;
	int		 i;

	/* "-": no card turned, no trump (briscolone) */
	if (ac >= 4 && strcmp(av[3], "-") == 0)
		c = BRI_NOCARD;
	else if (ac < 4 || card(av[3], &c) == -1) {
		snprintf(out, len, "bad deal_start");
		return -1;
	}
	g->trump = c;
	g->trumpsuit = c == BRI_NOCARD ? BRI_NOSUIT : BRI_CARD_SUIT(c);
	for (i = 4, g->nhand = 0; i < ac && g->nhand < BRI_MAXHAND; i++)
		if (card(av[i], &g->hand[g->nhand]) == 0)
			g->nhand++;
	g->caller = g->partner_seat = BRI_NOSEAT;
	g->called = BRI_NOCARD;
	g->holder = 0;
	g->joker = BRI_NOSEAT;
	g->seen = g->partner = 0;
	g->ntrick = 0;
	return 0;
}

/* play SEAT CARD: a card joins the trick; a first trump makes a Joker. */
static int
cmd_play(struct game *g, int ac, char **av, char *out, size_t len)
{
	bri_card	 c;
	int		 s;

	if (ac < 3 || number(av[1], 0, g->nseats - 1, &s) == -1 ||
	    card(av[2], &c) == -1) {
		snprintf(out, len, "bad play");
		return -1;
	}
	if (g->ntrick >= g->nseats)
		g->ntrick = 0;		/* missed a trick notification */
	g->trickseat[g->ntrick] = s;
	g->trickcard[g->ntrick++] = c;
	g->seen |= (uint64_t)1 << c;
	if (g->variant == BRI_JOKER3 && g->joker == BRI_NOSEAT && trump(g, c))
		g->joker = s;
	return 0;
}

/* joker SEAT: the Joker is known (play already guessed it). */
static int
cmd_joker(struct game *g, int ac, char **av, char *out, size_t len)
{
	int	 s;

	if (ac < 2 || number(av[1], 0, g->nseats - 1, &s) == -1) {
		snprintf(out, len, "bad joker");
		return -1;
	}
	g->joker = s;
	return 0;
}

/* trick WINNER POINTS: the trick is over; a new one starts empty. */
static int
cmd_trick(struct game *g, int ac, char **av, char *out, size_t len)
{
	(void)ac, (void)av, (void)out, (void)len;
	g->ntrick = 0;
	return 0;
}

/* partner_hand C...: classic4, the partner's cards once the stock is out. */
static int
cmd_partner_hand(struct game *g, int ac, char **av, char *out, size_t len)
{
	bri_card	 c;
	int		 i;

	(void)out, (void)len;
	g->partner = 0;
	for (i = 1; i < ac; i++)
		if (card(av[i], &c) == 0)
			g->partner |= (uint64_t)1 << c;
	return 0;
}

/* draw, deal_end, match_end: nothing to remember. */
static int
cmd_ignore(struct game *g, int ac, char **av, char *out, size_t len)
{
	(void)g, (void)ac, (void)av, (void)out, (void)len;
	return 0;
}

/* genplay MS C1 [C2 ...]: choose one card of the hand given. */
static int
cmd_genplay(struct game *g, int ac, char **av, char *out, size_t len)
{
	bri_card	 hand[BRI_MAXHAND];
	char		 buf[BRI_CARD_STRLEN];
	int		 i, n = 0;

	for (i = 2; i < ac && n < BRI_MAXHAND; i++)
		if (card(av[i], &hand[n]) == 0)
			n++;
	if (n == 0) {
		snprintf(out, len, "no cards in hand");
		return -1;
	}
	snprintf(out, len, "%s",
	    bri_card_format(hand[choose(g, hand, n)], buf));
	return 0;
}

/*
 * What the dealt hand is worth with suit as trump: its card points, and
 * for each trump its length and strength.  A typical hand is worth about
 * 40; one with four high trumps and the aces of other suits over 80.
 */
static int
hand_value(const struct game *g, int suit)
{
	int	 i, v = 0;

	for (i = 0; i < g->nhand; i++) {
		v += bri_card_points(g->hand[i]);
		if (BRI_CARD_SUIT(g->hand[i]) == suit)
			v += 4 + bri_card_strength(g->hand[i]);
	}
	return v;
}

/* The suit the hand is best with as trump; ties: the first. */
static int
best_suit(const struct game *g)
{
	int	 s, best = 0;

	for (s = 1; s < 4; s++)
		if (hand_value(g, s) > hand_value(g, best))
			best = s;
	return best;
}

/* Do we hold card c in the dealt hand? */
static int
holds(const struct game *g, bri_card c)
{
	int	 i;

	for (i = 0; i < g->nhand; i++)
		if (g->hand[i] == c)
			return 1;
	return 0;
}

/* bid SEAT RANK|pass: a call of the auction; nothing to keep. */
static int
cmd_bid(struct game *g, int ac, char **av, char *out, size_t len)
{
	int	 s;

	if (ac < 3 || number(av[1], 0, g->nseats - 1, &s) == -1) {
		snprintf(out, len, "bad bid");
		return -1;
	}
	return 0;
}

/* called CARD CALLER: trump is the card's suit; do we hold it? */
static int
cmd_called(struct game *g, int ac, char **av, char *out, size_t len)
{
	bri_card	 c;
	int		 s;

	if (ac < 3 || card(av[1], &c) == -1 ||
	    number(av[2], 0, g->nseats - 1, &s) == -1) {
		snprintf(out, len, "bad called");
		return -1;
	}
	g->called = c;
	g->caller = s;
	g->trumpsuit = BRI_CARD_SUIT(c);
	g->holder = holds(g, c);
	return 0;
}

/* partner SEAT: the called card was just played by the partner. */
static int
cmd_partner(struct game *g, int ac, char **av, char *out, size_t len)
{
	int	 s;

	if (ac < 2 || number(av[1], 0, g->nseats - 1, &s) == -1) {
		snprintf(out, len, "bad partner");
		return -1;
	}
	g->partner_seat = s;
	return 0;
}

/*
 * genbid MS LAST|-: aim at the highest card of our best suit that we do
 * not hold (our partner-to-be), going down to weaker ranks while the
 * hand is worth it, BID_STEP more for each rank further down; a hand
 * worth ALONE_VALUE takes the smallest step, ready to call in hand.
 */
static int
cmd_genbid(struct game *g, int ac, char **av, char *out, size_t len)
{
	int	 i, last = -1, next, limit, want, suit, value;

	if (ac >= 3 && number(av[2], 1, 10, &next) == 0)
		for (i = 0; i < 10; i++)
			if (ranks[i] == next)
				last = i;
	suit = best_suit(g);
	value = hand_value(g, suit);
	limit = (value - BID_FLOOR) / BID_STEP;
	for (want = 0; want < 9 && holds(g, BRI_CARD(ranks[want], suit));
	    want++)
		;
	next = last + 1;
	if (value >= ALONE_VALUE || want < next)
		want = next;
	if (value < BID_FLOOR || want > 9 || want > limit)
		snprintf(out, len, "pass");
	else
		snprintf(out, len, "%d", ranks[want]);
	return 0;
}

/*
 * gencall MS RANK: the suit of the called card.  With a very strong best
 * suit, that suit even if we hold the card (and play alone); otherwise
 * the best suit whose card of RANK another seat holds.
 */
static int
cmd_gencall(struct game *g, int ac, char **av, char *out, size_t len)
{
	int	 rank, s, best = -1;

	if (ac < 3 || number(av[2], 1, 10, &rank) == -1) {
		snprintf(out, len, "bad gencall");
		return -1;
	}
	s = best_suit(g);
	if (hand_value(g, s) >= ALONE_VALUE || !holds(g, BRI_CARD(rank, s)))
		best = s;
	else
		for (s = 0; s < 4; s++)
			if (!holds(g, BRI_CARD(rank, s)) && (best < 0 ||
			    hand_value(g, s) > hand_value(g, best)))
				best = s;
	if (best < 0)
		best = best_suit(g);
	snprintf(out, len, "%c", "CDBS"[best]);
	return 0;
}

static FILE	*record;	/* -r: the transcript, or NULL */

/* Print one answer with the command's id, then the blank line. */
static void
answer(int ok, const char *id, const char *text)
{
	printf("%c%s%s%s\n\n", ok ? '=' : '?', id, *text != '\0' ? " " : "",
	    text);
	fflush(stdout);
	if (record != NULL) {
		fprintf(record, "> %c%.*s\n", ok ? '=' : '?',
		    (int)strcspn(text, "\n"), text);
		fflush(record);
	}
}

/* Answer each command on stdin until quit or end of file. */
int
main(int argc, char *argv[])
{
	const struct command	*cmd;
	struct game		 g;
	char			 line[LINEMAX + 2], out[1024], *av[MAXARGS];
	char			*p, *id;
	int			 ac, c;

	memset(&g, 0, sizeof(g));
	g.variant = BRI_JOKER3;
	g.nseats = 3;
	g.joker = BRI_NOSEAT;
	while ((c = getopt(argc, argv, "r:")) != -1) {
		if (c == 'r' && (record = fopen(optarg, "a")) == NULL) {
			perror(optarg);
			return 2;
		} else if (c != 'r') {
			fprintf(stderr, "usage: heurbot [-r file]\n");
			return 2;
		}
	}
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (record != NULL) {
			fprintf(record, "%.*s\n", (int)strcspn(line, "\r\n"),
			    line);
			fflush(record);
		}
		if (strchr(line, '\n') == NULL && !feof(stdin))
			while ((c = getchar()) != EOF && c != '\n')
				continue;	/* an over-long line: truncate */
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		ac = 0;
		for (p = strtok(line, " \t\r\n"); p != NULL && ac < MAXARGS;
		    p = strtok(NULL, " \t\r\n"))
			av[ac++] = p;
		if (ac == 0)
			continue;		/* blank line or comment */
		id = "";
		if (strspn(av[0], "0123456789") == strlen(av[0])) {
			id = av[0];
			if (--ac == 0)
				continue;
			memmove(av, av + 1, ac * sizeof(av[0]));
		}
		out[0] = '\0';
		if ((cmd = command_find(av[0])) == NULL)
			answer(0, id, "unknown command");
		else if (cmd->fn == NULL) {
			answer(1, id, "");
			break;
		} else if (cmd->fn(&g, ac, av, out, sizeof(out)) == -1)
			answer(0, id, out);
		else
			answer(1, id, out);
	}
	return 0;
}
