/*
 * cgroup.c: a memory cgroup of its own for each spawned bot.
 *
 * RLIMIT_AS bounds each process of a bot, not what its sandbox holds:
 * pages of a tmpfs (its /tmp, /dev/shm, one it mounted) belong to no
 * process.  A memory cgroup counts them all, shared memory and tmpfs
 * pages included, against the limit of the cgroup of the process that
 * wrote them.  So every bot gets a cgroup "bot-N" under one of refd's
 * own, "refd-PID", made beside refd in its cgroup: with cgroup v2 where
 * the host has it (the memory controller enabled for refd's cgroup, as
 * systemd's Delegate=yes gives it), else the v1 memory controller.
 * The limit is bot_memory_mb, swap none; past it the kernel's OOM
 * killer stops the bot (under v2, its whole sandbox at once).
 *
 * The child of spawn.c enters its cgroup by writing "0" to the
 * cgroup.procs descriptor cgroup_bot_new() opened, before it becomes
 * the bot user and executes the sandbox.  A cgroup is removed once its
 * bot has been reaped and its sandbox's last process is gone: a dead
 * bot's cgroup is tried again at each new bot until it can go, and
 * cgroup_cleanup() removes what is left, and refd's own, at exit.
 * Bot starts run on the thread of spawnq.c and reaps in the loop: the
 * list of cgroups is under a mutex.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_V1_MEMORY	CG_ROOT "/memory"

/* One bot's cgroup, from its making to its removal. */
struct cgroup_bot {
	char		 name[CGROUP_NAMELEN];	/* "bot-N" */
	pid_t		 pid;		/* its sandbox's, 0 until known */
	int		 dead;		/* reaped: remove it when empty */
	struct cgroup_bot *next;
};

static int		 cg_kind;	/* 0 none, 1 v1, 2 v2 */
static char		 cg_dir[PATH_MAX];	/* refd's: ".../refd-PID" */
static unsigned long long cg_seq;	/* the next bot's number */
static unsigned		 cg_made;	/* bots made, for a full sweep */
static struct cgroup_bot *cg_bots;	/* under cg_mtx */
static pthread_mutex_t	 cg_mtx = PTHREAD_MUTEX_INITIALIZER;

/* Write text to file dir/name; 0, or -1 with errno. */
static int
cgroup_write(const char *dir, const char *name, const char *text)
{
	char	 path[PATH_MAX + 64];
	ssize_t	 n;
	int	 fd, e;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, text, strlen(text));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Does file path hold word (a whitespace-separated one)? */
static int
cgroup_file_has(const char *path, const char *word)
{
	char	 buf[1024], *w, *save;
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (w = strtok_r(buf, " \t\n", &save); w != NULL;
	    w = strtok_r(NULL, " \t\n", &save))
		if (strcmp(w, word) == 0)
			return 1;
	return 0;
}

/*
 * refd's own cgroup path for the v1 controller ctl ("memory"), or for
 * v2 if ctl is NULL, from /proc/self/cgroup into out; -1 if none.
 */
static int
cgroup_own(const char *ctl, char *out, size_t len)
{
	char	 line[1024], *c1, *c2, *w, *save;
	FILE	*f;
	int	 found = -1;

	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return -1;
	while (found == -1 && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((c1 = strchr(line, ':')) == NULL ||
		    (c2 = strchr(c1 + 1, ':')) == NULL)
			continue;
		*c2 = '\0';
		if (ctl == NULL) {
			if (strcmp(line, "0") == 0 && c1[1] == '\0')
				found = 0;
		} else
			for (w = strtok_r(c1 + 1, ",", &save); w != NULL;
			    w = strtok_r(NULL, ",", &save))
				if (strcmp(w, ctl) == 0)
					found = 0;
		if (found == 0)
			snprintf(out, len, "%s", strcmp(c2 + 1, "/") == 0 ?
			    "" : c2 + 1);
	}
	fclose(f);
	return found;
}

/* Remove the cgroups "bot-*" in dir, then dir: all empty, or it stays. */
static void
cgroup_rmtree(const char *dir)
{
	char		 path[PATH_MAX + 300];
	struct dirent	*de;
	DIR		*d;

	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strncmp(de->d_name, "bot-", 4) == 0) {
				snprintf(path, sizeof(path), "%s/%s", dir,
				    de->d_name);
				rmdir(path);
			}
		closedir(d);
	}
	rmdir(dir);
}

