/*
 * sfilter.c: the system calls no bot needs, refused by a seccomp filter.
 *
 * The sandbox keeps a bot from what it may not see; this filter keeps
 * it from the calls that reach past a namespace (ptrace, keys, BPF,
 * performance counters), that would make namespaces or mounts of its
 * own, and that make channels between bots that no namespace closes:
 * file locks on the host's files, the page cache's state (fadvise,
 * madvise page-out, mincore, cachestat, reads with RWF_NOWAIT, io_uring
 * and AIO that can ask for it), and file-access events (inotify,
 * fanotify).  One row per rule, with the reason, in sfilter_rules[];
 * refd(8) SECURITY lists them.  Each refused call fails with EPERM
 * (clone3 with ENOSYS, so that the C library falls back to clone, whose
 * flags the filter can read), but for taking a file lock, which
 * succeeds and locks nothing; a call from another architecture's ABI
 * kills the bot.
 *
 * The filter is built once per kind (with or without file locks, which
 * a bot's definition may allow: --locks) into a sealed memfd; each bot
 * gets a fresh descriptor of it (sfilter_open()), read from its start
 * by bwrap --seccomp.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sfilter.h"

#ifndef F_OFD_GETLK
#define F_OFD_GETLK	36
#define F_OFD_SETLK	37
#define F_OFD_SETLKW	38
#endif
#ifndef MADV_COLD
#define MADV_COLD	20
#define MADV_PAGEOUT	21
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT	0x00000008
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP	0x02000000
#endif

enum sfilter_cond {
	SF_ALL,		/* every call */
	SF_A0_BIT,	/* arg 0 has bit val */
	SF_A1_EQ,	/* arg 1 is val */
	SF_A2_EQ,	/* arg 2 is val */
	SF_A5_BIT,	/* arg 5 has bit val */
};

/* One rule: a call refused, when, and why. */
struct sfilter_rule {
	const char	*name;		/* the system call */
	int		 nr;		/* its x86-64/generic number if libseccomp
					 * is older than the call, else 0 */
	enum sfilter_cond cond;
	unsigned long	 val;		/* the bit or value of cond */
	int		 err;		/* errno it fails with */
	int		 lock;		/* a file lock: --locks allows it */
	const char	*why;
};

static const struct sfilter_rule sfilter_rules[] = {
	{ "ptrace", 0, SF_ALL, 0, EPERM, 0, "another process's memory" },
	{ "process_vm_readv", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "process_vm_writev", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "perf_event_open", 0, SF_ALL, 0, EPERM, 0,
	    "counters of the shared CPU and caches" },
	{ "bpf", 0, SF_ALL, 0, EPERM, 0, "programs in the kernel" },
	{ "userfaultfd", 0, SF_ALL, 0, EPERM, 0,
	    "stalling the kernel at will" },
	{ "keyctl", 0, SF_ALL, 0, EPERM, 0,
	    "kernel keyrings, not namespaced" },
	{ "add_key", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "request_key", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "mount", 0, SF_ALL, 0, EPERM, 0, "a tmpfs of its own, uncounted" },
	{ "umount2", 0, SF_ALL, 0, EPERM, 0, "what the sandbox mounted" },
	{ "pivot_root", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "move_mount", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "open_tree", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "fsopen", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "fsconfig", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "fsmount", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "fspick", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "mount_setattr", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "unshare", 0, SF_ALL, 0, EPERM, 0, "namespaces of its own" },
	{ "setns", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "clone", 0, SF_A0_BIT, CLONE_NEWNS, EPERM, 0, "the same" },
	{ "clone", 0, SF_A0_BIT, CLONE_NEWCGROUP, EPERM, 0, "the same" },
	{ "clone", 0, SF_A0_BIT, CLONE_NEWUTS, EPERM, 0, "the same" },
	{ "clone", 0, SF_A0_BIT, CLONE_NEWIPC, EPERM, 0, "the same" },
	{ "clone", 0, SF_A0_BIT, CLONE_NEWUSER, EPERM, 0, "the same" },
	{ "clone", 0, SF_A0_BIT, CLONE_NEWPID, EPERM, 0, "the same" },
	{ "clone", 0, SF_A0_BIT, CLONE_NEWNET, EPERM, 0, "the same" },
	{ "clone3", 0, SF_ALL, 0, ENOSYS, 0,
	    "flags a filter cannot read: clone instead" },
	{ "io_uring_setup", 0, SF_ALL, 0, EPERM, 0,
	    "system calls no filter sees, RWF_NOWAIT among them" },
	{ "io_uring_enter", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "io_uring_register", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "io_setup", 0, SF_ALL, 0, EPERM, 0,
	    "AIO, whose reads can ask RWF_NOWAIT" },
	{ "io_submit", 0, SF_ALL, 0, EPERM, 0, "the same" },
	/* taking a lock succeeds and takes none: runtimes lock files of
	 * their own (the JVM its perf data) and complain if refused */
	{ "flock", 0, SF_ALL, 0, 0, 1,
	    "locks on host files every bot sees: a channel" },
	{ "fcntl", 0, SF_A1_EQ, F_SETLK, 0, 1, "the same" },
	{ "fcntl", 0, SF_A1_EQ, F_SETLKW, 0, 1, "the same" },
	{ "fcntl", 0, SF_A1_EQ, F_OFD_SETLK, 0, 1, "the same" },
	{ "fcntl", 0, SF_A1_EQ, F_OFD_SETLKW, 0, 1, "the same" },
	{ "fcntl", 0, SF_A1_EQ, F_GETLK, EPERM, 1, "the same" },
	{ "fcntl", 0, SF_A1_EQ, F_OFD_GETLK, EPERM, 1, "the same" },
	{ "fcntl", 0, SF_A1_EQ, F_SETLEASE, EPERM, 0, "leases, the same" },
	{ "fcntl", 0, SF_A1_EQ, F_NOTIFY, EPERM, 0,
	    "another bot's opening of a file seen: a channel" },
	{ "inotify_init", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "inotify_init1", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "fanotify_init", 0, SF_ALL, 0, EPERM, 0, "the same" },
	{ "fadvise64", 0, SF_ALL, 0, EPERM, 0,
	    "page cache dropped (DONTNEED): a channel across matches" },
	{ "madvise", 0, SF_A2_EQ, MADV_PAGEOUT, EPERM, 0, "the same" },
	{ "madvise", 0, SF_A2_EQ, MADV_COLD, EPERM, 0, "the same" },
	{ "mincore", 0, SF_ALL, 0, EPERM, 0,
	    "page cache residency read: the same" },
	{ "cachestat", 451, SF_ALL, 0, EPERM, 0, "the same" },
	{ "preadv2", 0, SF_A5_BIT, RWF_NOWAIT, EPERM, 0, "the same" },
	{ "pwritev2", 0, SF_A5_BIT, RWF_NOWAIT, EPERM, 0, "the same" },
};
#define SF_NRULES	(sizeof(sfilter_rules) / sizeof(sfilter_rules[0]))

