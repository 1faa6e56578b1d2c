/*
 * refctl-checkbot.c: refctl checkbot, the first tool a bot author runs.
 *
 * It needs no refd: it starts the bot itself with spawn_bot() and talks
 * to it with plain non-blocking descriptors and poll(2) deadlines.
 * First come probes of GTP's standard commands and of the framing every
 * bot must tolerate (comments, blank lines, CR LF, pipelining).  Then,
 * for each variant, a few deals of a real match through libbriscola, the
 * bot in one seat and built-in random players in the others: the bot
 * receives exactly the lines refd would send its seat, built by botproto
 * from the seat's bri_view, in match.c's order, with notifications held
 * for its next command and written with it, as refd holds them by
 * default (notify=lazy): a bot that takes one line per read fails here
 * as it would under refd.  With -e each is written at once, as under
 * notify=eager.
 *
 * Every answer is judged as seat.c and match.c judge it, and every
 * problem is printed with the offending line and the command it
 * answered.  A failed genplay costs the fallback card, as under refd's
 * fallback policy, so that the match goes on and later problems show
 * too; a variant stops at the bot's end of file, at a timeout or after
 * CK_MAXPROBLEMS problems, and the next one starts a fresh bot.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "botproto.h"
#include "briscola.h"
#include "gtp.h"
#include "log.h"
#include "mset.h"
#include "refctl.h"
#include "spawn.h"
#include "util.h"

#define CK_MAXPEND	256	/* unanswered commands, as SEAT_MAXPEND */
#define CK_MAXPROBLEMS	20	/* problems before a variant is given up */
#define CK_MAXRESTARTS	3	/* bots lost during the probes, then skip */
#define CK_QUIT_MS	1000	/* to exit after quit, as refd allows */
#define CK_REAP_MS	500	/* to exit after closing its output */
#define CK_BLANK_MS	500	/* from an answer's first line to its end */
#define CK_SEED		"1234567"	/* the default seed, as a number */
#define CK_BOTNAME	"checked"	/* the bot's name at the table */
#define CK_CMDLEN	(BOTPROTO_MAXLINE + 16)	/* a command with its id */

/* What a command's answer must be. */
enum ck_kind {
	CK_HELLO,		/* name, version: any answer, startup_ms */
	CK_KNOWN,		/* known_command before a match: 'true' */
	CK_NOTE,		/* a notification: any answer will do */
	CK_GENPLAY,		/* a move: a card of the hand, in time */
	CK_GENBID,		/* chiamata5: a legal call, in time */
	CK_GENCALL,		/* chiamata5: a suit, in time */
	CK_PROBE,		/* a probe: its check function judges */
	CK_QUIT			/* quit: then the bot exits */
};

/* A check of a probe's answer text: NULL if right, else what is wrong. */
typedef const char *(*ck_check)(int, const char *);

/* One command sent and not yet (wholly) answered. */
struct ck_cmd {
	unsigned	 id;		/* the id sent */
	enum ck_kind	 kind;
	ck_check	 check;		/* CK_PROBE: judges the answer */
	int		 limit_ms;	/* its answer is due within this */
	int64_t		 sent_us;	/* when it was queued */
	char		 text[CK_CMDLEN]; /* as sent, id included */
	char		 ctx[64];	/* what was being checked then */
};

/* The answer being read, from its first line to its blank line. */
struct ck_answer {
	struct ck_cmd	 cmd;		/* the command it answers */
	int		 ok;		/* '=' rather than '?' */
	int		 lineno;	/* its first line's number */
	char		 first[GTP_MAXLINE + 1]; /* that line, raw */
	size_t		 firstlen;
	char		 text[GTP_MAXLINE + 1];	/* cleaned, lines joined */
	size_t		 textlen;
	int64_t		 first_us;	/* when its first line came */
	int		 faulty;	/* a wrong id or an over-long line */
	int		 toolong;	/* over the cap in all: said once */
};

/* One run of the bot: a process and its framing state. */
struct ck_bot {
	pid_t		 pid;		/* also its process group */
	struct spawn_fds fds;		/* stdin, stdout; stderr dropped */
	char		 errtail[512];	/* the end of its stderr */
	size_t		 errlen;
	char		*out;		/* bytes queued, not yet written */
	size_t		 outlen, outsize;
	char		 line[GTP_MAXLINE + 2];	/* the line being read */
	size_t		 linelen;	/* bytes kept of it */
	size_t		 linetotal;	/* its length, past the cap too */
	int		 lastcr;	/* its last byte was a CR */
	int		 lineno;	/* lines read so far */
	int		 said;		/* it wrote anything at all */
	unsigned	 next_id;
	struct ck_cmd	 pend[CK_MAXPEND];	/* ring of unanswered */
	int		 phead, npend;
	unsigned	 stolen;	/* a command a wrong id answered */
	int		 in_answer;	/* reading an answer's lines */
	int		 orphan;	/* ... that answers no command */
	struct ck_answer ans;
	int		 reaped;	/* waitpid told its status */
	int		 status;
	int		 dead;		/* the run is over: EOF, timeout */
	int		 closed;	/* and its process is gone */
	int		 quitted;	/* quit was answered */
	int		 answered;	/* the awaited genplay was answered */
	bri_card	 card;		/* its card, BRI_NOCARD if it failed */
	int		 choice;	/* genbid's rank or gencall's suit,
					   or -1 if it failed */
	int		 problems;	/* in this run */
	int		 nanswers;	/* answers read whole */
};

/* The whole check: options, the game in play, counters. */
struct ck_state {
	char		**argv;		/* the bot's command */
	int		 move_ms;
	int		 note_ms;	/* refd's NOTE_MS */
	int		 startup_ms;	/* the first command: twice move_ms */
	int		 heard;		/* some run's bot wrote anything */
	int		 mute;		/* a run's bot wrote nothing: stop */
	int		 ndeals;
	const char	*seedarg;	/* as given, for the header */
	struct bri_seed	 seed;
	int		 verbose;
	int		 eager;		/* -e: notifications at once */
	int		 spawnfail;	/* the command could not be run */
	char		 ctx[64];	/* what is being checked, for FAIL */
	int		 in_variant;	/* cap problems and stop the run */
	struct bri_match m;		/* the match in play */
	int		 seat;		/* the bot's seat in it */
	uint64_t	 rng;		/* the random players' state */
	int		 checks, problems;
	int		 ngen, nnote;	/* answers timed */
	int64_t		 gen_us, gen_max, note_us, note_max;
};

static struct ck_state	 ck;

static void	ck_transcript(const char *, const char *, size_t);
static void	ck_problem(struct ck_bot *, const struct ck_cmd *,
		    const char *, ...) __attribute__((format(printf, 3, 4)));
static const struct ck_cmd *ck_current(const struct ck_bot *);
static const char *ck_quote(char *, size_t, const char *, size_t);
static const char *ck_cmdref(char *, size_t, const struct ck_cmd *);
static const char *ck_lineref(char *, size_t, int, const char *, size_t);
static int	ck_spawn(struct ck_bot *);
static void	ck_close(struct ck_bot *, int);
static void	ck_queue_raw(struct ck_bot *, const char *, size_t);
static unsigned	ck_queue(struct ck_bot *, enum ck_kind, ck_check, int,
		    const char *, const char *);
static int	ck_grace_ms(int);
static int64_t	ck_deadline(const struct ck_bot *);
static void	ck_timeout(struct ck_bot *);
static void	ck_pump(struct ck_bot *, int);
static void	ck_wait_all(struct ck_bot *);
static void	ck_write(struct ck_bot *);
static void	ck_read(struct ck_bot *);
static void	ck_stderr(struct ck_bot *);
static void	ck_eof(struct ck_bot *);
static const char *ck_how(struct ck_bot *, char *, size_t);
static void	ck_line(struct ck_bot *);
static void	ck_answer_start(struct ck_bot *, long, int, const char *,
		    const char *, size_t);
