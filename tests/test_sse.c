/*
 * test_sse.c: the kept Server-Sent Events of sse.c, which a match's
 * stream and a tournament's share: ids N and N.k, an event's data made
 * one line, a resume by Last-Event-ID before, inside and after the kept
 * events, the oldest events trimmed (never the last) with every client
 * still given each byte once and in order, the flush's one chunk, a
 * closed stream, and Last-Event-ID values no client should send.
 *
 * http.c is replaced here by a recorder: each stream's bytes are kept
 * as the client would read them, and a stream can be made to fail (a
 * client dropped for falling behind) at its next send.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http.h"
#include "sse.h"

#define NSTREAMS	32
#define OUTMAX		(256 * 1024)

/* A client's stream as http.c would give it, recorded. */
struct http_stream {
	void		(*gone)(void *);
	void		*arg;
	char		 out[OUTMAX];	/* every byte it was sent */
	size_t		 len;
	int		 chunks;	/* of them, sends of a shared chunk */
	int		 sends;		/* every send */
	int		 fail;		/* its next send drops it */
	int		 ended;		/* ended from refd's side */
	int		 dropped;	/* gone, its owner told */
};

struct http_chunk {
	int		 refs;
	size_t		 len;
	char		 data[];
};

static struct http_stream streams[NSTREAMS];
static int		 nstreams;
static int		 chunks_live;	/* chunks not let go of */
static int		 last_error;	/* http_error()'s code */
static int		 fail_hello;	/* the next stream fails at once */

struct http_stream *
http_stream_open(struct evhttp_request *req, void (*gone)(void *), void *arg)
{
	struct http_stream *st;

	(void)req;
	assert_true(nstreams < NSTREAMS);
	st = &streams[nstreams++];
	memset(st, 0, sizeof(*st));
	st->gone = gone;
	st->arg = arg;
	st->fail = fail_hello;
	fail_hello = 0;
	return st;
}

/* Record a send, or drop the stream as http.c drops one behind. */
static int
rec_send(struct http_stream *st, const void *data, size_t len)
{
	assert_false(st->ended);
	assert_false(st->dropped);
	if (st->fail) {
		st->dropped = 1;
		st->gone(st->arg);
		return -1;
	}
	assert_true(st->len + len <= OUTMAX);
	memcpy(st->out + st->len, data, len);
	st->len += len;
	st->sends++;
	return 0;
}

int
http_stream_send(struct http_stream *st, const void *data, size_t len)
{
	return rec_send(st, data, len);
}

struct http_chunk *
http_chunk_new(const void *data, size_t len)
{
	struct http_chunk *ch;

	ch = malloc(sizeof(*ch) + len);
	assert_non_null(ch);
	ch->refs = 1;
	ch->len = len;
	memcpy(ch->data, data, len);
	chunks_live++;
	return ch;
}

void
http_chunk_unref(struct http_chunk *ch)
{
	if (--ch->refs == 0) {
		chunks_live--;
		free(ch);
	}
}

int
http_stream_send_chunk(struct http_stream *st, struct http_chunk *ch)
{
	if (rec_send(st, ch->data, ch->len) == -1)
		return -1;
	st->chunks++;
	return 0;
}

void
http_stream_end(struct http_stream *st)
{
	assert_false(st->ended);
	assert_false(st->dropped);
	st->ended = 1;
}

void
http_error(struct evhttp_request *req, int code, const char *msg)
{
	(void)req;
	(void)msg;
	last_error = code;
}

/* Each test starts with no stream and no chunk. */
static int
setup(void **state)
{
	(void)state;
	nstreams = 0;
	chunks_live = 0;
	last_error = 0;
	return 0;
}

/* A request: sse.c only hands it on. */
#define REQ	((struct evhttp_request *)&last_error)

/* Keep an event of a string, which must work. */
static void
emit(struct sse *s, long long major, const char *data)
{
	assert_int_equal(sse_emit(s, major, data, strlen(data)), 0);
}

/* What a new client gets from position from: its text after the hello. */
static const char *
read_from(struct sse *s, size_t from)
{
	struct http_stream *st = &streams[nstreams];
	static char	 text[OUTMAX + 1];

	assert_int_equal(sse_open(s, REQ, from), 0);
	assert_true(st->len >= sizeof(SSE_HELLO) - 1);
	assert_memory_equal(st->out, SSE_HELLO, sizeof(SSE_HELLO) - 1);
	memcpy(text, st->out + sizeof(SSE_HELLO) - 1, st->len -
	    (sizeof(SSE_HELLO) - 1));
	text[st->len - (sizeof(SSE_HELLO) - 1)] = '\0';
	return text;
}

