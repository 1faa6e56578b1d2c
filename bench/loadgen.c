/*
 * loadgen: many remote bots in one process, to load refd over TCP.
 *
 * usage: loadgen [-h] [-a host:port] [-s seed] name:token:count ...
 *
 * For each argument, opens count connections to refd's bot listener and
 * authenticates each as bot name with token (refd-protocol(7), REMOTE
 * BOTS).  Then every command refd sends is answered at once: genplay
 * with a card of the hand it lists, picked at random, everything else
 * with an empty success.  The answers to what one read brought are
 * written together, as a quick bot does.  One epoll loop serves every
 * connection, so the bots cost refd's machine as little as can be.
 *
 * Prints "ready N" once N connections are authenticated.  Runs until
 * its standard input ends or SIGTERM or SIGINT, then prints one line:
 *	done conns=N answered=A genplay=G closed=C utime_us=U stime_us=S
 * (commands answered, of them genplays, connections refd closed, and its
 * own CPU time).  SIGUSR1 prints the same counts as "stats ..." and goes
 * on.  A benchmark tool, not a test: make check never runs it.
 */
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bconn.h"
#include "bench.h"

#define MAXEVENTS	256
#define CONNECT_BATCH	100	/* connections authenticated at a time */

enum conn_state { C_AUTH, C_READY, C_CLOSED };

/* One bot connection. */
struct conn {
	struct bconn	 b;		/* first: epoll's data is the conn */
	enum conn_state	 state;
};

static struct conn	*conns;
static int		 nconns, nready, nclosed, ep;
static uint64_t		 answered, genplays, rng = 0x9e3779b97f4a7c15ULL;
static volatile sig_atomic_t stop, report;
static sigset_t		 waitmask;	/* the signal mask inside a wait */

static void	 usage(int) __attribute__((noreturn));
static void	 die(const char *);
static void	 on_signal(int);
static void	 conn_flush(struct conn *);
static void	 conn_close(struct conn *);
static void	 conn_line(struct conn *, char *);
static void	 conn_read(struct conn *);
static void	 loop_once(int);
static void	 stats(const char *);

/* Print usage, to stdout for -h and to stderr otherwise, and exit. */
static void
usage(int status)
{
	fprintf(status == 0 ? stdout : stderr,
	    "usage: loadgen [-h] [-a host:port] [-s seed] "
	    "name:token:count ...\n"
	    "  -a host:port  refd's bot listener (default 127.0.0.1:7070)\n"
	    "  -s seed       seed of the card choices\n");
	exit(status);
}

/* A system call failed where the load cannot go on. */
static void
die(const char *what)
{
	fprintf(stderr, "loadgen: %s: %s\n", what, strerror(errno));
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
	epoll_ctl(ep, EPOLL_CTL_DEL, c->b.fd, NULL);
	close(c->b.fd);
	c->state = C_CLOSED;
	nclosed++;
}

/* One line from refd: the answer to auth, or a command to answer. */
static void
conn_line(struct conn *c, char *line)
{
	char	 buf[64], *w[8], *p = line, *q;
	int	 n, len;

	if (c->state == C_AUTH) {
		if (line[0] == '=') {
			c->state = C_READY;
			nready++;
		} else if (line[0] == '?') {
			fprintf(stderr, "loadgen: authentication refused: "
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
	for (n = 0; n < 8 && (w[n] = strsep(&p, " ")) != NULL; n++)
		;
	if (n >= 4 && strcmp(w[1], "genplay") == 0) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		len = snprintf(buf, sizeof(buf), "=%s %s\n\n", w[0],
		    w[3 + (int)((rng >> 32) % (uint64_t)(n - 3))]);
		genplays++;
	} else if (n >= 2 && strcmp(w[1], "name") == 0)
		len = snprintf(buf, sizeof(buf), "=%s loadgen\n\n", w[0]);
	else
		len = snprintf(buf, sizeof(buf), "=%s\n\n", w[0]);
	if (len > 0 && (size_t)len < sizeof(buf))
		bconn_add(&c->b, buf, (size_t)len);
	answered++;
}

/* Read what refd sent, answer each whole line, write the answers. */
static void
conn_read(struct conn *c)
{
	struct bconn	*b = &c->b;
	char		*nl, *line;
	size_t		 used;
	int		 r;

	if ((r = bconn_read(b)) <= 0) {
		if (r == -1)
			conn_close(c);
		return;
	}
	used = 0;
	while ((nl = memchr(b->in + used, '\n', b->inlen - used)) != NULL) {
		*nl = '\0';
		line = b->in + used;
		used = (size_t)(nl - b->in) + 1;
		conn_line(c, line);
	}
	memmove(b->in, b->in + used, b->inlen - used);
	b->inlen -= used;
	conn_flush(c);
}

/* Wait for events once, at most ms milliseconds, and serve them. */
static void
loop_once(int ms)
{
	struct epoll_event	 ev[MAXEVENTS];
	struct conn		*c;
	char			 b[256];
	int			 i, n;

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
		if (c->state == C_CLOSED)
			continue;
		if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			conn_read(c);
		if (c->state != C_CLOSED && (ev[i].events & EPOLLOUT))
			conn_flush(c);
	}
}

/* Print the counts on one line, with this process's CPU time. */
static void
stats(const char *tag)
{
	struct rusage	 ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("%s conns=%d answered=%llu genplay=%llu closed=%d "
	    "utime_us=%lld stime_us=%lld\n", tag, nconns,
	    (unsigned long long)answered, (unsigned long long)genplays,
	    nclosed,
	    (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
	    (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	fflush(stdout);
}

/* Connect and authenticate every bot, then answer until told to stop. */
int
main(int argc, char *argv[])
{
	struct sockaddr_in	 sin;
	struct epoll_event	 ev;
	char			 line[256];
	size_t			 len;
	int			 ch, i, k, total;

	bconn_address("loadgen", "127.0.0.1:7070", &sin);
	while ((ch = getopt(argc, argv, "a:hs:")) != -1) {
		switch (ch) {
		case 'a':
			if (bconn_address("loadgen", optarg, &sin) == -1)
				usage(2);
			break;
		case 's':
			rng = (uint64_t)bench_number("loadgen",
			    optarg, "seed", 1, LONG_MAX);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind == argc || (total = bconn_total("loadgen", argc - optind,
	    argv + optind, 1000000)) == -1)
		usage(2);
	bconn_signals(on_signal, &waitmask);
	if ((conns = calloc(total, sizeof(*conns))) == NULL)
		die("calloc");
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		die("epoll_create1");
	for (i = optind; i < argc; i++) {
		len = bconn_spec("loadgen", argv[i], line, sizeof(line),
		    1000000, &k);
		for (; k > 0; k--) {
			struct conn *c = &conns[nconns];

			c->state = C_AUTH;
			bconn_open(&c->b, &sin, ep, c, line, len);
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
		fprintf(stderr, "loadgen: %d connections closed before "
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
	stats("done");
	return 0;
}