static void	ck_answer_line(struct ck_bot *, const char *);
static void	ck_answer_done(struct ck_bot *);
static void	ck_genplay_judge(struct ck_bot *, const struct ck_answer *);
static void	ck_choice_judge(struct ck_bot *, const struct ck_answer *);
static int	ck_ask(struct ck_bot *, enum botmsg);
static void	ck_auction(struct ck_bot *, int *);

/* The auction's ranks, from the strongest down. */
static const int ck_ranks[10] = { 1, 3, 10, 9, 8, 7, 6, 5, 4, 2 };
static void	ck_pop(struct ck_bot *, struct ck_cmd *);
static int	ck_probes(void);
static int	ck_variant(enum bri_variant);
static void	ck_tell(struct ck_bot *, enum botmsg);
static uint64_t	ck_rand(void);
static int	ck_parse_seed(const char *, struct bri_seed *);
static void	ck_usage(FILE *);

/*
 * Probe checks.  Each gets '=' or '?' and the answer's text, and says
 * what is wrong with them, so that a failure reads as a sentence.
 */

/* protocol_version must be 2: the version of GTP refd speaks. */
static const char *
ck_is_two(int ok, const char *text)
{
	if (!ok)
		return "failed ('?'), expected '2'";
	return strcmp(text, "2") == 0 ? NULL : "answered other than '2'";
}

/* name and version are logged with every match: they must say something. */
static const char *
ck_is_text(int ok, const char *text)
{
	if (!ok)
		return "failed ('?'), expected a text";
	return text[0] != '\0' ? NULL : "answered nothing, expected a text";
}

/* known_command of a command the bot must know. */
static const char *
ck_is_true(int ok, const char *text)
{
	if (!ok)
		return "failed ('?'), expected 'true'";
	return strcmp(text, "true") == 0 ? NULL : "answered other than 'true'";
}

/* known_command of a command nobody knows. */
static const char *
ck_is_false(int ok, const char *text)
{
	if (!ok)
		return "failed ('?'), expected 'false'";
	return strcmp(text, "false") == 0 ? NULL :
	    "answered other than 'false'";
}

/* list_commands must name genplay, one command a line. */
static const char *
ck_lists_genplay(int ok, const char *text)
{
	const char	*p = text;
	size_t		 n;

	if (!ok)
		return "failed ('?'), expected the commands, one a line";
	for (;;) {
		n = strcspn(p, "\n");
		if (n == 7 && strncmp(p, "genplay", 7) == 0)
			return NULL;
		if (p[n] == '\0')
			return "does not list genplay";
		p += n + 1;
	}
}

/* An unknown command must fail, or refd could not tell it from a move. */
static const char *
ck_is_failure(int ok, const char *text)
{
	(void)text;
	return ok ? "answered '=' to an unknown command, expected '?'" : NULL;
}

/* Probes: what is sent before the commands, and the commands in one write. */
struct ck_probe {
	const char	*name;		/* the check's name in the output */
	const char	*before;	/* raw lines first: comments, blanks */
	const char	*eol;		/* each command's line end */
	int		 show;		/* print the answer's text when ok */
	const char	*cmd[4];	/* sent together */
	ck_check	 check[4];
};

static const struct ck_probe ck_probe_list[] = {
	{ "protocol_version", "", "\n", 0,
	    { "protocol_version" }, { ck_is_two } },
	{ "name", "", "\n", 1, { "name" }, { ck_is_text } },
	{ "version", "", "\n", 1, { "version" }, { ck_is_text } },
	{ "known_command genplay", "", "\n", 0,
	    { "known_command genplay" }, { ck_is_true } },
	{ "known_command no_such_thing", "", "\n", 0,
	    { "known_command no_such_thing" }, { ck_is_false } },
	{ "list_commands", "", "\n", 0, { "list_commands" },
	    { ck_lists_genplay } },
	{ "unknown command", "", "\n", 0, { "no_such_thing 1 2" },
	    { ck_is_failure } },
	{ "comment, blank line and CR LF",
	    "# a comment, which a bot must ignore\r\n\r\n", "\r\n", 0,
	    { "known_command genplay" }, { ck_is_true } },
	{ "4 commands in one write, answered in order", "", "\n", 0,
	    { "protocol_version", "name", "known_command play", "version" },
	    { ck_is_two, ck_is_text, ck_is_true, ck_is_text } },
};
#define CK_NPROBES	(sizeof(ck_probe_list) / sizeof(ck_probe_list[0]))

/* Print one line of the transcript (-v) whole, other bytes as \xNN. */
static void
ck_transcript(const char *dir, const char *s, size_t n)
{
	size_t	 i;

	printf("%-6s", dir);
	for (i = 0; i < n; i++)
		if (s[i] >= 32 && s[i] < 127)
			putchar(s[i]);
		else
			printf("\\x%02x", (unsigned char)s[i]);
	putchar('\n');
}

/*
 * Count and print a problem, in the context in which command c (if not
 * NULL) was sent, else in the context being checked now.
 */
static void
ck_problem(struct ck_bot *b, const struct ck_cmd *c, const char *fmt, ...)
{
	va_list	 ap;

	printf("FAIL  %s: ", c != NULL ? c->ctx : ck.ctx);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	ck.problems++;
	if (b != NULL && ++b->problems >= CK_MAXPROBLEMS && ck.in_variant &&
	    !b->dead) {
		printf("stop  %s: %d problems: giving up on this variant\n",
		    ck.ctx, b->problems);
		b->dead = 1;
	}
}

/* The command whose answer is being read or awaited, or NULL. */
static const struct ck_cmd *
ck_current(const struct ck_bot *b)
{
	if (b->in_answer && !b->orphan)
		return &b->ans.cmd;
	return b->npend > 0 ? &b->pend[b->phead] : NULL;
}

/* Untrusted bytes as one printable, quoted string for the output. */
static const char *
ck_quote(char *buf, size_t len, const char *s, size_t n)
{
	char	 tmp[200];	/* util_printable writes 130 at most */

	util_printable(tmp, sizeof(tmp), s, n);
	snprintf(buf, len, "'%s'", tmp);
	return buf;
}

/* A command as sent, quoted, to name what an answer answered. */
static const char *
ck_cmdref(char *buf, size_t len, const struct ck_cmd *c)
{
	return ck_quote(buf, len, c->text, strlen(c->text));
}

/*
 * The likely cause when a genplay's answer is a word of the command's
 * comment (its trick): the bot does not drop comments as it must.
 */