/* How many rules the filter has, for refd(8)'s list and the tests. */
size_t
sfilter_count(void)
{
	return SF_NRULES;
}

/* The system call of rule i. */
const char *
sfilter_name(size_t i)
{
	return i < SF_NRULES ? sfilter_rules[i].name : NULL;
}

/* Add rule r to ctx; 0, or -1 with the reason in err. */
static int
sfilter_add(scmp_filter_ctx ctx, const struct sfilter_rule *r, char *err,
    size_t errlen)
{
	struct scmp_arg_cmp	 cmp;
	int			 nr, rc = 0;

	nr = seccomp_syscall_resolve_name(r->name);
	if (nr == __NR_SCMP_ERROR) {
		if (r->nr == 0)
			return 0;	/* not on this architecture */
		nr = r->nr;
	}
	switch (r->cond) {
	case SF_ALL:
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(r->err), nr, 0);
		break;
	case SF_A0_BIT:
		cmp = SCMP_A0(SCMP_CMP_MASKED_EQ, r->val, r->val);
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(r->err), nr, 1,
		    &cmp);
		break;
	case SF_A1_EQ:
		cmp = SCMP_A1(SCMP_CMP_EQ, r->val);
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(r->err), nr, 1,
		    &cmp);
		break;
	case SF_A2_EQ:
		cmp = SCMP_A2(SCMP_CMP_EQ, r->val);
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(r->err), nr, 1,
		    &cmp);
		break;
	case SF_A5_BIT:
		cmp = SCMP_A5(SCMP_CMP_MASKED_EQ, r->val, r->val);
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(r->err), nr, 1,
		    &cmp);
		break;
	}
	if (rc < 0) {
		snprintf(err, errlen, "seccomp rule for %s: %s", r->name,
		    strerror(-rc));
		return -1;
	}
	return 0;
}

/*
 * Build the filter, with file locks allowed if locks, into a sealed
 * memfd, as the BPF program bwrap --seccomp reads.  Returns the memfd
 * (close-on-exec), or -1 with the reason in err.
 */
int
sfilter_build(int locks, char *err, size_t errlen)
{
	scmp_filter_ctx	 ctx;
	size_t		 i;
	int		 fd = -1, rc;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		snprintf(err, errlen, "seccomp_init failed");
		return -1;
	}
	for (i = 0; i < SF_NRULES; i++)
		if ((!locks || !sfilter_rules[i].lock) &&
		    sfilter_add(ctx, &sfilter_rules[i], err, errlen) == -1)
			goto fail;
	if ((fd = memfd_create("refd-sfilter", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) == -1) {
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		goto fail;
	}
	if ((rc = seccomp_export_bpf(ctx, fd)) < 0) {
		snprintf(err, errlen, "seccomp_export_bpf: %s", strerror(-rc));
		goto fail;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE) == -1) {
		snprintf(err, errlen, "sealing the filter: %s",
		    strerror(errno));
		goto fail;
	}
	seccomp_release(ctx);
	return fd;
fail:
	if (fd != -1)
		close(fd);
	seccomp_release(ctx);
	return -1;
}

/*
 * A descriptor of filter memfd fd of its own, read from the start:
 * bwrap reads its descriptor to the end.  Close-on-exec; -1 on failure.
 */
int
sfilter_open(int fd)
{
	char	 path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_RDONLY | O_CLOEXEC);
}
