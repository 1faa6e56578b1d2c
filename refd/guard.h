/*
 * guard.h: limits on token guessing that no flood can push aside
 * (guard.c).
 */
#ifndef REFD_GUARD_H
#define REFD_GUARD_H

int	guard_name(const char *, const char *, int);
void	guard_trust(const char *, const char *);
int	guard_log(int *);
void	guard_free(void);

#endif
