/*
 * botlog.c: the bot logs directory under a total cap.
 *
 * Each spawned bot's stderr log is capped (1 MiB, seat.c), but a
 * tournament spawns bots by the thousand: without a total the directory
 * grows by a MiB a bot a match until the disk is full.  Here the bytes
 * written are counted as they go; when the count passes the cap the
 * directory is read, the total taken again from the files themselves,
 * and refd's own logs ("matchN-seatS-BOT.log", regular files only) are
 * removed, oldest first, until nine tenths of the cap are left, so that
 * the directory is read once per tenth of the cap written, not once per
 * write.  Nothing else in the directory is ever touched.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "botlog.h"
#include "log.h"

/* One log found in the directory. */
struct botlog_file {
	char		 name[256];
	int64_t		 size;
	struct timespec	 mtime;
};

static char	 dir[4096];	/* the directory, "" for none */
static int64_t	 cap;		/* bytes, 0: no cap */
static int64_t	 total;		/* bytes, as far as refd knows */
static int64_t	 next;		/* read the directory past this total */

/* Is name one of refd's own bot logs, "matchN-seatS-BOT.log"? */
int
botlog_name_ok(const char *name)
{
	const char	*p = name, *q;
	size_t		 n = strlen(name);

	if (strncmp(p, "match", 5) != 0 || n < 16 ||
	    strcmp(name + n - 4, ".log") != 0)
		return 0;
	for (p += 5; *p >= '0' && *p <= '9'; p++)
		;
	if (p == name + 5 || strncmp(p, "-seat", 5) != 0)
		return 0;
	for (q = p += 5; *p >= '0' && *p <= '9'; p++)
		;
	return p > q && *p == '-';
}

/* Oldest first; names break ties, so the order is the same each time. */
static int
botlog_cmp(const void *a, const void *b)
{
	const struct botlog_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Read the directory: the total again, and with a cap, the oldest logs
 * removed until at most nine tenths of it are left.
 */
static void
botlog_scan(void)
{
	struct botlog_file *v = NULL, *nv;
	struct dirent	*de;
	struct stat	 sb;
	DIR		*d;
	int		 dfd;
	size_t		 n = 0, room = 0, i, gone = 0;
	int64_t		 keep = cap - cap / 10;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (d = fdopendir(dfd)) == NULL) {
		log_warn("bot logs %s", dir);
		if (dfd != -1)
			close(dfd);
		return;
	}
	total = 0;
	while ((de = readdir(d)) != NULL) {
		if (!botlog_name_ok(de->d_name) ||
		    strlen(de->d_name) >= sizeof(v->name) ||
		    fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(sb.st_mode))
			continue;
		if (n == room) {
			room = room ? room * 2 : 64;
			if ((nv = reallocarray(v, room, sizeof(*v))) == NULL) {
				log_warnx("bot logs %s: out of memory", dir);
				break;
			}
			v = nv;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].size = (int64_t)sb.st_size;
		v[n].mtime = sb.st_mtim;
		total += v[n].size;
		n++;
	}
	if (cap > 0 && total > keep && n > 0) {
		qsort(v, n, sizeof(*v), botlog_cmp);
		for (i = 0; i < n && total > keep; i++) {
			if (unlinkat(dfd, v[i].name, 0) == -1 &&
			    errno != ENOENT)
				continue;
			total -= v[i].size;
			gone++;
		}
		log_info("bot logs %s: %zu oldest removed, %lld bytes left "
		    "(botlog_max_mb %lld)", dir, gone, (long long)total,
		    (long long)(cap >> 20));
	}
	/* what could not be removed is not read again at every write */
	next = total > keep ? total + cap / 10 : cap;
	closedir(d);
	free(v);
}

/*
 * The bot logs go to directory path ("" or NULL: none), capped at
 * max_bytes in all (0: no cap): the directory is read now, and trimmed
 * if it is over.
 */
void
botlog_init(const char *path, int64_t max_bytes)
{
	snprintf(dir, sizeof(dir), "%s", path != NULL ? path : "");
	cap = max_bytes;
	total = 0;
	next = cap;
	if (dir[0] != '\0')
		botlog_scan();
}

/* A bot log grew by n bytes: past the cap, the oldest logs go. */
void
botlog_grew(size_t n)
{
	total += (int64_t)n;
	if (dir[0] != '\0' && cap > 0 && total > next)
		botlog_scan();
}

/* The bytes of bot logs refd counts in the directory now. */
int64_t
botlog_total(void)
{
	return total;
}
