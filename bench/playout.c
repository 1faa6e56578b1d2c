/*
 * playout: random-playout deals per second through libbriscola.
 *
 * usage: playout [-h] [-n deals] [-r reps] [-s seed] [-v variant]
 *
 * For each variant, deal i is shuffled from the seed with bri_shuffle(),
 * started with bri_deal_init() and played to its end through
 * bri_deal_play(), every card a random legal choice from a tiny xorshift
 * generator.  In chiamata5 the auction is the shortest one: the first
 * speaker names a random rank, the others pass, and the caller names a
 * random suit.  The same deals are also played by a baseline: a minimal,
 * quick loop written here with plain arrays that does the same work (the
 * same deck from bri_shuffle(), the variant's hand, the turned trump
 * drawn last or none, the called card and its holder, tricks, points,
 * draws, the Joker, the final score) with no library call after the
 * shuffle; the ratio of the two is what the API costs.
 * The two loops run interleaved, repetition after repetition, and the
 * medians are reported.  Both loops add up seat 0's card points and
 * count the results, winners and Jokers; the totals must agree, which
 * shows that both did the same work.
 *
 * A benchmark, not a test: make check never runs it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "briscola.h"

#define JOKER3_DEALS	1000000	/* default deals for joker3, */
#define OTHER_DEALS	500000	/* and for the others: ~40 s in all */
#define DEFAULT_REPS	5
#define MAXREPS		101
#define XS_SEED		0x9e3779b97f4a7c15ULL	/* any nonzero state */

/* What one loop over the deals of one variant found. */
struct tally {
	uint64_t	 points0;	/* card points of seat 0, summed */
	uint64_t	 result[BRI_DEAL_OTHERS + 1]; /* deals per result */
	uint64_t	 winner[BRI_MAXSEATS + 1]; /* deals per winner + 1 */
	uint64_t	 joker[BRI_MAXSEATS + 1];  /* deals per Joker + 1 */
	uint64_t	 plays;		/* cards played */
};

static void		 usage(int) __attribute__((noreturn));
static int		 pick(uint64_t *, int);
static int		 dealer_of(long, int);
static double		 run_api(const struct bri_seed *,
			    const struct bri_options *, long, struct tally *);
static double		 run_base(const struct bri_seed *,
			    const struct bri_options *, long, struct tally *);
static int		 cmp_double(const void *, const void *);
static double		 median(double *, int);
static int		 bench(const struct bri_seed *, enum bri_variant, long,
			    int);

/* Strength inside a suit and card points, by rank - 1, as libbriscola(3). */
static const uint8_t	 strength[10] = { 10, 1, 9, 2, 3, 4, 5, 6, 7, 8 };
/* Ranks from the strongest down, as the auction names them. */
static const uint8_t	 ranks[10] = { 1, 3, 10, 9, 8, 7, 6, 5, 4, 2 };
static const uint8_t	 cardpoints[10] = { 11, 0, 10, 0, 0, 0, 0, 2, 3, 4 };

/* Default seed: fixed, so that runs are comparable. */
static const char	*default_seed =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/* Print usage, to stdout for -h and to stderr otherwise, and exit. */
static void
usage(int status)
{
	fprintf(status == 0 ? stdout : stderr,
	    "usage: playout [-h] [-n deals] [-r reps] [-s seed] [-v variant]\n"
	    "  -n deals    deals per variant and loop (default %d for "
	    "joker3,\n"
	    "              %d for the others)\n"
	    "  -r reps     repetitions, the median is reported (default %d)\n"
	    "  -s seed     64 hex digits (default 0001...1e1f)\n"
	    "  -v variant  joker3, classic2, classic3, classic4, classic5,\n"
	    "              classic6, briscolone or chiamata5 (default all)\n", JOKER3_DEALS, OTHER_DEALS, DEFAULT_REPS);
	exit(status);
}

/*
 * A random index in [0, n) from a 64-bit xorshift generator (Marsaglia
 * 13/7/17): the top 32 bits scaled by n, which costs a multiply where a
 * modulo would cost a division.
 */
static inline int
pick(uint64_t *x, int n)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (int)(((*x >> 32) * (uint64_t)n) >> 32);
}

