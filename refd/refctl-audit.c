/*
 * refctl-audit.c: refctl audit, which settles every dispute from the log
 * alone: each match walked by audit.c (the rules replayed through
 * libbriscola, the chain recomputed), one verdict line each.  See
 * refd-audit(7).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "briscola.h"
#include "audit.h"
#include "refctl.h"
#include "util.h"

/*
 * refctl audit --db FILE [--all] [MATCH ...]: settle every dispute from
 * the log alone.  One line per match, then a summary; exit 0 only if
 * every match audited agrees with the rules and its chain.
 */
int
cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	sqlite3_stmt	*st = NULL;
	struct au	*a;
	const char	*path = NULL;
	char		 why[160];
	long long	 id;
	int		 ch, all = 0, i, ok = 0, bad = 0, running = 0, r;
	int		 rc;

	optind = 0;	/* glibc: start afresh, permuting again */
	while ((ch = getopt_long(argc, argv, "d:a", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			path = optarg;
			break;
		case 'a':
			all = 1;
			break;
		default:
			goto usage;
		}
	}
	if (path == NULL)
		goto usage;
	for (i = optind; i < argc; i++)
		if (au_id(argv[i]) < 0) {
			fprintf(stderr, "refctl audit: bad match id %s\n",
			    argv[i]);
			return 2;
		}
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		fprintf(stderr, "refctl audit: out of memory\n");
		return 2;
	}
	if (au_open(path, &a->h) == -1) {
		free(a);
		return 2;
	}
	a->mode = AU_AUDIT;
	a->out = stdout;
	all = all || optind == argc;
	if (all && sqlite3_prepare_v2(a->h, "SELECT id FROM matches "
	    "ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "refctl audit: %s: %s\n", path,
		    sqlite3_errmsg(a->h));
		sqlite3_close(a->h);
		free(a);
		return 2;
	}
	for (i = optind;;) {
		if (all) {
			if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
				if (rc != SQLITE_DONE) {
					printf("the list of matches cannot be "
					    "read: %s\n", sqlite3_errmsg(a->h));
					bad++;
				}
				break;
			}
			if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
				printf("a match FAILED: its id is not a "
				    "number\n");
				bad++;
				continue;
			}
			id = (long long)sqlite3_column_int64(st, 0);
		} else {
			if (i >= argc)
				break;
			id = au_id(argv[i++]);
		}
		switch ((r = au_match(a, id))) {
		case 0:
			ok++;
			if (strcmp(a->state, "aborted") == 0)
				printf("match %lld verified: aborted (%s) after "
				    "%d complete deal%s%s, %lld plays, chain ok "
				    "to link %lld\n", id, au_safe(a->reason,
				    strlen(a->reason), why, sizeof(why)),
				    a->ndone,
				    a->ndone == 1 ? "" : "s",
				    au_deal_active(a) ? " and one cut short" : "",
				    a->nplays, a->links);
			else
				printf("match %lld verified: %d deal%s, %lld "
				    "plays, chain ok\n", id, a->ndone,
				    a->ndone == 1 ? "" : "s", a->nplays);
			break;
		case 1:
			bad++;
			printf("match %lld FAILED: %s\n", id, a->err);
			break;
		case 2:
			running++;
			printf("match %lld running: skipped\n", id);
			break;
		default:
			bad++;
			printf("match %lld FAILED: no such match in the log\n",
			    id);
			break;
		}
		fflush(stdout);
	}
	sqlite3_finalize(st);
	sqlite3_close(a->h);
	free(a);
	printf("%d match%s verified, %d failed", ok, ok == 1 ? "" : "es", bad);
	if (running > 0)
		printf(", %d running (skipped)", running);
	printf("\n");
	return bad > 0 ? 1 : 0;
usage:
	fprintf(stderr, "usage: refctl audit --db FILE [--all] [MATCH ...]\n");
	return 2;
}
