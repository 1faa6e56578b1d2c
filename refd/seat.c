/*
 * seat.c: one bot connection of either kind, spawned or remote.
 *
 * A seat frames the bot's bytes into GTP answers and matches them, in
 * order, to the commands sent.  It knows nothing of cards.  Every
 * expected answer has an absolute deadline, so a bot that trickles a
 * byte at a time is cut off as surely as a silent one; lines are capped
 * at GTP_MAXLINE and unread output at SEAT_MAXOUT.
 *
 * A notification (PEND_NOTE) to a seat in lazy mode (seat_lazy()) waits
 * in the seat's output for the next command whose answer counts, and
 * leaves in one write with it, in the order queued: a bot not to act
 * costs no write and no read per play.  The lines are the same as if
 * each had been written at once; only when they leave differs.
 *
 * The clock of a command starts when the write of its line to the bot
 * returns (seat_flush()), not when it is queued, and stops when its
 * answer arrived: the kernel's stamp over TCP, else the loop's wake-up
 * less any time refd's own loop was stalled before it (clock.c).  Every
 * command has its own deadline, the earliest is the one armed, and
 * before a deadline is declared missed, whatever the bot has already
 * sent is read: a command still unanswered then has timed out, whatever
 * refd's loop did meanwhile.
 *
 * A seat reports up through the callbacks its match gave it
 * (seat_attach()).  Whatever goes wrong is a fault, with the evidence;
 * the seat marks itself and the fault reaches the match at the loop's
 * next step, never inside the call that met it.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "refd.h"
#include "botproto.h"
#include "botlog.h"
#include "bots.h"
#include "chain.h"
#include "clock.h"
#include "db.h"
#include "frame.h"
#include "gtp.h"
#include "guard.h"
#include "harden.h"
#include "log.h"
#include "seat.h"
#include "spawn.h"
#include "spawnq.h"
#include "util.h"

#define SEAT_MAXPEND		256	/* unanswered commands to one bot */
#define SEAT_MINPEND		8	/* room a seat starts with for them */
#define SEAT_MAXOUT		(256 * 1024) /* unread output to one bot */
#define SEAT_RECVMAX		GTP_MAXLINE /* bytes one read takes */
#define SEAT_MAXEV		255	/* bytes of a fault's evidence kept */
#define SEAT_ERRTAIL		256	/* bytes of a bot's stderr kept */
#define SEAT_STDERR_CAP		(1024 * 1024) /* per-bot stderr log */
#define SEAT_STAMP_AGE_US	(60 * 1000000) /* oldest arrival stamp taken */
/*
 * What a bot may send between two answers, comments and blank lines
 * included: past either bound it is cut off with a "flood" fault, so
 * that a bot writing endless comments costs refd a bounded read.
 */
#define SEAT_NOISE_LINES	1024
#define SEAT_NOISE_BYTES	(256 * 1024)

enum seat_state {
	SEAT_AUTH,		/* remote: waiting for "auth NAME TOKEN" */
	SEAT_IDLE,		/* remote: authenticated, in its bot's pool */
	SEAT_PLAYING,		/* driven by a match */
	SEAT_CLOSING,		/* quit sent, waiting for the end */
	SEAT_DEAD		/* gone; freed when its process is reaped */
};

/* One command sent and its answer awaited. */
struct seat_pend {
	unsigned	 id;		/* command id sent */
	enum pend_kind	 kind;
	int64_t		 limit_us;	/* the bot's time for it */
	int64_t		 queued_us;	/* when the match sent it */
	int64_t		 flushed_us;	/* when the pass writing it began */
	int64_t		 sent_us;	/* when it was written, 0: not yet */
	int64_t		 deadline_us;	/* when its answer may be late, or 0 */
	int		 abandoned;	/* late: swallow its answer */
};

struct seat {
	TAILQ_ENTRY(seat) entry;	/* in all seats */
	TAILQ_ENTRY(seat) pool;		/* in its bot's idle pool */
	enum seat_state	 state;		/* changed by seat_enter() only */
	struct bot	*bot;
	const struct seat_cb *cb;	/* while attached: its match's */
	void		*cbarg;
	int		 index;		/* seat number at its table */
	int		 fd;		/* read: its socket, or stdout */
	int		 wfd;		/* written: the same, or its stdin */
	struct bufferevent *bev;	/* its output; its input is read by */
	struct event	*rdev;		/* this: seat_readable() */
	int		 stamped;	/* TCP: the kernel stamps arrivals */
	char		*out;		/* lines queued, not yet written: */
	size_t		 outlen, outcap; /* malloc'd as needed, freed empty */
	int		 unsent;	/* commands of them in pend */
	TAILQ_ENTRY(seat) dirty;	/* out changed in this pass */
	int		 isdirty;	/* on that list */
	int		 due;		/* out must be written in this pass */
	int		 lazy;		/* notes wait for the next command */
	size_t		 held;		/* bytes of out held from earlier */
	int		 nheld;		/* passes, and the commands in them */
	pid_t		 pid;		/* spawn: the bot's process group */
	int		 starting;	/* spawn: its pid is still to come */
	int64_t		 spawn_match;	/* spawn: the match and seat it was */
	int		 spawn_seat;	/* started for, for the log */
	int		 errfd;		/* spawn: stderr pipe */
	struct event	*errev;
	int		 logfd;		/* spawn: stderr log file */
	char		*errtail;	/* spawn: its stderr's end, malloc'd
					   once it writes: why it ended */
	size_t		 errtaillen;
	size_t		 logged;	/* bytes written to it */
	unsigned	 next_id;
	struct seat_pend *pend;		/* ring of unanswered, npcap long */
	int		 npcap;		/* grows to SEAT_MAXPEND as needed */
	int		 phead, npend;
	struct event	*timer;		/* the earliest pending deadline */
	int64_t		 armed_us;	/* when timer fires, 0: not for pend */
	int64_t		 arrival_us;	/* when what is being read arrived */
	int		 arrival_exact;	/* that is the kernel's stamp */
	struct event	*killtimer;	/* spawn: closing, TERM then KILL */
	int		 killstep;
	struct frame	 fr;		/* the answer being read */
	char		 peer[64];	/* remote address, or "pid N" */
	char		 name[64];	/* what the bot answered to name */
	char		 version[64];
	int		 broken;	/* framing lost: cannot be reused */
	TAILQ_ENTRY(seat) faultq;	/* in faulted while fault_due */
	int		 fault_due;	/* a fault awaits delivery */
	int64_t		 fault_us;	/* its time charged, -1: unknown */
	char		 fault_kind[16];
	char		*fault_ev;	/* its evidence, while it waits */
	int		 freeing;	/* free is scheduled */
	int		 auth_refused;	/* the refusal is due at the timer */
	int64_t		 heard_us;	/* remote: its last answer, or auth */
	int		 nlines;	/* lines since its last answer */
	size_t		 nbytes;	/* and their bytes */
	int		 probing;	/* idle: asked if it is still there */
	/* the match's transcript hashes, from seat_transcript_begin() on */
	int		 tx_on;		/* hashing this match's lines */
	unsigned	 tx_first;	/* its first command's id */
	long long	 ans_line;	/* the answer being handed up answers
					   this line of the match, or 0 */
	struct chain_tx	 tx_sent;	/* lines written to the bot */
	size_t		 tx_from;	/* out's bytes before it: hashed or
					   not the match's (seat_tx_out()) */
	struct chain_tx	 tx_ans;	/* answers read to its commands */
};

#define AUTH_FAIL_MS	250	/* every refusal waits this long */
#define AUTH_FAIL_MAX	5	/* failures from one address ... */
#define AUTH_WINDOW_MS	60000	/* ... within this long, then throttled */
#define AUTH_SLOTS	256	/* addresses remembered */

/* Recent authentication failures, per peer address and bot name. */
static struct authfail {
	char		 addr[64];
	char		 name[REFD_NAMELEN + 1];
	int64_t		 since_ms;	/* start of its window */
	int		 n;		/* failures in that window */
} authfails[AUTH_SLOTS];
#define SEAT_QUIT_MS	1000	/* grace after quit, then after SIGTERM */
/*
 * An idle remote connection not heard from for SEAT_FRESH_US is asked
 * "name" before it is seated, and closed if it does not answer within
 * SEAT_PROBE_MS: a peer whose host vanished sends no end of file, and
 * keepalive finds it out only after a minute.
 */
#define SEAT_FRESH_US	(1000 * 1000)
#define SEAT_PROBE_MS	2000

static TAILQ_HEAD(, seat) seats = TAILQ_HEAD_INITIALIZER(seats);
static TAILQ_HEAD(, seat) dirty = TAILQ_HEAD_INITIALIZER(dirty);
/*
 * The answers read but not yet hashed into their seat's transcript, as
 * the transcript holds them ("=TEXT\n" or "?TEXT\n"): one seat's at a
 * time, hashed in one update when another seat's answer comes, when
 * the buffer is full, or when the transcript is read
 * (seat_transcript()).  A bot acknowledges every note: most answers
 * come several to a read, and each of them hashed alone cost two copies
 * of the hash's state.
 */
static struct {
	struct seat	*s;
	size_t		 len;
	int		 n;		/* answers in buf */
	char		 buf[GTP_MAXLINE + 2];
} txa;

static struct event	*flush_ev;	/* runs seat_flush() after the batch */
/* Seats whose fault awaits delivery, and the event that delivers them:
   one for all seats rather than one each, for the rare fault. */
static TAILQ_HEAD(, seat) faulted = TAILQ_HEAD_INITIALIZER(faulted);
static struct event	*fault_ev;
static int		 seats_down;	/* shut down: no more flushes */
static int		 flush_due;	/* flush_ev is added */
static struct event	*commit_ev;	/* commits the log's group in time */
static int		 commit_due;	/* commit_ev is added */
static int	nseats_alive;

/*
 * Children reaped before their seats heard their pids from the
 * spawner's thread, kept for them: no more than there are such seats.
 */
#define SEAT_EARLY	256
static struct seat_early {
	pid_t		 pid;
	int		 status;
} early[SEAT_EARLY];
static int	nearly;
static int	nstarting;	/* seats whose pids are still to come */

