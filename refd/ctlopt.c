/*
 * ctlopt.c: the arguments of the control command match_start, checked
 * into a match's settings.  Nothing here acts: ctl.c starts the match
 * once every word has passed.  Each option is a setting of mset.c's
 * table, checked there as every other entry point checks it.  Apart
 * from the registry of bots it needs no daemon, so the fuzzer
 * (tests/fuzz/fuzz_ctlcmd.c) runs this code.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bots.h"
#include "conf.h"
#include "ctlopt.h"
#include "match.h"
#include "mset.h"
#include "util.h"

/*
 * Check the words of "match_start VARIANT BOT ... [key=value ...]"
 * (argv[0] is the variant; options may be modified in place) into *mc,
 * with the clocks of dflt unless an option sets them; an option that
 * does not apply to the variant is refused.  Every bot must be
 * registered; how many a variant needs is match_start()'s to check.
 * Returns 0, or -1 with the reason in r.
 */
int
ctlopt_match(struct match_conf *mc, const struct refd_conf *dflt, int argc,
    char **argv, char *r, size_t len)
{
	enum bri_variant v;
	struct mset	 ms;
	char		*eq;
	int		 i;

	if (util_variant(argv[0], &v, r, len) == -1)
		return -1;
	memset(mc, 0, sizeof(*mc));
	mset_init(&ms);
	/* refd's defaults of the clocks (refd.conf, -m, -s) */
	ms.val[MSET_MOVE_MS] = dflt->move_ms;
	ms.val[MSET_BANK_MS] = dflt->bank_ms;
	ms.val[MSET_STARTUP_MS] = dflt->startup_ms;
	for (i = 1; i < argc; i++) {
		if ((eq = strchr(argv[i], '=')) != NULL) {
			*eq = '\0';
			if (mset_set(&ms, argv[i], eq + 1, 1, r, len) == -1)
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
	if (mset_check(&ms, v, NULL, r, len) == -1)
		return -1;
	mset_options(&ms, v, &mc->opt);
	mc->seed = ms.seed;
	mc->have_seed = ms.given[MSET_SEED] != 0;
	mc->move_ms = (int)ms.val[MSET_MOVE_MS];
	mc->bank_ms = (int)ms.val[MSET_BANK_MS];
	mc->startup_ms = (int)ms.val[MSET_STARTUP_MS];
	mc->policy = (enum fault_policy)ms.val[MSET_POLICY];
	mc->max_faults = (int)ms.val[MSET_MAX_FAULTS];
	mc->notify = (enum notify_mode)ms.val[MSET_NOTIFY];
	return 0;
}
