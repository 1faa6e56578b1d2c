/*
 * refctl-tourney.c: refctl tournament, for running tournaments through
 * refd and for reading their standings and results from the log alone.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gtp.h"
#include "refctl.h"
#include "tstand.h"
#include "util.h"

static void
tourney_usage(void)
{
	fprintf(stderr,
	    "usage: refctl tournament run FILE [--wait]\n"
	    "       refctl tournament status ID [--watch]\n"
	    "       refctl tournament wait ID\n"
	    "       refctl tournament list | stop ID | resume ID\n"
	    "       refctl tournament standings --db FILE ID [--format F]\n"
	    "       refctl tournament results --db FILE ID [--format F]\n"
	    "       refctl tournament schedule FILE\n"
	    "  F is text (default), csv or json; see refd-tournament(5)\n");
}

/* Collected answer lines of one command. */
struct answer {
	char	 text[65536];
	size_t	 len;
};

/* Keep each answer line. */
static void
collect(const char *line, void *arg)
{
	struct answer	*a = arg;

	if (a->len < sizeof(a->text))
		a->len += snprintf(a->text + a->len, sizeof(a->text) - a->len,
		    "%s\n", line);
}

/* The value of "key ..." in a status answer, or NULL. */
static const char *
status_field(const char *text, const char *key, char *buf, size_t len)
{
	const char	*p = text;
	size_t		 k = strlen(key);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, k) == 0 && p[k] == ' ') {
			snprintf(buf, len, "%.*s", (int)strcspn(p + k + 1, "\n"),
			    p + k + 1);
			return buf;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return NULL;
}

/* Draw the progress line: bar, done of total, running, ETA. */
static void
progress(const char *status, int tty)
{
	char		 prog[64], run[32], eta[32], bar[41];
	const char	*errstr;
	long long	 done, total, e;
	char		*slash;
	int		 i, fill;

	if (status_field(status, "progress", prog, sizeof(prog)) == NULL ||
	    (slash = strchr(prog, '/')) == NULL)
		return;
	*slash = '\0';
	done = util_num(prog, 0, LLONG_MAX, &errstr);
	total = util_num(slash + 1, 1, LLONG_MAX, &errstr);
	if (errstr != NULL)
		return;
	fill = (int)(40 * done / total);
	for (i = 0; i < 40; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[40] = '\0';
	status_field(status, "running", run, sizeof(run));
	e = -1;
	if (status_field(status, "eta", eta, sizeof(eta)) != NULL)
		e = atoll(eta);
	fprintf(stderr, "%s[%s] %lld/%lld matches, %s running, ", tty ? "\r" :
	    "", bar, done, total, run);
	if (e >= 0)
		fprintf(stderr, "eta %lld:%02lld   ", e / 60, e % 60);
	else
		fprintf(stderr, "eta -   ");
	if (!tty)
		fputc('\n', stderr);
	fflush(stderr);
}

/* Print the standings part of a status answer. */
static void
print_standings(const char *status)
{
	const char	*p = strstr(status, "\nrank ");

	if (p == NULL)
		return;
	/* the control protocol sends an empty line as a lone space */
	for (p++; *p != '\0'; p++)
		if (!(*p == ' ' && p[-1] == '\n' && p[1] == '\n'))
			putchar(*p);
}

/* Follow a tournament until it is over; returns 0 if it is done. */
static int
follow(char *id, int quiet)
{
	struct answer	 a;
	char		 state[32];
	int		 tty = isatty(2), last = -1;
	char		*words[2] = { "tournament_status", id };

	for (;;) {
		a.len = 0;
		a.text[0] = '\0';
		if (refctl_command(2, words, collect, &a) != 0)
			return 2;
		if (!quiet) {
			char prog[64];
			int pct = -1;
			if (status_field(a.text, "progress", prog,
			    sizeof(prog)) != NULL) {
				long long d = atoll(prog), t = 1;
				char *sl = strchr(prog, '/');
				if (sl != NULL)
					t = atoll(sl + 1);
				pct = t > 0 ? (int)(100 * d / t) : 0;
			}
			/* a log file gets a line per 10%, a terminal all */
			if (tty || pct / 10 != last / 10)
				progress(a.text, tty);
			last = pct;
		}
		/* the first line: "tournament ID NAME STATE" */
		if (sscanf(a.text, "tournament %*s %*s %31s", state) == 1 &&
		    strcmp(state, "running") != 0) {
			if (tty && !quiet)
				fputc('\n', stderr);
			print_standings(a.text);
			{
				char why[512];
				if (status_field(a.text, "reason", why,
				    sizeof(why)) != NULL)
					printf("\ntournament %s %s: %s\n", id,
					    state, why);
			}
			return strcmp(state, "done") == 0 ? 0 : 1;
		}
		usleep(500000);
	}
}

/* run FILE [--wait]: start a tournament; with --wait, see it through. */
static int
t_run(int argc, char **argv)
{
	struct answer	 a;
	char		 path[PATH_MAX], *words[2];
	int		 wait = 0, quiet = 0, i;
	const char	*file = NULL;

	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--wait") == 0)
			wait = 1;
		else if (strcmp(argv[i], "--quiet") == 0)
			quiet = 1;
		else if (file == NULL)
			file = argv[i];
		else {
			tourney_usage();
			return 2;
		}
	}
	if (file == NULL) {
		tourney_usage();
		return 2;
	}
	if (realpath(file, path) == NULL) {
		perror(file);
		return 2;
	}
	if (strpbrk(path, " #\t") != NULL) {
		fprintf(stderr, "refctl: %s: the path cannot hold spaces or "
		    "'#'\n", path);
		return 2;
	}
	words[0] = "tournament_start";
	words[1] = path;
	a.len = 0;
	if (refctl_command(2, words, collect, &a) != 0)
		return 1;
	a.text[strcspn(a.text, "\n")] = '\0';
	printf("tournament %s started\n", a.text);
	fflush(stdout);
	if (!wait)
		return 0;
	return follow(a.text, quiet);
}

