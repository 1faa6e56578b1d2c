/*
 * sandbox.c: the bubblewrap(1) command line of a spawned bot.
 *
 * A bot runs in new user, PID, IPC, UTS, cgroup and (unless it asks for
 * the network) network namespaces, with no user namespace of its own
 * to make (bwrap --disable-userns, where bwrap has it), on an empty root that shows it only
 * what is on an allow list, read only: /usr, the system's /bin and
 * /lib* (links into /usr on a merged system), a minimal /etc with no
 * secret in it, the directory of its own program (and of each file its
 * command names: a script, a lag wrapper's bot), and the paths its
 * definition names (--ro=PATH, --dir=PATH, the one it may write).  It
 * gets fresh size-capped tmpfs on /tmp, /dev/shm and its HOME; the
 * root and bwrap's /dev, tmpfs without a size, are left read-only.  Nothing else of
 * the host is there: no home directory, /var, /srv, /opt, /root, no
 * refd directory, wherever refd was started; hiding by a list of what
 * to hide always missed one.  Even the directory of its program is
 * shown only if it holds nothing refd keeps from bots (the log, the
 * control socket, the config file, the bot logs, refd's working and
 * home directories): then only the program itself is.  Inside,
 * prlimit(1) caps its processes: the count is per user namespace, so a
 * fork bomb exhausts its own sandbox and nobody else's.
 *
 * Nothing here touches the system: whether a word names a file and
 * what the environment holds come from callbacks, and what the system
 * holds (its links, its /etc) is told by the caller.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sandbox.h"

/*
 * The entries of /etc a bot sees: what the dynamic linker, the C
 * library's name services, time zones, certificates and the runtimes
 * of bots (Java, Python, Perl) read.  No secret: never shadow files,
 * ssh keys, private keys, refd's own config, a second config.
 */
static const char *const sandbox_etc_names[] = { "alternatives",
    "ca-certificates", "ca-certificates.conf", "debian_version", "gai.conf",
    "group", "host.conf", "hosts", "ld.so.cache", "ld.so.conf",
    "ld.so.conf.d", "locale.alias", "localtime", "mime.types",
    "nsswitch.conf", "os-release", "passwd", "perl", "protocols",
    "resolv.conf", "services", "timezone" };
