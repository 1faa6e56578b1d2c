/*
 * sandbox.h: the bubblewrap command line every spawned bot runs under,
 * shared by refd and by refctl checkbot.  Building it touches nothing:
 * the caller says which words name files (a callback), so that the
 * whole command line can be checked by a unit test.
 */
#ifndef REFD_SANDBOX_H
#define REFD_SANDBOX_H

#include <stddef.h>

#define SANDBOX_MAXENV		8	/* --env= options of one bot */
#define SANDBOX_MAXHIDE		16	/* directories never shown to bots */
#define SANDBOX_MAXRO		8	/* --ro=PATH options of one bot */
#define SANDBOX_MAXSYS		8	/* the system's /bin, /lib* links */
#define SANDBOX_MAXETC		48	/* entries of the minimal /etc */
#define SANDBOX_MAXARGV		192	/* words of the whole command */
#define SANDBOX_BUFLEN		32768	/* bytes of them */
#define SANDBOX_HOME		"/home/bot"
#define SANDBOX_TMP_MB		64	/* size of a bot's /tmp and HOME */
#define SANDBOX_NPROC		64	/* processes of one bot */
#define SANDBOX_SECCOMP_FD	3	/* the filter's descriptor for bwrap */

enum sandbox_mode { SANDBOX_BWRAP, SANDBOX_NONE };

/* A bot's own options, the words before its command (refd.conf(5)). */
struct sandbox_opts {
	int		 net;		/* --net: keep the host's network */
	int		 locks;		/* --locks: file locks allowed */
	int		 nenv;
	const char	*env[SANDBOX_MAXENV];	/* --env=NAME: passed in */
	const char	*dir;		/* --dir=PATH: kept across matches */
	int		 nro;
	const char	*ro[SANDBOX_MAXRO];	/* --ro=PATH: shown read only */
	char	* const	*cmd;		/* the command itself */
};

/* A top-level entry of the system a bot sees: /bin, /lib64... */
struct sandbox_sys {
	char		 path[32];	/* absolute, one component */
	char		 link[256];	/* its symbolic link's target, or "" */
};

/*
 * Daemon-wide: what every bot sees (an allow list: /usr, the system's
 * links, a minimal /etc) and what it is never shown even where its
 * program lies.
 */
struct sandbox_conf {
	enum sandbox_mode mode;
	char		 bwrap[256];	/* the bwrap program */
	char		 cwd[4096];	/* the spawner's directory */
	int		 nhide;
	char		 hide[SANDBOX_MAXHIDE][4096];	/* absolute, real */
	int		 whole[SANDBOX_MAXHIDE];	/* all of it secret */
	int		 nsecret;
	char		 secret[SANDBOX_MAXHIDE * 4][4096]; /* never bound */
	int		 nsys;
	struct sandbox_sys sys[SANDBOX_MAXSYS];	/* /bin, /lib... */
	int		 netc;
	char		 etc[SANDBOX_MAXETC][64];	/* names under /etc */
	int		 nproc;		/* process limit, 0: none */
	int		 tmp_mb;	/* size of /tmp, HOME and /dev/shm */
	int		 no_userns;	/* bwrap --disable-userns */
	int		 seccomp;	/* bwrap --seccomp SANDBOX_SECCOMP_FD */
};

/* A command line built: argv and envp point into buf. */
struct sandbox_cmd {
	char		*argv[SANDBOX_MAXARGV];
	char		*envp[SANDBOX_MAXENV + 4];
	char		 buf[SANDBOX_BUFLEN];
	size_t		 used;
};

/* Does word name a file?  Then its real absolute path goes in out. */
typedef int	(*sandbox_resolve)(const char *, char *, size_t, void *);
/* The value of an environment variable of the spawner, or NULL. */
typedef const char *(*sandbox_getenv)(const char *, void *);

int	 sandbox_opts_parse(char * const *, struct sandbox_opts *, char *,
	    size_t);
int	 sandbox_hide(struct sandbox_conf *, const char *, int, char *,
	    size_t);
int	 sandbox_secret(struct sandbox_conf *, const char *, char *, size_t);
int	 sandbox_system(struct sandbox_conf *, const char *, const char *);
int	 sandbox_etc_wanted(const char *);
int	 sandbox_etc(struct sandbox_conf *, const char *);
int	 sandbox_build(const struct sandbox_conf *, const struct sandbox_opts *,
	    sandbox_resolve, sandbox_getenv, void *, struct sandbox_cmd *,
	    char *, size_t);
const char *sandbox_mode_name(enum sandbox_mode);

#endif
