/*
 * harden.c: refd keeping itself to itself.  No process of the same user
 * may read its memory, descriptors or environment; only its own user
 * and root may speak on the control socket; the files it opens by name
 * in directories others might reach are never links planted there.
 * (That the log is still the file it opened, db.c checks itself.)
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harden.h"

/*
 * Not dumpable: /proc/<pid>/mem, fd, environ and ptrace are then closed
 * to every process but root's, and no core holds the hands.
 */
int
harden_self(void)
{
	struct rlimit	 rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
	return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* Is the peer of control connection fd refd's own user, or root? */
int
harden_peer_ok(int fd, uid_t *uid)
{
	struct ucred	 cr;
	socklen_t	 len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1 ||
	    len != sizeof(cr))
		return 0;
	*uid = cr.uid;
	return cr.uid == 0 || cr.uid == geteuid();
}

/*
 * Remove the control socket at path, if that is what is there: a
 * missing file is fine, anything but a socket is left alone (-1, errno
 * EEXIST), so that a mistyped path never costs a file.
 */
int
harden_unlink_socket(const char *path)
{
	struct stat	 st;

	if (lstat(path, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		errno = EEXIST;
		return -1;
	}
	return unlink(path) == -1 && errno != ENOENT ? -1 : 0;
}

/*
 * Open (append, create 0600) the bot log at path: its directory must be
 * refd's own and writable by nobody else, and neither it nor the file
 * may be a symbolic link.  Returns the descriptor, or -1 with errno.
 */
int
harden_botlog_open(const char *path)
{
	struct stat	 st;
	char		 dir[PATH_MAX];
	const char	*base, *slash;
	int		 dfd, fd;

	if ((slash = strrchr(path, '/')) == NULL) {
		snprintf(dir, sizeof(dir), ".");
		base = path;
	} else {
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 :
		    (int)(slash - path), path);
		base = slash + 1;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(dfd, &st) == -1 || st.st_uid != geteuid() ||
	    (st.st_mode & 022) != 0) {
		close(dfd);
		errno = EPERM;
		return -1;
	}
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	close(dfd);
	if (fd != -1 && (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}
