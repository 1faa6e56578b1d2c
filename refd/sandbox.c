/*
 * sandbox.c: the bubblewrap(1) command line of a spawned bot.
 *
 * A bot runs in new user, PID, IPC, UTS, cgroup and (unless it asks for
 * the network) network namespaces, on the host's file system bound read
 * only, with fresh size-capped tmpfs on /tmp and its HOME, and tmpfs
 * over /home, /root, /run and every directory the spawner hides (its
 * working directory, the log's, the control socket's, the config
 * file's, the bot logs').  The files the bot's own command names are
 * bound back read only where they lie under a hidden directory, so a
 * bot started as "python3 bots/x.py" still finds its script.  Inside,
 * prlimit(1) caps its processes: the count is per user namespace, so a
 * fork bomb exhausts its own sandbox and nobody else's.
 *
 * Nothing here touches the system: whether a word names a file and
 * what the environment holds come from callbacks.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sandbox.h"

/* Directories every bot finds empty, whatever the spawner hides. */
static const char *const sandbox_roots[] = { "/tmp", "/home", "/root",
    "/run" };
#define NROOTS	(sizeof(sandbox_roots) / sizeof(sandbox_roots[0]))

const char *
sandbox_mode_name(enum sandbox_mode m)
{
	return m == SANDBOX_NONE ? "none" : "bwrap";
}