static const char *
ck_from_comment(const struct ck_cmd *c, const char *w, size_t n)
{
	const char	*p = strchr(c->text, '#');

	for (; p != NULL && *p != '\0'; p += strcspn(p, " "), p += *p != '\0')
		if (strncasecmp(p, w, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
			return "; a word of the comment: does the bot ignore "
			    "everything from a # to the end of the line?";
	return "";
}

/* "line N: 'text'": where a bot said what, for its author to find. */
static const char *
ck_lineref(char *buf, size_t len, int lineno, const char *s, size_t n)
{
	char	 q[300];

	snprintf(buf, len, "line %d: %s", lineno, ck_quote(q, sizeof(q), s, n));
	return buf;
}

/*
 * Start a fresh run of the bot with its stderr read and dropped.
 * Returns 0, or -1 (and marks a spawn failure) if it cannot start.
 */
static int
ck_spawn(struct ck_bot *b)
{
	char	 err[256];

	free(b->out);
	memset(b, 0, sizeof(*b));
	b->pid = spawn_bot(ck.argv, &b->fds, err, sizeof(err));
	if (b->pid == -1) {
		fprintf(stderr, "refctl checkbot: cannot start %s: %s\n",
		    ck.argv[0], err);
		ck.spawnfail = 1;
		return -1;
	}
	if (ck.verbose)
		printf("--    started %s, pid %ld\n", ck.argv[0], (long)b->pid);
	return 0;
}

/*
 * End a run: give a bot that answered quit a second to exit, as refd
 * does, then kill its whole process group so that nothing outlives it.
 */
static void
ck_close(struct ck_bot *b, int after_quit)
{
	int64_t	 until = util_now_us() + (int64_t)CK_QUIT_MS * 1000;
	int	 st;

	if (b->closed)
		return;
	b->closed = 1;
	while (after_quit && !b->reaped && util_now_us() < until) {
		if (waitpid(b->pid, &st, WNOHANG) == b->pid) {
			b->reaped = 1;
			b->status = st;
		} else
			usleep(5000);
	}
	if (after_quit && !b->reaped)
		ck_problem(b, NULL, "still running %d ms after answering quit "
		    "(refd would kill it)", CK_QUIT_MS);
	spawn_signal(b->pid, SIGKILL);
	if (!b->reaped && waitpid(b->pid, &st, 0) == b->pid) {
		b->reaped = 1;
		b->status = st;
	}
	spawn_fds_close(&b->fds);
	free(b->out);
	b->out = NULL;
	b->outlen = b->outsize = 0;
	b->dead = 1;
}

/* Queue raw bytes for the bot, transcribing each line under -v. */
static void
ck_queue_raw(struct ck_bot *b, const char *s, size_t n)
{
	const char	*nl, *at = s;
	size_t		 need = b->outlen + n;

	if (need > b->outsize) {
		if ((b->out = realloc(b->out, need * 2)) == NULL) {
			fprintf(stderr, "refctl checkbot: out of memory\n");
			exit(2);
		}
		b->outsize = need * 2;
	}
	if (n > 0)
		memcpy(b->out + b->outlen, s, n);
	b->outlen += n;
	while (ck.verbose && at < s + n &&
	    (nl = memchr(at, '\n', s + n - at)) != NULL) {
		ck_transcript(">", at, nl - at);
		at = nl + 1;
	}
}

/*
 * Queue command text (without id) with line end eol; its answer is due
 * within limit_ms.  Returns its id, or 0 if the bot is gone or has too
 * many unanswered commands (a problem then).
 */
static unsigned
ck_queue(struct ck_bot *b, enum ck_kind kind, ck_check check, int limit_ms,
    const char *text, const char *eol)
{
	struct ck_cmd	*c;
	char		 line[CK_CMDLEN + 4];
	int		 n;

	if (b->dead)
		return 0;
	if (b->npend == CK_MAXPEND) {
		ck_problem(b, NULL, "%d commands unanswered (refd would give "
		    "up)", CK_MAXPEND);
		b->dead = 1;
		return 0;
	}
	c = &b->pend[(b->phead + b->npend++) % CK_MAXPEND];
	c->id = ++b->next_id;
	c->kind = kind;
	c->check = check;
	c->limit_ms = limit_ms;
	c->sent_us = util_now_us();
	snprintf(c->text, sizeof(c->text), "%u %s", c->id, text);
	snprintf(c->ctx, sizeof(c->ctx), "%s", ck.ctx);
	n = snprintf(line, sizeof(line), "%s%s", c->text, eol);
	ck_queue_raw(b, line, (size_t)n);
	return c->id;
}

/* How long past its limit an answer may still come before it is lost. */
static int
ck_grace_ms(int limit_ms)
{
	if (limit_ms < 1000)
		return 1000;
	return limit_ms > 5000 ? 5000 : limit_ms;
}

/*
 * When the bot has been silent too long: the oldest command's limit plus
 * a grace (an answer within the grace is slow; after it, lost), or, for
 * an answer already begun, CK_BLANK_MS after its first line, since a bot
 * writes an answer's blank line with it.  Returns -1 when nothing is
 * awaited.
 */
static int64_t
ck_deadline(const struct ck_bot *b)
{
	const struct ck_cmd	*c;
	int64_t			 dl, part;

	if (b->in_answer && !b->orphan) {
		c = &b->ans.cmd;
		dl = c->sent_us + (int64_t)(c->limit_ms +
		    ck_grace_ms(c->limit_ms)) * 1000;
		part = b->ans.first_us + (int64_t)CK_BLANK_MS * 1000;
		return part < dl ? part : dl;
	}
	if (b->npend == 0)
		return -1;
	c = &b->pend[b->phead];
	return c->sent_us + (int64_t)(c->limit_ms + ck_grace_ms(c->limit_ms)) *
	    1000;
}

/*
 * The bot stayed silent past the deadline.  An answer without its blank
 * line is taken as whole, so that the run goes on; a command without an
 * answer ends the run, whose framing is then lost.
 */
static void
ck_timeout(struct ck_bot *b)
{
	const struct ck_cmd	*c;
	char			 cr[300], lr[400], how[160];
	int64_t			 ms;
	int			 st;

	if (b->in_answer && !b->orphan) {
		c = &b->ans.cmd;
		ms = (util_now_us() - b->ans.first_us) / 1000;
		ck_problem(b, c, "no blank line after the answer, %lld ms "
		    "after its first line: %s, answering %s (does the bot "
		    "write the empty line that ends every answer, and flush "
		    "after it?)", (long long)ms,
		    ck_lineref(lr, sizeof(lr), b->ans.lineno, b->ans.first,
		    b->ans.firstlen), ck_cmdref(cr, sizeof(cr), c));
		ck_answer_done(b);
		return;
	}
	c = &b->pend[b->phead];
	ms = (util_now_us() - c->sent_us) / 1000;
	how[0] = '\0';
	if (!b->reaped && waitpid(b->pid, &st, WNOHANG) == b->pid) {
		b->reaped = 1;
		b->status = st;
		snprintf(how, sizeof(how), "; the bot has exited, but a "
		    "process it started holds its output open");
	} else if (!b->said) {
		/* the commonest first mistake: output left in a buffer */
		snprintf(how, sizeof(how), "; the bot wrote nothing at all: "
		    "does it flush its output after each answer's empty "
		    "line?");
		if (!ck.heard)
			ck.mute = 1;
	} else if (b->linelen > 0 || b->linetotal > 0) {
		snprintf(how, sizeof(how), "; the bot's last line has no "
		    "newline yet: does it flush after the whole answer?");
	} else {
		snprintf(how, sizeof(how), "; did the bot forget to flush, "
		    "or to end its last answer with an empty line?");
	}
	ck_problem(b, c, "no answer to %s within %lld ms (the limit is %d "
	    "ms)%s", ck_cmdref(cr, sizeof(cr), c), (long long)ms, c->limit_ms,
	    how);
	b->dead = 1;
}

/*
 * Move bytes both ways: once without waiting, or (block) until something
 * happens or the oldest deadline passes.  Marks the run dead at a
 * timeout or end of file.
 */
static void
ck_pump(struct ck_bot *b, int block)
{
	struct pollfd	 pfd[3];
	int64_t		 dl, now;
	int		 timeout = 0, n;

	if (b->dead)
		return;
	now = util_now_us();
	dl = ck_deadline(b);
	if (dl != -1 && now >= dl) {
		ck_timeout(b);
		return;
	}
	if (block)
		timeout = dl == -1 ? 100 : (int)((dl - now + 999) / 1000);
	pfd[0].fd = b->fds.out;
	pfd[0].events = POLLIN;
	pfd[0].revents = 0;
	pfd[1].fd = b->fds.err;
	pfd[1].events = POLLIN;
	pfd[1].revents = 0;
	pfd[2].fd = b->outlen > 0 ? b->fds.in : -1;
	pfd[2].events = POLLOUT;
	pfd[2].revents = 0;
	n = poll(pfd, 3, timeout);
	if (n == -1) {
		if (errno == EINTR)
			return;
		fprintf(stderr, "refctl checkbot: poll: %s\n", strerror(errno));
		exit(2);
	}
	if (pfd[1].revents != 0)
		ck_stderr(b);
	if (pfd[2].revents != 0)
		ck_write(b);
	if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
		ck_read(b);
	if (!b->dead && (dl = ck_deadline(b)) != -1 && util_now_us() >= dl)
		ck_timeout(b);
}

/* Wait until every command sent has been answered, or the run ends. */
static void
ck_wait_all(struct ck_bot *b)
{
	while (!b->dead && (b->npend > 0 || b->in_answer))
		ck_pump(b, 1);
}

/* Write what its stdin takes now; a bot gone shows as end of file. */
static void
ck_write(struct ck_bot *b)
{
	ssize_t	 n;

	n = write(b->fds.in, b->out, b->outlen);
	if (n == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		b->outlen = 0;		/* EPIPE: the read side will tell */
		return;
	}
	memmove(b->out, b->out + n, b->outlen - n);
	b->outlen -= n;
	/* under -v, what reaches the bot in one write shows */
	if (ck.verbose)
		printf("%-6s%zd bytes\n", "write", n);
}

/* Read what the bot wrote and frame it into lines, capped as refd caps. */
static void
ck_read(struct ck_bot *b)
{
	char	 buf[65536];
	ssize_t	 n, i;

	n = read(b->fds.out, buf, sizeof(buf));
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		ck_eof(b);
		return;
	}
	b->said = 1;
	ck.heard = 1;
	for (i = 0; i < n && !b->dead; i++) {
		if (buf[i] == '\n') {
			ck_line(b);
			continue;
		}
		if (b->linelen < sizeof(b->line) - 1)
			b->line[b->linelen++] = buf[i];
		b->linetotal++;
		b->lastcr = buf[i] == '\r';
	}
}

/* Keep the end of the bot's stderr, which may explain a crash. */
static void
ck_stderr(struct ck_bot *b)
{
	char	 buf[4096];
	ssize_t	 n;

	n = read(b->fds.err, buf, sizeof(buf));
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close(b->fds.err);
		b->fds.err = -1;
		return;
	}
	spawn_tail_keep(b->errtail, &b->errlen, sizeof(b->errtail), buf,
	    (size_t)n);
}

