/*
 * fanout: the floor under the web site's spectators, what the kernel
 * alone costs to send refd's event streams to a crowd over loopback TCP
 * (scripts/bench web, PERFORMANCE.md).
 *
 * usage: fanout [-h] [-a host:port] -n count file
 *
 * Listens on host:port (127.0.0.1:0 by default, then prints "listening
 * PORT"), accepts count connections, answers each with the head of an
 * event stream, and prints "ready".  Then it replays file, the chunks
 * that crowd -r recorded of refd's streams ("SECONDS PATHNO BYTES" a
 * line): at each chunk's time, relative to the first, it writes a chunk
 * of those bytes, framed as evhttp frames it ("%x\r\n", the bytes,
 * "\r\n"), to every connection of that path (the connections are spread
 * over the paths in turn, as crowd spreads its streams), one sendmsg()
 * each with the three parts, as a program that keeps nothing in user space
 * would.  A connection that cannot take a chunk at once gets the rest in
 * a blocking write (counted as "stalls").  At the end it prints
 *	done conns=N chunks=K writes=W bytes=B stalls=S seconds=T cpu_us=U
 * with its own CPU time from "ready" on, user and system, which on loopback includes the
 * receiving side's protocol work that the kernel does in the sender's
 * system call: the same account refd's CPU has.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bconn.h"
#include "bench.h"

#define FANOUT_MAXCHUNK	(1024 * 1024)	/* a chunk's bytes, at most */

/* One chunk of the record. */
struct chunk {
	double	 at;		/* seconds from the first */
	int	 pathno;
	size_t	 len;
};

static void	 usage(int) __attribute__((noreturn));
static void	 die(const char *);
static long long cpu_us(void);

/* Print usage, to stdout for -h and to stderr otherwise, and exit. */
static void
usage(int status)
{
	fprintf(status == 0 ? stdout : stderr,
	    "usage: fanout [-h] [-a host:port] -n count file\n");
	exit(status);
}

/* A system call failed where the floor cannot be measured. */
static void
die(const char *what)
{
	fprintf(stderr, "fanout: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* This process's CPU time so far, user and system, in microseconds. */
static long long
cpu_us(void)
{
	struct rusage	 ru;

	getrusage(RUSAGE_SELF, &ru);
	return (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
	    (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
}

int
main(int argc, char *argv[])
{
	static const char head[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
	    "Connection: close\r\n\r\n";
	struct sockaddr_in	 sin;
	struct chunk		*ch = NULL;
	struct iovec		 iov[3];
	struct msghdr		 msg;
	struct timespec		 ts;
	socklen_t		 sl = sizeof(sin);
	FILE			*f;
	char			*data, frame[32], line[128];
	double			 t, first = -1, start, wait;
	long long		 cpu0, writes = 0, bytes = 0, stalls = 0;
	size_t			 nch = 0, capch = 0, len, k, i;
	ssize_t			 w;
	int			 c, lfd, *fds, nconns = 0, npaths = 1, one = 1;
	int			 pathno, n;

	bconn_address("fanout", "127.0.0.1:1", &sin);
	sin.sin_port = 0;
	while ((c = getopt(argc, argv, "a:hn:")) != -1) {
		switch (c) {
		case 'a':
			if (bconn_address("fanout", optarg, &sin) == -1)
				usage(2);
			break;
		case 'n':
			nconns = (int)bench_number("fanout", optarg, "count",
			    1, 1000000);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (nconns == 0 || optind != argc - 1)
		usage(2);
	if ((f = fopen(argv[optind], "r")) == NULL)
		die(argv[optind]);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lf %d %zu", &t, &pathno, &len) != 3 ||
		    pathno < 0 || len == 0 || len > FANOUT_MAXCHUNK) {
			fprintf(stderr, "fanout: %s: not a chunk: %s",
			    argv[optind], line);
			return 1;
		}
		if (nch == capch) {
			capch = capch ? 2 * capch : 1024;
			if ((ch = reallocarray(ch, capch, sizeof(*ch))) == NULL)
				die("reallocarray");
		}
		if (first < 0)
			first = t;
		ch[nch].at = t - first;
		ch[nch].pathno = pathno;
		ch[nch].len = len;
		nch++;
		if (pathno + 1 > npaths)
			npaths = pathno + 1;
	}
	fclose(f);
	/* the bytes of any chunk: an event stream's text */
	if ((data = malloc(FANOUT_MAXCHUNK)) == NULL)
		die("malloc");
	for (k = 0; k < FANOUT_MAXCHUNK; k++)
		data[k] = "id: 1\ndata: {\"type\":\"play\"}\n\n"[k % 31];

	signal(SIGPIPE, SIG_IGN);
	if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(lfd, 1024) == -1 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &sl) == -1)
		die("listen");
	printf("listening %d\n", ntohs(sin.sin_port));
	fflush(stdout);
	if ((fds = calloc((size_t)nconns, sizeof(*fds))) == NULL)
		die("calloc");
	for (n = 0; n < nconns; n++) {
		if ((fds[n] = accept(lfd, NULL, NULL)) == -1)
			die("accept");
		setsockopt(fds[n], IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
		if (write(fds[n], head, sizeof(head) - 1) !=
		    (ssize_t)sizeof(head) - 1)
			die("write");
	}
	printf("ready\n");
	fflush(stdout);

	cpu0 = cpu_us();
	start = bench_now();
	for (k = 0; k < nch; k++) {
		if ((wait = ch[k].at - (bench_now() - start)) > 0) {
			ts.tv_sec = (time_t)wait;
			ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
		iov[0].iov_base = frame;
		iov[0].iov_len = (size_t)snprintf(frame, sizeof(frame),
		    "%zx\r\n", ch[k].len);
		iov[1].iov_base = data;
		iov[1].iov_len = ch[k].len;
		iov[2].iov_base = (void *)"\r\n";
		iov[2].iov_len = 2;
		len = iov[0].iov_len + ch[k].len + 2;
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = 3;
		for (n = ch[k].pathno; n < nconns; n += npaths) {
			w = sendmsg(fds[n], &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
			writes++;
			if (w == (ssize_t)len) {
				bytes += w;
				continue;
			}
			if (w == -1 && errno != EAGAIN)
				die("sendmsg");
			if (w == -1)
				w = 0;
			/* the reader fell behind: the rest, blocking */
			stalls++;
			bytes += w;
			for (i = 0; i < 3 && w >= (ssize_t)iov[i].iov_len;
			    i++)
				w -= (ssize_t)iov[i].iov_len;
			for (; i < 3; i++) {
				if (write(fds[n], (char *)iov[i].iov_base + w,
				    iov[i].iov_len - (size_t)w) !=
				    (ssize_t)(iov[i].iov_len - (size_t)w))
					die("write");
				bytes += (long long)(iov[i].iov_len -
				    (size_t)w);
				w = 0;
			}
		}
	}
	t = bench_now() - start;
	cpu0 = cpu_us() - cpu0;
	printf("done conns=%d chunks=%zu writes=%lld bytes=%lld stalls=%lld "
	    "seconds=%.3f cpu_us=%lld\n", nconns, nch, writes, bytes, stalls,
	    t, cpu0);
	fflush(stdout);
	return 0;
}
