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
 */
#ifndef REFD_WAL_H
#define REFD_WAL_H

#include <stddef.h>

int	wal_check(const char *, char *, size_t);

#endif /* REFD_WAL_H */