/* Open a log read-only for the offline subcommands. */
static sqlite3 *
open_log(const char *path)
{
	sqlite3	*h;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "refctl: %s: %s\n", path, sqlite3_errmsg(h));
		sqlite3_close(h);
		return NULL;
	}
	return h;
}

/* The definition of tournament id, parsed, with its logged seed. */
static int
load_def(sqlite3 *h, int64_t id, struct tdef *d)
{
	sqlite3_stmt	*st;
	char		 err[512], name[64];
	const char	*text, *seed;
	int		 rc = -1;

	if (sqlite3_prepare_v2(h, "SELECT definition, seed FROM tournaments "
	    "WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "refctl: %s\n", sqlite3_errmsg(h));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		fprintf(stderr, "refctl: no tournament %lld in the log\n",
		    (long long)id);
		goto out;
	}
	text = (const char *)sqlite3_column_text(st, 0);
	seed = (const char *)sqlite3_column_text(st, 1);
	snprintf(name, sizeof(name), "tournament %lld", (long long)id);
	if (text == NULL || tdef_parse(text, name, d, err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: %s\n", text ? err : "no definition");
		goto out;
	}
	if (seed != NULL)
		bri_seed_parse(seed, &d->seed);
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* standings|results --db FILE ID [--format F], from the log alone. */
static int
t_offline(int argc, char **argv, int results)
{
	const char	*db = NULL, *ids = NULL, *errstr;
	enum tstand_fmt	 fmt = TSTAND_TEXT;
	struct tdef	 d;
	struct tstand	 ts;
	struct st_table	*tab;
	struct st_sprt	 sp;
	struct tslot	*slots = NULL;
	int		 nslots = 0;
	sqlite3		*h;
	char		 err[512];
	int64_t		 id;
	int		 i, rc = 1;

	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
			db = argv[++i];
		else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
			if (tstand_fmt_parse(argv[++i], &fmt) == -1) {
				fprintf(stderr, "refctl: format: text, csv or "
				    "json\n");
				return 2;
			}
		} else if (ids == NULL)
			ids = argv[i];
		else {
			tourney_usage();
			return 2;
		}
	}
	if (db == NULL || ids == NULL) {
		tourney_usage();
		return 2;
	}
	id = util_num(ids, 1, INT64_MAX, &errstr);
	if (errstr != NULL) {
		fprintf(stderr, "refctl: tournament id %s: %s\n", ids, errstr);
		return 2;
	}
	if ((h = open_log(db)) == NULL)
		return 2;
	if (results) {
		rc = tstand_results(stdout, h, id, fmt, err, sizeof(err));
		if (rc == -1)
			fprintf(stderr, "refctl: %s\n", err);
		sqlite3_close(h);
		return rc == 0 ? 0 : 1;
	}
	if (load_def(h, id, &d) == -1) {
		sqlite3_close(h);
		return 1;
	}
	if (tstand_load(h, id, &d, &ts, err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: %s\n", err);
		goto out;
	}
	if ((tab = malloc(sizeof(*tab))) == NULL) {
		tstand_free(&ts);
		goto out;
	}
	st_compute(ts.m, ts.n, d.nbots, 1, tab);
	if (d.sprt && tdef_schedule(&d, &slots, &nslots, err,
	    sizeof(err)) == 0)
		tstand_sprt(&d, slots, nslots, &ts, &sp);
	if (fmt == TSTAND_TEXT)
		printf("tournament %lld %s: %d matches\n", (long long)id,
		    d.name, ts.n);
	tstand_print(stdout, &d, tab, slots != NULL ? &sp : NULL, fmt);
	free(slots);
	free(tab);
	tstand_free(&ts);
	rc = 0;
out:
	tdef_free(&d);
	sqlite3_close(h);
	return rc;
}

/* schedule FILE: the matches a definition generates, without playing. */
static int
t_schedule(int argc, char **argv)
{
	struct tdef	 d;
	struct tslot	*slots;
	char		*text, err[512], seed[BRI_SEED_STRLEN];
	FILE		*fp;
	size_t		 n;
	int		 nslots, i, k;

	if (argc != 3) {
		tourney_usage();
		return 2;
	}
	if ((fp = fopen(argv[2], "r")) == NULL) {
		perror(argv[2]);
		return 2;
	}
	if ((text = malloc(256 * 1024 + 1)) == NULL) {
		fclose(fp);
		return 2;
	}
	n = fread(text, 1, 256 * 1024, fp);
	text[n] = '\0';
	fclose(fp);
	if (tdef_parse(text, argv[2], &d, err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: %s\n", err);
		free(text);
		return 1;
	}
	free(text);
	if (tdef_schedule(&d, &slots, &nslots, err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: %s\n", err);
		tdef_free(&d);
		return 1;
	}
	printf("# %s: %s %s%s, %d matches%s\n", d.name,
	    bri_variant_name(d.opt.variant), tdef_format_name(d.format),
	    d.duplicate ? " with duplicate deals" : "", nslots,
	    d.have_seed ? "" : " (no seed given: seeds shown for seed 0)");
	printf("# slot block arrangement seed seats...\n");
	for (i = 0; i < nslots; i++) {
		printf("%d %d %d %s", i, slots[i].block, slots[i].arrangement,
		    bri_seed_format(&slots[i].seed, seed));
		for (k = 0; k < bri_variant_seats(d.opt.variant); k++)
			printf(" %s", d.bots[slots[i].bot[k]]);
		putchar('\n');
	}
	free(slots);
	tdef_free(&d);
	return 0;
}

/* refctl tournament ...: dispatch on the second word. */
int
cmd_tournament(int argc, char **argv)
{
	const char	*sub = argc > 1 ? argv[1] : "";
	struct answer	 a;
	char		*words[2];

	if (strcmp(sub, "run") == 0)
		return t_run(argc, argv);
	if (strcmp(sub, "standings") == 0)
		return t_offline(argc, argv, 0);
	if (strcmp(sub, "results") == 0)
		return t_offline(argc, argv, 1);
	if (strcmp(sub, "schedule") == 0)
		return t_schedule(argc, argv);
	if (strcmp(sub, "list") == 0 && argc == 2)
		return refctl_command(1, (char *[]){ "tournament_list" }, NULL,
		    NULL);
	if (argc == 3 && (strcmp(sub, "stop") == 0 ||
	    strcmp(sub, "resume") == 0 || strcmp(sub, "wait") == 0)) {
		words[0] = strcmp(sub, "stop") == 0 ? "tournament_stop" :
		    strcmp(sub, "resume") == 0 ? "tournament_resume" :
		    "tournament_wait";
		words[1] = argv[2];
		return refctl_command(2, words, NULL, NULL);
	}
	if (strcmp(sub, "status") == 0 && (argc == 3 || (argc == 4 &&
	    strcmp(argv[3], "--watch") == 0))) {
		if (argc == 4)
			return follow(argv[2], 0);
		words[0] = "tournament_status";
		words[1] = argv[2];
		a.len = 0;
		a.text[0] = '\0';
		if (refctl_command(2, words, collect, &a) != 0)
			return 1;
		fputs(a.text, stdout);
		return 0;
	}
	tourney_usage();
	return 2;
}
