/*
 * sfilter.h: the system-call filter every spawned bot runs under
 * (libseccomp), built once and handed to bwrap --seccomp as a
 * descriptor per bot.  Uses neither libevent nor SQLite.
 */
#ifndef REFD_SFILTER_H
#define REFD_SFILTER_H

#include <stddef.h>

int	 sfilter_build(int, char *, size_t);
int	 sfilter_open(int);
size_t	 sfilter_count(void);
const char *sfilter_name(size_t);

#endif