/* An id N, N.k at a major kept already, and N again only when it grows. */
static void
test_ids(void **state)
{
	struct sse	*s;

	(void)state;
	assert_non_null(s = sse_new(0));
	assert_int_equal(sse_last(s), -1);
	assert_int_equal(sse_end(s), 0);
	assert_int_equal(sse_latest(s), 0);
	emit(s, 5, "{\"a\":1}");
	emit(s, 5, "{\"a\":2}");
	emit(s, 5, "{\"a\":3}");
	emit(s, 7, "{\"a\":4}");
	emit(s, 6, "{\"a\":5}");	/* a major gone down: 7.1 */
	emit(s, 0, "{\"a\":6}");
	emit(s, 8, "{\"a\":7}");
	assert_int_equal(sse_last(s), 8);
	assert_string_equal(read_from(s, 0),
	    "id: 5\ndata: {\"a\":1}\n\n"
	    "id: 5.1\ndata: {\"a\":2}\n\n"
	    "id: 5.2\ndata: {\"a\":3}\n\n"
	    "id: 7\ndata: {\"a\":4}\n\n"
	    "id: 7.1\ndata: {\"a\":5}\n\n"
	    "id: 7.2\ndata: {\"a\":6}\n\n"
	    "id: 8\ndata: {\"a\":7}\n\n");
	assert_int_equal(sse_end(s), strlen(read_from(s, 0)));
	assert_string_equal(read_from(s, sse_latest(s)),
	    "id: 8\ndata: {\"a\":7}\n\n");
	/* the largest N a Last-Event-ID may name */
	emit(s, LLONG_MAX, "{}");
	emit(s, LLONG_MAX, "{}");
	assert_string_equal(read_from(s, sse_latest(s)),
	    "id: 9223372036854775807.1\ndata: {}\n\n");
	sse_free(s);
}

/* An event's data is one line: line ends made spaces, trailing ones cut. */
static void
test_one_line(void **state)
{
	struct sse	*s;
	const char	 data[] = "{\"a\":\n1,\r\n\"b\":2}\n  \r\n";

	(void)state;
	assert_non_null(s = sse_new(0));
	assert_int_equal(sse_emit(s, 1, data, sizeof(data) - 1), 0);
	/* only the n bytes given, not what follows them */
	assert_int_equal(sse_emit(s, 2, "{}XYZ", 2), 0);
	emit(s, 3, "\n\n");
	assert_string_equal(read_from(s, 0),
	    "id: 1\ndata: {\"a\": 1,  \"b\":2}\n\n"
	    "id: 2\ndata: {}\n\n"
	    "id: 3\ndata: \n\n");
	sse_free(s);
}

/* Events 1, 2, 2.1, 4 kept from the start (a match's stream). */
static struct sse *
four(void)
{
	struct sse	*s;

	assert_non_null(s = sse_new(0));
	emit(s, 1, "one");
	emit(s, 2, "two");
	emit(s, 2, "two more");
	emit(s, 4, "four");
	return s;
}

/* A resume by Last-Event-ID: before, at, inside and after the kept. */
static void
test_resume(void **state)
{
	struct sse	*s = four();
	const char	*all = "id: 1\ndata: one\n\nid: 2\ndata: two\n\n"
			    "id: 2.1\ndata: two more\n\nid: 4\ndata: four\n\n";

	(void)state;
	/* no Last-Event-ID at a match's stream: -1, every event */
	assert_string_equal(read_from(s, sse_after(s, -1, 0)), all);
	assert_string_equal(read_from(s, sse_after(s, 0, 0)), all);
	assert_string_equal(read_from(s, sse_after(s, 0, 7)), all);
	assert_string_equal(read_from(s, sse_after(s, 1, 0)), strstr(all,
	    "id: 2\n"));
	assert_string_equal(read_from(s, sse_after(s, 2, 0)), strstr(all,
	    "id: 2.1\n"));
	assert_string_equal(read_from(s, sse_after(s, 2, 1)), strstr(all,
	    "id: 4\n"));
	/* a k this refd never sent, and an N between two kept */
	assert_string_equal(read_from(s, sse_after(s, 2, 9)), strstr(all,
	    "id: 4\n"));
	assert_string_equal(read_from(s, sse_after(s, 3, 0)), strstr(all,
	    "id: 4\n"));
	/* the last, and beyond it: nothing but the hello */
	assert_int_equal(sse_after(s, 4, 0), sse_end(s));
	assert_int_equal(sse_after(s, 4, 1), sse_end(s));
	assert_int_equal(sse_after(s, 5, 0), sse_end(s));
	assert_int_equal(sse_after(s, LLONG_MAX, INT_MAX), sse_end(s));
	assert_string_equal(read_from(s, sse_after(s, 99, 0)), "");
	sse_free(s);
	assert_int_equal(chunks_live, 0);
}

/*
 * With a keep, the oldest events go once the text after them is over
 * it; the last stays however long; positions go on counting, and an
 * id before the kept resumes at the oldest kept.
 */
