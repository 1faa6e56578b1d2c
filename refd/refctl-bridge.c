/*
 * refctl-bridge.c: play a stdin/stdout bot as a remote bot.
 *
 * refctl bridge connects to refd's bot listener, authenticates, and then
 * executes the bot with the connection as its standard input and output.
 * Nothing sits between them afterwards: the bot speaks to refd directly,
 * so any bot written for pipes plays over TCP unchanged.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gtp.h"
#include "refctl.h"
#include "util.h"

#define BRIDGE_AUTH_MS	10000	/* time for refd to answer auth */

/* Connect to host:port; returns the socket or -1 with a message printed. */
static int
bridge_connect(const char *host, const char *port)
{
	struct addrinfo	 hints, *res, *ai;
	int		 fd = -1, e, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((e = getaddrinfo(host, port, &hints, &res)) != 0) {
		fprintf(stderr, "refctl bridge: %s:%s: %s\n", host, port,
		    gai_strerror(e));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype,
		    ai->ai_protocol)) == -1)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1) {
		fprintf(stderr, "refctl bridge: cannot connect to %s:%s: %s\n",
		    host, port, strerror(errno));
		return -1;
	}
	/* a move is a few bytes: never hold it back to batch it */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/*
 * Read one line of at most len - 1 bytes from fd, a byte at a time so
 * that nothing meant for the bot is consumed.  Returns 0, or -1 on EOF,
 * error, timeout or an over-long line.
 */
static int
bridge_readline(int fd, char *buf, size_t len, int64_t deadline)
{
	struct pollfd	 pfd = { fd, POLLIN, 0 };
	size_t		 n = 0;
	int64_t		 left;
	char		 c;

	for (;;) {
		left = deadline - util_now_ms();
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return -1;
		if (read(fd, &c, 1) != 1)
			return -1;
		if (c == '\n')
			break;
		if (n + 1 >= len)
			return -1;
		buf[n++] = c;
	}
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return 0;
}

static void
bridge_usage(void)
{
	fprintf(stderr, "usage: refctl bridge [-H host] -p port -n name "
	    "-- command [arg ...]\n"
	    "  the token is read from the environment variable REFD_TOKEN\n");
}

/* refctl bridge: connect, authenticate, then become the bot. */
int
cmd_bridge(int argc, char **argv)
{
	const char	*host = "127.0.0.1", *port = NULL, *name = NULL, *token;
	char		 line[GTP_MAXLINE], *text;
	int64_t		 deadline;
	long		 id;
	int		 ch, fd, ok;

	optind = 1;
	while ((ch = getopt(argc, argv, "+H:p:n:")) != -1) {
		switch (ch) {
		case 'H':
			host = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		default:
			bridge_usage();
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	token = getenv("REFD_TOKEN");
	if (port == NULL || name == NULL || argc < 1) {
		bridge_usage();
		return 2;
	}
	if (token == NULL || *token == '\0' || strchr(token, ' ') != NULL ||
	    !util_name_ok(name)) {
		fprintf(stderr, "refctl bridge: a bot name and a token without "
		    "spaces (in REFD_TOKEN) are needed\n");
		return 2;
	}
	if ((fd = bridge_connect(host, port)) == -1)
		return 2;
	snprintf(line, sizeof(line), "auth %s %s\n", name, token);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		fprintf(stderr, "refctl bridge: write: %s\n", strerror(errno));
		return 2;
	}
	deadline = util_now_ms() + BRIDGE_AUTH_MS;
	if (bridge_readline(fd, line, sizeof(line), deadline) == -1 ||
	    gtp_parse_answer(line, &id, &ok, &text) == -1) {
		fprintf(stderr, "refctl bridge: no answer to auth\n");
		return 2;
	}
	if (!ok) {
		fprintf(stderr, "refctl bridge: refused: %s\n", text);
		return 1;
	}
	if (bridge_readline(fd, line, sizeof(line), deadline) == -1 ||
	    line[0] != '\0') {
		fprintf(stderr, "refctl bridge: malformed answer to auth\n");
		return 2;
	}
	unsetenv("REFD_TOKEN");		/* the bot has no use for it */
	if (dup2(fd, 0) == -1 || dup2(fd, 1) == -1) {
		fprintf(stderr, "refctl bridge: dup2: %s\n", strerror(errno));
		return 2;
	}
	if (fd > 1)
		close(fd);
	execvp(argv[0], argv);
	fprintf(stderr, "refctl bridge: cannot run %s: %s\n", argv[0],
	    strerror(errno));
	return 2;
}
