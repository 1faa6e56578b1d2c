/*
 * spawnq.c: starting bots on a thread of their own.
 *
 * A bot's process is made with clone(2) in refd's memory, and whoever
 * makes it waits until the child has executed its command (spawn.c).
 * On a busy machine the new child also waits for a core: 1.5 ms on
 * average with 8 spawned matches on 2 cores.  Made in the loop, that
 * held up every match, and its bots, for every bot started.  Here the
 * loop makes the job (the command line and the bot's descriptors, so
 * the seat exists and can be written to at once), the thread waits for
 * the child, and the loop hears the bot's pid through a pipe.
 *
 * The thread lives as long as refd: bwrap's --die-with-parent follows
 * the thread that made its process, not the process.
 *
 * Jobs run one at a time, in the order given.  An exec that never ends
 * (a command on a file system that hangs) holds up the bots after it,
 * not the matches; at shutdown refd waits SPAWNQ_STOP_MS for it, then
 * leaves it to the process's exit.
 */
#include "config.h"

#include <sys/queue.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "spawn.h"
#include "spawnq.h"
#include "util.h"
#include "wake.h"

#define SPAWNQ_STOP_MS	2000	/* how long a shutdown waits for a start */

struct spawnq_job {
	struct spawn_job	*job;
	void			(*cb)(void *, pid_t);
	void			*arg;
	pid_t			 pid;
	STAILQ_ENTRY(spawnq_job) entry;
};
STAILQ_HEAD(spawnq_list, spawnq_job);

static struct {
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	struct spawnq_list	 todo;	/* for the thread */
	struct spawnq_list	 done;	/* for the loop */
	int			 stop;
	int			 gone;	/* the thread has returned */
	int			 on;	/* the thread runs */
	pthread_t		 thread;
	struct wake		 wake;	/* the thread tells the loop */
} q = { .todo = STAILQ_HEAD_INITIALIZER(q.todo),
    .done = STAILQ_HEAD_INITIALIZER(q.done), .wake.pipe = { -1, -1 } };

/* The child's stack: the thread starts one child at a time. */
static unsigned char	spawnq_stack[64 * 1024]
			    __attribute__((__aligned__(16)));

static void *
spawnq_run(void *arg)
{
	struct spawnq_job	*qj;
	char			 err[256];

	(void)arg;
	pthread_mutex_lock(&q.mu);
	for (;;) {
		while (!q.stop && STAILQ_EMPTY(&q.todo))
			pthread_cond_wait(&q.cv, &q.mu);
		if (q.stop)
			break;	/* what is left is spawnq_stop()'s */
		qj = STAILQ_FIRST(&q.todo);
		STAILQ_REMOVE_HEAD(&q.todo, entry);
		pthread_mutex_unlock(&q.mu);
		qj->pid = spawn_run(qj->job, spawnq_stack,
		    sizeof(spawnq_stack), err, sizeof(err));
		pthread_mutex_lock(&q.mu);
		STAILQ_INSERT_TAIL(&q.done, qj, entry);
		wake_post(&q.wake);
	}
	q.gone = 1;
	pthread_cond_broadcast(&q.cv);
	pthread_mutex_unlock(&q.mu);
	return NULL;
}

/* Tell each started job's owner its pid. */
static void
spawnq_deliver(void)
{
	struct spawnq_list	 done = STAILQ_HEAD_INITIALIZER(done);
	struct spawnq_job	*qj;

	pthread_mutex_lock(&q.mu);
	STAILQ_CONCAT(&done, &q.done);
	pthread_mutex_unlock(&q.mu);
	while ((qj = STAILQ_FIRST(&done)) != NULL) {
		STAILQ_REMOVE_HEAD(&done, entry);
		qj->cb(qj->arg, qj->pid);
		spawn_job_free(qj->job);
		free(qj);
	}
}

