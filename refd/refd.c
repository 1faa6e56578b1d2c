/*
 * refd.c: the daemon's start, configuration, listeners and signals.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>
#include <sodium.h>

#include "refd.h"
#include "botlog.h"
#include "bots.h"
#include "ckpt.h"
#include "clock.h"
#include "conf.h"
#include "ctl.h"
#include "db.h"
#include "key.h"
#include "guard.h"
#include "harden.h"
#include "http.h"
#include "log.h"
#include "logsync.h"
#include "match.h"
#include "mset.h"
#include "pidlock.h"
#include "seat.h"
#include "site.h"
#include "spawn.h"
#include "spawnq.h"
#include "tourney.h"
#include "util.h"
#include "worker.h"

struct refd_conf	 conf;
struct event_base	*base;
struct db		*logdb;

static struct evconnlistener *bot_listener;
static int64_t		 unauth_warned_ms;	/* refusals logged once a second */
static int		 shutting_down;
static struct logsync	*syncer;	/* syncs the log off the loop */
static struct ckpt	*ckpter;	/* checkpoints it off the loop */

/* Usage, on a bad command line. */
static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: refd [-dhv] [-c socket] [-D database] [-f config] "
	    "[-L botlogdir]\n"
	    "            [-l host:port] [-m move_ms] [-s startup_ms]"
	    " [-w [host:]port]\n"
	    "            [--cluster conninfo --worker name]\n"
	    "  -c socket     control socket (default refd.sock)\n"
	    "  -D database   SQLite log (default refd.db)\n"
	    "  -d            run as a daemon, logging to syslog\n"
	    "  -f config     read settings and bots from config (refd.conf(5))\n"
	    "  -L dir        per-bot stderr logs (default: discarded)\n"
	    "  -l host:port  listen for remote bots (default: none)\n"
	    "  -m ms         default per-move limit (default %lld)\n"
	    "  -s ms         default start-up limit (default %lld)\n"
	    "  -v            more verbose; -vv for debugging\n"
	    "  -w host:port  serve the web site (default: none; host "
	    "127.0.0.1)\n"
	    "  --cluster c   play a cluster's slots (refd-cluster(7))\n"
	    "  --worker name as this worker of it\n",
	    mset_default(MSET_MOVE_MS), mset_default(MSET_STARTUP_MS));
	exit(status);
}

/* Read a config file; exits with file:line on the first error. */
static void
conf_read(const char *path)
{
	FILE		*fp;
	char		 err[PATH_MAX + 1024];

	if ((fp = fopen(path, "r")) == NULL)
		fatal("%s", path);
	/* remote bots' tokens are in it */
	if (spawn_hide(path, 0, err, sizeof(err)) == -1)
		fatalx("%s", err);
	if (conf_parse(&conf, fp, path, err, sizeof(err)) == -1)
		fatalx("%s", err);
	fclose(fp);
}

/* A remote bot connects to the bot listener. */
static void
bot_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)sa;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)sa;
	char			 peer[80], addr[INET6_ADDRSTRLEN];
	int			 one = 1, same, idle = 30, intvl = 10, cnt = 3;

	(void)l;
	(void)salen;
	(void)arg;
	if (seat_count() >= conf.max_conns) {
		log_warnx("bot listener: connection limit %d reached",
		    conf.max_conns);
		close(fd);
		return;
	}
	if (sa->sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &sin6->sin6_addr, addr, sizeof(addr));
		snprintf(peer, sizeof(peer), "[%s]:%d", addr,
		    ntohs(sin6->sin6_port));
	} else {
		inet_ntop(AF_INET, &sin->sin_addr, addr, sizeof(addr));
		snprintf(peer, sizeof(peer), "%s:%d", addr,
		    ntohs(sin->sin_port));
	}
	/* strangers get a smaller share, and no address all of it */
	if ((seat_unauth(peer, &same) >= conf.max_unauth &&
	    (same >= conf.max_per_addr || !seat_unauth_evict(peer, same))) ||
	    same >= conf.max_per_addr) {
		if (util_now_ms() - unauth_warned_ms > 1000) {
			log_warnx("bot listener: %s refused: %d unauthenticated "
			    "connections from it, limit %d, %d in all", addr,
			    same, conf.max_per_addr, conf.max_unauth);
			unauth_warned_ms = util_now_ms();
		}
		close(fd);
		return;
	}
	/* a move is a few bytes each way: never wait to batch them */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* a peer gone without a word is found out while its seat idles */
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	seat_accept(fd, peer);	/* which closes fd if it fails */
}