/* Dealer of deal i: seats take turns, as in a match. */
static inline int
dealer_of(long i, int nseats)
{
	return (int)(i % nseats);
}

/*
 * The API loop: ndeals deals of variant o->variant through bri_shuffle(),
 * bri_deal_init() and bri_deal_play().  Fills *t; returns the seconds.
 */
static double
run_api(const struct bri_seed *seed, const struct bri_options *o,
    long ndeals, struct tally *t)
{
	struct bri_deal	 d;
	bri_card	 deck[BRI_NCARDS], removed;
	uint64_t	 x = XS_SEED;
	double		 t0;
	long		 i;
	int		 n, nseats, k;

	memset(t, 0, sizeof(*t));
	nseats = bri_variant_seats(o->variant);
	t0 = bench_now();
	for (i = 0; i < ndeals; i++) {
		n = bri_shuffle(seed, o, (int)i, deck, &removed);
		if (n < 0 || bri_deal_init(&d, o->variant, deck, n,
		    dealer_of(i, nseats)) != BRI_OK)
			abort();
		if (d.phase == BRI_PHASE_AUCTION) {
			if (bri_deal_bid(&d, d.turn, ranks[pick(&x, 10)],
			    NULL) != BRI_OK)
				abort();
			while (d.phase == BRI_PHASE_AUCTION)
				if (bri_deal_bid(&d, d.turn, BRI_PASS,
				    NULL) != BRI_OK)
					abort();
			if (bri_deal_call(&d, d.caller, pick(&x, 4)) != BRI_OK)
				abort();
		}
		while (!d.over) {
			k = pick(&x, d.nhand[d.turn]);
			if (bri_deal_play(&d, d.turn, d.hand[d.turn][k],
			    NULL) != BRI_OK)
				abort();
		}
		t->points0 += (uint64_t)d.points[0];
		t->result[d.result]++;
		t->winner[d.winner + 1]++;
		t->joker[d.joker + 1]++;
		t->plays += d.nplays;
	}
	return bench_now() - t0;
}

/*
 * The baseline: the same deals played by a minimal loop on plain arrays,
 * with no library call but bri_shuffle().  It is written to be quick, as
 * a careful programmer would write a playout loop of their own: a hand is
 * one word of up to eight card bytes, so taking out a random card is a
 * shift and a mask, not a branch; a trick goes to its highest-ranked
 * card, a trump outranking the led suit outranking the rest.  The
 * variant's numbers are read once, before the loop.  Fills *t; returns
 * the seconds.
 */
