/*
 * conf.c: refd's configuration file (refd.conf(5)): lines of words,
 * cleaned as GTP lines are, each a setting or a bot.  It touches nothing
 * but the settings it is given and the registry of bots, so that the
 * fuzzer (tests/fuzz/fuzz_conf.c) runs the code refd runs.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bots.h"
#include "conf.h"
#include "gtp.h"
#include "mset.h"
#include "util.h"

/* Parse "host:port" of a setting into host (hostlen bytes) and port. */
static int
conf_hostport(const char *what, const char *s, char *host, size_t hostlen,
    int *port, char *err, size_t errlen)
{
	const char	*colon = strrchr(s, ':'), *errstr;
	long long	 n;

	if (colon == NULL || colon == s || (size_t)(colon - s) >= hostlen) {
		snprintf(err, errlen, "%s: host:port expected", what);
		return -1;
	}
	n = util_num(colon + 1, 0, 65535, &errstr);
	if (errstr != NULL) {
		snprintf(err, errlen, "%s: port %s", what, errstr);
		return -1;
	}
	memcpy(host, s, colon - s);
	host[colon - s] = '\0';
	*port = (int)n;
	return 0;
}

/*
 * Parse "host:port" into c's listen settings (the listen line, and
 * refd -l).  Returns 0, or -1 with the reason in err.
 */
int
conf_listen(struct refd_conf *c, const char *s, char *err, size_t errlen)
{
	const char	*colon = strrchr(s, ':'), *errstr, *host = s;
	long long	 port;
	size_t		 len;

	if (colon == NULL || colon == s) {
		snprintf(err, errlen, "listen: host:port expected");
		return -1;
	}
	len = (size_t)(colon - s);
	/* an IPv6 address in brackets: [::1]:7433 */
	if (s[0] == '[') {
		if (len < 3 || s[len - 1] != ']') {
			snprintf(err, errlen, "listen: [IPv6 address]:port "
			    "expected");
			return -1;
		}
		host = s + 1;
		len -= 2;
	} else if (memchr(s, ':', len) != NULL) {
		snprintf(err, errlen, "listen: an IPv6 address goes in "
		    "brackets: [address]:port");
		return -1;
	}
	if (len >= sizeof(c->listen_host)) {
		snprintf(err, errlen, "listen: host too long");
		return -1;
	}
	port = util_num(colon + 1, 0, 65535, &errstr);
	if (errstr != NULL) {
		snprintf(err, errlen, "listen: port %s", errstr);
		return -1;
	}
	memcpy(c->listen_host, host, len);
	c->listen_host[len] = '\0';
	c->listen_port = (int)port;
	return 0;
}

/*
 * Parse "host:port" into c's web site settings (the http line, and
 * refd -w); a port alone is on the loopback address.  Returns 0, or -1
 * with the reason in err.
 */
int
conf_http(struct refd_conf *c, const char *s, char *err, size_t errlen)
{
	char	 lo[32];

	if (strchr(s, ':') == NULL) {
		snprintf(lo, sizeof(lo), "127.0.0.1:%.16s", s);
		s = lo;
	}
	return conf_hostport("http", s, c->http_host, sizeof(c->http_host),
	    &c->http_port, err, errlen);
}

/* Set refd's default of match setting k (refd.conf, refd -m and -s). */
int
conf_default(struct refd_conf *c, int k, long long n)
{
	switch (k) {
	case MSET_MOVE_MS:
		c->move_ms = (int)n;
		return 0;
	case MSET_BANK_MS:
		c->bank_ms = (int)n;
		return 0;
	case MSET_STARTUP_MS:
		c->startup_ms = (int)n;
		return 0;
	default:
		return -1;
	}
}