/* ... and those that begin so, one per version of a runtime */
static const char *const sandbox_etc_prefixes[] = { "java-", "python" };
/* The system's top-level links and directories a bot sees. */
static const char *const sandbox_sys_names[] = { "/bin", "/sbin", "/lib",
    "/lib32", "/lib64", "/libx32" };

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

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
		else if (strcmp(w, "--locks") == 0)
			o->locks = 1;
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
		} else if (strcmp(w, "--ro") == 0 ||
		    strncmp(w, "--ro=", 5) == 0) {
			/* --ro PATH or --ro=PATH */
			if (w[4] == '=')
				w += 5;
			else if ((w = argv[++i]) == NULL)
				w = "";		/* refused below */
			if (w[0] != '/') {
				snprintf(err, errlen, "--ro needs an "
				    "absolute path");
				return -1;
			}
			if (o->nro == SANDBOX_MAXRO) {
				snprintf(err, errlen, "at most %d --ro "
				    "options", SANDBOX_MAXRO);
				return -1;
			}
			o->ro[o->nro++] = w;
		} else {
			snprintf(err, errlen, "unknown bot option %.40s (--net, "
			    "--env=NAME, --dir=PATH, --ro=PATH, --locks)", w);
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

/* Does directory d hold (or is it) a directory never shown? */
static int
sandbox_holds_secret(const struct sandbox_conf *c, const char *d)
{
	int	 j;

	for (j = 0; j < c->nhide; j++)
		if (sandbox_under(c->hide[j], d))
			return 1;
	return 0;
}

/*
 * Record a top-level entry of the system that bots see: path (one of
 * /bin, /sbin, /lib, /lib32, /lib64, /libx32) with its symbolic link's
 * target link, or NULL for a directory bound as it is.  Returns 0, or
 * -1 if path is not one of them or the table is full.
 */
int
sandbox_system(struct sandbox_conf *c, const char *path, const char *link)
{
	size_t	 i;

	for (i = 0; i < NELEM(sandbox_sys_names); i++)
		if (strcmp(path, sandbox_sys_names[i]) == 0)
			break;
	if (i == NELEM(sandbox_sys_names) || c->nsys == SANDBOX_MAXSYS ||
	    (link != NULL && strlen(link) >= sizeof(c->sys[0].link)))
		return -1;
	snprintf(c->sys[c->nsys].path, sizeof(c->sys[0].path), "%s", path);
	snprintf(c->sys[c->nsys++].link, sizeof(c->sys[0].link), "%s",
	    link != NULL ? link : "");
	return 0;
}

/* Is name, an entry of the host's /etc, one a bot sees? */
int
sandbox_etc_wanted(const char *name)
{
	size_t	 i;

	for (i = 0; i < NELEM(sandbox_etc_names); i++)
		if (strcmp(name, sandbox_etc_names[i]) == 0)
			return 1;
	for (i = 0; i < NELEM(sandbox_etc_prefixes); i++)
		if (strncmp(name, sandbox_etc_prefixes[i],
		    strlen(sandbox_etc_prefixes[i])) == 0)
			return 1;
	return 0;
}

/*
 * Show bots /etc/name, an entry the host has that sandbox_etc_wanted()
 * accepts.  Returns 0, or -1 (not wanted, or the table is full).
 */
int
sandbox_etc(struct sandbox_conf *c, const char *name)
{
	if (!sandbox_etc_wanted(name) || strchr(name, '/') != NULL ||
	    strlen(name) >= sizeof(c->etc[0]) || c->netc == SANDBOX_MAXETC)
		return -1;
	snprintf(c->etc[c->netc++], sizeof(c->etc[0]), "%s", name);
	return 0;
}

/*
 * What a bot sees, read only or not, besides its tmpfs: the system
 * (/usr, the directories of sys) and n paths bound for it.
 */
static int
sandbox_in_view(const struct sandbox_conf *c, const char *p,
    char bound[][4096], int n)
{
	char	 etc[80];
	int	 j;

	if (sandbox_under(p, "/usr"))
		return 1;
	for (j = 0; j < c->nsys; j++)
		if (c->sys[j].link[0] == '\0' && sandbox_under(p,
		    c->sys[j].path))
			return 1;
	for (j = 0; j < c->netc; j++) {
		snprintf(etc, sizeof(etc), "/etc/%s", c->etc[j]);
		if (sandbox_under(p, etc))
			return 1;
	}
	for (j = 0; j < n; j++)
		if (sandbox_under(p, bound[j]))
			return 1;
	return 0;
}

/* The directory of path p (absolute) in out: "/" for "/x". */
static void
sandbox_dirname(const char *p, char *out, size_t len)
{
	char	*slash;

	snprintf(out, len, "%s", p);
	if ((slash = strrchr(out, '/')) != NULL)
		slash[slash == out ? 1 : 0] = '\0';
}

/*
 * Where execvp(3) in the sandbox will find program word (no slash):
 * the first directory of PATH that holds it and that the bot sees.  If
 * only a directory it does not see holds it, say in err which path to
 * add and return -1; if none does, return 0 (the bot then fails to
 * start, and says so on its stderr).
 */
static int
sandbox_which(const struct sandbox_conf *c, const char *word,
    const char *path, sandbox_resolve resolve, void *arg, char bound[][4096],
    int n, char *err, size_t errlen)
{
	char		 try[4096 + 256], real[4096], dir[4096], rdir[4096];
	const char	*p, *e, *v1, *v2;
	size_t		 len;

	for (p = path; p != NULL && *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		e = p + strcspn(p, ":");
		len = (size_t)(e - p);
		if (len == 0 || *p != '/' || len >= sizeof(dir))
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)len, p);
		snprintf(try, sizeof(try), "%s/%.200s", dir, word);
		if (resolve(try, real, sizeof(real), arg) != 1)
			continue;
		if (sandbox_in_view(c, dir, bound, n) &&
		    sandbox_in_view(c, real, bound, n))
			return 0;
		sandbox_dirname(real, rdir, sizeof(rdir));
		/* each directory it would need and does not see */
		v1 = sandbox_in_view(c, dir, bound, n) ? NULL : dir;
		v2 = sandbox_in_view(c, real, bound, n) || (v1 != NULL &&
		    strcmp(rdir, dir) == 0) ? NULL : rdir;
		snprintf(err, errlen, "%.100s is %.300s, outside what bots "
		    "see: add %s%.300s%s%.300s to its definition", word, try,
		    v1 != NULL ? "--ro=" : "", v1 != NULL ? v1 : "",
		    v1 != NULL && v2 != NULL ? " --ro=" : v2 != NULL ? "--ro=" :
		    "", v2 != NULL ? v2 : "");
		/* a later directory of PATH may still hold one it sees */
		for (p = *e != '\0' ? e + 1 : e; *p != '\0';
		    p = *e != '\0' ? e + 1 : e) {
			e = p + strcspn(p, ":");
			len = (size_t)(e - p);
			if (len == 0 || *p != '/' || len >= sizeof(dir))
				continue;
			snprintf(dir, sizeof(dir), "%.*s", (int)len, p);
			snprintf(try, sizeof(try), "%s/%.200s", dir, word);
			if (resolve(try, real, sizeof(real), arg) == 1 &&
			    sandbox_in_view(c, dir, bound, n) &&
			    sandbox_in_view(c, real, bound, n))
				return 0;
		}
		return -1;
	}
	return 0;
}

/* How many components path p (absolute) has: 0 for "/". */
static int
sandbox_depth(const char *p)
{
	int	 n = 0;

	for (; *p != '\0'; p++)
		if (*p == '/' && p[1] != '\0')
			n++;
	return n;
}

#define ARG(s)		do { if (sandbox_push(sc, sc->argv, &n,		\
	SANDBOX_MAXARGV, (s), NULL) == -1) goto full; } while (0)
