/*
 * spawn.h: starting and stopping bot processes, shared by refd and by
 * refctl checkbot.  spawn.c needs nothing but the log, no libevent.
 */
#ifndef REFD_SPAWN_H
#define REFD_SPAWN_H

#include <sys/types.h>

#include "sandbox.h"

struct spawn_job;

/*
 * refd's ends of a bot's descriptors, all non-blocking and close-on-exec:
 * a pipe to its stdin, one from its stdout, one from its stderr.
 */
struct spawn_fds {
	int	 in;		/* written to: the bot's stdin */
	int	 out;		/* read: the bot's stdout */
	int	 err;		/* read: the bot's stderr */
};

pid_t	spawn_bot(char **, struct spawn_fds *, char *, size_t);
struct spawn_job *spawn_prepare(char **, struct spawn_fds *, char *, size_t);
void	spawn_fds_close(struct spawn_fds *);
pid_t	spawn_run(struct spawn_job *, void *, size_t, char *, size_t);
void	spawn_job_free(struct spawn_job *);
void	spawn_signal(pid_t, int);
void	spawn_limits(int, int);
int	spawn_hide(const char *, int, char *, size_t);
int	spawn_setup(enum sandbox_mode, const char *, char *, size_t);
enum sandbox_mode spawn_mode(void);
void	spawn_reaped(pid_t);
void	spawn_cleanup(void);
const char *spawn_memcg_missing(void);
const char *spawn_cannot_run(const char *, char *, size_t);
/*
 * spawn_runnable(argv, err, errlen): can a bot of these words (sandbox
 * options, then a command) start?  Its program must be an executable
 * file, on PATH if named bare, and when refd is root the bot user must
 * reach it through every directory on the way and execute it, and read
 * the files its other words name.  0, or -1 with the reason in err,
 * naming the user and the path.  spawn_last_words(tail, len, buf,
 * buflen) says why a bot's output ended, from the end of its stderr:
 * "cannot run ...", "its stderr ends with '...'", or NULL;
 * spawn_tail_keep() keeps that end as stderr is read.
 */
int	spawn_runnable(char *const *, char *, size_t);
int	spawn_which(const char *, char *, size_t);
const char *spawn_last_words(const char *, size_t, char *, size_t);
void	spawn_tail_keep(char *, size_t *, size_t, const char *, size_t);

#endif
