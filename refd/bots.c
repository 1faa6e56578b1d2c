/*
 * bots.c: the registry of bots.  A spawned bot is an argv vector, kept
 * as a vector and handed to execvp(3) as is; a remote bot is a name and
 * the BLAKE2b hash of its token, compared in constant time.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "bots.h"
#include "sandbox.h"
#include "util.h"

static TAILQ_HEAD(, bot) bots = TAILQ_HEAD_INITIALIZER(bots);

/* Hash a token so that comparing takes the same time for any guess. */
static void
bots_hash(const char *token, uint8_t out[32])
{
	crypto_generichash(out, 32, (const uint8_t *)token, strlen(token),
	    NULL, 0);
}

/* A spawned bot's words: its sandbox options, then a command. */
static int
bots_opts_ok(int argc, char **argv, char *err, size_t errlen)
{
	struct sandbox_opts	 o;
	char			*v[REFD_MAXARGV + 1];
	int			 i;

	for (i = 0; i < argc; i++)
		v[i] = argv[i];
	v[argc] = NULL;
	return sandbox_opts_parse(v, &o, err, errlen);
}

/*
 * Register a bot.  A spawned bot takes argc words of argv; a remote one
 * takes its token in argv[0].  Returns 0, or -1 with the reason in err.
 */
int
bots_add(const char *name, enum bot_kind kind, int argc, char **argv,
    char *err, size_t errlen)
{
	struct bot	*b;
	int		 i;

	if (!util_name_ok(name)) {
		snprintf(err, errlen, "bad bot name (1 to 32 of A-Z a-z 0-9 _ . -)");
		return -1;
	}
	if (bots_find(name) != NULL) {
		snprintf(err, errlen, "bot %s already exists", name);
		return -1;
	}
	if (argc < 1 || argc > REFD_MAXARGV) {
		snprintf(err, errlen, "a command of 1 to %d words is needed",
		    REFD_MAXARGV);
		return -1;
	}
	for (i = 0; i < argc; i++)
		if (strlen(argv[i]) > REFD_ARGLEN) {
			snprintf(err, errlen, "argument %d too long", i + 1);
			return -1;
		}
	if (kind == BOT_REMOTE && (argc != 1 || strlen(argv[0]) < 8)) {
		snprintf(err, errlen, "a remote bot needs one token of 8 or "
		    "more characters");
		return -1;
	}
	if (kind == BOT_SPAWN && bots_opts_ok(argc, argv, err, errlen) == -1)
		return -1;
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->kind = kind;
	TAILQ_INIT(&b->idle);
	if (kind == BOT_REMOTE)
		bots_hash(argv[0], b->token);
	else {
		if ((b->argv = calloc(argc + 1, sizeof(char *))) == NULL) {
			free(b);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		b->argc = argc;
		for (i = 0; i < argc; i++)
			if ((b->argv[i] = strdup(argv[i])) == NULL) {
				while (i-- > 0)
					free(b->argv[i]);
				free(b->argv);
				free(b);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
	}
	TAILQ_INSERT_TAIL(&bots, b, entry);
	return 0;
}

/*
 * Register a bot from the words of its definition, the same wherever it
 * is written (refd.conf, bot_add, a tournament's bot line):
 * "NAME spawn COMMAND [ARG ...]" or "NAME remote TOKEN".  Returns 0, or
 * -1 with the reason in err.
 */
int
bots_define(int argc, char **argv, char *err, size_t errlen)
{
	enum bot_kind	 kind;

	if (argc < 3) {
		snprintf(err, errlen, "usage: bot NAME spawn COMMAND [ARG ...] "
		    "| bot NAME remote TOKEN");
		return -1;
	}
	if (strcmp(argv[1], bots_kind_name(BOT_SPAWN)) == 0)
		kind = BOT_SPAWN;
	else if (strcmp(argv[1], bots_kind_name(BOT_REMOTE)) == 0)
		kind = BOT_REMOTE;
	else {
		snprintf(err, errlen, "kind must be spawn or remote");
		return -1;
	}
	return bots_add(argv[0], kind, argc - 2, argv + 2, err, errlen);
}

/* "spawn" or "remote", as definitions and the log spell them. */
const char *
bots_kind_name(enum bot_kind kind)
{
	return kind == BOT_SPAWN ? "spawn" : "remote";
}

/* The bot called name, or NULL. */
struct bot *
bots_find(const char *name)
{
	struct bot	*b;

	TAILQ_FOREACH(b, &bots, entry)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

/* Iterate over the registry, in the order bots were added. */
struct bot *
bots_first(void)
{
	return TAILQ_FIRST(&bots);
}

struct bot *
bots_next(struct bot *b)
{
	return TAILQ_NEXT(b, entry);
}

/* Is token right for remote bot name?  Constant time in the token. */
int
bots_auth(const char *name, const char *token)
{
	struct bot	*b = bots_find(name);
	uint8_t		 h[32];

	bots_hash(token, h);
	if (b == NULL || b->kind != BOT_REMOTE)
		return 0;
	return sodium_memcmp(h, b->token, sizeof(h)) == 0;
}

/*
 * Forget bot b and free it.  The caller makes sure that nothing holds
 * it: no seat of a match, no idle connection (seat.c's pool).
 */
void
bots_remove(struct bot *b)
{
	int	 i;

	TAILQ_REMOVE(&bots, b, entry);
	for (i = 0; i < b->argc; i++)
		free(b->argv[i]);
	free(b->argv);
	sodium_memzero(b->token, sizeof(b->token));
	free(b);
}

/* Forget every bot, at exit. */
void
bots_free(void)
{
	struct bot	*b;

	while ((b = TAILQ_FIRST(&bots)) != NULL)
		bots_remove(b);
}