static void	seat_readable(evutil_socket_t, short, void *);
static int	seat_recv(struct seat *, char *, size_t, int64_t *, int *);
static int	seat_recv_in(struct seat *, struct evbuffer *, int64_t *, int *);
static int	seat_in_add(struct evbuffer *, const char *, size_t);
static void	seat_frame(struct seat *, int64_t, int);
static void	seat_event(struct bufferevent *, short, void *);
static void	seat_timeout(evutil_socket_t, short, void *);
static void	seat_killstep(evutil_socket_t, short, void *);
static void	seat_fault(struct seat *, const char *, const char *);
static void	seat_close(struct seat *);
static void	seat_maybe_free(struct seat *);
static void	seat_started(void *, pid_t);
static int	seat_has_process(const struct seat *);
static void	seat_flush(evutil_socket_t, short, void *);
static void	seat_commit_later(int64_t);
static void	seat_commit_now(void);
static void	seat_arm(struct seat *);
static void	seat_drained(struct bufferevent *, void *);
static void	seat_undirty(struct seat *);
static int	seat_out_add(struct seat *, const void *, size_t);
static void	seat_out_cut(struct seat *, size_t);
static void	seat_out_backlog(struct seat *, size_t);
static void	seat_touch(struct seat *);
static size_t	seat_unwritten(struct seat *);
static void	seat_fault_run(evutil_socket_t, short, void *);
static void	seat_tx_answer(struct seat *);
static void	seat_tx_out(struct seat *);
static void	seat_txa_flush(void);
static void	seat_txa_drop(struct seat *);
static void	seat_drain(struct seat *, int64_t);
static void	seat_lines(struct seat *);
static void	seat_write_out(struct seat *, int64_t);
static void	seat_commit_due(void);
static void	seat_lines_end(struct seat *);
static int	seat_take_line(struct seat *, char *, size_t);
static void	seat_frame_buf(struct seat *, char *, size_t, int64_t, int);
static void	seat_fault_timed(struct seat *, const char *, const char *,
		    int64_t);

/* Told when a remote bot's connection comes free (seat_on_ready()). */
static void	(*ready_cb)(struct bot *);
/* Told when a seat is freed, its room under max_connections with it. */
static void	(*free_cb)(void);

/* Name of a seat state, for the debug log. */
static const char *
seat_state_name(enum seat_state s)
{
	switch (s) {
	case SEAT_AUTH:		return "auth";
	case SEAT_IDLE:		return "idle";
	case SEAT_PLAYING:	return "playing";
	case SEAT_CLOSING:	return "closing";
	case SEAT_DEAD:		return "dead";
	}
	return "?";
}

/*
 * Every state change passes here, so the debug log tells the story, and
 * so does every move in or out of a bot's idle pool: a seat is in the
 * pool exactly while it is SEAT_IDLE.
 */
static void
seat_enter(struct seat *s, enum seat_state st)
{
	log_debug("seat %s (%s): %s -> %s", s->bot ? s->bot->name : "-",
	    s->peer, seat_state_name(s->state), seat_state_name(st));
	if (s->state == SEAT_IDLE && st != SEAT_IDLE)
		TAILQ_REMOVE(&s->bot->idle, s, pool);
	else if (s->state != SEAT_IDLE && st == SEAT_IDLE)
		TAILQ_INSERT_TAIL(&s->bot->idle, s, pool);
	s->state = st;
}

/*
 * Read what the socket holds into in, the bufferevent's input, now,
 * rather than when the loop gets to the read event: at most twice the
 * line cap, which the framing then judges.  A bufferevent lets only
 * itself add to its input, hence the thaw.  *stamp is the kernel's
 * arrival stamp of the last bytes read (TCP), or 0 if there is none.
 * Returns what the last read returned: 0 at end of file, -1 with errno
 * (EAGAIN: nothing more).
 */
static int
seat_read_now(struct seat *s, struct evbuffer *in, int64_t *stamp)
{
	int64_t	 at;
	int	 n, exact;

	*stamp = 0;
	do {
		n = seat_recv_in(s, in, &at, &exact);
		if (n > 0 && exact)
			*stamp = at;
	} while (n > 0 && evbuffer_get_length(in) <= 2 * GTP_MAXLINE);
	return n;
}

/*
 * One recvmsg(2) of what the socket holds into buf (len bytes), or one
 * read(2) of a spawned bot's stdout.  No FIONREAD first, as
 * evbuffer_read() does: one system call per read.
 * On TCP, *at is when the kernel received the last segment read
 * (SO_TIMESTAMPNS), in CLOCK_MONOTONIC microseconds, so an answer is
 * timed from its arrival, not from when the loop got to it, and *exact
 * is 1; else, and from a pipe, it is the loop's wake-up time
 * (clock_wake()) and *exact 0.  Returns what recvmsg() returned: 0 at
 * end of file, -1 with errno.
 */
static int
seat_recv(struct seat *s, char *buf, size_t len, int64_t *at, int *exact)
{
	struct msghdr		 msg;
	struct iovec		 iov;
	struct cmsghdr		*cm;
	struct timespec		 ts, rt, mt;
	union {
		char		 buf[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr	 align;
	} cbuf;
	int64_t			 k, now, wake = clock_wake();
	ssize_t			 n;
	int			 e;

	*at = wake;
	*exact = 0;
	iov.iov_base = buf;
	iov.iov_len = len;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (s->stamped) {
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = sizeof(cbuf.buf);
	}
	n = s->fd != s->wfd ? read(s->fd, buf, len) :
	    recvmsg(s->fd, &msg, MSG_DONTWAIT);
	e = errno;
	for (cm = n > 0 && s->stamped ? CMSG_FIRSTHDR(&msg) : NULL;
	    cm != NULL; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_TIMESTAMPNS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(ts))) {
			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			clock_gettime(CLOCK_REALTIME, &rt);
			clock_gettime(CLOCK_MONOTONIC, &mt);
			/* the stamp's age, on the monotonic clock */
			now = (int64_t)mt.tv_sec * 1000000 + mt.tv_nsec / 1000;
			k = now - (((int64_t)rt.tv_sec - ts.tv_sec) * 1000000 +
			    (rt.tv_nsec - ts.tv_nsec) / 1000);
			/*
			 * Never later than now: it may be later than the
			 * wake-up, for what came during a long pass (a slow
			 * fsync).  Nor absurdly early: the wall clock was
			 * stepped.  A stamp seconds old is no such thing
			 * after refd was stopped or its machine paused.
			 */
			if (k <= now && wake - k < SEAT_STAMP_AGE_US) {
				*at = k;
				*exact = 1;
			}
		}
	errno = e;
	return (int)n;
}

/*
 * Add n bytes to in, the bufferevent's input, which only libevent may
 * add to, hence the thaw.  Returns 0, or -1 with errno ENOMEM.
 */
static int
seat_in_add(struct evbuffer *in, const char *buf, size_t n)
{
	int	 r;

	evbuffer_unfreeze(in, 0);
	r = evbuffer_add(in, buf, n);
	evbuffer_freeze(in, 0);
	if (r == -1)
		errno = ENOMEM;
	return r;
}

/*
 * seat_recv() into in.  The read lands on the stack and only the bytes
 * that came are copied to in: room reserved in in itself would be a
 * chain of 8 KiB per seat, kept while the seat waits, where an answer
 * is a few dozen bytes, framed and drained at once.
 */
static int
seat_recv_in(struct seat *s, struct evbuffer *in, int64_t *at, int *exact)
{
	char	 buf[SEAT_RECVMAX];
	int	 n;

	if ((n = seat_recv(s, buf, sizeof(buf), at, exact)) > 0 &&
	    seat_in_add(in, buf, (size_t)n) == -1)
		return -1;
	return n;
}

/*
 * Has the peer of an idle seat hung up, though the loop has not read
 * its end of file yet?  What it sent before (answers to the last
 * match's end) is read and framed first, as its read event would.
 */
static int
seat_hung_up(struct seat *s)
{
	struct evbuffer	*in = bufferevent_get_input(s->bev);
	int64_t		 stamp;
	int		 n, gone;

	n = seat_read_now(s, in, &stamp);
	gone = n == 0 || (n == -1 && errno != EAGAIN &&
	    errno != EWOULDBLOCK && errno != EINTR);
	if (evbuffer_get_length(in) > 0)
		seat_frame(s, stamp ? stamp : clock_wake(), stamp != 0);
	return gone || s->state != SEAT_IDLE;
}

/*
 * A connected, idle seat of remote bot b, taken out of its pool, or
 * NULL for none now.  One whose peer has hung up meanwhile is closed,
 * never seated; one not heard from lately is probed (SEAT_PROBE_MS)
 * rather than seated, and comes back through ready_cb once it answers,
 * or is closed if it does not.
 */
struct seat *
seat_take_idle(struct bot *b)
{
	struct seat	*s, *next;
	int64_t		 now = util_now_us();

	for (s = TAILQ_FIRST(&b->idle); s != NULL; s = next) {
		next = TAILQ_NEXT(s, pool);
		if (s->probing)
			continue;
		if (seat_hung_up(s)) {
			if (s->state != SEAT_IDLE)
				continue;	/* its lines closed it */
			db_bot_event(logdb, 0, -1, b->name, "disconnect",
			    s->peer);
			seat_close(s);
			continue;
		}
		if (now - s->heard_us <= SEAT_FRESH_US) {
			seat_enter(s, SEAT_PLAYING);
			return s;
		}
		s->probing = 1;
		seat_send(s, PEND_PROBE, SEAT_PROBE_MS, "name");
	}
	return NULL;
}

/* Close every idle connection of b, a bot being removed. */
void
seat_drop_idle(struct bot *b)
{
	struct seat	*s;

	while ((s = TAILQ_FIRST(&b->idle)) != NULL) {
		db_bot_event(logdb, 0, -1, b->name, "disconnect", s->peer);
		seat_close(s);
	}
}

