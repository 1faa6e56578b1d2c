/*
 * sfcost.c: what the system-call filter (refd/sfilter.c) costs, in
 * numbers for bench/sandbox.py:
 *
 *	build_us	building it once, at refd's start
 *	open_us		a descriptor of it for one bot (sfilter_open)
 *	bwrap_ms	a bot's sandbox started and gone (bwrap ... true),
 *	bwrap_sf_ms	the same with --seccomp
 *	call_ns		a system call (getppid) without the filter,
 *	call_sf_ns	and under it: what every call of a bot pays
 *	pipe_ns		a byte written to and read from a pipe, the way a
 *	pipe_sf_ns	bot's every command and answer goes, without and
 *			under it
 *
 *	sfcost [BWRAP_RUNS]
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sfilter.h"

static double
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per getppid() and per pipe round (one byte written and read). */
static void
calls(double *call, double *pipe_rt)
{
	char	 c = 'x';
	double	 t;
	int	 i, p[2];

	if (pipe(p) == -1)
		exit(1);
	t = now_ns();
	for (i = 0; i < 1000000; i++)
		syscall(SYS_getppid);
	*call = (now_ns() - t) / 1000000;
	t = now_ns();
	for (i = 0; i < 200000; i++)
		if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
			exit(1);
	*pipe_rt = (now_ns() - t) / 200000;
	close(p[0]);
	close(p[1]);
}

/* The same, in a child under the filter read from memfd fd. */
static void
calls_filtered(int fd, double *call, double *pipe_rt)
{
	struct sock_filter	 prog[4096];
	struct sock_fprog	 fp;
	double			 r[2];
	ssize_t			 n;
	int			 p[2], st;
	pid_t			 pid;

	if ((n = pread(fd, prog, sizeof(prog), 0)) <= 0 || pipe(p) == -1)
		exit(1);
	if ((pid = fork()) == 0) {
		fp.len = (unsigned short)(n / sizeof(prog[0]));
		fp.filter = prog;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) == -1)
			_exit(1);
		calls(&r[0], &r[1]);
		if (write(p[1], r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	if (read(p[0], r, sizeof(r)) != sizeof(r) || waitpid(pid, &st, 0) ==
	    -1) {
		fprintf(stderr, "sfcost: the filtered child failed\n");
		exit(1);
	}
	*call = r[0];
	*pipe_rt = r[1];
}

/* ms per "bwrap ... true", with the filter on descriptor 3 if sf. */
static double
bwrap_ms(int fd, int sf, int runs)
{
	char	*argv[64];
	double	 t;
	int	 i, n, st, dfd;
	pid_t	 pid;

	t = now_ns();
	for (i = 0; i < runs; i++) {
		n = 0;
		argv[n++] = "bwrap";
		argv[n++] = "--unshare-all";
		argv[n++] = "--die-with-parent";
		argv[n++] = "--new-session";
		argv[n++] = "--ro-bind"; argv[n++] = "/usr"; argv[n++] = "/usr";
		argv[n++] = "--symlink"; argv[n++] = "usr/lib";
		argv[n++] = "/lib";
		argv[n++] = "--symlink"; argv[n++] = "usr/lib64";
		argv[n++] = "/lib64";
		argv[n++] = "--symlink"; argv[n++] = "usr/bin";
		argv[n++] = "/bin";
		argv[n++] = "--proc"; argv[n++] = "/proc";
		argv[n++] = "--dev"; argv[n++] = "/dev";
		if (sf) {
			argv[n++] = "--seccomp";
			argv[n++] = "3";
		}
		argv[n++] = "--";
		argv[n++] = "/usr/bin/true";
		argv[n] = NULL;
		if (sf && (dfd = sfilter_open(fd)) == -1)
			exit(1);
		if ((pid = fork()) == 0) {
			if (sf && dup2(dfd, 3) == -1)
				_exit(127);
			execvp(argv[0], argv);
			_exit(127);
		}
		if (sf)
			close(dfd);
		if (waitpid(pid, &st, 0) == -1 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			fprintf(stderr, "sfcost: bwrap failed\n");
			exit(1);
		}
	}
	return (now_ns() - t) / 1e6 / runs;
}

int
main(int argc, char *argv[])
{
	char	 err[256];
	double	 t, c0, c1, p0, p1;
	int	 fd, i, runs = argc > 1 ? atoi(argv[1]) : 40;

	t = now_ns();
	for (i = 0; i < 100; i++) {
		if ((fd = sfilter_build(0, err, sizeof(err))) == -1) {
			fprintf(stderr, "sfcost: %s\n", err);
			return 1;
		}
		close(fd);
	}
	printf("build_us %.1f\n", (now_ns() - t) / 1e3 / 100);
	fd = sfilter_build(0, err, sizeof(err));
	t = now_ns();
	for (i = 0; i < 10000; i++)
		close(sfilter_open(fd));
	printf("open_us %.2f\n", (now_ns() - t) / 1e3 / 10000);
	printf("bwrap_ms %.2f\n", bwrap_ms(fd, 0, runs));
	printf("bwrap_sf_ms %.2f\n", bwrap_ms(fd, 1, runs));
	printf("bwrap_ms %.2f\n", bwrap_ms(fd, 0, runs));
	printf("bwrap_sf_ms %.2f\n", bwrap_ms(fd, 1, runs));
	calls(&c0, &p0);
	calls_filtered(fd, &c1, &p1);
	printf("call_ns %.1f\ncall_sf_ns %.1f\npipe_ns %.1f\npipe_sf_ns %.1f\n",
	    c0, c1, p0, p1);
	return 0;
}