/* What became of the bot, for its end of file: status, signal, or alive. */
static const char *
ck_how(struct ck_bot *b, char *buf, size_t len)
{
	int64_t	 until = util_now_us() + (int64_t)CK_REAP_MS * 1000;
	int	 st;

	while (!b->reaped && util_now_us() < until) {
		if (waitpid(b->pid, &st, WNOHANG) == b->pid) {
			b->reaped = 1;
			b->status = st;
		} else
			usleep(5000);
	}
	if (!b->reaped)
		snprintf(buf, len, "closed its output but is still running");
	else if (WIFEXITED(b->status))
		snprintf(buf, len, "exited with status %d",
		    WEXITSTATUS(b->status));
	else if (WIFSIGNALED(b->status))
		snprintf(buf, len, "was killed by signal %d (%s)",
		    WTERMSIG(b->status), strsignal(WTERMSIG(b->status)));
	else
		snprintf(buf, len, "ended");
	return buf;
}

/*
 * The bot's output ended.  After quit that is its duty; otherwise it is
 * a problem, told with its exit status and its last words on stderr.
 */
static void
ck_eof(struct ck_bot *b)
{
	char		 how[128], cr[300], lr[400], last[300], q[256];

	b->dead = 1;
	while (b->fds.err != -1) {
		struct pollfd pfd = { b->fds.err, POLLIN, 0 };
		if (poll(&pfd, 1, 100) <= 0)
			break;
		ck_stderr(b);
	}
	ck_how(b, how, sizeof(how));
	if (!b->said && b->reaped && WIFEXITED(b->status) &&
	    WEXITSTATUS(b->status) == 127 &&
	    spawn_cannot_run(b->errtail, how, sizeof(how)) != NULL) {
		/* it could not be executed, and said why on stderr */
		fprintf(stderr, "refctl checkbot: %s\n", how);
		ck.spawnfail = 1;
		return;
	}
	/* its last words, as refd puts them in the fault (seat.c) */
	last[0] = '\0';
	if (spawn_last_words(b->errtail, b->errlen, q, sizeof(q)) != NULL)
		snprintf(last, sizeof(last), "; %s", q);
	if (b->in_answer && !b->orphan)
		ck_problem(b, &b->ans.cmd, "end of file: the bot %s in the "
		    "middle of an answer, before its blank line: %s, "
		    "answering %s%s", how,
		    ck_lineref(lr, sizeof(lr), b->ans.lineno, b->ans.first,
		    b->ans.firstlen), ck_cmdref(cr, sizeof(cr), &b->ans.cmd),
		    last);
	else if (b->npend > 0)
		ck_problem(b, &b->pend[b->phead], "end of file: the bot %s "
		    "with %d command%s unanswered, the first %s%s", how,
		    b->npend, b->npend > 1 ? "s" : "",
		    ck_cmdref(cr, sizeof(cr), &b->pend[b->phead]), last);
	else if (!b->quitted)
		ck_problem(b, NULL, "end of file: the bot %s unasked%s", how,
		    last);
	if (ck.verbose)
		printf("--    end of file: the bot %s\n", how);
}

/* A whole line from the bot: the start, a line or the end of an answer. */
static void
ck_line(struct ck_bot *b)
{
	char		 clean[GTP_MAXLINE + 2], lr[400], cr[300];
	char		*text;
	size_t		 len = b->linetotal, kept = b->linelen;
	long		 id;
	int		 ok, empty, lineno = ++b->lineno;

	/* as EVBUFFER_EOL_CRLF: a CR before the LF is part of the end */
	if (len > 0 && b->lastcr) {
		len--;
		if (kept == b->linetotal)
			kept--;
	}
	b->line[kept] = '\0';
	b->linelen = b->linetotal = 0;
	b->lastcr = 0;
	if (ck.verbose)
		ck_transcript("<", b->line, kept);
	if (len > GTP_MAXLINE) {
		ck_problem(b, ck_current(b), "over-long line, %zu bytes (the "
		    "limit is %d): %s", len, GTP_MAXLINE,
		    ck_lineref(lr, sizeof(lr), lineno, b->line, kept));
		if (b->in_answer)
			b->ans.faulty = 1;
	}
	if (memchr(b->line, '\0', kept) != NULL) {
		ck_problem(b, ck_current(b), "a NUL byte in a line: %s",
		    ck_lineref(lr, sizeof(lr), lineno, b->line, kept));
		return;
	}
	memcpy(clean, b->line, kept + 1);
	empty = gtp_clean(clean);
	if (!b->in_answer) {
		if (empty)
			return;
		if (gtp_parse_answer(clean, &id, &ok, &text) == -1) {
			if (b->npend > 0)
				ck_problem(b, &b->pend[b->phead],
				    "garbage, not an answer: %s, "
				    "while %s awaits its answer",
				    ck_lineref(lr, sizeof(lr), lineno, b->line,
				    kept), ck_cmdref(cr, sizeof(cr),
				    &b->pend[b->phead]));
			else
				ck_problem(b, NULL,
				    "garbage, not an answer: %s",
				    ck_lineref(lr, sizeof(lr), lineno, b->line,
				    kept));
			return;
		}
		ck_answer_start(b, id, ok, text, b->line, kept);
		if (len > GTP_MAXLINE)
			b->ans.faulty = 1;
		return;
	}
	if (empty) {
		ck_answer_done(b);
		return;
	}
	if (gtp_parse_answer(clean, &id, &ok, &text) == 0) {
		/* the next answer's first line, where the blank line goes */
		if (!b->orphan)
			ck_problem(b, &b->ans.cmd,
			    "no blank line after the answer to %s: "
			    "the next answer came instead: %s",
			    ck_cmdref(cr, sizeof(cr), &b->ans.cmd),
			    ck_lineref(lr, sizeof(lr), lineno, b->line, kept));
		ck_answer_done(b);
		if (!b->dead)
			ck_answer_start(b, id, ok, text, b->line, kept);
		return;
	}
	ck_answer_line(b, clean);
}

