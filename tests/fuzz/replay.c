/*
 * replay.c: main() for a fuzz target built without libFuzzer.  Runs
 * LLVMFuzzerTestOneInput once on each file named, and on each file of
 * each directory named, so that make check replays the seed corpus and
 * every regression input with any compiler (tests/fuzz/replay.sh).
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Run the target on the whole of one file; -1 if it cannot be read. */
static int
replay_file(const char *path)
{
	FILE		*fp;
	uint8_t		*buf = NULL, *nbuf;
	size_t		 len = 0, cap = 0, n;

	if ((fp = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			if ((nbuf = realloc(buf, cap)) == NULL) {
				fprintf(stderr, "replay: out of memory\n");
				free(buf);
				fclose(fp);
				return -1;
			}
			buf = nbuf;
		}
		if ((n = fread(buf + len, 1, cap - len, fp)) == 0)
			break;
		len += n;
	}
	if (ferror(fp)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	/* the exact length, so a read past the input is past the buffer */
	if ((nbuf = malloc(len ? len : 1)) == NULL) {
		free(buf);
		return -1;
	}
	memcpy(nbuf, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(nbuf, len);
	free(nbuf);
	return 0;
}

/* Each file of a directory, or the file itself; counts into *n. */
static int
replay_path(const char *path, int *n)
{
	struct stat	 sb;
	struct dirent	*de;
	DIR		*d;
	char		 sub[4096];
	int		 rc = 0;

	if (stat(path, &sb) == -1) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		(*n)++;
		return replay_file(path);
	}
	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (stat(sub, &sb) == 0 && S_ISREG(sb.st_mode)) {
			(*n)++;
			if (replay_file(sub) == -1)
				rc = -1;
		}
	}
	closedir(d);
	return rc;
}

int
main(int argc, char *argv[])
{
	int	 i, n = 0, rc = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++)
		if (replay_path(argv[i], &n) == -1)
			rc = 2;
	fprintf(stderr, "%s: %d input%s replayed\n",
	    strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0], n,
	    n == 1 ? "" : "s");
	return rc;
}