/* Listen for remote bots on the configured address, IPv4 or IPv6. */
static int
bot_listen(void)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t		 slen;
	int			 v6;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, conf.listen_host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(conf.listen_port);
		slen = sizeof(*sin);
	} else if (inet_pton(AF_INET6, conf.listen_host,
	    &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(conf.listen_port);
		slen = sizeof(*sin6);
	} else {
		log_warnx("listen: %s is not an IPv4 or IPv6 address",
		    conf.listen_host);
		return -1;
	}
	v6 = ss.ss_family == AF_INET6;
	bot_listener = evconnlistener_new_bind(base, bot_accept, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
	    128, (struct sockaddr *)&ss, slen);
	if (bot_listener == NULL) {
		log_warn("listen %s%s%s:%d", v6 ? "[" : "", conf.listen_host,
		    v6 ? "]" : "", conf.listen_port);
		return -1;
	}
	/* port 0 asks the kernel for one: keep the real one for status */
	slen = sizeof(ss);
	if (getsockname(evconnlistener_get_fd(bot_listener),
	    (struct sockaddr *)&ss, &slen) == 0)
		conf.listen_port = ntohs(v6 ? sin6->sin6_port :
		    sin->sin_port);
	log_info("listening for bots on %s%s%s:%d", v6 ? "[" : "",
	    conf.listen_host, v6 ? "]" : "", conf.listen_port);
	return 0;
}

/*
 * How spawned bots run: hide from them the log, the control socket, the
 * bot logs (and, in spawn_setup, the working directory), then check that
 * the sandbox works.  If it does not, refd still serves remote bots, and
 * says why each spawn is refused.
 */
static void
bots_setup(void)
{
	char	 err[PATH_MAX + 512];

	if (conf.botlog_dir[0] != '\0' && mkdir(conf.botlog_dir, 0700) == -1 &&
	    errno != EEXIST)
		fatal("bot log directory %s", conf.botlog_dir);
	/* their total under botlog_max_mb, the oldest going first */
	botlog_init(conf.botlog_dir, (int64_t)conf.botlog_max_mb << 20);
	if ((strcmp(conf.db_path, ":memory:") != 0 &&
	    spawn_hide(conf.db_path, 0, err, sizeof(err)) == -1) ||
	    spawn_hide(conf.ctl_path, 0, err, sizeof(err)) == -1 ||
	    (conf.botlog_dir[0] != '\0' &&
	    spawn_hide(conf.botlog_dir, 1, err, sizeof(err)) == -1))
		fatalx("%s", err);
	if (spawn_setup(conf.sandbox_none ? SANDBOX_NONE : SANDBOX_BWRAP,
	    conf.bot_user[0] != '\0' ? conf.bot_user : NULL, err,
	    sizeof(err)) == -1)
		log_warnx("spawned bots refused: %s", err);
	else if (conf.sandbox_none)
		log_warnx("sandbox none: spawned bots run unsandboxed");
	else if (spawn_memcg_missing() != NULL)
		log_warnx("no memory cgroup for bots: bot_memory_mb bounds "
		    "each process, not what a sandbox holds in tmpfs and shared "
		    "memory (%s)", spawn_memcg_missing());
}

/* Stop gracefully: running matches end aborted, with nothing half-written. */
void
refd_shutdown(void)
{
	struct match	*m;
	struct timeval	 tv = { 0, 200000 };

	if (shutting_down)
		return;
	shutting_down = 1;
	log_info("shutting down");
	match_ends_now();
	TAILQ_FOREACH(m, &matches, entry)
		if (!match_over(m))
			match_stop(m, "refd shut down");
	if (bot_listener != NULL) {
		evconnlistener_free(bot_listener);
		bot_listener = NULL;
	}
	/*
	 * a moment for quits and replies to leave, then out: from now, not
	 * from the loop's wake-up, which the ends' syncs above may have
	 * left far behind on a slow disk
	 */
	event_base_update_cache_time(base);
	event_base_loopexit(base, &tv);
}

/* Is refd on its way out?  Then nothing new may start. */
int
refd_stopping(void)
{
	return shutting_down;
}

