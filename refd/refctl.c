/*
 * refctl: the operator's command-line client for refd's control socket,
 * and the offline tools that read refd's log.
 */
#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "briscola.h"
#include "gtp.h"
#include "refctl.h"
#include "util.h"

/* refctl cmd WORDS...: any control command as is. */
static int
cmd_raw(int argc, char **argv)
{
	if (argc < 2)
		return REFCTL_USAGE;
	return refctl_command(argc - 1, argv + 1, NULL, NULL);
}

/* Commands that map one to one onto a control command. */
static int
cmd_simple(const char *name, int min, int max, int argc, char **argv)
{
	char	*words[GTP_MAXARGS + 1];
	int	 i;

	if (argc - 1 < min || argc - 1 > max || argc > GTP_MAXARGS)
		return REFCTL_USAGE;
	words[0] = (char *)name;
	for (i = 1; i < argc; i++)
		words[i] = argv[i];
	return refctl_command(argc, words, NULL, NULL);
}

/*
 * refctl bot add NAME [--remote TOKEN | -- COMMAND ARGS]; bot list; bot
 * remove NAME.
 */
static int
cmd_bot(int argc, char **argv)
{
	char	*words[GTP_MAXARGS + 4];
	int	 i, n = 0;

	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return refctl_command(1, (char *[]){ "bot_list" }, NULL, NULL);
	if (argc == 3 && strcmp(argv[1], "remove") == 0)
		return refctl_command(2, (char *[]){ "bot_remove", argv[2] },
		    NULL, NULL);
	if (argc < 5 || strcmp(argv[1], "add") != 0 ||
	    (strcmp(argv[3], "--remote") != 0 && strcmp(argv[3], "--") != 0) ||
	    argc - 4 > GTP_MAXARGS - 3)
		return REFCTL_USAGE;
	words[n++] = "bot_add";
	words[n++] = argv[2];
	words[n++] = strcmp(argv[3], "--") == 0 ? "spawn" : "remote";
	for (i = 4; i < argc; i++) {
		if (strchr(argv[i], ' ') != NULL || strchr(argv[i], '#') != NULL ||
		    argv[i][0] == '\0') {
			fprintf(stderr, "refctl: arguments cannot hold spaces, "
			    "'#' or be empty: use a wrapper script\n");
			return 2;
		}
		words[n++] = argv[i];
	}
	return refctl_command(n, words, NULL, NULL);
}

/* Print a watched event line, prefixed for readability. */
static void
print_event(const char *line, void *arg)
{
	(void)arg;
	printf("  %s\n", line);
}

/* Keep the first line of an answer (32 bytes at most) in arg. */
static void
save_text(const char *line, void *arg)
{
	snprintf(arg, 32, "%s", line);
}

/* refctl match [options] BOT...: play one match and print its result. */
static int
cmd_match(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "variant", required_argument, NULL, 'V' },
		{ "seed", required_argument, NULL, 's' },
		{ "move-ms", required_argument, NULL, 'm' },
		{ "bank-ms", required_argument, NULL, 'b' },
		{ "startup-ms", required_argument, NULL, 'u' },
		{ "policy", required_argument, NULL, 'p' },
		{ "max-faults", required_argument, NULL, 'f' },
		{ "option", required_argument, NULL, 'o' },
		{ "watch", no_argument, NULL, 'w' },
		{ "no-wait", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *keys = "smbupfo";
	static const char *names[] = { "seed", "move_ms", "bank_ms",
	    "startup_ms", "policy", "max_faults", NULL };
	char	*words[GTP_MAXARGS], kv[GTP_MAXARGS][300], idbuf[32];
	char	*id = NULL;
	int	 ch, n = 0, nkv = 0, watch = 0, nowait = 0;
	const char *variant = "joker3", *k;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "V:s:m:b:u:p:f:o:wn", opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'V':
			variant = optarg;
			break;
		case 'w':
			watch = 1;
			break;
		case 'n':
			nowait = 1;
			break;
		case '?':
			return 2;
		default:
			if (nkv == GTP_MAXARGS / 2)
				return 2;
			k = strchr(keys, ch);
			if (ch == 'o')
				snprintf(kv[nkv++], sizeof(kv[0]), "%s", optarg);
			else
				snprintf(kv[nkv++], sizeof(kv[0]), "%s=%s",
				    names[k - keys], optarg);
		}
	}
	if (optind >= argc || argc - optind > BRI_MAXSEATS)
		return REFCTL_USAGE;
	words[n++] = "match_start";
	words[n++] = (char *)variant;
	while (optind < argc)
		words[n++] = argv[optind++];
	for (ch = 0; ch < nkv; ch++)
		words[n++] = kv[ch];

	/* the answer is the match id */
	idbuf[0] = '\0';
	if (refctl_command(n, words, save_text, idbuf) != 0)
		return 1;
	id = idbuf;
	printf("match %s started\n", id);
	if (nowait)
		return 0;
	if (watch)
		refctl_command(2, (char *[]){ "match_watch", id }, print_event,
		    NULL);
	printf("match %s: ", id);
	return refctl_command(2, (char *[]){ "match_wait", id }, NULL, NULL);
}

