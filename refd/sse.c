/*
 * sse.c: kept Server-Sent Events (sse.h): one text, as it was sent, and
 * where each event starts in it.  A flush sends the clients that had
 * the last one the same bytes in one chunk (http_chunk_new()), and each
 * other client its own copy.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "sse.h"
#include "util.h"

/* One client of a stream. */
struct sse_client {
	TAILQ_ENTRY(sse_client) entry;
	struct sse	*s;
	struct http_stream *st;
	size_t		 off;		/* the position sent it so far */
};

/* Where one event starts, and its id N.k. */
struct sse_ev {
	long long	 major;		/* N */
	int		 sub;		/* k, 0 for none */
	size_t		 off;		/* its position */
};

/* One stream: its kept events and its clients. */
struct sse {
	char		*buf;		/* the kept text, from position base */
	size_t		 len, cap;
	size_t		 base;		/* bytes of the oldest events gone */
	size_t		 keep;		/* the most text kept from an event
					   on, 0 for no limit */
	size_t		 sent;		/* the position at the last flush */
	struct sse_ev	*ev;		/* the kept events, the oldest first */
	int		 nev, evcap;
	int		 over;		/* closed: no client stays */
	int		 nclients;
	TAILQ_HEAD(, sse_client) clients;
};

/*
 * A new stream, that keeps each event while the text from it to the end
 * is at most keep bytes, or every one if keep is 0 (the last one always).
 * NULL when out of memory.
 */
struct sse *
sse_new(size_t keep)
{
	struct sse	*s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->keep = keep;
	TAILQ_INIT(&s->clients);
	return s;
}

/* A client's stream went (http_stream_open()): forget it. */
static void
sse_gone(void *arg)
{
	struct sse_client *c = arg;

	TAILQ_REMOVE(&c->s->clients, c, entry);
	c->s->nclients--;
	free(c);
}

/* End a client's stream from refd's side, and forget it. */
static void
sse_end_client(struct sse_client *c)
{
	http_stream_end(c->st);
	sse_gone(c);
}

/* Let go of a stream, ending its clients' streams. */
void
sse_free(struct sse *s)
{
	struct sse_client *c;

	while ((c = TAILQ_FIRST(&s->clients)) != NULL)
		sse_end_client(c);
	free(s->buf);
	free(s->ev);
	free(s);
}

/* The position after the last event. */
size_t
sse_end(const struct sse *s)
{
	return s->base + s->len;
}

/* The kept text from position *pos, moved up to the oldest kept. */
static const char *
sse_at(const struct sse *s, size_t *pos)
{
	if (*pos < s->base)
		*pos = s->base;
	return s->buf + (*pos - s->base);
}

/* Drop the oldest events while the text after them is over keep. */
static void
sse_trim(struct sse *s)
{
	size_t	 cut;
	int	 n = 0;

	if (s->keep == 0)
		return;
	while (n < s->nev - 1 && sse_end(s) - s->ev[n].off > s->keep)
		n++;
	if (n == 0)
		return;
	cut = s->ev[n].off - s->base;
	memmove(s->buf, s->buf + cut, s->len - cut);
	s->len -= cut;
	s->base += cut;
	memmove(s->ev, s->ev + n, (size_t)(s->nev - n) * sizeof(*s->ev));
	s->nev -= n;
}

/*
 * Make every byte c of p's n a space: memchr(3) finds the few there are
 * (a loop over each byte tripled the cost of a match's event).
 */
static void
sse_blank(char *p, size_t n, int c)
{
	char	*e = p + n;

	while ((p = memchr(p, c, (size_t)(e - p))) != NULL)
		*p++ = ' ';
}

/*
 * Keep one event of s, data (n bytes, its line ends made spaces and its
 * trailing ones dropped: an event's data is one line), under major, or
 * as the next major.k if an event at major or later was kept already.
 * Clients get it at the next flush.  Returns 0, or -1 when out of
 * memory (the event is lost, the stream as it was).
 */
int
sse_emit(struct sse *s, long long major, const char *data, size_t n)
{
	struct sse_ev	*ev;
	char		 head[64], *p;
	size_t		 hl, need, cap;
	void		*mem;
	int		 sub = 0;

	if (s->nev > 0 && s->ev[s->nev - 1].major >= major) {
		major = s->ev[s->nev - 1].major;
		sub = s->ev[s->nev - 1].sub + 1;
	}
	hl = (size_t)(sub == 0 ? snprintf(head, sizeof(head), "id: %lld\n"
	    "data: ", major) : snprintf(head, sizeof(head), "id: %lld.%d\n"
	    "data: ", major, sub));
	while (n > 0 && (data[n - 1] == ' ' || data[n - 1] == '\n' ||
	    data[n - 1] == '\r'))
		n--;
	need = s->len + hl + n + 2;
	if (need > s->cap) {
		cap = s->cap ? s->cap : 4096;
		while (cap < need)
			cap *= 2;
		if ((mem = realloc(s->buf, cap)) == NULL)
			return -1;
		s->buf = mem;
		s->cap = cap;
	}
	if (s->nev == s->evcap) {
		cap = s->evcap ? 2 * (size_t)s->evcap : 64;
		if ((mem = reallocarray(s->ev, cap, sizeof(*s->ev))) == NULL)
			return -1;
		s->ev = mem;
		s->evcap = (int)cap;
	}
	ev = &s->ev[s->nev++];
	ev->major = major;
	ev->sub = sub;
	ev->off = sse_end(s);
	p = s->buf + s->len;
	memcpy(p, head, hl);
	memcpy(p + hl, data, n);
	sse_blank(p + hl, n, '\n');
	sse_blank(p + hl, n, '\r');
	memcpy(p + hl + n, "\n\n", 2);
	s->len = need;
	sse_trim(s);
	return 0;
}

