/*
 * thinkbot: many remote bots in one process that think for a known time,
 * for the clock benchmark (bench/clock.py).
 *
 * usage: thinkbot [-hr] [-a host:port] [-s seed] name:token:count ...
 *
 * For each argument, opens count connections to refd's bot listener and
 * authenticates each as bot name with token (refd-protocol(7), REMOTE
 * BOTS).  Every notification is answered at once.  A genplay is
 * answered after a planned think time, a random 20-90 % of the ms it
 * gives, with a card of the hand it lists: a timer fires at the planned
 * moment, so no bot sleeps and one epoll loop serves them all.  Answers
 * go in the order of the commands: what comes after a genplay waits
 * until the genplay is answered.
 *
 * Each bot keeps, per genplay, on CLOCK_MONOTONIC (refd's clock too)
 * in microseconds: when it took the command up, when its answer's write
 * returned, and what it planned.  Thinking is the span between the first
 * two.  Why C and one loop: bots in Python measured their own backlog
 * (commands that waited for the bots' processes to be scheduled, sleeps
 * that overran), not refd.
 *
 * With -r it runs under SCHED_FIFO, so that no other process of the
 * machine delays a bot's reading or its timer; it spends little CPU and
 * never spins.  Without it, on a busy machine, a bot process that is
 * not scheduled for a few milliseconds makes honest bots late.
 *
 * Prints "ready N" once N connections are authenticated.  SIGUSR1 prints
 * "stats genplay=G closed=C" and goes on.  When standard input ends, or
 * on SIGTERM or SIGINT, prints one line per genplay answered:
 *	move PORT ID MATCH SEAT DEAL CARD READ WROTE PLANNED
 * (the bot's local TCP port, which refd logs as its peer, the command's
 * id, the match, seat and deal of match_start and deal_start, the card
 * answered, and the three moments above, in microseconds), then
 *	done conns=N genplay=G closed=C utime_us=U stime_us=S
 * A benchmark tool, not a test: make check never runs it.
 */
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bconn.h"
#include "bench.h"

#define MAXEVENTS	256
#define CONNECT_BATCH	100	/* connections authenticated at a time */
#define MAXWORDS	64	/* match_start has a dozen keys and more */
#define CARDLEN		4	/* "10D" and its NUL */

enum conn_state { C_AUTH, C_READY, C_THINKING, C_CLOSED };

/* One bot connection. */
struct conn {
	struct bconn	 b;		/* first: epoll's data is the conn */
	enum conn_state	 state;
	int		 port;		/* local port: refd's name for it */
	long		 match, seat, deal; /* of the last match_start */
	/* the genplay being thought about (C_THINKING) */
	unsigned long	 id;		/* its command id */
	char		 card[CARDLEN];	/* the card it will answer */
	int64_t		 read_us;	/* when it was taken up */
	int64_t		 due_us;	/* when the thinking ends */
	int		 heapidx;	/* its place in the timer heap */
};

/* One genplay answered: what bench/clock.py takes apart. */
struct move {
	int		 port;
	unsigned long	 id;
	long		 match, seat, deal;
	char		 card[CARDLEN];
	int64_t		 read_us, wrote_us, planned_us;
};

static struct conn	*conns;
static int		 nconns, nready, nclosed, ep, tfd;
static struct conn	**heap;		/* thinking bots, earliest due first */
static int		 nheap;
static int64_t		 armed_us;	/* the timer's moment, 0: none */
static struct move	*moves;
static size_t		 nmoves, capmoves;
static uint64_t		 rng = 0x9e3779b97f4a7c15ULL;
static volatile sig_atomic_t stop, report;
static sigset_t		 waitmask;	/* the signal mask inside a wait */

static void	 usage(int) __attribute__((noreturn));
static void	 die(const char *);
static void	 on_signal(int);
static int64_t	 now_us(void);
static uint64_t	 next_random(void);
static void	 heap_swap(int, int);
static void	 heap_up(int);
static void	 heap_down(int);
static void	 heap_remove(struct conn *);
static void	 timer_arm(void);
static void	 conn_flush(struct conn *);
static void	 conn_close(struct conn *);
static void	 conn_think(struct conn *, char **, int);
static void	 conn_answer(struct conn *);
static void	 conn_line(struct conn *, char *);
static void	 conn_lines(struct conn *);
static void	 conn_read(struct conn *);
static void	 loop_once(int);
static void	 stats(const char *);
static void	 dump(void);

/* Print usage, to stdout for -h and to stderr otherwise, and exit. */
static void
usage(int status)
{
	fprintf(status == 0 ? stdout : stderr,
	    "usage: thinkbot [-hr] [-a host:port] [-s seed] "
	    "name:token:count ...\n"
	    "  -a host:port  refd's bot listener (default 127.0.0.1:7070)\n"
	    "  -r            run under SCHED_FIFO, priority 1\n"
	    "  -s seed       seed of the think times and card choices\n");
	exit(status);
}

