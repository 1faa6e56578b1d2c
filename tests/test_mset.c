/*
 * test_mset.c: the one table of match settings (refd/mset.c) on its own:
 * the options text of the first four variants byte for byte as refd
 * wrote it before the table (the chain of old logs signs it), the text
 * of the other variants, and the audit's reading of a text back: old
 * spellings, keys of a later refd, a key twice, a key that does not
 * apply.  Every entry point is driven against refd itself by
 * tests/settings.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "briscola.h"
#include "mset.h"

/* What match.c wrote before the table, for the first four variants. */
static void
old_text(const struct bri_options *o, int move, int bank, int startup,
    const char *policy, int faults, char *buf, size_t len)
{
	char	 rm[8];

	if (o->removed_two < 0)
		snprintf(rm, sizeof(rm), "random");
	else
		snprintf(rm, sizeof(rm), "%c", bri_suit_letter(o->removed_two));
	snprintf(buf, len, "target=%d deals_to_win=%d deal_cap=%d "
	    "removed_two=%s move_ms=%d bank_ms=%d startup_ms=%d policy=%s "
	    "max_faults=%d", o->match_target, o->deals_to_win, o->deal_cap,
	    rm, move, bank, startup, policy, faults);
}

static void
test_old_text(void **state)
{
	struct bri_options o;
	struct mset	 ms;
	char		 got[256], want[256];
	enum bri_variant v;
	int		 i;

	(void)state;
	for (v = BRI_JOKER3; v <= BRI_CLASSIC4; v++)
		for (i = 0; i < 4; i++) {
			bri_options_default(&o, v);
			o.match_target = 1 + 7 * i;
			o.deals_to_win = 1000 - i;
			o.deal_cap = 1 + i * 33333;
			if (v == BRI_CLASSIC3)
				o.removed_two = i - 1;
			mset_of(&ms, &o, 1 + i, 86400000 * (i & 1), 600000 - i,
			    i & 2 ? POLICY_FALLBACK : POLICY_FORFEIT, 3 + i);
			assert_int_equal(mset_text(&ms, v, got, sizeof(got)), 0);
			old_text(&o, 1 + i, 86400000 * (i & 1), 600000 - i,
			    i & 2 ? "fallback" : "forfeit", 3 + i, want,
			    sizeof(want));
			assert_string_equal(got, want);
		}
}

static void
test_new_text(void **state)
{
	struct bri_options o;
	struct mset	 ms;
	char		 got[256], err[256];

	(void)state;
	bri_options_default(&o, BRI_CHIAMATA5);
	o.deals = 7;
	mset_of(&ms, &o, 5000, 0, 10000, POLICY_FORFEIT, 3);
	assert_int_equal(mset_text(&ms, BRI_CHIAMATA5, got, sizeof(got)), 0);
	assert_string_equal(got, "deals=7 move_ms=5000 bank_ms=0 "
	    "startup_ms=10000 policy=forfeit max_faults=3");
	bri_options_default(&o, BRI_CLASSIC6);
	mset_of(&ms, &o, 5000, 0, 10000, POLICY_FALLBACK, 3);
	assert_int_equal(mset_text(&ms, BRI_CLASSIC6, got, sizeof(got)), 0);
	assert_string_equal(got, "deals_to_win=2 deal_cap=100 move_ms=5000 "
	    "bank_ms=0 startup_ms=10000 policy=fallback max_faults=3");
	/* notify is written only when not lazy, its default, so that the
	 * text of a default match is what it was before the setting */
	ms.val[MSET_NOTIFY] = NOTIFY_EAGER;
	assert_int_equal(mset_text(&ms, BRI_CLASSIC6, got, sizeof(got)), 0);
	assert_string_equal(got, "deals_to_win=2 deal_cap=100 move_ms=5000 "
	    "bank_ms=0 startup_ms=10000 policy=fallback max_faults=3 "
	    "notify=eager");
	assert_int_equal(mset_read(&ms, BRI_CLASSIC6, got, err, sizeof(err)),
	    0);
	assert_int_equal(ms.val[MSET_NOTIFY], NOTIFY_EAGER);
	ms.val[MSET_NOTIFY] = NOTIFY_LAZY;
	/* too short a buffer says so */
	assert_int_equal(mset_text(&ms, BRI_CLASSIC6, got, 20), -1);
}

