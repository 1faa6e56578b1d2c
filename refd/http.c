/*
 * http.c: refd's read-only web server on evhttp, inside the loop.
 *
 * evhttp 2.1 caps neither connections nor a streaming reply's output,
 * so refd keeps its own account.  Each connection evhttp accepts gets
 * its bufferevent from http_newbev(), which keeps a reference to it: the
 * connection is counted from then until evhttp frees it, which
 * http_sweep() sees (the bufferevent's callbacks cleared) and which
 * then lets the last reference, and the descriptor, go.  A connection
 * over the cap, or over the cap of its address, is answered 503 and shut
 * at once; one that has not sent a whole request within HTTP_HEADER_MS
 * (a slowloris, a client that never reads its reply) is shut.  Every
 * reply closes its connection, so that a connection is one request or
 * one stream.  A stream's chunk goes out once the connection's output
 * is checked: past HTTP_QUEUE_MAX the client has fallen behind and is
 * dropped.  A client with nothing waiting gets the chunk straight from
 * the caller's bytes in one system call (http_stream_write()); only what
 * the socket does not take waits in the bufferevent, referring to a
 * chunk that many streams share rather than copying it.  The cost of a
 * spectator is then what the kernel costs (PERFORMANCE.md).  Streams hear a comment every HTTP_HEARTBEAT_MS, and a
 * stream whose peer closed is dropped at the next sweep.  A stream has
 * no read time-out, only a write time-out: a match may be quiet longer
 * than a request may take to arrive.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <sodium.h>

#include "refd.h"
#include "http.h"
#include "log.h"
#include "util.h"

/* One connection evhttp accepted, as refd counts it. */
struct http_conn {
	TAILQ_ENTRY(http_conn) entry;
	struct bufferevent *bev;	/* evhttp's; one reference is ours */
	int		 fd;		/* -1 until evhttp has set it */
	char		 addr[INET6_ADDRSTRLEN]; /* the peer, "" until known */
	int64_t		 since_ms;	/* when it was accepted */
	struct http_stream *stream;	/* its event stream, or NULL */
	int		 shut;		/* shut down by refd */
};

/*
 * Bytes sent as they are down many streams: one copy, referenced by the
 * output of each connection it goes to (evbuffer_add_reference()), freed
 * with its last reference.
 */
struct http_chunk {
	int		 refs;		/* the maker's, and one per queue */
	size_t		 len;
	char		 data[];
};

/* A reply of Server-Sent Events, open until either side ends it. */
struct http_stream {
	struct evhttp_request *req;
	struct http_conn *conn;
	void		(*gone)(void *); /* the client went: told once */
	void		*arg;
	int64_t		 sent_ms;	/* the last write, for heartbeats */
	int		 chunked;	/* HTTP/1.1: each write a chunk */
};

static TAILQ_HEAD(, http_conn) conns = TAILQ_HEAD_INITIALIZER(conns);
static struct evhttp	*http;
static struct event	*sweep_ev;	/* http_sweep() */
static struct event	*known_ev;	/* http_known(): new connections */
static struct evbuffer	*scratch;	/* a chunk on its way to evhttp */
static http_route	*route;
static char		 token[128];	/* "" for none */
static int		 port, nconns, nstreams, max_conns, max_per_addr;
static int64_t		 swept_ms;	/* the last full sweep */
static int		 sweep_fast;	/* the sweep is due within
					   HTTP_SWEEP_MS */
static int		 freed;		/* connections gone since the last
					   trim */

#define HTTP_SWEEP_MS		50	/* collect what evhttp freed */

static void	http_sweep(evutil_socket_t, short, void *);
static void	http_drop(struct http_stream *);
static void	http_chunk_cleanup(const void *, size_t, void *);

/* The reason phrase of a status code refd answers with. */
static const char *
http_reason(int code)
{
	switch (code) {
	case 200:	return "OK";
	case 204:	return "No Content";
	case 400:	return "Bad Request";
	case 401:	return "Unauthorized";
	case 404:	return "Not Found";
	case 405:	return "Method Not Allowed";
	case 410:	return "Gone";
	case 414:	return "URI Too Long";
	case 503:	return "Service Unavailable";
	}
	return "Error";
}

