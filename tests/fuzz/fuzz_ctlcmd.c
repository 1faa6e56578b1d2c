/*
 * fuzz_ctlcmd.c: any bytes as an operator's lines on the control socket,
 * read the way ctl.c reads them (evbuffer_readln, the GTP_MAXLINE cap,
 * NUL bytes refused), cleaned and parsed as GTP commands, and the words
 * of every match_start checked by ctlopt_match(), the code refd runs,
 * against a registry of a few bots.  A command that passes must give a
 * match_conf that libbriscola and match_start() can take as it is.
 */
#include "config.h"

#include <string.h>

#include <event2/buffer.h>

#include "bots.h"
#include "conf.h"
#include "ctlopt.h"
#include "fuzz.h"
#include "gtp.h"
#include "match.h"
#include "util.h"

static const char *const fuzz_bots[] = { "a", "b", "c", "d", "heur",
    "rand", "py" };

/* A match_conf that passed is whole and in range. */
static void
fuzz_check_conf(const struct match_conf *mc)
{
	int	 i;

	FUZZ_CHECK(bri_options_check(&mc->opt) == BRI_OK);
	FUZZ_CHECK(mc->nbots >= 0 && mc->nbots <= BRI_MAXSEATS);
	for (i = 0; i < mc->nbots; i++)
		FUZZ_CHECK(bots_find(mc->bots[i]) != NULL);
	FUZZ_CHECK(mc->move_ms >= 1 && mc->move_ms <= 3600000);
	FUZZ_CHECK(mc->bank_ms >= 0 && mc->bank_ms <= 86400000);
	FUZZ_CHECK(mc->startup_ms >= 1 && mc->startup_ms <= 600000);
	FUZZ_CHECK(mc->max_faults >= 1 && mc->max_faults <= 1000);
	FUZZ_CHECK(mc->policy == POLICY_FORFEIT ||
	    mc->policy == POLICY_FALLBACK);
	FUZZ_CHECK(mc->have_seed == 0 || mc->have_seed == 1);
	FUZZ_CHECK(mc->tournament == 0 && mc->slot == 0);
}

/* One command line, as ctl_command() takes it. */
static void
fuzz_command(char *line)
{
	struct refd_conf dflt;
	struct match_conf mc;
	struct gtp_cmd	 cmd;
	const char	*errstr;
	char		 r[16384];
	int		 i;

	if (gtp_clean(line))
		return;
	if (gtp_parse_command(line, &cmd) == -1)
		return;
	FUZZ_CHECK(cmd.argc >= 0 && cmd.argc <= GTP_MAXARGS);
	for (i = 0; i < cmd.argc; i++)
		FUZZ_CHECK(cmd.argv[i][0] != '\0');
	if (strcmp(cmd.name, "match_start") != 0) {
		/* the ID of match_show and its kin */
		if (cmd.argc == 1)
			(void)util_num(cmd.argv[0], 1, INT64_MAX, &errstr);
		return;
	}
	if (cmd.argc < 2)		/* the table's arity */
		return;
	memset(&dflt, 0, sizeof(dflt));
	dflt.move_ms = 5000;
	dflt.startup_ms = 10000;
	r[0] = '\0';
	if (ctlopt_match(&mc, &dflt, cmd.argc, cmd.argv, r, sizeof(r)) == -1) {
		FUZZ_CHECK(r[0] != '\0' && strlen(r) < 200);
		return;
	}
	fuzz_check_conf(&mc);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char	 tru[] = "/bin/true";
	char		 err[256], *cmd[] = { tru };
	size_t		 i;

	(void)argc;
	(void)argv;
	if (bri_init() != BRI_OK)
		abort();
	for (i = 0; i < sizeof(fuzz_bots) / sizeof(fuzz_bots[0]); i++)
		if (bots_add(fuzz_bots[i], BOT_SPAWN, 1, cmd, err,
		    sizeof(err)) == -1)
			abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evbuffer	*in;
	char		*line;
	size_t		 len;

	if ((in = evbuffer_new()) == NULL)
		return 0;
	evbuffer_add(in, data, size);
	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF)) != NULL) {
		if (len <= GTP_MAXLINE && memchr(line, '\0', len) == NULL)
			fuzz_command(line);
		free(line);
	}
	/* the rest is a line over the cap (the connection closes) or cut */
	evbuffer_free(in);
	return 0;
}