/* How many of b's connections are idle. */
int
seat_idle_count(struct bot *b)
{
	struct seat	*s;
	int		 n = 0;

	TAILQ_FOREACH(s, &b->idle, pool)
		n++;
	return n;
}

/*
 * A match takes s (spawned, or taken idle) as its seat index: from now
 * on answers and faults go to cb, with arg.
 */
void
seat_attach(struct seat *s, int index, const struct seat_cb *cb, void *arg)
{
	s->cb = cb;
	s->cbarg = arg;
	s->index = index;
}

/* The arg s was attached with, or NULL when no match holds it. */
void *
seat_owner(const struct seat *s)
{
	return s->cbarg;
}

/* fn hears of every remote bot whose connection comes free. */
void
seat_on_ready(void (*fn)(struct bot *))
{
	ready_cb = fn;
}

/* fn hears of every seat freed: a bot connection's room is free. */
void
seat_on_free(void (*fn)(void))
{
	free_cb = fn;
}

/* s's seat number at its table, -1 when it has none. */
int
seat_index(const struct seat *s)
{
	return s->index;
}

/* Has s lost its framing or its connection, so that it must not be reused? */
int
seat_broken(const struct seat *s)
{
	return s->broken;
}

/* Can s still be spoken to? */
int
seat_usable(const struct seat *s)
{
	return !s->broken && s->bev != NULL;
}

/* The peer: "pid N" for a spawned bot, "address:port" for a remote one. */
const char *
seat_peer(const struct seat *s)
{
	return s->peer;
}

/* What the bot answered to name, or "". */
const char *
seat_name(const struct seat *s)
{
	return s->name;
}

/* What the bot answered to version, or "". */
const char *
seat_version(const struct seat *s)
{
	return s->version;
}

/*
 * Remote connections not yet authenticated, in all and from the address
 * of peer ("address:port"), for the listener's limits.
 */
int
seat_unauth(const char *peer, int *same)
{
	struct seat	*s;
	const char	*colon = strrchr(peer, ':');
	size_t		 n = colon != NULL ? (size_t)(colon - peer) :
			    strlen(peer);	/* "a.b.c.d:p", "[v6]:p" */
	int		 all = 0;

	*same = 0;
	TAILQ_FOREACH(s, &seats, entry)
		if (s->state == SEAT_AUTH) {
			all++;
			if (strncmp(s->peer, peer, n) == 0 && s->peer[n] == ':')
				(*same)++;
		}
	return all;
}

/* The address part of peer ("address:port"), for sorting. */
static int
seat_addr_cmp(const void *a, const void *b)
{
	const struct seat *x = *(struct seat * const *)a;
	const struct seat *y = *(struct seat * const *)b;
	size_t		 n = strcspn(x->peer, ":"), m = strcspn(y->peer, ":");
	int		 c = strncmp(x->peer, y->peer, n < m ? n : m);

	if (c != 0 || n == m)
		return c != 0 ? c : (x->heard_us > y->heard_us) -
		    (x->heard_us < y->heard_us);
	return n < m ? -1 : 1;
}

/*
 * The unauthenticated connections are at their cap and one more comes
 * from the address of peer, which holds same of them: make room by
 * closing the oldest stranger of the address that holds the most, if
 * it holds more than peer's would.  So a flood from a few dozen
 * addresses cannot keep out a bot that connects from another: its one
 * connection is never the one closed while a flooder holds two.
 * Returns whether room was made.
 */
int
seat_unauth_evict(const char *peer, int same)
{
	struct seat	**v, *s, *victim = NULL;
	int		  n = 0, i, j, best = 0;

	TAILQ_FOREACH(s, &seats, entry)
		if (s->state == SEAT_AUTH)
			n++;
	if (n == 0 || (v = calloc(n, sizeof(*v))) == NULL)
		return 0;
	n = 0;
	TAILQ_FOREACH(s, &seats, entry)
		if (s->state == SEAT_AUTH)
			v[n++] = s;
	/* by address, each address's oldest first */
	qsort(v, n, sizeof(*v), seat_addr_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && strcspn(v[j]->peer, ":") ==
		    strcspn(v[i]->peer, ":") && strncmp(v[j]->peer, v[i]->peer,
		    strcspn(v[i]->peer, ":")) == 0; j++)
			;
		if (j - i > best) {
			best = j - i;
			victim = v[i];
		}
	}
	free(v);
	if (victim == NULL || best <= same + 1)
		return 0;
	log_debug("remote %s: closed unauthenticated for a newcomer (%s), "
	    "its address holding %d", victim->peer, peer, best);
	victim->broken = 1;
	seat_close(victim);
	return 1;
}

/* Connections alive now (for status and limits). */
int
seat_count(void)
{
	return nseats_alive;
}

/* Is fd a TCP socket (which can stamp arrivals), not a pipe? */
static int
seat_is_tcp(int fd)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof(ss);

	return getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
	    (ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
}

/*
 * A new seat reading fd and writing wfd: a connected socket for both,
 * or a spawned bot's stdout and stdin; with the timer that stops a
 * spawned bot's process if spawned, which a remote seat has no use for.
 * On failure both are closed.
 */
static struct seat *
seat_new(int fd, int wfd, int spawned)
{
	struct seat	*s;
	int		 one = 1;

	if (flush_ev == NULL && ((flush_ev = event_new(base, -1, 0, seat_flush,
	    NULL)) == NULL || event_priority_set(flush_ev, PRI_SEAT) == -1))
		return NULL;
	if (fault_ev == NULL && ((fault_ev = event_new(base, -1, 0,
	    seat_fault_run, NULL)) == NULL ||
	    event_priority_set(fault_ev, PRI_CTL) == -1))
		return NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->pend = calloc(SEAT_MINPEND, sizeof(*s->pend))) == NULL) {
		free(s);
		close(fd);
		if (wfd != fd)
			close(wfd);
		return NULL;
	}
	s->npcap = SEAT_MINPEND;
	frame_init(&s->fr);
	s->fd = fd;
	s->wfd = wfd;
	s->errfd = s->logfd = -1;
	s->index = -1;
	s->bev = bufferevent_socket_new(base, wfd, BEV_OPT_CLOSE_ON_FREE);
	s->rdev = event_new(base, fd, EV_READ | EV_PERSIST, seat_readable, s);
	s->timer = evtimer_new(base, seat_timeout, s);
	if (spawned)
		s->killtimer = evtimer_new(base, seat_killstep, s);
	if (s->bev == NULL || s->rdev == NULL ||
	    s->timer == NULL || (spawned && s->killtimer == NULL) ||
	    event_priority_set(s->rdev, PRI_SEAT) == -1) {
		if (s->rdev)
			event_free(s->rdev);
		if (s->bev)
			bufferevent_free(s->bev);
		else
			close(wfd);
		if (fd != wfd)
			close(fd);
		if (s->timer)
			event_free(s->timer);
		if (s->killtimer)
			event_free(s->killtimer);
		free(s->pend);
		free(s);
		return NULL;
	}
	/*
	 * s->out leaves through seat_flush(); EV_WRITE only for a backlog.
	 * The input is read by s->rdev, one recvmsg() a wake-up, into the
	 * bufferevent's input buffer, which the framing reads.
	 */
	bufferevent_setcb(s->bev, NULL, seat_drained, seat_event, s);
	bufferevent_disable(s->bev, EV_READ | EV_WRITE);
	bufferevent_priority_set(s->bev, PRI_SEAT);
	evbuffer_freeze(bufferevent_get_input(s->bev), 0);
	s->stamped = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one,
	    sizeof(one)) == 0 && seat_is_tcp(fd);
	event_add(s->rdev, NULL);
	TAILQ_INSERT_TAIL(&seats, s, entry);
	nseats_alive++;
	return s;
}

/*
 * Copy what a spawned bot wrote to stderr to its log file, up to the
 * cap: one read.  Returns what read(2) returned; at the end of the pipe
 * it is closed.
 */
