/*
 * tstream.h: a tournament's event stream for the web site (refd-http(7)):
 * its progress, standings and SPRT pushed as Server-Sent Events when a
 * match of it ends or it ends, each event the JSON of
 * /api/v1/tournaments/ID, resumable by Last-Event-ID.
 *
 * tstream_start() hears of matches' and tournaments' ends through their
 * observers; tstream_events() answers GET /api/v1/tournaments/ID/events
 * with last, the request's Last-Event-ID or NULL; tstream_stop() lets
 * go of everything, its clients already gone with http_close().
 */
#ifndef REFD_TSTREAM_H
#define REFD_TSTREAM_H

#include <stdint.h>

struct evhttp_request;

int		 tstream_start(void);
void		 tstream_stop(void);
void		 tstream_events(struct evhttp_request *, int64_t, const char *);

#endif /* REFD_TSTREAM_H */
