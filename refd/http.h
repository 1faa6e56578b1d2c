/*
 * http.h: refd's read-only web server (refd-http(7)), on libevent's
 * evhttp inside the loop.  It knows nothing of matches: it accepts
 * connections under refd's own caps, checks a request (method, path,
 * token) and hands it to the one route function it was given, which
 * answers with http_reply(), http_error() or a stream of Server-Sent
 * Events (http_stream_*).  Every buffer a client controls is bounded
 * here: connections, connections per address, the header's size and
 * the time to send it, and a stream's queue.
 */
#ifndef REFD_HTTP_H
#define REFD_HTTP_H

#include <stddef.h>

struct evhttp_request;
struct http_chunk;
struct http_stream;

/* The limits refd keeps for evhttp (refd.conf(5), refd-http(7)). */
#define HTTP_MAX_CONNS		1024	/* connections at once */
#define HTTP_MAX_PER_ADDR	64	/* of those, from one address */
#define HTTP_HEADER_MS		10000	/* to send a whole request */
#define HTTP_MAX_HEADERS	8192	/* bytes of a request's headers */
#define HTTP_MAX_PATH		256	/* bytes of a path and its query */
#define HTTP_QUEUE_MAX		(256 * 1024) /* a stream's unsent bytes */
#define HTTP_SNDBUF		(64 * 1024) /* a stream's socket buffer, which
					   Linux doubles */
#define HTTP_HEARTBEAT_MS	15000	/* a comment down every stream */
#define HTTP_OPEN_PREFIX	"/static/" /* asked without the token */

/*
 * A checked request: path is the URI's path, made only of letters,
 * digits and "/_.-", no "..", no "//"; last_id the Last-Event-ID
 * header or NULL.  The route answers it before it returns, or opens a
 * stream on it.
 */
typedef void	 http_route(struct evhttp_request *, const char *path,
		    const char *last_id);

int		 http_listen(const char *, int, const char *, int, int,
		    http_route *, char *, size_t);
void		 http_close(void);
int		 http_port(void);
int		 http_conns(void);
int		 http_streams(void);
void		 http_reply(struct evhttp_request *, int, const char *,
		    const void *, size_t);
void		 http_error(struct evhttp_request *, int, const char *);
struct http_stream *http_stream_open(struct evhttp_request *,
		    void (*)(void *), void *);
int		 http_stream_send(struct http_stream *, const void *, size_t);
struct http_chunk *http_chunk_new(const void *, size_t);
void		 http_chunk_unref(struct http_chunk *);
int		 http_stream_send_chunk(struct http_stream *,
		    struct http_chunk *);
void		 http_stream_end(struct http_stream *);

#endif /* REFD_HTTP_H */