static void
test_trim(void **state)
{
	struct sse	*s;
	struct http_stream *st;
	char		 data[64], want[256], big[400];
	size_t		 ev = strlen("id: 10\ndata: ") + 20 + 2, pos;
	int		 i;

	(void)state;
	/* each event of N from 10 to 99 is ev bytes: three fit in 3 * ev */
	assert_non_null(s = sse_new(3 * ev));
	/* a client from the start, that sees every byte once, in order */
	assert_int_equal(sse_open(s, REQ, 0), 0);
	st = &streams[0];
	for (i = 10; i < 20; i++) {
		snprintf(data, sizeof(data), "%020d", i);
		emit(s, i, data);
		sse_flush(s);
	}
	assert_int_equal(sse_end(s), 10 * ev);
	/* 17, 18, 19 are kept: 3 * ev; 16 was one event over */
	assert_int_equal(sse_after(s, 0, 0), 7 * ev);
	assert_int_equal(sse_after(s, 16, 0), 7 * ev);
	assert_int_equal(sse_after(s, 17, 0), 8 * ev);
	assert_int_equal(sse_latest(s), 9 * ev);
	snprintf(want, sizeof(want), "id: 17\ndata: %020d\n\nid: 18\ndata: "
	    "%020d\n\nid: 19\ndata: %020d\n\n", 17, 18, 19);
	assert_string_equal(read_from(s, sse_after(s, 12, 0)), want);
	/* a position before the kept means the oldest kept */
	assert_string_equal(read_from(s, 0), want);
	/* the first client had all of it, once */
	assert_int_equal(st->len, sizeof(SSE_HELLO) - 1 + 10 * ev);
	for (i = 10, pos = sizeof(SSE_HELLO) - 1; i < 20; i++, pos += ev) {
		snprintf(want, sizeof(want), "id: %d\ndata: %020d\n\n", i, i);
		assert_memory_equal(st->out + pos, want, ev);
	}
	/* an event longer than the keep stays, alone */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	emit(s, 20, big);
	sse_flush(s);
	assert_int_equal(sse_after(s, 0, 0), 10 * ev);
	assert_int_equal(sse_latest(s), 10 * ev);
	emit(s, 21, "y");
	assert_int_equal(sse_after(s, 0, 0), sse_latest(s));
	assert_string_equal(read_from(s, sse_after(s, 0, 0)),
	    "id: 21\ndata: y\n\n");
	sse_flush(s);
	assert_int_equal(st->len, sizeof(SSE_HELLO) - 1 + sse_end(s));
	sse_free(s);
	assert_true(st->ended);
	assert_int_equal(chunks_live, 0);
}

/*
 * A flush: the clients that had the last one share one chunk, one that
 * came since gets its own copy, each gets what it lacks once; a client
 * dropped at its send is forgotten.
 */
static void
test_flush(void **state)
{
	struct sse	*s = four();
	struct http_stream *a, *b, *c;

	(void)state;
	assert_int_equal(sse_open(s, REQ, 0), 0);
	assert_int_equal(sse_open(s, REQ, sse_latest(s)), 0);
	a = &streams[0];
	b = &streams[1];
	assert_int_equal(sse_clients(s), 2);
	sse_flush(s);			/* they had it all at their opening */
	assert_int_equal(a->sends + b->sends, 4);
	emit(s, 5, "five");
	emit(s, 6, "six");
	assert_int_equal(sse_open(s, REQ, sse_after(s, 4, 0)), 0);
	c = &streams[2];
	emit(s, 7, "seven");
	sse_flush(s);
	assert_int_equal(a->chunks, 1);
	assert_int_equal(b->chunks, 1);
	assert_int_equal(c->chunks, 0);
	assert_int_equal(chunks_live, 0);
	assert_string_equal(c->out + c->len - strlen("id: 5\ndata: five\n\n"
	    "id: 6\ndata: six\n\nid: 7\ndata: seven\n\n"), "id: 5\ndata: five"
	    "\n\nid: 6\ndata: six\n\nid: 7\ndata: seven\n\n");
	assert_memory_equal(a->out + a->len - b->len + strlen(SSE_HELLO),
	    b->out + strlen(SSE_HELLO), b->len - strlen(SSE_HELLO));
	/* b falls behind: dropped at its next send, the others go on */
	b->fail = 1;
	emit(s, 8, "eight");
	sse_flush(s);
	assert_true(b->dropped);
	assert_int_equal(sse_clients(s), 2);
	assert_int_equal(a->len, c->len + strlen("id: 1\ndata: one\n\n"
	    "id: 2\ndata: two\n\nid: 2.1\ndata: two more\n\nid: 4\ndata: "
	    "four\n\n"));
	sse_free(s);
	assert_true(a->ended && c->ended);
	assert_false(b->ended);
	assert_int_equal(chunks_live, 0);
}

