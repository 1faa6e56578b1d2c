/*
 * refctl: the operator's command-line client for refd's control socket,
 * and the offline tools that read refd's log.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "briscola.h"
#include "gtp.h"
#include "refctl.h"
#include "util.h"

static const char	*sockpath = "refd.sock";
static FILE		*ctl_in;
static int		 ctl_fd = -1;
static long		 ctl_id;

/* Connect to refd's control socket. */
static void
ctl_connect(void)
{
	struct sockaddr_un	 sun;

	if (ctl_fd != -1)
		return;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(sockpath) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "refctl: socket path too long\n");
		exit(2);
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sockpath);
	if ((ctl_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(ctl_fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		fprintf(stderr, "refctl: cannot reach refd at %s: %s\n",
		    sockpath, strerror(errno));
		exit(2);
	}
	if ((ctl_in = fdopen(ctl_fd, "r")) == NULL) {
		perror("refctl");
		exit(2);
	}
}

/*
 * Send one command (words joined by spaces) and read its answer.  Each
 * line of the answer's text goes to cb (or stdout when NULL) as it
 * arrives, so streams show live.  Returns 0 for '=', 1 for '?'.
 */
int
refctl_command(int argc, char **argv, void (*cb)(const char *, void *),
    void *arg)
{
	char	 line[GTP_MAXLINE * 4 + 2], *text;
	size_t	 at = 0;
	long	 id;
	int	 i, ok = 0, first = 1;

	ctl_connect();
	at = snprintf(line, sizeof(line), "%ld", ++ctl_id);
	for (i = 0; i < argc && at < sizeof(line) - 2; i++)
		at += snprintf(line + at, sizeof(line) - at, " %s", argv[i]);
	if (at >= sizeof(line) - 2) {
		fprintf(stderr, "refctl: command too long\n");
		exit(2);
	}
	line[at++] = '\n';
	if (write(ctl_fd, line, at) != (ssize_t)at) {
		fprintf(stderr, "refctl: write: %s\n", strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), ctl_in) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (first) {
			if (gtp_parse_answer(line, &id, &ok, &text) == -1 ||
			    id != ctl_id) {
				fprintf(stderr, "refctl: bad answer: %s\n", line);
				exit(2);
			}
			first = 0;
		} else if (line[0] == '\0')
			return !ok;
		else
			text = line;
		if (!ok)
			fprintf(stderr, "refctl: %s\n", text);
		else if (cb != NULL)
			cb(text, arg);
		else if (*text != '\0')
			printf("%s\n", text);
		fflush(stdout);
	}
	fprintf(stderr, "refctl: refd closed the connection\n");
	exit(2);
}

/* refctl cmd WORDS...: any control command as is. */
static int
cmd_raw(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: refctl cmd COMMAND [ARG ...]\n");
		return 2;
	}
	return refctl_command(argc - 1, argv + 1, NULL, NULL);
}

/* Commands that map one to one onto a control command. */
static int
cmd_simple(const char *name, int min, int max, int argc, char **argv)
{
	char	*words[GTP_MAXARGS + 1];
	int	 i;

	if (argc - 1 < min || argc - 1 > max || argc > GTP_MAXARGS) {
		fprintf(stderr, "refctl %s: wrong number of arguments "
		    "(see refctl -h)\n", argv[0]);
		return 2;
	}
	words[0] = (char *)name;
	for (i = 1; i < argc; i++)
		words[i] = argv[i];
	return refctl_command(argc, words, NULL, NULL);
}

