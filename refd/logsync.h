/*
 * logsync.h: syncing the log's write-ahead log on a thread of its own.
 */
#ifndef REFD_LOGSYNC_H
#define REFD_LOGSYNC_H

#include <stdint.h>

struct event_base;
struct logsync;

/*
 * done(arg, upto, error) runs in the loop when syncs end: every request
 * numbered upto or lower is synced, or error (an errno) says the file
 * could not be; after an error nothing is synced any more.
 */
struct logsync	*logsync_new(struct event_base *, const char *,
		    void (*)(void *, uint64_t, int), void *, char *, size_t);
uint64_t	 logsync_request(struct logsync *);
void		 logsync_free(struct logsync *);

#endif /* REFD_LOGSYNC_H */
