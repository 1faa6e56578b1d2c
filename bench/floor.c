/*
 * floor: the cost of a request and its answer between two processes,
 * with nothing else: the floor under any referee.
 *
 * usage: floor [-h] [-c cpus] [-n roundtrips] [-p pairs] [-r reps]
 *     [-t transport]
 *
 * Each pair is a "referee" process and a "bot" process joined by one
 * channel: two pipes (pipe, what refd gives a spawned bot), a Unix
 * socketpair (unix) or a loopback TCP connection with TCP_NODELAY (tcp,
 * what a remote bot has).  The referee sends a command of refd's size and
 * waits for the whole answer before it sends the next: one round trip.
 * The commands cycle through one genplay and five notifications, the mix
 * of a joker3 deal ("12 genplay 5000 3S 10D 1B" answered "=12 10D" and
 * an empty line, "13 play 1 10D" answered "=13" and an empty line).  The
 * bot reads what is there, answers every whole line in one write, as a
 * quick bot does.  All pairs start together; the time is from the start
 * to the exit of the last process.  With -c same every process runs on
 * CPU 0; with -c split referees on CPU 0 and bots on CPU 1; by default
 * the scheduler places them.  On a virtual machine a round trip between
 * two CPUs can cost ten times one on a single CPU (a sleeping CPU must be
 * woken), so the three tell apart what the placement costs.
 *
 * Prints the settings, then one line per repetition:
 *	rep R TRANSPORT PAIRS ROUNDTRIPS SECONDS RT/S US/RT REFCPU BOTCPU
 * where ROUNDTRIPS counts every pair's, US/RT is the wall time of one
 * round trip of one pair, and REFCPU and BOTCPU the CPU time (user and
 * system) the referees and the bots spent per round trip, in us: what a
 * referee that does nothing else cannot spend less than.  A benchmark, not a test: make check never
 * runs it.
 */
#define _GNU_SOURCE		/* sched_setaffinity(2) */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define DEFAULT_RT	20000	/* round trips per pair */
#define DEFAULT_PAIRS	1
#define DEFAULT_REPS	3
#define MAXPAIRS	1024
#define BUFLEN		8192

enum transport { T_PIPE, T_UNIX, T_TCP };
enum cpus { C_ANY, C_SAME, C_SPLIT };

static enum cpus	 placement = C_ANY;

/* One channel: what each side reads and writes. */
struct chan {
	int	 ref_rd, ref_wr;	/* the referee's ends */
	int	 bot_rd, bot_wr;	/* the bot's ends */
};

/* The commands of one cycle, as refd writes them after "ID ". */
static const char *const cycle[] = {
	"genplay 5000 3S 10D 1B",
	"play 1 10D",
	"play 2 9S",
	"play 0 1C",
	"trick 0 10",
	"draw 8S",
};
#define NCYCLE	(sizeof(cycle) / sizeof(cycle[0]))

static void	 usage(int) __attribute__((noreturn));
static void	 die(const char *);
static void	 chan_open(enum transport, struct chan *, int);
static void	 ref_loop(int, int, long);
static void	 bot_loop(int, int);
static void	 ends_close(int, int);
static void	 pin(int);
static double	 run(enum transport, int, long, double *);

/* Print usage, to stdout for -h and to stderr otherwise, and exit. */
static void
usage(int status)
{
	fprintf(status == 0 ? stdout : stderr,
	    "usage: floor [-h] [-c cpus] [-n roundtrips] [-p pairs] "
	    "[-r reps]\n             [-t transport]\n"
	    "  -c cpus        any, same (all on CPU 0) or split (bots on "
	    "CPU 1)\n"
	    "  -n roundtrips  per pair (default %d)\n"
	    "  -p pairs       concurrent pairs (default %d)\n"
	    "  -r reps        repetitions (default %d)\n"
	    "  -t transport   pipe, unix or tcp (default unix)\n",
	    DEFAULT_RT, DEFAULT_PAIRS, DEFAULT_REPS);
	exit(status);
}

