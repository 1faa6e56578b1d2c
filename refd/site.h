/*
 * site.h: the web site's pages and data (refd-http(7)): what a spectator
 * may see of refd's matches, as JSON and Server-Sent Events from one
 * place, over the server of http.c.
 */
#ifndef REFD_SITE_H
#define REFD_SITE_H

#include <stddef.h>

struct match;

int		 site_start(char *, size_t);
void		 site_stop(void);
void		 site_match_event(struct match *, const char *);
void		 site_match_done(struct match *);

#endif /* REFD_SITE_H */