/* SIGTERM and SIGINT stop refd; SIGCHLD reaps bots. */
static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	pid_t	 pid;
	int	 status;

	(void)what;
	(void)arg;
	if (sig != SIGCHLD) {
		refd_shutdown();
		return;
	}
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		spawn_reaped(pid);
		seat_reap(pid, status);
	}
}

/*
 * The log's thread has synced it up to request n, or failed to with
 * errno error: then what the log holds can no longer be trusted to the
 * disk.  The end it was to keep is never announced, every running match
 * stops, and refd writes nothing more (db_break()) until restarted.
 */
static void
refd_log_synced(void *arg, uint64_t n, int error)
{
	char	 why[256];

	(void)arg;
	if (error != 0) {
		snprintf(why, sizeof(why), "the log could not be synced: %s",
		    strerror(error));
		log_warnx("%s: %s", conf.db_path, why);
		db_break(logdb, why);
		match_log_lost_all();
	}
	db_sync_heard(logdb, n);
	match_log_synced();
}

/*
 * The log committed the end of match m, or a group holding the ends of
 * several (m NULL): the thread syncs it, and the ends are announced once
 * it has.  With one match playing there is nothing for the loop to do
 * meanwhile: 0, the log syncs in the loop.
 */
static uint64_t
refd_sync_ask(void *arg, struct db_match *m)
{
	return m == NULL || match_playing() > 1 ? logsync_request(arg) : 0;
}

/*
 * Sync the write-ahead log after a match's end on a thread of its own
 * (logsync.c), so that the end holds up its own match, not the loop.  A
 * log in memory has nothing to sync; if no thread can be had, the loop
 * syncs.
 */
static void
refd_syncer(void)
{
	char	 wal[sizeof(conf.db_path) + 8], err[256];

	if (!db_has_file(logdb))
		return;
	snprintf(wal, sizeof(wal), "%s-wal", conf.db_path);
	if ((syncer = logsync_new(base, wal, refd_log_synced, NULL, err,
	    sizeof(err))) == NULL) {
		log_warnx("log sync thread: %s; syncing in the loop", err);
		return;
	}
	db_group_async(logdb, refd_sync_ask, syncer);
}

static void
refd_ckpt_ask(void *arg)
{
	ckpt_request(arg);
}

static void
refd_ckpt_done(void *arg, const char *why)
{
	(void)arg;
	if (why != NULL)
		log_warnx("log checkpoint: %s", why);
	db_ckpt_done(logdb);
}

/*
 * Make the log's checkpoints on a thread of their own (ckpt.c), the loop
 * copying only what they leave; if no thread can be had, the loop makes
 * them.
 */
static void
refd_checkpointer(void)
{
	char	 err[512];

	db_ckpt_pages(logdb, conf.ckpt_pages);
	if (!db_has_file(logdb))
		return;
	if ((ckpter = ckpt_new(base, conf.db_path, refd_ckpt_done, NULL, err,
	    sizeof(err))) == NULL) {
		log_warnx("log checkpoint thread: %s; checkpoints in the loop",
		    err);
		return;
	}
	db_ckpt_async(logdb, refd_ckpt_ask, ckpter);
}

/*
 * Load (or, on the first start, create) the key refd signs the log's
 * heads with: FILE.key beside the log FILE; a log in memory gets a key
 * that lives as long as it does.
 */
static void
refd_key(void)
{
	uint8_t	 sk[KEY_SECRETLEN], pk[32];
	char	 path[sizeof(conf.db_path) + 8], err[512];

	if (strcmp(conf.db_path, ":memory:") == 0)
		crypto_sign_keypair(pk, sk);
	else {
		snprintf(path, sizeof(path), "%s.key", conf.db_path);
		if (key_load(path, sk, err, sizeof(err)) == -1)
			fatalx("%s", err);
	}
	if (db_set_key(logdb, sk) == -1)
		fatalx("%s: %s", conf.db_path, db_error(logdb));
	sodium_memzero(sk, sizeof(sk));
}