static double
run_base(const struct bri_seed *seed, const struct bri_options *o,
    long ndeals, struct tally *t)
{
	const struct bri_variant_info *vi = bri_variant_info(o->variant);
	bri_card	 deck[BRI_NCARDS], removed, c, trump, called;
	uint64_t	 hand[BRI_MAXSEATS], keep;
	int		 nhand[BRI_MAXSEATS], points[BRI_MAXSEATS];
	uint64_t	 x = XS_SEED;
	double		 t0;
	long		 i;
	int		 n, nseats, ntricks, tsuit, led, leader, seat, next;
	int		 nstock, tr, p, k, best, rank, pts, w, joker, result;
	int		 winner, s, isjoker, h, turned, caller, partner;

	memset(t, 0, sizeof(*t));
	nseats = vi->seats;
	h = vi->handsize;
	turned = vi->turned;
	isjoker = vi->sides == BRI_SIDES_JOKER;
	t0 = bench_now();
	for (i = 0; i < ndeals; i++) {
		n = bri_shuffle(seed, o, (int)i, deck, &removed);
		if (n < 0)
			abort();
		ntricks = n / nseats;
		leader = (dealer_of(i, nseats) + 1) % nseats;
		for (s = 0; s < nseats; s++) {
			hand[s] = 0;
			nhand[s] = 0;
			points[s] = 0;
		}
		for (k = 0, s = leader; k < h * nseats; k++) {
			hand[s] |= (uint64_t)deck[k] << (8 * nhand[s]++);
			s = s + 1 == nseats ? 0 : s + 1;
		}
		trump = turned ? deck[h * nseats] : BRI_NOCARD;
		tsuit = turned ? trump / 10 : BRI_NOSUIT;
		next = h * nseats + turned;
		nstock = n - h * nseats;
		joker = caller = partner = -1;
		if (vi->auction) {
			/* the leader names a rank, the others pass */
			caller = leader;
			rank = ranks[pick(&x, 10)];
			tsuit = pick(&x, 4);
			called = (bri_card)(tsuit * 10 + rank - 1);
			for (s = 0; s < nseats; s++)
				for (k = 0; k < h; k++)
					if ((bri_card)(hand[s] >> (8 * k)) ==
					    called)
						partner = s;
		}
		for (tr = 0; tr < ntricks; tr++) {
			seat = leader;
			led = best = w = pts = 0;
			for (p = 0; p < nseats; p++) {
				k = pick(&x, nhand[seat]);
				c = (bri_card)(hand[seat] >> (8 * k));
				keep = ((uint64_t)1 << (8 * k)) - 1;
				hand[seat] = (hand[seat] & keep) |
				    ((hand[seat] >> 8) & ~keep);
				nhand[seat]--;
				if (isjoker && joker < 0 && c / 10 == tsuit)
					joker = seat;
				if (p == 0)
					led = c / 10;
				pts += cardpoints[c % 10];
				rank = strength[c % 10] + 16 * (c / 10 == led) +
				    32 * (c / 10 == tsuit);
				w = rank > best ? seat : w;
				best = rank > best ? rank : best;
				seat = seat + 1 == nseats ? 0 : seat + 1;
			}
			points[w] += pts;
			if (nstock > 0) {
				for (p = 0, s = w; p < nseats; p++) {
					c = --nstock == 0 && turned ? trump :
					    deck[next++];
					hand[s] |= (uint64_t)c <<
					    (8 * nhand[s]++);
					s = s + 1 == nseats ? 0 : s + 1;
				}
			}
			leader = w;
		}

		winner = -1;
		switch (o->variant) {
		case BRI_JOKER3:
			if (points[joker] >= 51)
				result = BRI_DEAL_JOKER;
			else if (120 - points[joker] >= 71)
				result = BRI_DEAL_ALLIES;
			else
				result = BRI_DEAL_VOID;
			break;
		case BRI_CLASSIC4:
		case BRI_CLASSIC6:
			for (s = 0, pts = 0; s < nseats; s += 2)
				pts += points[s];
			winner = pts >= 61 ? 0 : pts <= 59 ? 1 : -1;
			result = winner < 0 ? BRI_DEAL_DRAWN : BRI_DEAL_WON;
			break;
		case BRI_CHIAMATA5:
			pts = points[caller] +
			    (partner != caller ? points[partner] : 0);
			winner = pts >= 61 ? 0 : pts <= 59 ? 1 : -1;
			result = winner < 0 ? BRI_DEAL_DRAWN : winner == 0 ?
			    BRI_DEAL_CALLER : BRI_DEAL_OTHERS;
			break;
		default:
			best = points[0];
			winner = 0;
			k = 1;
			for (s = 1; s < nseats; s++) {
				if (points[s] > best) {
					best = points[s];
					winner = s;
					k = 1;
				} else if (points[s] == best)
					k++;
			}
			if (k > 1)
				winner = -1;
			result = k > 1 ? BRI_DEAL_DRAWN : BRI_DEAL_WON;
			break;
		}
		t->points0 += (uint64_t)points[0];
		t->result[result]++;
		t->winner[winner + 1]++;
		t->joker[joker + 1]++;
		t->plays += (uint64_t)(ntricks * nseats);
	}
	return bench_now() - t0;
}

