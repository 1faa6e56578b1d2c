/*
 * bconn.c: the connection of a benchmark's remote bot to refd, written
 * once for loadgen and thinkbot.  Every call that cannot go on exits:
 * these are instruments, and a broken one must not report figures.
 */
#include <sys/epoll.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bconn.h"
#include "bench.h"

static void
bconn_die(const char *what)
{
	perror(what);
	exit(1);
}

/*
 * Connect b to sin, with TCP_NODELAY, non-blocking, watched by epoll ep
 * with ptr as its data, and queue its first line, auth (n bytes).
 */
void
bconn_open(struct bconn *b, const struct sockaddr_in *sin, int ep, void *ptr,
    const char *auth, size_t n)
{
	struct epoll_event	 ev;
	int			 one = 1;

	if ((b->fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		bconn_die("socket");
	if (connect(b->fd, (const struct sockaddr *)sin, sizeof(*sin)) == -1)
		bconn_die("connect");
	setsockopt(b->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(b->fd, F_SETFL, O_NONBLOCK);
	ev.events = EPOLLIN;
	ev.data.ptr = ptr;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, b->fd, &ev) == -1)
		bconn_die("epoll_ctl");
	bconn_add(b, auth, n);
}

/* Queue n bytes for refd. */
void
bconn_add(struct bconn *b, const char *p, size_t n)
{
	size_t	 cap;

	if (b->outlen + n > b->outcap) {
		cap = b->outcap ? b->outcap : 256;
		while (cap < b->outlen + n)
			cap *= 2;
		if ((b->out = realloc(b->out, cap)) == NULL)
			bconn_die("realloc");
		b->outcap = cap;
	}
	memcpy(b->out + b->outlen, p, n);
	b->outlen += n;
}

/*
 * Write what is queued; arm EPOLLOUT (epoll ep, data ptr) for the rest,
 * if any.  0, or -1 when refd is gone: the caller closes.
 */
int
bconn_flush(struct bconn *b, int ep, void *ptr)
{
	struct epoll_event	 ev;
	ssize_t			 w;
	int			 want;

	while (b->outlen > 0) {
		w = write(b->fd, b->out, b->outlen);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w <= 0)
			return -1;
		memmove(b->out, b->out + w, b->outlen - (size_t)w);
		b->outlen -= (size_t)w;
	}
	want = b->outlen > 0;
	if (want != b->want_out) {
		ev.events = EPOLLIN | (want ? EPOLLOUT : 0);
		ev.data.ptr = ptr;
		if (epoll_ctl(ep, EPOLL_CTL_MOD, b->fd, &ev) == -1)
			bconn_die("epoll_ctl");
		b->want_out = want;
	}
	return 0;
}

/*
 * Read once into b->in, which keeps a byte free for a NUL.  1 if bytes
 * came, 0 if none yet, -1 when refd is gone: the caller closes.  A full
 * buffer is a line longer than refd ever sends: exit.
 */
int
bconn_read(struct bconn *b)
{
	ssize_t	 r;

	if (b->inlen == sizeof(b->in) - 1) {
		fprintf(stderr, "a line longer than %d bytes from refd\n",
		    BCONN_INLEN);
		exit(1);
	}
	r = read(b->fd, b->in + b->inlen, sizeof(b->in) - b->inlen - 1);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r <= 0)
		return -1;
	b->inlen += (size_t)r;
	return 1;
}

/*
 * SIGTERM, SIGINT and SIGUSR1 go to handler, and are blocked but while
 * the loop waits (epoll_pwait() with *waitmask): none is missed between
 * a test of a flag and a wait.  SIGPIPE is ignored.
 */
void
bconn_signals(void (*handler)(int), sigset_t *waitmask)
{
	struct sigaction	 sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &sa.sa_mask, waitmask);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * "host:port" into *sin, an IPv4 address: 0, or -1 if arg is none
 * (the caller prints its usage).  A bad port exits, naming prog.
 */
int
bconn_address(const char *prog, const char *arg, struct sockaddr_in *sin)
{
	const char	*colon;
	char		 host[64];

	if ((colon = strrchr(arg, ':')) == NULL ||
	    (size_t)(colon - arg) >= sizeof(host))
		return -1;
	memcpy(host, arg, colon - arg);
	host[colon - arg] = '\0';
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((int)bench_number(prog, colon + 1, "port", 1,
	    65535));
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1) {
		fprintf(stderr, "%s: %s: not an IPv4 address\n", prog, host);
		exit(2);
	}
	return 0;
}

/*
 * The bots of n arguments "name:token:count", each count 1 to max: their
 * total, or -1 if one is no such argument (the caller prints its usage).
 */
int
bconn_total(const char *prog, int n, char **specs, long max)
{
	const char	*tok, *cnt;
	int		 i, total = 0;

	for (i = 0; i < n; i++) {
		if ((tok = strchr(specs[i], ':')) == NULL ||
		    (cnt = strchr(tok + 1, ':')) == NULL)
			return -1;
		total += (int)bench_number(prog, cnt + 1, "count", 1, max);
	}
	return total;
}

/*
 * Take spec "name:token:count" apart, in place (bconn_total() checked
 * it): its auth line into line (of len bytes), its count into *count.
 * Returns the line's length; exits naming prog if it does not fit.
 */
size_t
bconn_spec(const char *prog, char *spec, char *line, size_t len, long max,
    int *count)
{
	char	*tok, *cnt;
	int	 n;

	tok = strchr(spec, ':');
	*tok++ = '\0';
	cnt = strchr(tok, ':');
	*cnt++ = '\0';
	n = snprintf(line, len, "auth %s %s\n", spec, tok);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "%s: %s: name and token too long\n", prog,
		    spec);
		exit(2);
	}
	*count = (int)bench_number(prog, cnt, "count", 1, max);
	return (size_t)n;
}
