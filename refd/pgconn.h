/*
 * pgconn.h: one PostgreSQL connection driven by refd's event loop
 * (libpq's asynchronous API): connecting, one query at a time, its
 * result handed over a step late, and reconnecting with jittered
 * backoff.  Nothing here ever waits.
 */
#ifndef REFD_PGCONN_H
#define REFD_PGCONN_H

#include <stdint.h>

struct event_base;
struct pg_result;
struct pgconn;

/*
 * A query's end: its last result (NULL on failure) and, on failure,
 * why.  The result is freed when the callback returns.
 */
typedef void	(*pgconn_cb)(void *, const struct pg_result *, const char *);

struct pgconn	*pgconn_new(struct event_base *, const char *,
		    void (*)(void *, int, const char *), void *);
void		 pgconn_free(struct pgconn *);
int		 pgconn_up(const struct pgconn *);
int		 pgconn_idle(const struct pgconn *);
int		 pgconn_query(struct pgconn *, const char *, int,
		    const char *const *, int, pgconn_cb, void *);
void		 pgconn_drop(struct pgconn *, const char *);
int64_t		 pgconn_delay_max(const struct pgconn *, int64_t *,
		    int64_t *);
long long	 pgconn_queries(const struct pgconn *, int64_t *);

#endif /* REFD_PGCONN_H */
