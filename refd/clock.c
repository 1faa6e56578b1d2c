/*
 * clock.c: the loop's heartbeat and the record of its stalls.
 *
 * Every CLOCK_TICK_MS the heartbeat notes how late it fired.  Lateness
 * beyond CLOCK_SLACK_US is a stall: the interval from when the tick was
 * due (plus the slack) to when it ran.  The last CLOCK_NSTALLS stalls
 * are kept in a ring, and the stall still under way (a tick overdue
 * now) counts too, so that a seat's deadline timer that runs before the
 * heartbeat after a stall sees the stall all the same.
 *
 * The worst lateness is kept twice: as it was, and without the time the
 * loop's thread spent runnable but waiting for a CPU (the kernel's
 * run-queue delay, /proc/thread-self/schedstat), which on a busy machine
 * is the other programs' doing, not refd's.  What is left is refd's own:
 * its work, and any wait inside a call that should not have waited.
 */
#include "config.h"

#include <sys/time.h>

#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>

#include "clock.h"
#include "util.h"

#define CLOCK_NSTALLS	1024	/* at one a tick, 10 s of nothing but */

static struct {
	int64_t	 from, to;
} stalls[CLOCK_NSTALLS];
static int		 nstalls;	/* kept, at most CLOCK_NSTALLS */
static int		 head;		/* where the next one goes */
static int64_t		 due_us;	/* when the next tick is due, 0: none */
static int64_t		 lag_max_us;	/* the worst lateness seen */
static int64_t		 own_max_us;	/* and of it, the loop's own */
static int		 sched_fd = -1;	/* the thread's schedstat */
static int64_t		 runq_us;	/* its run-queue delay at the tick */
static struct event	*tick_ev;
static struct event_base *loop;

/* The heartbeat. */
static void
clock_beat(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	clock_tick(util_now_us());
}

/*
 * Ask the loop about to be made from cfg for a precise clock.  Its
 * cached time is an answer's arrival (clock_wake()), and by default
 * libevent takes it from CLOCK_MONOTONIC_COARSE: 4 ms steps on Linux
 * with HZ=250, so that a bot was charged up to 4 ms too much or too
 * little.  The precise clock costs one timerfd_settime() per pass.
 */
void
clock_config(struct event_config *cfg)
{
	event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
}

/*
 * How long the loop's thread has waited, runnable, for a CPU, in
 * microseconds (the second field of its schedstat), or -1 if unknown.
 */
int64_t
clock_runq_us(void)
{
	char		 buf[96], *p;
	ssize_t		 n;
	long long	 v;

	if (sched_fd == -1 || (n = pread(sched_fd, buf, sizeof(buf) - 1,
	    0)) <= 0)
		return -1;
	buf[n] = '\0';
	strtoll(buf, &p, 10);
	v = strtoll(p, NULL, 10);
	return v / 1000;
}

/* Start the heartbeat on base.  Returns 0, or -1 when it cannot. */
int
clock_start(struct event_base *base)
{
	struct timeval	 tv = { 0, CLOCK_TICK_MS * 1000 };

	loop = base;
	sched_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	runq_us = clock_runq_us();
	if ((tick_ev = event_new(base, -1, EV_PERSIST, clock_beat,
	    NULL)) == NULL || event_add(tick_ev, &tv) == -1)
		return -1;
	due_us = util_now_us() + CLOCK_TICK_MS * 1000;
	return 0;
}

/* Stop the heartbeat and forget every stall. */
void
clock_stop(void)
{
	if (tick_ev != NULL)
		event_free(tick_ev);
	tick_ev = NULL;
	loop = NULL;
	if (sched_fd != -1)
		close(sched_fd);
	sched_fd = -1;
	due_us = lag_max_us = own_max_us = 0;
	nstalls = head = 0;
}

/* A tick ran at now: record how late it was, and when the next is due. */
void
clock_tick(int64_t now)
{
	int64_t	 late = now - due_us, rq = clock_runq_us(), own = late;

	if (due_us != 0 && late > lag_max_us)
		lag_max_us = late;
	if (rq != -1 && runq_us != -1 && rq >= runq_us)
		own -= rq - runq_us;
	runq_us = rq;
	if (due_us != 0 && own > own_max_us)
		own_max_us = own;
	if (due_us != 0 && late > CLOCK_SLACK_US) {
		stalls[head].from = due_us + CLOCK_SLACK_US;
		stalls[head].to = now;
		head = (head + 1) % CLOCK_NSTALLS;
		if (nstalls < CLOCK_NSTALLS)
			nstalls++;
	}
	due_us = now + CLOCK_TICK_MS * 1000;
}

/* Microseconds of [a, b) inside [from, to). */
static int64_t
clock_overlap(int64_t a, int64_t b, int64_t from, int64_t to)
{
	int64_t	 lo = a > from ? a : from, hi = b < to ? b : to;

	return hi > lo ? hi - lo : 0;
}

/*
 * How much of [from, to) refd's loop spent stalled, in microseconds:
 * the recorded stalls, and the one under way if a tick is overdue.
 */
int64_t
clock_stalled(int64_t from, int64_t to)
{
	int64_t	 sum = 0;
	int	 i, k;

	for (i = 0, k = head; i < nstalls; i++) {
		k = (k + CLOCK_NSTALLS - 1) % CLOCK_NSTALLS;
		if (stalls[k].to <= from)
			break;		/* older ones end earlier still */
		sum += clock_overlap(from, to, stalls[k].from, stalls[k].to);
	}
	if (due_us != 0)
		sum += clock_overlap(from, to, due_us + CLOCK_SLACK_US, to);
	return sum;
}

/*
 * When the loop last woke from waiting, on util_now_us()'s clock: what
 * the bots sent was there by then.  libevent takes its time once a
 * wake-up, before any callback runs; its age, measured on the wall
 * clock, is how long ago that was (clamped: a wall clock stepped while
 * the loop ran must not move it far).
 */
int64_t
clock_wake(void)
{
	struct timeval	 cached, wall;
	int64_t		 now = util_now_us(), age;

	if (loop == NULL || event_base_gettimeofday_cached(loop, &cached) ==
	    -1 || gettimeofday(&wall, NULL) == -1)
		return now;
	age = (int64_t)(wall.tv_sec - cached.tv_sec) * 1000000 +
	    (wall.tv_usec - cached.tv_usec);
	if (age < 0)
		age = 0;
	if (age > CLOCK_MAXAGE_US)
		age = CLOCK_MAXAGE_US;
	return now - age;
}

/* The worst lateness of the heartbeat so far, in microseconds. */
int64_t
clock_lag_max(void)
{
	return lag_max_us;
}

/*
 * The worst lateness of the heartbeat so far without the time the loop
 * waited for a CPU: what refd's own work and waits held it.
 */
int64_t
clock_lag_own_max(void)
{
	return own_max_us;
}