/*
 * The first line of an answer: match it to the oldest command awaiting
 * one, as refd does, and say so when it cannot.  An id of a later
 * command means the answers before it are missing; an id of no command
 * at all is a wrong id, taken as the oldest command's answer, unless it
 * is the late true answer of a command a wrong id took.
 */
static void
ck_answer_start(struct ck_bot *b, long id, int ok, const char *text,
    const char *raw, size_t rawlen)
{
	struct ck_answer *a = &b->ans;
	struct ck_cmd	*head = &b->pend[b->phead];
	char		 lr[400], cr[300];
	int		 i, lineno = b->lineno;

	b->in_answer = 1;
	b->orphan = 0;
	a->ok = ok;
	a->lineno = lineno;
	a->firstlen = rawlen < sizeof(a->first) - 1 ? rawlen :
	    sizeof(a->first) - 1;
	memcpy(a->first, raw, a->firstlen);
	a->first[a->firstlen] = '\0';
	snprintf(a->text, sizeof(a->text), "%s", text);
	a->textlen = strlen(a->text);
	a->first_us = util_now_us();
	a->faulty = a->toolong = 0;
	ck_lineref(lr, sizeof(lr), lineno, raw, rawlen);

	if (id > 0 && b->stolen != 0 && (unsigned long)id == b->stolen &&
	    (b->npend == 0 || (unsigned long)id != head->id)) {
		b->stolen = 0;		/* already told */
		b->orphan = 1;
		return;
	}
	if (b->npend == 0) {
		ck_problem(b, NULL, "an answer to nothing%s: %s", b->quitted ?
		    " (after quit)" : " (no command awaits an answer)", lr);
		b->orphan = 1;
		return;
	}
	if (id == (long)head->id) {
		ck_pop(b, &a->cmd);
		return;
	}
	if (id == -1) {
		ck_problem(b, head, "an answer without an id, expected =%u "
		    "or ?%u: %s, answering %s", head->id, head->id, lr,
		    ck_cmdref(cr, sizeof(cr), head));
		ck_pop(b, &a->cmd);
		a->faulty = 1;
		return;
	}
	for (i = 1; i < b->npend; i++)
		if ((long)b->pend[(b->phead + i) % CK_MAXPEND].id == id)
			break;
	if (i < b->npend) {
		ck_problem(b, head, "no answer to %s: the answer to command "
		    "%ld came first: %s", ck_cmdref(cr, sizeof(cr), head), id,
		    lr);
		while (i-- > 0)
			ck_pop(b, &a->cmd);
		ck_pop(b, &a->cmd);
		return;
	}
	ck_problem(b, head, "wrong id %ld, expected %u: %s, answering %s", id,
	    head->id, lr, ck_cmdref(cr, sizeof(cr), head));
	b->stolen = head->id;
	ck_pop(b, &a->cmd);
	a->faulty = 1;
}

/* A further line of an answer: GTP allows them, none empty. */
static void
ck_answer_line(struct ck_bot *b, const char *clean)
{
	struct ck_answer *a = &b->ans;
	size_t		  n = strlen(clean);

	if (a->textlen + 1 + n >= sizeof(a->text)) {
		if (!a->toolong && !b->orphan)
			ck_problem(b, &a->cmd, "an answer longer than %d "
			    "bytes in all, from line %d", GTP_MAXLINE,
			    a->lineno);
		a->toolong = a->faulty = 1;
		return;
	}
	a->text[a->textlen++] = '\n';
	memcpy(a->text + a->textlen, clean, n + 1);
	a->textlen += n;
}

/* The blank line ended an answer: time it and judge it by its command. */
static void
ck_answer_done(struct ck_bot *b)
{
	struct ck_answer	*a = &b->ans;
	const char		*why;
	char			 lr[400], cr[300], kr[400];
	int64_t			 us;

	b->in_answer = 0;
	if (b->orphan) {
		b->orphan = 0;
		return;
	}
	b->nanswers++;
	us = util_now_us() - a->cmd.sent_us;
	ck_lineref(lr, sizeof(lr), a->lineno, a->first, a->firstlen);
	ck_cmdref(cr, sizeof(cr), &a->cmd);
	if (a->cmd.kind == CK_GENPLAY || a->cmd.kind == CK_GENBID ||
	    a->cmd.kind == CK_GENCALL) {
		ck.ngen++;
		ck.gen_us += us;
		if (us > ck.gen_max)
			ck.gen_max = us;
	} else if (a->cmd.kind == CK_NOTE) {
		ck.nnote++;
		ck.note_us += us;
		if (us > ck.note_max)
			ck.note_max = us;
	}
	if (us > (int64_t)a->cmd.limit_ms * 1000) {
		ck_problem(b, &a->cmd, "slow answer, %lld ms (the limit is %d "
		    "ms): %s, answering %s", (long long)(us / 1000),
		    a->cmd.limit_ms,
		    lr, cr);
		a->faulty = 1;
	}
	switch (a->cmd.kind) {
	case CK_GENPLAY:
		ck_genplay_judge(b, a);
		break;
	case CK_GENBID:
	case CK_GENCALL:
		ck_choice_judge(b, a);
		break;
	case CK_PROBE:
		if ((why = a->cmd.check(a->ok, a->text)) != NULL)
			ck_problem(b, &a->cmd, "%s: %s", why, lr);
		break;
	case CK_KNOWN:
		/* as match.c: the bot is refused, the variant cannot start */
		if (!a->faulty && (why = botproto_known_refused(kr, sizeof(kr),
		    a->ok, a->text, ck.seat, CK_BOTNAME, ck.m.opt.variant)) !=
		    NULL) {
			ck_problem(b, &a->cmd, "%s: %s", why, lr);
			b->dead = 1;
		}
		break;
	case CK_QUIT:
		b->quitted = 1;
		break;
	case CK_HELLO:
	case CK_NOTE:
		break;		/* refd ignores it, '=' or '?' */
	}
}

/*
 * Judge a genplay answer as match.c does: its first word must be a card
 * of the hand.  Sets b->card, or BRI_NOCARD for the fallback card.
 */
static void
ck_genplay_judge(struct ck_bot *b, const struct ck_answer *a)
{
	char		 lr[400], cr[300], q[300];
	bri_card	 c;
	size_t		 n = strcspn(a->text, " \n");

	b->answered = 1;
	b->card = BRI_NOCARD;
	if (a->faulty)
		return;		/* already told */
	ck_lineref(lr, sizeof(lr), a->lineno, a->first, a->firstlen);
	ck_cmdref(cr, sizeof(cr), &a->cmd);
	if (!a->ok)
		ck_problem(b, &a->cmd, "genplay refused ('?'): %s, answering "
		    "%s", lr, cr);
	else if (n == 0)
		ck_problem(b, &a->cmd, "genplay answered no card: %s, "
		    "answering %s", lr, cr);
	else if (bri_card_parse(a->text, n, &c) != BRI_OK)
		ck_problem(b, &a->cmd, "genplay answered %s (not a card%s): "
		    "%s, answering %s", ck_quote(q, sizeof(q), a->text, n),
		    ck_from_comment(&a->cmd, a->text, n), lr, cr);
	else if (bri_deal_check(&ck.m.deal, ck.seat, c) != BRI_OK)
		ck_problem(b, &a->cmd, "genplay answered %.*s (not in the "
		    "hand%s): %s, answering %s", (int)n, a->text,
		    ck_from_comment(&a->cmd, a->text, n), lr, cr);
	else
		b->card = c;
}

