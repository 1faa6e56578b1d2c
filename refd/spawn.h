/*
 * spawn.h: starting and stopping bot processes, shared by refd and by
 * refctl checkbot.  spawn.c needs nothing but the log, no libevent.
 */
#ifndef REFD_SPAWN_H
#define REFD_SPAWN_H

#include <sys/types.h>

#include "sandbox.h"

struct spawn_job;

pid_t	spawn_bot(char **, int *, int *, char *, size_t);
struct spawn_job *spawn_prepare(char **, int *, int *, char *, size_t);
pid_t	spawn_run(struct spawn_job *, void *, size_t, char *, size_t);
void	spawn_job_free(struct spawn_job *);
void	spawn_signal(pid_t, int);
void	spawn_limits(int, int);
int	spawn_hide(const char *, int, char *, size_t);
int	spawn_setup(enum sandbox_mode, const char *, char *, size_t);
enum sandbox_mode spawn_mode(void);
const char *spawn_cannot_run(const char *, char *, size_t);

#endif