static void
test_read(void **state)
{
	struct mset	 ms;
	struct bri_options o;
	char		 err[256];

	(void)state;
	/* an old text reads back into what it says */
	assert_int_equal(mset_read(&ms, BRI_CLASSIC3, "target=10 "
	    "deals_to_win=3 deal_cap=7 removed_two=B move_ms=1500 bank_ms=0 "
	    "startup_ms=5000 policy=forfeit max_faults=3 "
	    "seed_reveal=tournament sandbox=none", err, sizeof(err)), 0);
	mset_options(&ms, BRI_CLASSIC3, &o);
	assert_int_equal(o.deals_to_win, 3);
	assert_int_equal(o.deal_cap, 7);
	assert_int_equal(o.removed_two, BRI_BASTONI);
	assert_int_equal(ms.val[MSET_MOVE_MS], 1500);
	/* older spellings */
	assert_int_equal(mset_read(&ms, BRI_JOKER3, "deals_to_win=2 "
	    "match_target=12 deal_cap=100 removed_two=-1", err, sizeof(err)),
	    0);
	mset_options(&ms, BRI_JOKER3, &o);
	assert_int_equal(o.match_target, 12);
	assert_int_equal(o.removed_two, -1);
	/* out of range, twice, not key=value */
	assert_int_equal(mset_read(&ms, BRI_CLASSIC2, "deal_cap=0", err,
	    sizeof(err)), -1);
	assert_string_equal(err, "deal_cap: too small (1 to 100000)");
	assert_int_equal(mset_read(&ms, BRI_CLASSIC2, "move_ms=5 move_ms=5",
	    err, sizeof(err)), -1);
	assert_string_equal(err, "move_ms= given twice");
	assert_int_equal(mset_read(&ms, BRI_CLASSIC2, "move_ms", err,
	    sizeof(err)), -1);
	/* a key that does not apply: refused, but for the four old rule
	 * options of the first four variants, which refd always wrote */
	assert_int_equal(mset_read(&ms, BRI_CLASSIC5, "target=10", err,
	    sizeof(err)), -1);
	assert_string_equal(err, "option target= does not apply to classic5 "
	    "(only to joker3)");
	assert_int_equal(mset_read(&ms, BRI_CLASSIC2, "deals=5", err,
	    sizeof(err)), -1);
	assert_string_equal(err, "option deals= does not apply to classic2 "
	    "(only to chiamata5)");
	assert_int_equal(mset_read(&ms, BRI_CLASSIC2, "target=10", err,
	    sizeof(err)), 0);
}

static void
test_applies(void **state)
{
	struct mset	 ms;
	char		 err[256];
	int		 where = 0;

	(void)state;
	/* removed_two: classic3 only, though joker3 too removes a 2 */
	assert_true(mset_applies(MSET_REMOVED_TWO, BRI_CLASSIC3));
	assert_false(mset_applies(MSET_REMOVED_TWO, BRI_JOKER3));
	assert_false(mset_applies(MSET_DEAL_CAP, BRI_CHIAMATA5));
	assert_true(mset_applies(MSET_DEALS_TO_WIN, BRI_BRISCOLONE));
	mset_init(&ms);
	assert_int_equal(mset_set(&ms, "deals_to_win", "4", 9, err,
	    sizeof(err)), 0);
	assert_int_equal(mset_check(&ms, BRI_CLASSIC4, &where, err,
	    sizeof(err)), 0);
	assert_int_equal(mset_check(&ms, BRI_JOKER3, &where, err,
	    sizeof(err)), -1);
	assert_int_equal(where, 9);
	assert_string_equal(err, "option deals_to_win= does not apply to "
	    "joker3 (only to classic2, classic3, classic4, classic5, classic6 "
	    "and briscolone)");
	assert_int_equal(mset_set(&ms, "frob", "1", 1, err, sizeof(err)), -1);
	assert_string_equal(err, "unknown option frob");
	assert_int_equal(mset_set(&ms, "policy", "lenient", 1, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "policy: forfeit or fallback");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_text),
		cmocka_unit_test(test_new_text),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_applies),
	};

	if (bri_init() != BRI_OK)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
