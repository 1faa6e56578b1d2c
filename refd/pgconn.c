/*
 * pgconn.c: a PostgreSQL connection inside the event loop (STYLE.md 18).
 *
 * The connection is a state the loop drives, never a call that waits:
 * PQconnectStart() and PQconnectPoll() on the socket's readiness;
 * once up, PQsetnonblocking(), a query sent with PQsendQueryParams()
 * and pushed with PQflush() on EV_WRITE until it returns 0; its answer
 * read with PQconsumeInput(), PQisBusy() and PQgetResult() until NULL.
 * The socket is read again with PQsocket() before every wait, since
 * libpq may change it.  A query has a deadline: an answer that never
 * comes (a partition, a server stopped) drops the connection.  The
 * result is handed to its callback at the loop's next step, so that the
 * callback may send the next query, drop the connection or free it.  A
 * lost connection is tried again after a delay that doubles from
 * PG_RETRY_MIN_MS to PG_RETRY_MAX_MS, each drawn at random between half
 * and all of it, so that workers do not come back all at once.
 *
 * Host names are resolved by libpq with getaddrinfo(3), which waits: a
 * worker's CONNINFO names a socket directory or a hostaddr (refd(8)).
 */
#include "config.h"

#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <libpq-fe.h>
#include <sodium.h>

#include "clock.h"
#include "log.h"
#include "pgconn.h"
#include "util.h"

#define PG_RETRY_MIN_MS		100
#define PG_RETRY_MAX_MS		5000
#define PG_CONNECT_MS		10000	/* to connect, at most */
#define PG_RTTS			512	/* round trips kept, for the p99 */

enum pg_state { PG_DOWN, PG_CONNECTING, PG_UP };

struct pgconn {
	struct event_base *base;
	char		*conninfo;
	PGconn		*c;
	enum pg_state	 state;
	struct event	*io;		/* on the socket, as last read */
	int		 fd;
	short		 what;
	struct event	*retry;		/* reconnect */
	struct event	*deadline;	/* the connection's or the query's */
	struct event	*deliver;	/* a result, a step late */
	int		 backoff_ms;
	/* the query under way */
	int		 busy;
	int		 flushing;
	int		 complete;	/* its answer is in: to deliver */
	PGresult	*res;
	char		 err[256];
	pgconn_cb	 cb;
	void		*cbarg;
	/* told when the connection comes up or goes down */
	void		(*updown)(void *, int, const char *);
	void		*arg;
	int64_t		 sent_us;	/* when the query under way was sent */
	int64_t		 rtt[PG_RTTS];	/* the last queries' round trips, us */
	long long	 nqueries;	/* queries answered */
	int64_t		 delay_max;	/* longest call into libpq, us */
	int64_t		 cpu_max;	/* and most CPU one took, us */
	int64_t		 own_max;	/* and most not waiting for a CPU */
};

static void	pg_io(evutil_socket_t, short, void *);
static void	pg_connect(struct pgconn *);

/* Watch the socket for what, read again from libpq. */
static int
pg_watch(struct pgconn *p, short what)
{
	int	 fd = PQsocket(p->c);

	if (fd < 0)
		return -1;
	if (p->io != NULL && fd == p->fd && what == p->what)
		return 0;
	if (p->io != NULL)
		event_free(p->io);
	p->fd = fd;
	p->what = what;
	if ((p->io = event_new(p->base, fd, what | EV_PERSIST, pg_io, p)) ==
	    NULL || event_add(p->io, NULL) == -1)
		return -1;
	return 0;
}

/* libpq's last error, on one line. */
static const char *
pg_error(struct pgconn *p, char *buf, size_t len)
{
	const char	*e = p->c != NULL ? PQerrorMessage(p->c) : "";

	util_printable(buf, len, e, strcspn(e, "\n"));
	if (buf[0] == '\0')
		snprintf(buf, len, "connection lost");
	return buf;
}

/* Hand the finished query to its callback at the next step. */
static void
pg_complete(struct pgconn *p)
{
	p->complete = 1;
	if (p->deadline != NULL)
		evtimer_del(p->deadline);
	event_active(p->deliver, EV_TIMEOUT, 1);
}

/*
 * The connection is lost (why): a query under way fails, and another
 * attempt is made after the backoff.
 */