/* refctl watch ID: follow a match's events. */
static int
cmd_watch(int argc, char **argv)
{
	if (argc != 2)
		return REFCTL_USAGE;
	return refctl_command(2, (char *[]){ "match_watch", argv[1] },
	    print_event, NULL);
}

/*
 * Every subcommand: its name, how it is run (a function, or a control
 * command taking min to max words as they are), and its synopses with
 * what each does.  The dispatch, the usage and refctl -h all come from
 * here, so they cannot drift apart.
 */
static const struct refctl_cmd cmds[] = {
	{ "status", NULL, "status", 0, 0, 0,
	    { { "", "what refd is doing" } } },
	{ "bot", cmd_bot, NULL, 0, 0, 0,
	    { { "add NAME -- CMD [ARG...]", "register a bot refd spawns" },
	    { "add NAME --remote TOKEN", "register a bot that connects" },
	    { "list", "the registered bots" },
	    { "remove NAME", "forget a bot that does not play" } } },
	{ "match", cmd_match, NULL, 0, 0, 0,
	    { { "[--variant V] [--seed HEX] [--move-ms N] [--bank-ms N]\n"
	    "[--startup-ms N] [--policy forfeit|fallback]\n"
	    "[--max-faults N] [--option KEY=VALUE] [--watch]\n"
	    "[--no-wait] BOT ...", "play a match, print its result" } } },
	{ "list", NULL, "match_list", 0, 0, 0,
	    { { "", "every match with its state" } } },
	{ "info", NULL, "match_show", 1, 1, 0,
	    { { "ID", "one match in detail" } } },
	{ "watch", cmd_watch, NULL, 0, 0, 0,
	    { { "ID", "follow a match live" } } },
	{ "wait", NULL, "match_wait", 1, 1, 0,
	    { { "ID", "wait for a match to end" } } },
	{ "stop", NULL, "match_stop", 1, 1, 0,
	    { { "ID", "stop a match (aborted)" } } },
	{ "shutdown", NULL, "shutdown", 0, 0, 0,
	    { { "", "stop refd gracefully" } } },
	{ "cmd", cmd_raw, NULL, 0, 0, 0,
	    { { "COMMAND [ARG...]", "any control command as is" } } },
	{ "tournament", cmd_tournament, NULL, 0, 0, 0,
	    { { "SUBCOMMAND ...", "tournaments (refctl tournament -h)" } } },
	{ "bridge", cmd_bridge, NULL, 0, 0, 0,
	    { { "-p PORT -n NAME -- CMD", "play a stdio bot over TCP" } } },
	{ "cluster", cmd_cluster, NULL, 0, 0, 1,
	    { { "SUBCOMMAND ...", "many refds, one tournament (-h)" } } },
	{ "checkbot", cmd_checkbot, NULL, 0, 0, 1,
	    { { "[-ev] [-n DEALS] [-s SEED] [-t MS] [-V V] -- CMD [ARG...]",
	    "check a bot, without refd" } } },
	{ "audit", cmd_audit, NULL, 0, 0, 1,
	    { { "--db FILE [--all] [--allow-running] [--key KEY]\n"
	    "[--transcripts] [--archive FILE...] [ID...]",
	    "verify matches from the log" } } },
	{ "show", cmd_show, NULL, 0, 0, 1,
	    { { "--db FILE ID [--deal N] [--seat S]",
	    "a match's transcript or one seat's view" } } },
	{ "export", cmd_export, NULL, 0, 0, 1,
	    { { "--db FILE [--format json] {--all | ID...}",
	    "matches as JSON, one a line" } } },
	{ "verify-receipt", cmd_verify_receipt, NULL, 0, 0, 1,
	    { { "--db FILE --match ID --receipt LINE\n"
	    "[--key KEY] [--transcript FILE [--seat S]]",
	    "a bot's receipt against the log" } } },
	{ "backup", cmd_backup, NULL, 0, 0, 1,
	    { { "DB FILE", "a consistent copy of a live log" } } },
	{ "archive", cmd_archive, NULL, 0, 0, 1,
	    { { "DB --before DATE FILE",
	    "move finished matches to an archive" } } },
	{ NULL, NULL, NULL, 0, 0, 0, { { NULL, NULL } } }
};

