/*
 * tdef.c: parse a tournament definition and generate its schedule.
 *
 * The schedule is a pure function of the definition: tables (every
 * combination of participants of the table's size, or the candidate with
 * every combination of the pool), each played in every seat permutation,
 * each on a seed of its own or with duplicate deals all on one, cycle
 * after cycle until the number of matches is reached.  Rotations alone
 * would keep the bots' cyclic order, so that a bot always played right
 * after the same opponent (and in classic4 with the same partner).  Seeds come from the
 * master seed, so a tournament replays identically from its definition.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "gtp.h"
#include "policy.h"
#include "tdef.h"
#include "util.h"

#define TDEF_SEED_TAG	"refd-tourney-v1"

/*
 * Tables of 5 and 6 seats do not play all their 120 or 720 seatings:
 * a block is a few cyclic orders, each in its k rotations, so that each
 * bot sits in each seat equally often and every k matches balance the
 * seats (refd-tournament(5)).  Five seats: the orders i * m mod 5 for m
 * from 1 to 4, in which each bot is right after each other exactly once.
 * Six seats (classic6, seats 0, 2, 4 against 1, 3, 5): one order per way
 * of splitting six bots into two teams of three, all ten, so that each
 * pair of bots are teammates in 4 of the 10 (the only even share: five
 * splits cannot balance the 15 pairs), and the order within each team
 * chosen, by a search, so that each bot is right after each other
 * exactly twice.
 */
static const uint8_t orders5[4][5] = {
	{ 0, 1, 2, 3, 4 }, { 0, 2, 4, 1, 3 }, { 0, 3, 1, 4, 2 },
	{ 0, 4, 3, 2, 1 },
};
static const uint8_t orders6[10][6] = {
	{ 0, 3, 1, 4, 2, 5 }, { 0, 2, 1, 4, 3, 5 }, { 0, 2, 1, 5, 4, 3 },
	{ 0, 3, 1, 2, 5, 4 }, { 0, 1, 3, 5, 2, 4 }, { 0, 5, 2, 3, 4, 1 },
	{ 0, 4, 5, 1, 2, 3 }, { 0, 5, 3, 2, 4, 1 }, { 0, 4, 5, 1, 3, 2 },
	{ 0, 1, 5, 3, 4, 2 },
};

/*
 * The seatings of one table of k seats, a block: every permutation (k!)
 * up to 4 seats, the rotations of the orders above for 5 and 6.
 */
int
tdef_seatings(int k)
{
	int	 n, i;

	if (k == 5)
		return 5 * (int)(sizeof(orders5) / sizeof(orders5[0]));
	if (k == 6)
		return 6 * (int)(sizeof(orders6) / sizeof(orders6[0]));
	for (n = 1, i = 2; i <= k; i++)
		n *= i;
	return n;
}

/* Name of a format, as written in a definition. */
const char *
tdef_format_name(enum tdef_format f)
{
	return f == TDEF_GAUNTLET ? "gauntlet" : "roundrobin";
}

/*
 * Is a tournament in state (as the log spells it) over for good, its
 * master seed used up?  Done or cancelled: never resumed again, so its
 * seed may be shown.  A stopped one may be resumed and deals from its
 * seed again, so its seed stays secret (refd-tournament(5)).
 */
int
tdef_over(const char *state)
{
	return state != NULL && (strcmp(state, "done") == 0 ||
	    strcmp(state, "cancelled") == 0);
}

/* Free what a parsed definition holds. */
void
tdef_free(struct tdef *d)
{
	int	 i;

	for (i = 0; i < d->nbotdefs; i++)
		free(d->botdef[i]);
	d->nbotdefs = 0;
}

/* Parse a number of a definition line into *v. */
static int
tdef_num(const char *s, long long min, long long max, int *v, char *err,
    size_t errlen)
{
	const char	*errstr;
	long long	 n;

	n = util_num(s, min, max, &errstr);
	if (errstr != NULL) {
		snprintf(err, errlen, "%s: %s (%lld to %lld)", s, errstr, min,
		    max);
		return -1;
	}
	*v = (int)n;
	return 0;
}

/* Parse a real number in [min, max]. */
static int
tdef_real(const char *s, double min, double max, double *v, char *err,
    size_t errlen)
{
	char	*end;
	double	 d;

	d = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || !(d >= min && d <= max)) {
		snprintf(err, errlen, "%s: a number from %g to %g expected",
		    s, min, max);
		return -1;
	}
	*v = d;
	return 0;
}

