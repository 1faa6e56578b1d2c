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
 * Jobs run one at a time, in the order given.
 */
#include "config.h"

#include <sys/queue.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "spawn.h"
#include "spawnq.h"
#include "util.h"

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
	int			 on;	/* the thread runs */
	pthread_t		 thread;
	int			 pipe[2];	/* the thread tells the loop */
	struct event		*ev;
} q = { .todo = STAILQ_HEAD_INITIALIZER(q.todo),
    .done = STAILQ_HEAD_INITIALIZER(q.done), .pipe = { -1, -1 } };

/* The child's stack: the thread starts one child at a time. */
static unsigned char	spawnq_stack[64 * 1024]
			    __attribute__((__aligned__(16)));

static void *
spawnq_run(void *arg)
{
	struct spawnq_job	*qj;
	char			 err[256];
	ssize_t			 w;

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
		/* one byte wakes the loop; a full pipe has woken it already */
		do
			w = write(q.pipe[1], "", 1);
		while (w == -1 && errno == EINTR);
	}
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
spawnq_heard(evutil_socket_t fd, short what, void *arg)
{
	char	 buf[64];

	(void)what;
	(void)arg;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
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
	if (pipe2(q.pipe, O_CLOEXEC | O_NONBLOCK) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((q.ev = event_new(base, q.pipe[0], EV_READ | EV_PERSIST,
	    spawnq_heard, NULL)) == NULL || event_add(q.ev, NULL) == -1) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.cv, NULL);
	q.stop = 0;
	if ((e = util_thread(&q.thread, spawnq_run, NULL)) != 0) {
		snprintf(err, errlen, "thread: %s", strerror(e));
		pthread_cond_destroy(&q.cv);
		pthread_mutex_destroy(&q.mu);
		goto fail;
	}
	q.on = 1;
	return 0;
fail:
	if (q.ev != NULL)
		event_free(q.ev);
	q.ev = NULL;
	close(q.pipe[0]);
	close(q.pipe[1]);
	q.pipe[0] = q.pipe[1] = -1;
	return -1;
}

/*
 * Make argv's job: as spawn_prepare(), whose descriptors the caller
 * owns at once.  Returns NULL with the reason in err.
 */
struct spawnq_job *
spawnq_prepare(char **argv, int *sock, int *errfd, char *err, size_t errlen)
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
	if ((qj->job = spawn_prepare(argv, sock, errfd, err, errlen)) ==
	    NULL) {
		free(qj);
		return NULL;
	}
	return qj;
}

/*
 * Start qj's bot.  cb(arg, pid) runs in the loop once it has started,
 * or with -1 if it could not be: its stderr then says why and its
 * socket is at its end.
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
 * Stop the thread once it has started the bot it is starting.  Every
 * owner still hears of its job, as started, or with -1 if its turn
 * never came.
 */
void
spawnq_stop(void)
{
	struct spawnq_job	*qj;

	if (!q.on)
		return;
	pthread_mutex_lock(&q.mu);
	q.stop = 1;
	pthread_cond_signal(&q.cv);
	pthread_mutex_unlock(&q.mu);
	pthread_join(q.thread, NULL);
	q.on = 0;
	spawnq_deliver();
	while ((qj = STAILQ_FIRST(&q.todo)) != NULL) {
		STAILQ_REMOVE_HEAD(&q.todo, entry);
		qj->cb(qj->arg, -1);
		spawnq_cancel(qj);
	}
	pthread_cond_destroy(&q.cv);
	pthread_mutex_destroy(&q.mu);
	event_free(q.ev);
	q.ev = NULL;
	close(q.pipe[0]);
	close(q.pipe[1]);
	q.pipe[0] = q.pipe[1] = -1;
}
