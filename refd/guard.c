/*
 * guard.c: limits on token guessing that no flood can push aside.
 *
 * seat.c throttles one address guessing at one bot, in a table of
 * recent addresses that a flood from many addresses can churn.  Here the
 * count is kept per registered remote bot, from every address at once:
 * only a bot the operator added gets an entry, so no stream of made-up
 * names or new addresses can evict it.  And the refusals are logged at
 * a bounded rate, so that a flood cannot fill the log either.
 *
 * That count must not hand the bot's owner's door to whoever guesses:
 * each bot remembers the last GUARD_TRUSTED addresses it authenticated
 * from, and its throttle holds everyone but them.  Guesses from one of
 * those addresses still meet seat.c's throttle of that address.  The
 * addresses are taken from the log's "connect" events when a bot is
 * first counted, so that a restart of refd does not forget them.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "refd.h"
#include "bots.h"
#include "db.h"
#include "guard.h"
#include "util.h"

#define GUARD_NAME_MAX	20	/* failures for one bot, from anywhere ... */
#define GUARD_WINDOW_MS	60000	/* ... in this long: then it is throttled */
#define GUARD_LOG_MAX	10	/* refusals logged ... */
#define GUARD_LOG_MS	10000	/* ... in this long; the rest are counted */
#define GUARD_TRUSTED	8	/* addresses a bot authenticated from */
#define GUARD_ADDRLEN	64

static struct guard {
	char		 name[REFD_NAMELEN + 1];
	int64_t		 since_ms;
	int		 n;
	char		 trusted[GUARD_TRUSTED][GUARD_ADDRLEN];
	int		 ntrusted;	/* next slot, round robin */
} *guards;
static int	 nguards, capguards;
static int64_t	 log_since_ms;
static int	 log_n, log_suppressed;

/* The address part of peer, "address:port", into addr. */
static void
guard_addr(const char *peer, char *addr)
{
	const char	*colon = strrchr(peer, ':');
	size_t		 n = colon != NULL ? (size_t)(colon - peer) :
			    strlen(peer);

	snprintf(addr, GUARD_ADDRLEN, "%.*s", (int)n, peer);
}

/* Is addr among g's trusted addresses? */
static int
guard_trusted(const struct guard *g, const char *addr)
{
	int	 i;

	for (i = 0; i < GUARD_TRUSTED && addr[0] != '\0'; i++)
		if (strcmp(g->trusted[i], addr) == 0)
			return 1;
	return 0;
}

/*
 * The addresses g's bot authenticated from before, as the log's
 * "connect" events have them, newest first, up to GUARD_TRUSTED.
 */
static void
guard_remember(struct guard *g)
{
	sqlite3_stmt	*st;
	char		 addr[GUARD_ADDRLEN], got[GUARD_TRUSTED][GUARD_ADDRLEN];
	const char	*peer;
	int		 n = 0, i;

	if (logdb == NULL || sqlite3_prepare_v2(db_handle(logdb), "SELECT "
	    "detail FROM bot_events WHERE bot = ? AND kind = 'connect' "
	    "ORDER BY id DESC LIMIT 256", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, g->name, -1, SQLITE_STATIC);
	while (n < GUARD_TRUSTED && sqlite3_step(st) == SQLITE_ROW) {
		if ((peer = (const char *)sqlite3_column_text(st, 0)) == NULL)
			continue;
		guard_addr(peer, addr);
		for (i = 0; i < n && strcmp(got[i], addr) != 0; i++)
			;
		if (addr[0] != '\0' && i == n)
			memcpy(got[n++], addr, sizeof(addr));
	}
	sqlite3_finalize(st);
	/* the oldest first, so that the oldest is the next replaced */
	for (i = 0; i < n; i++)
		memcpy(g->trusted[i], got[n - 1 - i], sizeof(addr));
	g->ntrusted = n % GUARD_TRUSTED;
}

/* The entry of remote bot b, made if make; NULL if none. */
static struct guard *
guard_find(const struct bot *b, int make)
{
	struct guard	*g;
	int		 i;

	for (i = 0; i < nguards; i++)
		if (strcmp(guards[i].name, b->name) == 0)
			return &guards[i];
	if (!make)
		return NULL;
	if (nguards == capguards) {
		g = realloc(guards, (capguards ? capguards * 2 : 8) *
		    sizeof(*g));
		if (g == NULL)
			return NULL;
		guards = g;
		capguards = capguards ? capguards * 2 : 8;
	}
	memset(&guards[i], 0, sizeof(guards[i]));
	memcpy(guards[i].name, b->name, sizeof(guards[i].name));
	guards[i].since_ms = util_now_ms();
	nguards++;
	guard_remember(&guards[i]);
	return &guards[i];
}

/*
 * Remote bot name authenticated from peer ("address:port"): from that
 * address its own throttle no longer holds it out.
 */
void
guard_trust(const char *name, const char *peer)
{
	struct bot	*b = bots_find(name);
	struct guard	*g;
	char		 addr[GUARD_ADDRLEN];

	if (b == NULL || b->kind != BOT_REMOTE ||
	    (g = guard_find(b, 1)) == NULL)
		return;
	guard_addr(peer, addr);
	if (guard_trusted(g, addr))
		return;
	snprintf(g->trusted[g->ntrusted], GUARD_ADDRLEN, "%s", addr);
	g->ntrusted = (g->ntrusted + 1) % GUARD_TRUSTED;
}

/*
 * Count a failed authentication as name from peer (add), or just look;
 * returns whether name is throttled for peer: never for an address it
 * authenticated from before.  Names that are no remote bot are not
 * kept: there is nothing to guess.
 */
int
guard_name(const char *name, const char *peer, int add)
{
	struct bot	*b = bots_find(name);
	struct guard	*g;
	char		 addr[GUARD_ADDRLEN];
	int64_t		 now = util_now_ms();

	if (b == NULL || b->kind != BOT_REMOTE)
		return 0;
	if ((g = guard_find(b, add)) == NULL)
		return add;	/* none kept, or no memory: refuse */
	if (now - g->since_ms > GUARD_WINDOW_MS) {
		g->n = 0;
		g->since_ms = now;
	}
	if (add)
		g->n++;
	guard_addr(peer, addr);
	if (guard_trusted(g, addr))
		return 0;	/* its owner's address: never held out */
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