/* Is an environment variable name plain: [A-Za-z_][A-Za-z0-9_]*? */
static int
sandbox_envname_ok(const char *s)
{
	size_t	 i;

	if (*s == '\0' || (*s >= '0' && *s <= '9') || strlen(s) > 64)
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' &&
		    s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/*
 * Split a bot's words into its options and its command: options are the
 * leading words that begin with "--", up to a "--" or the first other
 * word.  Returns 0, or -1 with the reason in err.
 */
int
sandbox_opts_parse(char * const *argv, struct sandbox_opts *o, char *err,
    size_t errlen)
{
	const char	*w;
	int		 i;

	memset(o, 0, sizeof(*o));
	for (i = 0; (w = argv[i]) != NULL && strncmp(w, "--", 2) == 0; i++) {
		if (strcmp(w, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(w, "--net") == 0)
			o->net = 1;
		else if (strncmp(w, "--env=", 6) == 0) {
			if (!sandbox_envname_ok(w + 6)) {
				snprintf(err, errlen, "--env: bad variable "
				    "name");
				return -1;
			}
			if (o->nenv == SANDBOX_MAXENV) {
				snprintf(err, errlen, "at most %d --env "
				    "options", SANDBOX_MAXENV);
				return -1;
			}
			o->env[o->nenv++] = w + 6;
		} else if (strncmp(w, "--dir=", 6) == 0) {
			if (w[6] != '/') {
				snprintf(err, errlen, "--dir needs an "
				    "absolute path");
				return -1;
			}
			o->dir = w + 6;
		} else {
			snprintf(err, errlen, "unknown bot option %.40s (--net, "
			    "--env=NAME, --dir=PATH)", w);
			return -1;
		}
	}
	if (argv[i] == NULL || argv[i][0] == '\0') {
		snprintf(err, errlen, "a command is needed after the options");
		return -1;
	}
	o->cmd = argv + i;
	return 0;
}

/* Is path p equal to directory d, or inside it? */
static int
sandbox_under(const char *p, const char *d)
{
	size_t	 n = strlen(d);

	if (strcmp(d, "/") == 0)
		return 1;
	return strncmp(p, d, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/*
 * Hide directory dir (absolute and real) from every bot; if whole,
 * nothing in it is ever bound back.  The root cannot be hidden: the
 * caller must keep secrets out of it.
 */
int
sandbox_hide(struct sandbox_conf *c, const char *dir, int whole, char *err,
    size_t errlen)
{
	int	 i;

	if (dir[0] != '/' || strlen(dir) >= sizeof(c->hide[0])) {
		snprintf(err, errlen, "%.200s: not an absolute path", dir);
		return -1;
	}
	if (strcmp(dir, "/") == 0) {
		snprintf(err, errlen, "cannot hide / from bots: keep the log, "
		    "the control socket and the config file in a directory "
		    "of their own");
		return -1;
	}
	for (i = 0; i < c->nhide; i++)
		if (strcmp(c->hide[i], dir) == 0) {
			c->whole[i] |= whole;
			return 0;
		}
	if (c->nhide == SANDBOX_MAXHIDE) {
		snprintf(err, errlen, "too many directories to hide");
		return -1;
	}
	c->whole[c->nhide] = whole;
	snprintf(c->hide[c->nhide++], sizeof(c->hide[0]), "%s", dir);
	return 0;
}

/*
 * A file (absolute and real) no bot may see even if its command names
 * it: the log and its journals, the control socket, the config file.
 */
int
sandbox_secret(struct sandbox_conf *c, const char *path, char *err,
    size_t errlen)
{
	if (path[0] != '/' || strlen(path) >= sizeof(c->secret[0]) ||
	    c->nsecret == (int)(sizeof(c->secret) / sizeof(c->secret[0]))) {
		snprintf(err, errlen, "%.200s: cannot keep it from bots", path);
		return -1;
	}
	snprintf(c->secret[c->nsecret++], sizeof(c->secret[0]), "%s", path);
	return 0;
}

/* May path p (a file, or a directory if dir) be bound back? */
static int
sandbox_bindable(const struct sandbox_conf *c, const char *p, int dir)
{
	int	 j;

	for (j = 0; j < c->nhide; j++)
		if (c->whole[j] && sandbox_under(p, c->hide[j]))
			return 0;
	for (j = 0; j < c->nsecret; j++)
		if (dir ? sandbox_under(c->secret[j], p) :
		    strcmp(c->secret[j], p) == 0)
			return 0;
	return 1;
}

/* Append a word, or with b an env entry a=b; -1 when full. */
static int
sandbox_push(struct sandbox_cmd *sc, char **vec, int *n, int max,
    const char *a, const char *b)
{
	int	 len;

	if (*n >= max - 1)
		return -1;
	len = b == NULL ? snprintf(sc->buf + sc->used, sizeof(sc->buf) -
	    sc->used, "%s", a) : snprintf(sc->buf + sc->used, sizeof(sc->buf) -
	    sc->used, "%s=%s", a, b);
	if (len < 0 || (size_t)len >= sizeof(sc->buf) - sc->used)
		return -1;
	vec[(*n)++] = sc->buf + sc->used;
	vec[*n] = NULL;
	sc->used += (size_t)len + 1;
	return 0;
}

/* Is p hidden: under a root or a hidden directory? */
static int
sandbox_covered(const struct sandbox_conf *c, const char *p)
{
	size_t	 i;
	int	 j;

	for (i = 0; i < NROOTS; i++)
		if (sandbox_under(p, sandbox_roots[i]))
			return 1;
	for (j = 0; j < c->nhide; j++)
		if (sandbox_under(p, c->hide[j]))
			return 1;
	return 0;
}

/* Does directory d hold (or is it) a root or a hidden directory? */
static int
sandbox_holds_secret(const struct sandbox_conf *c, const char *d)
{
	size_t	 i;
	int	 j;

	for (i = 0; i < NROOTS; i++)
		if (sandbox_under(sandbox_roots[i], d))
			return 1;
	for (j = 0; j < c->nhide; j++)
		if (sandbox_under(c->hide[j], d))
			return 1;
	return 0;
}

/* Is hidden directory j inside a root or another hidden directory? */
static int
sandbox_nested(const struct sandbox_conf *c, int j)
{
	size_t	 i;
	int	 k;

	for (i = 0; i < NROOTS; i++)
		if (sandbox_under(c->hide[j], sandbox_roots[i]))
			return 1;
	for (k = 0; k < c->nhide; k++)
		if (k != j && sandbox_under(c->hide[j], c->hide[k]))
			return 1;
	return 0;
}

#define ARG(s)		do { if (sandbox_push(sc, sc->argv, &n,		\
	SANDBOX_MAXARGV, (s), NULL) == -1) goto full; } while (0)
#define ENV(k, v)	do { if (sandbox_push(sc, sc->envp, &ne,	\
	SANDBOX_MAXENV + 4, (k), (v)) == -1) goto full; } while (0)

/*
 * Build the command that runs bot o under c into sc: argv for execvp(3)
 * and a clean envp (PATH, LANG, HOME and the variables o names).
 * resolve says whether a word of the command names a file; getenv reads
 * the spawner's environment; arg is passed to both.  Returns 0, or -1
 * with the reason in err.
 */
int
sandbox_build(const struct sandbox_conf *c, const struct sandbox_opts *o,
    sandbox_resolve resolve, sandbox_getenv getenv_cb, void *arg,
    struct sandbox_cmd *sc, char *err, size_t errlen)
{
	char		 real[4096], dir[4096], size[32], nproc[32], *slash;
	char		 bound[16][4096];
	const char	*v;
	size_t		 i, len, next;
	int		 n = 0, ne = 0, j, k, nbound = 0, kind;

