/*
 * guard.c: limits on token guessing that no flood can push aside.
 *
 * seat.c throttles one address guessing at one bot, in a table of
 * recent addresses that a flood from many addresses can churn.  Here the
 * count is kept per registered remote bot, from every address at once:
 * only a bot the operator added gets an entry, so no stream of made-up
 * names or new addresses can evict it.  And the refusals are logged at
 * a bounded rate, so that a flood cannot fill the log either.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bots.h"
#include "guard.h"
#include "util.h"

#define GUARD_NAME_MAX	20	/* failures for one bot, from anywhere ... */
#define GUARD_WINDOW_MS	60000	/* ... in this long: then it is throttled */
#define GUARD_LOG_MAX	10	/* refusals logged ... */
#define GUARD_LOG_MS	10000	/* ... in this long; the rest are counted */

static struct guard {
	char		 name[REFD_NAMELEN + 1];
	int64_t		 since_ms;
	int		 n;
} *guards;
static int	 nguards, capguards;
static int64_t	 log_since_ms;
static int	 log_n, log_suppressed;

/*
 * Count a failed authentication as name (add), or just look; returns
 * whether name is throttled.  Names that are no remote bot are not
 * kept: there is nothing to guess.
 */
int
guard_name(const char *name, int add)
{
	struct bot	*b = bots_find(name);
	struct guard	*g;
	int64_t		 now = util_now_ms();
	int		 i;

	if (b == NULL || b->kind != BOT_REMOTE)
		return 0;
	for (i = 0; i < nguards; i++)
		if (strcmp(guards[i].name, b->name) == 0)
			break;
	if (i == nguards) {
		if (!add)
			return 0;
		if (nguards == capguards) {
			g = realloc(guards, (capguards ? capguards * 2 : 8) *
			    sizeof(*g));
			if (g == NULL)
				return 1;	/* no memory: refuse */
			guards = g;
			capguards = capguards ? capguards * 2 : 8;
		}
		memset(&guards[i], 0, sizeof(guards[i]));
		memcpy(guards[i].name, b->name, sizeof(guards[i].name));
		guards[i].since_ms = now;
		nguards++;
	}
	g = &guards[i];
	if (now - g->since_ms > GUARD_WINDOW_MS) {
		g->n = 0;
		g->since_ms = now;
	}
	if (add)
		g->n++;
	return g->n >= GUARD_NAME_MAX + (add ? 1 : 0);
}

/*
 * May a refusal be logged now?  If so, *suppressed says how many were
 * not since the last one that was.
 */
int
guard_log(int *suppressed)
{
	int64_t	 now = util_now_ms();

	if (now - log_since_ms > GUARD_LOG_MS) {
		log_since_ms = now;
		log_n = 0;
	}
	if (log_n >= GUARD_LOG_MAX) {
		log_suppressed++;
		return 0;
	}
	log_n++;
	*suppressed = log_suppressed;
	log_suppressed = 0;
	return 1;
}

/* At exit. */
void
guard_free(void)
{
	free(guards);
	guards = NULL;
	nguards = capguards = 0;
}
