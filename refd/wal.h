/*
 * wal.h: a check of a SQLite write-ahead log file as the audit finds it,
 * before SQLite reads it.  SQLite stops reading a WAL at its first bad
 * frame and ignores the rest without a word, so a truncated WAL or one
 * flipped byte would silently drop the log's tail; wal_check() says so.
 *
 * wal_check(path, why, len) looks at path's "-wal" file: 0 if there is
 * none, or an empty one, or a whole one (its header and every frame of
 * its current generation sound, the last of them a commit); -1 with the
 * reason in why (len bytes) if not.  Frames of an earlier generation
 * (other salts) after the current ones are what SQLite leaves when it
 * restarts a WAL, and are not damage.
 *
 * What SQLite acknowledged is what its index (the "-shm" file) records:
 * a commit returns only once the index holds it.  Every frame it records
 * must be there, sound, and end in a commit.  Past them may be a
 * transaction a live writer is writing, or one its death cut short
 * before it was acknowledged: a part of a frame, a torn frame, or frames
 * without their commit there are not damage, since refd never acted on
 * them.  A check that fails while the WAL or its index changes is a
 * check of a live writer half way: it is made again, and only a failure
 * that holds while nothing moves is reported.
 */
#ifndef REFD_WAL_H
#define REFD_WAL_H

#include <stddef.h>

int	wal_check(const char *, char *, size_t);

#endif /* REFD_WAL_H */