/* The headers of every reply: no outside request, nothing cached. */
static void
http_headers(struct evhttp_request *req, const char *type)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Content-Type", type);
	evhttp_add_header(h, "Cache-Control", "no-store");
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	evhttp_add_header(h, "Referrer-Policy", "no-referrer");
	evhttp_add_header(h, "Content-Security-Policy", "default-src 'self'; "
	    "img-src 'self' data:; frame-ancestors 'none'; form-action 'none'");
	evhttp_add_header(h, "Connection", "close");
}

/* Answer req with code and len bytes of data of the given type. */
void
http_reply(struct evhttp_request *req, int code, const char *type,
    const void *data, size_t len)
{
	struct evbuffer	*b;

	http_headers(req, type);
	if ((b = evbuffer_new()) == NULL || evbuffer_add(b, data, len) == -1) {
		if (b != NULL)
			evbuffer_free(b);
		evhttp_send_error(req, 503, "out of memory");
		return;
	}
	evhttp_send_reply(req, code, http_reason(code), b);
	evbuffer_free(b);
}

/* Answer req with code and a short message, as text and as JSON. */
void
http_error(struct evhttp_request *req, int code, const char *msg)
{
	char	 buf[512];
	int	 n;

	n = snprintf(buf, sizeof(buf), "{\"error\":%d,\"message\":\"%s\"}\n",
	    code, msg);
	http_reply(req, code, "application/json", buf, (size_t)n);
}

/* The connection that req came on, or NULL. */
static struct http_conn *
http_conn_of(struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent	*bev;
	struct http_conn	*c;

	if (evcon == NULL)
		return NULL;
	bev = evhttp_connection_get_bufferevent(evcon);
	TAILQ_FOREACH(c, &conns, entry)
		if (c->bev == bev)
			return c;
	return NULL;
}

/* Has evhttp freed c's connection (its bufferevent's callbacks cleared)? */
static int
http_freed(const struct http_conn *c)
{
	bufferevent_event_cb ecb;

	bufferevent_getcb(c->bev, NULL, NULL, &ecb, NULL);
	return ecb == NULL;
}

/* Sweep within HTTP_SWEEP_MS, not a second: a connection waits. */
static void
http_sweep_soon(void)
{
	struct timeval	 tv = { 0, HTTP_SWEEP_MS * 1000 };

	if (sweep_fast)
		return;
	evtimer_add(sweep_ev, &tv);
	sweep_fast = 1;
}

/* Shut a connection down: evhttp then sees its end and frees it. */
static void
http_shut(struct http_conn *c, const char *say)
{
	if (c->shut || c->fd == -1)
		return;
	if (say != NULL)
		(void)send(c->fd, say, strlen(say), MSG_NOSIGNAL |
		    MSG_DONTWAIT);
	shutdown(c->fd, SHUT_RDWR);
	c->shut = 1;
}

/*
 * A new connection's bufferevent, made for evhttp (evhttp_set_bevcb()),
 * so that refd counts the connection: evhttp sets its descriptor just
 * after, and http_known() then looks at its peer.
 */
static struct bufferevent *
http_newbev(struct event_base *b, void *arg)
{
	struct http_conn	*c;
	struct bufferevent	*bev;

	(void)arg;
	if ((bev = bufferevent_socket_new(b, -1, BEV_OPT_CLOSE_ON_FREE)) ==
	    NULL)
		return NULL;	/* evhttp makes one of its own, uncounted */
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		bufferevent_free(bev);
		return NULL;
	}
	bufferevent_incref(bev);
	bufferevent_priority_set(bev, PRI_SEAT);
	c->bev = bev;
	c->fd = -1;
	c->since_ms = util_now_ms();
	TAILQ_INSERT_TAIL(&conns, c, entry);
	nconns++;
	event_active(known_ev, EV_TIMEOUT, 0);
	http_sweep_soon();
	return bev;
}

