/*
 * variant.c: every variant as one row of data, and the options of a
 * match.  The deal, the play loop, the view and scoring read the row;
 * adding a variant that plays like the others is adding a row.
 */
#include <string.h>

#include "briscola.h"

static const struct bri_variant_info variants[BRI_NVARIANTS] = {
	[BRI_JOKER3] = {
		.name = "joker3", .seats = 3,
		.removal = BRI_REMOVE_ONE_TWO, .ncards = 39, .handsize = 3,
		.turned = 1, .trump = BRI_TRUMP_TURNED,
		.sides = BRI_SIDES_JOKER, .dealscore = BRI_SCORE_JOKER,
		.matchscore = BRI_MSCORE_TARGET,
	},
	[BRI_CLASSIC2] = {
		.name = "classic2", .seats = 2,
		.removal = BRI_REMOVE_NONE, .ncards = 40, .handsize = 3,
		.turned = 1, .trump = BRI_TRUMP_TURNED,
		.sides = BRI_SIDES_EACH, .dealscore = BRI_SCORE_TOP,
		.matchscore = BRI_MSCORE_DEALS,
	},
	[BRI_CLASSIC3] = {
		.name = "classic3", .seats = 3,
		.removal = BRI_REMOVE_ONE_TWO, .ncards = 39, .handsize = 3,
		.turned = 1, .trump = BRI_TRUMP_TURNED,
		.sides = BRI_SIDES_EACH, .dealscore = BRI_SCORE_TOP,
		.matchscore = BRI_MSCORE_DEALS,
	},
	[BRI_CLASSIC4] = {
		.name = "classic4", .seats = 4,
		.removal = BRI_REMOVE_NONE, .ncards = 40, .handsize = 3,
		.turned = 1, .trump = BRI_TRUMP_TURNED,
		.sides = BRI_SIDES_ALTERNATE, .dealscore = BRI_SCORE_TEAM,
		.matchscore = BRI_MSCORE_DEALS, .showpartner = 1,
	},
	[BRI_CLASSIC5] = {
		.name = "classic5", .seats = 5,
		.removal = BRI_REMOVE_NONE, .ncards = 40, .handsize = 3,
		.turned = 1, .trump = BRI_TRUMP_TURNED,
		.sides = BRI_SIDES_EACH, .dealscore = BRI_SCORE_TOP,
		.matchscore = BRI_MSCORE_DEALS,
	},
	[BRI_CLASSIC6] = {
		.name = "classic6", .seats = 6,
		.removal = BRI_REMOVE_ALL_TWOS, .ncards = 36, .handsize = 3,
		.turned = 1, .trump = BRI_TRUMP_TURNED,
		.sides = BRI_SIDES_ALTERNATE, .dealscore = BRI_SCORE_TEAM,
		.matchscore = BRI_MSCORE_DEALS,
	},
	[BRI_BRISCOLONE] = {
		.name = "briscolone", .seats = 2,
		.removal = BRI_REMOVE_NONE, .ncards = 40, .handsize = 5,
		.turned = 0, .trump = BRI_TRUMP_NONE,
		.sides = BRI_SIDES_EACH, .dealscore = BRI_SCORE_TOP,
		.matchscore = BRI_MSCORE_DEALS,
	},
	[BRI_CHIAMATA5] = {
		.name = "chiamata5", .seats = 5,
		.removal = BRI_REMOVE_NONE, .ncards = 40, .handsize = 8,
		.turned = 0, .trump = BRI_TRUMP_CALLED,
		.sides = BRI_SIDES_CALLER, .dealscore = BRI_SCORE_CALLER,
		.matchscore = BRI_MSCORE_FIXED, .auction = 1,
	},
};

/* The row of variant v, or NULL for a value out of range. */
const struct bri_variant_info *
bri_variant_info(enum bri_variant v)
{
	return (unsigned)v < BRI_NVARIANTS ? &variants[v] : NULL;
}

/* Name of a variant, or NULL for a value out of range. */
const char *
bri_variant_name(enum bri_variant v)
{
	return (unsigned)v < BRI_NVARIANTS ? variants[v].name : NULL;
}

/* Parse a variant name (exact, lowercase); BRI_OK or BRI_EINVAL. */
int
bri_variant_parse(const char *s, enum bri_variant *v)
{
	int	 i;

	if (s == NULL)
		return BRI_EINVAL;
	for (i = 0; i < BRI_NVARIANTS; i++)
		if (strcmp(s, variants[i].name) == 0) {
			*v = i;
			return BRI_OK;
		}
	return BRI_EINVAL;
}

/* Seats at the table of a variant, or 0 for a value out of range. */
int
bri_variant_seats(enum bri_variant v)
{
	return (unsigned)v < BRI_NVARIANTS ? variants[v].seats : 0;
}

/* Fill *o with the documented defaults of variant v. */
void
bri_options_default(struct bri_options *o, enum bri_variant v)
{
	memset(o, 0, sizeof(*o));
	o->variant = v;
	o->deals_to_win = 2;
	o->match_target = 10;
	o->deal_cap = 100;
	o->removed_two = -1;
	o->deals = 5;
}

/*
 * BRI_OK if every option is in range, BRI_EINVAL otherwise.  An option
 * set away from its default for a variant it does not apply to is an
 * error, not silently ignored: removed_two is classic3's only.
 */
int
bri_options_check(const struct bri_options *o)
{
	if ((unsigned)o->variant >= BRI_NVARIANTS)
		return BRI_EINVAL;
	if (o->deals_to_win < 1 || o->deals_to_win > 1000)
		return BRI_EINVAL;
	if (o->match_target < 1 || o->match_target > 1000)
		return BRI_EINVAL;
	if (o->deal_cap < 1 || o->deal_cap > 100000)
		return BRI_EINVAL;
	if (o->removed_two < -1 || o->removed_two > 3)
		return BRI_EINVAL;
	if (o->removed_two != -1 && o->variant != BRI_CLASSIC3)
		return BRI_EINVAL;
	if (o->deals < 1 || o->deals > 1000)
		return BRI_EINVAL;
	return BRI_OK;
}