/* Send each client of s what it has not had yet. */
void
sse_flush(struct sse *s)
{
	struct sse_client *c, *t;
	struct http_chunk *ch = NULL;
	const char	*p;
	size_t		 end = sse_end(s), from;
	int		 r;

	TAILQ_FOREACH_SAFE(c, &s->clients, entry, t) {
		if (c->off >= end)
			continue;
		if (c->off == s->sent && ch == NULL) {
			from = s->sent;
			p = sse_at(s, &from);
			ch = http_chunk_new(p, end - from);
		}
		/* a client dropped here is gone from the list with c */
		if (c->off == s->sent && ch != NULL)
			r = http_stream_send_chunk(c->st, ch);
		else {
			from = c->off;
			p = sse_at(s, &from);
			r = http_stream_send(c->st, p, end - from);
		}
		if (r == 0)
			c->off = end;
	}
	if (ch != NULL)
		http_chunk_unref(ch);
	s->sent = end;
}

/*
 * Close s: each client gets what it has not had, then its stream ends;
 * a client that comes after gets what it asks for, then its end.
 */
void
sse_close(struct sse *s)
{
	struct sse_client *c;

	sse_flush(s);
	while ((c = TAILQ_FIRST(&s->clients)) != NULL)
		sse_end_client(c);
	s->over = 1;
}

/*
 * Answer req with s's events from position from on (sse_after(),
 * sse_latest()), then each as it comes, or its end once s is closed.
 * Returns 0, or -1 if the client is gone or was answered with an error.
 */
int
sse_open(struct sse *s, struct evhttp_request *req, size_t from)
{
	struct sse_client *c;
	const char	*p;
	size_t		 end = sse_end(s);

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		http_error(req, 503, "out of memory");
		return -1;
	}
	c->s = s;
	if ((c->st = http_stream_open(req, sse_gone, c)) == NULL) {
		free(c);
		return -1;
	}
	TAILQ_INSERT_TAIL(&s->clients, c, entry);
	s->nclients++;
	c->off = end;
	if (http_stream_send(c->st, SSE_HELLO, sizeof(SSE_HELLO) - 1) == -1)
		return -1;		/* gone, c with it */
	p = sse_at(s, &from);
	if (from < end && http_stream_send(c->st, p, end - from) == -1)
		return -1;
	if (s->over)
		sse_end_client(c);
	return 0;
}

/* How many clients follow s. */
int
sse_clients(const struct sse *s)
{
	return s->nclients;
}

/* The N of the last event, or -1 if none was kept. */
long long
sse_last(const struct sse *s)
{
	return s->nev > 0 ? s->ev[s->nev - 1].major : -1;
}

/* The position of the last event, or the end if there is none. */
size_t
sse_latest(const struct sse *s)
{
	return s->nev > 0 ? s->ev[s->nev - 1].off : sse_end(s);
}

/*
 * The position of the first kept event after id major.sub (sub 0 for
 * "major" alone), or the end if there is none: an id before the oldest
 * kept gives the oldest kept.
 */
size_t
sse_after(const struct sse *s, long long major, int sub)
{
	int	 i;

	for (i = 0; i < s->nev; i++)
		if (s->ev[i].major > major ||
		    (s->ev[i].major == major && s->ev[i].sub > sub))
			return s->ev[i].off;
	return sse_end(s);
}

/*
 * Parse a Last-Event-ID, "N" or "N.k" (N from 0, k from 1, each in
 * range); -1 if it is not one.
 */
int
sse_id_parse(const char *s, long long *major, int *sub)
{
	char		 num[24];
	const char	*dot = strchr(s, '.'), *errstr;
	size_t		 n = dot != NULL ? (size_t)(dot - s) : strlen(s);

	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	*major = util_num(num, 0, INT64_MAX, &errstr);
	if (errstr != NULL)
		return -1;
	*sub = 0;
	if (dot != NULL) {
		*sub = (int)util_num(dot + 1, 1, INT32_MAX, &errstr);
		if (errstr != NULL)
			return -1;
	}
	return 0;
}