/* Apply one config line, already split into words. */
static int
conf_line(struct refd_conf *c, int argc, char **argv, char *err,
    size_t errlen)
{
	static const struct {
		const char	*key;
		size_t		 off;
		long long	 min, max;
	} nums[] = {
		{ "max_connections", offsetof(struct refd_conf, max_conns), 1,
		    100000 },
		{ "auth_ms", offsetof(struct refd_conf, auth_ms), 1, 600000 },
		{ "commit_ms", offsetof(struct refd_conf, commit_ms), 0, 1000 },
		{ "checkpoint_pages", offsetof(struct refd_conf, ckpt_pages),
		    100, 1000000 },
		{ "keep_matches", offsetof(struct refd_conf, keep_matches), 0,
		    1000000 },
		{ "max_unauthenticated", offsetof(struct refd_conf, max_unauth),
		    1, 100000 },
		{ "max_per_address", offsetof(struct refd_conf, max_per_addr),
		    1, 100000 },
		{ "control_idle_ms", offsetof(struct refd_conf, ctl_idle_ms),
		    100, 86400000 },
		{ "bot_cpu_seconds", offsetof(struct refd_conf, bot_cpu_s), 0,
		    86400 },
		{ "bot_memory_mb", offsetof(struct refd_conf, bot_mem_mb), 0,
		    1048576 },
		{ "http_max_connections", offsetof(struct refd_conf,
		    http_max_conns), 1, 100000 },
		{ "http_max_per_address", offsetof(struct refd_conf,
		    http_max_per_addr), 1, 100000 },
		{ "cluster_batch_ms", offsetof(struct refd_conf,
		    cluster_batch_ms), 100, 3600000 },
		{ "botlog_max_mb", offsetof(struct refd_conf, botlog_max_mb),
		    0, 16777216 },
	};
	const char	*errstr;
	size_t		 i;
	long long	 n;
	int		 k;

	/* a match setting: refd's default of it, by the one table */
	if ((k = mset_find(argv[0])) != -1) {
		if (!mset_daemon(k)) {
			snprintf(err, errlen, "%s is a match's own setting: "
			    "give it to match_start or a tournament", argv[0]);
			return -1;
		}
		if (argc != 2) {
			snprintf(err, errlen, "%s takes one number", argv[0]);
			return -1;
		}
		if (mset_value(k, argv[1], &n, NULL, err, errlen) == -1)
			return -1;
		if (conf_default(c, k, n) == -1) {
			snprintf(err, errlen, "%s: no default in refd", argv[0]);
			return -1;
		}
		return 0;
	}
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcmp(argv[0], nums[i].key) != 0)
			continue;
		if (argc != 2) {
			snprintf(err, errlen, "%s takes one number", argv[0]);
			return -1;
		}
		n = util_num(argv[1], nums[i].min, nums[i].max, &errstr);
		if (errstr != NULL) {
			snprintf(err, errlen, "%s: %s (%lld to %lld)", argv[0],
			    errstr, nums[i].min, nums[i].max);
			return -1;
		}
		*(int *)((char *)c + nums[i].off) = (int)n;
		return 0;
	}
	if (strcmp(argv[0], "bot") == 0)
		return bots_define(argc - 1, argv + 1, err, errlen);
	if (strcmp(argv[0], "cluster") == 0 && argc >= 2) {
		/* a CONNINFO's words (refd-cluster(7)), joined again */
		c->cluster[0] = '\0';
		/* no pointer past the buffer once it is full: stop there */
		for (k = 1, n = 0; k < argc && n < (long long)sizeof(
		    c->cluster); k++)
			n += snprintf(c->cluster + n, sizeof(c->cluster) - n,
			    "%s%s", k > 1 ? " " : "", argv[k]);
		if (n >= (long long)sizeof(c->cluster)) {
			c->cluster[0] = '\0';
			snprintf(err, errlen, "cluster: too long");
			return -1;
		}
		return 0;
	}
	if (argc != 2) {
		snprintf(err, errlen, "unknown setting or wrong arity: %s",
		    argv[0]);
		return -1;
	}
	if (strcmp(argv[0], "database") == 0)
		snprintf(c->db_path, sizeof(c->db_path), "%s", argv[1]);
	else if (strcmp(argv[0], "control") == 0)
		snprintf(c->ctl_path, sizeof(c->ctl_path), "%s", argv[1]);
	else if (strcmp(argv[0], "botlogs") == 0)
		snprintf(c->botlog_dir, sizeof(c->botlog_dir), "%s", argv[1]);
	else if (strcmp(argv[0], "listen") == 0)
		return conf_listen(c, argv[1], err, errlen);
	else if (strcmp(argv[0], "http") == 0)
		return conf_http(c, argv[1], err, errlen);
	else if (strcmp(argv[0], "http_token") == 0) {
		if (strlen(argv[1]) >= sizeof(c->http_token) ||
		    strlen(argv[1]) < 16) {
			snprintf(err, errlen, "http_token: 16 to %zu "
			    "characters", sizeof(c->http_token) - 1);
			return -1;
		}
		snprintf(c->http_token, sizeof(c->http_token), "%s", argv[1]);
	}
	else if (strcmp(argv[0], "worker") == 0) {
		if (!util_name_ok(argv[1]) || strlen(argv[1]) > 32) {
			snprintf(err, errlen, "worker: a name of 1 to 32 "
			    "letters, digits, _ . or -");
			return -1;
		}
		snprintf(c->worker, sizeof(c->worker), "%s", argv[1]);
	} else if (strcmp(argv[0], "bot_user") == 0)
		snprintf(c->bot_user, sizeof(c->bot_user), "%s", argv[1]);
	else if (strcmp(argv[0], "sandbox") == 0) {
		if (strcmp(argv[1], "bwrap") != 0 &&
		    strcmp(argv[1], "none") != 0) {
			snprintf(err, errlen, "sandbox must be bwrap or none");
			return -1;
		}
		c->sandbox_none = strcmp(argv[1], "none") == 0;
	}
	else {
		snprintf(err, errlen, "unknown setting %s", argv[0]);
		return -1;
	}
	return 0;
}

/*
 * Read the config file fp (named fname in messages) into c, adding its
 * bots to the registry.  Returns 0, or -1 at the first error with
 * "fname:line: reason" in err; the lines before it have taken effect.
 */
int
conf_parse(struct refd_conf *c, FILE *fp, const char *fname, char *err,
    size_t errlen)
{
	char		 line[GTP_MAXLINE + 2], why[512], *w[GTP_MAXARGS];
	int		 n, lineno = 0;

	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(fp)) {
			snprintf(err, errlen, "%s:%d: line too long", fname,
			    lineno);
			return -1;
		}
		if (gtp_clean(line))
			continue;
		if ((n = gtp_split(line, w, GTP_MAXARGS)) == -1) {
			snprintf(err, errlen, "%s:%d: too many words", fname,
			    lineno);
			return -1;
		}
		if (conf_line(c, n, w, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s:%d: %s", fname, lineno, why);
			return -1;
		}
	}
	return 0;
}
