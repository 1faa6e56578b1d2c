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

enum { T_STANDINGS, T_RESULTS, T_EXPORT };	/* what t_offline() prints */

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

#define PROGRESS_COLS	79	/* a progress line never wraps at 80 */
#define FOLLOW_MS	"500"	/* between two progress lines, at most */

/*
 * The progress line of a status answer into buf: bar, done of total,
 * running, ETA and, with an SPRT, its LLR and bounds; cut to
 * PROGRESS_COLS.  Returns the percentage done, or -1.
 */
static int
progress_line(const char *status, char *buf, size_t len)
{
	char		 prog[64], run[32], eta[32], sprt[160], bar[17];
	const char	*errstr;
	long long	 done, total, e = -1;
	double		 llr, lo, hi;
	char		*slash;
	int		 i, fill, n;

	buf[0] = '\0';
	if (status_field(status, "progress", prog, sizeof(prog)) == NULL ||
	    (slash = strchr(prog, '/')) == NULL)
		return -1;
	*slash = '\0';
	done = util_num(prog, 0, LLONG_MAX, &errstr);
	total = util_num(slash + 1, 1, LLONG_MAX, &errstr);
	if (errstr != NULL || done > total)
		return -1;
	fill = (int)(16 * done / total);
	for (i = 0; i < 16; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[16] = '\0';
	if (status_field(status, "running", run, sizeof(run)) == NULL)
		snprintf(run, sizeof(run), "-");
	if (status_field(status, "eta", eta, sizeof(eta)) != NULL)
		e = util_num(eta, -1, LLONG_MAX, &errstr);
	if (len > PROGRESS_COLS + 1)
		len = PROGRESS_COLS + 1;
	n = snprintf(buf, len, "[%s] %lld/%lld matches, %.6s running, ", bar,
	    done, total, run);
	if (n > 0 && (size_t)n < len)
		n += e >= 0 ? snprintf(buf + n, len - n, "eta %lld:%02lld", e / 60,
		    e % 60) : snprintf(buf + n, len - n, "eta -");
	if (n > 0 && (size_t)n < len && status_field(status, "sprt", sprt,
	    sizeof(sprt)) != NULL && sscanf(sprt, "llr %lf lower %lf upper %lf",
	    &llr, &lo, &hi) == 3)
		snprintf(buf + n, len - n, ", LLR %.2f (%.2f, %.2f)", llr, lo,
		    hi);
	return (int)(100 * done / total);
}

/* Print text from a new line, words wrapped within cols, indented. */
static void
wrap(FILE *f, const char *text, int indent, int cols)
{
	const char	*p = text;
	int		 col = cols, n;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		n = (int)strcspn(p, " ");
		if (n == 0)
			break;
		if (col + 1 + n > cols && col > indent) {
			col = fprintf(f, "\n%*s", indent, "") - 1;
			col += fprintf(f, "%.*s", n, p);
		} else
			col += fprintf(f, " %.*s", n, p);
		p += n;
	}
	fputc('\n', f);
}

/* Print the standings part of a status answer. */
static void
print_standings(FILE *f, const char *status)
{
	const char	*p = strstr(status, "\nrank ");

	if (p == NULL)
		return;
	/* the control protocol sends an empty line as a lone space */
	for (p++; *p != '\0'; p++)
		if (!(*p == ' ' && p[-1] == '\n' && p[1] == '\n'))
			fputc(*p, f);
}

/*
 * Follow a tournament until it is over; returns 0 if it is done, 1 if
 * stopped.  On a terminal the progress line is redrawn in place on
 * stderr, always whole and never wider than PROGRESS_COLS, and cleared
 * before anything else is printed; elsewhere it is a line per 10%.
 * With watch, a terminal shows the standings and the SPRT as they
 * change, redrawn above the progress line; elsewhere they come at the
 * end, as without.
 */
