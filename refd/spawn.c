/*
 * spawn.c: starting and stopping bot processes.
 *
 * A bot runs in a process group of its own, with pipes as its stdin,
 * stdout and stderr, and inherits no other descriptor: every descriptor
 * refd opens is close-on-exec, and the child closes the rest before exec
 * all the same.  The command is an argv vector handed to execvp(3): no
 * shell ever parses it.
 *
 * Unless the operator chose "sandbox none", that command runs under
 * bubblewrap (sandbox.c), with a clean environment; when the spawner
 * is root, as the unprivileged bot user.  Whatever makes that
 * impossible (no bwrap, no namespaces, no bot user) is found once, by
 * spawn_setup(), and every spawn is then refused with the reason.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "log.h"
#include "sandbox.h"
#include "sfilter.h"
#include "spawn.h"
#include "util.h"


static int	lim_cpu;	/* RLIMIT_CPU of bots in seconds, 0: none */
static int	lim_mem;	/* RLIMIT_AS of bots in MiB, 0: none */
static struct sandbox_conf sb = { .mode = SANDBOX_BWRAP, .bwrap = "bwrap",
    .nproc = SANDBOX_NPROC, .tmp_mb = SANDBOX_TMP_MB, .no_userns = 1 };
static int	drop;		/* root: become bot_uid, bot_gid */
static uid_t	bot_uid;
static gid_t	bot_gid;
static char	bot_user_name[64];	/* bot_uid's name, for messages */
static char	refusal[512];	/* why no bot may be spawned, "" if none */
static int	filter[2] = { -1, -1 };	/* sealed memfds of the system-call
					 * filter, without and with locks */
static int	memcg;		/* each bot in a memory cgroup of its own */
static char	memcg_why[512];	/* why not, with a memory limit; or "" */

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

/*
 * What the child of spawn_bot() needs, and where it says what failed.
 * The child runs in refd's memory until it executes the bot (clone(2)
 * with CLONE_VM and CLONE_VFORK, as posix_spawn(3) does): a fork would
 * copy refd's page tables, which costs more the more matches run, and
 * make every page refd then writes fault once.  So the child makes
 * system calls only, straight through syscall(2), never through
 * wrappers that keep state (glibc's setuid() would ask refd's threads
 * to change their ids; a sanitizer's sigaction() records handlers in
 * refd's memory), and writes nothing but its own stack and err.
 */
struct spawn_child_args {
	char		**argv;
	char		**envp;
	int		  inr;		/* its stdin */
	int		  outw;		/* its stdout */
	int		  errw;		/* its stderr */
	int		  cgfd;		/* its cgroup's cgroup.procs, or -1 */
	int		  sfd;		/* its filter, for bwrap, or -1 */
	int		  err;		/* errno of what failed, 0 if none */
	int		  when;		/* 1: becoming the bot user, 2: exec,
					 * 3: entering its cgroup */
};

/*
 * ThreadSanitizer takes every clone(2) for a fork and marks the process
 * forked from inside the child, which in refd's memory would mark refd:
 * under it the child gets a copy of refd, as with fork(2), and says
 * itself what failed.
 */
#if defined(__SANITIZE_THREAD__)
#define SPAWN_SHARED	0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SPAWN_SHARED	0
#endif
#endif
#ifndef SPAWN_SHARED
#define SPAWN_SHARED	1
#define SPAWN_CLONE	(CLONE_VM | CLONE_VFORK | SIGCHLD)
#else
#define SPAWN_CLONE	SIGCHLD
#endif

/* spawn_bot()'s child's stack: one child at a time, while it waits. */
static unsigned char	spawn_stack[64 * 1024]
			    __attribute__((__aligned__(16)));

/* Say on fd what the child could not do, if anything. */
static void
spawn_say(const struct spawn_child_args *a, int fd)
{
	if (a->when == 1)
		dprintf(fd, "refd: cannot become the bot user: %s\n",
		    strerror(a->err));
	else if (a->when == 2)
		dprintf(fd, "refd: cannot run %s: %s\n", a->argv[0],
		    strerror(a->err));
	else if (a->when == 3)
		dprintf(fd, "refd: cannot run %s: its memory cgroup: %s\n",
		    a->argv[0], strerror(a->err));
}

/* Make from descriptor to, without close-on-exec; -1 on failure. */
static long
spawn_fd(int from, int to)
{
	if (from == to)
		return syscall(SYS_fcntl, to, F_SETFD, 0);
	return syscall(SYS_dup3, from, to, 0);
}

