/*
 * test_sandbox.c: the bubblewrap command line of a spawned bot, word by
 * word, from made-up files and environments (refd/sandbox.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sandbox.h"

/* Made-up files: word -> real path and kind (1 file, 2 directory). */
static const struct { const char *word, *real; int kind; } files[] = {
	{ "bots/x.py", "/srv/refd/bots/x.py", 1 },
	{ "x.py", "/srv/refd/x.py", 1 },
	{ "/usr/bin/python3", "/usr/bin/python3", 1 },
	{ "/srv/keep", "/srv/keep", 2 },
	{ "/srv", "/srv", 2 },
	{ "refd.db", "/srv/refd/refd.db", 1 },
	{ "/tmp/refd-logs/x.log", "/tmp/refd-logs/x.log", 1 },
	{ "sub/y.py", "/srv/refd/sub/y.py", 1 },
	{ "/opt/x/bin/bot", "/opt/x/bin/bot", 1 },
	{ "/opt/x/bin", "/opt/x/bin", 2 },
	{ "/root/.pyenv/shims/python3", "/root/.pyenv/shims/python3", 1 },
	{ "/usr/bin/bot2", "/opt/y/bot2", 1 },
	{ "/opt/a/b.jar", "/opt/a/b.jar", 1 },
	{ "/opt/bot", "/opt/bot", 1 },
};
static const char *fake_path = "/usr/bin:/bin";

static int
fake_resolve(const char *w, char *out, size_t len, void *arg)
{
	size_t	 i;

	(void)arg;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (strcmp(files[i].word, w) == 0) {
			snprintf(out, len, "%s", files[i].real);
			return files[i].kind;
		}
	return 0;
}

static const char *
fake_getenv(const char *name, void *arg)
{
	(void)arg;
	if (strcmp(name, "PATH") == 0)
		return fake_path;
	if (strcmp(name, "SECRET") == 0)
		return "hunter2";
	if (strcmp(name, "BOTKEY") == 0)
		return "k";
	return NULL;
}

static void
conf_init(struct sandbox_conf *c)
{
	char	 err[256];

	memset(c, 0, sizeof(*c));
	c->mode = SANDBOX_BWRAP;
	snprintf(c->bwrap, sizeof(c->bwrap), "bwrap");
	snprintf(c->cwd, sizeof(c->cwd), "/srv/refd");
	c->nproc = 64;
	c->tmp_mb = 64;
	c->no_userns = 1;
	c->seccomp = 1;
	assert_int_equal(sandbox_system(c, "/lib", "usr/lib"), 0);
	assert_int_equal(sandbox_system(c, "/lib64", NULL), 0);
	assert_int_equal(sandbox_system(c, "/home", NULL), -1);
	assert_int_equal(sandbox_etc(c, "passwd"), 0);
	assert_int_equal(sandbox_etc(c, "java-17-openjdk"), 0);
	assert_int_equal(sandbox_etc(c, "shadow"), -1);
	assert_int_equal(sandbox_etc(c, "refd"), -1);
	assert_int_equal(sandbox_etc(c, "ssh"), -1);
	assert_int_equal(sandbox_hide(c, "/srv/refd", 0, err, sizeof(err)), 0);
	assert_int_equal(sandbox_hide(c, "/var/lib/refd", 0, err, sizeof(err)),
	    0);
	/* under /tmp, which is a fresh tmpfs anyway */
	assert_int_equal(sandbox_hide(c, "/tmp/refd-logs", 1, err, sizeof(err)),
	    0);
}

/* Build words (NULL-terminated) into sc; returns the result. */
static int
build(const struct sandbox_conf *c, char **words, struct sandbox_cmd *sc,
    char *err, size_t errlen)
{
	struct sandbox_opts o;

	if (sandbox_opts_parse(words, &o, err, errlen) == -1)
		return -1;
	return sandbox_build(c, &o, fake_resolve, fake_getenv, NULL, sc, err,
	    errlen);
}

