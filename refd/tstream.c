/*
 * tstream.c: a tournament's event stream for the web site (tstream.h,
 * refd-http(7)).
 *
 * Tournaments are heard through the observers the control socket and
 * the tournaments themselves use: a match's end (match_observe()) and a
 * tournament's end (tourney_observe()).  Once someone has asked for a
 * tournament's events, each end of one of its matches, gathered for
 * TSTREAM_MS, makes the site read the tournament back from the log
 * (replay_tournament(), one read transaction, the JSON of
 * /api/v1/tournaments/ID) on a thread of its own, and, when its matches
 * done or its state changed, send that as an event to every client.
 * The standings of a large tournament take a tenth of a second and
 * more to read (their intervals are resampled): the loop, which runs
 * the matches' clocks, never waits for them, except for a tournament's
 * first read, which its first client waits for.  A read waits, after
 * the one before, TSTREAM_SHARE times what that one took: reads of a
 * large and busy tournament take at most a share of a core, however
 * many clients follow it.
 *
 * An event's id is D, the number of the tournament's matches done in
 * the log when its JSON was read, or D.k for the k-th further event read
 * at the same D (the tournament stopped, or ended, without another match
 * done).  D never goes down, so the ids of a tournament's events are in
 * the order they were sent, in this refd and in any after it that reads
 * the same log.  A client that comes back with Last-Event-ID gets every
 * kept event after it, in order, and nothing it had; one that comes
 * without gets the latest event, which holds the whole state.  Each
 * event is the whole state, not a change: an event a client missed only
 * tells it what a later one tells it too.  The events and their clients
 * are kept by sse.c, as a match's are.
 */
#include "config.h"

#include <sys/queue.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/http.h>

#include "refd.h"
#include "http.h"
#include "log.h"
#include "match.h"
#include "replay.h"
#include "sse.h"
#include "tdef.h"
#include "tourney.h"
#include "tstream.h"
#include "util.h"

#define TSTREAM_KEEP	16	/* tournaments whose events are kept */
#define TSTREAM_BYTES	(1024 * 1024) /* of one tournament's events kept:
				   the oldest go first, never the last */
#define TSTREAM_MS	100	/* matches' ends gathered into one read */
#define TSTREAM_SHARE	10	/* a read waits that many times as long as
				   the one before took */

/* One read of a tournament from the log, here or on a thread. */
struct tstream_job {
	TAILQ_ENTRY(tstream_job) entry;	/* every read under way */
	pthread_t	 thread;
	int64_t		 id;		/* the tournament */
	char		 path[4096];	/* the log */
	char		*buf;		/* its JSON */
	size_t		 len;
	struct replay_tinfo ti;		/* what it was read at */
	int		 code;		/* 0, or an HTTP status: */
	char		 err[256];	/* and why */
	int64_t		 began_us, cost_us;
};

/* What the site keeps of one tournament: the events it sent. */
struct tstream {
	TAILQ_ENTRY(tstream) entry;	/* the latest asked for first */
	int64_t		 id;
	struct event	*timer;		/* tstream_read_due(): a read is due */
	int64_t		 read_us;	/* when the last read began */
	int64_t		 cost_us;	/* and what it took */
	struct tstream_job *job;	/* the read under way, or NULL */
	int		 again;		/* a match ended during it */
	int		 over;		/* done or cancelled: its last event
					   is sent, its streams ended */
	char		 state[32];	/* as its last event read it */
	struct sse	*kept;		/* its events and their clients */
};

static TAILQ_HEAD(tstream_list, tstream) tstreams =
			    TAILQ_HEAD_INITIALIZER(tstreams);
static int		 ntstreams;
static TAILQ_HEAD(, tstream_job) jobs = TAILQ_HEAD_INITIALIZER(jobs);
static int		 job_pipe[2] = { -1, -1 };
static struct event	*job_ev;	/* tstream_job_done() */
static int		 tstream_on;	/* between start and stop */

static void	tstream_read_due(evutil_socket_t, short, void *);
static void	tstream_soon(int64_t);

/* The kept stream of tournament id, or NULL. */
static struct tstream *
tstream_find(int64_t id)
{
	struct tstream	*ts;

	TAILQ_FOREACH(ts, &tstreams, entry)
		if (ts->id == id)
			return ts;
	return NULL;
}

/* Let go of a kept stream, its clients ended. */
static void
tstream_forget(struct tstream *ts)
{
	TAILQ_REMOVE(&tstreams, ts, entry);
	ntstreams--;
	event_free(ts->timer);
	sse_free(ts->kept);
	free(ts);
}

/*
 * A new kept stream for tournament id, the latest asked for; past
 * TSTREAM_KEEP, the one asked for least lately that no client follows
 * goes.  NULL when out of memory.
 */