/* Add a participant, once. */
static int
tdef_addbot(struct tdef *d, const char *name, int line, char *err,
    size_t errlen)
{
	int	 i;

	if (!util_name_ok(name)) {
		snprintf(err, errlen, "bad bot name \"%.40s\"", name);
		return -1;
	}
	for (i = 0; i < d->nbots; i++)
		if (strcmp(d->bots[i], name) == 0) {
			snprintf(err, errlen, "bot %s named twice", name);
			return -1;
		}
	if (d->nbots == TDEF_MAXBOTS) {
		snprintf(err, errlen, "more than %d bots", TDEF_MAXBOTS);
		return -1;
	}
	snprintf(d->bots[d->nbots], sizeof(d->bots[0]), "%s", name);
	d->botline[d->nbots++] = line;
	return 0;
}

/* Apply one line of a definition, split into words. */
static int
tdef_line(struct tdef *d, int argc, char **argv, int line, char *candidate,
    int *candline, char *err, size_t errlen)
{
	enum bri_variant v;
	size_t		 at;
	int		 i;
	char		 kv[128], *eq;

#define ARITY(n) do { if (argc != (n)) { snprintf(err, errlen, \
	"%s takes %d argument%s", argv[0], (n) - 1, (n) == 2 ? "" : "s"); \
	return -1; } } while (0)
	if (strcmp(argv[0], "name") == 0) {
		ARITY(2);
		if (!util_name_ok(argv[1])) {
			snprintf(err, errlen, "bad name (1 to 32 of "
			    "A-Z a-z 0-9 _ . -)");
			return -1;
		}
		snprintf(d->name, sizeof(d->name), "%s", argv[1]);
	} else if (strcmp(argv[0], "variant") == 0) {
		ARITY(2);
		if (util_variant(argv[1], &v, err, errlen) == -1)
			return -1;
		d->opt.variant = v;
	} else if (strcmp(argv[0], "format") == 0) {
		ARITY(2);
		if (strcmp(argv[1], "roundrobin") == 0)
			d->format = TDEF_ROUNDROBIN;
		else if (strcmp(argv[1], "gauntlet") == 0)
			d->format = TDEF_GAUNTLET;
		else {
			snprintf(err, errlen, "unknown format %.40s "
			    "(roundrobin, gauntlet)", argv[1]);
			return -1;
		}
	} else if (strcmp(argv[0], "duplicate") == 0) {
		ARITY(2);
		if (strcmp(argv[1], "yes") != 0 && strcmp(argv[1], "no") != 0) {
			snprintf(err, errlen, "duplicate: yes or no");
			return -1;
		}
		d->duplicate = strcmp(argv[1], "yes") == 0;
	} else if (strcmp(argv[0], "trust_remote") == 0) {
		ARITY(2);
		if (strcmp(argv[1], "yes") != 0 && strcmp(argv[1], "no") != 0) {
			snprintf(err, errlen, "trust_remote: yes or no");
			return -1;
		}
		d->trust_remote = strcmp(argv[1], "yes") == 0;
	} else if (strcmp(argv[0], "bots") == 0) {
		if (argc < 2) {
			snprintf(err, errlen, "bots takes one or more names");
			return -1;
		}
		for (i = 1; i < argc; i++)
			if (tdef_addbot(d, argv[i], line, err, errlen) == -1)
				return -1;
	} else if (strcmp(argv[0], "candidate") == 0) {
		ARITY(2);
		if (!util_name_ok(argv[1])) {
			snprintf(err, errlen, "bad bot name \"%.40s\"", argv[1]);
			return -1;
		}
		snprintf(candidate, TDEF_NAMELEN + 1, "%s", argv[1]);
		*candline = line;
	} else if (strcmp(argv[0], "matches") == 0) {
		ARITY(2);
		if (tdef_num(argv[1], 1, TDEF_MAXSLOTS, &d->matches, err,
		    errlen) == -1)
			return -1;
		d->matchesline = line;
	} else if (strcmp(argv[0], "concurrency") == 0) {
		ARITY(2);
		if (tdef_num(argv[1], 1, 1024, &d->concurrency, err,
		    errlen) == -1)
			return -1;
	} else if (strcmp(argv[0], "seed") == 0) {
		ARITY(2);
		if (bri_seed_parse(argv[1], &d->seed) != BRI_OK) {
			snprintf(err, errlen, "seed: 64 hex digits expected");
			return -1;
		}
		d->have_seed = 1;
	} else if (strcmp(argv[0], "option") == 0 ||
	    mset_find(argv[0]) != -1) {
		/* a match setting: "option key=value" or "key value" */
		if (strcmp(argv[0], "option") == 0) {
			ARITY(2);
			if ((size_t)snprintf(kv, sizeof(kv), "%s", argv[1]) >=
			    sizeof(kv)) {
				snprintf(err, errlen, "option: longer than "
				    "%zu bytes", sizeof(kv) - 1);
				return -1;
			}
			if ((eq = strchr(kv, '=')) == NULL) {
				snprintf(err, errlen, "option: key=value "
				    "expected");
				return -1;
			}
			*eq++ = '\0';
		} else {
			ARITY(2);
			snprintf(kv, sizeof(kv), "%s", argv[0]);
			eq = argv[1];
		}
		return mset_set(&d->set, kv, eq, line, err, errlen);
	} else if (strcmp(argv[0], "sprt") == 0) {
		ARITY(5);
		if (tdef_real(argv[1], -1000, 1000, &d->elo0, err, errlen) ||
		    tdef_real(argv[2], -1000, 1000, &d->elo1, err, errlen) ||
		    tdef_real(argv[3], 1e-6, 0.5, &d->alpha, err, errlen) ||
		    tdef_real(argv[4], 1e-6, 0.5, &d->beta, err, errlen))
			return -1;
		if (d->elo1 <= d->elo0) {
			snprintf(err, errlen, "sprt: elo1 must exceed elo0");
			return -1;
		}
		/* at 1/2 the bounds meet at 0 and the first game decides */
		if (d->alpha >= 0.5 || d->beta >= 0.5) {
			snprintf(err, errlen, "sprt: alpha and beta must be "
			    "below 0.5");
			return -1;
		}
		d->sprt = 1;
		d->sprtline = line;
	} else if (strcmp(argv[0], "bot") == 0) {
		if (argc < 4) {
			snprintf(err, errlen, "usage: bot NAME spawn COMMAND "
			    "[ARG ...] | bot NAME remote TOKEN");
			return -1;
		}
		if (d->nbotdefs == TDEF_MAXBOTS) {
			snprintf(err, errlen, "too many bot lines");
			return -1;
		}
		at = 0;
		for (i = 1; i < argc; i++)
			at += strlen(argv[i]) + 1;
		if ((d->botdef[d->nbotdefs] = malloc(at)) == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		d->botdef[d->nbotdefs][0] = '\0';
		for (i = 1; i < argc; i++) {
			if (i > 1)
				strcat(d->botdef[d->nbotdefs], " ");
			strcat(d->botdef[d->nbotdefs], argv[i]);
		}
		d->botdefline[d->nbotdefs++] = line;
	} else {
		snprintf(err, errlen, "unknown setting %.40s", argv[0]);
		return -1;
	}
	return 0;
#undef ARITY
}

