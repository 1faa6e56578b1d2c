/*
 * fuzz_audit.c: refctl's offline tools on a hostile log.  The input is
 * written as the database file and read by the code refctl runs: audit
 * --all, show of match 1 (the whole table, then seat 0's view) and
 * export --all.  Whatever the bytes, each must end with a status and a
 * message, never a crash.  stdout goes to /dev/null; scripts/fuzz also
 * silences stderr (-close_fd_mask=2).
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "briscola.h"
#include "fuzz.h"
#include "refctl.h"

static char	 fuzz_path[4096];	/* the database file */

/* Remove the file and whatever SQLite left beside it. */
static void
fuzz_cleanup(void)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	char		 p[sizeof(fuzz_path) + 16];
	size_t		 i;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", fuzz_path, sfx[i]);
		unlink(p);
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*tmp = getenv("TMPDIR");
	int		 fd;

	(void)argc;
	(void)argv;
	if (bri_init() != BRI_OK)
		abort();
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/fuzz_audit.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if ((fd = mkstemp(fuzz_path)) == -1) {
		perror(fuzz_path);
		abort();
	}
	close(fd);
	atexit(fuzz_cleanup);
	/* the verdicts and transcripts are not what is tested */
	if ((fd = open("/dev/null", O_WRONLY)) != -1) {
		fflush(stdout);
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	 db[] = "--db", all[] = "--all", seat[] = "--seat";
	char	 zero[] = "0", one[] = "1";
	char	 audit[] = "audit", show[] = "show", export[] = "export";
	char	*av_audit[] = { audit, db, fuzz_path, all, NULL };
	char	*av_show[] = { show, db, fuzz_path, one, NULL };
	char	*av_view[] = { show, db, fuzz_path, seat, zero, one, NULL };
	char	*av_export[] = { export, db, fuzz_path, all, NULL };
	int	 fd, rc;

	fuzz_cleanup();
	if ((fd = open(fuzz_path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	rc = cmd_audit(4, av_audit);
	FUZZ_CHECK(rc >= 0 && rc <= 2);
	if (rc != 2) {		/* the log opened: read it every other way */
		rc = cmd_show(4, av_show);
		FUZZ_CHECK(rc >= 0 && rc <= 2);
		rc = cmd_show(6, av_view);
		FUZZ_CHECK(rc >= 0 && rc <= 2);
		rc = cmd_export(4, av_export);
		FUZZ_CHECK(rc >= 0 && rc <= 2);
	}
	fflush(stdout);
	fuzz_cleanup();
	return 0;
}