/*
 * Judge a genbid or gencall answer as refd will: a call legal now (a
 * rank weaker than the last one named, or pass), or a suit letter.
 * Sets b->choice, or -1 for the fallback (a pass, or botproto's suit).
 */
static void
ck_choice_judge(struct ck_bot *b, const struct ck_answer *a)
{
	char		 lr[400], cr[300], q[300];
	const char	*what = a->cmd.kind == CK_GENBID ? "genbid" : "gencall";
	size_t		 n = strcspn(a->text, " \n");
	int		 x, e;

	b->answered = 1;
	b->choice = -1;
	if (a->faulty)
		return;
	ck_lineref(lr, sizeof(lr), a->lineno, a->first, a->firstlen);
	ck_cmdref(cr, sizeof(cr), &a->cmd);
	if (!a->ok) {
		ck_problem(b, &a->cmd, "%s refused ('?'): %s, answering %s",
		    what, lr, cr);
		return;
	}
	if (a->cmd.kind == CK_GENBID) {
		if (botproto_parse_bid(a->text, n, &x) == -1)
			ck_problem(b, &a->cmd, "genbid answered %s (not a "
			    "rank nor pass): %s, answering %s", ck_quote(q,
			    sizeof(q), a->text, n), lr, cr);
		else if ((e = bri_deal_bid_check(&ck.m.deal, ck.seat, x)) !=
		    BRI_OK)
			ck_problem(b, &a->cmd, "genbid answered %.*s (%s): "
			    "%s, answering %s", (int)n, a->text,
			    bri_strerror(e), lr, cr);
		else
			b->choice = x;
	} else {
		if (botproto_parse_suit(a->text, n, &x) == -1)
			ck_problem(b, &a->cmd, "gencall answered %s (not a "
			    "suit: C, D, B or S): %s, answering %s", ck_quote(q,
			    sizeof(q), a->text, n), lr, cr);
		else
			b->choice = x;
	}
}

/* Take the oldest command off the queue, into *c. */
static void
ck_pop(struct ck_bot *b, struct ck_cmd *c)
{
	*c = b->pend[b->phead];
	b->phead = (b->phead + 1) % CK_MAXPEND;
	b->npend--;
}

/*
 * The probes, one group of commands at a time, each group judged as one
 * check.  A bot lost on the way is started again for the next probes,
 * up to CK_MAXRESTARTS times.  Returns -1 if the bot cannot be run.
 */
static int
ck_probes(void)
{
	static struct ck_bot	 b;
	const struct ck_probe	*p;
	char			 shown[300];
	size_t			 i;
	int			 j, before, lost = 0, limit;

	if (ck_spawn(&b) == -1)
		return -1;
	for (i = 0; i < CK_NPROBES; i++) {
		p = &ck_probe_list[i];
		if (ck.mute) {
			printf("skip  %s (the bot never wrote a byte)\n",
			    p->name);
			continue;
		}
		if (b.dead && lost > CK_MAXRESTARTS) {
			printf("skip  %s (the bot was lost %d times)\n",
			    p->name, lost);
			continue;
		}
		if (b.dead) {
			ck_close(&b, 0);
			if (++lost > CK_MAXRESTARTS) {
				printf("skip  %s (the bot was lost %d times)\n",
				    p->name, lost);
				continue;
			}
			if (ck_spawn(&b) == -1)
				return -1;
		}
		snprintf(ck.ctx, sizeof(ck.ctx), "%s", p->name);
		before = ck.problems;
		ck_queue_raw(&b, p->before, strlen(p->before));
		/* the first command of a run also waits for the start-up */
		for (j = 0; j < 4 && p->cmd[j] != NULL; j++) {
			limit = b.next_id == 0 ? ck.startup_ms : ck.note_ms;
			ck_queue(&b, CK_PROBE, p->check[j], limit, p->cmd[j],
			    p->eol);
		}
		ck_wait_all(&b);
		if (ck.spawnfail)
			return -1;
		if (ck.problems != before)
			continue;
		ck.checks++;
		if (p->show)
			printf("ok    %s: %s\n", p->name, ck_quote(shown,
			    sizeof(shown), b.ans.text, b.ans.textlen));
		else
			printf("ok    %s\n", p->name);
	}
	snprintf(ck.ctx, sizeof(ck.ctx), "quit");
	before = ck.problems;
	if (!b.dead) {
		ck_queue(&b, CK_QUIT, NULL, ck.note_ms, "quit", "\n");
		ck_wait_all(&b);
	}
	if (ck.spawnfail)
		return -1;
	ck_close(&b, b.quitted);
	if (ck.problems == before && b.quitted) {
		ck.checks++;
		printf("ok    quit, then exit\n");
	}
	return 0;
}

/* Send the bot seat's deal message m, built from its own view. */
static void
ck_tell(struct ck_bot *b, enum botmsg m)
{
	struct bri_view	 v;
	char		 buf[BOTPROTO_MAXLINE];

	bri_view_build(&ck.m, ck.seat, &v);
	ck_queue(b, CK_NOTE, NULL, ck.note_ms,
	    botproto_format(m, &v, 0, buf, sizeof(buf)), "\n");
	if (ck.eager)
		ck_pump(b, 0);	/* written now, its answer awaited later */
}


