/*
 * refd.h: what the whole daemon shares: its settings, its event base and
 * its log, the event priorities, and starting and stopping.  Each module
 * has a header of its own for the rest (seat.h, match.h, bots.h,
 * tourney.h, ctl.h, conf.h), so that a module sees only what it uses.
 */
#ifndef REFD_H
#define REFD_H

#include <stdint.h>

#include "conf.h"

#define REFD_VERSION		PACKAGE_VERSION

/*
 * Event priorities, lowest first served.  The log's commit timer
 * (seat.c) runs first once it is due; libevent gives any other new
 * event PRI_COUNT / 2, PRI_CTL: the control socket, the listeners,
 * timers and signals.  The bots' input is served last, for at most
 * REFD_CHUNK_MS at a time, so that an operator never waits behind
 * thousands of them; the flush, which commits what is due and writes
 * to the bots, is made active at that priority and so runs after the
 * input callbacks already due, in the same pass.
 */
enum { PRI_FLUSH, PRI_CTL, PRI_SEAT, PRI_COUNT };
#define REFD_CHUNK_MS		5

struct db;
struct event_base;

extern struct refd_conf	 conf;
extern struct event_base *base;
extern struct db	*logdb;

void		 refd_shutdown(void);
int		 refd_stopping(void);

#endif /* REFD_H */