/* The clocks and policy given, or -1 and POLICY_DEFAULT: refd's. */
static void
tdef_given(struct tdef *d)
{
	const struct mset *ms = &d->set;

	d->move_ms = ms->given[MSET_MOVE_MS] ? (int)ms->val[MSET_MOVE_MS] : -1;
	d->bank_ms = ms->given[MSET_BANK_MS] ? (int)ms->val[MSET_BANK_MS] : -1;
	d->startup_ms = ms->given[MSET_STARTUP_MS] ?
	    (int)ms->val[MSET_STARTUP_MS] : -1;
	d->policy = ms->given[MSET_POLICY] ?
	    (enum fault_policy)ms->val[MSET_POLICY] : POLICY_DEFAULT;
	d->max_faults = ms->given[MSET_MAX_FAULTS] ?
	    (int)ms->val[MSET_MAX_FAULTS] : -1;
}

/*
 * A message about a place in the definition: "fname:line: reason", or
 * "fname: reason" when no line holds it (line 0: no bots line at all).
 */
static void __attribute__((format(printf, 5, 6)))
tdef_err(char *err, size_t errlen, const char *fname, int line,
    const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (line > 0)
		n = snprintf(err, errlen, "%s:%d: ", fname, line);
	else
		n = snprintf(err, errlen, "%s: ", fname);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
}

/*
 * Parse the definition text (from file fname, for messages) into *d.
 * Returns 0, or -1 with "fname:line: reason" (or "fname: reason" for
 * the whole file) in err.  Checks everything that can be checked
 * without refd's registry of bots.
 */