/* A system call failed where the benchmark cannot go on. */
static void
die(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * Open the channel of one pair.  For tcp, l is a listening socket on
 * loopback; both ends get TCP_NODELAY, as refd's seats and bots do.
 */
static void
chan_open(enum transport t, struct chan *c, int l)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	int			 p1[2], p2[2], one = 1, a, b;

	switch (t) {
	case T_PIPE:
		if (pipe(p1) == -1 || pipe(p2) == -1)
			die("pipe");
		c->ref_wr = p1[1];
		c->bot_rd = p1[0];
		c->bot_wr = p2[1];
		c->ref_rd = p2[0];
		return;
	case T_UNIX:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, p1) == -1)
			die("socketpair");
		c->ref_rd = c->ref_wr = p1[0];
		c->bot_rd = c->bot_wr = p1[1];
		return;
	case T_TCP:
		if (getsockname(l, (struct sockaddr *)&sin, &len) == -1)
			die("getsockname");
		if ((a = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			die("socket");
		if (connect(a, (struct sockaddr *)&sin, sizeof(sin)) == -1)
			die("connect");
		if ((b = accept(l, NULL, NULL)) == -1)
			die("accept");
		setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->ref_rd = c->ref_wr = a;
		c->bot_rd = c->bot_wr = b;
		return;
	}
}

/* The referee: n commands, each answered in full before the next. */
static void
ref_loop(int rd, int wr, long n)
{
	char	 out[128], in[BUFLEN];
	size_t	 have;
	ssize_t	 r;
	long	 i;
	int	 len;

	for (i = 0; i < n; i++) {
		len = snprintf(out, sizeof(out), "%ld %s\n", i + 1,
		    cycle[i % NCYCLE]);
		if (write(wr, out, (size_t)len) != len)
			die("referee write");
		have = 0;
		do {
			r = read(rd, in + have, sizeof(in) - have);
			if (r <= 0)
				die("referee read");
			have += (size_t)r;
		} while (have < 2 || in[have - 1] != '\n' ||
		    in[have - 2] != '\n');
	}
}

/*
 * The bot: answer every whole line read, all in one write; genplay gets
 * a card of the hand, picked by a xorshift generator, the rest "=ID".
 */
static void
bot_loop(int rd, int wr)
{
	char		 in[BUFLEN], out[BUFLEN], *line, *nl, *w[8];
	size_t		 have = 0, used;
	ssize_t		 r;
	uint64_t	 x = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	int		 nw, len;

	for (;;) {
		r = read(rd, in + have, sizeof(in) - have - 1);
		if (r == 0)
			return;
		if (r < 0)
			die("bot read");
		have += (size_t)r;
		len = 0;
		used = 0;
		while ((nl = memchr(in + used, '\n', have - used)) != NULL) {
			*nl = '\0';
			line = in + used;
			used = (size_t)(nl - in) + 1;
			for (nw = 0; nw < 8 &&
			    (w[nw] = strsep(&line, " ")) != NULL; nw++)
				;
			if (nw >= 4 && strcmp(w[1], "genplay") == 0) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				len += snprintf(out + len, sizeof(out) - len,
				    "=%s %s\n\n", w[0],
				    w[3 + (int)(x % (uint64_t)(nw - 3))]);
			} else
				len += snprintf(out + len, sizeof(out) - len,
				    "=%s\n\n", w[0]);
		}
		memmove(in, in + used, have - used);
		have -= used;
		if (len > 0 && write(wr, out, (size_t)len) != len)
			die("bot write");
	}
}

/* Close one side's ends: one descriptor or two. */
static void
ends_close(int rd, int wr)
{
	close(rd);
	if (wr != rd)
		close(wr);
}

/* Put this process on the CPU -c asks for, for a referee (0) or a bot. */
static void
pin(int bot)
{
	cpu_set_t	 set;

	if (placement == C_ANY)
		return;
	CPU_ZERO(&set);
	CPU_SET(placement == C_SPLIT && bot ? 1 : 0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == -1)
		die("sched_setaffinity");
}