#define ENV(k, v)	do { if (sandbox_push(sc, sc->envp, &ne,	\
	SANDBOX_MAXENV + 4, (k), (v)) == -1) goto full; } while (0)
#define BOUND(p)	do { if (nbound == (int)NELEM(bound)) goto many;	\
	snprintf(bound[nbound++], sizeof(bound[0]), "%s", (p)); } while (0)

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
	char		 real[4096], dir[4096], size[32], nproc[32], etc[80];
	char		 bound[SANDBOX_MAXRO + 16][4096];
	const char	*v, *path;
	int		 n = 0, ne = 0, j, nbound = 0, kind;

	sc->used = 0;
	sc->argv[0] = sc->envp[0] = NULL;
	path = getenv_cb("PATH", arg);
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	ENV("PATH", path);
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

	/* what the definition names, checked before anything is built */
	for (j = 0; j < o->nro; j++) {
		kind = resolve(o->ro[j], real, sizeof(real), arg);
		if (kind != 1 && kind != 2) {
			snprintf(err, errlen, "--ro %.200s: no such file or "
			    "directory", o->ro[j]);
			return -1;
		}
		if (strcmp(real, "/") == 0 || sandbox_holds_secret(c, real) ||
		    !sandbox_bindable(c, real, kind == 2)) {
			snprintf(err, errlen, "--ro %.200s holds what bots "
			    "may not see", o->ro[j]);
			return -1;
		}
		BOUND(real);
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
		BOUND(real);
	}
	/*
	 * its program and the files its command names: each one's
	 * directory, unless that is a top-level one or holds what bots
	 * may not see; then only the file itself
	 */
	for (j = 0; o->cmd[j] != NULL; j++) {
		if (resolve(o->cmd[j], real, sizeof(real), arg) != 1 ||
		    sandbox_in_view(c, real, bound, nbound))
			continue;
		sandbox_dirname(real, dir, sizeof(dir));
		if (sandbox_depth(dir) >= 2 && !sandbox_holds_secret(c, dir) &&
		    sandbox_bindable(c, dir, 1))
			BOUND(dir);
		else if (sandbox_bindable(c, real, 0))
			BOUND(real);
	}
	if (strchr(o->cmd[0], '/') == NULL && sandbox_which(c, o->cmd[0],
	    path, resolve, arg, bound, nbound, err, errlen) == -1)
		return -1;

	snprintf(size, sizeof(size), "%lld", (long long)c->tmp_mb << 20);
	ARG(c->bwrap);
	ARG("--unshare-all");
	if (o->net)
		ARG("--share-net");
	/* no user namespace inside: no tmpfs of its own, no nested mounts */
	if (c->no_userns) {
		ARG("--unshare-user");
		ARG("--disable-userns");
	}
	ARG("--die-with-parent");
	ARG("--new-session");
	ARG("--ro-bind"); ARG("/usr"); ARG("/usr");
	for (j = 0; j < c->nsys; j++)
		if (c->sys[j].link[0] != '\0') {
			ARG("--symlink"); ARG(c->sys[j].link);
			ARG(c->sys[j].path);
		} else {
			ARG("--ro-bind"); ARG(c->sys[j].path);
			ARG(c->sys[j].path);
		}
	for (j = 0; j < c->netc; j++) {
		snprintf(etc, sizeof(etc), "/etc/%s", c->etc[j]);
		ARG("--ro-bind-try"); ARG(etc); ARG(etc);
	}
	ARG("--proc"); ARG("/proc");
	/* every tmpfs sized; bwrap's /dev read-only once made */
	ARG("--dev"); ARG("/dev");
	ARG("--size"); ARG(size);
	ARG("--tmpfs"); ARG("/dev/shm");
	ARG("--size"); ARG(size);
	ARG("--tmpfs"); ARG("/tmp");
	ARG("--size"); ARG(size);
	ARG("--tmpfs"); ARG(SANDBOX_HOME);
	for (j = 0; j < nbound; j++) {
		ARG(o->dir != NULL && j == o->nro ? "--bind" : "--ro-bind");
		ARG(bound[j]); ARG(bound[j]);
	}
	/* where it starts: refd's directory, empty but for what it sees */
	v = c->cwd[0] != '\0' ? c->cwd : "/";
	if (strcmp(v, "/") != 0 && !sandbox_in_view(c, v, bound, nbound) &&
	    !sandbox_under(v, "/proc") && !sandbox_under(v, "/dev")) {
		ARG("--dir"); ARG(v);
	}
	/* nothing more may be made on the root, nor in /dev */
	ARG("--remount-ro"); ARG("/dev");
	ARG("--remount-ro"); ARG("/");
	ARG("--chdir"); ARG(v);
	/* the system-call filter (sfilter.c), on the spawner's descriptor */
	if (c->seccomp) {
		snprintf(nproc, sizeof(nproc), "%d", SANDBOX_SECCOMP_FD);
		ARG("--seccomp"); ARG(nproc);
	}
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
many:
	snprintf(err, errlen, "too many files in the command");
	return -1;
}
