/*
 * crowd: a crowd of spectators of refd's web site in one process, or a
 * flood of requests (scripts/bench web, tests/web.py).
 *
 * usage: crowd [-h] [-a host:port] [-n count] [-r file] [-t path] path ...
 *        crowd [-h] [-a host:port] -f rate:seconds [path]
 *
 * The first form opens count event streams (refd-http(7)), spread over
 * the paths in turn, and reads what refd sends and throws it away, as a
 * crowd of browsers does; at most CROWD_BATCH wait for their reply's
 * head at a time, within refd's listen backlog.  It prints "ready N"
 * once every stream has its head: N of them with 200, the others are
 * counted as refused.  Then, until its standard input ends or SIGTERM
 * or SIGINT:
 *  - -t path: one more stream, of path, whose events are printed as
 *    they are read, each on one line with the wall clock's time of its
 *    read, "event SECONDS DATA": the time from a play to its event; it
 *    is read first when the crowd's streams are ready too, so that the
 *    crowd's own backlog is not counted as refd's delay;
 *  - -r file: the chunks of the first stream of each path from "ready"
 *    on, one line each, "SECONDS PATHNO BYTES" (their HTTP chunk's
 *    size), which bench/fanout replays to find what the kernel alone
 *    costs.
 * It ends with one line:
 *	done streams=N refused=R closed=C bytes=B utime_us=U stime_us=S
 * (streams that had a 200, the refused, the streams refd closed, the
 * bytes read, and its own CPU time).
 *
 * The second form sends rate requests a second for seconds seconds, of
 * path (/api/v1/status by default), each on a connection of its own
 * opened at its due time (a timer every millisecond opens those due),
 * and once every one has its answer, or failed, or CROWD_FLOOD_MS
 * passed, prints
 *	flood sent=N answered=A refused=R errors=E reset=X seconds=T
 *	    p50_ms=P p99_ms=Q max_ms=M
 * on one line: answered is a 2xx, refused a 503, errors anything else
 * (a connection refused or reset, a close before the status line, a
 * time-out), reset those of the errors reset by refd; seconds from the
 * first connection to the last answer; the quantiles of each request's
 * time from its connection to the end of its answer.
 *
 * One libevent loop serves every connection: a benchmark's spectators
 * must not take the CPU the daemon they measure needs.  A tool, not a
 * test: an instrument that cannot go on exits rather than report.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "bconn.h"
#include "bench.h"

#define CROWD_BATCH	100	/* streams waiting for their head, at most */
#define CROWD_FLOOD_MS	60000	/* a flood's request gives up after it */
#define CROWD_HEADMAX	4096	/* a reply's head, parsed streams */
#define CROWD_LINEMAX	65536	/* an event's line, the timed stream */

enum crowd_kind {
	K_STREAM,		/* read and thrown away */
	K_TIMED,		/* -t: its events printed */
	K_FLOOD			/* one request of a flood */
};

/* Where a parsed stream is in its reply (HTTP/1.1, chunked). */
enum crowd_parse {
	P_HEAD,			/* the reply's head, to its empty line */
	P_SIZE,			/* a chunk's size line */
	P_DATA,			/* a chunk's bytes */
	P_CRLF,			/* the line end after them */
	P_END			/* the last chunk came */
};

/* One connection to refd. */
struct crowd_conn {
	enum crowd_kind	 kind;
	int		 fd;
	struct event	*ev;
	int		 pathno;	/* of the paths given */
	int		 connected;	/* its request is sent */
	int		 status;	/* the reply's, 0 until known */
	char		 first[16];	/* the reply's first bytes */
	size_t		 nfirst;
	double		 t0;		/* a flood's request: opened */
	int		 parse;		/* its chunks are parsed */
	int		 record;	/* its chunks are recorded (-r) */
	enum crowd_parse pstate;
	char		*head;		/* parsed streams: the head */
	size_t		 headlen;
	size_t		 left;		/* P_DATA: bytes left in the chunk */
	size_t		 size;		/* P_SIZE: the size so far */
	char		*line;		/* K_TIMED: the line so far */
	size_t		 linelen;
};

