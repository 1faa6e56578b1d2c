/*
 * bots.h: the registry of bots an operator has added.  A spawned bot is
 * an argv vector; a remote bot is a name and the hash of its token.
 * The pool of a remote bot's idle connections belongs to seat.c.
 */
#ifndef REFD_BOTS_H
#define REFD_BOTS_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#define REFD_NAMELEN		32
#define REFD_MAXARGV		32	/* words of a spawned bot's command */
#define REFD_ARGLEN		1024	/* bytes of one such word */
#define BOTS_IDENTLEN		144	/* "argv:H,prog:H" (bots_identity()) */

struct seat;

enum bot_kind { BOT_SPAWN, BOT_REMOTE };
struct bot {
	TAILQ_ENTRY(bot)  entry;
	char		  name[REFD_NAMELEN + 1];
	enum bot_kind	  kind;
	int		  argc;			/* spawn: the command */
	char		**argv;			/* NULL-terminated */
	uint8_t		  token[32];		/* remote: BLAKE2b of token */
	int		  kept;			/* added by bot_add: kept in
						   the bots file */
	TAILQ_HEAD(, seat) idle;		/* remote: connected, free;
						   seat.c's alone */
};

int		 bots_add(const char *, enum bot_kind, int, char **, char *,
		    size_t);
int		 bots_define(int, char **, char *, size_t);
const char	*bots_kind_name(enum bot_kind);
struct bot	*bots_find(const char *);
struct bot	*bots_first(void);
struct bot	*bots_next(struct bot *);
int		 bots_auth(const char *, const char *);
void		 bots_remove(struct bot *);
void		 bots_free(void);
int		 bots_identity(int, char **, char *, size_t, char *, size_t);

/*
 * The bots added at run time (bot_add) live in a file beside the log,
 * FILE.bots (mode 0600), one definition a line, remote tokens only as
 * their hashes, rewritten whole on every change, so that they survive
 * a restart.  bots_store(path, err, errlen) reads it (a missing file is
 * an empty one) and names it as the file bots_save() writes; a bot whose
 * name is taken (by refd.conf) is skipped with a warning.  Both return
 * 0, or -1 with the reason in err.
 */
int		 bots_store(const char *, char *, size_t);
int		 bots_save(char *, size_t);

#endif /* REFD_BOTS_H */