int
main(int argc, char *argv[])
{
	struct event	*sigs[3];
	struct event_config *cfg;
	struct timeval	 chunk = { 0, REFD_CHUNK_MS * 1000 };
	struct match	*m;
	char		 err[512];
	long long	 n64;
	int		 ch, daemonize = 0, verbose = 0, i, n, k, lockfd = -1;
	pid_t		 pid;
	const int	 signos[3] = { SIGTERM, SIGINT, SIGCHLD };
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'C' },
		{ "worker", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 }
	};

	snprintf(conf.db_path, sizeof(conf.db_path), "refd.db");
	snprintf(conf.ctl_path, sizeof(conf.ctl_path), "refd.sock");
	conf.move_ms = (int)mset_default(MSET_MOVE_MS);
	conf.bank_ms = (int)mset_default(MSET_BANK_MS);
	conf.startup_ms = (int)mset_default(MSET_STARTUP_MS);
	conf.max_conns = 4096;
	conf.botlog_max_mb = 1024;
	conf.auth_ms = 10000;
	conf.max_unauth = 256;
	conf.max_per_addr = 32;
	conf.ctl_idle_ms = 60000;
	conf.commit_ms = 25;	/* PERFORMANCE.md, issue 35 */
	conf.ckpt_pages = DB_CKPT_PAGES;
	conf.keep_matches = 1000;
	conf.http_max_conns = HTTP_MAX_CONNS;
	conf.http_max_per_addr = HTTP_MAX_PER_ADDR;
	conf.cluster_batch_ms = 60000;
	log_init("refd", 1, 0);
	/* before anything secret is in memory */
	if (harden_self() == -1)
		fatal("prctl PR_SET_DUMPABLE");
	if (bri_init() != BRI_OK)
		fatalx("cannot initialise libsodium");

	while ((ch = getopt_long(argc, argv, "c:D:df:hL:l:m:s:vw:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'C':
			if ((size_t)snprintf(conf.cluster, sizeof(conf.cluster),
			    "%s", optarg) >= sizeof(conf.cluster))
				fatalx("--cluster: too long");
			break;
		case 'W':
			if (!util_name_ok(optarg))
				fatalx("--worker: a name of 1 to 32 letters, "
				    "digits, _ . or -");
			snprintf(conf.worker, sizeof(conf.worker), "%s",
			    optarg);
			break;
		case 'c':
			snprintf(conf.ctl_path, sizeof(conf.ctl_path), "%s",
			    optarg);
			break;
		case 'D':
			snprintf(conf.db_path, sizeof(conf.db_path), "%s",
			    optarg);
			break;
		case 'd':
			daemonize = 1;
			break;
		case 'f':
			conf_read(optarg);
			break;
		case 'h':
			usage(0);
		case 'L':
			snprintf(conf.botlog_dir, sizeof(conf.botlog_dir), "%s",
			    optarg);
			break;
		case 'l':
			if (conf_listen(&conf, optarg, err, sizeof(err)) == -1)
				fatalx("%s", err);
			break;
		case 'm':
		case 's':
			/* as refd.conf's move_ms and startup_ms lines */
			k = ch == 'm' ? MSET_MOVE_MS : MSET_STARTUP_MS;
			if (mset_value(k, optarg, &n64, NULL, err,
			    sizeof(err)) == -1)
				fatalx("-%c: %s", ch, err);
			conf_default(&conf, k, n64);
			break;
		case 'v':
			verbose++;
			break;
		case 'w':
			if (conf_http(&conf, optarg, err, sizeof(err)) == -1)
				fatalx("%s", err);
			break;
		default:
			usage(1);
		}
	}
	if (optind != argc)
		usage(1);
	if ((conf.cluster[0] != '\0') != (conf.worker[0] != '\0'))
		fatalx("a cluster's worker needs both --cluster and --worker "
		    "(cluster and worker in refd.conf)");
	log_init("refd", !daemonize, verbose);
	/* the log and the bots' stderr hold every hand: private to refd */
	umask(077);

	/*
	 * one refd to a log: a second one is refused before it writes a
	 * thing, the first one's matches untouched
	 */
	if (strcmp(conf.db_path, ":memory:") != 0 &&
	    (lockfd = pidlock_take(conf.db_path, err, sizeof(err))) == -1)
		fatalx("%s: %s", conf.db_path, err);
	if ((logdb = db_open(conf.db_path, 0, err, sizeof(err))) == NULL)
		fatalx("%s: %s", conf.db_path, err);
	/* a log refd cannot write is refused now, not at the first match */
	if (!db_writable(logdb) || db_own_keys(logdb) == -1)
		fatalx("%s: %s", conf.db_path, db_error(logdb));
	refd_key();
	/* the bots added at run time, kept beside the log */
	if (strcmp(conf.db_path, ":memory:") != 0) {
		char	 bpath[sizeof(conf.db_path) + 8];

		snprintf(bpath, sizeof(bpath), "%s.bots", conf.db_path);
		if (bots_store(bpath, err, sizeof(err)) == -1)
			fatalx("%s", err);
	}
	if (db_abort_unfinished(logdb, "refd restarted", &n) == -1)
		fatalx("%s: %s", conf.db_path, db_error(logdb));
	if (n > 0)
		log_warnx("%d unfinished match%s marked aborted", n,
		    n == 1 ? "" : "es");

	if (daemonize && daemon(1, 0) == -1)
		fatal("daemon");
	if (daemonize && lockfd != -1)
		pidlock_mark(lockfd);	/* the lock is the daemon's now */
	{
		struct rlimit rl;

		/* each bot costs a descriptor or three: take what we may */
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	spawn_limits(conf.bot_cpu_s, conf.bot_mem_mb);
	bots_setup();
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);	/* no reload: a lost terminal changes nothing */
	if ((cfg = event_config_new()) == NULL)
		fatalx("event_config_new");
	event_config_set_max_dispatch_interval(cfg, &chunk, -1, PRI_SEAT);
	clock_config(cfg);	/* arrivals to the microsecond */
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	/* new events get PRI_COUNT / 2, PRI_CTL */
	if (base == NULL || event_base_priority_init(base, PRI_COUNT) == -1)
		fatalx("event_base_new");
	/* the writes of one or more passes: one commit (DURABILITY) */
	db_group_mode(logdb, seat_flush_soon,
	    match_log_lost);
	db_group_window(logdb, (int64_t)conf.commit_ms * 1000);
	refd_syncer();
	refd_checkpointer();
	if (spawnq_start(base, err, sizeof(err)) == -1)
		fatalx("bot spawner: %s", err);
	/* news travels up through the callbacks each layer is given */
	seat_on_ready(match_remote_ready);
	seat_on_free(match_slot_freed);
	match_observe(ctl_match_event, ctl_match_done);
	match_observe(NULL, tourney_match_done);
	match_observe(NULL, worker_match_done);
	tourney_observe(ctl_tourney_done);
	tourney_observe_drawn(ctl_tourney_drawn);
	for (i = 0; i < 3; i++) {
		sigs[i] = evsignal_new(base, signos[i], on_signal, NULL);
		evsignal_add(sigs[i], NULL);
	}
	if (ctl_listen(conf.ctl_path) == -1)
		exit(1);
	if (conf.listen_host[0] != '\0' && bot_listen() == -1)
		exit(1);
	if (conf.http_host[0] != '\0') {
		if (site_start(err, sizeof(err)) == -1)
			fatalx("%s", err);
		log_info("web site on http://%s:%d/", conf.http_host,
		    http_port());
	}
	log_info("refd %s: log %s, control %s", REFD_VERSION, conf.db_path,
	    conf.ctl_path);
	if (clock_start(base) == -1)
		fatalx("heartbeat: out of memory");
	tourney_resume_all();
	if (conf.cluster[0] != '\0' &&
	    worker_start(conf.cluster, conf.worker, err, sizeof(err)) == -1)
		fatalx("%s", err);

	event_base_dispatch(base);

	ctl_close();
	site_stop();
	spawnq_stop();		/* the seats of bots starting hear their pids */
	seat_shutdown_all();
	while ((m = TAILQ_FIRST(&matches)) != NULL)
		match_free(m);
	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		spawn_reaped(pid);
	spawn_cleanup();	/* the bots' memory cgroups, refd's own */
	/* let the scheduled frees run */
	event_base_loop(base, EVLOOP_NONBLOCK);
	for (i = 0; i < 3; i++)
		event_free(sigs[i]);
	tourney_free_all();
	worker_free();
	clock_stop();
	bots_free();
	/* a match whose end the log refused (a full disk) ends in it now */
	if (db_abort_unfinished(logdb, "its end could not be logged", &n) ==
	    -1)
		log_warnx("%s: %s", conf.db_path, db_error(logdb));
	guard_free();
	/* what is left is committed and synced here, by db_close() */
	db_group_async(logdb, NULL, NULL);
	logsync_free(syncer);
	db_ckpt_async(logdb, NULL, NULL);
	ckpt_free(ckpter);
	db_close(logdb);
	event_base_free(base);
	return 0;
}
