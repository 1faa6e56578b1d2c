/*
 * spawnq.h: starting bots on a thread of their own.
 */
#ifndef REFD_SPAWNQ_H
#define REFD_SPAWNQ_H

#include <sys/types.h>

struct event_base;
struct spawn_fds;
struct spawnq_job;

int		 spawnq_start(struct event_base *, char *, size_t);
struct spawnq_job *spawnq_prepare(char **, struct spawn_fds *, char *,
		    size_t);
void		 spawnq_go(struct spawnq_job *, void (*)(void *, pid_t),
		    void *);
void		 spawnq_cancel(struct spawnq_job *);
void		 spawnq_stop(void);

#endif /* REFD_SPAWNQ_H */
