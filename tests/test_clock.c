/*
 * test_clock: the record of refd's loop stalls (refd/clock.c), which
 * decides how much of a command's time is refd's and not the bot's.
 * The heartbeat is driven by hand with made-up times.
 */
#include <sys/socket.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "clock.h"
#include "util.h"

#define MS	1000		/* microseconds */
#define TICK	(CLOCK_TICK_MS * MS)

/* On-time ticks, and ticks late within the slack, are no stall. */
static void
test_no_stall(void **state)
{
	int64_t	 t = 1000 * MS;
	int	 i;

	(void)state;
	clock_stop();
	clock_tick(t);
	for (i = 0; i < 100; i++) {
		t += TICK + (i % 2 ? CLOCK_SLACK_US : 0);
		clock_tick(t);
	}
	assert_int_equal(clock_stalled(1000 * MS, t), 0);
}

/*
 * A tick 1.5 s late: the stall runs from its due time plus the slack to
 * when it ran, and only the part inside the asked interval counts.
 */
static void
test_one_stall(void **state)
{
	int64_t	 t0 = 5000 * MS, due, late;

	(void)state;
	clock_stop();
	clock_tick(t0);
	due = t0 + TICK;
	late = due + 1500 * MS;
	clock_tick(late);
	assert_int_equal(clock_stalled(t0, late),
	    late - due - CLOCK_SLACK_US);
	/* a command written in the middle of it gets the rest back */
	assert_int_equal(clock_stalled(due + 500 * MS, late),
	    late - due - 500 * MS);
	/* before it or after it: nothing */
	assert_int_equal(clock_stalled(t0 - 100 * MS, due), 0);
	assert_int_equal(clock_stalled(late, late + 5 * MS), 0);
	assert_true(clock_lag_max() >= 1500 * MS);
}

/*
 * A stall still under way (the tick overdue now) counts before the
 * heartbeat has run: a seat's timer may run first after a stall.
 */
static void
test_ongoing_stall(void **state)
{
	int64_t	 t0 = 9000 * MS, due = t0 + TICK;

	(void)state;
	clock_stop();
	clock_tick(t0);
	assert_int_equal(clock_stalled(t0, due), 0);
	assert_int_equal(clock_stalled(t0, due + 800 * MS),
	    800 * MS - CLOCK_SLACK_US);
	/* then the tick runs, and the same stall is counted once */
	clock_tick(due + 800 * MS);
	assert_int_equal(clock_stalled(t0, due + 800 * MS),
	    800 * MS - CLOCK_SLACK_US);
}

/* Many stalls: each counted where it falls. */
static void
test_many_stalls(void **state)
{
	int64_t	 t = 20000 * MS, start = t;
	int	 i;

	(void)state;
	clock_stop();
	clock_tick(t);
	for (i = 0; i < 50; i++) {
		t += TICK + CLOCK_SLACK_US + 3 * MS;	/* 3 ms of stall */
		clock_tick(t);
	}
	assert_int_equal(clock_stalled(start, t), 50 * 3 * MS);
}

/* The read callback of test_wake_precise: when the loop woke. */
static void
note_wake(evutil_socket_t fd, short what, void *arg)
{
	char	 c;

	(void)what;
	if (read(fd, &c, 1) == 1)
		*(int64_t *)arg = clock_wake();
}

/*
 * An answer's arrival is the loop's wake-up time: it must lie between
 * the moment the bytes were written and the moment the callback ran,
 * to the microsecond, not to the 4 ms of a coarse clock.  Each round has
 * a loop of its own, which (as in refd) syncs its cached time with the
 * wall clock when it first takes it, and some time passes before the
 * write, so that a coarse clock's error changes from round to round.
 */
static void
test_wake_precise(void **state)
{
	struct event_config *cfg;
	struct event_base *b;
	struct event	*ev;
	struct timespec	 pause;
	int64_t		 before, wake, after;
	int		 fds[2], i;

	(void)state;
	for (i = 0; i < 20; i++) {
		clock_stop();
		assert_non_null(cfg = event_config_new());
		clock_config(cfg);
		assert_non_null(b = event_base_new_with_config(cfg));
		event_config_free(cfg);
		assert_int_equal(clock_start(b), 0);
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
		wake = 0;
		assert_non_null(ev = event_new(b, fds[0], EV_READ, note_wake,
		    &wake));
		assert_int_equal(event_add(ev, NULL), 0);
		/* the loop takes its time once: then 0-4 ms pass */
		event_base_loop(b, EVLOOP_NONBLOCK);
		pause.tv_sec = 0;
		pause.tv_nsec = (i * 397 % 4000) * 1000L;
		nanosleep(&pause, NULL);
		before = util_now_us();
		assert_int_equal(write(fds[1], "x", 1), 1);
		event_base_loop(b, EVLOOP_ONCE);
		after = util_now_us();
		assert_true(wake != 0);
		if (wake < before - 50 || wake > after + 50)
			fail_msg("round %d: woke at %lld, written at %lld, "
			    "read by %lld", i, (long long)wake,
			    (long long)before, (long long)after);
		event_free(ev);
		close(fds[0]);
		close(fds[1]);
		clock_stop();
		event_base_free(b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_stall),
		cmocka_unit_test(test_one_stall),
		cmocka_unit_test(test_ongoing_stall),
		cmocka_unit_test(test_many_stalls),
		cmocka_unit_test(test_wake_precise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