static void
pg_down(struct pgconn *p, const char *why)
{
	struct timeval	 tv;
	uint32_t	 ms;
	int		 was = p->state;

	if (p->io != NULL) {
		event_free(p->io);
		p->io = NULL;
	}
	if (p->c != NULL) {
		PQfinish(p->c);
		p->c = NULL;
	}
	p->state = PG_DOWN;
	p->flushing = 0;
	if (p->deadline != NULL)
		evtimer_del(p->deadline);
	if (p->busy && !p->complete) {
		PQclear(p->res);
		p->res = NULL;
		snprintf(p->err, sizeof(p->err), "%s", why);
		pg_complete(p);
	}
	ms = p->backoff_ms / 2 + randombytes_uniform(p->backoff_ms / 2 + 1);
	if (p->backoff_ms < PG_RETRY_MAX_MS)
		p->backoff_ms = p->backoff_ms * 2 > PG_RETRY_MAX_MS ?
		    PG_RETRY_MAX_MS : p->backoff_ms * 2;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(p->retry, &tv);
	if (was == PG_UP)
		log_warnx("cluster: connection lost: %s", why);
	if (p->updown != NULL && was == PG_UP)
		p->updown(p->arg, 0, why);
}

/* Drop the connection (a protocol error above): it comes back later. */
void
pgconn_drop(struct pgconn *p, const char *why)
{
	if (p->state != PG_DOWN)
		pg_down(p, why);
}

/* The loop's thread's CPU time, in us. */
static int64_t
pg_cpu_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * Time how long a call into libpq took (what), since t0, cpu0 and the
 * run-queue delay rq0 (clock_runq_us()): it must never wait, nor work
 * long.  The wall time counts a busy machine's preemptions too; the
 * CPU time is libpq's own; the wall time less the time the thread
 * waited for a CPU is libpq's work and any wait inside it.
 */
static void
pg_timed(struct pgconn *p, int64_t t0, int64_t cpu0, int64_t rq0,
    const char *what)
{
	int64_t	 d = util_now_us() - t0, c = pg_cpu_us() - cpu0;
	int64_t	 rq = clock_runq_us(), own = d;

	if (rq0 != -1 && rq >= rq0)
		own -= rq - rq0;
	if (d > p->delay_max)
		p->delay_max = d;
	if (c > p->cpu_max)
		p->cpu_max = c;
	if (own > p->own_max)
		p->own_max = own;
	if (d > 5000)
		log_debug("cluster: %s took %lld us (%lld us of CPU)", what,
		    (long long)d, (long long)c);
}

/* libpq's notices, into refd's log rather than onto stderr. */
static void
pg_notice(void *arg, const char *msg)
{
	char	 buf[200];

	(void)arg;
	util_printable(buf, sizeof(buf), msg, strcspn(msg, "\n"));
	log_info("cluster: the server says: %s", buf);
}

/* Go on connecting: PQconnectPoll() says what to wait for. */
static void
pg_poll(struct pgconn *p)
{
	PostgresPollingStatusType r;
	char		 buf[256];
	int64_t		 t0 = util_now_us(), cpu0 = pg_cpu_us();
	int64_t		 rq0 = clock_runq_us();

	r = PQconnectPoll(p->c);
	pg_timed(p, t0, cpu0, rq0, "PQconnectPoll");
	switch (r) {
	case PGRES_POLLING_READING:
		if (pg_watch(p, EV_READ) == -1)
			pg_down(p, "no socket");
		return;
	case PGRES_POLLING_WRITING:
		if (pg_watch(p, EV_WRITE) == -1)
			pg_down(p, "no socket");
		return;
	case PGRES_POLLING_OK:
		if (PQsetnonblocking(p->c, 1) == -1) {
			pg_down(p, pg_error(p, buf, sizeof(buf)));
			return;
		}
		evtimer_del(p->deadline);
		PQsetNoticeProcessor(p->c, pg_notice, p);
		p->state = PG_UP;
		p->backoff_ms = PG_RETRY_MIN_MS;
		if (pg_watch(p, EV_READ) == -1) {
			pg_down(p, "no socket");
			return;
		}
		log_debug("cluster: connected");
		if (p->updown != NULL)
			p->updown(p->arg, 1, NULL);
		return;
	default:
		pg_down(p, pg_error(p, buf, sizeof(buf)));
		return;
	}
}

