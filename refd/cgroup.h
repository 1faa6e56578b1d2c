/*
 * cgroup.h: a memory cgroup of its own for each spawned bot, cgroup v2
 * or the v1 memory controller, so that everything its sandbox holds
 * (its processes, its tmpfs, its shared memory) counts against one
 * limit.  Uses neither libevent nor SQLite.
 */
#ifndef REFD_CGROUP_H
#define REFD_CGROUP_H

#include <sys/types.h>

#include <stddef.h>

#define CGROUP_NAMELEN	32	/* a bot cgroup's name, "bot-N" */

int	 cgroup_setup(char *, size_t);
const char *cgroup_kind(void);
int	 cgroup_bot_new(long long, char *, size_t, char *, size_t);
void	 cgroup_bot_started(const char *, pid_t);
void	 cgroup_bot_reaped(pid_t);
void	 cgroup_cleanup(void);

#endif