static struct event_base *base;
static struct sockaddr_in sin_refd;
static char	**paths;
static int	 npaths;
static const char *timed_path;		/* -t */
static FILE	*recf;			/* -r */
static int	 nstreams, opened, waiting, ready, refused, closed;
static int	 announced;		/* "ready" printed */
static uint64_t	 bytes_read;
static char	 rbuf[65536];

/* The flood's figures. */
static long	 flood_rate, flood_total, flood_sent, flood_done;
static long	 flood_answered, flood_refused, flood_errors, flood_reset;
static double	 flood_start, flood_last, *flood_ms;
static const char *flood_path = "/api/v1/status";
static struct event *flood_ev;

static void	 usage(int) __attribute__((noreturn));
static void	 die(const char *);
static double	 crowd_wall(void);
static void	 crowd_open(enum crowd_kind, int);
static void	 crowd_close(struct crowd_conn *, int);
static void	 crowd_event(evutil_socket_t, short, void *);
static void	 crowd_head_seen(struct crowd_conn *);
static void	 crowd_parse(struct crowd_conn *, const char *, size_t,
		    double);
static void	 crowd_data(struct crowd_conn *, const char *, size_t,
		    double);
static void	 crowd_more(void);
static void	 crowd_stop(evutil_socket_t, short, void *);
static void	 crowd_done(void);
static void	 flood_tick(evutil_socket_t, short, void *);
static void	 flood_finish(struct crowd_conn *, int);
static void	 flood_report(void);

/* Print usage, to stdout for -h and to stderr otherwise, and exit. */
static void
usage(int status)
{
	fprintf(status == 0 ? stdout : stderr,
	    "usage: crowd [-h] [-a host:port] [-n count] [-r file] "
	    "[-t path] path ...\n"
	    "       crowd [-h] [-a host:port] -f rate:seconds [path]\n"
	    "  -a host:port   refd's web site (default 127.0.0.1:8080)\n"
	    "  -n count       event streams, spread over the paths\n"
	    "  -r file        record the chunks of a stream of each path\n"
	    "  -t path        one more stream, its events printed, timed\n"
	    "  -f rate:secs   a flood: rate requests a second for secs\n");
	exit(status);
}

