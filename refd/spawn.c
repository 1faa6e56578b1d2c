/*
 * spawn.c: starting and stopping bot processes.
 *
 * A bot runs in a process group of its own, with a socketpair as its
 * stdin and stdout and a pipe as its stderr, and inherits no other
 * descriptor: every descriptor refd opens is close-on-exec, and the
 * child closes the rest before exec all the same.  The command is an
 * argv vector handed to execvp(3): no shell ever parses it.
 *
 * Unless the operator chose "sandbox none", that command runs under
 * bubblewrap (sandbox.c), with a clean environment; when the spawner
 * is root, as the unprivileged bot user.  Whatever makes that
 * impossible (no bwrap, no namespaces, no bot user) is found once, by
 * spawn_setup(), and every spawn is then refused with the reason.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"
#include "spawn.h"

extern char	**environ;

static int	lim_cpu;	/* RLIMIT_CPU of bots in seconds, 0: none */
static int	lim_mem;	/* RLIMIT_AS of bots in MiB, 0: none */
static struct sandbox_conf sb = { .mode = SANDBOX_BWRAP, .bwrap = "bwrap",
    .nproc = SANDBOX_NPROC, .tmp_mb = SANDBOX_TMP_MB };
static int	drop;		/* root: become bot_uid, bot_gid */
static uid_t	bot_uid;
static gid_t	bot_gid;
static char	refusal[512];	/* why no bot may be spawned, "" if none */

/* Set the resource limits every bot started from now on gets. */
void
spawn_limits(int cpu_seconds, int memory_mb)
{
	lim_cpu = cpu_seconds;
	lim_mem = memory_mb;
}

/* Which words name files: the sandbox binds them back if hidden. */
static int
spawn_resolve(const char *word, char *out, size_t outlen, void *arg)
{
	struct stat	 st;
	char		 real[PATH_MAX];

	(void)arg;
	if (strchr(word, '/') == NULL || realpath(word, real) == NULL ||
	    stat(real, &st) == -1 || strlen(real) >= outlen)
		return 0;
	snprintf(out, outlen, "%s", real);
	return S_ISDIR(st.st_mode) ? 2 : S_ISREG(st.st_mode) ? 1 : 0;
}