static struct tstream *
tstream_new(int64_t id)
{
	struct tstream	*ts, *old;

	TAILQ_FOREACH_REVERSE(old, &tstreams, tstream_list, entry)
		if (ntstreams >= TSTREAM_KEEP && sse_clients(old->kept) == 0) {
			tstream_forget(old);
			break;
		}
	if ((ts = calloc(1, sizeof(*ts))) == NULL)
		return NULL;
	if ((ts->timer = evtimer_new(base, tstream_read_due, ts)) == NULL) {
		free(ts);
		return NULL;
	}
	if ((ts->kept = sse_new(TSTREAM_BYTES)) == NULL) {
		event_free(ts->timer);
		free(ts);
		return NULL;
	}
	ts->id = id;
	TAILQ_INSERT_HEAD(&tstreams, ts, entry);
	ntstreams++;
	return ts;
}

/* Read job's tournament back from the log, on any thread. */
static void
tstream_job_read(struct tstream_job *j)
{
	FILE	*f;

	j->began_us = util_now_us();
	if ((f = open_memstream(&j->buf, &j->len)) == NULL) {
		snprintf(j->err, sizeof(j->err), "out of memory");
		j->code = 503;
		return;
	}
	j->code = replay_tournament(f, j->path, j->id, &j->ti, j->err,
	    sizeof(j->err));
	if (fclose(f) != 0 && j->code == 0) {
		snprintf(j->err, sizeof(j->err), "out of memory");
		j->code = 503;
	}
	j->cost_us = util_now_us() - j->began_us;
}

/*
 * What a read of ts found: if its matches done or its state changed
 * since its last event, a new event to every client; once it is over
 * for good, its clients' streams end.  Returns 0, or an HTTP status with
 * the reason in err.
 */
static int
tstream_apply(struct tstream *ts, struct tstream_job *j, char *err,
    size_t errlen)
{
	int	 code = j->code;

	ts->read_us = j->began_us;
	ts->cost_us = j->cost_us;
	if (code != 0)
		snprintf(err, errlen, "%s", j->err);
	if (code == 0 && (sse_last(ts->kept) == -1 || j->ti.done !=
	    sse_last(ts->kept) || strcmp(j->ti.state, ts->state) != 0)) {
		if (sse_emit(ts->kept, j->ti.done, j->buf, j->len) == -1) {
			snprintf(err, errlen, "out of memory");
			code = 503;
		} else {
			sse_flush(ts->kept);
			snprintf(ts->state, sizeof(ts->state), "%s",
			    j->ti.state);
		}
	}
	if (code == 0 && tdef_over(ts->state)) {
		ts->over = 1;
		sse_close(ts->kept);
	}
	return code;
}

/* Let go of a finished read. */
static void
tstream_job_free(struct tstream_job *j)
{
	free(j->buf);
	free(j);
}

/* A read for tournament id, not begun; NULL when out of memory. */
static struct tstream_job *
tstream_job_new(int64_t id)
{
	struct tstream_job *j;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		return NULL;
	j->id = id;
	snprintf(j->path, sizeof(j->path), "%s", conf.db_path);
	return j;
}

/*
 * Read ts's tournament here, the loop waiting: its first read, which its
 * first client waits for.  Returns as tstream_apply().
 */