/* Where the words of seq (NULL-terminated) come in a row in v, or -1. */
static int
seq_at(char **v, const char *const *seq)
{
	int	 i, j;

	for (i = 0; v[i] != NULL; i++) {
		for (j = 0; seq[j] != NULL && v[i + j] != NULL &&
		    strcmp(v[i + j], seq[j]) == 0; j++)
			;
		if (seq[j] == NULL)
			return i;
	}
	return -1;
}
#define HAS(v, ...)	(seq_at((v), (const char *const []){ __VA_ARGS__, \
	NULL }) >= 0)

static int
count(char **v)
{
	int	 n = 0;

	while (v[n] != NULL)
		n++;
	return n;
}

static void
test_opts(void **state)
{
	struct sandbox_opts o;
	char		 err[256];
	char		*ok[] = { "--net", "--env=BOTKEY", "--dir=/srv/keep",
	    "--ro", "/opt/a", "--ro=/opt/b", "--locks", "--", "--odd", NULL };
	char		*plain[] = { "prog", "--net", NULL };
	char		*bad[][3] = { { "--bogus", "x", NULL },
	    { "--env=1X", "x", NULL }, { "--env=A-B", "x", NULL },
	    { "--dir=rel", "x", NULL }, { "--net", NULL, NULL },
	    { "--ro", "rel", NULL }, { "--ro=x", "x", NULL },
	    { "--ro", NULL, NULL },
	    { "--", NULL, NULL } };
	size_t		 i;

	(void)state;
	assert_int_equal(sandbox_opts_parse(ok, &o, err, sizeof(err)), 0);
	assert_int_equal(o.net, 1);
	assert_int_equal(o.nenv, 1);
	assert_string_equal(o.env[0], "BOTKEY");
	assert_string_equal(o.dir, "/srv/keep");
	assert_int_equal(o.nro, 2);
	assert_int_equal(o.locks, 1);
	assert_string_equal(o.ro[0], "/opt/a");
	assert_string_equal(o.ro[1], "/opt/b");
	assert_string_equal(o.cmd[0], "--odd");
	/* options come first only: the command's own words are its own */
	assert_int_equal(sandbox_opts_parse(plain, &o, err, sizeof(err)), 0);
	assert_int_equal(o.net, 0);
	assert_string_equal(o.cmd[1], "--net");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sandbox_opts_parse(bad[i], &o, err,
		    sizeof(err)), -1);
}

