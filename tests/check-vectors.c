/*
 * check-vectors: replay deal vectors through libbriscola.
 *
 * usage: check-vectors FILE...
 *
 * Each line of a FILE is one deal (see tests/deals.txt for the format):
 * variant, dealer, leader, trump, hands, stock, the auction and the
 * called card, plays, and the expected winners, points, Joker, caller,
 * partner, match points and result.  Every line is rebuilt as a deck order, played
 * card by card, and compared; each mismatch is reported as FILE:LINE.
 * Prints "N passed, M failed" and exits 1 if any line failed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "briscola.h"

#define MAXFIELD	16

struct vec {
	char		*key[MAXFIELD];
	char		*val[MAXFIELD];
	int		 n;
};

static const char	*file;
static unsigned long	 lineno;

static void
fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Report one mismatch at the current file and line. */
static void
fail(const char *fmt, ...)
{
	va_list	 ap;

	printf("%s:%lu: ", file, lineno);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The value of key in v, or NULL. */
static const char *
get(const struct vec *v, const char *key)
{
	int	 i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->key[i], key) == 0)
			return v->val[i];
	return NULL;
}

/* Split s on sep into cards; returns the count, or -1 on a bad card. */
static int
cards(const char *s, char sep, bri_card *out, int max)
{
	const char	*e;
	int		 n = 0;

	if (*s == '\0')
		return 0;
	for (;;) {
		e = strchr(s, sep);
		if (e == NULL)
			e = s + strlen(s);
		if (n == max || bri_card_parse(s, (size_t)(e - s), &out[n]))
			return -1;
		n++;
		if (*e == '\0')
			return n;
		s = e + 1;
	}
}

/*
 * Split s on ',' into integers in [lo, 1000]; returns the count or -1.
 * A leading '-' is read only where lo < 0 (match points).
 */