/* The peer of each new connection: over a cap, it is refused. */
static void
http_known(evutil_socket_t fd, short what, void *arg)
{
	struct sockaddr_storage	 ss;
	socklen_t		 sl = sizeof(ss);
	struct http_conn	*c, *o;
	const void		*a;
	int			 same;

	(void)fd;
	(void)what;
	(void)arg;
	TAILQ_FOREACH(c, &conns, entry) {
		if (c->fd != -1 || (c->fd = bufferevent_getfd(c->bev)) == -1)
			continue;
		snprintf(c->addr, sizeof(c->addr), "?");
		if (getpeername(c->fd, (struct sockaddr *)&ss, &sl) == 0) {
			a = ss.ss_family == AF_INET6 ?
			    (const void *)&((struct sockaddr_in6 *)&ss)->
			    sin6_addr :
			    (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
			inet_ntop(ss.ss_family, a, c->addr, sizeof(c->addr));
		}
		same = 0;
		TAILQ_FOREACH(o, &conns, entry)
			same += !o->shut && !http_freed(o) &&
			    strcmp(o->addr, c->addr) == 0;
		if (nconns > max_conns || same > max_per_addr) {
			log_debug("http: %s refused: %d connections, %d from "
			    "it", c->addr, nconns, same);
			http_shut(c, "HTTP/1.1 503 Service Unavailable\r\n"
			    "Content-Type: text/plain\r\nContent-Length: 24\r\n"
			    "Connection: close\r\n\r\ntoo many connections\r\n\r\n");
		}
	}
}

/* Has the peer of a stream gone (its end read, or an error)? */
static int
http_peer_gone(int fd)
{
	char	 b;
	ssize_t	 n;

	n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK &&
	    errno != EINTR);
}

/*
 * Collect what evhttp freed, and once a second shut connections that
 * took too long to ask, drop streams whose peer went and send the
 * others their heartbeat.  Runs every HTTP_SWEEP_MS while connections
 * wait for a reply, else once a second.
 */
static void
http_sweep(evutil_socket_t fd, short what, void *arg)
{
	struct http_conn *c, *t;
	struct timeval	 tv;
	int64_t		 now = util_now_ms();
	int		 full = now - swept_ms >= 1000, waiting = 0;

	(void)fd;
	(void)what;
	(void)arg;
	if (full)
		swept_ms = now;
	sweep_fast = 0;
	TAILQ_FOREACH_SAFE(c, &conns, entry, t) {
		if (http_freed(c)) {
			if (c->stream != NULL)
				http_drop(c->stream);
			TAILQ_REMOVE(&conns, c, entry);
			nconns--;
			freed++;
			bufferevent_decref(c->bev);	/* closes it */
			free(c);
			continue;
		}
		if (c->stream == NULL) {
			waiting++;
			if (full && now - c->since_ms > HTTP_HEADER_MS)
				http_shut(c, NULL);
			continue;
		}
		if (!full)
			continue;
		if (c->fd != -1 && http_peer_gone(c->fd))
			http_drop(c->stream);
		else if (now - c->stream->sent_ms >= HTTP_HEARTBEAT_MS)
			http_stream_send(c->stream, ":\n\n", 3);
	}
#ifdef __GLIBC__
	/*
	 * Many clients gone and few left (a crowd of spectators leaving):
	 * give the memory their buffers took back to the system, which
	 * glibc otherwise keeps for the next crowd.
	 */
	if (full && freed >= 64 && nconns < 16) {
		malloc_trim(0);
		freed = 0;
	}
#endif
	tv.tv_sec = 0;
	tv.tv_usec = (waiting ? HTTP_SWEEP_MS : 999) * 1000;
	sweep_fast = waiting > 0;
	if (!TAILQ_EMPTY(&conns))
		evtimer_add(sweep_ev, &tv);
}

/* Does the request carry the token, as a bearer or as ?token=? */
static int
http_authorised(struct evhttp_request *req, const char *query)
{
	struct evkeyvalq q;
	const char	*h, *t = NULL;
	size_t		 n = strlen(token);
	int		 ok;

	if (token[0] == '\0')
		return 1;
	h = evhttp_find_header(evhttp_request_get_input_headers(req),
	    "Authorization");
	if (h != NULL && strncmp(h, "Bearer ", 7) == 0 && strlen(h + 7) == n)
		return sodium_memcmp(h + 7, token, n) == 0;
	if (query == NULL)
		return 0;
	TAILQ_INIT(&q);
	if (evhttp_parse_query_str(query, &q) == -1)
		return 0;
	t = evhttp_find_header(&q, "token");
	ok = t != NULL && strlen(t) == n && sodium_memcmp(t, token, n) == 0;
	evhttp_clear_headers(&q);
	return ok;
}