int
tdef_parse(const char *text, const char *fname, struct tdef *d, char *err,
    size_t errlen)
{
	char		 line[GTP_MAXLINE + 1], *w[GTP_MAXARGS], why[300];
	char		 candidate[TDEF_NAMELEN + 1] = "";
	const char	*s = text, *e;
	int		 n, lineno = 0, candline = 0, seats, blines = 0, i, narr;
	size_t		 len;

	memset(d, 0, sizeof(*d));
	bri_options_default(&d->opt, BRI_JOKER3);
	mset_init(&d->set);
	snprintf(d->name, sizeof(d->name), "tournament");
	d->concurrency = 1;
	while (*s != '\0') {
		lineno++;
		e = strchr(s, '\n');
		len = e ? (size_t)(e - s) : strlen(s);
		if (len > GTP_MAXLINE) {
			snprintf(err, errlen, "%s:%d: line too long", fname,
			    lineno);
			goto fail;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		s = e ? e + 1 : s + len;
		if (gtp_clean(line))
			continue;
		if ((n = gtp_split(line, w, GTP_MAXARGS)) == -1) {
			snprintf(err, errlen, "%s:%d: too many words", fname,
			    lineno);
			goto fail;
		}
		if (strcmp(w[0], "bots") == 0)
			blines = lineno;
		if (tdef_line(d, n, w, lineno, candidate, &candline, why,
		    sizeof(why)) == -1) {
			snprintf(err, errlen, "%s:%d: %s", fname, lineno, why);
			goto fail;
		}
	}
	seats = bri_variant_seats(d->opt.variant);
	if (d->format == TDEF_GAUNTLET) {
		if (candidate[0] == '\0') {
			snprintf(err, errlen, "%s: a gauntlet needs a "
			    "candidate", fname);
			goto fail;
		}
		for (i = 0; i < d->nbots; i++)
			if (strcmp(d->bots[i], candidate) == 0) {
				snprintf(err, errlen, "%s:%d: the candidate %s "
				    "is also in the pool", fname, candline,
				    candidate);
				goto fail;
			}
		if (d->nbots == TDEF_MAXBOTS) {
			snprintf(err, errlen, "%s:%d: too many bots", fname,
			    blines);
			goto fail;
		}
		memmove(d->bots[1], d->bots[0], sizeof(d->bots[0]) * d->nbots);
		memmove(d->botline + 1, d->botline, sizeof(int) * d->nbots);
		snprintf(d->bots[0], sizeof(d->bots[0]), "%s", candidate);
		d->botline[0] = candline;
		d->nbots++;
		if (d->nbots - 1 < seats - 1) {
			tdef_err(err, errlen, fname, blines, "a %s gauntlet "
			    "needs a pool of %d or more bots, %d given",
			    bri_variant_name(d->opt.variant), seats - 1,
			    d->nbots - 1);
			goto fail;
		}
	} else {
		if (candidate[0] != '\0') {
			snprintf(err, errlen, "%s:%d: a candidate belongs to a "
			    "gauntlet", fname, candline);
			goto fail;
		}
		if (d->nbots < seats) {
			tdef_err(err, errlen, fname, blines, "a %s round "
			    "robin needs %d or more bots, %d given",
			    bri_variant_name(d->opt.variant), seats, d->nbots);
			goto fail;
		}
	}
	/* a block balances a table's seatings: a part of one is biased */
	narr = tdef_seatings(seats);
	if (d->matches % narr != 0) {
		tdef_err(err, errlen, fname, d->matchesline, "matches %d "
		    "splits a block of %d seatings (the balanced seatings "
		    "of a %s table): use a multiple of %d", d->matches, narr,
		    bri_variant_name(d->opt.variant), narr);
		goto fail;
	}
	if (d->sprt && d->format != TDEF_GAUNTLET) {
		tdef_err(err, errlen, fname, d->sprtline, "sprt needs a "
		    "gauntlet");
		goto fail;
	}
	/* the variant may come after its options: checked at the end */
	if (mset_check(&d->set, d->opt.variant, &i, why, sizeof(why)) == -1) {
		tdef_err(err, errlen, fname, i, "%s", why);
		goto fail;
	}
	if (d->set.given[MSET_SEED]) {
		tdef_err(err, errlen, fname, d->set.given[MSET_SEED], "option "
		    "seed=: a tournament's seeds come from its seed line");
		goto fail;
	}
	mset_options(&d->set, d->opt.variant, &d->opt);
	tdef_given(d);
	if (bri_options_check(&d->opt) != BRI_OK) {
		snprintf(err, errlen, "%s: an option does not fit %s", fname,
		    bri_variant_name(d->opt.variant));
		goto fail;
	}
	return 0;
fail:
	tdef_free(d);
	return -1;
}

/* Next k-combination of 0..n-1 in lexicographic order; 0 at the end. */
static int
next_combination(int *c, int k, int n)
{
	int	 i, j;

	for (i = k - 1; i >= 0 && c[i] == n - k + i; i--)
		;
	if (i < 0)
		return 0;
	c[i]++;
	for (j = i + 1; j < k; j++)
		c[j] = c[j - 1] + 1;
	return 1;
}

/* Next permutation of p[0..k-1] in lexicographic order; 0 at the end. */
static int
next_permutation(int *p, int k)
{
	int	 i, j, t;

	for (i = k - 2; i >= 0 && p[i] >= p[i + 1]; i--)
		;
	if (i < 0)
		return 0;
	for (j = k - 1; p[j] <= p[i]; j--)
		;
	t = p[i], p[i] = p[j], p[j] = t;
	for (i++, j = k - 1; i < j; i++, j--)
		t = p[i], p[i] = p[j], p[j] = t;
	return 1;
}

/* The seed of one match: BLAKE2b-256 of tag, master, block, arrangement. */
static void
tdef_seed(const struct bri_seed *master, int block, int arrangement,
    struct bri_seed *out)
{
	crypto_generichash_state st;
	uint8_t			 le[16];
	int			 i;

	for (i = 0; i < 8; i++) {
		le[i] = (uint8_t)((uint64_t)block >> (8 * i));
		le[8 + i] = (uint8_t)((uint64_t)arrangement >> (8 * i));
	}
	crypto_generichash_init(&st, NULL, 0, sizeof(out->b));
	crypto_generichash_update(&st, (const uint8_t *)TDEF_SEED_TAG,
	    strlen(TDEF_SEED_TAG));
	crypto_generichash_update(&st, master->b, sizeof(master->b));
	crypto_generichash_update(&st, le, sizeof(le));
	crypto_generichash_final(&st, out->b, sizeof(out->b));
}

/*
 * Generate the schedule of definition d into a new array *slots of *n
 * matches (the caller frees it).  Returns 0, or -1 with a reason in err.
 */
int
tdef_schedule(const struct tdef *d, struct tslot **slots, int *n, char *err,
    size_t errlen)
{
	int	 k = bri_variant_seats(d->opt.variant);
	int	 tables[4096][BRI_MAXSEATS], c[BRI_MAXSEATS], p[BRI_MAXSEATS];
	int	 ntables = 0, narr, total, i, t, a, s;
	const uint8_t *o;
	struct tslot *out;

	/* the tables: combinations of the table's size */
	if (d->format == TDEF_ROUNDROBIN) {
		for (i = 0; i < k; i++)
			c[i] = i;
		do {
			if (ntables == 4096)
				goto toomany;
			for (i = 0; i < k; i++)
				tables[ntables][i] = c[i];
			ntables++;
		} while (next_combination(c, k, d->nbots));
	} else {
		for (i = 0; i < k - 1; i++)
			c[i] = i;
		do {
			if (ntables == 4096)
				goto toomany;
			tables[ntables][0] = 0;
			for (i = 0; i < k - 1; i++)
				tables[ntables][i + 1] = c[i] + 1;
			ntables++;
		} while (next_combination(c, k - 1, d->nbots - 1));
	}
	/*
	 * arrangements: every seat permutation of the table, so that each
	 * bot sits in each seat, right after each other bot and (classic4)
	 * with each partner equally often; with duplicate deals all on one
	 * seed, else each on its own.  They come as the k rotations of each
	 * cyclic order (the first bot fixed, the others in lexicographic
	 * order), so that every k matches of a block balance the seats.
	 * Five and six seats take the cyclic orders of orders5 and orders6
	 * only, with the same balance of seats, followers and teammates.
	 */
	narr = tdef_seatings(k);
	total = d->matches > 0 ? d->matches : ntables * narr;
	if (total > TDEF_MAXSLOTS)
		goto toomany;
	if ((out = calloc(total, sizeof(*out))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (s = 0, t = 0; s < total; t++) {
		for (i = 0; i < k; i++)
			p[i] = i;
		for (a = 0; s < total && a < narr; a++, s++) {
			/* the k rotations of each cyclic order in turn */
			if (k <= 4 && a > 0 && a % k == 0)
				next_permutation(p + 1, k - 1);
			else if (k > 4) {
				o = k == 5 ? orders5[a / k] : orders6[a / k];
				for (i = 0; i < k; i++)
					p[i] = o[i];
			}
			out[s].block = t;
			out[s].arrangement = a;
			for (i = 0; i < k; i++)
				out[s].bot[i] =
				    tables[t % ntables][p[(i + a) % k]];
			tdef_seed(&d->seed, t, d->duplicate ? 0 : a,
			    &out[s].seed);
		}
	}
	*slots = out;
	*n = total;
	return 0;
toomany:
	snprintf(err, errlen, "the schedule would exceed %d matches",
	    TDEF_MAXSLOTS);
	return -1;
}
