/*
 * pidlock.c: the lock file beside the log that keeps a second refd off
 * it.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pidlock.h"
#include "util.h"

/* Write our pid into the lock file, replacing what was there. */
void
pidlock_mark(int fd)
{
	char	 buf[32];
	int	 n;

	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, n, 0) == n)
		return;
	/* the lock holds all the same: only the message loses its pid */
}

int
pidlock_take(const char *db, char *err, size_t errlen)
{
	char		 path[PATH_MAX], buf[32];
	const char	*errstr;
	ssize_t		 n;
	long long	 pid;
	int		 fd;

	if (snprintf(path, sizeof(path), "%s.lock", db) >= (int)sizeof(path)) {
		snprintf(err, errlen, "%s.lock: path too long", db);
		return -1;
	}
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		pidlock_mark(fd);
		return fd;
	}
	if (errno != EWOULDBLOCK) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	/* the holder writes its pid just after it locks: it may be late */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	errstr = NULL;
	pid = buf[0] != '\0' ? util_num(buf, 1, INT_MAX, &errstr) : 0;
	if (pid > 0 && errstr == NULL)
		snprintf(err, errlen, "the log is in use by refd pid %lld "
		    "(%s)", pid, path);
	else
		snprintf(err, errlen, "the log is in use by another refd "
		    "(%s)", path);
	return -1;
}