/* Is path one refd may look up: letters, digits, "/_.-", no "..", "//"? */
static int
http_path_ok(const char *path)
{
	const char	*p;

	if (path[0] != '/' || strstr(path, "..") != NULL ||
	    strstr(path, "//") != NULL)
		return 0;
	for (p = path; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/_.-", *p) != NULL))
			return 0;
	return 1;
}

/* Every request: checked, then handed to the route. */
static void
http_request(struct evhttp_request *req, void *arg)
{
	const struct evhttp_uri *u;
	const char	*uri = evhttp_request_get_uri(req), *path;

	(void)arg;
	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		http_error(req, 405, "only GET");
		return;
	}
	if (uri == NULL || strlen(uri) > HTTP_MAX_PATH) {
		http_error(req, 414, "path too long");
		return;
	}
	if ((u = evhttp_request_get_evhttp_uri(req)) == NULL ||
	    (path = evhttp_uri_get_path(u)) == NULL || !http_path_ok(path)) {
		http_error(req, 400, "malformed path");
		return;
	}
	/* the compiled-in files hold no data: free, for <link>, <script> */
	if (strncmp(path, HTTP_OPEN_PREFIX, strlen(HTTP_OPEN_PREFIX)) != 0 &&
	    !http_authorised(req, evhttp_uri_get_query(u))) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "WWW-Authenticate", "Bearer");
		http_error(req, 401, "a token is needed");
		return;
	}
	route(req, path, evhttp_find_header(evhttp_request_get_input_headers(
	    req), "Last-Event-ID"));
}

/*
 * Listen on host:port for the site, with max connections, at most
 * per_addr of them from one address, every request checked for tok
 * unless it is NULL or "", and handed to fn.  Port 0 takes a free one
 * (http_port()).  Returns 0, or -1 with the reason in err.
 */
int
http_listen(const char *host, int p, const char *tok, int max, int per_addr,
    http_route *fn, char *err, size_t errlen)
{
	struct evhttp_bound_socket *bs;
	struct sockaddr_storage ss;
	socklen_t	 sl = sizeof(ss);

	if ((http = evhttp_new(base)) == NULL ||
	    (scratch = evbuffer_new()) == NULL ||
	    (sweep_ev = evtimer_new(base, http_sweep, NULL)) == NULL ||
	    (known_ev = event_new(base, -1, 0, http_known, NULL)) == NULL) {
		snprintf(err, errlen, "http: out of memory");
		return -1;
	}
	route = fn;
	max_conns = max;
	max_per_addr = per_addr;
	snprintf(token, sizeof(token), "%s", tok != NULL ? tok : "");
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD |
	    EVHTTP_REQ_POST | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
	    EVHTTP_REQ_OPTIONS);
	evhttp_set_max_headers_size(http, HTTP_MAX_HEADERS);
	evhttp_set_max_body_size(http, 0);
	evhttp_set_timeout(http, HTTP_HEADER_MS / 1000);
	evhttp_set_bevcb(http, http_newbev, NULL);
	evhttp_set_gencb(http, http_request, NULL);
	if ((bs = evhttp_bind_socket_with_handle(http, host, (uint16_t)p)) ==
	    NULL) {
		snprintf(err, errlen, "http %s:%d: cannot listen", host, p);
		return -1;
	}
	if (getsockname(evhttp_bound_socket_get_fd(bs),
	    (struct sockaddr *)&ss, &sl) == 0)
		port = ntohs(ss.ss_family == AF_INET6 ?
		    ((struct sockaddr_in6 *)&ss)->sin6_port :
		    ((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}

/* Close every connection and the listener. */
void
http_close(void)
{
	struct http_conn *c;

	if (http == NULL)
		return;
	/* evhttp_free() frees the connections; their streams are told */
	evhttp_free(http);
	http = NULL;
	while ((c = TAILQ_FIRST(&conns)) != NULL) {
		if (c->stream != NULL)
			http_drop(c->stream);
		TAILQ_REMOVE(&conns, c, entry);
		bufferevent_decref(c->bev);
		free(c);
	}
	nconns = 0;
	event_free(sweep_ev);
	event_free(known_ev);
	evbuffer_free(scratch);
}

/* The port the site listens on, or 0. */
int
http_port(void)
{
	return port;
}

/* Connections open now, streams among them. */
int
http_conns(void)
{
	return nconns;
}

int
http_streams(void)
{
	return nstreams;
}

/* A stream's connection is going: tell its owner, free it. */
static void
http_stream_closed(struct evhttp_connection *evcon, void *arg)
{
	struct http_stream *st = arg;
	struct evhttp_request *req = st->req;

	(void)evcon;
	if (st->conn != NULL)
		st->conn->stream = NULL;
	nstreams--;
	st->gone(st->arg);
	/* a request evhttp let go of (its peer went) is ours to free */
	if (req != NULL && evhttp_request_get_connection(req) == NULL)
		evhttp_send_reply_end(req);
	free(st);
}

/* Drop a stream's client: its connection goes, its owner is told. */
static void
http_drop(struct http_stream *st)
{
	struct evhttp_connection *evcon =
			    evhttp_request_get_connection(st->req);

	if (evcon != NULL)
		evhttp_connection_free(evcon);	/* http_stream_closed() */
	else
		http_stream_closed(NULL, st);
}

/*
 * Answer req with a stream of Server-Sent Events.  gone(arg) is called
 * once if the client goes or is dropped; the stream is then freed.
 * Returns the stream, or NULL with req answered with an error.
 */
struct http_stream *
http_stream_open(struct evhttp_request *req, void (*gone)(void *), void *arg)
{
	struct timeval	 wtv = { HTTP_HEADER_MS / 1000, 0 };
	int		 sndbuf = HTTP_SNDBUF;
	struct http_stream *st;
	struct http_conn *c;

	if ((c = http_conn_of(req)) == NULL ||
	    (st = calloc(1, sizeof(*st))) == NULL) {
		http_error(req, 503, "no room for a stream");
		return NULL;
	}
	st->req = req;
	st->conn = c;
	st->gone = gone;
	st->arg = arg;
	st->sent_ms = util_now_ms();
	c->stream = st;
	nstreams++;
	http_headers(req, "text/event-stream");
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "X-Accel-Buffering", "no");
	evhttp_connection_set_closecb(evhttp_request_get_connection(req),
	    http_stream_closed, st);
	evhttp_send_reply_start(req, 200, "OK");
	st->chunked = evhttp_find_header(evhttp_request_get_output_headers(
	    req), "Transfer-Encoding") != NULL;
	/*
	 * A stream waits for its match as long as the match takes: no
	 * read time-out (evhttp's would end it after HTTP_HEADER_MS without
	 * a chunk).  A client that takes none of what waits for it within
	 * HTTP_HEADER_MS is dropped by the write time-out.
	 */
	bufferevent_set_timeouts(c->bev, NULL, &wtv);
	/*
	 * The kernel would hold up to megabytes of a client that reads
	 * slowly before refd saw it behind: HTTP_SNDBUF bounds what it
	 * holds, and the queue's cap is then the measure of behind.
	 */
	if (c->fd != -1)
		(void)setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
		    sizeof(sndbuf));
	return st;
}

