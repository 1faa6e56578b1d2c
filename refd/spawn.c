/*
 * spawn.c: starting and stopping bot processes.
 *
 * A bot runs in a process group of its own, with a socketpair as its
 * stdin and stdout and a pipe as its stderr, and inherits no other
 * descriptor: every descriptor refd opens is close-on-exec, and the
 * child closes the rest before exec all the same.  The command is an
 * argv vector handed to execvp(3): no shell ever parses it.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "spawn.h"

/* In the child: make fds 0-2 the bot's and close everything else. */
static int	lim_cpu;	/* RLIMIT_CPU of bots in seconds, 0: none */
static int	lim_mem;	/* RLIMIT_AS of bots in MiB, 0: none */

/* Set the resource limits every bot started from now on gets. */
void
spawn_limits(int cpu_seconds, int memory_mb)
{
	lim_cpu = cpu_seconds;
	lim_mem = memory_mb;
}

static void
spawn_child(char **argv, int sock, int errw)
{
	struct rlimit	 rl;
	sigset_t	 set;
	long		 max, fd;

	setpgid(0, 0);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	if (dup2(sock, 0) == -1 || dup2(sock, 1) == -1 || dup2(errw, 2) == -1)
		_exit(127);
	/* close_range: one call, where thousands of close() would do */
	if (close_range(3, ~0U, 0) == -1) {
		max = sysconf(_SC_OPEN_MAX);
		if (max < 0 || max > 65536)
			max = 65536;
		for (fd = 3; fd < max; fd++)
			close((int)fd);
	}
	if (lim_cpu > 0) {
		rl.rlim_cur = (rlim_t)lim_cpu;
		rl.rlim_max = (rlim_t)lim_cpu + 1;	/* SIGXCPU, then KILL */
		setrlimit(RLIMIT_CPU, &rl);
	}
	if (lim_mem > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)lim_mem << 20;
		setrlimit(RLIMIT_AS, &rl);
	}
	execvp(argv[0], argv);
	dprintf(2, "refd: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * Start argv as a bot.  On success returns its pid (also its process
 * group) and sets *sock to refd's end of its stdin/stdout and *errfd to
 * the read end of its stderr, both non-blocking and close-on-exec.
 * Returns -1 with a message in err on failure.
 */
pid_t
spawn_bot(char **argv, int *sock, int *errfd, char *err, size_t errlen)
{
	int	 sv[2], ep[2];
	pid_t	 pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ep, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	switch (pid = fork()) {
	case -1:
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		close(ep[0]);
		close(ep[1]);
		return -1;
	case 0:
		close(sv[0]);
		close(ep[0]);
		spawn_child(argv, sv[1], ep[1]);
		/* NOTREACHED */
	}
	/* both sides set the group, so no signal can beat it */
	setpgid(pid, pid);
	close(sv[1]);
	close(ep[1]);
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	fcntl(ep[0], F_SETFL, fcntl(ep[0], F_GETFL) | O_NONBLOCK);
	*sock = sv[0];
	*errfd = ep[0];
	return pid;
}

/* Signal a bot's whole process group, so its children go too. */
void
spawn_signal(pid_t pid, int sig)
{
	if (pid > 0 && killpg(pid, sig) == -1 && errno != ESRCH)
		log_warn("killpg %ld", (long)pid);
}
