/*
 * refctl-ctl.c: refctl's client of refd's control socket: connect once,
 * send a command, read its answer line by line.  Every subcommand that
 * speaks to refd goes through refctl_command(), so that none depends on
 * another's file.  When refd goes away refctl says so and exits 2, never
 * dies of SIGPIPE (main() ignores it).
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gtp.h"
#include "refctl.h"

static const char	*sockpath = "refd.sock";
static FILE		*ctl_in;
static int		 ctl_fd = -1;
static long		 ctl_id;

/* Use the control socket at path instead of refd.sock. */
void
refctl_socket(const char *path)
{
	sockpath = path;
}

/* refd is gone: say so, exit 2. */
static void __attribute__((noreturn))
ctl_gone(const char *what)
{
	if (isatty(2))
		fputs("\r\033[K", stderr);	/* over any progress line */
	fprintf(stderr, "refctl: refd went away (%s)\n", what);
	exit(2);
}

/* Connect to refd's control socket. */
static void
ctl_connect(void)
{
	struct sockaddr_un	 sun;

	if (ctl_fd != -1)
		return;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(sockpath) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "refctl: socket path too long\n");
		exit(2);
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sockpath);
	if ((ctl_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(ctl_fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		fprintf(stderr, "refctl: cannot reach refd at %s: %s\n",
		    sockpath, strerror(errno));
		exit(2);
	}
	if ((ctl_in = fdopen(ctl_fd, "r")) == NULL) {
		perror("refctl");
		exit(2);
	}
}

/*
 * Send one command (words joined by spaces) and read its answer.  Each
 * line of the answer's text goes to cb (or stdout when NULL) as it
 * arrives, so streams show live.  Returns 0 for '=', 1 for '?'.
 */
int
refctl_command(int argc, char **argv, void (*cb)(const char *, void *),
    void *arg)
{
	char	 line[GTP_MAXLINE * 4 + 2], *text;
	size_t	 at = 0;
	ssize_t	 w;
	long	 id;
	int	 i, ok = 0, first = 1;

	ctl_connect();
	at = snprintf(line, sizeof(line), "%ld", ++ctl_id);
	for (i = 0; i < argc && at < sizeof(line) - 2; i++)
		at += snprintf(line + at, sizeof(line) - at, " %s", argv[i]);
	if (at >= sizeof(line) - 2) {
		fprintf(stderr, "refctl: command too long\n");
		exit(2);
	}
	line[at++] = '\n';
	for (i = 0; (size_t)i < at; i += w)
		if ((w = write(ctl_fd, line + i, at - i)) <= 0) {
			if (w == -1 && errno == EINTR) {
				w = 0;
				continue;
			}
			ctl_gone(w == -1 ? strerror(errno) : "write");
		}
	while (fgets(line, sizeof(line), ctl_in) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (first) {
			if (gtp_parse_answer(line, &id, &ok, &text) == -1 ||
			    id != ctl_id) {
				fprintf(stderr, "refctl: bad answer: %s\n", line);
				exit(2);
			}
			first = 0;
		} else if (line[0] == '\0')
			return !ok;
		else
			text = line;
		if (!ok)
			fprintf(stderr, "refctl: %s\n", text);
		else if (cb != NULL)
			cb(text, arg);
		else if (*text != '\0')
			printf("%s\n", text);
		if (fflush(stdout) == EOF && errno == EPIPE)
			exit(2);	/* nobody reads our output any more */
	}
	ctl_gone(ferror(ctl_in) ? strerror(errno) : "connection closed");
}