/* Remove what refds killed before they could clean up left in base. */
static void
cgroup_stale(const char *base)
{
	char		 path[2 * PATH_MAX], *end;
	struct dirent	*de;
	DIR		*d;
	long		 pid;

	if ((d = opendir(base)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "refd-", 5) != 0)
			continue;
		pid = strtol(de->d_name + 5, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		cgroup_rmtree(path);
	}
	closedir(d);
}

/*
 * cgroup v2: refd's cgroup must hand the memory controller to its
 * children, which it may only do with no process in it: if refd is
 * alone there, it moves itself into "refd-PID/refd" first.
 */
static int
cgroup_v2_setup(const char *base, char *err, size_t errlen)
{
	char	 path[2 * PATH_MAX], pid[32];

	snprintf(path, sizeof(path), "%s/cgroup.controllers", base);
	if (!cgroup_file_has(path, "memory")) {
		snprintf(err, errlen, "cgroup v2: the memory controller is not "
		    "given to %.200s (delegate it, as systemd's Delegate=yes "
		    "does)", base);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", base);
	if (!cgroup_file_has(path, "memory") &&
	    cgroup_write(base, "cgroup.subtree_control", "+memory") == -1) {
		/* refd is in base: out of it into a leaf of its own */
		snprintf(path, sizeof(path), "%s/refd", cg_dir);
		snprintf(pid, sizeof(pid), "%ld", (long)getpid());
		if ((mkdir(path, 0755) == -1 && errno != EEXIST) ||
		    cgroup_write(path, "cgroup.procs", pid) == -1 ||
		    cgroup_write(base, "cgroup.subtree_control", "+memory") ==
		    -1) {
			snprintf(err, errlen, "cgroup v2: cannot enable the "
			    "memory controller in %.200s: %s", base,
			    strerror(errno));
			return -1;
		}
	}
	if (cgroup_write(cg_dir, "cgroup.subtree_control", "+memory") == -1) {
		snprintf(err, errlen, "cgroup v2: cannot enable the memory "
		    "controller in %.200s: %s", cg_dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Find where bots' cgroups can be made, and make refd's own there.
 * Returns 0, or -1 with the reason in err: then no bot gets a cgroup.
 */
int
cgroup_setup(char *err, size_t errlen)
{
	char		 own[PATH_MAX], base[PATH_MAX + 64];
	struct stat	 st;
	int		 v2;

	cg_kind = 0;
	v2 = stat(CG_ROOT "/cgroup.controllers", &st) == 0;
	if (v2 ? cgroup_own(NULL, own, sizeof(own)) == -1 :
	    stat(CG_V1_MEMORY "/memory.limit_in_bytes", &st) == -1 ||
	    cgroup_own("memory", own, sizeof(own)) == -1) {
		snprintf(err, errlen, "no memory cgroup controller here "
		    "(neither cgroup v2 at %s nor v1 at %s)", CG_ROOT,
		    CG_V1_MEMORY);
		return -1;
	}
	snprintf(base, sizeof(base), "%s%s", v2 ? CG_ROOT : CG_V1_MEMORY, own);
	cgroup_stale(base);
	if ((size_t)snprintf(cg_dir, sizeof(cg_dir), "%s/refd-%ld", base,
	    (long)getpid()) >= sizeof(cg_dir) || (mkdir(cg_dir, 0755) == -1 &&
	    errno != EEXIST)) {
		snprintf(err, errlen, "cannot make a cgroup in %.200s: %s",
		    base, strerror(errno));
		return -1;
	}
	if (v2 && cgroup_v2_setup(base, err, errlen) == -1) {
		rmdir(cg_dir);
		return -1;
	}
	cg_kind = v2 ? 2 : 1;
	return 0;
}

/* "v2", "v1", or NULL where bots get no cgroup. */
const char *
cgroup_kind(void)
{
	return cg_kind == 2 ? "v2" : cg_kind == 1 ? "v1" : NULL;
}

/* Remove the cgroups of reaped bots that are empty now (all, if all). */
static void
cgroup_sweep(int all)
{
	struct cgroup_bot	**p, *b;
	char			  path[PATH_MAX + CGROUP_NAMELEN + 2];

	pthread_mutex_lock(&cg_mtx);
	for (p = &cg_bots; (b = *p) != NULL;) {
		snprintf(path, sizeof(path), "%s/%s", cg_dir, b->name);
		if ((b->dead || (all && b->pid != 0)) && (rmdir(path) == 0 ||
		    errno == ENOENT)) {
			*p = b->next;
			free(b);
		} else
			p = &b->next;
	}
	pthread_mutex_unlock(&cg_mtx);
}

/*
 * Make a bot's cgroup, limited to limit bytes of memory with no swap;
 * its name goes in name.  Returns a descriptor of its cgroup.procs
 * (close-on-exec) for the bot's process to write "0" to, or -1 with
 * the reason in err.
 */
int
cgroup_bot_new(long long limit, char *name, size_t namelen, char *err,
    size_t errlen)
{
	struct cgroup_bot	*b;
	char			 path[PATH_MAX + CGROUP_NAMELEN + 16], val[32];
	int			 fd;

	if (cg_kind == 0) {
		snprintf(err, errlen, "no cgroup");
		return -1;
	}
	/* now and then every bot's, in case a reap came before its start */
	cgroup_sweep(++cg_made % 64 == 0);
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_lock(&cg_mtx);
	snprintf(b->name, sizeof(b->name), "bot-%llu", cg_seq++);
	pthread_mutex_unlock(&cg_mtx);
	snprintf(path, sizeof(path), "%s/%s", cg_dir, b->name);
	snprintf(val, sizeof(val), "%lld", limit);
	if (mkdir(path, 0755) == -1) {
		snprintf(err, errlen, "cgroup %.200s: %s", path,
		    strerror(errno));
		free(b);
		return -1;
	}
	if ((cg_kind == 1 ? cgroup_write(path, "memory.limit_in_bytes", val) :
	    cgroup_write(path, "memory.max", val)) == -1) {
		snprintf(err, errlen, "cgroup %.200s: its limit: %s", path,
		    strerror(errno));
		rmdir(path);
		free(b);
		return -1;
	}
	/* no swap beyond it, where swap is counted at all */
	if (cg_kind == 1)
		cgroup_write(path, "memory.memsw.limit_in_bytes", val);
	else {
		cgroup_write(path, "memory.swap.max", "0");
		cgroup_write(path, "memory.oom.group", "1");
	}
	snprintf(path, sizeof(path), "%s/%s/cgroup.procs", cg_dir, b->name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cgroup %.200s: %s", path,
		    strerror(errno));
		snprintf(path, sizeof(path), "%s/%s", cg_dir, b->name);
		rmdir(path);
		free(b);
		return -1;
	}
	snprintf(name, namelen, "%s", b->name);
	pthread_mutex_lock(&cg_mtx);
	b->next = cg_bots;
	cg_bots = b;
	pthread_mutex_unlock(&cg_mtx);
	return fd;
}

/* The bot of cgroup name runs as pid (its sandbox's process). */
void
cgroup_bot_started(const char *name, pid_t pid)
{
	struct cgroup_bot	*b;

	pthread_mutex_lock(&cg_mtx);
	for (b = cg_bots; b != NULL; b = b->next)
		if (strcmp(b->name, name) == 0) {
			b->pid = pid > 0 ? pid : -1;
			b->dead = pid <= 0;
		}
	pthread_mutex_unlock(&cg_mtx);
}

/* Process pid was reaped: its cgroup, if it had one, may go. */
void
cgroup_bot_reaped(pid_t pid)
{
	struct cgroup_bot	*b;

	if (cg_kind == 0)
		return;
	pthread_mutex_lock(&cg_mtx);
	for (b = cg_bots; b != NULL; b = b->next)
		if (b->pid == pid)
			b->dead = 1;
	pthread_mutex_unlock(&cg_mtx);
}

/*
 * At exit: remove every bot's cgroup that is empty, waiting a little
 * for sandboxes on their way out, then refd's own.
 */
void
cgroup_cleanup(void)
{
	int	 i;

	if (cg_kind == 0)
		return;
	for (i = 0; i < 50 && cg_bots != NULL; i++) {
		cgroup_sweep(1);
		if (cg_bots != NULL)
			usleep(10000);
	}
	cgroup_rmtree(cg_dir);
}