/* A client dropped at its hello is forgotten at once. */
static void
test_open_dropped(void **state)
{
	struct sse	*s = four();

	(void)state;
	fail_hello = 1;
	assert_int_equal(sse_open(s, REQ, 0), -1);
	assert_true(streams[0].dropped);
	assert_int_equal(sse_clients(s), 0);
	emit(s, 5, "five");
	sse_flush(s);
	assert_int_equal(streams[0].len, 0);
	sse_free(s);
	assert_false(streams[0].ended);
	assert_int_equal(chunks_live, 0);
}

/*
 * A closed stream: its clients get what they lacked, then their end; a
 * client that comes after gets what it asked for and its end at once.
 */
static void
test_close(void **state)
{
	struct sse	*s = four();

	(void)state;
	assert_int_equal(sse_open(s, REQ, sse_latest(s)), 0);
	emit(s, 5, "end");
	sse_close(s);
	assert_true(streams[0].ended);
	assert_string_equal(streams[0].out + streams[0].len -
	    strlen("id: 5\ndata: end\n\n"), "id: 5\ndata: end\n\n");
	assert_int_equal(sse_clients(s), 0);
	assert_string_equal(read_from(s, sse_after(s, 4, 0)),
	    "id: 5\ndata: end\n\n");
	assert_true(streams[1].ended);
	assert_int_equal(sse_clients(s), 0);
	assert_int_equal(sse_after(s, 5, 0), sse_end(s));
	sse_free(s);
	assert_int_equal(chunks_live, 0);
}

/* Last-Event-ID: what is an event id, and what a client may not send. */
static void
test_id_parse(void **state)
{
	static const struct {
		const char	*s;
		int		 ok;
		long long	 major;
		int		 sub;
	} t[] = {
		{ "0", 1, 0, 0 },
		{ "7", 1, 7, 0 },
		{ "7.3", 1, 7, 3 },
		{ "12.2147483647", 1, 12, INT_MAX },
		{ "9223372036854775807", 1, LLONG_MAX, 0 },
		{ "9223372036854775807.1", 1, LLONG_MAX, 1 },
		{ "", 0, 0, 0 },
		{ ".", 0, 0, 0 },
		{ ".1", 0, 0, 0 },
		{ "1.", 0, 0, 0 },
		{ "abc", 0, 0, 0 },
		{ "12x", 0, 0, 0 },
		{ "x12", 0, 0, 0 },
		{ "0x10", 0, 0, 0 },
		{ "1e3", 0, 0, 0 },
		{ "-1", 0, 0, 0 },
		{ "-1.1", 0, 0, 0 },
		{ "-9223372036854775808", 0, 0, 0 },
		{ "9223372036854775808", 0, 0, 0 },
		{ "99999999999999999999", 0, 0, 0 },
		{ "99999999999999999999999", 0, 0, 0 },
		{ "000000000000000000000001", 0, 0, 0 },
		{ "1.0", 0, 0, 0 },
		{ "1.-1", 0, 0, 0 },
		{ "1.x", 0, 0, 0 },
		{ "1.1x", 0, 0, 0 },
		{ "1.2.3", 0, 0, 0 },
		{ "1..2", 0, 0, 0 },
		{ "1.2147483648", 0, 0, 0 },
		{ "1.99999999999999999999", 0, 0, 0 },
		{ "1.000000000000000000001", 0, 0, 0 },
	};
	char		 longid[8192];
	long long	 major;
	size_t		 i;
	int		 sub;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		major = -2;
		sub = -2;
		if (!t[i].ok) {
			if (sse_id_parse(t[i].s, &major, &sub) != -1)
				fail_msg("\"%s\" read as %lld.%d", t[i].s,
				    major, sub);
			continue;
		}
		if (sse_id_parse(t[i].s, &major, &sub) != 0)
			fail_msg("\"%s\" refused", t[i].s);
		assert_int_equal(major, t[i].major);
		assert_int_equal(sub, t[i].sub);
	}
	/* overlong, every way: digits, then a dot and digits */
	memset(longid, '1', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	assert_int_equal(sse_id_parse(longid, &major, &sub), -1);
	longid[1] = '.';
	assert_int_equal(sse_id_parse(longid, &major, &sub), -1);
	longid[1] = '1';
	longid[sizeof(longid) - 3] = '.';
	assert_int_equal(sse_id_parse(longid, &major, &sub), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ids, setup),
		cmocka_unit_test_setup(test_one_line, setup),
		cmocka_unit_test_setup(test_resume, setup),
		cmocka_unit_test_setup(test_trim, setup),
		cmocka_unit_test_setup(test_flush, setup),
		cmocka_unit_test_setup(test_open_dropped, setup),
		cmocka_unit_test_setup(test_close, setup),
		cmocka_unit_test_setup(test_id_parse, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