/* Read what the server sent; a query's end is handed over. */
static void
pg_read(struct pgconn *p)
{
	PGresult	*r;
	char		 buf[256];

	if (PQconsumeInput(p->c) == 0) {
		pg_down(p, pg_error(p, buf, sizeof(buf)));
		return;
	}
	if (!p->busy || p->complete || p->flushing) {
		if (PQstatus(p->c) == CONNECTION_BAD)
			pg_down(p, pg_error(p, buf, sizeof(buf)));
		return;
	}
	while (!PQisBusy(p->c)) {
		if ((r = PQgetResult(p->c)) == NULL) {
			pg_complete(p);
			return;
		}
		/* the last result is the answer; an error is kept as said */
		if (PQresultStatus(r) == PGRES_FATAL_ERROR &&
		    p->err[0] == '\0') {
			const char *e = PQresultErrorField(r,
			    PG_DIAG_MESSAGE_PRIMARY);

			if (e == NULL)
				e = PQresultErrorMessage(r);
			util_printable(p->err, sizeof(p->err), e, strlen(e));
		}
		PQclear(p->res);
		p->res = r;
	}
}

/* The socket is ready. */
static void
pg_io(evutil_socket_t fd, short what, void *arg)
{
	struct pgconn	*p = arg;
	int64_t		 t0 = util_now_us(), cpu0 = pg_cpu_us();
	int64_t		 rq0 = clock_runq_us();
	int		 r;

	(void)fd;
	if (p->state == PG_CONNECTING) {
		pg_poll(p);
		return;
	}
	if (p->state != PG_UP)
		return;
	if (p->flushing) {
		/* reading may be what lets the server take more */
		if ((what & EV_READ) && PQconsumeInput(p->c) == 0) {
			pg_down(p, "connection lost");
			return;
		}
		if ((r = PQflush(p->c)) == -1) {
			pg_down(p, "connection lost");
			return;
		}
		if (r == 0) {
			p->flushing = 0;
			what |= EV_READ;
		}
	}
	if (p->state == PG_UP && !p->flushing && (what & EV_READ))
		pg_read(p);
	pg_timed(p, t0, cpu0, rq0, "reading");
	if (p->state == PG_UP && pg_watch(p, p->flushing ? EV_READ | EV_WRITE :
	    EV_READ) == -1)
		pg_down(p, "no socket");
}

/* The connection took too long, or the query's answer did. */
static void
pg_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct pgconn	*p = arg;

	(void)fd;
	(void)what;
	pg_down(p, p->state == PG_CONNECTING ? "connecting timed out" :
	    "no answer in time");
}

/* Deliver a finished query: the connection is free again first. */
static void
pg_deliver(evutil_socket_t fd, short what, void *arg)
{
	struct pgconn	*p = arg;
	pgconn_cb	 cb = p->cb;
	void		*cbarg = p->cbarg;
	PGresult	*res = p->res;
	char		 err[256];

	(void)fd;
	(void)what;
	if (!p->busy || !p->complete)
		return;
	snprintf(err, sizeof(err), "%s", p->err);
	p->busy = p->complete = 0;
	p->res = NULL;
	p->err[0] = '\0';
	p->cb = NULL;
	if (err[0] == '\0')
		p->rtt[p->nqueries++ % PG_RTTS] = util_now_us() - p->sent_us;
	if (res != NULL && err[0] == '\0' &&
	    PQresultStatus(res) != PGRES_TUPLES_OK &&
	    PQresultStatus(res) != PGRES_COMMAND_OK)
		snprintf(err, sizeof(err), "%s", PQresStatus(
		    PQresultStatus(res)));
	if (res == NULL && err[0] == '\0')
		snprintf(err, sizeof(err), "no result");
	if (cb != NULL)
		cb(cbarg, err[0] == '\0' ? res : NULL, err[0] ? err : NULL);
	PQclear(res);
}

/* Start connecting. */
static void
pg_connect(struct pgconn *p)
{
	struct timeval	 tv = { PG_CONNECT_MS / 1000, 0 };
	char		 buf[256];
	int64_t		 t0 = util_now_us(), cpu0 = pg_cpu_us();
	int64_t		 rq0 = clock_runq_us();

	p->c = PQconnectStart(p->conninfo);
	pg_timed(p, t0, cpu0, rq0, "PQconnectStart");
	if (p->c == NULL) {
		pg_down(p, "out of memory");
		return;
	}
	if (PQstatus(p->c) == CONNECTION_BAD) {
		pg_down(p, pg_error(p, buf, sizeof(buf)));
		return;
	}
	p->state = PG_CONNECTING;
	evtimer_add(p->deadline, &tv);
	/* as if PQconnectPoll() had said PGRES_POLLING_WRITING */
	if (pg_watch(p, EV_WRITE) == -1)
		pg_down(p, "no socket");
}

/* The retry timer. */
static void
pg_retry(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	pg_connect(arg);
}

