/*
 * ckpt.c: the log's checkpoints, made on a thread of its own.
 *
 * A checkpoint copies the pages the write-ahead log holds into the
 * database and syncs it, so that the log can start again from its
 * beginning.  Made in the loop, as SQLite makes it by default, one of
 * 4,000 pages held every match and the control socket up for 30-45 ms
 * at 1,000 matches (PERFORMANCE.md).  Here a thread with a connection of
 * its own copies what the log holds, without ever waiting for the loop,
 * which goes on writing (SQLITE_CHECKPOINT_PASSIVE); and again while the
 * loop wrote CKPT_AGAIN pages or more meanwhile.  The loop copies what
 * is left, a few pages written since (db_ckpt_done()): a checkpoint
 * beside a writer that never pauses never reaches the log's end, and
 * the log starts again only once one has.
 *
 * Nothing here is needed for the log to be sound: whatever the thread
 * did not copy, the loop copies, and a crash at any point leaves SQLite
 * a log it recovers as from any checkpoint.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ckpt.h"
#include "util.h"
#include "wake.h"

#define CKPT_AGAIN	800	/* pages written during a pass: another */
#define CKPT_PASSES	4	/* at most, a request */

struct ckpt {
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 want;		/* a checkpoint is asked for */
	int		 stop;
	int		 rc;		/* the last one's result */
	/* the thread's own */
	pthread_t	 thread;
	sqlite3		*h;
	/* the loop's */
	struct wake	 wake;		/* the thread tells the loop */
	void		(*cb)(void *, const char *);
	void		*arg;
};

/*
 * Copy what the log holds into the database, pass after pass while the
 * loop keeps adding CKPT_AGAIN pages or more during one.  Returns
 * SQLite's result code.
 */
static int
ckpt_passes(struct ckpt *c)
{
	int	 pass, rc = SQLITE_OK, log, copied, before = 0;

	for (pass = 0; pass < CKPT_PASSES; pass++) {
		rc = sqlite3_wal_checkpoint_v2(c->h, NULL,
		    SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
		/* log: the pages it holds; fewer once it started again */
		if (rc != SQLITE_OK || log - before < CKPT_AGAIN)
			break;
		before = log;
	}
	return rc;
}

static void *
ckpt_run(void *arg)
{
	struct ckpt	*c = arg;
	int		 rc;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->stop && !c->want)
			pthread_cond_wait(&c->cv, &c->mu);
		if (c->stop)
			break;
		c->want = 0;
		pthread_mutex_unlock(&c->mu);
		rc = ckpt_passes(c);
		pthread_mutex_lock(&c->mu);
		c->rc = rc;
		wake_post(&c->wake);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/*
 * The loop: a checkpoint ended.  Tell the owner how; another connection
 * checkpointing at the time (SQLITE_BUSY) is no failure.
 */
static void
ckpt_heard(void *arg)
{
	struct ckpt	*c = arg;
	int		 rc;

	pthread_mutex_lock(&c->mu);
	rc = c->rc;
	pthread_mutex_unlock(&c->mu);
	c->cb(c->arg, rc == SQLITE_OK || rc == SQLITE_BUSY ? NULL :
	    sqlite3_errstr(rc));
}

/*
 * Start checkpointing the log at path (its database) on a thread, with
 * a connection of its own; done hears of each checkpoint in the loop of
 * base.  Returns NULL, with the reason in err, if the connection, the
 * thread or its pipe cannot be had.
 */
struct ckpt *
ckpt_new(struct event_base *base, const char *path,
    void (*done)(void *, const char *), void *arg, char *err, size_t errlen)
{
	struct ckpt	*c;
	int		 e;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->cb = done;
	c->arg = arg;
	c->wake.pipe[0] = c->wake.pipe[1] = -1;
	/*
	 * Only the thread uses the connection once it runs.  A read now
	 * finds the log in WAL mode: a connection that has read nothing
	 * yet takes a checkpoint for a no-op.
	 */
	if (sqlite3_open_v2(path, &c->h, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(c->h, "SELECT count(*) FROM sqlite_master", NULL,
	    NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, c->h != NULL ?
		    sqlite3_errmsg(c->h) : "out of memory");
		goto fail;
	}
	if (wake_init(&c->wake, base, ckpt_heard, c, err, errlen) == -1)
		goto fail;
	if ((e = util_thread_cv(&c->thread, &c->mu, &c->cv, ckpt_run,
	    c)) != 0) {
		snprintf(err, errlen, "thread: %s", strerror(e));
		goto fail;
	}
	return c;
fail:
	wake_free(&c->wake);
	sqlite3_close(c->h);
	free(c);
	return NULL;
}

/* Ask for a checkpoint; done() hears once it has run. */
void
ckpt_request(struct ckpt *c)
{
	pthread_mutex_lock(&c->mu);
	c->want = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

/*
 * Stop the thread, once a checkpoint under way has ended, and free c;
 * NULL is allowed.  Before the log's own connection closes, so that
 * this one is never its last.
 */
void
ckpt_free(struct ckpt *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&c->mu);
	c->stop = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->thread, NULL);
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	wake_free(&c->wake);
	sqlite3_close(c->h);
	free(c);
}