static ssize_t
seat_stderr_read(struct seat *s)
{
	char		 buf[4096];
	ssize_t		 n;
	size_t		 keep;

	n = read(s->errfd, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return n;
	if (n <= 0) {
		if (s->errev != NULL)
			event_free(s->errev);
		s->errev = NULL;
		close(s->errfd);
		s->errfd = -1;
		return n;
	}
	/* its last words, for the fault if its output ends */
	if (s->errtail == NULL)
		s->errtail = calloc(1, SEAT_ERRTAIL);
	if (s->errtail != NULL)
		spawn_tail_keep(s->errtail, &s->errtaillen, SEAT_ERRTAIL, buf,
		    (size_t)n);
	if (s->logfd == -1 || s->logged >= SEAT_STDERR_CAP)
		return n;
	keep = (size_t)n;
	if (keep > SEAT_STDERR_CAP - s->logged)
		keep = SEAT_STDERR_CAP - s->logged;
	if (write(s->logfd, buf, keep) == (ssize_t)keep) {
		s->logged += keep;
		botlog_grew(keep);
	}
	if (s->logged >= SEAT_STDERR_CAP)
		dprintf(s->logfd, "\n[refd: stderr log capped at %d bytes]\n",
		    SEAT_STDERR_CAP);
	return n;
}

/* The bot's stderr is readable. */
static void
seat_stderr(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	seat_stderr_read(arg);
}

/*
 * Start bot b as a subprocess for seat of match, its stderr going to
 * logpath (or nowhere if NULL).  Returns the seat at once, or NULL with
 * the reason in err; the bot's pid, and the log's spawn event with it,
 * come once spawnq's thread has started it (seat_started()).
 */
struct seat *
seat_spawn(struct bot *b, const char *logpath, int64_t match, int seat,
    char *err, size_t errlen)
{
	struct spawnq_job *j;
	struct spawn_fds fds;
	struct seat	*s;

	if ((j = spawnq_prepare(b->argv, &fds, err, errlen)) == NULL)
		return NULL;
	if ((s = seat_new(fds.out, fds.in, 1)) == NULL) {
		snprintf(err, errlen, "out of memory");
		close(fds.err);
		spawnq_cancel(j);
		return NULL;
	}
	s->bot = b;
	s->starting = 1;
	nstarting++;
	s->spawn_match = match;
	s->spawn_seat = seat;
	s->errfd = fds.err;
	snprintf(s->peer, sizeof(s->peer), "pid unknown");
	if (logpath != NULL && (s->logfd = harden_botlog_open(logpath)) == -1)
		log_warn("bot log %s", logpath);
	s->errev = event_new(base, fds.err, EV_READ | EV_PERSIST, seat_stderr,
	    s);
	if (s->errev != NULL)
		event_add(s->errev, NULL);
	seat_enter(s, SEAT_PLAYING);
	spawnq_go(j, seat_started, s);
	return s;
}

/*
 * Count a failure of peer's address for a bot name (add) or just look it
 * up; returns whether that pair is throttled.  A guesser gets
 * AUTH_FAIL_MAX tries a minute at one bot, each refused AUTH_FAIL_MS
 * after it was made, whatever was wrong, so neither the answer's timing
 * nor its text tells anything.  Other bots on the same host are not held
 * up by it.
 */
static int
seat_auth_throttled(const char *peer, const char *name, int add)
{
	struct authfail	*a, *old = &authfails[0];
	const char	*colon;
	char		 addr[64];
	int64_t		 now = util_now_ms();
	size_t		 n;

	colon = strrchr(peer, ':');	/* "address:port" */
	n = colon != NULL ? (size_t)(colon - peer) : strlen(peer);
	snprintf(addr, sizeof(addr), "%.*s", (int)n, peer);
	for (a = authfails; a < authfails + AUTH_SLOTS; a++) {
		if (strcmp(a->addr, addr) == 0 &&
		    strncmp(a->name, name, REFD_NAMELEN) == 0)
			break;
		if (a->since_ms < old->since_ms)
			old = a;
	}
	if (a == authfails + AUTH_SLOTS) {
		if (!add)
			return 0;
		a = old;
		snprintf(a->addr, sizeof(a->addr), "%s", addr);
		snprintf(a->name, sizeof(a->name), "%s", name);
		a->n = 0;
		a->since_ms = now;
	}
	if (now - a->since_ms > AUTH_WINDOW_MS) {
		a->n = 0;
		a->since_ms = now;
	}
	if (add)
		a->n++;
	return a->n >= AUTH_FAIL_MAX + (add ? 1 : 0);
}

/*
 * A remote bot connected: it has auth_ms to authenticate.  Returns its
 * seat, or NULL with fd closed.
 */
struct seat *
seat_accept(int fd, const char *peer)
{
	struct seat	*s;
	struct timeval	 tv = { conf.auth_ms / 1000,
			    (conf.auth_ms % 1000) * 1000 };

	if ((s = seat_new(fd, fd, 0)) == NULL)
		return NULL;
	snprintf(s->peer, sizeof(s->peer), "%s", peer);
	s->heard_us = util_now_us();	/* when it came, while it is a stranger */
	seat_enter(s, SEAT_AUTH);
	evtimer_add(s->timer, &tv);
	return s;
}

/*
 * Output was queued for s: have it written once the callbacks now due
 * have run, so that all a pass queued for one bot leaves in one write,
 * with no epoll_ctl() to watch for writability first.
 */
static void
seat_dirty(struct seat *s)
{
	s->due = 1;
	seat_touch(s);
}

/*
 * Notes were queued for s in lazy mode: they stay in its output, but
 * seat_flush() must see s at the end of the pass, for the log's sake
 * (seat_drop_unsent()).
 */
static void
seat_touch(struct seat *s)
{
	if (s->isdirty)
		return;
	s->isdirty = 1;
	TAILQ_INSERT_TAIL(&dirty, s, dirty);
	seat_flush_soon();
}

/*
 * Have seat_flush() run once the callbacks now due have run: lines were
 * queued, or the log opened a group of writes (db_group_mode()).  It is
 * made active at the bots' input's own priority, so libevent runs it
 * at the end of the input callbacks already due, in the same pass, and
 * waits for events once per pass, not twice (a timer of no delay, as
 * before, cost an epoll_wait() of its own).  A higher priority would
 * cut the pass short after every callback.
 */
void
seat_flush_soon(void)
{
	if (seats_down || flush_due)
		return;		/* db_close() commits what is left */
	if (flush_ev == NULL && ((flush_ev = event_new(base, -1, 0, seat_flush,
	    NULL)) == NULL || event_priority_set(flush_ev, PRI_SEAT) == -1))
		fatalx("flush event: out of memory");
	event_active(flush_ev, EV_TIMEOUT, 0);
	flush_due = 1;
}

/*
 * The log lost the writes of s's match since the last flush: its lines
 * queued since then must not reach the bot, and their commands are
 * awaited no more.  Notes held from earlier passes stay: their rows
 * were not in the lost group's pass, and eager delivery would have
 * written them already.
 */
void
seat_drop_unsent(struct seat *s)
{
	seat_out_cut(s, s->held);	/* never hashed: never sent */
	s->npend -= s->unsent - s->nheld < s->npend ? s->unsent - s->nheld :
	    s->npend;
	s->unsent = s->nheld;
	s->due = 0;
	seat_arm(s);
}

/*
 * The lines queued for s leave for the bot (or are sealed into the
 * transcript at the match's end): hash them, all at once, unless they
 * were hashed already or are not the match's.  Hashing as lines leave,
 * not as they are queued, leaves out by itself the lines a lost group
 * drops (seat_drop_unsent()), with no copy of the hash kept to go back
 * to.
 */
static void
seat_tx_out(struct seat *s)
{
	if (s->tx_on && s->outlen > s->tx_from)
		chain_tx_sent(&s->tx_sent, s->out + s->tx_from,
		    s->outlen - s->tx_from);
	s->tx_from = s->outlen;
}

/* Take s off the list of seats with output to write. */
static void
seat_undirty(struct seat *s)
{
	if (!s->isdirty)
		return;
	s->isdirty = 0;
	TAILQ_REMOVE(&dirty, s, dirty);
}

/*
 * Commit the log's open group now.  A lost group aborts its matches,
 * which may write again: commit that too.
 */
static void
seat_commit_now(void)
{
	int	 n;

	for (n = 0; n < 8 && db_group_pending(logdb); n++)
		db_group_commit(logdb);
}

/* The log's open group has waited long enough: commit it now. */
static void
seat_commit(evutil_socket_t fd, short what, void *arg)
{
	int64_t	 wait;

	(void)fd;
	(void)what;
	(void)arg;
	commit_due = 0;
	seat_commit_now();
	(void)db_group_due(logdb, util_now_us(), &wait);
	seat_commit_later(wait);
}

/*
 * The log's open group may wait wait_us more for its commit: have
 * seat_commit() run then, unless it is due already.  Re-armed only
 * when no commit is due, so a busy loop adds no timer work per pass.
 */
static void
seat_commit_later(int64_t wait_us)
{
	struct timeval	 tv;

	if (!db_group_pending(logdb) || commit_due || seats_down)
		return;
	if (commit_ev == NULL && ((commit_ev = event_new(base, -1, 0,
	    seat_commit, NULL)) == NULL ||
	    event_priority_set(commit_ev, PRI_FLUSH) == -1))
		fatalx("commit event: out of memory");
	tv.tv_sec = (time_t)(wait_us / 1000000);
	tv.tv_usec = (suseconds_t)(wait_us % 1000000);
	event_add(commit_ev, &tv);
	commit_due = 1;
}

/*
 * Write what each dirty seat has queued, straight to its descriptor
 * (libevent lets nobody but itself drain a bufferevent's output, hence
 * s->out).  What the socket does not take, or an error, goes to the
 * bufferevent: EV_WRITE then writes the rest when it can, or reports the
 * error to seat_event().  Behind such a backlog, new lines queue there
 * too, so that order holds.
 */
static void
seat_flush(evutil_socket_t fd, short what, void *arg)
{
	struct seat	*s;
	int64_t		 began;

	(void)fd;
	(void)what;
	(void)arg;
	flush_due = 0;
	seat_commit_due();
	began = util_now_us();
	while ((s = TAILQ_FIRST(&dirty)) != NULL) {
		seat_undirty(s);
		if (!s->due) {
			/* notes only: held for the seat's next command, and
			 * from now on of an earlier pass */
			s->held = s->outlen;
			s->nheld = s->unsent;
			continue;
		}
		seat_write_out(s, began);
	}
}

/*
 * The log first, as the durability policy says (db_group_due()): the
 * open group is committed once its window is over, in one transaction
 * with later passes' until then.  A lost group aborts its matches,
 * which may write again: commit that too.
 */
static void
seat_commit_due(void)
{
	int64_t	 wait = 0;
	int	 n;

	for (n = 0; n < 8 && db_group_due(logdb, util_now_us(), &wait); n++)
		db_group_commit(logdb);
	seat_commit_later(wait);
}

/*
 * Write what s has queued, straight to its descriptor, and start the
 * clocks of its commands; began is when the writing began, for the
 * clock's attribution.
 */
static void
seat_write_out(struct seat *s, int64_t began)
{
	struct evbuffer	*bout;
	int64_t		 now;
	ssize_t		 w;
	int		 i;

	s->due = 0;
	s->held = 0;
	s->nheld = 0;
	seat_tx_out(s);
	if (s->bev != NULL) {
		bout = bufferevent_get_output(s->bev);
		/* on an error the rest goes to the bufferevent, which meets
		 * the error again and reports it */
		w = 0;
		if (evbuffer_get_length(bout) == 0 && s->outlen > 0 &&
		    (w = write(s->wfd, s->out, s->outlen)) < 0)
			w = 0;
		if ((size_t)w < s->outlen) {
			seat_out_backlog(s, (size_t)w);
			bufferevent_enable(s->bev, EV_WRITE);
		} else
			seat_out_cut(s, 0);
	}
	/*
	 * The commands' clocks start now, as the write returns: the writes
	 * to the seats before this one in the pass, and any preemption of
	 * refd among them, are refd's time.
	 */
	now = util_now_us();
	for (i = s->npend - s->unsent; i < s->npend; i++) {
		struct seat_pend *p = &s->pend[(s->phead + i) % s->npcap];

		p->flushed_us = began;
		p->sent_us = now;
		p->deadline_us = now + p->limit_us;
	}
	s->unsent = 0;
	if (s->bev != NULL)
		seat_arm(s);
}

/*
 * Write the commands queued for s now, before the pass is over, as
 * seat_flush() would: once any commit the durability policy makes due
 * is done.  A match that logs a play after asking for the next move
 * lets the next bot think while refd logs.  Nothing for a seat with
 * notes only: they stay held.
 */
void
seat_push(struct seat *s)
{
	if (!s->isdirty || !s->due)
		return;
	seat_commit_due();
	/* a lost group drops what this pass queued (seat_drop_unsent()) */
	if (!s->isdirty || !s->due)
		return;
	seat_undirty(s);
	seat_write_out(s, util_now_us());
}

/* Bytes queued for the bot and not yet written, either way. */
static size_t
seat_unwritten(struct seat *s)
{
	return s->outlen + evbuffer_get_length(bufferevent_get_output(s->bev));
}

/* libevent wrote a backlog out: back to writing in seat_flush(). */
static void
seat_drained(struct bufferevent *bev, void *arg)
{
	(void)arg;
	bufferevent_disable(bev, EV_WRITE);
}

/*
 * Arm the timer for the earliest deadline of the commands written and
 * still awaited, if any: a slow answer to a notification never holds up
 * the verdict on a genplay sent after it.  A timer already due no later
 * is left alone: firing early costs a re-arm in seat_timeout(), while
 * re-arming at every answer cost two timer-heap operations per command.
 */
static void
seat_arm(struct seat *s)
{
	struct timeval	 tv;
	int64_t		 left, first = 0;
	int		 i;

	for (i = 0; i < s->npend; i++) {
		struct seat_pend *p = &s->pend[(s->phead + i) % s->npcap];
		if (p->abandoned || p->deadline_us == 0)
			continue;
		if (first == 0 || p->deadline_us < first)
			first = p->deadline_us;
	}
	if (first == 0) {
		if (s->armed_us != 0)
			evtimer_del(s->timer);
		s->armed_us = 0;
		return;
	}
	if (s->armed_us != 0 && s->armed_us <= first)
		return;
	left = first - util_now_us();
	if (left < 0)
		left = 0;
	tv.tv_sec = left / 1000000;
	tv.tv_usec = left % 1000000;
	evtimer_add(s->timer, &tv);
	s->armed_us = first;
}

/*
 * The bot's time for command p's answer, arrived at at: since its line
 * was written, less whatever of that refd's own loop spent stalled,
 * unless at is exact.  A stall can only hide when an answer came, so
 * it is taken off an answer the loop woke to find, never off one the
 * kernel stamped, nor off a command still unanswered.  An answer read
 * in the pass that wrote its command came after the pass woke: then it
 * is timed by the clock.
 */
static int64_t
seat_charged(const struct seat_pend *p, int64_t at, int exact)
{
	int64_t	 us;

	if (p->sent_us == 0)
		return 0;
	if (at < p->sent_us)
		at = util_now_us();
	us = at - p->sent_us;
	if (!exact)
		us -= clock_stalled(p->sent_us, at);
	return us > 0 ? us : 0;
}

/*
 * For -vv: the moments of command p's clock, on the monotonic clock in
 * microseconds, so that a disputed time can be taken apart (bench/clock.py
 * does): queued by the match, the flush pass begun, written (the clock's
 * start), the answer's arrival as charged (0: none yet), the time charged
 * and the stall taken off.
 */
static void
seat_clock_log(const struct seat *s, const struct seat_pend *p,
    const char *what, int64_t at, int64_t us)
{
	static const char *const kinds[] = {
		[PEND_NOTE] = "note", [PEND_NAME] = "name",
		[PEND_VERSION] = "version", [PEND_GENPLAY] = "genplay",
		[PEND_QUIT] = "quit", [PEND_GENBID] = "genbid",
		[PEND_GENCALL] = "gencall", [PEND_KNOWN] = "known_command",
		[PEND_PROBE] = "probe",
	};
	const char	*kind = (unsigned)p->kind < sizeof(kinds) /
			    sizeof(kinds[0]) && kinds[p->kind] != NULL ?
			    kinds[p->kind] : "?";

	log_debug("clock: %s %s (%s) command %u %s: queued %lld flushed %lld "
	    "written %lld arrived %lld charged %lld stalled %lld limit %lld",
	    what, s->bot ? s->bot->name : "-", s->peer, p->id, kind,
	    (long long)p->queued_us, (long long)p->flushed_us,
	    (long long)p->sent_us, (long long)at, (long long)us,
	    (long long)(p->sent_us != 0 && at - p->sent_us > us ?
	    at - p->sent_us - us : 0), (long long)p->limit_us);
}

/*
 * Make room for one more unanswered command: the ring doubles, in order,
 * up to SEAT_MAXPEND.  Returns 0, or -1 when it cannot grow.
 */
static int
seat_pend_grow(struct seat *s)
{
	struct seat_pend *np;
	int		 i, cap = s->npcap * 2;

	if (s->npend < s->npcap)
		return 0;
	if (cap > SEAT_MAXPEND || (np = calloc(cap, sizeof(*np))) == NULL)
		return -1;
	for (i = 0; i < s->npend; i++)
		np[i] = s->pend[(s->phead + i) % s->npcap];
	free(s->pend);
	s->pend = np;
	s->npcap = cap;
	s->phead = 0;
	return 0;
}

/* Write "ID " for a command into buf; returns its length (at most 11). */
static int
seat_idtext(char *buf, unsigned id)
{
	char	 d[10];
	int	 n = 0, i = 0;

	do
		d[n++] = (char)('0' + id % 10);
	while ((id /= 10) != 0);
	while (n > 0)
		buf[i++] = d[--n];
	buf[i++] = ' ';
	return i;
}

/*
 * Queue n bytes for the bot.  The room is taken as it is needed and
 * given back when all is written: a seat holding a few notes for its
 * next command keeps a few dozen bytes, not a buffer.  0, or -1 when
 * out of memory.
 */
static int
seat_out_add(struct seat *s, const void *p, size_t n)
{
	size_t	 cap = s->outcap ? s->outcap : 128;
	char	*np;

	while (cap - s->outlen < n) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	if (cap != s->outcap) {
		if ((np = realloc(s->out, cap)) == NULL)
			return -1;
		s->out = np;
		s->outcap = cap;
	}
	memcpy(s->out + s->outlen, p, n);
	s->outlen += n;
	return 0;
}

/* Keep the first len bytes queued; none left, none kept. */
static void
seat_out_cut(struct seat *s, size_t len)
{
	if (len < s->outlen)
		s->outlen = len;
	if (s->tx_from > s->outlen)
		s->tx_from = s->outlen;
	if (s->outlen == 0) {
		free(s->out);
		s->out = NULL;
		s->outcap = 0;
	}
}

/*
 * What is queued from byte from on goes to the bufferevent, which
 * writes it when the socket takes it (or meets the error again).
 */
static void
seat_out_backlog(struct seat *s, size_t from)
{
	if (from < s->outlen)
		evbuffer_add(bufferevent_get_output(s->bev), s->out + from,
		    s->outlen - from);
	seat_out_cut(s, 0);
}

/*
 * Send a command to the bot: "ID " then the formatted text and a newline.
 * Its answer is due within limit_ms of the moment the line is written.
 * Returns 0, or -1 if the bot has too much unread or unanswered (the
 * seat then faults, at the loop's next step).
 */
int
seat_send(struct seat *s, enum pend_kind kind, int limit_ms,
    const char *fmt, ...)
{
	struct seat_pend *p;
	va_list		 ap;
	char		 line[BOTPROTO_MAXLINE + 16], *big = NULL;
	const char	*text;
	size_t		 mark;
	int		 n, k, r;

	if (s->bev == NULL || s->broken)
		return -1;
	if (s->npend == SEAT_MAXPEND || seat_unwritten(s) > SEAT_MAXOUT) {
		seat_fault(s, "unresponsive",
		    s->npend == SEAT_MAXPEND ? "too many unanswered commands" :
		    "bot stopped reading its input");
		return -1;
	}
	if (seat_pend_grow(s) == -1) {
		seat_fault(s, "unresponsive", "out of memory");
		return -1;
	}
	/* the whole line at once, then one buffer append */
	n = seat_idtext(line, s->next_id + 1);
	va_start(ap, fmt);
	if (strcmp(fmt, "%s") == 0) {	/* most lines come built */
		text = va_arg(ap, const char *);
		k = (int)strnlen(text, sizeof(line));
		if ((size_t)(n + k) < sizeof(line) - 1)
			memcpy(line + n, text, k);
	} else
		k = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (k >= 0 && (size_t)(n + k) < sizeof(line) - 1) {
		text = line + n;
		line[n + k] = '\n';
		r = seat_out_add(s, line, n + k + 1);
	} else {	/* rare: a line longer than any the protocol has */
		mark = s->outlen;
		va_start(ap, fmt);
		k = vasprintf(&big, fmt, ap);
		va_end(ap);
		text = big;
		r = k < 0 || seat_out_add(s, line, n) == -1 ||
		    seat_out_add(s, big, k) == -1 ||
		    seat_out_add(s, "\n", 1) == -1 ? -1 : 0;
		if (r == -1)
			seat_out_cut(s, mark);
	}
	if (r == -1) {
		free(big);
		seat_fault(s, "unresponsive", "out of memory");
		return -1;
	}
	free(big);
	p = &s->pend[(s->phead + s->npend++) % s->npcap];
	p->id = ++s->next_id;
	p->kind = kind;
	p->limit_us = (int64_t)limit_ms * 1000;
	p->sent_us = p->deadline_us = 0;	/* seat_flush() sets them */
	p->queued_us = util_now_us();
	p->abandoned = 0;
	s->unsent++;
	if (kind == PEND_NOTE && s->lazy)
		seat_touch(s);
	else
		seat_dirty(s);
	return 0;
}

/*
 * Lazy (on) or eager notifications for s, from now until it is
 * released: in lazy mode a note is written with the seat's next command
 * whose answer counts, or when the seat is released, never later.
 */
void
seat_lazy(struct seat *s, int on)
{
	s->lazy = on;
}

/*
 * A fault: the seat marks itself (broken, unless the bot can still be
 * spoken to) and its match hears of it at the loop's next step.  One
 * fault at a time is delivered; what follows while it waits only adds
 * to the seat's breakage.  A seat no match holds is closed.
 */
static void
seat_fault(struct seat *s, const char *kind, const char *evidence)
{
	seat_fault_timed(s, kind, evidence, -1);
}

/* A fault whose time the seat knows (us), or -1. */
static void
seat_fault_timed(struct seat *s, const char *kind, const char *evidence,
    int64_t us)
{
	log_info("bot %s (%s): %s: %s", s->bot ? s->bot->name : "-", s->peer,
	    kind, evidence);
	if (strcmp(kind, "timeout") != 0 && strcmp(kind, "illegal") != 0)
		s->broken = 1;
	if (s->state != SEAT_PLAYING || s->cb == NULL) {
		seat_close(s);
		return;
	}
	if (s->fault_due)
		return;
	s->fault_due = 1;
	s->fault_us = us;
	snprintf(s->fault_kind, sizeof(s->fault_kind), "%s", kind);
	/* on the heap only while it waits: faults are rare, seats many */
	free(s->fault_ev);
	s->fault_ev = strndup(evidence, SEAT_MAXEV);
	TAILQ_INSERT_TAIL(&faulted, s, faultq);
	event_active(fault_ev, 0, 1);
}

/*
 * Deliver the faults seat_fault() kept, in the order they came, to the
 * seats' holders, if still held.  A fault met while these are delivered
 * waits for the next run, as it would have met a seat of its own.  No
 * seat is freed meanwhile: seat_free() runs from the loop.
 */
static void
seat_fault_run(evutil_socket_t fd, short what, void *arg)
{
	TAILQ_HEAD(, seat) batch = TAILQ_HEAD_INITIALIZER(batch);
	struct seat	*s;
	char		*ev;

	(void)fd;
	(void)what;
	(void)arg;
	TAILQ_CONCAT(&batch, &faulted, faultq);
	while ((s = TAILQ_FIRST(&batch)) != NULL) {
		TAILQ_REMOVE(&batch, s, faultq);
		s->fault_due = 0;
		ev = s->fault_ev;
		s->fault_ev = NULL;
		if (s->cb != NULL)
			s->cb->fault(s->cbarg, s, s->fault_kind, ev != NULL ?
			    ev : "(no memory for the evidence)", s->fault_us);
		else if (s->broken && s->state != SEAT_DEAD)
			seat_close(s);
		free(ev);
	}
}

/* Output drained: a seat closing after its last words can go now. */
static void
seat_flushed(struct bufferevent *bev, void *arg)
{
	(void)bev;
	seat_close(arg);
}

/* Close once what is already queued for the peer has been written. */
static void
seat_close_flushed(struct seat *s)
{
	seat_undirty(s);
	seat_tx_out(s);
	seat_out_backlog(s, 0);
	event_del(s->rdev);
	if (evbuffer_get_length(bufferevent_get_output(s->bev)) == 0) {
		seat_close(s);
		return;
	}
	bufferevent_setcb(s->bev, NULL, seat_flushed, seat_event, s);
	bufferevent_enable(s->bev, EV_WRITE);
}

/*
 * Refuse an authentication: log it, count it against the address, and
 * answer only after AUTH_FAIL_MS, from seat_timeout().
 */
static void
seat_auth_refuse(struct seat *s, const char *who)
{
	struct timeval	 tv = { 0, AUTH_FAIL_MS * 1000 };
	char		 name[160], peer[96];
	int		 throttled, more;

	throttled = seat_auth_throttled(s->peer, who, 1);
	throttled |= guard_name(who, s->peer, 1);
	util_printable(name, sizeof(name), who, strlen(who));
	if (guard_log(&more)) {		/* a flood cannot fill the log */
		snprintf(peer, sizeof(peer), more ? "%s (+%d not logged)" :
		    "%s", s->peer, more);
		log_warnx("remote bot %s (%s): authentication failed%s", peer,
		    name, throttled ? ", throttled" : "");
		db_bot_event(logdb, 0, -1, name, throttled ? "auth-throttled" :
		    "auth-failed", peer);
	}
	s->broken = 1;
	s->auth_refused = 1;
	event_del(s->rdev);
	evtimer_add(s->timer, &tv);
}

/* A remote bot's first line: "auth NAME TOKEN". */
static void
seat_auth(struct seat *s, char *line)
{
	struct gtp_cmd	 c;
	struct bot	*b;
	c.argc = 0;
	gtp_clean(line);
	if (gtp_parse_command(line, &c) == -1 || strcmp(c.name, "auth") != 0 ||
	    c.argc != 2 || (b = bots_find(c.argv[0])) == NULL ||
	    b->kind != BOT_REMOTE || !bots_auth(c.argv[0], c.argv[1])) {
		seat_auth_refuse(s, c.argc >= 1 ? c.argv[0] : "");
		return;
	}
	if (seat_auth_throttled(s->peer, c.argv[0], 0) ||
	    guard_name(c.argv[0], s->peer, 0)) {
		/* even the right token waits out the throttle */
		seat_auth_refuse(s, c.argv[0]);
		return;
	}
	evtimer_del(s->timer);
	s->armed_us = 0;
	s->bot = b;
	s->heard_us = util_now_us();
	/* without memory nothing is said: the bot's wait times it out */
	(void)seat_out_add(s, "=\n\n", 3);
	seat_dirty(s);
	db_bot_event(logdb, 0, -1, b->name, "connect", s->peer);
	guard_trust(b->name, s->peer);
	seat_enter(s, SEAT_IDLE);
	if (ready_cb != NULL)
		ready_cb(b);
}

/*
 * A whole answer arrived: pop its command and hand it to the match.  An
 * answer later than its limit is a timeout, whenever the loop got to
 * read it: no answer over its limit is ever taken.
 */
static void
seat_answer(struct seat *s)
{
	struct seat_pend p = s->pend[s->phead];
	char		 ev[160];
	int64_t		 us = seat_charged(&p, s->arrival_us ? s->arrival_us :
			    util_now_us(), s->arrival_exact);

	s->phead = (s->phead + 1) % s->npcap;
	s->npend--;
	s->heard_us = util_now_us();
	if (p.kind == PEND_PROBE && !p.abandoned && s->state == SEAT_IDLE) {
		/* still there: it may be seated now */
		if (s->npend == 0)
			seat_arm(s);
		s->probing = 0;
		if (ready_cb != NULL)
			ready_cb(s->bot);
		return;
	}
	s->ans_line = 0;
	if (s->tx_on && p.id >= s->tx_first) {
		seat_tx_answer(s);
		s->ans_line = (long long)(p.id - s->tx_first) + 1;
	}
	if (s->npend == 0)
		seat_arm(s);	/* else an early timer re-arms itself */
	if (PEND_MOVE(p.kind) || p.abandoned || us > p.limit_us)
		seat_clock_log(s, &p, p.abandoned ? "late" : "answer",
		    s->arrival_us ? s->arrival_us : util_now_us(), us);
	if (p.abandoned) {
		/* hashed in the receipt: the match logs it */
		if (s->ans_line > 0 && s->state == SEAT_PLAYING &&
		    s->cb != NULL && s->cb->late != NULL)
			s->cb->late(s->cbarg, s, p.kind, s->fr.ok, s->fr.text,
			    us);
		return;
	}
	if (us > p.limit_us && s->state == SEAT_PLAYING) {
		if (s->ans_line > 0 && s->cb != NULL && s->cb->late != NULL)
			s->cb->late(s->cbarg, s, p.kind, s->fr.ok, s->fr.text,
			    us);
		snprintf(ev, sizeof(ev), "answer to command %u after %lld ms; "
		    "the limit is %lld ms", p.id, (long long)us / 1000,
		    (long long)p.limit_us / 1000);
		if (!PEND_MOVE(p.kind))
			s->broken = 1;
		seat_fault_timed(s, "timeout", ev, us);
		return;
	}
	if (p.kind == PEND_NAME)
		snprintf(s->name, sizeof(s->name), "%.63s", s->fr.text);
	else if (p.kind == PEND_VERSION)
		snprintf(s->version, sizeof(s->version), "%.63s", s->fr.text);
	if (s->state == SEAT_PLAYING && s->cb != NULL)
		s->cb->answer(s->cbarg, s, p.kind, s->fr.ok, s->fr.text, us);
}

/*
 * The line of the match (from 1, its match_start) that the answer being
 * handed to the match's callbacks answers, or 0 for one before it.
 */
long long
seat_answer_line(const struct seat *s)
{
	return s->ans_line;
}

/*
 * An answer to a command of the match, into the transcript hash as its
 * kind and text ("=9C"): what the chained answers and a bot's kept
 * transcript hold, without the id.
 */
static void
seat_tx_answer(struct seat *s)
{
	size_t	 n = s->fr.len + 2;	/* fr.len <= GTP_MAXLINE */

	if (txa.s != s || txa.len + n > sizeof(txa.buf))
		seat_txa_flush();
	txa.s = s;
	txa.buf[txa.len] = s->fr.ok ? '=' : '?';
	memcpy(txa.buf + txa.len + 1, s->fr.text, s->fr.len);
	txa.buf[txa.len + n - 1] = '\n';
	txa.len += n;
	txa.n++;
}

/* Hash the answers waiting in txa into their seat's transcript. */
static void
seat_txa_flush(void)
{
	if (txa.s != NULL && txa.len > 0)
		chain_tx_bytes(&txa.s->tx_ans, txa.buf, txa.len, txa.n);
	txa.s = NULL;
	txa.len = 0;
	txa.n = 0;
}

/* s's answers waiting in txa are of no transcript any more. */
static void
seat_txa_drop(struct seat *s)
{
	if (txa.s == s) {
		txa.s = NULL;
		txa.len = 0;
		txa.n = 0;
	}
}

/*
 * The match is about to send the seat its match_start: the transcript
 * hashes begin with that line (refd-protocol(7), RECEIPTS).
 */
void
seat_transcript_begin(struct seat *s)
{
	seat_txa_drop(s);
	s->tx_on = 1;
	s->tx_first = s->next_id + 1;
	s->tx_from = s->outlen;		/* queued before: not the match's */
	chain_tx_init(&s->tx_sent);
	chain_tx_init(&s->tx_ans);
}

/*
 * The seat's transcript hashes now, "N:SENT:K:ANSWERED", into buf
 * (CHAIN_TXMAX bytes); "-" if they were never begun.  The lines queued
 * so far count as sent: they leave before anything queued later.
 */
void
seat_transcript(struct seat *s, char *buf, size_t len)
{
	if (!s->tx_on) {
		snprintf(buf, len, "-");
		return;
	}
	seat_tx_out(s);
	if (txa.s == s)
		seat_txa_flush();
	chain_tx_text(&s->tx_sent, &s->tx_ans, buf, len);
}

/*
 * Count a line of len bytes against what the bot may send before its
 * next answer; past it, a "flood" fault.  Returns 0, or -1 when the
 * seat takes no more lines.
 */
static int
seat_noise(struct seat *s, size_t len)
{
	char	 ev[96];

	s->nlines++;
	s->nbytes += len + 1;
	if (s->nlines <= SEAT_NOISE_LINES && s->nbytes <= SEAT_NOISE_BYTES)
		return 0;
	snprintf(ev, sizeof(ev), "%d lines, %zu bytes without an answer; "
	    "the bound is %d lines, %d bytes", s->nlines, s->nbytes,
	    SEAT_NOISE_LINES, SEAT_NOISE_BYTES);
	s->broken = 1;
	seat_fault(s, "flood", ev);
	return -1;
}

/* One line from a bot in play: part of an answer, or noise. */
static void
seat_line(struct seat *s, char *line, size_t len)
{
	int	 r, awaited;

	/* a command still in s->out was never written: none is awaited */
	awaited = s->npend > s->unsent;
	r = frame_line(&s->fr, line, len, awaited,
	    awaited ? (long)s->pend[s->phead].id : -1);
	if (r == FRAME_DONE) {
		s->nlines = 0;
		s->nbytes = 0;
		seat_answer(s);
	}
	else if (r != FRAME_MORE)
		seat_fault(s, frame_fault_name(r), s->fr.ev);
}

/*
 * The bot's socket is readable: one read, then frame what came into
 * lines, at most GTP_MAXLINE each; or its end, or an error, reported as
 * the bufferevent would have.  The read lands on this call's stack, and
 * when no part of a line waits in the input, its whole lines are framed
 * where they are (seat_frame_buf()): a line costs no copy into the
 * input and no malloc() out of it.  On the stack, not in a buffer
 * shared by every seat: framing a line may lead to another seat's read
 * (a match ends, the next one takes its seats).
 */
static void
seat_readable(evutil_socket_t fd, short what, void *arg)
{
	struct seat	*s = arg;
	struct evbuffer	*in;
	char		 buf[SEAT_RECVMAX];
	int64_t		 at;
	int		 n, exact;

	(void)fd;
	(void)what;
	if (s->bev == NULL)
		return;
	in = bufferevent_get_input(s->bev);
	n = seat_recv(s, buf, sizeof(buf), &at, &exact);
	if (n > 0 && evbuffer_get_length(in) == 0)
		seat_frame_buf(s, buf, (size_t)n, at, exact);
	else if (n > 0 && seat_in_add(in, buf, (size_t)n) == 0)
		seat_frame(s, at, exact);	/* it was all there by then */
	else if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK &&
	    errno != EINTR)) {
		/* reported once, as a bufferevent stops reading then */
		event_del(s->rdev);
		seat_event(s->bev, BEV_EVENT_READING |
		    (n == 0 ? BEV_EVENT_EOF : BEV_EVENT_ERROR), s);
	}
}