/* The loop: the thread started bots. */
static void
spawnq_heard(void *arg)
{
	(void)arg;
	spawnq_deliver();
}

/*
 * Start the thread, whose news is heard in the loop of base.  Returns 0,
 * or -1 with the reason in err.
 */
int
spawnq_start(struct event_base *base, char *err, size_t errlen)
{
	int	 e;

	if (q.on)
		return 0;
	if (wake_init(&q.wake, base, spawnq_heard, NULL, err, errlen) == -1)
		return -1;
	q.stop = q.gone = 0;
	if ((e = util_thread_cv(&q.thread, &q.mu, &q.cv, spawnq_run,
	    NULL)) != 0) {
		snprintf(err, errlen, "thread: %s", strerror(e));
		wake_free(&q.wake);
		return -1;
	}
	q.on = 1;
	return 0;
}

/*
 * Make argv's job: as spawn_prepare(), whose descriptors the caller
 * owns at once.  Returns NULL with the reason in err.
 */
struct spawnq_job *
spawnq_prepare(char **argv, struct spawn_fds *fds, char *err, size_t errlen)
{
	struct spawnq_job	*qj;

	if (!q.on) {
		snprintf(err, errlen, "bots cannot be started now");
		return NULL;
	}
	if ((qj = calloc(1, sizeof(*qj))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if ((qj->job = spawn_prepare(argv, fds, err, errlen)) ==
	    NULL) {
		free(qj);
		return NULL;
	}
	return qj;
}

/*
 * Start qj's bot.  cb(arg, pid) runs in the loop once it has started,
 * or with -1 if it could not be: its stderr then says why and its
 * stdout is at its end.
 */
void
spawnq_go(struct spawnq_job *qj, void (*cb)(void *, pid_t), void *arg)
{
	qj->cb = cb;
	qj->arg = arg;
	qj->pid = -1;
	pthread_mutex_lock(&q.mu);
	STAILQ_INSERT_TAIL(&q.todo, qj, entry);
	pthread_cond_signal(&q.cv);
	pthread_mutex_unlock(&q.mu);
}

/* Drop a job not given to spawnq_go(), closing the child's ends. */
void
spawnq_cancel(struct spawnq_job *qj)
{
	spawn_job_free(qj->job);
	free(qj);
}

/*
 * Stop the thread once it has started the bot it is starting, waiting
 * SPAWNQ_STOP_MS at most.  Every owner still hears of its job, as
 * started, or with -1 if its turn never came.  A thread still in an
 * exec is left to the process's exit, with what it may yet touch.
 */
void
spawnq_stop(void)
{
	struct spawnq_job	*qj;
	struct timespec		 until;
	int			 gone;

	if (!q.on)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SPAWNQ_STOP_MS / 1000;
	until.tv_nsec += (SPAWNQ_STOP_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&q.mu);
	q.stop = 1;
	pthread_cond_broadcast(&q.cv);
	while (!q.gone && pthread_cond_timedwait(&q.cv, &q.mu, &until) == 0)
		;
	gone = q.gone;
	pthread_mutex_unlock(&q.mu);
	q.on = 0;
	if (gone)
		pthread_join(q.thread, NULL);
	else
		log_warnx("a bot's start has not ended in %d ms: not waiting "
		    "for it", SPAWNQ_STOP_MS);
	spawnq_deliver();
	pthread_mutex_lock(&q.mu);	/* the thread takes no more */
	while ((qj = STAILQ_FIRST(&q.todo)) != NULL) {
		STAILQ_REMOVE_HEAD(&q.todo, entry);
		qj->cb(qj->arg, -1);
		spawnq_cancel(qj);
	}
	pthread_mutex_unlock(&q.mu);
	wake_stop(&q.wake);
	if (!gone)
		return;	/* its mutex and pipe stay: it may write yet */
	pthread_cond_destroy(&q.cv);
	pthread_mutex_destroy(&q.mu);
	wake_free(&q.wake);
}
