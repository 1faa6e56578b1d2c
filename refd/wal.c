/*
 * wal.c: a SQLite write-ahead log checked as https://sqlite.org/fileformat2.html
 * ("The Write-Ahead Log") defines it: a 32-byte header, then frames of a
 * 24-byte header and one page, each carrying the header's salts and a
 * checksum that runs on from the frame before.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wal.h"

#define WAL_HDR		32		/* the file's header */
#define WAL_FHDR	24		/* a frame's header */
#define WAL_MAGIC	0x377f0682u	/* | 1: big-endian checksums */
#define WAL_PATHMAX	4096
#define WAL_TRIES	100		/* checks of a WAL being written */
#define WAL_WAIT_MS	20		/* between two of them */

static int	 wal_why(char *, size_t, const char *, ...)
		    __attribute__((__format__(__printf__, 3, 4)));
static uint32_t	 wal_be32(const unsigned char *);
static void	 wal_sum(const unsigned char *, size_t, int, uint32_t *);
static long long wal_index_frames(const char *);
static int	 wal_check_once(const char *, char *, size_t);
static void	 wal_state(const char *, char *, size_t);

/* Say why the WAL is not sound, and return -1. */
static int
wal_why(char *why, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* A big-endian 32-bit number, as every field of a WAL is stored. */
static uint32_t
wal_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/*
 * Run SQLite's WAL checksum over n bytes (a multiple of 8) on from s[2];
 * big is 1 when the words are big-endian (the magic's low bit).
 */
static void
wal_sum(const unsigned char *p, size_t n, int big, uint32_t *s)
{
	uint32_t	 x0, x1;
	size_t		 i;

	for (i = 0; i + 8 <= n; i += 8) {
		if (big) {
			x0 = wal_be32(p + i);
			x1 = wal_be32(p + i + 4);
		} else {
			x0 = (uint32_t)p[i + 3] << 24 | (uint32_t)p[i + 2] << 16 |
			    (uint32_t)p[i + 1] << 8 | p[i];
			x1 = (uint32_t)p[i + 7] << 24 | (uint32_t)p[i + 6] << 16 |
			    (uint32_t)p[i + 5] << 8 | p[i + 4];
		}
		s[0] += x0 + s[1];
		s[1] += x1 + s[0];
	}
}

/*
 * The frames the WAL index (path's "-shm", in the writer's byte order)
 * says the WAL holds: its header's mxFrame, when both copies of the
 * header agree and it is initialised; -1 when there is no such index.
 */
static long long
wal_index_frames(const char *db)
{
	FILE		*fp;
	unsigned char	 h[96];
	char		 path[WAL_PATHMAX];
	uint32_t	 mx;

	if ((size_t)snprintf(path, sizeof(path), "%s-shm", db) >= sizeof(path))
		return -1;
	if ((fp = fopen(path, "rb")) == NULL)
		return -1;
	if (fread(h, 1, sizeof(h), fp) != sizeof(h) || h[12] != 1 ||
	    memcmp(h, h + 48, 48) != 0) {
		fclose(fp);
		return -1;
	}
	fclose(fp);
	memcpy(&mx, h + 16, sizeof(mx));
	return mx;
}

/*
 * What a writer changes as it goes, in buf: the WAL's size and time and
 * its index's header (which every commit and restart rewrites).
 */
static void
wal_state(const char *db, char *buf, size_t len)
{
	struct stat	 st;
	FILE		*fp;
	unsigned char	 h[48];
	char		 path[WAL_PATHMAX];
	size_t		 n = 0, i;
	int		 k;

	memset(buf, 0, len);
	snprintf(path, sizeof(path), "%s-wal", db);
	if (stat(path, &st) == 0)
		n = (size_t)snprintf(buf, len, "%lld.%lld.%ld ",
		    (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec);
	snprintf(path, sizeof(path), "%s-shm", db);
	if ((fp = fopen(path, "rb")) == NULL)
		return;
	k = fread(h, 1, sizeof(h), fp) == sizeof(h);
	fclose(fp);
	for (i = 0; k && i < sizeof(h) && n + 3 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%02x", h[i]);
}

/*
 * See wal.h.  A live writer may append, commit or restart the WAL while
 * it is read, and a check that saw it half way may see damage that is
 * not there: a failure counts only if the WAL and its index were the
 * same before and after the check that found it.
 */
int
wal_check(const char *db, char *why, size_t len)
{
	struct timespec	 ts = { 0, WAL_WAIT_MS * 1000000L };
	char		 before[256], after[256];
	int		 i, rc = -1;

	for (i = 0; i < WAL_TRIES; i++) {
		wal_state(db, before, sizeof(before));
		if ((rc = wal_check_once(db, why, len)) == 0)
			return 0;
		nanosleep(&ts, NULL);
		wal_state(db, after, sizeof(after));
		if (memcmp(before, after, sizeof(before)) == 0)
			return rc;	/* nothing moved: it is so */
	}
	return rc;
}

/* One look at db's WAL, as wal_check() says. */
static int
wal_check_once(const char *db, char *why, size_t len)
{
	FILE		*fp;
	unsigned char	 hdr[WAL_HDR], fh[WAL_FHDR], *page = NULL;
	char		 path[WAL_PATHMAX];
	uint32_t	 magic, psize, salt[2], s[2], fs[2];
	long long	 size, nframes, k, lastcommit = 0, current = 0, mx;
	int		 big, rc = -1;

	if ((size_t)snprintf(path, sizeof(path), "%s-wal", db) >= sizeof(path))
		return wal_why(why, len, "%s-wal: path too long", db);
	mx = wal_index_frames(db);
	if ((fp = fopen(path, "rb")) == NULL) {
		if (errno == ENOENT && mx > 0)
			return wal_why(why, len, "the write-ahead log is gone: "
			    "its index (-shm) records %lld frames, so the log's "
			    "tail is lost", mx);
		if (errno == ENOENT)
			return 0;
		return wal_why(why, len, "%s: %s", path, strerror(errno));
	}
	if (fseeko(fp, 0, SEEK_END) == -1 || (size = ftello(fp)) < 0 ||
	    fseeko(fp, 0, SEEK_SET) == -1) {
		wal_why(why, len, "%s: %s", path, strerror(errno));
		goto done;
	}
	if (size == 0 && mx > 0) {
		wal_why(why, len, "the write-ahead log is empty, but its index "
		    "(-shm) records %lld frames: the log's tail is lost", mx);
		goto done;
	}
	if (size == 0) {
		rc = 0;		/* reset after a checkpoint: nothing in it */
		goto done;
	}
	if (size < WAL_HDR || fread(hdr, 1, WAL_HDR, fp) != WAL_HDR) {
		wal_why(why, len, "the write-ahead log is truncated: %lld "
		    "bytes, shorter than its header", size);
		goto done;
	}
	magic = wal_be32(hdr);
	psize = wal_be32(hdr + 8);
	if ((magic & ~1u) != WAL_MAGIC || psize < 512 || psize > 65536 ||
	    (psize & (psize - 1)) != 0) {
		wal_why(why, len, "the write-ahead log's header is damaged "
		    "(magic %08x, page size %u)", magic, psize);
		goto done;
	}
	big = magic & 1;
	s[0] = s[1] = 0;
	wal_sum(hdr, 24, big, s);
	if (s[0] != wal_be32(hdr + 24) || s[1] != wal_be32(hdr + 28)) {
		wal_why(why, len, "the write-ahead log's header fails its "
		    "checksum: the log's tail would be lost");
		goto done;
	}
	salt[0] = wal_be32(hdr + 16);
	salt[1] = wal_be32(hdr + 20);
	nframes = (size - WAL_HDR) / (WAL_FHDR + psize);
	/*
	 * A part of a frame is a writer's append in progress, or cut short
	 * by its death, when every frame the index records is whole.
	 */
	if ((size - WAL_HDR) % (WAL_FHDR + psize) != 0 &&
	    (mx < 0 || nframes < mx)) {
		wal_why(why, len, "the write-ahead log is truncated: %lld "
		    "bytes, not a whole number of %u-byte frames after its "
		    "header", size, WAL_FHDR + psize);
		goto done;
	}
	if ((page = malloc(psize)) == NULL) {
		wal_why(why, len, "out of memory");
		goto done;
	}
	for (k = 0; k < nframes; k++) {
		if (fread(fh, 1, WAL_FHDR, fp) != WAL_FHDR ||
		    fread(page, 1, psize, fp) != psize) {
			wal_why(why, len, "the write-ahead log cannot be read "
			    "at frame %lld", k + 1);
			goto done;
		}
		if (wal_be32(fh + 8) != salt[0] || wal_be32(fh + 12) != salt[1])
			break;	/* an earlier generation, or damage: below */
		fs[0] = s[0];
		fs[1] = s[1];
		wal_sum(fh, 8, big, fs);
		wal_sum(page, psize, big, fs);
		if ((fs[0] != wal_be32(fh + 16) ||
		    fs[1] != wal_be32(fh + 20)) && mx >= 0 && k >= mx)
			break;	/* torn: past what SQLite acknowledged */
		if (fs[0] != wal_be32(fh + 16) || fs[1] != wal_be32(fh + 20)) {
			wal_why(why, len, "the write-ahead log is damaged: "
			    "frame %lld of %lld fails its checksum, so SQLite "
			    "drops it and every frame after it", k + 1,
			    nframes);
			goto done;
		}
		s[0] = fs[0];
		s[1] = fs[1];
		current = k + 1;
		if (wal_be32(fh + 4) != 0)
			lastcommit = k + 1;
	}
	/* frames of the current salts after a break mean a damaged salt */
	for (k = current + 1; (mx < 0 || current < mx) && k < nframes; k++) {
		if (fread(fh, 1, WAL_FHDR, fp) != WAL_FHDR ||
		    fseeko(fp, psize, SEEK_CUR) == -1)
			break;
		if (wal_be32(fh + 8) == salt[0] &&
		    wal_be32(fh + 12) == salt[1]) {
			wal_why(why, len, "the write-ahead log is damaged: "
			    "frame %lld does not belong to it, yet frame %lld "
			    "after it does", current + 1, k + 1);
			goto done;
		}
	}
	if (mx > current) {
		wal_why(why, len, "the write-ahead log holds %lld sound frames, "
		    "but its index (-shm) records %lld: the log's tail is lost",
		    current, mx);
		goto done;
	}
	/*
	 * Frames after the last commit are damage when the index records
	 * them (their commit is gone), not when they are past all it
	 * records: a transaction being written, or one whose writer died
	 * before SQLite acknowledged it, which refd never acted on.
	 */
	if (lastcommit < current && (mx < 0 || mx > lastcommit)) {
		wal_why(why, len, "the write-ahead log ends with %lld frame%s "
		    "of a transaction that never committed", current -
		    lastcommit, current - lastcommit == 1 ? "" : "s");
		goto done;
	}
	rc = 0;
done:
	free(page);
	fclose(fp);
	return rc;
}