/*
 * One line from the bot, its end of line taken off and a NUL after it.
 * Returns 0, or -1 when the seat takes no more lines now (a fault).
 */
static int
seat_take_line(struct seat *s, char *line, size_t len)
{
	char	 ev[256];

	if (len > GTP_MAXLINE) {
		seat_fault(s, "overlong", "line over the cap");
		return -1;
	}
	if (memchr(line, '\0', len) != NULL) {
		util_printable(ev, sizeof(ev), line, len);
		seat_fault(s, "garbage", ev);
		return -1;
	}
	if (s->state != SEAT_AUTH && seat_noise(s, len) == -1)
		return -1;
	if (s->state == SEAT_AUTH)
		seat_auth(s, line);
	else if (s->state == SEAT_IDLE && s->npend > 0)
		seat_line(s, line, len);	/* after-match answers */
	else if (s->state == SEAT_IDLE) {
		if (!gtp_clean(line)) {
			s->broken = 1;
			seat_close(s);
		}
	} else if (s->state == SEAT_PLAYING ||
	    s->state == SEAT_CLOSING)
		seat_line(s, line, len);
	return 0;
}

/* Frame what has been read into lines, at most GTP_MAXLINE each. */
static void
seat_lines(struct seat *s)
{
	struct evbuffer	*in = bufferevent_get_input(s->bev);
	char		*line;
	size_t		 len;
	int		 r;

	while (s->bev != NULL && !s->broken &&
	    (line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF)) != NULL) {
		r = seat_take_line(s, line, len);
		free(line);
		if (r == -1)
			return;
	}
	seat_lines_end(s);
}

