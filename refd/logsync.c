/*
 * logsync.c: syncing the log's write-ahead log on a thread of its own.
 *
 * A match's end must be on the disk before it is announced (refd(8),
 * DURABILITY).  fdatasync(2) takes a tenth of a millisecond on a fast
 * disk and tens on a slow one; made in the loop, it held up every match
 * for it.  Here the loop commits, asks for a sync and goes on; only the
 * ending match waits.
 *
 * Requests are numbered.  The thread syncs after taking the highest
 * number asked so far, so one sync answers every request made before it
 * began, however many; then the loop hears, through a pipe, how far the
 * syncs have come.  It syncs through a descriptor of its own and touches
 * nothing of SQLite's: fdatasync(2) of any descriptor of a file writes
 * what was written through all of them.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logsync.h"
#include "util.h"
#include "wake.h"

struct logsync {
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	uint64_t	 want;		/* the last request's number */
	uint64_t	 done;		/* every request up to it synced */
	int		 err;		/* errno of the first failure, or 0 */
	int		 stop;
	/* the thread's own */
	pthread_t	 thread;
	char		 path[4096];	/* the write-ahead log */
	int		 fd;
	/* the loop's */
	struct wake	 wake;		/* the thread tells the loop */
	void		(*cb)(void *, uint64_t, int);
	void		*arg;
};

/*
 * Sync the file: through the descriptor open on it, reopened when the
 * path names another file (SQLite removes its write-ahead log only when
 * the last connection closes, so that is not expected).  No file there:
 * SQLite has copied it into the database, synced, and removed it, and
 * there is nothing to sync.  Returns 0 or an errno.
 */
static int
logsync_sync(struct logsync *ls)
{
	struct stat	 a, b;

	if (ls->fd != -1 && (fstat(ls->fd, &a) == -1 ||
	    stat(ls->path, &b) == -1 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)) {
		close(ls->fd);
		ls->fd = -1;
	}
	if (ls->fd == -1 && (ls->fd = open(ls->path, O_RDONLY | O_CLOEXEC)) ==
	    -1)
		return errno == ENOENT ? 0 : errno;
	return fdatasync(ls->fd) == -1 ? errno : 0;
}

static void *
logsync_run(void *arg)
{
	struct logsync	*ls = arg;
	uint64_t	 n;
	int		 e;

	pthread_mutex_lock(&ls->mu);
	for (;;) {
		while (!ls->stop && ls->done == ls->want)
			pthread_cond_wait(&ls->cv, &ls->mu);
		if (ls->done == ls->want)
			break;		/* stopped, nothing left to sync */
		n = ls->want;
		pthread_mutex_unlock(&ls->mu);
		e = ls->err == 0 ? logsync_sync(ls) : 0;
		pthread_mutex_lock(&ls->mu);
		if (e != 0 && ls->err == 0)
			ls->err = e;
		ls->done = n;
		wake_post(&ls->wake);
	}
	pthread_mutex_unlock(&ls->mu);
	return NULL;
}

/* The loop: syncs ended.  Tell the owner how far, or of the failure. */
static void
logsync_heard(void *arg)
{
	struct logsync	*ls = arg;
	uint64_t	 done;
	int		 err;

	pthread_mutex_lock(&ls->mu);
	done = ls->done;
	err = ls->err;
	pthread_mutex_unlock(&ls->mu);
	ls->cb(ls->arg, done, err);
}

/*
 * Start syncing path (the write-ahead log) on a thread; done hears of
 * it in the loop of base.  Returns NULL, with the reason in err, if the
 * thread or its pipe cannot be had.
 */
struct logsync *
logsync_new(struct event_base *base, const char *path,
    void (*done)(void *, uint64_t, int), void *arg, char *err, size_t errlen)
{
	struct logsync	*ls;
	int		 e;

	if ((ls = calloc(1, sizeof(*ls))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if ((size_t)snprintf(ls->path, sizeof(ls->path), "%s", path) >=
	    sizeof(ls->path)) {
		snprintf(err, errlen, "path too long");
		free(ls);
		return NULL;
	}
	ls->cb = done;
	ls->arg = arg;
	/* opened now, created empty if SQLite has not yet (it takes an empty
	   write-ahead log for none): refd holds its descriptors from the
	   start */
	if ((ls->fd = open(ls->path, O_RDONLY | O_CREAT | O_CLOEXEC, 0600)) ==
	    -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(ls);
		return NULL;
	}
	if (wake_init(&ls->wake, base, logsync_heard, ls, err, errlen) ==
	    -1) {
		close(ls->fd);
		free(ls);
		return NULL;
	}
	if ((e = util_thread_cv(&ls->thread, &ls->mu, &ls->cv, logsync_run,
	    ls)) != 0) {
		snprintf(err, errlen, "thread: %s", strerror(e));
		goto fail;
	}
	return ls;
fail:
	wake_free(&ls->wake);
	close(ls->fd);
	free(ls);
	return NULL;
}

/*
 * Ask for a sync of everything written so far.  Returns the request's
 * number: done() hears of it, or of a number after it, once it is done.
 */
uint64_t
logsync_request(struct logsync *ls)
{
	uint64_t	 n;

	pthread_mutex_lock(&ls->mu);
	n = ++ls->want;
	pthread_cond_signal(&ls->cv);
	pthread_mutex_unlock(&ls->mu);
	return n;
}

/* Finish the syncs asked for, stop the thread and free ls; NULL is allowed. */
void
logsync_free(struct logsync *ls)
{
	if (ls == NULL)
		return;
	pthread_mutex_lock(&ls->mu);
	ls->stop = 1;
	pthread_cond_signal(&ls->cv);
	pthread_mutex_unlock(&ls->mu);
	pthread_join(ls->thread, NULL);
	pthread_cond_destroy(&ls->cv);
	pthread_mutex_destroy(&ls->mu);
	wake_free(&ls->wake);
	if (ls->fd != -1)
		close(ls->fd);
	free(ls);
}
