/*
 * wake.c: a thread waking the event loop.
 *
 * The threads beside the loop (logsync.c, ckpt.c, spawnq.c) leave their
 * news where the loop looks, under their own mutex, then wake it: one
 * byte down a pipe the loop watches.  The loop reads every byte there
 * and runs the owner's callback once, however many came; a byte that
 * finds the pipe full is not needed, the loop being woken already.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "wake.h"

static void
wake_heard(evutil_socket_t fd, short what, void *arg)
{
	struct wake	*w = arg;
	char		 buf[64];

	(void)what;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	w->cb(w->arg);
}

/*
 * Have cb(arg) run in the loop of base after wake_post(), from any
 * thread.  Returns 0, or -1 with the reason in err and nothing held.
 */
int
wake_init(struct wake *w, struct event_base *base, void (*cb)(void *),
    void *arg, char *err, size_t errlen)
{
	w->cb = cb;
	w->arg = arg;
	w->ev = NULL;
	if (pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		w->pipe[0] = w->pipe[1] = -1;
		return -1;
	}
	if ((w->ev = event_new(base, w->pipe[0], EV_READ | EV_PERSIST,
	    wake_heard, w)) == NULL || event_add(w->ev, NULL) == -1) {
		snprintf(err, errlen, "out of memory");
		wake_free(w);
		return -1;
	}
	return 0;
}

/* Wake the loop; any thread may. */
void
wake_post(struct wake *w)
{
	ssize_t	 n;

	do
		n = write(w->pipe[1], "", 1);
	while (n == -1 && errno == EINTR);
}

/* The loop hears no more; a thread may still post, into the pipe. */
void
wake_stop(struct wake *w)
{
	if (w->ev != NULL)
		event_free(w->ev);
	w->ev = NULL;
}

/* Stop, and close the pipe: no thread may post any more. */
void
wake_free(struct wake *w)
{
	wake_stop(w);
	if (w->pipe[0] != -1) {
		close(w->pipe[0]);
		close(w->pipe[1]);
	}
	w->pipe[0] = w->pipe[1] = -1;
}