/*
 * Has a stream's client fallen behind by more than HTTP_QUEUE_MAX
 * unsent bytes, or gone?  Then it is dropped (its owner told).  Behind
 * is what is still unsent before the next chunk: a first chunk as long
 * as a match's whole history goes, and the client must read it before
 * the next one.
 */
static int
http_stream_behind(struct http_stream *st)
{
	struct evhttp_connection *evcon =
			    evhttp_request_get_connection(st->req);

	if (evcon != NULL && evbuffer_get_length(bufferevent_get_output(
	    evhttp_connection_get_bufferevent(evcon))) <= HTTP_QUEUE_MAX)
		return 0;
	log_debug("http: a stream to %s dropped: it fell behind",
	    st->conn != NULL ? st->conn->addr : "?");
	http_drop(st);
	return 1;
}

/*
 * Send len bytes of data down a stream as its next chunk: of chunk ch,
 * referred to, or copied if ch is NULL.  A client whose connection has
 * nothing waiting (the usual case: it reads as fast as refd writes)
 * gets them at once, in one system call, framed as evhttp frames a
 * chunk: no copy, no queue, no write event to arm and disarm.  What the
 * socket does not take, and every chunk behind bytes that wait, is
 * queued for the connection's bufferevent to write.
 */
static int
http_stream_write(struct http_stream *st, const void *data, size_t len,
    struct http_chunk *ch)
{
	struct bufferevent *bev;
	struct evbuffer	*out;
	struct iovec	 iov[3];
	struct msghdr	 msg;
	const char	*p;
	char		 frame[24];
	ssize_t		 w;
	size_t		 rest;
	int		 fd, i, n = 0, r;

