/*
 * botlog.h: the bot logs directory kept under its total cap
 * (botlog_max_mb in refd.conf(5)), the oldest logs removed first.
 */
#ifndef REFD_BOTLOG_H
#define REFD_BOTLOG_H

#include <stddef.h>
#include <stdint.h>

void	botlog_init(const char *, int64_t);
void	botlog_grew(size_t);
int64_t	botlog_total(void);
int	botlog_name_ok(const char *);

#endif /* REFD_BOTLOG_H */