/*
 * A connection to conninfo, driven by base; updown(arg, up, why) hears
 * when it comes up and goes down.  It connects at once, in the loop.
 */
struct pgconn *
pgconn_new(struct event_base *base, const char *conninfo,
    void (*updown)(void *, int, const char *), void *arg)
{
	struct pgconn	*p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->base = base;
	p->updown = updown;
	p->arg = arg;
	p->fd = -1;
	p->backoff_ms = PG_RETRY_MIN_MS;
	if ((p->conninfo = strdup(conninfo)) == NULL ||
	    (p->retry = evtimer_new(base, pg_retry, p)) == NULL ||
	    (p->deadline = evtimer_new(base, pg_deadline, p)) == NULL ||
	    (p->deliver = event_new(base, -1, 0, pg_deliver, p)) == NULL) {
		pgconn_free(p);
		return NULL;
	}
	pg_connect(p);
	return p;
}

/* Close and free p; a query under way is never answered. */
void
pgconn_free(struct pgconn *p)
{
	if (p == NULL)
		return;
	if (p->io != NULL)
		event_free(p->io);
	if (p->retry != NULL)
		event_free(p->retry);
	if (p->deadline != NULL)
		event_free(p->deadline);
	if (p->deliver != NULL)
		event_free(p->deliver);
	if (p->c != NULL)
		PQfinish(p->c);
	PQclear(p->res);
	if (p->conninfo != NULL) {
		sodium_memzero(p->conninfo, strlen(p->conninfo));
		free(p->conninfo);
	}
	free(p);
}

/* Is p connected? */
int
pgconn_up(const struct pgconn *p)
{
	return p->state == PG_UP;
}

/* Is p connected, with no query under way? */
int
pgconn_idle(const struct pgconn *p)
{
	return p->state == PG_UP && !p->busy;
}

/*
 * The longest a call into libpq took, in us, the most CPU time one took
 * (*cpu), and the most one took not waiting for a CPU (*own): it must
 * never wait.
 */
int64_t
pgconn_delay_max(const struct pgconn *p, int64_t *cpu, int64_t *own)
{
	*cpu = p->cpu_max;
	*own = p->own_max;
	return p->delay_max;
}

/* Compare two round trips, for qsort(3). */
static int
pg_cmp(const void *a, const void *b)
{
	int64_t	 x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Queries answered so far, and the nearest-rank 99th percentile of the
 * round trips of the last PG_RTTS of them, in us (*p99).
 */
long long
pgconn_queries(const struct pgconn *p, int64_t *p99)
{
	int64_t	 v[PG_RTTS];
	int	 n = p->nqueries < PG_RTTS ? (int)p->nqueries : PG_RTTS;

	*p99 = 0;
	if (n > 0) {
		memcpy(v, p->rtt, n * sizeof(v[0]));
		qsort(v, n, sizeof(v[0]), pg_cmp);
		*p99 = v[(99 * n + 99) / 100 - 1];
	}
	return p->nqueries;
}

/*
 * Send sql with its n text parameters; cb(cbarg, result, why) hears of
 * its end at a later step, within timeout_ms or with a failure.
 * Returns 0, or -1 when p is not idle (nothing is sent, cb is never
 * called).
 */
int
pgconn_query(struct pgconn *p, const char *sql, int n,
    const char *const *vals, int timeout_ms, pgconn_cb cb, void *cbarg)
{
	struct timeval	 tv;
	char		 buf[256];
	int64_t		 t0 = util_now_us(), cpu0 = pg_cpu_us();
	int64_t		 rq0 = clock_runq_us();
	int		 r;

	if (!pgconn_idle(p))
		return -1;
	p->busy = 1;
	p->complete = 0;
	p->err[0] = '\0';
	p->sent_us = t0;
	p->cb = cb;
	p->cbarg = cbarg;
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	evtimer_add(p->deadline, &tv);
	if (PQsendQueryParams(p->c, sql, n, NULL, vals, NULL, NULL, 0) == 0) {
		pg_timed(p, t0, cpu0, rq0, "PQsendQueryParams");
		pg_down(p, pg_error(p, buf, sizeof(buf)));
		return 0;
	}
	r = PQflush(p->c);
	pg_timed(p, t0, cpu0, rq0, "sending");
	if (r == -1) {
		pg_down(p, pg_error(p, buf, sizeof(buf)));
		return 0;
	}
	p->flushing = r == 1;
	if (pg_watch(p, p->flushing ? EV_READ | EV_WRITE : EV_READ) == -1)
		pg_down(p, "no socket");
	return 0;
}
