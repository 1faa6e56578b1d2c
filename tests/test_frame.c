/*
 * test_frame.c: a bot's answers framed line by line (refd/frame.c) on
 * their own: a short answer lives in the frame itself, a long one in
 * room taken for it and given back with the next short one, and the cap
 * of GTP_MAXLINE holds for one line as for an answer of many.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "frame.h"
#include "gtp.h"

/* Frame text (a copy: frame_line() cleans its line in place). */
static int
feed(struct frame *f, const char *text, int awaited, long expect)
{
	char	 line[2 * GTP_MAXLINE + 1];
	size_t	 len = strlen(text);

	assert_true(len < sizeof(line));
	memcpy(line, text, len + 1);
	return frame_line(f, line, len, awaited, expect);
}

/* A line of len bytes: "=id " then x's. */
static void
answer_line(char *buf, size_t len, long id)
{
	int	 n;

	n = snprintf(buf, len + 1, "=%ld ", id);
	memset(buf + n, 'x', len - (size_t)n);
	buf[len] = '\0';
}

static void
test_short_answer(void **state)
{
	struct frame	 f;

	(void)state;
	frame_init(&f);
	assert_int_equal(feed(&f, "=3 10D", 1, 3), FRAME_MORE);
	assert_int_equal(feed(&f, "", 1, 3), FRAME_DONE);
	assert_string_equal(f.text, "10D");
	assert_ptr_equal(f.text, f.small);
	assert_null(f.big);
	assert_int_equal(f.id, 3);
	assert_int_equal(f.ok, 1);
	frame_free(&f);
}

/* An answer outgrowing small moves to big, text and all. */
static void
test_long_answer_and_back(void **state)
{
	struct frame	 f;
	char		 want[200];

	(void)state;
	frame_init(&f);
	assert_int_equal(feed(&f, "=4 first line", 1, 4), FRAME_MORE);
	assert_ptr_equal(f.text, f.small);
	memset(want, 'y', 100);
	want[100] = '\0';
	assert_int_equal(feed(&f, want, 1, 4), FRAME_MORE);
	assert_non_null(f.big);
	assert_ptr_equal(f.text, f.big);
	assert_int_equal(feed(&f, "", 1, 4), FRAME_DONE);
	assert_int_equal(f.len, strlen("first line") + 1 + 100);
	assert_memory_equal(f.text, "first line\n", 11);
	assert_string_equal(f.text + 11, want);
	/* the next short answer gives the room back */
	assert_int_equal(feed(&f, "=5 AS", 1, 5), FRAME_MORE);
	assert_null(f.big);
	assert_int_equal(feed(&f, "", 1, 5), FRAME_DONE);
	assert_string_equal(f.text, "AS");
	frame_free(&f);
	assert_null(f.big);
}

/* One line: text of GTP_MAXLINE - 1 bytes fits, GTP_MAXLINE does not. */
static void
test_line_cap(void **state)
{
	struct frame	 f;
	char		 line[GTP_MAXLINE + 8];

	(void)state;
	frame_init(&f);
	answer_line(line, strlen("=6 ") + GTP_MAXLINE - 1, 6);
	assert_int_equal(feed(&f, line, 1, 6), FRAME_MORE);
	assert_int_equal(f.len, GTP_MAXLINE - 1);
	assert_int_equal(feed(&f, "", 1, 6), FRAME_DONE);
	answer_line(line, strlen("=7 ") + GTP_MAXLINE, 7);
	assert_int_equal(feed(&f, line, 1, 7), FRAME_OVERLONG);
	assert_string_equal(f.ev, "answer longer than the line cap");
	frame_free(&f);
}

/* Many lines of one answer: no more than the cap in all. */
static void
test_answer_cap(void **state)
{
	struct frame	 f;
	char		 chunk[101];
	int		 i, r = FRAME_MORE;

	(void)state;
	frame_init(&f);
	memset(chunk, 'z', 100);
	chunk[100] = '\0';
	assert_int_equal(feed(&f, "=8 a", 1, 8), FRAME_MORE);
	for (i = 0; i < 100 && r == FRAME_MORE; i++) {
		r = feed(&f, chunk, 1, 8);
		assert_true(f.len < GTP_MAXLINE);
	}
	assert_int_equal(r, FRAME_OVERLONG);
	/* 1 + 40 lines of 101 bytes fit in 4095, the 41st line does not */
	assert_int_equal(i, (GTP_MAXLINE - 2) / 101 + 1);
	frame_free(&f);
}

/* Faults leave the evidence and take no room. */
static void
test_faults(void **state)
{
	struct frame	 f;

	(void)state;
	frame_init(&f);
	assert_int_equal(feed(&f, "=9 QC", 1, 8), FRAME_WRONGID);
	assert_string_equal(f.ev, "expected id 8: =9 QC");
	assert_int_equal(feed(&f, "=9 QC", 0, -1), FRAME_UNASKED);
	assert_int_equal(feed(&f, "hello", 1, 9), FRAME_GARBAGE);
	assert_string_equal(frame_fault_name(FRAME_NOMEM), "unresponsive");
	assert_null(f.big);
	frame_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_answer),
		cmocka_unit_test(test_long_answer_and_back),
		cmocka_unit_test(test_line_cap),
		cmocka_unit_test(test_answer_cap),
		cmocka_unit_test(test_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