	if (http_stream_behind(st))
		return -1;
	st->sent_ms = util_now_ms();
	bev = evhttp_connection_get_bufferevent(evhttp_request_get_connection(
	    st->req));
	out = bufferevent_get_output(bev);
	if (evbuffer_get_length(out) > 0 || (fd = bufferevent_getfd(bev)) ==
	    -1) {
		/* after what waits, through evhttp */
		r = ch != NULL ? evbuffer_add_reference(scratch, ch->data,
		    ch->len, http_chunk_cleanup, ch) : evbuffer_add(scratch,
		    data, len);
		if (r == -1) {
			http_drop(st);
			return -1;
		}
		if (ch != NULL)
			ch->refs++;
		evhttp_send_reply_chunk_with_cb(st->req, scratch, NULL, NULL);
		/* what evhttp did not take (it let the request go) goes */
		evbuffer_drain(scratch, evbuffer_get_length(scratch));
		return 0;
	}
	if (st->chunked) {
		iov[n].iov_base = frame;
		iov[n++].iov_len = (size_t)snprintf(frame, sizeof(frame),
		    "%zx\r\n", len);
	}
	iov[n].iov_base = (void *)data;
	iov[n++].iov_len = len;
	if (st->chunked) {
		iov[n].iov_base = (void *)"\r\n";
		iov[n++].iov_len = 2;
	}
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = (size_t)n;
	do
		w = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (w == -1 && errno == EINTR);
	/* a full socket, or an error the bufferevent's write meets again */
	if (w == -1)
		w = 0;
	/* the rest as it is: its frame is begun */
	for (i = 0; i < n; i++) {
		if ((size_t)w >= iov[i].iov_len) {
			w -= (ssize_t)iov[i].iov_len;
			continue;
		}
		p = (const char *)iov[i].iov_base + w;
		rest = iov[i].iov_len - (size_t)w;
		w = 0;
		if (iov[i].iov_base == data && ch != NULL) {
			if ((r = evbuffer_add_reference(out, p, rest,
			    http_chunk_cleanup, ch)) == 0)
				ch->refs++;
		} else
			r = evbuffer_add(out, p, rest);
		if (r == -1) {
			http_drop(st);
			return -1;
		}
	}
	if (evbuffer_get_length(out) > 0)
		bufferevent_enable(bev, EV_WRITE);
	return 0;
}

/*
 * Send len bytes down a stream, copied, unless its client has fallen
 * behind (http_stream_behind()): then it is dropped (its owner told)
 * and -1 returned.
 */
int
http_stream_send(struct http_stream *st, const void *data, size_t len)
{
	return http_stream_write(st, data, len, NULL);
}

/*
 * A chunk of len bytes of data, for http_stream_send_chunk(): copied
 * once, whatever the streams it goes down.  NULL if out of memory.  The
 * caller lets go of it with http_chunk_unref() once it is sent.
 */
struct http_chunk *
http_chunk_new(const void *data, size_t len)
{
	struct http_chunk *ch;

	if ((ch = malloc(sizeof(*ch) + len)) == NULL)
		return NULL;
	ch->refs = 1;
	ch->len = len;
	memcpy(ch->data, data, len);
	return ch;
}

/* Let go of a reference to a chunk; the last frees it. */
void
http_chunk_unref(struct http_chunk *ch)
{
	if (--ch->refs == 0)
		free(ch);
}

/* A queue let go of a chunk (evbuffer_add_reference()'s cleanup). */
static void
http_chunk_cleanup(const void *data, size_t len, void *arg)
{
	(void)data;
	(void)len;
	http_chunk_unref(arg);
}

/*
 * Send a chunk down a stream, as http_stream_send() does but without a
 * copy: a queue refers to the chunk's bytes.
 */
int
http_stream_send_chunk(struct http_stream *st, struct http_chunk *ch)
{
	return http_stream_write(st, ch->data, ch->len, ch);
}

/* End a stream from refd's side; its owner is not told. */
void
http_stream_end(struct http_stream *st)
{
	struct evhttp_connection *evcon =
			    evhttp_request_get_connection(st->req);

	if (evcon != NULL)
		evhttp_connection_set_closecb(evcon, NULL, NULL);
	if (st->conn != NULL)
		st->conn->stream = NULL;
	nstreams--;
	evhttp_send_reply_end(st->req);
	free(st);
}
