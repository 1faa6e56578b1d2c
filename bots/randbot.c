/*
 * randbot.c: a refd bot that plays a uniformly random card from its hand.
 *
 * The smallest complete engine for refd-protocol(7): it answers the
 * standard GTP commands, acknowledges every game notification with an
 * empty success and answers genplay with one card of the hand it is
 * given; in chiamata5's auction it passes or names the next weaker rank,
 * at random, and names a random suit.  It needs nothing but stdio and
 * read(2): its answers wait in stdout's buffer until every whole line
 * read so far is answered, so that commands refd sent in one write (a
 * turn's notifications and its genplay) are answered in one write.
 *
 * Run:		bots/randbot [-s seed] [-r file] [-t ms]
 * With -s the choices depend only on the seed, so a match replays
 * exactly; without it the seed comes from the process id and the clock.
 * With -r every line received is appended to file as received, and each
 * answer after it as "> " and the answer without its id: the transcript
 * that, with the receipt in its match_end line, refctl verify-receipt
 * holds the log to.  With -t it thinks ms milliseconds before each card
 * it plays, asleep: a slow bot that costs no CPU, for benchmarks of
 * many matches at once (bench/cluster.py).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINEMAX		4096	/* refd never sends a longer line */
#define MAXARGS		64

static const char *commands[] = {
	"bid", "called", "deal_end", "deal_start", "draw", "genbid", "gencall",
	"genplay", "joker", "known_command", "list_commands", "match_end",
	"match_start", "name", "partner", "partner_hand", "play",
	"protocol_version", "quit", "trick", "version", NULL
};
/* The auction's ranks from the strongest down; "-" before the first. */
static const char *ranks[] = {
	"-", "1", "3", "10", "9", "8", "7", "6", "5", "4", "2", NULL
};

static uint64_t	rngstate;
static FILE	*record;	/* -r: the transcript, or NULL */

/* Next number from splitmix64: the same sequence on every platform. */
static uint64_t
rng_next(void)
{
	uint64_t z = (rngstate += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Is name one of the commands this bot knows? */
static int
known(const char *name)
{
	int	 i;

	for (i = 0; commands[i] != NULL; i++)
		if (strcmp(commands[i], name) == 0)
			return 1;
	return 0;
}

/* Print one answer, '=' or '?', with the command's id and a blank line. */
static void
answer(char kind, const char *id, const char *text)
{
	printf("%c%s%s%s\n\n", kind, id, *text != '\0' ? " " : "", text);
	if (record != NULL) {
		fprintf(record, "> %c%.*s\n", kind, (int)strcspn(text, "\n"),
		    text);
		fflush(record);
	}
}

/* n bytes of s into line (len bytes), cut to fit, and a NUL. */
static void
cut(char *line, size_t len, const char *s, size_t n)
{
	if (n > len - 1)
		n = len - 1;
	memcpy(line, s, n);
	line[n] = '\0';
}

/*
 * The next line of standard input, newline kept, in line (len bytes; a
 * longer line is cut there and the rest of it dropped), or NULL at end of
 * file.  stdout is flushed only before a read, when no whole line is
 * left: until then the answers wait for the ones after them.
 */
static char *
readline(char *line, size_t len)
{
	static char	 buf[2 * LINEMAX];
	static size_t	 have;
	static int	 skip;	/* in the rest of an over-long line */
	char		*nl;
	size_t		 n, was;
	ssize_t		 r;

	for (;;) {
		nl = memchr(buf, '\n', have);
		if (nl != NULL || have == sizeof(buf)) {
			n = nl != NULL ? (size_t)(nl - buf) + 1 : have;
			if ((was = skip) == 0)
				cut(line, len, buf, n);
			skip = nl == NULL;
			memmove(buf, buf + n, have - n);
			have -= n;
			if (!was)
				return line;
			continue;
		}
		if (fflush(stdout) == EOF)
			return NULL;
		if ((r = read(STDIN_FILENO, buf + have, sizeof(buf) - have)) ==
		    -1 && errno == EINTR)
			continue;
		if (r > 0) {
			have += (size_t)r;
			continue;
		}
		/* end of file: a last line without its newline still counts */
		if (have == 0 || skip)
			return NULL;
		cut(line, len, buf, have);
		have = 0;
		return line;
	}
}

/* Answer each command on stdin until quit or end of file. */
int
main(int argc, char *argv[])
{
	int	 think_ms = 0;

	char	 line[LINEMAX + 2], list[512], *av[MAXARGS], *p, *id;
	int	 ac, c, i;

	rngstate = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	while ((c = getopt(argc, argv, "s:r:t:")) != -1) {
		if (c == 's')
			rngstate = strtoull(optarg, NULL, 10);
		else if (c == 't')
			think_ms = atoi(optarg);
		else if (c == 'r' && (record = fopen(optarg, "a")) == NULL) {
			perror(optarg);
			return 2;
		} else if (c != 'r') {
			fprintf(stderr, "usage: randbot [-s seed] [-r file] "
			    "[-t ms]\n");
			return 2;
		}
	}
	while (readline(line, sizeof(line)) != NULL) {
		if (record != NULL) {
			fprintf(record, "%.*s\n", (int)strcspn(line, "\r\n"),
			    line);
			fflush(record);
		}
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		ac = 0;
		for (p = strtok(line, " \t\r\n"); p != NULL && ac < MAXARGS;
		    p = strtok(NULL, " \t\r\n"))
			av[ac++] = p;
		if (ac == 0)
			continue;		/* blank line or comment */
		id = "";
		if (strspn(av[0], "0123456789") == strlen(av[0])) {
			id = av[0];
			if (--ac == 0)
				continue;
			memmove(av, av + 1, ac * sizeof(av[0]));
		}
		if (strcmp(av[0], "protocol_version") == 0)
			answer('=', id, "2");
		else if (strcmp(av[0], "name") == 0)
			answer('=', id, "randbot");
		else if (strcmp(av[0], "version") == 0)
			answer('=', id, "1.0");
		else if (strcmp(av[0], "known_command") == 0)
			answer('=', id, ac > 1 && known(av[1]) ? "true" : "false");
		else if (strcmp(av[0], "list_commands") == 0) {
			list[0] = '\0';
			for (i = 0; commands[i] != NULL; i++) {
				strcat(list, commands[i]);
				strcat(list, commands[i + 1] != NULL ? "\n" : "");
			}
			answer('=', id, list);
		} else if (strcmp(av[0], "quit") == 0) {
			answer('=', id, "");
			return 0;
		} else if (strcmp(av[0], "genplay") == 0) {
			if (think_ms > 0) {
				struct timespec ts = { think_ms / 1000,
				    (long)(think_ms % 1000) * 1000000 };

				while (nanosleep(&ts, &ts) == -1)
					;
			}
			if (ac < 3)
				answer('?', id, "no cards in hand");
			else
				answer('=', id, av[2 + rng_next() % (ac - 2)]);
		} else if (strcmp(av[0], "genbid") == 0) {
			/* pass, or the rank just weaker than the last named */
			for (i = 0; ranks[i] != NULL && (ac < 3 ||
			    strcmp(ranks[i], av[2]) != 0); i++)
				;
			answer('=', id, ranks[i] == NULL || ranks[i + 1] ==
			    NULL || rng_next() % 2 ? "pass" : ranks[i + 1]);
		} else if (strcmp(av[0], "gencall") == 0) {
			list[0] = "CDBS"[rng_next() % 4];
			list[1] = '\0';
			answer('=', id, list);
		} else if (known(av[0]))
			answer('=', id, "");
		else
			answer('?', id, "unknown command");
	}
	return 0;
}