static int
follow(char *id, int quiet, int watch)
{
	struct answer	 a;
	char		 state[32], line[PROGRESS_COLS + 1], why[512];
	int		 tty = isatty(2), last = -1, pct;
	char		*words[3] = { "tournament_status", id, "progress" };
	char		*wait[3] = { "tournament_wait", id, FOLLOW_MS };

	watch = watch && tty && isatty(1);
	for (;;) {
		/* the standings cost refd a walk of the log: asked for only
		 * where they are shown */
		a.len = 0;
		a.text[0] = '\0';
		if (refctl_command(watch ? 2 : 3, words, collect, &a) != 0)
			return 2;
		pct = progress_line(a.text, line, sizeof(line));
		if (watch) {
			/* home, clear, the standings, the progress line */
			printf("\033[H\033[J");
			print_standings(stdout, a.text);
			printf("\n%s\n", line);
			fflush(stdout);
		} else if (!quiet && pct >= 0 && (tty || pct / 10 != last / 10)) {
			/* a log file gets a line per 10%, a terminal all */
			fprintf(stderr, tty ? "\r%-*s" : "%.*s\n",
			    tty ? PROGRESS_COLS : PROGRESS_COLS, line);
			fflush(stderr);
			last = pct;
		}
		/* the first line: "tournament ID NAME STATE" */
		if (sscanf(a.text, "tournament %*s %*s %31s", state) == 1 &&
		    strcmp(state, "running") != 0) {
			if (tty && !quiet && !watch)
				fprintf(stderr, "\r%*s\r%s\n", PROGRESS_COLS, "",
				    line);
			if (!watch) {
				a.len = 0;
				a.text[0] = '\0';
				if (refctl_command(2, words, collect, &a) != 0)
					return 2;
				print_standings(stdout, a.text);
			}
			if (status_field(a.text, "reason", why,
			    sizeof(why)) != NULL) {
				printf("\ntournament %s %s:", id, state);
				wrap(stdout, why, 2, 80);
			}
			return strcmp(state, "done") == 0 ? 0 : 1;
		}
		/* until the next progress line, or the end if sooner */
		a.len = 0;
		if (refctl_command(3, wait, collect, &a) != 0)
			return 2;
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
			return REFCTL_USAGE;
		}
	}
	if (file == NULL) {
		return REFCTL_USAGE;
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
	return follow(a.text, quiet, 0);
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
	char	 err[512];

	if (tstand_def(h, id, d, err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * A definition's text with its "seed" lines, if it has any, hidden: a
 * new string, or NULL without memory.
 */
static char *
export_unseeded(const char *text)
{
	static const char hidden[] = "seed (hidden until the tournament is "
	    "over)\n";
	const char	*p, *w, *nl;
	char		*out, *o;
	size_t		 lines = 1;

	for (p = text; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	if ((out = malloc(strlen(text) + lines * sizeof(hidden) + 1)) == NULL)
		return NULL;
	for (p = text, o = out; *p != '\0'; p = nl) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p);
		else
			nl++;
		for (w = p; *w == ' ' || *w == '\t'; w++)
			;
		if (strncmp(w, "seed", 4) == 0 && (w[4] == ' ' ||
		    w[4] == '\t')) {
			memcpy(o, hidden, sizeof(hidden) - 1);
			o += sizeof(hidden) - 1;
			continue;
		}
		memcpy(o, p, nl - p);
		o += nl - p;
	}
	*o = '\0';
	return out;
}

/* The definition and the end's reason of tournament id, as JSON members. */
static void
export_head(sqlite3 *h, int64_t id)
{
	sqlite3_stmt	*st;
	const char	*s;
	char		*def;

	if (sqlite3_prepare_v2(h, "SELECT definition, coalesce(reason, ''), "
	    "state FROM tournaments WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		printf("\"definition\": ");
		s = (const char *)sqlite3_column_text(st, 0);
		if (s != NULL && !tdef_over((const char *)
		    sqlite3_column_text(st, 2)) &&
		    (def = export_unseeded(s)) != NULL) {
			tstand_json_str(stdout, def);
			free(def);
		} else
			tstand_json_str(stdout, s != NULL ? s : "");
		printf(",\n\"reason\": ");
		s = (const char *)sqlite3_column_text(st, 1);
		tstand_json_str(stdout, s != NULL ? s : "");
		printf(",\n");
	}
	sqlite3_finalize(st);
}

/*
 * standings|results|export --db FILE ID [--format F], from the log
 * alone.  export is one JSON object: the definition, the reason it
 * ended, the standings (with name, seed, dates, thinking times and the
 * SPRT) and every match.
 */
static int
t_offline(int argc, char **argv, int what)
{
	const char	*db = NULL, *ids = NULL, *errstr;
	enum tstand_fmt	 fmt = TSTAND_TEXT;
	struct tdef	 d;
	struct tstand	 ts;
	struct tslot	*slots;
	struct st_sprt	 sp;
	sqlite3		*h;
	char		 err[512];
	int64_t		 id;
	int		 i, rc = 1, nslots;

	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
			db = argv[++i];
		else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc &&
		    what != T_EXPORT) {
			if (tstand_fmt_parse(argv[++i], &fmt) == -1) {
				fprintf(stderr, "refctl: format: text, csv or "
				    "json\n");
				return 2;
			}
		} else if (ids == NULL)
			ids = argv[i];
		else
			return REFCTL_USAGE;
	}
	if (db == NULL || ids == NULL)
		return REFCTL_USAGE;
	id = util_num(ids, 1, INT64_MAX, &errstr);
	if (errstr != NULL) {
		fprintf(stderr, "refctl: tournament id %s: %s\n", ids, errstr);
		return 2;
	}
	if ((h = open_log(db)) == NULL)
		return 2;
	if (what == T_RESULTS) {
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
	if (tstand_load(h, id, &d, 0, &ts, err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: %s\n", err);
		goto out;
	}
	/* the header counts what the standings count (tstand_report()) */
	if (tdef_schedule(&d, &slots, &nslots, err, sizeof(err)) == 0) {
		tstand_sprt_prefix(&d, slots, nslots, &ts, &sp);
		free(slots);
	}
	if (tstand_extra(h, id, &d, &ts, err, sizeof(err)) == -1)
		fprintf(stderr, "refctl: %s\n", err);
	if (what == T_EXPORT) {
		printf("{\"format\": \"refd-tournament-export-1\",\n");
		export_head(h, id);
		printf("\"standings\": ");
		rc = tstand_report(stdout, &d, &ts, TSTAND_JSON) == 0 ? 0 : 1;
		printf(",\n\"matches\": ");
		if (tstand_results(stdout, h, id, TSTAND_JSON, err,
		    sizeof(err)) != 0) {
			fprintf(stderr, "refctl: %s\n", err);
			rc = 1;
		}
		printf("}\n");
	} else {
		if (fmt == TSTAND_TEXT && ts.have_extra)
			printf("tournament %lld %s: %d matches, %s\n"
			    "seed %s%s\nstarted %s, ended %s\n\n", (long long)id,
			    d.name, ts.n, ts.meta.state, ts.meta.seed,
			    tdef_over(ts.meta.state) ? "" :
			    " (hidden until the tournament is over)",
			    ts.meta.started, ts.meta.ended[0] ? ts.meta.ended :
			    "-");
		rc = tstand_report(stdout, &d, &ts, fmt) == 0 ? 0 : 1;
	}
	tstand_free(&ts);
out:
	tdef_free(&d);
	sqlite3_close(h);
	return rc;
}

/* schedule FILE: the matches a definition makes, without playing. */
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
		return REFCTL_USAGE;
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
	printf("# %s: %s %s%s, %d matches\n", d.name,
	    bri_variant_name(d.opt.variant), tdef_format_name(d.format),
	    d.duplicate ? " with duplicate deals" : "", nslots);
	if (!d.have_seed)
		printf("# no seed given: seeds shown for seed 0\n");
	/* the match settings given, as the table spells them */
	printf("# settings");
	for (k = 0; k < MSET_NKEYS; k++)
		if (d.set.given[k]) {
			mset_format(&d.set, k, seed, sizeof(seed));
			printf(" %s=%s", mset_name(k), seed);
		}
	/* within 80 columns: each block's seed once, after the seatings */
	printf("\n# slot block arrangement seats...\n");
	for (i = 0; i < nslots; i++) {
		printf("%d %d %d", i, slots[i].block, slots[i].arrangement);
		for (k = 0; k < bri_variant_seats(d.opt.variant); k++)
			printf(" %s", d.bots[slots[i].bot[k]]);
		putchar('\n');
	}
	/* with duplicate deals a block plays one seed, else each slot its own */
	printf("# %s seed\n", d.duplicate ? "block" : "slot");
	for (i = 0; i < nslots; i++)
		if (!d.duplicate || i == 0 ||
		    slots[i].block != slots[i - 1].block)
			printf("# %d %s\n", d.duplicate ? slots[i].block : i,
			    bri_seed_format(&slots[i].seed, seed));
	free(slots);
	tdef_free(&d);
	return 0;
}

/* list: the tournaments refd knows. */
static int
t_list(int argc, char **argv)
{
	(void)argv;
	if (argc != 2)
		return REFCTL_USAGE;
	return refctl_command(1, (char *[]){ "tournament_list" }, NULL, NULL);
}

/* stop|resume|cancel|wait ID: one control command on a tournament. */
static int
t_one(int argc, char **argv)
{
	char	*words[2];

	if (argc != 3)
		return REFCTL_USAGE;
	words[0] = strcmp(argv[1], "stop") == 0 ? "tournament_stop" :
	    strcmp(argv[1], "resume") == 0 ? "tournament_resume" :
	    strcmp(argv[1], "cancel") == 0 ? "tournament_cancel" :
	    "tournament_wait";
	words[1] = argv[2];
	return refctl_command(2, words, NULL, NULL);
}

/* status ID [--watch]: progress and standings, once or as they change. */
static int
t_status(int argc, char **argv)
{
	struct answer	 a;
	char		*words[2];

	if (argc == 4 && strcmp(argv[3], "--watch") == 0)
		return follow(argv[2], 0, 1);
	if (argc != 3)
		return REFCTL_USAGE;
	words[0] = "tournament_status";
	words[1] = argv[2];
	a.len = 0;
	a.text[0] = '\0';
	if (refctl_command(2, words, collect, &a) != 0)
		return 1;
	fputs(a.text, stdout);
	return 0;
}

static int
t_standings(int argc, char **argv)
{
	return t_offline(argc, argv, T_STANDINGS);
}

static int
t_results(int argc, char **argv)
{
	return t_offline(argc, argv, T_RESULTS);
}

static int
t_export(int argc, char **argv)
{
	return t_offline(argc, argv, T_EXPORT);
}

/* The subcommands of refctl tournament: dispatch and usage. */
const struct refctl_cmd refctl_tourney_cmds[] = {
	{ "run", t_run, NULL, 0, 0, 0,
	    { { "FILE [--wait] [--quiet]", "run one (refd-tournament(5))" } } },
	{ "status", t_status, NULL, 0, 0, 0,
	    { { "ID [--watch]", "progress, standings and SPRT" } } },
	{ "wait", t_one, NULL, 0, 0, 0, { { "ID", "wait for it to end" } } },
	{ "list", t_list, NULL, 0, 0, 0,
	    { { "", "the tournaments refd knows" } } },
	{ "stop", t_one, NULL, 0, 0, 0, { { "ID", "stop it" } } },
	{ "resume", t_one, NULL, 0, 0, 0, { { "ID", "take it up again" } } },
	{ "cancel", t_one, NULL, 0, 0, 0,
	    { { "ID", "end it for good, its seed revealed" } } },
	{ "standings", t_standings, NULL, 0, 0, 1,
	    { { "--db FILE ID [--format F]", "standings; F: text csv json" } } },
	{ "results", t_results, NULL, 0, 0, 1,
	    { { "--db FILE ID [--format F]", "every match, from the log" } } },
	{ "export", t_export, NULL, 0, 0, 1,
	    { { "--db FILE ID", "all of it as one JSON object" } } },
	{ "schedule", t_schedule, NULL, 0, 0, 1,
	    { { "FILE", "the matches a definition makes" } } },
	{ NULL, NULL, NULL, 0, 0, 0, { { NULL, NULL } } }
};

/* refctl tournament SUBCOMMAND ...: dispatch on the second word. */
int
cmd_tournament(int argc, char **argv)
{
	const struct refctl_cmd	*c;

	if (argc < 2)
		return REFCTL_USAGE;
	for (c = refctl_tourney_cmds; c->name != NULL; c++)
		if (strcmp(c->name, argv[1]) == 0)
			return c->fn(argc, argv);
	return REFCTL_USAGE;
}