/* A child's CPU time, user and system, in seconds. */
static double
cpu_of(const struct rusage *ru)
{
	return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
	    (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

/*
 * Run pairs pairs of n round trips each; returns the wall seconds, and
 * in cpu[0] and cpu[1] the CPU seconds of the referees and of the bots.
 */
static double
run(enum transport t, int pairs, long n, double *cpu)
{
	static struct chan	 ch[MAXPAIRS];
	static pid_t		 pids[2 * MAXPAIRS];
	struct sockaddr_in	 sin;
	struct rusage		 ru;
	double			 t0;
	char			 c;
	int			 go[2], i, j, l = -1, status, bad = 0;
	pid_t			 pid;

	if (t == T_TCP) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if ((l = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			die("socket");
		if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
		    listen(l, MAXPAIRS) == -1)
			die("listen");
	}
	for (i = 0; i < pairs; i++)
		chan_open(t, &ch[i], l);
	if (l != -1)
		close(l);
	if (pipe(go) == -1)
		die("pipe");
	for (i = 0; i < 2 * pairs; i++) {
		if ((pid = fork()) == -1)
			die("fork");
		if ((pids[i] = pid) != 0)
			continue;
		close(go[1]);
		/* keep only this process's ends, so EOF reaches the bot */
		for (j = 0; j < pairs; j++) {
			if (j != i / 2 || i % 2 == 1)
				ends_close(ch[j].ref_rd, ch[j].ref_wr);
			if (j != i / 2 || i % 2 == 0)
				ends_close(ch[j].bot_rd, ch[j].bot_wr);
		}
		pin(i % 2);
		if (read(go[0], &c, 1) == -1)
			_exit(1);
		if (i % 2 == 0) {
			ref_loop(ch[i / 2].ref_rd, ch[i / 2].ref_wr, n);
			shutdown(ch[i / 2].ref_wr, SHUT_WR);
		} else
			bot_loop(ch[i / 2].bot_rd, ch[i / 2].bot_wr);
		_exit(0);
	}
	for (j = 0; j < pairs; j++) {
		ends_close(ch[j].ref_rd, ch[j].ref_wr);
		ends_close(ch[j].bot_rd, ch[j].bot_wr);
	}
	close(go[0]);
	t0 = bench_now();
	close(go[1]);		/* every process starts now */
	cpu[0] = cpu[1] = 0;
	while ((pid = wait4(-1, &status, 0, &ru)) != -1 || errno == EINTR) {
		if (pid == -1)
			continue;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bad = 1;
		for (i = 0; i < 2 * pairs && pids[i] != pid; i++)
			;
		if (i < 2 * pairs)
			cpu[i % 2] += cpu_of(&ru);
	}
	if (bad) {
		fprintf(stderr, "floor: a pair failed\n");
		exit(1);
	}
	return bench_now() - t0;
}

/* Parse the options, print the settings, and time each repetition. */
int
main(int argc, char *argv[])
{
	static const char *const names[] = { "pipe", "unix", "tcp" };
	static const char *const cpunames[] = { "any", "same", "split" };
	enum transport	 t = T_UNIX;
	double		 s, cpu[2], rt;
	long		 n = DEFAULT_RT;
	int		 ch, pairs = DEFAULT_PAIRS, reps = DEFAULT_REPS, r;

	while ((ch = getopt(argc, argv, "c:hn:p:r:t:")) != -1) {
		switch (ch) {
		case 'c':
			for (placement = C_ANY; placement <= C_SPLIT;
			    placement++)
				if (strcmp(optarg, cpunames[placement]) == 0)
					break;
			if (placement > C_SPLIT) {
				fprintf(stderr, "floor: %s: any, same or "
				    "split\n", optarg);
				exit(2);
			}
			break;
		case 'n':
			n = bench_number("floor",
			    optarg, "round trips", 1, 100000000);
			break;
		case 'p':
			pairs = (int)bench_number("floor",
			    optarg, "pairs", 1, MAXPAIRS);
			break;
		case 'r':
			reps = (int)bench_number("floor",
			    optarg, "repetitions", 1, 1000);
			break;
		case 't':
			for (t = T_PIPE; t <= T_TCP; t++)
				if (strcmp(optarg, names[t]) == 0)
					break;
			if (t > T_TCP) {
				fprintf(stderr, "floor: %s: pipe, unix or "
				    "tcp\n", optarg);
				exit(2);
			}
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	signal(SIGPIPE, SIG_IGN);
	printf("floor     request/answer round trips between two "
	    "processes\n");
	printf("settings  transport=%s pairs=%d roundtrips/pair=%ld "
	    "reps=%d cpus=%s\n", names[t], pairs, n, reps,
	    cpunames[placement]);
	printf("cores     %ld online\n", sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);
	for (r = 0; r < reps; r++) {
		s = run(t, pairs, n, cpu);
		rt = (double)(n * pairs);
		printf("rep %d %s %d %ld %.6f %.0f %.3f %.3f %.3f\n", r + 1,
		    names[t], pairs, n * pairs, s, rt / s,
		    s / (double)n * 1e6, cpu[0] / rt * 1e6, cpu[1] / rt * 1e6);
		fflush(stdout);
	}
	return 0;
}