/* splitmix64, so that the random players repeat from run to run. */
static uint64_t
ck_rand(void)
{
	uint64_t z = (ck.rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Ask the bot for its call (m is BOTMSG_GENBID or BOTMSG_GENCALL) and
 * wait for it; returns the rank or suit, or -1 for the fallback.
 */
static int
ck_ask(struct ck_bot *b, enum botmsg m)
{
	struct bri_view	 v;
	char		 buf[BOTPROTO_MAXLINE];

	bri_view_build(&ck.m, ck.seat, &v);
	b->answered = 0;
	b->choice = -1;
	ck_queue(b, m == BOTMSG_GENBID ? CK_GENBID : CK_GENCALL, NULL,
	    ck.move_ms, botproto_format(m, &v, ck.move_ms, buf, sizeof(buf)),
	    "\n");
	while (!b->dead && !b->answered && (b->npend > 0 || b->in_answer))
		ck_pump(b, 1);
	return b->answered ? b->choice : -1;
}

/*
 * chiamata5's auction and call, as refd will run them: the bot is asked
 * on its turns, the random players pass or name the next weaker rank,
 * and every call, then the called card, is told to the bot.  A five-pass
 * deal ends here.
 */
static void
ck_auction(struct ck_bot *b, int *moves)
{
	struct bri_event	 ev;
	int			 t, r, suit, i;

	while (!b->dead && ck.m.deal.phase == BRI_PHASE_AUCTION) {
		t = ck.m.deal.turn;
		if (t == ck.seat) {
			r = ck_ask(b, BOTMSG_GENBID);
			(*moves)++;
			if (r < 0)
				r = BRI_PASS;
		} else {
			r = BRI_PASS;
			for (i = 0; i < 10 && ck_rand() % 8 < 3; i++)
				if (bri_deal_bid_check(&ck.m.deal, t,
				    ck_ranks[i]) == BRI_OK) {
					r = ck_ranks[i];
					break;
				}
		}
		if (b->dead)
			return;
		if (bri_match_bid(&ck.m, t, r, &ev) != BRI_OK) {
			fprintf(stderr, "refctl checkbot: internal error: a "
			    "call refused\n");
			exit(2);
		}
		ck_tell(b, BOTMSG_BID);
		if (ev.deal_over)
			ck_tell(b, BOTMSG_DEAL_END);
	}
	if (b->dead || ck.m.deal.phase != BRI_PHASE_CALL)
		return;
	t = ck.m.deal.caller;
	if (t == ck.seat) {
		suit = ck_ask(b, BOTMSG_GENCALL);
		(*moves)++;
		if (suit < 0)
			suit = botproto_fallback_suit(&ck.m.deal, t);
	} else
		suit = (int)(ck_rand() % 4);
	if (b->dead)
		return;
	if (bri_match_call(&ck.m, t, suit) != BRI_OK) {
		fprintf(stderr, "refctl checkbot: internal error: a suit "
		    "refused\n");
		exit(2);
	}
	ck_tell(b, BOTMSG_CALLED);
}

/*
 * Play ck.ndeals deals of variant var, the bot in one seat (a different
 * one per variant), sending it what refd would send that seat in
 * match.c's order.  Returns -1 if the bot cannot be run.
 */
static int
ck_variant(enum bri_variant var)
{
	static struct ck_bot	 b;
	struct bri_options	 opt;
	struct mset		 ms;
	struct bri_event	 ev;
	struct bri_view		 v;
	const char		*names[BRI_MAXSEATS];
	char			 nm[BRI_MAXSEATS][16], buf[BOTPROTO_MAXLINE];
	char			 options[256], commit[2 * BRI_COMMITLEN + 1];
	char			 res[16], seed[BRI_SEED_STRLEN], chain[65];
	uint8_t			 cm[BRI_COMMITLEN];
	bri_card		 c;
	int			 i, n, t, deals = 0, moves = 0, before;

	bri_options_default(&opt, var);
	bri_match_init(&ck.m, &opt, &ck.seed);
	n = ck.m.nseats;
	ck.seat = (int)var % n;
	/* FNV-1a of the seed and the variant: every byte counts */
	ck.rng = 0xcbf29ce484222325ULL ^ (uint64_t)var;
	for (i = 0; i < BRI_SEEDLEN; i++)
		ck.rng = (ck.rng ^ ck.seed.b[i]) * 0x100000001b3ULL;
	for (i = 0; i < n; i++) {
		if (i == ck.seat)
			snprintf(nm[i], sizeof(nm[i]), "%s", CK_BOTNAME);
		else
			snprintf(nm[i], sizeof(nm[i]), "rand%d", i);
		names[i] = nm[i];
	}
	snprintf(ck.ctx, sizeof(ck.ctx), "%s", bri_variant_name(var));
	before = ck.problems;
	ck.in_variant = 1;
	if (ck_spawn(&b) == -1)
		return -1;

	/*
	 * as match_seat_up; match_hello_done waits for every answer, and a
	 * table with an auction refuses a bot that does not know its
	 * commands (botproto_known_refused)
	 */
	ck_queue(&b, CK_HELLO, NULL, ck.startup_ms, "name", "\n");
	ck_queue(&b, CK_HELLO, NULL, ck.startup_ms, "version", "\n");
	for (i = 0; i < botproto_nknown(var); i++) {
		snprintf(buf, sizeof(buf), "known_command %s",
		    botproto_known(i));
		ck_queue(&b, CK_KNOWN, NULL, ck.startup_ms, buf, "\n");
	}
	ck_wait_all(&b);
	bri_seed_commit(&ck.seed, cm);
	util_hex(cm, sizeof(cm), commit);
	/* the options text as refd logs and sends it (mset.c) */
	mset_of(&ms, &opt, ck.move_ms, 0, ck.startup_ms, POLICY_FALLBACK,
	    CK_MAXPROBLEMS);
	if (ck.eager)
		ms.val[MSET_NOTIFY] = NOTIFY_EAGER;
	mset_text(&ms, var, options, sizeof(options));
	ck_queue(&b, CK_NOTE, NULL, ck.note_ms, botproto_match_start_text(buf,
	    sizeof(buf), (long long)var + 1, bri_variant_name(var), ck.seat,
	    names, n, commit, options), "\n");

	while (!b.dead && deals < ck.ndeals &&
	    ck.m.result == BRI_MATCH_PLAYING) {
		if (bri_match_deal(&ck.m) != BRI_OK)
			break;
		deals++;
		snprintf(ck.ctx, sizeof(ck.ctx), "%s deal %d",
		    bri_variant_name(var), deals);
		ck_tell(&b, BOTMSG_DEAL_START);
		ck_auction(&b, &moves);
		while (!b.dead && !ck.m.deal.over) {
			t = ck.m.deal.turn;
			if (t == ck.seat) {
				bri_view_build(&ck.m, t, &v);
				b.answered = 0;
				ck_queue(&b, CK_GENPLAY, NULL, ck.move_ms,
				    botproto_format(BOTMSG_GENPLAY, &v,
				    ck.move_ms, buf, sizeof(buf)), "\n");
				while (!b.dead && !b.answered &&
				    (b.npend > 0 || b.in_answer))
					ck_pump(&b, 1);
				if (b.dead)
					break;
				moves++;
				c = b.answered && b.card != BRI_NOCARD ? b.card :
				    botproto_fallback(&ck.m.deal, t);
			} else
				c = ck.m.deal.hand[t][ck_rand() %
				    ck.m.deal.nhand[t]];
			if (bri_match_play(&ck.m, t, c, &ev) != BRI_OK) {
				fprintf(stderr, "refctl checkbot: internal "
				    "error: a play refused\n");
				exit(2);
			}
			/* as match_apply, for the bot's seat */
			bri_view_build(&ck.m, ck.seat, &v);
			ck_tell(&b, BOTMSG_PLAY);
			if (ev.joker != BRI_NOSEAT)
				ck_tell(&b, BOTMSG_JOKER);
			if (ev.partner != BRI_NOSEAT)
				ck_tell(&b, BOTMSG_PARTNER_IS);
			if (ev.trick_done)
				ck_tell(&b, BOTMSG_TRICK);
			if (ev.ndraws > 0)
				ck_tell(&b, BOTMSG_DRAW);
			if (ev.stock_empty && v.partner != BRI_NOSEAT)
				ck_tell(&b, BOTMSG_PARTNER);
			if (ev.deal_over)
				ck_tell(&b, BOTMSG_DEAL_END);
		}
	}

	/* as match_finish: a match cut short ends "aborted" */
	snprintf(ck.ctx, sizeof(ck.ctx), "%s end", bri_variant_name(var));
	if (!b.dead) {
		if (ck.m.result == BRI_MATCH_DRAWN)
			snprintf(res, sizeof(res), "draw");
		else if (ck.m.result == BRI_MATCH_WON)
			snprintf(res, sizeof(res), "%s%d",
			    bri_variant_info(var)->sides == BRI_SIDES_ALTERNATE ?
			    "team" : "seat", ck.m.winner);
		else
			snprintf(res, sizeof(res), "aborted");
		/* checkbot keeps no log, so there is no chain to link */
		memset(chain, '0', 64);
		chain[64] = '\0';
		ck_queue(&b, CK_NOTE, NULL, ck.note_ms,
		    botproto_match_end_text(buf, sizeof(buf), res,
		    ck.m.mpoints, n, bri_seed_format(&ck.m.seed, seed), chain,
		    NULL),
		    "\n");
		ck_queue(&b, CK_QUIT, NULL, CK_QUIT_MS, "quit", "\n");
		ck_wait_all(&b);
	}
	if (ck.spawnfail)
		return -1;
	ck_close(&b, b.quitted);
	ck.in_variant = 0;
	if (ck.problems == before) {
		ck.checks++;
		printf("ok    %s, the bot in seat %d: %d deal%s, %d moves, "
		    "%d answers\n", bri_variant_name(var), ck.seat, deals,
		    deals == 1 ? "" : "s", moves, b.nanswers);
	} else if (b.problems < CK_MAXPROBLEMS && !b.quitted) {
		if (deals == 0)
			printf("stop  %s: stopped before its first deal\n",
			    bri_variant_name(var));
		else
			printf("stop  %s: stopped in deal %d\n",
			    bri_variant_name(var), deals);
	}
	return 0;
}

/*
 * A seed: 64 hexadecimal digits, or a number that is written as such
 * (so 1234567 is 000...0012d687, the seed of refd-protocol(7)'s example).
 */
static int
ck_parse_seed(const char *s, struct bri_seed *seed)
{
	const char	*err;
	long long	 v;
	int		 i;

	if (bri_seed_parse(s, seed) == BRI_OK)
		return 0;
	v = util_num(s, 0, LLONG_MAX, &err);
	if (err != NULL)
		return -1;
	memset(seed, 0, sizeof(*seed));
	for (i = BRI_SEEDLEN - 1; i >= 0 && v != 0; i--, v >>= 8)
		seed->b[i] = (uint8_t)(v & 0xff);
	return 0;
}

/* The usage line and the options, on f. */
static void
ck_usage(FILE *f)
{
	fprintf(f, "usage: refctl checkbot [-ehv] [-n deals] [-S sandbox] "
	    "[-s seed] [-t move_ms]\n"
	    "                       [-u bot_user] [-V variant] -- [bot "
	    "option ...] command [arg ...]\n"
	    "Start the bot, probe its protocol, play a few deals of every "
	    "variant with it\nagainst random players, and report every "
	    "problem.\n"
	    "  -e          each notification written at once, as under "
	    "notify=eager\n"
	    "              (default: held for the bot's next command)\n"
	    "  -n deals    deals per variant (default 2)\n"
	    "  -S sandbox  bwrap (default), as refd runs bots, or none\n"
	    "  -s seed     the seed: a number or 64 hex digits (default "
	    CK_SEED ")\n"
	    "  -t move_ms  the move limit in milliseconds (default 5000)\n"
	    "  -u user     who the bot runs as when refctl is root (default "
	    "nobody)\n"
	    "  -V variant  joker3, classic2, classic3, classic4, "
	    "classic5, classic6,\n"
	    "              briscolone or chiamata5 (default all)\n"
	    "  -v          print the whole transcript, and each write to the bot\n"
	    "Exit status: 0 no problem, 1 problems, 2 usage or the bot "
	    "cannot be run.\n");
}

/*
 * refctl checkbot [-ehv] [-n deals] [-s seed] [-t move_ms] [-V variant]
 * -- command [arg ...]: check a bot against refd-protocol(7) without
 * refd.  Returns 0 with no problem, 1 with problems, 2 for usage or a
 * bot that cannot be started.
 */
int
cmd_checkbot(int argc, char **argv)
{
	enum bri_variant	 only = BRI_NVARIANTS, var;
	const char		*err, *bot_user = NULL;
	enum sandbox_mode	 mode = SANDBOX_BWRAP;
	char			 why[1024];
	double			 mean;
	long long		 n;
	int			 ch, i;

	ck.move_ms = (int)mset_default(MSET_MOVE_MS);
	ck.ndeals = 2;
	ck.seedarg = CK_SEED;
	optind = 1;
	while ((ch = getopt(argc, argv, "+ehn:S:s:t:u:vV:")) != -1) {
		switch (ch) {
		case 'e':
			ck.eager = 1;
			break;
		case 'h':
			ck_usage(stdout);
			return 0;
		case 'n':
			ck.ndeals = (int)util_num(optarg, 1, 1000, &err);
			if (err != NULL) {
				fprintf(stderr, "refctl checkbot: -n %s: %s\n",
				    optarg, err);
				return 2;
			}
			break;
		case 'S':
			if (strcmp(optarg, "bwrap") != 0 &&
			    strcmp(optarg, "none") != 0) {
				fprintf(stderr, "refctl checkbot: -S: bwrap or "
				    "none\n");
				return 2;
			}
			mode = strcmp(optarg, "none") == 0 ? SANDBOX_NONE :
			    SANDBOX_BWRAP;
			break;
		case 's':
			ck.seedarg = optarg;
			break;
		case 'u':
			bot_user = optarg;
			break;
		case 't':
			/* a move_ms as every entry point reads it */
			if (mset_value(MSET_MOVE_MS, optarg, &n, NULL, why,
			    sizeof(why)) == -1) {
				fprintf(stderr, "refctl checkbot: -t: %s\n",
				    why);
				return 2;
			}
			ck.move_ms = (int)n;
			break;
		case 'v':
			ck.verbose = 1;
			break;
		case 'V':
			if (util_variant(optarg, &only, why,
			    sizeof(why)) == -1) {
				fprintf(stderr, "refctl checkbot: %s\n", why);
				return 2;
			}
			break;
		default:
			ck_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		ck_usage(stderr);
		return 2;
	}
	if (ck_parse_seed(ck.seedarg, &ck.seed) == -1) {
		fprintf(stderr, "refctl checkbot: -s %s: not a number nor 64 "
		    "hexadecimal digits\n", ck.seedarg);
		return 2;
	}
	ck.argv = argv + optind;
	ck.note_ms = ck.move_ms > 1000 ? ck.move_ms : 1000;
	/*
	 * refd's startup_ms defaults to twice its default move_ms; at
	 * least a second, as an interpreter takes that long to start
	 */
	ck.startup_ms = ck.move_ms > 500 ? 2 * ck.move_ms : 1000;
	log_init("refctl", 1, 0);
	/* the bot finds here what it will find under refd */
	if (spawn_setup(mode, bot_user, why, sizeof(why)) == -1) {
		fprintf(stderr, "refctl checkbot: %s\n", why);
		return 2;
	}
	atexit(spawn_cleanup);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("checkbot:");
	for (i = 0; ck.argv[i] != NULL; i++)
		printf(ck.argv[i][strcspn(ck.argv[i], " \t'\"")] != '\0' ||
		    ck.argv[i][0] == '\0' ? " '%s'" : " %s", ck.argv[i]);
	printf(" (move_ms %d, %d deal%s a variant, seed %s)\n", ck.move_ms,
	    ck.ndeals, ck.ndeals == 1 ? "" : "s", ck.seedarg);
	if (ck_probes() == -1)
		return 2;
	for (var = 0; var < BRI_NVARIANTS; var++) {
		if (only != BRI_NVARIANTS && only != var)
			continue;
		/* a bot that never wrote a byte would only time out again */
		if (ck.mute) {
			printf("skip  %s (the bot never wrote a byte)\n",
			    bri_variant_name(var));
			continue;
		}
		if (ck_variant(var) == -1)
			return 2;
	}

	if (ck.ngen > 0) {
		mean = (double)ck.gen_us / ck.ngen / 1000.0;
		printf("time  genplay: %d answers, mean %.1f ms, max %.1f ms "
		    "(limit %d ms)\n", ck.ngen, mean, ck.gen_max / 1000.0,
		    ck.move_ms);
	}
	if (ck.nnote > 0) {
		mean = (double)ck.note_us / ck.nnote / 1000.0;
		printf("time  notifications: %d answers, mean %.1f ms, max "
		    "%.1f ms (limit %d ms)\n", ck.nnote, mean,
		    ck.note_max / 1000.0, ck.note_ms);
	}
	printf("checkbot: %d check%s passed, %d problem%s\n", ck.checks,
	    ck.checks == 1 ? "" : "s", ck.problems,
	    ck.problems == 1 ? "" : "s");
	return ck.problems > 0 ? 1 : 0;
}
