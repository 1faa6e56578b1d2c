/*
 * sse.h: kept Server-Sent Events (refd-http(7)): a stream's events, kept
 * as sent, and the clients that follow it; a match's (site.c) and a
 * tournament's (tstream.c).  An event's id is "N", or "N.k" for the
 * k-th further one at the same N, N the caller's and never going down.
 * A position counts the stream's bytes from its start: a client opens
 * at one (sse_after() a Last-Event-ID, sse_latest()), sse_emit() keeps
 * an event, sse_flush() sends each client what it lacks, sse_close()
 * ends them all.
 */
#ifndef REFD_SSE_H
#define REFD_SSE_H

#include <stddef.h>

#define SSE_HELLO	"retry: 2000\n\n"	/* what a new client gets first */

struct evhttp_request;
struct sse;

struct sse	*sse_new(size_t);
void		 sse_free(struct sse *);
int		 sse_emit(struct sse *, long long, const char *, size_t);
void		 sse_flush(struct sse *);
void		 sse_close(struct sse *);
int		 sse_open(struct sse *, struct evhttp_request *, size_t);
int		 sse_clients(const struct sse *);
long long	 sse_last(const struct sse *);
size_t		 sse_end(const struct sse *);
size_t		 sse_latest(const struct sse *);
size_t		 sse_after(const struct sse *, long long, int);
int		 sse_id_parse(const char *, long long *, int *);

#endif /* REFD_SSE_H */