/*
 * One subcommand's synopses on f, within 80 columns: "  prefix name
 * synopsis", the help at column 34, or on a line of its own when the
 * synopsis is longer.
 */
static void
refctl_help(FILE *f, const char *prefix, const struct refctl_cmd *c)
{
	const char	*s, *e;
	int		 u, col;

	for (u = 0; u < REFCTL_MAXUSE && c->use[u][1] != NULL; u++) {
		col = fprintf(f, "  %s%s", prefix, c->name);
		for (s = c->use[u][0]; ; s = e + 1) {
			e = strchr(s, '\n');
			if (e == NULL)
				e = s + strlen(s);
			if (e > s)
				col += fprintf(f, " %.*s", (int)(e - s), s);
			if (*e == '\0')
				break;
			fprintf(f, "\n");
			col = fprintf(f, "      ");
		}
		if (col > 32)
			fprintf(f, "\n%34s%s\n", "", c->use[u][1]);
		else
			fprintf(f, "%*s%s\n", 34 - col, "", c->use[u][1]);
	}
}

static void __attribute__((noreturn))
usage(int status)
{
	FILE	*f = status ? stderr : stdout;
	int	 i, off;

	fprintf(f, "usage: refctl [-c socket] COMMAND [ARGS]\n");
	for (off = 0; off < 2; off++) {
		fprintf(f, off ? "\nOffline tools, which read refd's log or "
		    "run a bot without refd:\n" : "\nCommands to a running "
		    "refd:\n");
		for (i = 0; cmds[i].name != NULL; i++)
			if (cmds[i].offline == off)
				refctl_help(f, "", &cmds[i]);
	}
	fprintf(f, "\n  -c socket   refd's control socket (default "
	    "refd.sock)\nSee refctl(1).\n");
	exit(status);
}

int
main(int argc, char *argv[])
{
	const struct refctl_cmd	*c;
	int			 ch, rc;

	/* a write to a refd that went away fails with EPIPE instead */
	signal(SIGPIPE, SIG_IGN);
	if (bri_init() != BRI_OK) {
		fprintf(stderr, "refctl: cannot initialise libsodium\n");
		return 2;
	}
	if (argc > 1 && strcmp(argv[1], "--help") == 0)
		usage(0);
	while ((ch = getopt(argc, argv, "+c:h")) != -1) {
		switch (ch) {
		case 'c':
			refctl_socket(optarg);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage(2);
	if (strcmp(argv[0], "help") == 0 || strcmp(argv[0], "--help") == 0)
		usage(0);
	for (c = cmds; c->name != NULL; c++)
		if (strcmp(c->name, argv[0]) == 0)
			break;
	if (c->name == NULL) {
		fprintf(stderr, "refctl: unknown command %s (see refctl -h)\n",
		    argv[0]);
		return 2;
	}
	rc = c->fn != NULL ? c->fn(argc, argv) :
	    cmd_simple(c->ctl, c->min, c->max, argc, argv);
	if (rc == REFCTL_USAGE) {
		fprintf(stderr, "usage:\n");
		if (c->fn == cmd_tournament)
			for (c = refctl_tourney_cmds; c->name != NULL; c++)
				refctl_help(stderr, "tournament ", c);
		else if (c->fn == cmd_cluster)
			for (c = refctl_cluster_cmds; c->name != NULL; c++)
				refctl_help(stderr, "cluster ", c);
		else
			refctl_help(stderr, "", c);
		rc = 2;
	}
	return rc;
}