/* refctl bot add NAME [--remote TOKEN | -- COMMAND ARGS]; bot list. */
static int
cmd_bot(int argc, char **argv)
{
	char	*words[GTP_MAXARGS + 4];
	int	 i, n = 0;

	if (argc >= 2 && strcmp(argv[1], "list") == 0)
		return refctl_command(1, (char *[]){ "bot_list" }, NULL, NULL);
	if (argc < 5 || strcmp(argv[1], "add") != 0 ||
	    (strcmp(argv[3], "--remote") != 0 && strcmp(argv[3], "--") != 0) ||
	    argc - 4 > GTP_MAXARGS - 3) {
		fprintf(stderr, "usage: refctl bot add NAME -- COMMAND [ARG ...]\n"
		    "       refctl bot add NAME --remote TOKEN\n"
		    "       refctl bot list\n");
		return 2;
	}
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
	if (optind >= argc || argc - optind > BRI_MAXSEATS) {
		fprintf(stderr, "usage: refctl match [--variant V] [--seed HEX] "
		    "[--move-ms N] [--policy P] [--watch] BOT ...\n");
		return 2;
	}
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

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: refctl [-c socket] COMMAND [ARGS]\n"
	    "\n"
	    "Commands to a running refd:\n"
	    "  status                        what refd is doing\n"
	    "  bot add NAME -- CMD [ARG...]  register a bot refd spawns\n"
	    "  bot add NAME --remote TOKEN   register a bot that connects\n"
	    "  bot list                      the registered bots\n"
	    "  match [--variant V] [--seed HEX] [--move-ms N] [--bank-ms N]\n"
	    "        [--startup-ms N] [--policy forfeit|fallback]\n"
	    "        [--max-faults N] [--option KEY=VALUE] [--watch]\n"
	    "        [--no-wait] BOT ...     play a match, print its result\n"
	    "  list                          every match with its state\n"
	    "  info ID                       one match in detail\n"
	    "  watch ID                      follow a match live\n"
	    "  wait ID                       wait for a match to end\n"
	    "  stop ID                       stop a match (aborted)\n"
	    "  shutdown                      stop refd gracefully\n"
	    "  cmd COMMAND [ARG...]          any control command as is\n"
	    "  checkbot [-v] [-n DEALS] [-s SEED] [-t MS] [-V V] -- CMD [ARG...]\n"
	    "                                check a bot, without refd\n"
	    "  tournament run FILE [--wait] run a tournament (refd-tournament(5))\n"
	    "  tournament status ID [--watch]  progress and standings\n"
	    "  tournament list|stop|resume|wait  manage tournaments\n"
	    "  tournament standings|results --db FILE ID [--format F]\n"
	    "                                from the log alone\n"
	    "  tournament schedule FILE      the matches a definition makes\n"
	    "  bridge -p PORT -n NAME -- CMD  play a stdio bot over TCP\n"
	    "\n"
	    "Offline tools, which read refd's log without refd:\n"
	    "  audit --db FILE [--all] [--allow-running] [--key KEY] [ID...]\n"
	    "                                verify matches from the log\n"
	    "  show --db FILE ID [--deal N] [--seat S]\n"
	    "                                a match's transcript, or what\n"
	    "                                one seat was told\n"
	    "  export --db FILE [--format json] {--all | ID...}\n"
	    "                                matches as JSON, one a line\n"
	    "  verify-receipt --db FILE --match ID --receipt LINE\n"
	    "      [--transcript FILE --seat S]  a bot's receipt against the\n"
	    "                                log\n"
	    "\n"
	    "  -c socket   refd's control socket (default refd.sock)\n"
	    "See refctl(1).\n");
	exit(status);
}

int
main(int argc, char *argv[])
{
	const char	*cmd;
	int		 ch;

	if (bri_init() != BRI_OK) {
		fprintf(stderr, "refctl: cannot initialise libsodium\n");
		return 2;
	}
	if (argc > 1 && strcmp(argv[1], "--help") == 0)
		usage(0);
	while ((ch = getopt(argc, argv, "+c:h")) != -1) {
		switch (ch) {
		case 'c':
			sockpath = optarg;
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
	cmd = argv[0];
	if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0)
		usage(0);
	if (strcmp(cmd, "status") == 0)
		return cmd_simple("status", 0, 0, argc, argv);
	if (strcmp(cmd, "bot") == 0)
		return cmd_bot(argc, argv);
	if (strcmp(cmd, "match") == 0)
		return cmd_match(argc, argv);
	if (strcmp(cmd, "list") == 0)
		return cmd_simple("match_list", 0, 0, argc, argv);
	if (strcmp(cmd, "info") == 0)
		return cmd_simple("match_show", 1, 1, argc, argv);
	if (strcmp(cmd, "watch") == 0) {
		if (argc != 2)
			usage(2);
		return refctl_command(2, (char *[]){ "match_watch", argv[1] },
		    print_event, NULL);
	}
	if (strcmp(cmd, "wait") == 0)
		return cmd_simple("match_wait", 1, 1, argc, argv);
	if (strcmp(cmd, "stop") == 0)
		return cmd_simple("match_stop", 1, 1, argc, argv);
	if (strcmp(cmd, "shutdown") == 0)
		return cmd_simple("shutdown", 0, 0, argc, argv);
	if (strcmp(cmd, "cmd") == 0)
		return cmd_raw(argc, argv);
	if (strcmp(cmd, "checkbot") == 0)
		return cmd_checkbot(argc, argv);
	if (strcmp(cmd, "audit") == 0)
		return cmd_audit(argc, argv);
	if (strcmp(cmd, "show") == 0)
		return cmd_show(argc, argv);
	if (strcmp(cmd, "export") == 0)
		return cmd_export(argc, argv);
	if (strcmp(cmd, "verify-receipt") == 0)
		return cmd_verify_receipt(argc, argv);
	if (strcmp(cmd, "bridge") == 0)
		return cmd_bridge(argc, argv);
	if (strcmp(cmd, "tournament") == 0)
		return cmd_tournament(argc, argv);
	fprintf(stderr, "refctl: unknown command %s (see refctl -h)\n", cmd);
	return 2;
}