static void
test_bwrap_words(void **state)
{
	static struct sandbox_conf c;
	static struct sandbox_cmd sc;
	char		 err[256];
	char		*w[] = { "python3", "bots/x.py", "7", NULL };
	int		 n;

	(void)state;
	conf_init(&c);
	assert_int_equal(build(&c, w, &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.argv[0], "bwrap");
	assert_true(HAS(sc.argv, "--unshare-all"));
	assert_false(HAS(sc.argv, "--share-net"));
	assert_true(HAS(sc.argv, "--die-with-parent"));
	assert_true(HAS(sc.argv, "--new-session"));
	/* an allow list: the system, read only, and nothing else */
	assert_false(HAS(sc.argv, "--ro-bind", "/", "/"));
	assert_true(HAS(sc.argv, "--ro-bind", "/usr", "/usr"));
	assert_true(HAS(sc.argv, "--symlink", "usr/lib", "/lib"));
	assert_true(HAS(sc.argv, "--ro-bind", "/lib64", "/lib64"));
	assert_true(HAS(sc.argv, "--ro-bind-try", "/etc/passwd",
	    "/etc/passwd"));
	assert_true(HAS(sc.argv, "--ro-bind-try", "/etc/java-17-openjdk",
	    "/etc/java-17-openjdk"));
	assert_false(HAS(sc.argv, "--ro-bind-try", "/etc/shadow"));
	assert_false(HAS(sc.argv, "--ro-bind", "/etc", "/etc"));
	assert_true(HAS(sc.argv, "--proc", "/proc"));
	assert_true(HAS(sc.argv, "--size", "67108864", "--tmpfs", "/tmp"));
	assert_true(HAS(sc.argv, "--tmpfs", "/home/bot"));
	assert_false(HAS(sc.argv, "--tmpfs", "/home"));
	assert_false(HAS(sc.argv, "--tmpfs", "/srv/refd"));
	/* the script's directory, read only; nothing else */
	assert_true(HAS(sc.argv, "--ro-bind", "/srv/refd/bots",
	    "/srv/refd/bots"));
	assert_false(HAS(sc.argv, "--bind"));
	/* refd's directory, empty but for it, and then the root sealed */
	assert_true(HAS(sc.argv, "--dir", "/srv/refd", "--remount-ro", "/dev",
	    "--remount-ro", "/", "--chdir", "/srv/refd"));
	/* every tmpfs sized, no user namespace of its own */
	assert_true(HAS(sc.argv, "--dev", "/dev", "--size", "67108864",
	    "--tmpfs", "/dev/shm"));
	assert_true(HAS(sc.argv, "--unshare-user", "--disable-userns"));
	/* the system-call filter, on the descriptor the spawner gives */
	assert_true(HAS(sc.argv, "--seccomp", "3", "--"));
	n = count(sc.argv);
	assert_true(n > 7);
	assert_true(HAS(sc.argv, "--", "prlimit", "--nproc=64", "--",
	    "python3", "bots/x.py", "7"));
	assert_null(sc.argv[n]);
	assert_string_equal(sc.argv[n - 1], "7");
	/* a clean environment */
	assert_int_equal(count(sc.envp), 2);
	assert_string_equal(sc.envp[0], "PATH=/usr/bin:/bin");
	assert_string_equal(sc.envp[1], "HOME=/home/bot");
}

static void
test_bwrap_options(void **state)
{
	static struct sandbox_conf c;
	static struct sandbox_cmd sc;
	char		 err[256];
	char		*w[] = { "--net", "--env=BOTKEY", "--env=SECRET2",
	    "--dir=/srv/keep", "x.py", NULL };
	char		*bad[] = { "--dir=/srv", "x.py", NULL };
	char		*none[] = { "--dir=/nonexistent", "x.py", NULL };

	(void)state;
	conf_init(&c);
	assert_int_equal(build(&c, w, &sc, err, sizeof(err)), 0);
	assert_true(HAS(sc.argv, "--unshare-all", "--share-net"));
	assert_true(HAS(sc.argv, "--bind", "/srv/keep", "/srv/keep"));
	/* a file right in a hidden directory: only itself comes back */
	assert_true(HAS(sc.argv, "--ro-bind", "/srv/refd/x.py",
	    "/srv/refd/x.py"));
	assert_false(HAS(sc.argv, "--ro-bind", "/srv/refd", "/srv/refd"));
	assert_int_equal(count(sc.envp), 3);
	assert_string_equal(sc.envp[2], "BOTKEY=k");
	/* a secret named as the program is never shown */
	{
		char	*db[] = { "refd.db", NULL };
		char	*sub[] = { "sub/y.py", "x.py", NULL };
		char	*tmp[] = { "/tmp/refd-logs/x.log", NULL };

		assert_int_equal(sandbox_secret(&c, "/srv/refd/refd.db", err,
		    sizeof(err)), 0);
		assert_int_equal(sandbox_secret(&c, "/srv/refd/sub/key", err,
		    sizeof(err)), 0);
		assert_int_equal(build(&c, db, &sc, err, sizeof(err)), 0);
		assert_false(HAS(sc.argv, "--ro-bind", "/srv/refd/refd.db"));
		/* its directory holds a secret: only the program itself */
		assert_int_equal(build(&c, sub, &sc, err, sizeof(err)), 0);
		assert_false(HAS(sc.argv, "--ro-bind", "/srv/refd/sub",
		    "/srv/refd/sub"));
		assert_true(HAS(sc.argv, "--ro-bind", "/srv/refd/sub/y.py"));
		/* a later word naming a file: shown too, by itself here */
		assert_true(HAS(sc.argv, "--ro-bind", "/srv/refd/x.py"));
		assert_int_equal(build(&c, tmp, &sc, err, sizeof(err)), 0);
		assert_false(HAS(sc.argv, "--ro-bind", "/tmp/refd-logs/x.log"));
	}
	/* a kept directory that holds a hidden one is refused */
	assert_int_equal(build(&c, bad, &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "may not see"));
	assert_int_equal(build(&c, none, &sc, err, sizeof(err)), -1);
}

/* A program on PATH outside the view: the error says what to add. */
static void
test_outside(void **state)
{
	static struct sandbox_conf c;
	static struct sandbox_cmd sc;
	char		 err[512];
	char		*bot[] = { "bot", NULL };
	char		*ro[] = { "--ro=/opt/x/bin", "bot", NULL };
	char		*py[] = { "python3", "x", NULL };
	char		*bot2[] = { "bot2", NULL };
	char		*jar[] = { "java", "-jar", "/opt/a/b.jar", NULL };
	char		*top[] = { "/opt/bot", NULL };

	(void)state;
	conf_init(&c);
	fake_path = "/opt/x/bin:/usr/bin";
	assert_int_equal(build(&c, bot, &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "add --ro=/opt/x/bin to its definition"));
	assert_int_equal(build(&c, ro, &sc, err, sizeof(err)), 0);
	assert_true(HAS(sc.argv, "--ro-bind", "/opt/x/bin", "/opt/x/bin"));
	/* a link in /usr to a program outside: its real directory */
	assert_int_equal(build(&c, bot2, &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "add --ro=/opt/y to its definition"));
	/* found first outside, then in /usr: as execvp will inside */
	fake_path = "/root/.pyenv/shims:/usr/bin";
	assert_int_equal(build(&c, py, &sc, err, sizeof(err)), 0);
	/* an interpreter's program: its directory */
	fake_path = "/usr/bin";
	assert_int_equal(build(&c, jar, &sc, err, sizeof(err)), 0);
	assert_true(HAS(sc.argv, "--ro-bind", "/opt/a", "/opt/a"));
	/* in a top-level directory: only itself, never all of /opt */
	assert_int_equal(build(&c, top, &sc, err, sizeof(err)), 0);
	assert_true(HAS(sc.argv, "--ro-bind", "/opt/bot", "/opt/bot"));
	assert_false(HAS(sc.argv, "--ro-bind", "/opt", "/opt"));
	fake_path = "/usr/bin:/bin";
}

static void
test_none(void **state)
{
	static struct sandbox_conf c;
	static struct sandbox_cmd sc;
	char		 err[256];
	char		*w[] = { "--env=SECRET", "python3", "x.py", NULL };

	(void)state;
	conf_init(&c);
	c.mode = SANDBOX_NONE;
	assert_int_equal(build(&c, w, &sc, err, sizeof(err)), 0);
	assert_int_equal(count(sc.argv), 2);
	assert_string_equal(sc.argv[0], "python3");
	assert_string_equal(sc.argv[1], "x.py");
	assert_int_equal(count(sc.envp), 2);
	assert_string_equal(sc.envp[1], "SECRET=hunter2");
}

static void
test_hide(void **state)
{
	static struct sandbox_conf c;
	char		 err[256];
	int		 i;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(sandbox_hide(&c, "/", 0, err, sizeof(err)), -1);
	assert_int_equal(sandbox_hide(&c, "rel", 0, err, sizeof(err)), -1);
	assert_int_equal(sandbox_hide(&c, "/a", 0, err, sizeof(err)), 0);
	assert_int_equal(sandbox_hide(&c, "/a", 0, err, sizeof(err)), 0);
	assert_int_equal(c.nhide, 1);
	for (i = 1; i < SANDBOX_MAXHIDE; i++) {
		char	 d[16];

		snprintf(d, sizeof(d), "/d%d", i);
		assert_int_equal(sandbox_hide(&c, d, 0, err, sizeof(err)), 0);
	}
	assert_int_equal(sandbox_hide(&c, "/full", 0, err, sizeof(err)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_bwrap_words),
		cmocka_unit_test(test_bwrap_options),
		cmocka_unit_test(test_outside),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_hide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
