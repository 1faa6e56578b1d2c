/*
 * fuzz_conf.c: any bytes as refd's config file (refd.conf(5)), read by
 * conf_parse(), the code refd -f runs, through a stdio stream as refd
 * reads the file.  A file either applies or gives "fname:line: reason";
 * whatever applied is in range, and every bot it added has a valid name
 * and a command.  The registry of bots is emptied after each input.
 */
#include "config.h"

#include <string.h>

#include "briscola.h"
#include "bots.h"
#include "conf.h"
#include "fuzz.h"
#include "util.h"

/* Whatever a config file set is within its documented bounds. */
static void
fuzz_check_conf(const struct refd_conf *c)
{
	struct bot	*b;

	FUZZ_CHECK(memchr(c->db_path, '\0', sizeof(c->db_path)) != NULL);
	FUZZ_CHECK(memchr(c->ctl_path, '\0', sizeof(c->ctl_path)) != NULL);
	FUZZ_CHECK(memchr(c->botlog_dir, '\0', sizeof(c->botlog_dir)) != NULL);
	FUZZ_CHECK(memchr(c->listen_host, '\0', sizeof(c->listen_host)) !=
	    NULL);
	FUZZ_CHECK(c->listen_port >= 0 && c->listen_port <= 65535);
	FUZZ_CHECK(c->move_ms >= 1 && c->move_ms <= 3600000);
	FUZZ_CHECK(c->bank_ms >= 0 && c->bank_ms <= 86400000);
	FUZZ_CHECK(c->startup_ms >= 1 && c->startup_ms <= 600000);
	FUZZ_CHECK(c->max_conns >= 1 && c->max_conns <= 100000);
	FUZZ_CHECK(c->auth_ms >= 1 && c->auth_ms <= 600000);
	FUZZ_CHECK(c->bot_cpu_s >= 0 && c->bot_cpu_s <= 86400);
	FUZZ_CHECK(c->bot_mem_mb >= 0 && c->bot_mem_mb <= 1048576);
	for (b = bots_first(); b != NULL; b = bots_next(b)) {
		FUZZ_CHECK(util_name_ok(b->name));
		FUZZ_CHECK(b->kind == BOT_REMOTE ||
		    (b->argc >= 1 && b->argc <= REFD_MAXARGV &&
		    b->argv[b->argc] == NULL));
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (bri_init() != BRI_OK)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct refd_conf c;
	FILE		*fp;
	char		*buf, err[1024];
	int		 rc;

	if (size == 0 || (buf = malloc(size)) == NULL)
		return 0;
	memcpy(buf, data, size);
	if ((fp = fmemopen(buf, size, "r")) == NULL) {
		free(buf);
		return 0;
	}
	memset(&c, 0, sizeof(c));
	snprintf(c.db_path, sizeof(c.db_path), "refd.db");
	snprintf(c.ctl_path, sizeof(c.ctl_path), "refd.sock");
	c.move_ms = 5000;
	c.startup_ms = 10000;
	c.max_conns = 4096;
	c.auth_ms = 10000;
	err[0] = '\0';
	rc = conf_parse(&c, fp, "fuzz.conf", err, sizeof(err));
	fclose(fp);
	free(buf);
	if (rc == -1)
		FUZZ_CHECK(strncmp(err, "fuzz.conf:", 10) == 0);
	else
		FUZZ_CHECK(rc == 0);
	fuzz_check_conf(&c);
	bots_free();
	return 0;
}