/* qsort(3) order of doubles. */
static int
cmp_double(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n values; sorts them. */
static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Time both loops over ndeals deals of variant v, reps times each,
 * alternating which goes first, and print one line of medians.  Returns 0
 * if the two loops agreed on every tally, 1 if not.
 */
static int
bench(const struct bri_seed *seed, enum bri_variant v, long ndeals, int reps)
{
	struct bri_options	 o;
	struct tally		 ta, tb;
	double			 api[MAXREPS], base[MAXREPS], ma, mb;
	int			 r, bad = 0;

	bri_options_default(&o, v);
	for (r = 0; r < reps; r++) {
		if (r % 2 == 0) {
			api[r] = run_api(seed, &o, ndeals, &ta);
			base[r] = run_base(seed, &o, ndeals, &tb);
		} else {
			base[r] = run_base(seed, &o, ndeals, &tb);
			api[r] = run_api(seed, &o, ndeals, &ta);
		}
		if (memcmp(&ta, &tb, sizeof(ta)) != 0)
			bad = 1;
	}
	ma = median(api, reps);
	mb = median(base, reps);
	printf("%-10s %8ld %8.3f %10.0f %8.3f %10.0f %6.2f %12llu %s\n",
	    bri_variant_name(v), ndeals, ma, ndeals / ma, mb, ndeals / mb,
	    ma / mb, (unsigned long long)ta.points0, bad ? "DIFFER" : "agree");
	fflush(stdout);
	if (bad)
		fprintf(stderr, "playout: %s: API checksum %llu, baseline "
		    "%llu: the loops did not do the same work\n",
		    bri_variant_name(v), (unsigned long long)ta.points0,
		    (unsigned long long)tb.points0);
	return bad;
}

/* Parse the options, print the settings, and time every variant asked. */
int
main(int argc, char *argv[])
{
	struct bri_seed		 seed;
	struct bri_options	 o;
	struct tally		 t;
	enum bri_variant	 only = BRI_NVARIANTS, v;
	char			 buf[BRI_SEED_STRLEN];
	const char		*seedtext = default_seed;
	long			 ndeals = 0, n, cores;
	int			 ch, reps = DEFAULT_REPS, bad = 0;

	while ((ch = getopt(argc, argv, "hn:r:s:v:")) != -1) {
		switch (ch) {
		case 'n':
			ndeals = bench_number("playout",
			    optarg, "deals", 1, INT32_MAX);
			break;
		case 'r':
			reps = (int)bench_number("playout",
			    optarg, "repetitions", 1, MAXREPS);
			break;
		case 's':
			seedtext = optarg;
			break;
		case 'v':
			if (bri_variant_parse(optarg, &only) != BRI_OK) {
				fprintf(stderr, "playout: %s: unknown "
				    "variant\n", optarg);
				exit(2);
			}
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (bri_init() != BRI_OK) {
		fprintf(stderr, "playout: cannot initialise libbriscola\n");
		return 2;
	}
	if (bri_seed_parse(seedtext, &seed) != BRI_OK) {
		fprintf(stderr, "playout: %s: %s\n", seedtext,
		    bri_strerror(BRI_ESEED));
		return 2;
	}
	cores = sysconf(_SC_NPROCESSORS_ONLN);

	printf("libbriscola %s random playouts, one thread\n", BRI_VERSION);
	printf("seed      %s\n", bri_seed_format(&seed, buf));
	if (ndeals > 0)
		printf("settings  %ld deals per variant and loop,\n", ndeals);
	else
		printf("settings  %d deals per loop for joker3, %d for the "
		    "others,\n", JOKER3_DEALS, OTHER_DEALS);
	printf("          %d repetitions (median), API and baseline "
	    "interleaved, after a warm-up\n", reps);
	printf("cores     %ld online, 1 used\n", cores);
	printf("ratio     API time per deal / baseline time per deal\n");
	printf("checksum  card points of seat 0, summed by both loops\n\n");

	/* let the clock speed and the caches settle before timing */
	bri_options_default(&o, only == BRI_NVARIANTS ? BRI_JOKER3 : only);
	run_api(&seed, &o, 100000, &t);
	run_base(&seed, &o, 100000, &t);

	printf("%-10s %8s %8s %10s %8s %10s %6s %12s %s\n", "variant",
	    "deals", "api s", "api/s", "base s", "base/s", "ratio",
	    "checksum", "loops");
	for (v = 0; v < BRI_NVARIANTS; v++) {
		if (only != BRI_NVARIANTS && only != v)
			continue;
		n = ndeals > 0 ? ndeals : v == BRI_JOKER3 ? JOKER3_DEALS :
		    OTHER_DEALS;
		bad |= bench(&seed, v, n, reps);
	}
	return bad;
}
