/*
 * worker.h: a refd that plays slots of a cluster's tournaments
 * (refd-cluster(7)): leases from PostgreSQL, plays them with its own
 * bots, reports each result with its match's signed end head.
 */
#ifndef REFD_WORKER_H
#define REFD_WORKER_H

#include <stddef.h>

struct match;

int		 worker_start(const char *, const char *, char *, size_t);
void		 worker_match_done(struct match *);
void		 worker_status(char *, size_t);
void		 worker_free(void);

#endif /* REFD_WORKER_H */