/* A system call failed where the run cannot go on. */
static void
die(const char *what)
{
	fprintf(stderr, "thinkbot: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* SIGTERM and SIGINT stop the loop; SIGUSR1 asks for the counts. */
static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stop = 1;
}

/* Microseconds on CLOCK_MONOTONIC, the clock refd's -vv lines use. */
static int64_t
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* xorshift64: seeded, so that a run's think times can be had again. */
static uint64_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Exchange two places of the heap, keeping each bot's index true. */
static void
heap_swap(int i, int j)
{
	struct conn	*t = heap[i];

	heap[i] = heap[j];
	heap[j] = t;
	heap[i]->heapidx = i;
	heap[j]->heapidx = j;
}

/* Move place i up while it is due before its parent. */
static void
heap_up(int i)
{
	while (i > 0 && heap[i]->due_us < heap[(i - 1) / 2]->due_us) {
		heap_swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* Move place i down while a child is due before it. */
static void
heap_down(int i)
{
	int	 l, m;

	for (;;) {
		m = i;
		l = 2 * i + 1;
		if (l < nheap && heap[l]->due_us < heap[m]->due_us)
			m = l;
		if (l + 1 < nheap && heap[l + 1]->due_us < heap[m]->due_us)
			m = l + 1;
		if (m == i)
			return;
		heap_swap(i, m);
		i = m;
	}
}

/* Take a bot off the heap: it answered, or refd closed it. */
static void
heap_remove(struct conn *c)
{
	int	 i = c->heapidx;

	if (i < 0)
		return;
	c->heapidx = -1;
	if (i != --nheap) {
		heap[i] = heap[nheap];
		heap[i]->heapidx = i;
		heap_up(i);
		heap_down(heap[i]->heapidx);
	}
}

/*
 * Arm the timer for the earliest bot's end of thinking, on the absolute
 * monotonic clock, to the nanosecond: epoll's millisecond timeout would
 * make every bot think up to a millisecond longer than it planned.
 */
static void
timer_arm(void)
{
	struct itimerspec	 its;

	if ((nheap > 0 ? heap[0]->due_us : 0) == armed_us)
		return;		/* armed already, or idle already */
	armed_us = nheap > 0 ? heap[0]->due_us : 0;
	memset(&its, 0, sizeof(its));
	if (nheap > 0) {
		its.it_value.tv_sec = heap[0]->due_us / 1000000;
		its.it_value.tv_nsec = heap[0]->due_us % 1000000 * 1000;
		if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
			its.it_value.tv_nsec = 1;	/* 0 would disarm */
	}
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) == -1)
		die("timerfd_settime");
}

/* Write what is queued; on an error refd is gone. */
static void
conn_flush(struct conn *c)
{
	if (bconn_flush(&c->b, ep, c) == -1)
		conn_close(c);
}

/* refd closed the connection, or it failed: count it and let it go. */
static void
conn_close(struct conn *c)
{
	if (c->state == C_CLOSED)
		return;
	heap_remove(c);
	epoll_ctl(ep, EPOLL_CTL_DEL, c->b.fd, NULL);
	close(c->b.fd);
	c->state = C_CLOSED;
	nclosed++;
}

/*
 * A genplay "ID genplay MS CARD ...": plan a think time of 20-90 % of
 * MS, pick the card now, and put the bot on the timer heap.
 */
static void
conn_think(struct conn *c, char **w, int n)
{
	char	*end;
	long	 ms;
	double	 frac;

	errno = 0;
	ms = strtol(w[2], &end, 10);
	if (*end != '\0' || errno != 0 || ms < 1 || ms > 3600 * 1000 ||
	    strlen(w[3]) >= CARDLEN) {
		fprintf(stderr, "thinkbot: a genplay it cannot read: %s %s "
		    "%s\n", w[1], w[2], w[3]);
		exit(1);
	}
	c->read_us = now_us();
	c->id = strtoul(w[0], NULL, 10);
	frac = 0.2 + 0.7 * (double)(next_random() >> 11) / 9007199254740992.0;
	c->due_us = c->read_us + (int64_t)(frac * (double)ms * 1000.0);
	snprintf(c->card, sizeof(c->card), "%s",
	    w[3 + (int)(next_random() % (uint64_t)(n - 3))]);
	c->state = C_THINKING;
	if (nheap == nconns) {
		fprintf(stderr, "thinkbot: more thinking than bots\n");
		exit(1);
	}
	heap[nheap] = c;
	c->heapidx = nheap++;
	heap_up(c->heapidx);
}

/* The bot's thinking is over: write its card and keep the moments. */
static void
conn_answer(struct conn *c)
{
	struct move	*m;
	char		 buf[64];
	int64_t		 wrote;
	int		 len;

	heap_remove(c);
	c->state = C_READY;
	len = snprintf(buf, sizeof(buf), "=%lu %s\n\n", c->id, c->card);
	bconn_add(&c->b, buf, (size_t)len);
	conn_flush(c);
	wrote = now_us();
	if (nmoves == capmoves) {
		capmoves = capmoves ? capmoves * 2 : 4096;
		if ((moves = reallocarray(moves, capmoves, sizeof(*moves))) ==
		    NULL)
			die("reallocarray");
	}
	m = &moves[nmoves++];
	m->wrote_us = wrote;
	m->port = c->port;
	m->id = c->id;
	m->match = c->match;
	m->seat = c->seat;
	m->deal = c->deal;
	memcpy(m->card, c->card, sizeof(m->card));
	m->read_us = c->read_us;
	m->planned_us = c->due_us - c->read_us;
	/* what came after the genplay waited for its answer */
	if (c->state == C_READY)
		conn_lines(c);
}

/* One line from refd: the answer to auth, or a command to take up. */
static void
conn_line(struct conn *c, char *line)
{
	char	 buf[64], *w[MAXWORDS], *p = line, *q;
	int	 i, n, len;

	if (c->state == C_AUTH) {
		if (line[0] == '=') {
			c->state = C_READY;
			nready++;
		} else if (line[0] == '?') {
			fprintf(stderr, "thinkbot: authentication refused: "
			    "%s\n", line);
			exit(1);
		}
		return;		/* the empty line after it */
	}
	if ((q = strchr(line, '#')) != NULL) {
		*q = '\0';	/* a comment: genplay's trick */
		while (q > line && q[-1] == ' ')
			*--q = '\0';
	}
	if (line[0] == '\0')
		return;
	for (n = 0; n < MAXWORDS && (w[n] = strsep(&p, " ")) != NULL; n++)
		;
	if (n >= 4 && strcmp(w[1], "genplay") == 0) {
		conn_think(c, w, n);
		return;
	}
	if (n >= 2 && strcmp(w[1], "match_start") == 0) {
		c->match = c->seat = c->deal = 0;
		for (i = 2; i < n; i++) {
			if (strncmp(w[i], "match=", 6) == 0)
				c->match = strtol(w[i] + 6, NULL, 10);
			else if (strncmp(w[i], "seat=", 5) == 0)
				c->seat = strtol(w[i] + 5, NULL, 10);
		}
	} else if (n >= 3 && strcmp(w[1], "deal_start") == 0)
		c->deal = strtol(w[2], NULL, 10);
	if (n >= 2 && strcmp(w[1], "name") == 0)
		len = snprintf(buf, sizeof(buf), "=%s thinkbot\n\n", w[0]);
	else
		len = snprintf(buf, sizeof(buf), "=%s\n\n", w[0]);
	if (len > 0 && (size_t)len < sizeof(buf))
		bconn_add(&c->b, buf, (size_t)len);
}

/*
 * Take up the whole lines read, in order, until one is a genplay: the
 * lines after it wait in the buffer for its answer.  Then write.
 */
static void
conn_lines(struct conn *c)
{
	struct bconn	*b = &c->b;
	char		*nl;
	size_t		 used = 0;

	while (c->state != C_THINKING && c->state != C_CLOSED &&
	    (nl = memchr(b->in + used, '\n', b->inlen - used)) != NULL) {
		*nl = '\0';
		conn_line(c, b->in + used);
		used = (size_t)(nl - b->in) + 1;
	}
	memmove(b->in, b->in + used, b->inlen - used);
	b->inlen -= used;
	if (c->state != C_CLOSED)
		conn_flush(c);
}

/* Read what refd sent and take up what can be. */
static void
conn_read(struct conn *c)
{
	int	 r;

	/* a full buffer: a line too long, or too much during a genplay */
	if ((r = bconn_read(&c->b)) <= 0) {
		if (r == -1)
			conn_close(c);
		return;
	}
	if (c->state != C_THINKING)
		conn_lines(c);
}

/* Wait for events once, at most ms milliseconds, and serve them. */
static void
loop_once(int ms)
{
	struct epoll_event	 ev[MAXEVENTS];
	struct conn		*c;
	char			 b[256];
	uint64_t		 ticks;
	int64_t			 t;
	int			 i, n, fired = 0;

	/* signals arrive only here, so none is missed before a wait */
	n = epoll_pwait(ep, ev, MAXEVENTS, ms, &waitmask);
	if (n < 0 && errno != EINTR)
		die("epoll_wait");
	for (i = 0; i < n; i++) {
		c = ev[i].data.ptr;
		if (c == NULL) {		/* standard input */
			if (read(0, b, sizeof(b)) <= 0)
				stop = 1;
			continue;
		}
		if (c == (struct conn *)&tfd) {	/* the timer */
			if (read(tfd, &ticks, sizeof(ticks)) < 0 &&
			    errno != EAGAIN)
				die("read timerfd");
			fired = 1;
			continue;
		}
		if (c->state == C_CLOSED)
			continue;
		if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			conn_read(c);
		if (c->state != C_CLOSED && (ev[i].events & EPOLLOUT))
			conn_flush(c);
	}
	/* every bot whose thinking is over answers, the earliest first */
	if (fired)
		armed_us = 0;	/* it fired, so it is disarmed */
	if (nheap > 0) {
		t = now_us();
		while (nheap > 0 && heap[0]->due_us <= t)
			conn_answer(heap[0]);
	}
	timer_arm();
}

/* Print the counts on one line, with this process's CPU time. */
static void
stats(const char *tag)
{
	struct rusage	 ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("%s conns=%d genplay=%zu closed=%d utime_us=%lld "
	    "stime_us=%lld\n", tag, nconns, nmoves, nclosed,
	    (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
	    (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	fflush(stdout);
}

/* Every genplay answered, one line each (see the top of the file). */
static void
dump(void)
{
	const struct move	*m;
	size_t			 i;

	for (i = 0; i < nmoves; i++) {
		m = &moves[i];
		printf("move %d %lu %ld %ld %ld %s %lld %lld %lld\n",
		    m->port, m->id, m->match, m->seat, m->deal, m->card,
		    (long long)m->read_us, (long long)m->wrote_us,
		    (long long)m->planned_us);
	}
}

/* Connect and authenticate every bot, then serve until told to stop. */
int
main(int argc, char *argv[])
{
	struct sockaddr_in	 sin, local;
	struct epoll_event	 ev;
	struct sched_param	 sp;
	socklen_t		 slen;
	char			 line[256];
	size_t			 len;
	int			 ch, i, k, total;
	int			 rt = 0;

	bconn_address("thinkbot", "127.0.0.1:7070", &sin);
	while ((ch = getopt(argc, argv, "a:hrs:")) != -1) {
		switch (ch) {
		case 'a':
			if (bconn_address("thinkbot", optarg, &sin) == -1)
				usage(2);
			break;
		case 'r':
			rt = 1;
			break;
		case 's':
			rng = (uint64_t)bench_number("thinkbot",
			    optarg, "seed", 1, LONG_MAX);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind == argc || (total = bconn_total("thinkbot", argc - optind,
	    argv + optind, 100000)) == -1)
		usage(2);
	bconn_signals(on_signal, &waitmask);
	if (rt) {
		memset(&sp, 0, sizeof(sp));
		sp.sched_priority = 1;
		if (sched_setscheduler(0, SCHED_FIFO, &sp) == -1)
			die("sched_setscheduler SCHED_FIFO");
	}
	/* the timer fires when asked, not up to 50 us later */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if ((conns = calloc(total, sizeof(*conns))) == NULL ||
	    (heap = calloc(total, sizeof(*heap))) == NULL)
		die("calloc");
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		die("epoll_create1");
	if ((tfd = timerfd_create(CLOCK_MONOTONIC,
	    TFD_NONBLOCK | TFD_CLOEXEC)) == -1)
		die("timerfd_create");
	ev.events = EPOLLIN;
	ev.data.ptr = &tfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) == -1)
		die("epoll_ctl timerfd");
	for (i = optind; i < argc; i++) {
		len = bconn_spec("thinkbot", argv[i], line, sizeof(line),
		    100000, &k);
		for (; k > 0; k--) {
			struct conn *c = &conns[nconns];

			c->heapidx = -1;
			c->state = C_AUTH;
			/* TCP_NODELAY: an answer leaves when it is written */
			bconn_open(&c->b, &sin, ep, c, line, len);
			slen = sizeof(local);
			if (getsockname(c->b.fd, (struct sockaddr *)&local,
			    &slen) == -1)
				die("getsockname");
			c->port = ntohs(local.sin_port);
			conn_flush(c);
			nconns++;
			/* never more unanswered than refd's backlog */
			while (nconns - nready - nclosed >= CONNECT_BATCH &&
			    !stop)
				loop_once(1000);
		}
	}
	while (nready + nclosed < nconns && !stop)
		loop_once(1000);
	if (nclosed > 0) {
		fprintf(stderr, "thinkbot: %d connections closed before "
		    "authentication\n", nclosed);
		return 1;
	}
	printf("ready %d\n", nready);
	fflush(stdout);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	/* a pipe or a terminal ends the run when it closes; a file cannot */
	if (epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev) == -1 && errno != EPERM)
		die("epoll_ctl stdin");
	while (!stop) {
		loop_once(-1);
		if (report) {
			report = 0;
			stats("stats");
		}
	}
	dump();
	stats("done");
	return 0;
}
