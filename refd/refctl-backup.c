/*
 * refctl-backup.c: refctl backup, a consistent copy of a log that refd
 * may be writing, by SQLite's online backup API (db_copy()).  The copy
 * is a log of its own: refctl audit --all verifies it alone.  The key
 * that signs the log's heads is not copied: its public half is in the
 * log chain, and the secret half stays with refd (refd(8), FILES).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "refctl.h"

/*
 * Sync the directory that holds path, so that a file just renamed into
 * it survives a power loss.  0, or -1 with errno set.
 */
int
backup_syncdir(const char *path)
{
	char	 d[PATH_MAX];
	int	 fd, rc;

	if ((size_t)snprintf(d, sizeof(d), "%s", path) >= sizeof(d)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/*
 * The log db copied, in one read transaction, into FILE.tmp, made anew
 * for it alone (O_EXCL) and named in tmp: 0, or -1 with the reason in
 * err and no FILE.tmp left.  refctl backup and refctl archive start so.
 */
int
backup_tmp(const char *db, const char *file, char *tmp, size_t tmplen,
    char *err, size_t errlen)
{
	char	 why[400];
	int	 fd;

	if ((size_t)snprintf(tmp, tmplen, "%s.tmp", file) >= tmplen) {
		snprintf(err, errlen, "%s: name too long", file);
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	close(fd);
	if (db_copy(db, tmp, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s: the copy failed: %s", db, why);
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * Copy the log db into file, which must not exist: the copy is made in
 * file.tmp beside it, synced, then renamed, so that file is either
 * absent or whole.  0, or -1 with the reason in err.
 */
int
backup_make(const char *db, const char *file, char *err, size_t errlen)
{
	struct db	*h;
	char		 tmp[PATH_MAX], why[400];

	/* a refd log, of a version this refctl reads */
	if ((h = db_open(db, 1, why, sizeof(why))) == NULL) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	db_close(h);
	if (access(file, F_OK) == 0) {
		snprintf(err, errlen, "%s exists already: a copy never replaces "
		    "a file", file);
		return -1;
	}
	if (errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	if (backup_tmp(db, file, tmp, sizeof(tmp), err, errlen) == -1)
		return -1;
	if (link(tmp, file) == -1) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		unlink(tmp);
		return -1;
	}
	unlink(tmp);
	if (backup_syncdir(file) == -1) {
		snprintf(err, errlen, "%s: its directory cannot be synced: %s",
		    file, strerror(errno));
		return -1;
	}
	return 0;
}

/* refctl backup DB FILE: the log db, as it is now, in the new file. */
int
cmd_backup(int argc, char **argv)
{
	char	 err[PATH_MAX + 512];

	if (argc != 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		fprintf(stderr, "usage: refctl backup DB FILE\n");
		return 2;
	}
	if (backup_make(argv[1], argv[2], err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl backup: %s\n", err);
		return 2;
	}
	printf("%s: a copy of %s as it was at one instant\n", argv[2],
	    argv[1]);
	return 0;
}