static int
ints(const char *s, int *out, int max, int lo)
{
	char	*end;
	long	 l;
	int	 n = 0;

	for (;;) {
		errno = 0;
		if (*s == '+' || (*s == '-' && lo >= 0))
			return -1;
		l = strtol(s, &end, 10);
		if (end == s || errno || l < lo || l > 1000 || n == max)
			return -1;
		out[n++] = (int)l;
		if (*end == '\0')
			return n;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/* An auction's calls, "1,pass,3,..."; returns the count or -1. */
static int
calls(const char *s, int *out, int max)
{
	const char	*e;
	int		 n = 0;

	if (*s == '\0')
		return 0;
	for (;;) {
		e = s + strcspn(s, ",");
		if (n == max)
			return -1;
		if (e - s == 4 && strncmp(s, "pass", 4) == 0)
			out[n] = BRI_PASS;
		else if (e - s == 1 && *s >= '1' && *s <= '9')
			out[n] = *s - '0';
		else if (e - s == 2 && strncmp(s, "10", 2) == 0)
			out[n] = 10;
		else
			return -1;
		n++;
		if (*e == '\0')
			return n;
		s = e + 1;
	}
}

/* The result word of a finished deal, as the vectors spell it. */
static const char *
result_word(const struct bri_deal *d, char *buf, size_t len)
{
	const struct bri_variant_info *vi = bri_variant_info(d->variant);

	switch (d->result) {
	case BRI_DEAL_JOKER:	return "joker";
	case BRI_DEAL_ALLIES:	return "allies";
	case BRI_DEAL_VOID:	return "void";
	case BRI_DEAL_DRAWN:	return "draw";
	case BRI_DEAL_CALLER:	return "caller";
	case BRI_DEAL_OTHERS:	return "others";
	default:
		snprintf(buf, len, "%s%d", vi->sides == BRI_SIDES_ALTERNATE ?
		    "team" : "seat", d->winner);
		return buf;
	}
}

/* Check the auction fields of a chiamata5 line; returns 0 if they agree. */
static int
check_auction(const struct vec *v, struct bri_deal *d)
{
	int		 call[BRI_MAXCALLS + 1], nc, i, e, k;
	const char	*s;
	bri_card	 c;

	if ((s = get(v, "auction")) == NULL ||
	    (nc = calls(s, call, BRI_MAXCALLS + 1)) < 0) {
		fail("missing or bad auction");
		return 1;
	}
	for (i = 0; i < nc; i++) {
		if ((e = bri_deal_bid(d, d->turn, call[i], NULL)) != BRI_OK) {
			fail("call %d (%d by seat %d): %s", i + 1, call[i],
			    d->turn, bri_strerror(e));
			return 1;
		}
	}
	if ((s = get(v, "called")) == NULL) {
		if (!d->over || d->result != BRI_DEAL_VOID) {
			fail("no called card, but the auction is not void");
			return 1;
		}
		return 0;
	}
	if (bri_card_parse(s, strlen(s), &c) != BRI_OK) {
		fail("bad called card");
		return 1;
	}
	if (d->phase != BRI_PHASE_CALL) {
		fail("auction not over after %d calls", nc);
		return 1;
	}
	if (BRI_CARD_RANK(c) != d->bid) {
		fail("called %s, but the last rank named is %d", s, d->bid);
		return 1;
	}
	if ((e = bri_deal_call(d, d->caller, BRI_CARD_SUIT(c))) != BRI_OK) {
		fail("call of %s: %s", s, bri_strerror(e));
		return 1;
	}
	if ((s = get(v, "caller")) == NULL || ints(s, &k, 1, 0) != 1 ||
	    k != d->caller) {
		fail("caller %s expected, libbriscola says %d",
		    s ? s : "(missing)", d->caller);
		return 1;
	}
	if ((s = get(v, "partner")) == NULL ||
	    (strcmp(s, "alone") == 0 ? d->partner != d->caller :
	    ints(s, &k, 1, 0) != 1 || k != d->partner || k == d->caller)) {
		fail("partner %s expected, libbriscola says %d",
		    s ? s : "(missing)", d->partner);
		return 1;
	}
	return 0;
}

/* Check one vector line; returns 0 if it agrees with libbriscola. */
static int
check(char *line)
{
	const struct bri_variant_info *vi;
	struct vec	 v;
	struct bri_deal	 d;
	enum bri_variant var;
	bri_card	 hands[BRI_MAXSEATS][BRI_MAXHAND], deck[BRI_NCARDS];
	bri_card	 stock[BRI_NCARDS], plays[BRI_NCARDS], trump = BRI_NOCARD;
	int		 winners[BRI_MAXTRICKS], points[BRI_MAXSEATS];
	int		 mp[BRI_MAXSEATS];
	const char	*s, *want, *p;
	char		*tok, *save, *eq, buf[BRI_CARD_STRLEN], res[16];
	int		 n, i, k, h, nh, leader, dealer, nstock, nplays, nw, np;
	int		 e, bad = 0;

	v.n = 0;
	for (tok = strtok_r(line, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		if ((eq = strchr(tok, '=')) == NULL || v.n == MAXFIELD) {
			fail("bad field \"%.40s\"", tok);
			return 1;
		}
		*eq = '\0';
		v.key[v.n] = tok;
		v.val[v.n++] = eq + 1;
	}
	if ((s = get(&v, "variant")) == NULL || bri_variant_parse(s, &var)) {
		fail("missing or unknown variant");
		return 1;
	}
	vi = bri_variant_info(var);
	n = vi->seats;
	h = vi->handsize;
	if ((s = get(&v, "leader")) == NULL || ints(s, &leader, 1, 0) != 1 ||
	    leader >= n) {
		fail("missing or bad leader");
		return 1;
	}
	dealer = (leader + n - 1) % n;
	if ((s = get(&v, "dealer")) != NULL &&
	    (ints(s, &dealer, 1, 0) != 1 || dealer >= n ||
	    (dealer + 1) % n != leader)) {
		fail("bad dealer");
		return 1;
	}
	if (vi->auction && s == NULL) {
		fail("missing dealer");
		return 1;
	}
	if ((s = get(&v, "trump")) == NULL ||
	    (vi->turned ? bri_card_parse(s, strlen(s), &trump) != BRI_OK :
	    strcmp(s, "-") != 0)) {
		fail("missing or bad trump");
		return 1;
	}
	if ((s = get(&v, "hands")) == NULL) {
		fail("missing hands");
		return 1;
	}
	for (i = 0; i < n; i++) {
		char	 one[64];

		p = strchr(s, '/');
		k = p ? (int)(p - s) : (int)strlen(s);
		if (k >= (int)sizeof(one)) {
			fail("bad hand of seat %d", i);
			return 1;
		}
		memcpy(one, s, k);
		one[k] = '\0';
		nh = cards(one, ',', hands[i], BRI_MAXHAND);
		if (nh != h || (p == NULL) != (i == n - 1)) {
			fail("bad hand of seat %d", i);
			return 1;
		}
		s = p ? p + 1 : s + k;
	}
	if ((s = get(&v, "stock")) == NULL ||
	    (nstock = cards(s, ',', stock, BRI_NCARDS)) < 0 ||
	    (s = get(&v, "plays")) == NULL ||
	    (nplays = cards(s, ',', plays, BRI_NCARDS)) < 0 ||
	    (s = get(&v, "winners")) == NULL ||
	    (nw = (*s == '\0' ? 0 : ints(s, winners, BRI_MAXTRICKS, 0))) < 0 ||
	    (s = get(&v, "points")) == NULL ||
	    (np = ints(s, points, BRI_MAXSEATS, 0)) != n) {
		fail("missing or bad stock, plays, winners or points");
		return 1;
	}
	if (h * n + vi->turned + nstock > BRI_NCARDS) {
		fail("too many cards");
		return 1;
	}
	for (k = 0; k < h; k++)
		for (i = 0; i < n; i++)
			deck[k * n + i] = hands[(leader + i) % n][k];
	if (vi->turned)
		deck[h * n] = trump;
	memcpy(deck + h * n + vi->turned, stock, nstock);
	e = bri_deal_init(&d, var, deck, h * n + vi->turned + nstock, dealer);
	if (e != BRI_OK) {
		fail("deal refused: %s", bri_strerror(e));
		return 1;
	}
	if (vi->auction && check_auction(&v, &d) != 0)
		return 1;
	for (i = 0; i < nplays; i++) {
		e = bri_deal_play(&d, d.turn, plays[i], NULL);
		if (e != BRI_OK) {
			fail("play %d (%s by seat %d): %s", i + 1,
			    bri_card_format(plays[i], buf), d.turn,
			    bri_strerror(e));
			return 1;
		}
	}
	if (!d.over) {
		fail("deal not over after %d plays", nplays);
		return 1;
	}
	if (nw != d.trick) {
		fail("%d winners listed for %d tricks", nw, d.trick);
		bad = 1;
	}
	for (i = 0; i < nw && i < d.trick; i++)
		if (winners[i] != d.winners[i]) {
			fail("trick %d: winner %d expected, libbriscola says %d",
			    i + 1, winners[i], d.winners[i]);
			bad = 1;
		}
	for (i = 0; i < n; i++)
		if (points[i] != d.points[i]) {
			fail("seat %d: %d points expected, libbriscola says %d",
			    i, points[i], d.points[i]);
			bad = 1;
		}
	if (var == BRI_JOKER3) {
		if ((s = get(&v, "joker")) == NULL || ints(s, &k, 1, 0) != 1) {
			fail("missing joker");
			bad = 1;
		} else if (k != d.joker) {
			fail("Joker %d expected, libbriscola says %d", k,
			    d.joker);
			bad = 1;
		}
	}
	if (vi->matchscore == BRI_MSCORE_FIXED) {
		if ((s = get(&v, "mpoints")) == NULL ||
		    ints(s, mp, BRI_MAXSEATS, -1000) != n) {
			fail("missing or bad mpoints");
			bad = 1;
		} else
			for (i = 0; i < n; i++)
				if (mp[i] != d.mpoints[i]) {
					fail("seat %d: %d match points "
					    "expected, libbriscola says %d",
					    i, mp[i], d.mpoints[i]);
					bad = 1;
				}
	}
	p = result_word(&d, res, sizeof(res));
	if ((want = get(&v, "result")) == NULL || strcmp(want, p) != 0) {
		fail("result %s expected, libbriscola says %s",
		    want ? want : "(missing)", p);
		bad = 1;
	}
	return bad;
}

int
main(int argc, char *argv[])
{
	FILE		*fp;
	char		*line = NULL;
	size_t		 cap = 0;
	ssize_t		 len;
	unsigned long	 passed = 0, failed = 0;
	int		 i;

	if (argc < 2) {
		fprintf(stderr, "usage: check-vectors FILE...\n");
		return 2;
	}
	if (bri_init() != BRI_OK) {
		fprintf(stderr, "check-vectors: cannot initialise\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		file = argv[i];
		if ((fp = fopen(file, "r")) == NULL) {
			fprintf(stderr, "check-vectors: %s: %s\n", file,
			    strerror(errno));
			return 2;
		}
		lineno = 0;
		while ((len = getline(&line, &cap, fp)) != -1) {
			lineno++;
			while (len > 0 && (line[len - 1] == '\n' ||
			    line[len - 1] == '\r'))
				line[--len] = '\0';
			if (len == 0 || line[strspn(line, " \t")] == '#' ||
			    line[strspn(line, " \t")] == '\0')
				continue;
			if (check(line))
				failed++;
			else
				passed++;
		}
		fclose(fp);
	}
	free(line);
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed > 0 || passed == 0;
}