	sc->used = 0;
	sc->argv[0] = sc->envp[0] = NULL;
	v = getenv_cb("PATH", arg);
	ENV("PATH", v != NULL ? v : "/usr/local/bin:/usr/bin:/bin");
	if ((v = getenv_cb("LANG", arg)) != NULL)
		ENV("LANG", v);
	if (c->mode == SANDBOX_BWRAP)
		ENV("HOME", SANDBOX_HOME);
	else if ((v = getenv_cb("HOME", arg)) != NULL)
		ENV("HOME", v);
	for (j = 0; j < o->nenv; j++)
		if (strcmp(o->env[j], "PATH") != 0 &&
		    strcmp(o->env[j], "LANG") != 0 &&
		    strcmp(o->env[j], "HOME") != 0 &&
		    (v = getenv_cb(o->env[j], arg)) != NULL)
			ENV(o->env[j], v);

	if (c->mode == SANDBOX_NONE) {
		for (j = 0; o->cmd[j] != NULL; j++)
			ARG(o->cmd[j]);
		return 0;
	}

	snprintf(size, sizeof(size), "%lld", (long long)c->tmp_mb << 20);
	ARG(c->bwrap);
	ARG("--unshare-all");
	if (o->net)
		ARG("--share-net");
	ARG("--die-with-parent");
	ARG("--new-session");
	ARG("--ro-bind"); ARG("/"); ARG("/");
	ARG("--proc"); ARG("/proc");
	ARG("--dev"); ARG("/dev");
	for (i = 0; i < NROOTS; i++) {
		ARG("--size"); ARG(size);
		ARG("--tmpfs"); ARG(sandbox_roots[i]);
	}
	ARG("--size"); ARG(size);
	ARG("--tmpfs"); ARG(SANDBOX_HOME);
	/* ancestors first, so that a nested one is made inside its tmpfs */
	for (len = 1; len < sizeof(c->hide[0]); len = next) {
		next = sizeof(c->hide[0]);
		for (j = 0; j < c->nhide; j++) {
			if (strlen(c->hide[j]) > len && strlen(c->hide[j]) < next)
				next = strlen(c->hide[j]);
			if (strlen(c->hide[j]) != len)
				continue;
			if (sandbox_nested(c, j)) {
				ARG("--dir"); ARG(c->hide[j]);
			} else {
				ARG("--size"); ARG("65536");
				ARG("--tmpfs"); ARG(c->hide[j]);
			}
		}
	}

	/* the bot's own files, where they are hidden: bound back */
	for (j = 0; o->cmd[j] != NULL; j++) {
		kind = resolve(o->cmd[j], real, sizeof(real), arg);
		if (kind != 1 || !sandbox_covered(c, real))
			continue;
		snprintf(dir, sizeof(dir), "%s", real);
		if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
			*slash = '\0';
		/* its directory, unless that would show a secret too */
		if (!sandbox_holds_secret(c, dir) && sandbox_bindable(c, dir, 1))
			v = dir;
		else if (sandbox_bindable(c, real, 0))
			v = real;
		else
			continue;	/* never: the bot fails to find it */
		for (k = 0; k < nbound; k++)
			if (sandbox_under(v, bound[k]))
				break;
		if (k < nbound)
			continue;
		if (nbound == (int)(sizeof(bound) / sizeof(bound[0]))) {
			snprintf(err, errlen, "too many files in the command");
			return -1;
		}
		snprintf(bound[nbound++], sizeof(bound[0]), "%s", v);
		ARG("--ro-bind"); ARG(v); ARG(v);
	}
	if (o->dir != NULL) {
		if (resolve(o->dir, real, sizeof(real), arg) != 2) {
			snprintf(err, errlen, "--dir %.200s: no such directory",
			    o->dir);
			return -1;
		}
		if (sandbox_holds_secret(c, real) || !sandbox_bindable(c, real,
		    1) || strcmp(real, "/") == 0) {
			snprintf(err, errlen, "--dir %.200s holds what bots "
			    "may not see", o->dir);
			return -1;
		}
		ARG("--bind"); ARG(real); ARG(real);
	}
	/* what was mounted to hide things stays read-only */
	for (i = 0; i < NROOTS; i++)
		if (strcmp(sandbox_roots[i], "/tmp") != 0) {
			ARG("--remount-ro"); ARG(sandbox_roots[i]);
		}
	for (j = 0; j < c->nhide; j++)
		if (!sandbox_nested(c, j)) {
			ARG("--remount-ro"); ARG(c->hide[j]);
		}
	ARG("--chdir"); ARG(c->cwd[0] != '\0' ? c->cwd : "/");
	ARG("--");
	if (c->nproc > 0) {
		snprintf(nproc, sizeof(nproc), "--nproc=%d", c->nproc);
		ARG("prlimit"); ARG(nproc); ARG("--");
	}
	for (j = 0; o->cmd[j] != NULL; j++)
		ARG(o->cmd[j]);
	return 0;
full:
	snprintf(err, errlen, "the bot's command is too long");
	return -1;
}
