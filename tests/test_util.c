/*
 * test_util.c: util_format() against snprintf(3), byte for byte and in
 * its return value, for every conversion it writes itself (and one it
 * hands to vsnprintf), the extremes of each number, and every buffer
 * length from 0 past the whole text: the lines to bots and the chained
 * texts of the log are made with it.
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util.h"

#define BUFLEN	96

/* Both ways, at every length 0 to BUFLEN: the same bytes and result. */
#define SAME(...) do {							\
	char	 a[BUFLEN], b[BUFLEN];					\
	size_t	 len;							\
	int	 na, nb;						\
									\
	for (len = 0; len <= BUFLEN; len++) {				\
		memset(a, 'x', sizeof(a));				\
		memset(b, 'x', sizeof(b));				\
		na = snprintf(a, len, __VA_ARGS__);			\
		nb = util_format(b, len, __VA_ARGS__);			\
		assert_int_equal(na, nb);				\
		assert_memory_equal(a, b, sizeof(a));			\
	}								\
} while (0)

static void
test_format(void **state)
{

	(void)state;
	SAME("plain text, no conversion");
	SAME("%s", "");
	SAME("%s", "a line as the match builds it");
	SAME("play %d %s", 2, "10D");
	SAME("trick %d %d", 0, 120);
	SAME("%d %d %d", INT_MIN, INT_MAX, -1);
	SAME("%lld|%lld|%lld|%lld", LLONG_MIN, LLONG_MAX, 0LL, -10LL);
	SAME("play %lld %lld trick=%lld seat=%lld card=", 12LL, 345LL, 6LL,
	    2LL);
	SAME(" %s=%zu:", "answer", (size_t)3);
	SAME("%zu %zu", (size_t)0, SIZE_MAX);
	SAME("%c%s", '=', "9C");
	SAME("100%% and %d%%", 50);
	SAME("%s%s%s", "seat", "", "2");
	SAME("%.5s|%03d|%x", "abcdefgh", 7, 255);	/* vsnprintf's */
	/* vsnprintf's after conversions of its own, their values taken */
	SAME("%s %d then %x", "ab", 5, 255);
	SAME("seat %lld %zu %lu %c", 3LL, (size_t)4, 5UL, 'x');
}

/* The mask the thread of test_thread() started with. */
static void *
thread_mask(void *arg)
{
	pthread_sigmask(SIG_SETMASK, NULL, arg);
	return NULL;
}

/* util_thread(): the thread starts with every signal blocked, and the
   caller's mask is left as it was. */
static void
test_thread(void **state)
{
	sigset_t	 none, before, after, seen;
	pthread_t	 t;

	(void)state;
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, &before);
	sigemptyset(&seen);
	assert_int_equal(util_thread(&t, thread_mask, &seen), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(sigismember(&seen, SIGTERM));
	assert_true(sigismember(&seen, SIGCHLD));
	assert_true(sigismember(&seen, SIGINT));
	pthread_sigmask(SIG_SETMASK, &before, &after);
	assert_false(sigismember(&after, SIGTERM));
	assert_false(sigismember(&after, SIGCHLD));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
