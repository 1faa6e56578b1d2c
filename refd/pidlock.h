/*
 * pidlock.h: one refd to a log.  A second refd started on a log that
 * one already serves would mark the first one's running matches aborted
 * and write into its tournaments; it is refused before it writes
 * anything.
 *
 * pidlock_take(db, err, errlen) takes an exclusive flock(2) on the file
 * db followed by ".lock", created (mode 0600) if need be, and writes the
 * caller's pid into it.  The lock lasts as long as the descriptor it
 * returns, which is close-on-exec and is kept across fork(2) and
 * daemon(3): flock(2) locks belong to the open file, not the process.
 * Returns that descriptor, or -1 with the reason in err: "the log is in
 * use by refd pid N" when another process holds the lock.
 *
 * pidlock_mark(fd) writes the caller's pid into the lock file again,
 * after daemon(3) changed it.
 */
#ifndef REFD_PIDLOCK_H
#define REFD_PIDLOCK_H

#include <stddef.h>

int	pidlock_take(const char *, char *, size_t);
void	pidlock_mark(int);

#endif /* REFD_PIDLOCK_H */