/* A system call failed where the crowd cannot go on. */
static void
die(const char *what)
{
	fprintf(stderr, "crowd: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Seconds on the wall clock: refd's log keeps its times on it. */
static double
crowd_wall(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Open one connection of the given kind, to the paths' pathno-th (a
 * stream) and send its request once connected.  A flood's connection
 * that cannot be opened is counted as an error.
 */
static void
crowd_open(enum crowd_kind kind, int pathno)
{
	struct crowd_conn *c;
	int		 one = 1;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		die("calloc");
	c->kind = kind;
	c->pathno = pathno;
	c->t0 = bench_now();
	if ((c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1) {
		if (kind != K_FLOOD)
			die("socket");
		free(c);
		flood_errors++;
		flood_done++;
		return;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (struct sockaddr *)&sin_refd, sizeof(sin_refd)) ==
	    -1 && errno != EINPROGRESS) {
		if (kind != K_FLOOD)
			die("connect");
		close(c->fd);
		free(c);
		flood_errors++;
		flood_done++;
		return;
	}
	if (kind == K_TIMED || (recf != NULL && kind == K_STREAM &&
	    pathno == opened)) {
		/* the first stream of each path is recorded */
		c->parse = 1;
		c->record = kind == K_STREAM;
		if ((c->head = malloc(CROWD_HEADMAX)) == NULL ||
		    (kind == K_TIMED && (c->line = malloc(CROWD_LINEMAX)) ==
		    NULL))
			die("malloc");
	}
	if ((c->ev = event_new(base, c->fd, EV_WRITE, crowd_event, c)) ==
	    NULL || event_add(c->ev, NULL) == -1)
		die("event_add");
	if (kind != K_FLOOD)
		waiting++;
}

/*
 * Close c: a stream refd ended (counted closed), or one that failed,
 * or a flood's request whose answer is whole.
 */
static void
crowd_close(struct crowd_conn *c, int err)
{
	event_free(c->ev);
	close(c->fd);
	if (c->kind == K_FLOOD)
		flood_finish(c, err);
	else if (c->status == 0) {
		/* closed before its head: refused without a word */
		waiting--;
		refused++;
		crowd_more();
	} else if (c->status == 200 && c->kind == K_STREAM)
		closed++;
	free(c->head);
	free(c->line);
	free(c);
}

/* c's head says its status: a stream is ready, or refused. */
static void
crowd_head_seen(struct crowd_conn *c)
{
	if (c->kind == K_FLOOD)
		return;
	waiting--;
	if (c->kind == K_TIMED) {
		if (c->status != 200) {
			fprintf(stderr, "crowd: %s: status %d\n", timed_path,
			    c->status);
			exit(1);
		}
	} else if (c->status == 200)
		ready++;
	else
		refused++;
	crowd_more();
}

/* Open streams while fewer than CROWD_BATCH wait; say when all have. */
static void
crowd_more(void)
{
	while (opened < nstreams && waiting < CROWD_BATCH) {
		crowd_open(K_STREAM, opened % npaths);
		opened++;
	}
	if (!announced && opened == nstreams && waiting == 0) {
		announced = 1;
		printf("ready %d\n", ready);
		fflush(stdout);
	}
}

/*
 * What a parsed stream read at time now: its head, then its chunks,
 * each recorded (-r) once every stream is ready, their bytes handed on.
 */
static void
crowd_parse(struct crowd_conn *c, const char *p, size_t n, double now)
{
	size_t	 k;
	char	 ch;

	while (n > 0) {
		switch (c->pstate) {
		case P_HEAD:
			if (c->headlen == CROWD_HEADMAX - 1) {
				fprintf(stderr, "crowd: a reply's head over "
				    "%d bytes\n", CROWD_HEADMAX);
				exit(1);
			}
			c->head[c->headlen++] = *p++;
			n--;
			c->head[c->headlen] = '\0';
			if (c->headlen < 4 || strcmp(c->head + c->headlen - 4,
			    "\r\n\r\n") != 0)
				break;
			if (strcasestr(c->head, "transfer-encoding: chunked") ==
			    NULL) {
				/* not chunked: refd's error, not a stream */
				c->pstate = P_END;
				break;
			}
			c->pstate = P_SIZE;
			break;
		case P_SIZE:
			ch = *p++;
			n--;
			if (ch == '\n') {
				if (c->size == 0) {
					c->pstate = P_END;
					break;
				}
				if (c->record && announced)
					fprintf(recf, "%.6f %d %zu\n", now,
					    c->pathno, c->size);
				c->left = c->size;
				c->size = 0;
				c->pstate = P_DATA;
			} else if (ch >= '0' && ch <= '9')
				c->size = c->size * 16 + (size_t)(ch - '0');
			else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
				c->size = c->size * 16 +
				    (size_t)((ch | 0x20) - 'a' + 10);
			break;
		case P_DATA:
			k = n < c->left ? n : c->left;
			crowd_data(c, p, k, now);
			p += k;
			n -= k;
			if ((c->left -= k) == 0)
				c->pstate = P_CRLF;
			break;
		case P_CRLF:
			if (*p == '\n')
				c->pstate = P_SIZE;
			p++;
			n--;
			break;
		case P_END:
			return;
		}
	}
}

/* The bytes of a parsed stream's chunks: a timed one's event lines. */
static void
crowd_data(struct crowd_conn *c, const char *p, size_t n, double now)
{
	size_t	 i;

	if (c->kind != K_TIMED)
		return;
	for (i = 0; i < n; i++) {
		if (p[i] != '\n') {
			if (c->linelen < CROWD_LINEMAX - 1)
				c->line[c->linelen++] = p[i];
			continue;
		}
		c->line[c->linelen] = '\0';
		if (strncmp(c->line, "data: ", 6) == 0)
			printf("event %.6f %s\n", now, c->line + 6);
		c->linelen = 0;
	}
	fflush(stdout);
}

/* A connection is writable (connected) or readable. */
static void
crowd_event(evutil_socket_t fd, short what, void *arg)
{
	struct crowd_conn *c = arg;
	char		 req[1024];
	const char	*path;
	socklen_t	 sl = sizeof(int);
	ssize_t		 r;
	int		 err = 0, len;

	if (!c->connected) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) == -1 ||
		    err != 0) {
			errno = err;
			if (c->kind != K_FLOOD)
				die("connect");
			crowd_close(c, 1);
			return;
		}
		if (c->kind == K_FLOOD)
			path = flood_path;
		else if (c->kind == K_TIMED)
			path = timed_path;
		else
			path = paths[c->pathno];
		len = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\n"
		    "Host: refd\r\nAccept: text/event-stream\r\n\r\n", path);
		if (len < 0 || (size_t)len >= sizeof(req) ||
		    send(fd, req, (size_t)len, MSG_NOSIGNAL) != len) {
			if (c->kind != K_FLOOD)
				die("send");
			crowd_close(c, 1);
			return;
		}
		c->connected = 1;
		event_free(c->ev);
		if ((c->ev = event_new(base, fd, EV_READ | EV_PERSIST,
		    crowd_event, c)) == NULL ||
		    event_priority_set(c->ev, c->kind == K_TIMED ? 0 : 1) ==
		    -1 || event_add(c->ev, NULL) == -1)
			die("event_add");
		return;
	}
	(void)what;
	r = recv(fd, rbuf, sizeof(rbuf), 0);
	if (r == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		if (r == -1 && errno == ECONNRESET && c->kind == K_FLOOD)
			flood_reset++;
		crowd_close(c, r == -1);
		return;
	}
	bytes_read += (uint64_t)r;
	if (c->status == 0) {
		len = (int)sizeof(c->first) - 1 - (int)c->nfirst;
		if (len > r)
			len = (int)r;
		memcpy(c->first + c->nfirst, rbuf, (size_t)len);
		c->nfirst += (size_t)len;
		c->first[c->nfirst] = '\0';
		if (c->nfirst >= 12) {
			c->status = strncmp(c->first, "HTTP/1.", 7) == 0 ?
			    atoi(c->first + 9) : -1;
			crowd_head_seen(c);
		}
	}
	if (c->parse)
		crowd_parse(c, rbuf, (size_t)r, crowd_wall());
}

