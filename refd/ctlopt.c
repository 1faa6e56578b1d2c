/*
 * ctlopt.c: the arguments of the control command match_start, checked
 * into a match's settings.  Nothing here acts: ctl.c starts the match
 * once every word has passed.  Apart from the registry of bots it needs
 * no daemon, so the fuzzer (tests/fuzz/fuzz_ctlcmd.c) runs this code.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bots.h"
#include "conf.h"
#include "ctlopt.h"
#include "match.h"
#include "util.h"

/* Parse one key=value option of match_start into mc. */
static int
ctlopt_option(struct match_conf *mc, char *kv, char *r, size_t len)
{
	static const struct {
		const char	*key;
		long long	 min, max;
		size_t		 off;
	} nums[] = {
		{ "move_ms", 1, 3600000, offsetof(struct match_conf, move_ms) },
		{ "bank_ms", 0, 86400000, offsetof(struct match_conf, bank_ms) },
		{ "startup_ms", 1, 600000,
		    offsetof(struct match_conf, startup_ms) },
		{ "max_faults", 1, 1000,
		    offsetof(struct match_conf, max_faults) },
		{ "target", 1, 1000,
		    offsetof(struct match_conf, opt.match_target) },
		{ "deals_to_win", 1, 1000,
		    offsetof(struct match_conf, opt.deals_to_win) },
		{ "deal_cap", 1, 100000,
		    offsetof(struct match_conf, opt.deal_cap) },
		{ "deals", 1, 1000, offsetof(struct match_conf, opt.deals) },
	};
	const char	*errstr, *v;
	char		*eq = strchr(kv, '=');
	size_t		 i;
	long long	 n;

	if (eq == NULL) {
		snprintf(r, len, "expected key=value, got \"%.40s\"", kv);
		return -1;
	}
	*eq = '\0';
	v = eq + 1;
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcmp(kv, nums[i].key) != 0)
			continue;
		n = util_num(v, nums[i].min, nums[i].max, &errstr);
		if (errstr != NULL) {
			snprintf(r, len, "%s: %s (%lld to %lld)", kv, errstr,
			    nums[i].min, nums[i].max);
			return -1;
		}
		*(int *)((char *)mc + nums[i].off) = (int)n;
		return 0;
	}
	if (strcmp(kv, "seed") == 0) {
		if (bri_seed_parse(v, &mc->seed) != BRI_OK) {
			snprintf(r, len, "seed: 64 hex digits expected");
			return -1;
		}
		mc->have_seed = 1;
	} else if (strcmp(kv, "policy") == 0) {
		if (policy_parse(v, &mc->policy) == -1) {
			snprintf(r, len, "policy: forfeit or fallback");
			return -1;
		}
	} else if (strcmp(kv, "removed_two") == 0) {
		if (strcmp(v, "random") == 0)
			mc->opt.removed_two = -1;
		else if (strlen(v) == 1 && bri_suit_parse(v[0]) != -1)
			mc->opt.removed_two = bri_suit_parse(v[0]);
		else {
			snprintf(r, len, "removed_two: random, C, D, B or S");
			return -1;
		}
	} else {
		snprintf(r, len, "unknown option %.40s", kv);
		return -1;
	}
	return 0;
}

/*
 * Check the words of "match_start VARIANT BOT ... [key=value ...]"
 * (argv[0] is the variant; options may be modified in place) into *mc,
 * with the clocks of dflt unless an option sets them.  Every bot must be
 * registered; how many a variant needs is match_start()'s to check.
 * Returns 0, or -1 with the reason in r.
 */
int
ctlopt_match(struct match_conf *mc, const struct refd_conf *dflt, int argc,
    char **argv, char *r, size_t len)
{
	enum bri_variant v;
	int		 i;

	if (util_variant(argv[0], &v, r, len) == -1)
		return -1;
	memset(mc, 0, sizeof(*mc));
	bri_options_default(&mc->opt, v);
	mc->move_ms = dflt->move_ms;
	mc->bank_ms = dflt->bank_ms;
	mc->startup_ms = dflt->startup_ms;
	mc->policy = POLICY_FORFEIT;
	mc->max_faults = 3;
	for (i = 1; i < argc; i++) {
		if (strchr(argv[i], '=') != NULL) {
			if (ctlopt_option(mc, argv[i], r, len) == -1)
				return -1;
			continue;
		}
		if (mc->nbots == BRI_MAXSEATS) {
			snprintf(r, len, "too many bots");
			return -1;
		}
		if (bots_find(argv[i]) == NULL) {
			snprintf(r, len, "unknown bot %.40s", argv[i]);
			return -1;
		}
		snprintf(mc->bots[mc->nbots++], sizeof(mc->bots[0]), "%s",
		    argv[i]);
	}
	if (bri_options_check(&mc->opt) != BRI_OK) {
		snprintf(r, len, "option not valid for %s", argv[0]);
		return -1;
	}
	return 0;
}