/*
 * After the lines: a rest longer than a line is a fault, and what a
 * broken seat sent is dropped unless a match still judges it.
 */
static void
seat_lines_end(struct seat *s)
{
	struct evbuffer	*in;

	if (s->bev == NULL)
		return;
	in = bufferevent_get_input(s->bev);
	if (!s->broken && evbuffer_get_length(in) > GTP_MAXLINE)
		seat_fault(s, "overlong", "line over the cap");
	if (s->bev != NULL && s->broken && s->state != SEAT_PLAYING)
		evbuffer_drain(in, evbuffer_get_length(in));
}

/*
 * seat_frame() of n bytes read into buf, the input being empty: each
 * whole line is taken where it lies, as evbuffer_readln() would have
 * cut it (EVBUFFER_EOL_CRLF: a LF, or CR LF); a rest, or what comes
 * after a fault, goes to the input, as it would have stayed there.
 */
static void
seat_frame_buf(struct seat *s, char *buf, size_t n, int64_t at, int exact)
{
	char	*p = buf, *end = buf + n, *nl;
	size_t	 len;
	int	 fault = 0;

	s->arrival_us = at;
	s->arrival_exact = exact;
	while (s->bev != NULL && !s->broken &&
	    (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		len = (size_t)(nl - p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		p[len] = '\0';
		fault = seat_take_line(s, p, len) == -1;
		p = nl + 1;
		if (fault)
			break;
	}
	if (s->bev != NULL && p < end &&
	    seat_in_add(bufferevent_get_input(s->bev), p,
	    (size_t)(end - p)) == -1) {
		event_del(s->rdev);
		seat_event(s->bev, BEV_EVENT_READING | BEV_EVENT_ERROR, s);
	} else if (!fault)
		seat_lines_end(s);
	s->arrival_us = 0;
	s->arrival_exact = 0;
}

/*
 * The evidence of a spawned bot's end of file: what, followed by why, as
 * the end of its stderr tells (spawn_last_words()): the exec error of a
 * bot that could not start, or its last line.  What it wrote before it
 * went is read first, a bounded last look as in seat_free().
 */
static const char *
seat_eof_why(struct seat *s, char *buf, size_t len, const char *what)
{
	char	 why[SEAT_MAXEV];
	int	 i;

	for (i = 0; i < 64 && s->errfd != -1; i++)
		if (seat_stderr_read(s) <= 0)
			break;
	if (s->errtail == NULL || spawn_last_words(s->errtail,
	    s->errtaillen, why, sizeof(why)) == NULL)
		snprintf(buf, len, "%s", what);
	else
		util_format(buf, len, "%s: %s", what, why);
	return buf;
}

/* End of file or an error on the connection. */
static void
seat_event(struct bufferevent *bev, short what, void *arg)
{
	struct seat	*s = arg;
	char		 ev[SEAT_MAXEV + 1];

	(void)bev;
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	if (s->state == SEAT_PLAYING && s->cb != NULL) {
		if (s->bot->kind == BOT_SPAWN)
			seat_fault(s, "eof", seat_eof_why(s, ev, sizeof(ev),
			    what & BEV_EVENT_EOF ? "end of file" :
			    "connection error"));
		else
			seat_fault(s, "disconnect", what & BEV_EVENT_EOF ?
			    "end of file" : "connection error");
		return;
	}
	if (s->state == SEAT_IDLE && s->bot != NULL)
		db_bot_event(logdb, 0, -1, s->bot->name, "disconnect",
		    s->peer);
	seat_close(s);
}

/* The oldest awaited answer is late. */
static void
seat_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct seat	*s = arg;
	struct seat_pend *p;
	char		 ev[160];
	int64_t		 now, due, charged;
	int		 i;

	(void)fd;
	(void)what;
	due = s->armed_us;
	s->armed_us = 0;
	if (s->state == SEAT_AUTH && s->auth_refused) {
		evbuffer_add_printf(bufferevent_get_output(s->bev),
		    "? authentication failed\n\n");
		seat_close_flushed(s);
		return;
	}
	if (s->state == SEAT_AUTH) {
		log_warnx("remote bot %s: no authentication in time",
		    s->peer);
		s->broken = 1;
		seat_close(s);
		return;
	}
	/*
	 * A timeout is a fact about the bot: first read what it sent.  The
	 * timer was due at due; however much later the loop ran it is
	 * refd's lateness, not the bot's time.
	 */
	now = util_now_us();
	if (due == 0 || due > now)
		due = now;
	if (s->state == SEAT_PLAYING)
		seat_drain(s, due);
	now = due;
	for (i = 0; i < s->npend && s->state != SEAT_DEAD; i++) {
		p = &s->pend[(s->phead + i) % s->npcap];
		if (p->abandoned || p->deadline_us == 0 || p->deadline_us > now)
			continue;
		if (s->state == SEAT_CLOSING) {
			seat_close(s);
			return;
		}
		/*
		 * Still unanswered, with all it sent read: whatever refd's
		 * loop did meanwhile, the bot had not answered by now.
		 */
		if (p->kind == PEND_PROBE && s->state == SEAT_IDLE) {
			log_warnx("remote bot %s (%s): no answer to a probe "
			    "in %d ms: closed, not seated", s->bot->name,
			    s->peer, SEAT_PROBE_MS);
			db_bot_event(logdb, 0, -1, s->bot->name, "disconnect",
			    s->peer);
			s->broken = 1;
			seat_close(s);
			return;
		}
		charged = seat_charged(p, now, 1);
		p->abandoned = 1;
		seat_clock_log(s, p, "timeout", now, charged);
		snprintf(ev, sizeof(ev), "no answer to command %u after %lld ms; "
		    "%s %lld ms", p->id, (long long)charged / 1000,
		    p->kind == PEND_NAME || p->kind == PEND_VERSION ?
		    "a slow start: the start-up limit is" : "the limit is",
		    (long long)p->limit_us / 1000);
		if (!PEND_MOVE(p->kind))
			s->broken = 1;
		seat_fault_timed(s, "timeout", ev, charged);
		break;
	}
	if (s->state != SEAT_DEAD)
		seat_arm(s);
}

/*
 * Read whatever the bot has sent and the loop has not read yet, and
 * frame it, as if its read event had run: a deadline is only missed if
 * the answer is not already there.  Over TCP what is found arrived at
 * the kernel's stamp; else it is taken as arrived at at, as the loop
 * cannot tell how much earlier it came.
 */
static void
seat_drain(struct seat *s, int64_t at)
{
	int64_t	 stamp;

	if (s->bev == NULL || s->broken)
		return;
	(void)seat_read_now(s, bufferevent_get_input(s->bev), &stamp);
	seat_frame(s, stamp ? stamp : at, stamp != 0);
}

/*
 * Frame what the input holds, as having arrived at at: the kernel's
 * stamp if exact, else a time the loop took.
 */
static void
seat_frame(struct seat *s, int64_t at, int exact)
{
	s->arrival_us = at;
	s->arrival_exact = exact;
	seat_lines(s);
	s->arrival_us = 0;
	s->arrival_exact = 0;
}

/*
 * The match is done with this seat.  A healthy remote bot goes back to
 * its pool; a spawned bot is told to quit, then signalled.
 */
void
seat_release(struct seat *s)
{
	struct timeval	 tv = { 0, SEAT_QUIT_MS * 1000 };

	s->cb = NULL;
	s->cbarg = NULL;
	s->index = -1;
	s->tx_on = 0;
	s->lazy = 0;
	/*
	 * Whatever is held (match_end among it) leaves in this pass; a
	 * seat that broke is sent nothing more, whatever its kind.
	 */
	if (s->bev != NULL && !s->broken && s->outlen > 0)
		seat_dirty(s);
	if (s->bev == NULL) {
		seat_close(s);
		return;
	}
	if (s->bot->kind == BOT_REMOTE && !s->broken) {
		seat_enter(s, SEAT_IDLE);
		if (ready_cb != NULL)
			ready_cb(s->bot);
		return;
	}
	if (s->bot->kind == BOT_REMOTE || !seat_has_process(s)) {
		seat_close(s);
		return;
	}
	if (!s->broken)
		seat_send(s, PEND_QUIT, SEAT_QUIT_MS, "quit");
	seat_enter(s, SEAT_CLOSING);
	evtimer_add(s->killtimer, &tv);
}

/* Closing a spawned bot: SIGTERM to its group, then SIGKILL. */
static void
seat_killstep(evutil_socket_t fd, short what, void *arg)
{
	struct seat	*s = arg;
	struct timeval	 tv = { 0, SEAT_QUIT_MS * 1000 };

	(void)fd;
	(void)what;
	if (s->pid <= 0)
		return;
	spawn_signal(s->pid, s->killstep++ == 0 ? SIGTERM : SIGKILL);
	if (s->killstep < 3)
		evtimer_add(s->killtimer, &tv);
}

/* Drop the connection; the seat is freed once its process is reaped. */
static void
seat_close(struct seat *s)
{
	struct timeval	 tv = { 0, 0 };

	seat_undirty(s);
	if (s->bev != NULL) {
		event_free(s->rdev);
		s->rdev = NULL;
		bufferevent_free(s->bev);
		s->bev = NULL;
		if (s->fd != s->wfd)
			close(s->fd);
		s->fd = s->wfd = -1;
	}
	evtimer_del(s->timer);
	s->armed_us = 0;
	if (s->state != SEAT_DEAD)
		seat_enter(s, SEAT_DEAD);
	s->cb = NULL;
	s->cbarg = NULL;
	if (s->pid > 0 && s->killstep == 0)
		evtimer_add(s->killtimer, &tv);
	seat_maybe_free(s);
}

/* Free a seat, from the loop, once no callback can still hold it. */
static void
seat_free(evutil_socket_t fd, short what, void *arg)
{
	struct seat	*s = arg;
	int		 i;

	(void)fd;
	(void)what;
	TAILQ_REMOVE(&seats, s, entry);
	nseats_alive--;
	if (free_cb != NULL)
		free_cb();
	seat_txa_drop(s);
	/*
	 * What the bot wrote to stderr before it went belongs in its log,
	 * though the loop has not read it yet: a bounded last look.
	 */
	for (i = 0; i < 64 && s->errfd != -1; i++)
		if (seat_stderr_read(s) <= 0)
			break;
	event_free(s->timer);
	if (s->killtimer != NULL)
		event_free(s->killtimer);
	if (s->fault_due)
		TAILQ_REMOVE(&faulted, s, faultq);
	free(s->fault_ev);
	free(s->errtail);
	free(s->pend);
	frame_free(&s->fr);
	free(s->out);
	if (s->errev != NULL)
		event_free(s->errev);
	if (s->errfd != -1)
		close(s->errfd);
	if (s->logfd != -1)
		close(s->logfd);
	free(s);
}

/* Schedule the free of a dead seat whose process, if any, was reaped. */
static void
seat_maybe_free(struct seat *s)
{
	struct timeval	 tv = { 0, 0 };

	if (s->state != SEAT_DEAD || seat_has_process(s) || s->freeing)
		return;
	s->freeing = 1;
	event_base_once(base, -1, EV_TIMEOUT, seat_free, s, &tv);
}

/* Has s a bot process, alive or still to be started (spawnq.c)? */
static int
seat_has_process(const struct seat *s)
{
	return s->pid > 0 || s->starting;
}

/*
 * The spawner's thread has started s's bot as pid (spawnq.c), or could
 * not (-1: its stderr says why and its stdout is at its end).  It may
 * have been reaped already, and its seat closed meanwhile.
 */
static void
seat_started(void *arg, pid_t pid)
{
	struct seat	*s = arg;
	struct timeval	 tv = { 0, 0 };
	int		 i, status = 0, reaped = 0;

	s->starting = 0;
	nstarting--;
	for (i = 0; pid != -1 && i < nearly; i++)
		if (early[i].pid == pid) {
			status = early[i].status;
			early[i] = early[--nearly];
			reaped = 1;
			break;
		}
	if (nstarting == 0)
		nearly = 0;	/* no seat is left to claim one */
	if (pid == -1) {
		snprintf(s->peer, sizeof(s->peer), "no process");
		seat_maybe_free(s);
		return;
	}
	s->pid = pid;
	snprintf(s->peer, sizeof(s->peer), "pid %ld", (long)pid);
	/* logged whether or not its match still holds it */
	db_bot_event(logdb, s->spawn_match, s->spawn_seat, s->bot->name,
	    "spawn", s->peer);
	if (reaped) {
		seat_reap(pid, status);
		return;
	}
	/* closed while it started: its closing goes on now */
	if ((s->state == SEAT_DEAD || s->state == SEAT_CLOSING) &&
	    !evtimer_pending(s->killtimer, NULL))
		evtimer_add(s->killtimer, &tv);
}

/* A child exited: find its seat and let it go. */
void
seat_reap(pid_t pid, int status)
{
	struct seat	*s;

	TAILQ_FOREACH(s, &seats, entry)
		if (s->pid == pid)
			break;
	if (s == NULL) {
		/* one whose seat has yet to hear its pid: kept for it */
		if (nearly < nstarting && nearly < SEAT_EARLY)
			early[nearly++] = (struct seat_early){ pid, status };
		else if (nstarting > 0)
			log_warnx("pid %ld exited unclaimed", (long)pid);
		return;
	}
	log_debug("bot %s (%s) exited with status %d", s->bot->name,
	    s->peer, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	/* whatever the group left behind goes too */
	spawn_signal(pid, SIGKILL);
	s->pid = 0;
	if (s->killtimer != NULL)
		evtimer_del(s->killtimer);
	if (s->state == SEAT_PLAYING && s->bev != NULL) {
		/* let seat_event report the EOF once its stdout drains */
		return;
	}
	if (s->state == SEAT_CLOSING)
		seat_close(s);
	else
		seat_maybe_free(s);
}

/* Shutting down: close every connection and kill every bot now. */
void
seat_shutdown_all(void)
{
	struct seat	*s, *t;

	TAILQ_FOREACH_SAFE(s, &seats, entry, t) {
		if (s->pid > 0)
			spawn_signal(s->pid, SIGKILL);
		if (s->state != SEAT_DEAD)
			seat_close(s);
	}
	db_group_commit(logdb);
	seats_down = 1;
	if (flush_ev != NULL) {
		event_free(flush_ev);
		flush_ev = NULL;
	}
	if (commit_ev != NULL) {
		event_free(commit_ev);
		commit_ev = NULL;
	}
}
