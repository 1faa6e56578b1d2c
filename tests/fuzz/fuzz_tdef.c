/*
 * fuzz_tdef.c: a tournament definition (refd-tournament(5)) from any
 * text, parsed by tdef_parse and, when it is valid and its schedule is
 * small enough to be quick, scheduled by tdef_schedule.  A definition
 * either parses or gives "fname:line: reason"; a schedule has the
 * promised number of matches, a whole number of tables' seatings, each
 * with distinct participants in range and, in a gauntlet, the candidate
 * at every table.
 */
#include "config.h"

#include <string.h>

#include "briscola.h"
#include "fuzz.h"
#include "tdef.h"

#define FUZZ_MAXMATCHES	10000	/* bigger schedules are skipped: slow */

/* Matches in one cycle (the tables times their arrangements). */
static long long
fuzz_cycle(const struct tdef *d, long long *ntables)
{
	long long	 tables = 1, arr = 1;
	int		 k = bri_variant_seats(d->opt.variant), n, r, i;

	n = d->format == TDEF_GAUNTLET ? d->nbots - 1 : d->nbots;
	r = d->format == TDEF_GAUNTLET ? k - 1 : k;
	for (i = 0; i < r; i++)			/* C(n, r), exactly */
		tables = tables * (n - i) / (i + 1);
	if (k == 5 || k == 6)	/* a balanced sample: refd-tournament(5) */
		arr = k == 5 ? 20 : 60;
	else
		for (i = 2; i <= k; i++)	/* every seating */
			arr *= i;
	*ntables = tables;
	return tables * arr;
}

/* Check a schedule against its definition. */
static void
fuzz_check_schedule(const struct tdef *d, const struct tslot *slots, int n)
{
	int	 k = bri_variant_seats(d->opt.variant), s, i, j, cand;

	for (s = 0; s < n; s++) {
		cand = 0;
		for (i = 0; i < k; i++) {
			FUZZ_CHECK(slots[s].bot[i] >= 0 &&
			    slots[s].bot[i] < d->nbots);
			for (j = 0; j < i; j++)
				FUZZ_CHECK(slots[s].bot[i] != slots[s].bot[j]);
			cand += slots[s].bot[i] == 0;
		}
		if (d->format == TDEF_GAUNTLET)
			FUZZ_CHECK(cand == 1);
		FUZZ_CHECK(slots[s].block >= 0 && slots[s].arrangement >= 0);
	}
}

/* An error is "fuzz.tour: reason" or "fuzz.tour:N: reason", N a line. */
static void
fuzz_check_error(const char *text, const char *err)
{
	const char	*p;
	char		*end;
	long		 line, nlines = 1;

	for (p = text; *p != '\0'; p++)
		nlines += *p == '\n';
	FUZZ_CHECK(strncmp(err, "fuzz.tour:", 10) == 0);
	if (err[10] == ' ')
		return;
	line = strtol(err + 10, &end, 10);
	FUZZ_CHECK(end > err + 10 && end[0] == ':' && end[1] == ' ');
	FUZZ_CHECK(line >= 1 && line <= nlines);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (bri_init() != BRI_OK)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdef	 d;
	struct tslot	*slots = NULL;
	char		*text, err[512];
	long long	 total, cycle, tables;
	int		 n = -1, i;

	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (tdef_parse(text, "fuzz.tour", &d, err, sizeof(err)) == -1) {
		fuzz_check_error(text, err);
		FUZZ_CHECK(d.nbotdefs == 0);
		free(text);
		return 0;
	}
	free(text);
	FUZZ_CHECK(d.nbots >= bri_variant_seats(d.opt.variant));
	FUZZ_CHECK(d.nbots <= TDEF_MAXBOTS);
	FUZZ_CHECK(bri_options_check(&d.opt) == BRI_OK);
	for (i = 0; i < d.nbots; i++)
		FUZZ_CHECK(strlen(d.bots[i]) >= 1 &&
		    strlen(d.bots[i]) <= TDEF_NAMELEN);
	cycle = fuzz_cycle(&d, &tables);
	total = d.matches > 0 ? d.matches : cycle;
	/* a count that splits a table's seatings is refused */
	FUZZ_CHECK(total % (cycle / tables) == 0);
	if (total <= FUZZ_MAXMATCHES) {
		if (tdef_schedule(&d, &slots, &n, err, sizeof(err)) == 0) {
			FUZZ_CHECK(n == total);
			fuzz_check_schedule(&d, slots, n);
			free(slots);
		} else
			/* only more than 4096 tables are refused */
			FUZZ_CHECK(tables > 4096);
	}
	tdef_free(&d);
	return 0;
}