/* Standard input ended, or SIGTERM or SIGINT: the crowd goes. */
static void
crowd_stop(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (fd == 0 && read(0, rbuf, sizeof(rbuf)) > 0)
		return;
	event_base_loopbreak(base);
}

/* The crowd's last line. */
static void
crowd_done(void)
{
	struct rusage	 ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("done streams=%d refused=%d closed=%d bytes=%llu "
	    "utime_us=%lld stime_us=%lld\n", ready, refused, closed,
	    (unsigned long long)bytes_read,
	    (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
	    (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	fflush(stdout);
}

/* Every millisecond: open the flood's connections due by now. */
static void
flood_tick(evutil_socket_t fd, short what, void *arg)
{
	long	 due;

	(void)fd;
	(void)what;
	(void)arg;
	due = (long)((bench_now() - flood_start) * (double)flood_rate) + 1;
	if (due > flood_total)
		due = flood_total;
	while (flood_sent < due) {
		flood_sent++;
		crowd_open(K_FLOOD, 0);
	}
	if (flood_sent == flood_total)
		event_del(flood_ev);
	if (flood_done == flood_total)
		event_base_loopbreak(base);
}

/* A flood's request ended: counted by its answer's status. */
static void
flood_finish(struct crowd_conn *c, int err)
{
	double	 now = bench_now();

	if (c->status >= 200 && c->status < 300)
		flood_answered++;
	else if (c->status == 503)
		flood_refused++;
	else
		flood_errors++;
	(void)err;
	flood_ms[flood_done++] = (now - c->t0) * 1000;
	flood_last = now;
	if (flood_done == flood_total && flood_sent == flood_total)
		event_base_loopbreak(base);
}

/* qsort's order of doubles. */
static int
cmp_double(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The flood's one line. */
static void
flood_report(void)
{
	long	 n = flood_done;

	qsort(flood_ms, (size_t)n, sizeof(*flood_ms), cmp_double);
	printf("flood sent=%ld answered=%ld refused=%ld errors=%ld reset=%ld "
	    "seconds=%.3f p50_ms=%.1f p99_ms=%.1f max_ms=%.1f\n",
	    flood_sent, flood_answered, flood_refused,
	    flood_errors + (flood_total - flood_done), flood_reset,
	    flood_last > 0 ? flood_last - flood_start : 0.0,
	    n > 0 ? flood_ms[n / 2] : 0.0,
	    n > 0 ? flood_ms[(long)(0.99 * (double)(n - 1))] : 0.0,
	    n > 0 ? flood_ms[n - 1] : 0.0);
	fflush(stdout);
}

int
main(int argc, char *argv[])
{
	struct event	*sigterm, *sigint, *in, *giveup;
	struct timeval	 ms = { 0, 1000 }, limit;
	const char	*timed = NULL, *colon;
	char		 rate[32];
	long		 secs = 0;
	int		 ch;

	bconn_address("crowd", "127.0.0.1:8080", &sin_refd);
	while ((ch = getopt(argc, argv, "a:f:hn:r:t:")) != -1) {
		switch (ch) {
		case 'a':
			if (bconn_address("crowd", optarg, &sin_refd) == -1)
				usage(2);
			break;
		case 'f':
			if ((colon = strchr(optarg, ':')) == NULL ||
			    (size_t)(colon - optarg) >= sizeof(rate))
				usage(2);
			memcpy(rate, optarg, colon - optarg);
			rate[colon - optarg] = '\0';
			flood_rate = bench_number("crowd", rate, "rate", 1,
			    1000000);
			secs = bench_number("crowd", colon + 1, "seconds", 1,
			    3600);
			break;
		case 'n':
			nstreams = (int)bench_number("crowd", optarg, "count",
			    0, 1000000);
			break;
		case 'r':
			if ((recf = fopen(optarg, "w")) == NULL)
				die(optarg);
			break;
		case 't':
			timed = optarg;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	paths = argv + optind;
	npaths = argc - optind;
	/* the timed stream is read before the crowd's: its time is refd's */
	if ((base = event_base_new()) == NULL ||
	    event_base_priority_init(base, 2) == -1)
		die("event_base_new");
	signal(SIGPIPE, SIG_IGN);
	if (flood_rate > 0) {
		if (npaths > 1 || nstreams > 0 || timed != NULL)
			usage(2);
		if (npaths == 1)
			flood_path = paths[0];
		flood_total = flood_rate * secs;
		if ((flood_ms = calloc((size_t)flood_total,
		    sizeof(*flood_ms))) == NULL)
			die("calloc");
		/* the requests still open then are errors */
		limit.tv_sec = secs + CROWD_FLOOD_MS / 1000;
		limit.tv_usec = 0;
		if ((flood_ev = event_new(base, -1, EV_PERSIST, flood_tick,
		    NULL)) == NULL || event_add(flood_ev, &ms) == -1 ||
		    (giveup = evtimer_new(base, crowd_stop, NULL)) == NULL ||
		    evtimer_add(giveup, &limit) == -1)
			die("event_add");
		flood_start = bench_now();
		flood_tick(-1, 0, NULL);
		event_base_dispatch(base);
		flood_report();
		return 0;
	}
	if (npaths == 0 && (nstreams > 0 || timed == NULL))
		usage(2);
	if ((sigterm = evsignal_new(base, SIGTERM, crowd_stop, NULL)) ==
	    NULL || event_add(sigterm, NULL) == -1 ||
	    (sigint = evsignal_new(base, SIGINT, crowd_stop, NULL)) == NULL ||
	    event_add(sigint, NULL) == -1)
		die("evsignal_new");
	/* a pipe or a terminal ends the crowd when it closes; a file cannot */
	if ((in = event_new(base, 0, EV_READ | EV_PERSIST, crowd_stop,
	    NULL)) == NULL)
		die("event_new");
	event_add(in, NULL);
	if ((timed_path = timed) != NULL)
		crowd_open(K_TIMED, -1);	/* not one of the crowd */
	crowd_more();
	event_base_dispatch(base);
	crowd_done();
	if (recf != NULL && fclose(recf) != 0)
		die("-r");
	return 0;
}