static int
tstream_read(struct tstream *ts, char *err, size_t errlen)
{
	struct tstream_job *j;
	int		 code;

	if ((j = tstream_job_new(ts->id)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return 503;
	}
	tstream_job_read(j);
	code = tstream_apply(ts, j, err, errlen);
	tstream_job_free(j);
	return code;
}

/* A read's thread: the read, then the job down the pipe to the loop. */
static void *
tstream_job_run(void *arg)
{
	struct tstream_job *j = arg;
	ssize_t		 n;

	tstream_job_read(j);
	/* a pointer is less than PIPE_BUF: written whole or not at all */
	do
		n = write(job_pipe[1], &j, sizeof(j));
	while (n == -1 && errno == EINTR);
	return NULL;
}

/* Reads are done: what they found to their tournaments' clients. */
static void
tstream_job_done(evutil_socket_t fd, short what, void *arg)
{
	struct tstream_job *j;
	struct tstream	*ts;
	char		 err[256];

	(void)what;
	(void)arg;
	while (read(fd, &j, sizeof(j)) == (ssize_t)sizeof(j)) {
		pthread_join(j->thread, NULL);
		TAILQ_REMOVE(&jobs, j, entry);
		/* its stream may have gone meanwhile, or come again */
		if ((ts = tstream_find(j->id)) != NULL && ts->job == j) {
			ts->job = NULL;
			if (tstream_apply(ts, j, err, sizeof(err)) != 0)
				log_warnx("site: tournament %lld: %s",
				    (long long)ts->id, err);
			if (ts->again) {
				ts->again = 0;
				tstream_soon(ts->id);
			}
		}
		tstream_job_free(j);
	}
}

/*
 * Start a read of ts on a thread of its own, so that a large
 * tournament's standings never hold the loop and the matches' clocks
 * it runs; a read under way is followed by another when it is done.
 */
static void
tstream_read_start(struct tstream *ts)
{
	struct tstream_job *j;
	int		 e;

	if (ts->job != NULL) {
		ts->again = 1;
		return;
	}
	if ((j = tstream_job_new(ts->id)) == NULL) {
		log_warnx("site: tournament %lld: out of memory",
		    (long long)ts->id);
		return;
	}
	if ((e = util_thread(&j->thread, tstream_job_run, j)) != 0) {
		log_warnx("site: tournament %lld: thread: %s",
		    (long long)ts->id, strerror(e));
		tstream_job_free(j);
		return;
	}
	TAILQ_INSERT_TAIL(&jobs, j, entry);
	ts->job = j;
}

/* A read of ts is due: a match of it ended. */
static void
tstream_read_due(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	tstream_read_start(arg);
}

/*
 * Read tournament id soon, if someone asked for its events: in
 * TSTREAM_MS, for the ends of a busy tournament's matches to make one
 * read, and no sooner after the last read than TSTREAM_SHARE times
 * what it took.
 */
static void
tstream_soon(int64_t id)
{
	struct tstream	*ts;
	struct timeval	 tv;
	int64_t		 wait;

	if (!tstream_on || (ts = tstream_find(id)) == NULL || ts->over ||
	    evtimer_pending(ts->timer, NULL))
		return;
	wait = TSTREAM_SHARE * ts->cost_us - (util_now_us() - ts->read_us);
	if (wait < TSTREAM_MS * 1000)
		wait = TSTREAM_MS * 1000;
	tv.tv_sec = (time_t)(wait / 1000000);
	tv.tv_usec = (suseconds_t)(wait % 1000000);
	evtimer_add(ts->timer, &tv);
}

/* A match ended, its end logged (match_observe()). */
static void
tstream_match_done(struct match *m)
{
	if (m->conf.tournament > 0)
		tstream_soon(m->conf.tournament);
}

/* A tournament ended, its state logged (tourney_observe()). */
static void
tstream_tourney_done(int64_t id, const char *state, const char *reason)
{
	(void)state;
	(void)reason;
	tstream_soon(id);
}

/*
 * GET /api/v1/tournaments/ID/events: the latest event, or every one
 * after Last-Event-ID, then each as it comes; the stream ends with the
 * tournament.  A client of a tournament over and with every event has
 * 204, which tells EventSource not to come back.
 */
void
tstream_events(struct evhttp_request *req, int64_t id, const char *last)
{
	struct tstream	*ts;
	long long	 done = -1;
	char		 err[256];
	size_t		 from;
	int		 sub = 0, code;

	if (last != NULL && sse_id_parse(last, &done, &sub) == -1) {
		http_error(req, 400, "Last-Event-ID: not an event id");
		return;
	}
	if ((ts = tstream_find(id)) == NULL) {
		if ((ts = tstream_new(id)) == NULL) {
			http_error(req, 503, "out of memory");
			return;
		}
		if ((code = tstream_read(ts, err, sizeof(err))) != 0) {
			tstream_forget(ts);
			http_error(req, code, err);
			return;
		}
	} else if (ts != TAILQ_FIRST(&tstreams)) {
		TAILQ_REMOVE(&tstreams, ts, entry);
		TAILQ_INSERT_HEAD(&tstreams, ts, entry);
	}
	from = last == NULL ? sse_latest(ts->kept) : sse_after(ts->kept, done,
	    sub);
	if (ts->over && from == sse_end(ts->kept)) {
		http_reply(req, 204, "text/event-stream", "", 0);
		return;
	}
	(void)sse_open(ts->kept, req, from);
}

/*
 * Hear of matches' and tournaments' ends from now on.  Returns 0, or -1
 * when out of descriptors or memory, or with too many observers.
 */
int
tstream_start(void)
{
	if (pipe2(job_pipe, O_CLOEXEC | O_NONBLOCK) == -1)
		return -1;
	if ((job_ev = event_new(base, job_pipe[0], EV_READ | EV_PERSIST,
	    tstream_job_done, NULL)) == NULL || event_add(job_ev, NULL) == -1 ||
	    match_observe(NULL, tstream_match_done) == -1 ||
	    tourney_observe(tstream_tourney_done) == -1)
		return -1;
	tstream_on = 1;
	return 0;
}

/*
 * Let go of every kept stream, http_close() having ended their clients,
 * once every read under way is done.
 */
void
tstream_stop(void)
{
	struct tstream	*ts;
	struct tstream_job *j;

	tstream_on = 0;
	while ((j = TAILQ_FIRST(&jobs)) != NULL) {
		TAILQ_REMOVE(&jobs, j, entry);
		pthread_join(j->thread, NULL);
		tstream_job_free(j);
	}
	if (job_ev != NULL)
		event_free(job_ev);
	job_ev = NULL;
	if (job_pipe[0] != -1) {
		close(job_pipe[0]);
		close(job_pipe[1]);
		job_pipe[0] = job_pipe[1] = -1;
	}
	while ((ts = TAILQ_FIRST(&tstreams)) != NULL)
		tstream_forget(ts);
}
