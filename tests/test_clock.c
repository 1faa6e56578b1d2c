/*
 * test_clock: the record of refd's loop stalls (refd/clock.c), which
 * decides how much of a command's time is refd's and not the bot's.
 * The heartbeat is driven by hand with made-up times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "clock.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_stall),
		cmocka_unit_test(test_one_stall),
		cmocka_unit_test(test_ongoing_stall),
		cmocka_unit_test(test_many_stalls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
