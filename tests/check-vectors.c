/*
 * check-vectors: replay deal vectors through libbriscola.
 *
 * usage: check-vectors FILE...
 *
 * Each line of a FILE is one deal (see tests/deals.txt for the format):
 * variant, leader, trump, hands, stock, plays, and the expected winners,
 * points, Joker and result.  Every line is rebuilt as a deck order, played
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

/* Split s on sep into small integers; returns the count or -1. */
static int
ints(const char *s, int *out, int max)
{
	char	*end;
	long	 l;
	int	 n = 0;

	for (;;) {
		errno = 0;
		l = strtol(s, &end, 10);
		if (end == s || errno || l < 0 || l > 1000 || n == max)
			return -1;
		out[n++] = (int)l;
		if (*end == '\0')
			return n;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/* Check one vector line; returns 0 if it agrees with libbriscola. */
static int
check(char *line)
{
	struct vec	 v;
	struct bri_deal	 d;
	enum bri_variant var;
	bri_card	 hands[BRI_MAXSEATS][BRI_HANDSIZE], deck[BRI_NCARDS];
	bri_card	 stock[BRI_NCARDS], plays[BRI_NCARDS], trump;
	int		 winners[BRI_MAXTRICKS], points[BRI_MAXSEATS];
	const char	*s, *want, *p;
	char		*tok, *save, *eq, buf[BRI_CARD_STRLEN], res[16];
	int		 n, i, k, leader, nstock, nplays, nw, np, e, bad = 0;

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
	n = bri_variant_seats(var);
	if ((s = get(&v, "leader")) == NULL || ints(s, &leader, 1) != 1 ||
	    leader >= n) {
		fail("missing or bad leader");
		return 1;
	}
	if ((s = get(&v, "trump")) == NULL ||
	    bri_card_parse(s, strlen(s), &trump)) {
		fail("missing or bad trump");
		return 1;
	}
	if ((s = get(&v, "hands")) == NULL) {
		fail("missing hands");
		return 1;
	}
	for (i = 0; i < n; i++) {
		p = strchr(s, '/');
		k = p ? (int)(p - s) : (int)strlen(s);
		char one[64];
		if (k >= (int)sizeof(one) ||
		    (memcpy(one, s, k), one[k] = '\0',
		    cards(one, ',', hands[i], BRI_HANDSIZE)) != BRI_HANDSIZE ||
		    (p == NULL) != (i == n - 1)) {
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
	    (nw = ints(s, winners, BRI_MAXTRICKS)) < 0 ||
	    (s = get(&v, "points")) == NULL ||
	    (np = ints(s, points, BRI_MAXSEATS)) != n) {
		fail("missing or bad stock, plays, winners or points");
		return 1;
	}
	if (BRI_HANDSIZE * n + 1 + nstock > BRI_NCARDS) {
		fail("too many cards");
		return 1;
	}
	for (k = 0; k < BRI_HANDSIZE; k++)
		for (i = 0; i < n; i++)
			deck[k * n + i] = hands[(leader + i) % n][k];
	deck[BRI_HANDSIZE * n] = trump;
	memcpy(deck + BRI_HANDSIZE * n + 1, stock, nstock);
	e = bri_deal_init(&d, var, deck, BRI_HANDSIZE * n + 1 + nstock,
	    (leader + n - 1) % n);
	if (e != BRI_OK) {
		fail("deal refused: %s", bri_strerror(e));
		return 1;
	}
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
	if (nw != d.ntricks) {
		fail("%d winners listed for %d tricks", nw, d.ntricks);
		bad = 1;
	}
	for (i = 0; i < nw && i < d.ntricks; i++)
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
		if ((s = get(&v, "joker")) == NULL || ints(s, &k, 1) != 1) {
			fail("missing joker");
			bad = 1;
		} else if (k != d.joker) {
			fail("Joker %d expected, libbriscola says %d", k,
			    d.joker);
			bad = 1;
		}
	}
	switch (d.result) {
	case BRI_DEAL_JOKER:	p = "joker"; break;
	case BRI_DEAL_ALLIES:	p = "allies"; break;
	case BRI_DEAL_VOID:	p = "void"; break;
	case BRI_DEAL_DRAWN:	p = "draw"; break;
	default:
		snprintf(res, sizeof(res), "%s%d",
		    var == BRI_CLASSIC4 ? "team" : "seat", d.winner);
		p = res;
	}
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