/* One resource limit, cur and max; -1 on failure. */
static long
spawn_rlimit(int resource, rlim_t cur, rlim_t max)
{
	struct rlimit	 rl;

	rl.rlim_cur = cur;
	rl.rlim_max = max;
	return syscall(SYS_prlimit64, 0, resource, &rl, NULL);
}

/*
 * The child failed, when (1: becoming the bot user, 2: exec): record
 * errno for spawn_bot(), or with a copy of refd say it on the bot's
 * stderr, and exit 127.
 */
static void
spawn_child_fail(struct spawn_child_args *a, int when)
{
	a->err = errno;
	a->when = when;
	if (!SPAWN_SHARED)
		spawn_say(a, 2);
	syscall(SYS_exit_group, 127);
}

/* Become the bot user, if refd is root; 0, or -1. */
static long
spawn_identity(void)
{
	if (!drop)
		return 0;
	if (syscall(SYS_setgroups, 0, NULL) == -1 ||
	    syscall(SYS_setgid, bot_gid) == -1 ||
	    syscall(SYS_setuid, bot_uid) == -1)
		return -1;
	/* no way back */
	if (syscall(SYS_setuid, 0) == 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

__attribute__((__no_sanitize_address__))
static int
spawn_child(void *arg)
{
	/* zeros: SIG_DFL with no flags, or an empty mask, in any layout */
	static const unsigned char none[64];
	struct spawn_child_args	*a = arg;
	long			 n;

	/* into its memory cgroup first, while still refd's user */
	if (a->cgfd != -1 && syscall(SYS_write, a->cgfd, "0", 1) != 1)
		spawn_child_fail(a, 3);
	syscall(SYS_setpgid, 0, 0);
	/* every signal to its default (ignored ones survive exec) while all
	 * stay blocked, as spawn_bot() blocked them: no handler of refd's
	 * may run here; then none blocked, for the bot */
	for (n = 1; n < 65; n++)
		if (n != SIGKILL && n != SIGSTOP)
			syscall(SYS_rt_sigaction, n, none, NULL, 8);
	if (spawn_fd(a->inr, 0) == -1 || spawn_fd(a->outw, 1) == -1 ||
	    spawn_fd(a->errw, 2) == -1 || (a->sfd != -1 &&
	    spawn_fd(a->sfd, SANDBOX_SECCOMP_FD) == -1))
		syscall(SYS_exit_group, 127);
	/* close_range: one call, where thousands of close() would do */
	n = a->sfd != -1 ? SANDBOX_SECCOMP_FD + 1 : 3;
	if (syscall(SYS_close_range, (unsigned)n, ~0U, 0) == -1)
		for (; n < 65536; n++)
			syscall(SYS_close, n);
	if (lim_cpu > 0)	/* SIGXCPU, then KILL */
		spawn_rlimit(RLIMIT_CPU, (rlim_t)lim_cpu, (rlim_t)lim_cpu + 1);
	if (lim_mem > 0)
		spawn_rlimit(RLIMIT_AS, (rlim_t)lim_mem << 20,
		    (rlim_t)lim_mem << 20);
	if (spawn_identity() == -1)
		spawn_child_fail(a, 1);
	if (sb.mode == SANDBOX_NONE && sb.nproc > 0)
		/* per user, not per bot: the sandbox does better */
		spawn_rlimit(RLIMIT_NPROC, (rlim_t)sb.nproc, (rlim_t)sb.nproc);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, none, NULL, 8);
	execvpe(a->argv[0], a->argv, a->envp);
	spawn_child_fail(a, 2);
	return 127;
}

/*
 * A bot about to start: its command, and the ends of its descriptors
 * that are the child's until it runs.
 */
struct spawn_job {
	struct sandbox_cmd	 sc;	/* 32 KiB: never on a stack */
	struct spawn_child_args	 a;
	char			 cgname[CGROUP_NAMELEN];	/* or "" */
	int			 locks;	/* its filter allows file locks */
};

/* Close what fds holds, and mark it so. */
void
spawn_fds_close(struct spawn_fds *fds)
{
	if (fds->in != -1)
		close(fds->in);
	if (fds->out != -1)
		close(fds->out);
	if (fds->err != -1)
		close(fds->err);
	fds->in = fds->out = fds->err = -1;
}

/*
 * Make what argv needs to start as a bot: its command line (under the
 * sandbox) and a pipe for each of its stdin, stdout and stderr.  Pipes,
 * not one socketpair for stdin and stdout: reading a bot's answer from
 * a socket frees the bot's send buffer, which wakes whatever waits on
 * the bot's socket, the bot itself waiting to read its next command
 * among them; a pipe wakes its writer only when it was full.  With
 * eight matches of spawned bots, pipes took refd's CPU a play from 36
 * to 27 us (PERFORMANCE.md).  Sets fds to refd's ends, non-blocking and
 * close-on-exec, and returns the job for spawn_run(); NULL with a
 * message in err on failure, fds then all -1.
 */
struct spawn_job *
spawn_prepare(char **argv, struct spawn_fds *fds, char *err, size_t errlen)
{
	struct spawn_job	*j;
	struct sandbox_opts	 o;
	int			 p[3][2], i;

	fds->in = fds->out = fds->err = -1;
	if (refusal[0] != '\0') {
		snprintf(err, errlen, "%s", refusal);
		return NULL;
	}
	if ((j = calloc(1, sizeof(*j))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (sandbox_opts_parse(argv, &o, err, errlen) == -1 ||
	    sandbox_build(&sb, &o, spawn_resolve, spawn_getenv, NULL, &j->sc,
	    err, errlen) == -1) {
		free(j);
		return NULL;
	}
	for (i = 0; i < 3; i++)
		if (pipe2(p[i], O_CLOEXEC) == -1) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			while (i-- > 0) {
				close(p[i][0]);
				close(p[i][1]);
			}
			free(j);
			return NULL;
		}
	j->a.argv = j->sc.argv;
	j->a.envp = j->sc.envp;
	j->a.inr = p[0][0];
	j->a.outw = p[1][1];
	j->a.errw = p[2][1];
	j->a.cgfd = -1;
	j->a.sfd = -1;
	j->locks = o.locks;
	fds->in = p[0][1];
	fds->out = p[1][0];
	fds->err = p[2][0];
	fcntl(fds->in, F_SETFL, fcntl(fds->in, F_GETFL) | O_NONBLOCK);
	fcntl(fds->out, F_SETFL, fcntl(fds->out, F_GETFL) | O_NONBLOCK);
	fcntl(fds->err, F_SETFL, fcntl(fds->err, F_GETFL) | O_NONBLOCK);
	return j;
}

/*
 * Start job's bot, its child running on stack (len bytes) until it has
 * executed the command; the calling thread waits until then.  Returns
 * its pid, also its process group, or -1 with the reason in err and on
 * the bot's stderr, as "refd: cannot run": its stdout is then at its
 * end.  A command that cannot be executed is still a bot that starts:
 * its stderr says why, and it exits 127 at once.  Either way the
 * child's ends of the descriptors are closed.
 */
pid_t
spawn_run(struct spawn_job *j, void *stack, size_t len, char *err,
    size_t errlen)
{
	struct spawn_child_args	*a = &j->a;
	sigset_t		 all, old;
	pid_t			 pid;
	int			 e;

	/* its memory cgroup, made here, off refd's loop */
	if (memcg && (a->cgfd = cgroup_bot_new((long long)lim_mem << 20,
	    j->cgname, sizeof(j->cgname), err, errlen)) == -1) {
		dprintf(a->errw, "refd: cannot run %s: %s\n", a->argv[0], err);
		pid = -1;
		goto out;
	}
	/* a descriptor of its filter of its own: bwrap reads it through */
	if (sb.seccomp && (a->sfd = sfilter_open(filter[j->locks])) == -1) {
		snprintf(err, errlen, "its system-call filter: %s",
		    strerror(errno));
		dprintf(a->errw, "refd: cannot run %s: %s\n", a->argv[0], err);
		pid = -1;
		goto out;
	}
	/* back here once the child has executed the bot, or exited */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(spawn_child, (unsigned char *)stack + len, SPAWN_CLONE,
	    a);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid == -1) {
		snprintf(err, errlen, "clone: %s", strerror(e));
		dprintf(a->errw, "refd: cannot run %s: clone: %s\n",
		    a->argv[0], strerror(e));
	} else {
		/* said on its stderr, as a bot that cannot start would */
		spawn_say(a, a->errw);
		/* both sides set the group, so no signal can beat it */
		setpgid(pid, pid);
	}
	if (a->cgfd != -1) {
		cgroup_bot_started(j->cgname, pid);
		close(a->cgfd);
		a->cgfd = -1;
	}
out:
	if (a->cgfd != -1) {
		cgroup_bot_started(j->cgname, -1);
		close(a->cgfd);
		a->cgfd = -1;
	}
	if (a->sfd != -1) {
		close(a->sfd);
		a->sfd = -1;
	}
	close(a->inr);
	close(a->outw);
	close(a->errw);
	a->inr = a->outw = a->errw = -1;
	return pid;
}

/* Free a job, run or not: a child's end not handed over is closed. */
void
spawn_job_free(struct spawn_job *j)
{
	if (j == NULL)
		return;
	if (j->a.inr != -1)
		close(j->a.inr);
	if (j->a.outw != -1)
		close(j->a.outw);
	if (j->a.errw != -1)
		close(j->a.errw);
	if (j->a.sfd != -1)
		close(j->a.sfd);
	free(j);
}

/*
 * Start argv as a bot, now: spawn_prepare() and spawn_run() in one.
 * Returns its pid, or -1 with a message in err and no descriptor left
 * open.
 */
pid_t
spawn_bot(char **argv, struct spawn_fds *fds, char *err, size_t errlen)
{
	struct spawn_job	*j;
	pid_t			 pid;

	if ((j = spawn_prepare(argv, fds, err, errlen)) == NULL)
		return -1;
	pid = spawn_run(j, spawn_stack, sizeof(spawn_stack), err, errlen);
	spawn_job_free(j);
	if (pid == -1)
		spawn_fds_close(fds);
	return pid;
}

/* Bot process pid was reaped: its memory cgroup may go. */
void
spawn_reaped(pid_t pid)
{
	if (memcg)
		cgroup_bot_reaped(pid);
}

/* At exit: the bots' memory cgroups that are empty, and refd's own. */
void
spawn_cleanup(void)
{
	if (memcg)
		cgroup_cleanup();
}

/*
 * Why bots' memory is not counted in cgroups though bot_memory_mb is
 * set, or NULL if it is (or there is no limit to count against).
 */
const char *
spawn_memcg_missing(void)
{
	return memcg_why[0] != '\0' ? memcg_why : NULL;
}

/* Signal a bot's whole process group, so its children go too. */
void
spawn_signal(pid_t pid, int sig)
{
	if (pid > 0 && killpg(pid, sig) == -1 && errno != ESRCH)
		log_warn("killpg %ld", (long)pid);
}

/*
 * What of the system bots see: /bin and /lib* as they are here (links
 * into /usr on a merged system, directories elsewhere), and the entries
 * of /etc that the sandbox wants and this host has.
 */
static void
spawn_system(void)
{
	static const char *const tops[] = { "/bin", "/sbin", "/lib", "/lib32",
	    "/lib64", "/libx32" };
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	char		 link[256];
	ssize_t		 len;
	size_t		 i;

	sb.nsys = sb.netc = 0;
	for (i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		if (lstat(tops[i], &st) == -1)
			continue;
		if (S_ISLNK(st.st_mode)) {
			len = readlink(tops[i], link, sizeof(link) - 1);
			if (len <= 0)
				continue;
			link[len] = '\0';
			sandbox_system(&sb, tops[i], link);
		} else if (S_ISDIR(st.st_mode))
			sandbox_system(&sb, tops[i], NULL);
	}
	if ((d = opendir("/etc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			sandbox_etc(&sb, de->d_name);
	closedir(d);
}

/*
 * Run a bot that does nothing under the sandbox as it stands, to find
 * out whether it works here.  Returns 0, or -1 with the reason in out.
 */
static int
spawn_probe(char *out, size_t outlen)
{
	static char	*probe[] = { "true", NULL };
	struct spawn_fds fds;
	char		 why[512];
	int		 status;
	pid_t		 pid;

	if ((pid = spawn_bot(probe, &fds, why, sizeof(why))) == -1) {
		snprintf(out, outlen, "sandbox: %.400s", why);
		return -1;
	}
	close(fds.in);
	close(fds.out);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	spawn_reaped(pid);
	memset(why, 0, sizeof(why));
	if (read(fds.err, why, sizeof(why) - 1) > 0)
		why[strcspn(why, "\n")] = '\0';
	close(fds.err);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(out, outlen, "the bubblewrap sandbox does not work "
		    "here (%.300s); set \"sandbox none\" to run bots "
		    "unsandboxed", why[0] != '\0' ? why : "bwrap failed");
		return -1;
	}
	return 0;
}

/*
 * Settle how bots are run: mode, and when refd is root the user they
 * run as (bot_user, "nobody" if NULL), never root.  Bots are never
 * shown the spawner's working directory or its home, even where their
 * program lies.  With the sandbox on, a bot
 * that does nothing is run under it once, to find out now whether
 * bubblewrap works here.  Returns 0, or -1 with the reason in err: then
 * every spawn is refused with that reason.
 */
int
spawn_setup(enum sandbox_mode mode, const char *bot_user, char *err,
    size_t errlen)
{
	struct passwd	*pw;
	char		 why[512], real[PATH_MAX];
	const char	*home;
	int		 i;

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
	home = getenv("HOME");
	if (home != NULL && home[0] == '/' && realpath(home, real) != NULL &&
	    strcmp(real, "/") != 0 && sandbox_hide(&sb, real, 0, why,
	    sizeof(why)) == -1) {
		snprintf(refusal, sizeof(refusal), "cannot hide %.200s from "
		    "bots: %.200s", real, why);
		goto refuse;
	}
	spawn_system();
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
		snprintf(bot_user_name, sizeof(bot_user_name), "%s",
		    pw->pw_name);
		drop = 1;
	}
	if (mode == SANDBOX_NONE)
		return 0;
	/* the filter, built once: each bot gets a descriptor of it */
	for (i = 0; i < 2; i++)
		if (filter[i] == -1 && (filter[i] = sfilter_build(i, why,
		    sizeof(why))) == -1) {
			snprintf(refusal, sizeof(refusal), "the system-call "
			    "filter: %.400s", why);
			goto refuse;
		}
	sb.seccomp = 1;
	memcg = 0;
	memcg_why[0] = '\0';
	if (lim_mem > 0) {
		if (cgroup_setup(why, sizeof(why)) == 0)
			memcg = 1;
		else
			snprintf(memcg_why, sizeof(memcg_why), "%s", why);
	}
	sb.no_userns = 1;
	if (spawn_probe(why, sizeof(why)) == -1) {
		/* a bwrap older than 0.8.0: the system-call filter alone
		 * keeps bots from new user namespaces */
		sb.no_userns = 0;
		if (spawn_probe(refusal, sizeof(refusal)) == -1)
			goto refuse;
		log_warnx("bwrap cannot disable user namespaces (%.200s)",
		    why);
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

/*
 * Keep the last cap - 1 bytes of a bot's stderr in tail (*len of them
 * so far, NUL-terminated), adding the n bytes of buf.
 */
void
spawn_tail_keep(char *tail, size_t *len, size_t cap, const char *buf,
    size_t n)
{
	size_t	 keep, cut;

	keep = n < cap - 1 ? n : cap - 1;
	if (*len + keep >= cap) {
		cut = *len + keep - (cap - 1);
		memmove(tail, tail + cut, *len - cut);
		*len -= cut;
	}
	memcpy(tail + *len, buf + n - keep, keep);
	*len += keep;
	tail[*len] = '\0';
}

/*
 * Why a bot's output ended, as the end of its stderr (tail, len bytes)
 * tells: "cannot run COMMAND: reason" when it could not be executed
 * (spawn_cannot_run()), else "its stderr ends with 'LINE'", its last
 * line that says anything, in printable form; NULL when it said nothing.
 */
const char *
spawn_last_words(const char *tail, size_t len, char *buf, size_t buflen)
{
	const char	*e, *s;
	char		 q[200];	/* util_printable writes 130 at most */

	if (spawn_cannot_run(tail, buf, buflen) != NULL)
		return buf;
	for (e = tail + len; e > tail && (e[-1] == '\n' || e[-1] == '\r' ||
	    e[-1] == ' '); e--)
		;
	for (s = e; s > tail && s[-1] != '\n'; s--)
		;
	if (e == s)
		return NULL;
	/* a cannot-run line after the shell's own words, say */
	if (spawn_cannot_run(s, buf, buflen) != NULL)
		return buf;
	util_printable(q, sizeof(q), s, (size_t)(e - s));
	snprintf(buf, buflen, "its stderr ends with '%s'", q);
	return buf;
}

/*
 * Does the bot user's (bot_uid, bot_gid, no other group) mode allow want
 * (R_OK, X_OK, or both) on st?
 */
static int
spawn_mode_lets(const struct stat *st, int want)
{
	int	 bits;

	if (st->st_uid == bot_uid)
		bits = (st->st_mode >> 6) & 7;
	else if (st->st_gid == bot_gid)
		bits = (st->st_mode >> 3) & 7;
	else
		bits = st->st_mode & 7;
	return (bits & want) == want;
}

/*
 * May the bot user reach real (an absolute, resolved path) and do want
 * with it?  Every directory on the way must let it search.  0, or -1
 * with the reason in err.
 */
static int
spawn_user_may(const char *real, int want, const char *what, char *err,
    size_t errlen)
{
	struct stat	 st;
	char		 dir[PATH_MAX];
	size_t		 i;

	for (i = 1; real[i - 1] != '\0'; i++) {
		if (real[i] != '/' && real[i] != '\0')
			continue;
		snprintf(dir, sizeof(dir), "%.*s", i == 1 ? 1 : (int)i, real);
		if (stat(dir, &st) == -1)
			break;		/* said by the caller's own checks */
		if (real[i] == '\0')
			break;
		if (!spawn_mode_lets(&st, X_OK)) {
			snprintf(err, errlen, "bot user %s cannot %s %.200s: "
			    "%.200s is closed to it (mode %04o, owner uid %ld)",
			    bot_user_name, what, real, dir,
			    (unsigned)(st.st_mode & 07777), (long)st.st_uid);
			return -1;
		}
	}
	if (stat(real, &st) == 0 && !spawn_mode_lets(&st, want)) {
		snprintf(err, errlen, "bot user %s cannot %s %.200s (mode %04o, "
		    "owner uid %ld)", bot_user_name, what, real,
		    (unsigned)(st.st_mode & 07777), (long)st.st_uid);
		return -1;
	}
	return 0;
}

/* The executable file execvp(3) would run for cmd, into buf; 0 if none. */
int
spawn_which(const char *cmd, char *buf, size_t len)
{
	const char	*path, *p, *e;
	struct stat	 st;

	if (strchr(cmd, '/') != NULL) {
		snprintf(buf, len, "%s", cmd);
		return access(cmd, X_OK) == 0 && stat(cmd, &st) == 0 &&
		    S_ISREG(st.st_mode);
	}
	if ((path = getenv("PATH")) == NULL)
		path = "/usr/bin:/bin";
	for (p = path; ; p = e + 1) {
		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		if ((size_t)snprintf(buf, len, "%.*s/%s", (int)(e - p),
		    e == p ? "." : p, cmd) < len && access(buf, X_OK) == 0 &&
		    stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return 1;
		if (*e == '\0')
			return 0;
	}
}

int
spawn_runnable(char *const *argv, char *err, size_t errlen)
{
	struct sandbox_opts	 o;
	struct sandbox_cmd	*sc;
	char			 path[PATH_MAX], real[PATH_MAX], why[256];
	int			 j, rc;

	if (sandbox_opts_parse(argv, &o, why, sizeof(why)) == -1)
		return 0;	/* the registry says why */
	if (!spawn_which(o.cmd[0], path, sizeof(path))) {
		snprintf(err, errlen, "%.200s is no executable file", o.cmd[0]);
		return -1;
	}
	if (!drop)
		return 0;	/* bots run as refd's own user: access(2) said */
	if (realpath(path, real) == NULL) {
		snprintf(err, errlen, "%.200s: %s", path, strerror(errno));
		return -1;
	}
	if (spawn_user_may(real, X_OK, "execute", err, errlen) == -1)
		return -1;
	if (sb.mode != SANDBOX_BWRAP)
		return 0;
	/*
	 * the bot's own files bwrap binds back, its script or directory
	 * say, bwrap opens as the bot user: "Can't find source path"
	 * otherwise (a --dir is the operator's to open to it: refd(8))
	 */
	if ((sc = malloc(sizeof(*sc))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = 0;
	if (sandbox_build(&sb, &o, spawn_resolve, spawn_getenv, NULL, sc, why,
	    sizeof(why)) == 0)
		for (j = 0; rc == 0 && sc->argv[j] != NULL &&
		    sc->argv[j + 1] != NULL; j++)
			if (strcmp(sc->argv[j], "--ro-bind") == 0 &&
			    strcmp(sc->argv[j + 1], "/") != 0)
				rc = spawn_user_may(sc->argv[j + 1], R_OK,
				    "read", err, errlen);
	free(sc);
	return rc;
}