static const char *
spawn_getenv(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

/*
 * Hide path's directory (path itself if isdir) from every bot: the log,
 * the control socket, the config file, the bot logs.  Returns 0, or -1
 * with the reason in err.
 */
int
spawn_hide(const char *path, int isdir, char *err, size_t errlen)
{
	static const char *const journals[] = { "", "-wal", "-shm",
	    "-journal" };
	char		 buf[PATH_MAX], real[PATH_MAX], file[PATH_MAX + 16];
	const char	*base = path, *slash;
	size_t		 i;

	snprintf(buf, sizeof(buf), "%s", path);
	if (!isdir) {
		if ((slash = strrchr(path, '/')) == NULL)
			snprintf(buf, sizeof(buf), ".");
		else {
			base = slash + 1;
			buf[slash == path ? 1 : slash - path] = '\0';
		}
	}
	if (realpath(buf, real) == NULL) {
		snprintf(err, errlen, "%.200s: %s", buf, strerror(errno));
		return -1;
	}
	if (sandbox_hide(&sb, real, isdir, err, errlen) == -1)
		return -1;
	/* a file by any name of its own: with its journals, in case */
	for (i = 0; !isdir && i < sizeof(journals) / sizeof(journals[0]);
	    i++) {
		snprintf(file, sizeof(file), "%s/%s%s", strcmp(real, "/") ?
		    real : "", base, journals[i]);
		if (sandbox_secret(&sb, file, err, errlen) == -1)
			return -1;
	}
	return 0;
}

/* Become the bot user, if refd is root; 0, or -1 with errno. */
static int
spawn_identity(void)
{
	if (!drop)
		return 0;
	if (setgroups(0, NULL) == -1 || setgid(bot_gid) == -1 ||
	    setuid(bot_uid) == -1)
		return -1;
	/* no way back */
	if (setuid(0) == 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

static void
spawn_child(char **argv, char **envp, int sock, int errw)
{
	struct rlimit	 rl;
	sigset_t	 set;
	long		 max, fd;

	setpgid(0, 0);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	if (dup2(sock, 0) == -1 || dup2(sock, 1) == -1 || dup2(errw, 2) == -1)
		_exit(127);
	/* close_range: one call, where thousands of close() would do */
	if (close_range(3, ~0U, 0) == -1) {
		max = sysconf(_SC_OPEN_MAX);
		if (max < 0 || max > 65536)
			max = 65536;
		for (fd = 3; fd < max; fd++)
			close((int)fd);
	}
	if (lim_cpu > 0) {
		rl.rlim_cur = (rlim_t)lim_cpu;
		rl.rlim_max = (rlim_t)lim_cpu + 1;	/* SIGXCPU, then KILL */
		setrlimit(RLIMIT_CPU, &rl);
	}
	if (lim_mem > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)lim_mem << 20;
		setrlimit(RLIMIT_AS, &rl);
	}
	if (spawn_identity() == -1) {
		dprintf(2, "refd: cannot become the bot user: %s\n",
		    strerror(errno));
		_exit(127);
	}
	if (sb.mode == SANDBOX_NONE && sb.nproc > 0) {
		/* per user, not per bot: the sandbox does better */
		rl.rlim_cur = rl.rlim_max = (rlim_t)sb.nproc;
		setrlimit(RLIMIT_NPROC, &rl);
	}
	environ = envp;
	execvp(argv[0], argv);
	dprintf(2, "refd: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * Start argv as a bot.  On success returns its pid (also its process
 * group) and sets *sock to refd's end of its stdin/stdout and *errfd to
 * the read end of its stderr, both non-blocking and close-on-exec.
 * Returns -1 with a message in err on failure.
 */
pid_t
spawn_bot(char **argv, int *sock, int *errfd, char *err, size_t errlen)
{
	static struct sandbox_cmd sc;	/* 32 KiB: not on the stack */
	struct sandbox_opts o;
	int	 sv[2], ep[2];
	pid_t	 pid;

	if (refusal[0] != '\0') {
		snprintf(err, errlen, "%s", refusal);
		return -1;
	}
	if (sandbox_opts_parse(argv, &o, err, errlen) == -1 ||
	    sandbox_build(&sb, &o, spawn_resolve, spawn_getenv, NULL, &sc, err,
	    errlen) == -1)
		return -1;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ep, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	switch (pid = fork()) {
	case -1:
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		close(ep[0]);
		close(ep[1]);
		return -1;
	case 0:
		close(sv[0]);
		close(ep[0]);
		spawn_child(sc.argv, sc.envp, sv[1], ep[1]);
		/* NOTREACHED */
	}
	/* both sides set the group, so no signal can beat it */
	setpgid(pid, pid);
	close(sv[1]);
	close(ep[1]);
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	fcntl(ep[0], F_SETFL, fcntl(ep[0], F_GETFL) | O_NONBLOCK);
	*sock = sv[0];
	*errfd = ep[0];
	return pid;
}

/* Signal a bot's whole process group, so its children go too. */
void
spawn_signal(pid_t pid, int sig)
{
	if (pid > 0 && killpg(pid, sig) == -1 && errno != ESRCH)
		log_warn("killpg %ld", (long)pid);
}

/*
 * Settle how bots are run: mode, and when refd is root the user they
 * run as (bot_user, "nobody" if NULL), never root.  The spawner's
 * working directory is hidden from them.  With the sandbox on, a bot
 * that does nothing is run under it once, to find out now whether
 * bubblewrap works here.  Returns 0, or -1 with the reason in err: then
 * every spawn is refused with that reason.
 */
int
spawn_setup(enum sandbox_mode mode, const char *bot_user, char *err,
    size_t errlen)
{
	static char	*probe[] = { "true", NULL };
	struct passwd	*pw;
	char		 why[512];
	int		 sock, errfd, status;
	pid_t		 pid;

	sb.mode = mode;
	refusal[0] = '\0';
	drop = 0;
	if (getcwd(sb.cwd, sizeof(sb.cwd)) == NULL ||
	    (strcmp(sb.cwd, "/") != 0 && sandbox_hide(&sb, sb.cwd, 0, why,
	    sizeof(why)) == -1)) {
		snprintf(refusal, sizeof(refusal), "cannot hide the working "
		    "directory from bots");
		goto refuse;
	}
	if (geteuid() == 0 || getuid() == 0) {
		if (bot_user == NULL)
			bot_user = "nobody";
		if ((pw = getpwnam(bot_user)) == NULL) {
			snprintf(refusal, sizeof(refusal), "bot_user %.64s: no "
			    "such user", bot_user);
			goto refuse;
		}
		if (pw->pw_uid == 0 || pw->pw_gid == 0) {
			snprintf(refusal, sizeof(refusal), "refusing to run "
			    "bots as root: set bot_user to an unprivileged "
			    "user");
			goto refuse;
		}
		bot_uid = pw->pw_uid;
		bot_gid = pw->pw_gid;
		drop = 1;
	}
	if (mode == SANDBOX_NONE)
		return 0;
	if ((pid = spawn_bot(probe, &sock, &errfd, why, sizeof(why))) == -1) {
		snprintf(refusal, sizeof(refusal), "sandbox: %.400s", why);
		goto refuse;
	}
	close(sock);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	memset(why, 0, sizeof(why));
	if (read(errfd, why, sizeof(why) - 1) > 0)
		why[strcspn(why, "\n")] = '\0';
	close(errfd);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(refusal, sizeof(refusal), "the bubblewrap sandbox does "
		    "not work here (%.300s); set \"sandbox none\" to run bots "
		    "unsandboxed", why[0] != '\0' ? why : "bwrap failed");
		goto refuse;
	}
	return 0;
refuse:
	snprintf(err, errlen, "%s", refusal);
	return -1;
}

/* The mode bots are run in, for match headers. */
enum sandbox_mode
spawn_mode(void)
{
	return sb.mode;
}

/*
 * Does a bot's stderr, errtail, say that its command could not be
 * executed (by spawn_child, by bwrap or by prlimit in the sandbox)?
 * Then "cannot run COMMAND: reason" goes in buf and buf is returned.
 */
const char *
spawn_cannot_run(const char *errtail, char *buf, size_t len)
{
	static const char *const says[] = { "refd: cannot run ",
	    "prlimit: failed to execute ", "bwrap: execvp " };
	size_t	 i, n;

	for (i = 0; i < sizeof(says) / sizeof(says[0]); i++) {
		n = strlen(says[i]);
		if (strncmp(errtail, says[i], n) == 0) {
			snprintf(buf, len, "cannot run %.*s", (int)strcspn(
			    errtail + n, "\n"), errtail + n);
			return buf;
		}
	}
	return NULL;
}
