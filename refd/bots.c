/*
 * bots.c: the registry of bots.  A spawned bot is an argv vector, kept
 * as a vector and handed to execvp(3) as is; a remote bot is a name and
 * the BLAKE2b hash of its token, compared in constant time.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "bots.h"
#include "chain.h"
#include "gtp.h"
#include "log.h"
#include "sandbox.h"
#include "spawn.h"
#include "util.h"

static TAILQ_HEAD(, bot) bots = TAILQ_HEAD_INITIALIZER(bots);
/* removed bots, freed at exit: a closing seat may still point at one */
static TAILQ_HEAD(, bot) removed = TAILQ_HEAD_INITIALIZER(removed);
static char	store[PATH_MAX];	/* the bots file, "" for none */

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
 * Forget bot b: its name may be taken again at once.  Its memory stays
 * until exit, since a seat closing may still point at it; the caller
 * makes sure that no match or tournament still needs it.
 */
void
bots_remove(struct bot *b)
{
	TAILQ_REMOVE(&bots, b, entry);
	sodium_memzero(b->token, sizeof(b->token));
	TAILQ_INSERT_TAIL(&removed, b, entry);
}

/* Free b's memory. */
static void
bots_release(struct bot *b)
{
	int	 i;

	for (i = 0; i < b->argc; i++)
		free(b->argv[i]);
	free(b->argv);
	free(b);
}

/* Forget every bot, at exit. */
void
bots_free(void)
{
	struct bot	*b;

	while ((b = TAILQ_FIRST(&bots)) != NULL) {
		TAILQ_REMOVE(&bots, b, entry);
		bots_release(b);
	}
	while ((b = TAILQ_FIRST(&removed)) != NULL) {
		TAILQ_REMOVE(&removed, b, entry);
		bots_release(b);
	}
}

/* One line of the bots file: a definition, a remote token's hash. */
static int
bots_load_line(char *line, const char *path, int lineno, char *err,
    size_t errlen)
{
	char		*w[GTP_MAXARGS], why[256];
	struct bot	*b;
	size_t		 bin;
	uint8_t		 h[32];
	int		 n;

	if ((n = gtp_split(line, w, GTP_MAXARGS)) == 0)
		return 0;
	if (n >= 1 && bots_find(w[0]) != NULL) {
		log_warnx("%s:%d: bot %s is already defined (refd.conf): "
		    "the one of the configuration is kept", path, lineno,
		    w[0]);
		return 0;
	}
	if (n == 3 && strcmp(w[1], "remote-hash") == 0) {
		if (sodium_hex2bin(h, sizeof(h), w[2], strlen(w[2]), NULL,
		    &bin, NULL) != 0 || bin != sizeof(h) ||
		    bots_add(w[0], BOT_REMOTE, 1, (char *[]){ "-unusable-" },
		    why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s:%d: bad remote bot", path,
			    lineno);
			return -1;
		}
		b = bots_find(w[0]);
		memcpy(b->token, h, sizeof(h));
	} else if (n >= 3 && strcmp(w[1], bots_kind_name(BOT_SPAWN)) == 0) {
		if (bots_define(n, w, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
			return -1;
		}
		b = bots_find(w[0]);
	} else {
		snprintf(err, errlen, "%s:%d: not a bot", path, lineno);
		return -1;
	}
	b->kept = 1;
	return 0;
}

int
bots_store(const char *path, char *err, size_t errlen)
{
	FILE	*fp;
	char	 line[GTP_MAXLINE + 2];
	int	 lineno = 0, rc = 0;

	snprintf(store, sizeof(store), "%s", path);
	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		rc = bots_load_line(line, path, lineno, err, errlen);
	}
	fclose(fp);
	return rc;
}

int
bots_save(char *err, size_t errlen)
{
	struct bot	*b;
	FILE		*fp;
	char		 tmp[PATH_MAX + 8], hex[65];
	int		 fd, i, ok;

	if (store[0] == '\0')
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.new", store);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0600)) == -1 || (fp = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	fprintf(fp, "# refd's bots added with bot_add, kept across restarts "
	    "(refd(8)); remote tokens hashed\n");
	TAILQ_FOREACH(b, &bots, entry) {
		if (!b->kept)
			continue;
		if (b->kind == BOT_REMOTE) {
			util_hex(b->token, sizeof(b->token), hex);
			fprintf(fp, "%s remote-hash %s\n", b->name, hex);
			continue;
		}
		fprintf(fp, "%s %s", b->name, bots_kind_name(b->kind));
		for (i = 0; i < b->argc; i++)
			fprintf(fp, " %s", b->argv[i]);
		fputc('\n', fp);
	}
	ok = fflush(fp) == 0 && fsync(fileno(fp)) == 0;
	if (fclose(fp) != 0 || !ok || rename(tmp, store) == -1) {
		snprintf(err, errlen, "%s: %s", store, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * A spawned bot's identity across machines, for a cluster
 * (refd-cluster(7)): "argv:H1,prog:H2", H1 its words' hash as the log
 * keeps it (chain_argv()), H2 the BLAKE2b-256 of the program file its
 * command runs (after its sandbox options), so that two machines run the
 * same bot only if both the words and the program are the same.  Into
 * out (at least BOTS_IDENTLEN bytes); 0, or -1 with the reason in err.
 */
int
bots_identity(int argc, char **argv, char *out, size_t len, char *err,
    size_t errlen)
{
	crypto_generichash_state st;
	struct sandbox_opts	 o;
	uint8_t			 h[32], buf[65536];
	char			 path[PATH_MAX], hex[65], *v[REFD_MAXARGV + 1];
	ssize_t			 n;
	int			 i, fd;

	if (argc < 1 || argc > REFD_MAXARGV || len < BOTS_IDENTLEN) {
		snprintf(err, errlen, "no command");
		return -1;
	}
	for (i = 0; i < argc; i++)
		v[i] = argv[i];
	v[argc] = NULL;
	if (sandbox_opts_parse(v, &o, err, errlen) == -1)
		return -1;
	if (!spawn_which(o.cmd[0], path, sizeof(path))) {
		snprintf(err, errlen, "%.200s is no executable file",
		    o.cmd[0]);
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%.200s: %s", path, strerror(errno));
		return -1;
	}
	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crypto_generichash_update(&st, buf, n);
	close(fd);
	if (n == -1) {
		snprintf(err, errlen, "%.200s: %s", path, strerror(errno));
		return -1;
	}
	crypto_generichash_final(&st, h, sizeof(h));
	chain_argv(argc, argv, out, len);
	util_hex(h, sizeof(h), hex);
	snprintf(out + strlen(out), len - strlen(out), ",prog:%s", hex);
	return 0;
}
