/*
 * fuzz_botline.c: any bytes as a bot's output, read the way a seat reads
 * them (seat.c): framed by libevent's evbuffer_readln(EVBUFFER_EOL_CRLF)
 * as they arrive in chunks, a line over GTP_MAXLINE or holding a NUL is
 * a fault, and each line goes through frame_line(), the answer state
 * machine refd runs.  The bot was sent name, version, then genplay after
 * genplay of a classic2 deal; each whole answer is judged the way
 * match.c judges it, and a legal card is played.
 *
 * The first byte sets the run: bit 7, the first line is a remote bot's
 * "auth NAME TOKEN" (gtp_parse_command); bits 0-1, commands awaited at
 * the start; bits 2-4, the size of the chunks the bytes arrive in.
 */
#include "config.h"

#include <string.h>

#include <event2/buffer.h>

#include "briscola.h"
#include "frame.h"
#include "fuzz.h"
#include "gtp.h"
#include "util.h"

#define FUZZ_MAXPEND	4	/* commands awaited at once */

/* One simulated seat: the answers it awaits and its game. */
struct sim {
	struct frame	 fr;
	unsigned	 next_id;	/* last id sent */
	unsigned	 pend[FUZZ_MAXPEND];	/* ids awaited, oldest first */
	int		 npend;
	int		 broken;	/* a fault: refd reads no more */
	struct bri_match bm;
};

static const struct bri_seed fuzz_seed = { { 7, 1, 8, 2, 8, 1, 8, 2 } };

/* A cleaned, parsed command keeps GTP's promises. */
static void
fuzz_command(const char *line, size_t len)
{
	struct gtp_cmd	 c;
	char		 buf[GTP_MAXLINE + 1];
	int		 i;

	memcpy(buf, line, len + 1);
	if (gtp_clean(buf)) {
		FUZZ_CHECK(buf[strspn(buf, " ")] == '\0');
		return;
	}
	FUZZ_CHECK(strlen(buf) <= len && buf[0] != '\0');
	for (i = 0; buf[i] != '\0'; i++)
		FUZZ_CHECK((unsigned char)buf[i] >= 32 && buf[i] != 127 &&
		    buf[i] != '#');
	if (gtp_parse_command(buf, &c) == -1)
		return;
	FUZZ_CHECK(c.id >= -1 && c.id <= 999999999);
	FUZZ_CHECK(c.name[0] != '\0' && strchr(c.name, ' ') == NULL);
	FUZZ_CHECK(c.argc >= 0 && c.argc <= GTP_MAXARGS);
	for (i = 0; i < c.argc; i++)
		FUZZ_CHECK(c.argv[i][0] != '\0' &&
		    strchr(c.argv[i], ' ') == NULL);
}

/* Send the next command: name, version, then genplay. */
static void
sim_send(struct sim *s)
{
	if (s->npend < FUZZ_MAXPEND)
		s->pend[s->npend++] = ++s->next_id;
}

/* A whole answer: judge it as match.c does, and play a legal card. */
static void
sim_answer(struct sim *s, unsigned id)
{
	struct bri_event ev;
	char		 buf[160];
	bri_card	 c;
	size_t		 len, i;

	FUZZ_CHECK(s->fr.len == strlen(s->fr.text));
	FUZZ_CHECK(s->fr.len < GTP_MAXLINE);
	FUZZ_CHECK(s->fr.text == (s->fr.len < FRAME_SHORT ? s->fr.small :
	    s->fr.big));
	FUZZ_CHECK(s->fr.id == (long)id);
	FUZZ_CHECK(s->fr.text[0] != ' ');
	for (i = 0; i < s->fr.len; i++) {
		FUZZ_CHECK((unsigned char)s->fr.text[i] >= 32 ||
		    s->fr.text[i] == '\n');
		FUZZ_CHECK(s->fr.text[i] != 127 && s->fr.text[i] != '#');
	}
	FUZZ_CHECK(strstr(s->fr.text, "\n\n") == NULL);
	if (id <= 2) {				/* name, version */
		snprintf(buf, sizeof(buf), "%.63s", s->fr.text);
		return;
	}
	len = strcspn(s->fr.text, " \n");
	if (!s->fr.ok || bri_card_parse(s->fr.text, len, &c) != BRI_OK ||
	    bri_deal_check(&s->bm.deal, s->bm.deal.turn, c) != BRI_OK) {
		snprintf(buf, sizeof(buf), "not a card: =%.100s", s->fr.text);
		return;
	}
	FUZZ_CHECK(bri_match_play(&s->bm, s->bm.deal.turn, c, &ev) ==
	    BRI_OK);
	if (ev.match_over)
		FUZZ_CHECK(bri_match_init(&s->bm, &s->bm.opt, &fuzz_seed) ==
		    BRI_OK && bri_match_deal(&s->bm) == BRI_OK);
	else if (ev.deal_over)
		FUZZ_CHECK(bri_match_deal(&s->bm) == BRI_OK);
}

/* One framed line, as seat_line() takes it. */
static void
sim_line(struct sim *s, char *line, size_t len)
{
	char		 raw[GTP_MAXLINE + 1], want[256];
	unsigned	 id;
	size_t		 n;
	int		 i, r;

	fuzz_command(line, len);
	memcpy(raw, line, len + 1);
	r = frame_line(&s->fr, line, len, s->npend > 0,
	    s->npend > 0 ? (long)s->pend[0] : -1);
	switch (r) {
	case FRAME_MORE:
		FUZZ_CHECK(!s->fr.in_answer || s->fr.len < GTP_MAXLINE);
		FUZZ_CHECK(!s->fr.in_answer || s->fr.len < FRAME_SHORT ||
		    s->fr.text == s->fr.big);
		return;
	case FRAME_DONE:
		FUZZ_CHECK(!s->fr.in_answer && s->npend > 0);
		id = s->pend[0];
		for (i = 1; i < s->npend; i++)
			s->pend[i - 1] = s->pend[i];
		s->npend--;
		sim_answer(s, id);
		sim_send(s);
		return;
	case FRAME_GARBAGE:
	case FRAME_UNASKED:
	case FRAME_WRONGID:
		/* the evidence is the line as sent, whatever its length */
		n = 0;
		if (r == FRAME_WRONGID)
			n = (size_t)snprintf(want, sizeof(want),
			    "expected id %u: ", s->pend[0]);
		else
			FUZZ_CHECK(r == FRAME_GARBAGE || s->npend == 0);
		util_printable(want + n, sizeof(want) - n, raw, len);
		FUZZ_CHECK(strcmp(s->fr.ev, want) == 0);
		break;
	case FRAME_OVERLONG:
		FUZZ_CHECK(strcmp(s->fr.ev,
		    "answer longer than the line cap") == 0);
		break;
	case FRAME_NOMEM:
		FUZZ_CHECK(strcmp(s->fr.ev,
		    "out of memory for a long answer") == 0);
		break;
	default:
		FUZZ_CHECK(!"frame_line: unknown result");
	}
	FUZZ_CHECK(strcmp(frame_fault_name(r), "garbage") == 0 ||
	    strcmp(frame_fault_name(r), "unasked") == 0 ||
	    strcmp(frame_fault_name(r), "wrong-id") == 0 ||
	    strcmp(frame_fault_name(r), "overlong") == 0 ||
	    (r == FRAME_NOMEM &&
	    strcmp(frame_fault_name(r), "unresponsive") == 0));
	s->broken = 1;
}

/* The first line of a remote bot, as seat_auth() takes it. */
static void
sim_auth(char *line, size_t len)
{
	struct gtp_cmd	 c;
	char		 name[160];

	fuzz_command(line, len);
	c.argc = 0;
	gtp_clean(line);
	if (gtp_parse_command(line, &c) == -1 || strcmp(c.name, "auth") != 0 ||
	    c.argc != 2)
		util_printable(name, sizeof(name), c.argc >= 1 ? c.argv[0] : "",
		    c.argc >= 1 ? strlen(c.argv[0]) : 0);
}

/* Lines that have arrived, as seat_read() frames them. */
static void
sim_read(struct sim *s, struct evbuffer *in, int *auth)
{
	char	*line, ev[256];
	size_t	 len;

	while (!s->broken &&
	    (line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF)) != NULL) {
		FUZZ_CHECK(line[len] == '\0');
		if (len > GTP_MAXLINE) {
			free(line);
			s->broken = 1;
			return;
		}
		if (memchr(line, '\0', len) != NULL) {
			util_printable(ev, sizeof(ev), line, len);
			free(line);
			s->broken = 1;
			return;
		}
		if (*auth) {
			*auth = 0;
			sim_auth(line, len);
		} else
			sim_line(s, line, len);
		free(line);
	}
	if (!s->broken && evbuffer_get_length(in) > GTP_MAXLINE)
		s->broken = 1;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (bri_init() != BRI_OK)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t chunks[8] = { 1, 2, 3, 7, 64, 512, 4096, 65536 };
	struct bri_options opt;
	struct evbuffer	*in;
	struct sim	*s;
	size_t		 at, n, chunk;
	int		 auth, i;

	if (size < 1)
		return 0;
	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (in = evbuffer_new()) == NULL) {
		free(s);
		return 0;
	}
	frame_init(&s->fr);
	auth = (data[0] & 0x80) != 0;
	for (i = 0; i < (data[0] & 3); i++)
		sim_send(s);
	chunk = chunks[(data[0] >> 2) & 7];
	bri_options_default(&opt, BRI_CLASSIC2);
	FUZZ_CHECK(bri_match_init(&s->bm, &opt, &fuzz_seed) == BRI_OK &&
	    bri_match_deal(&s->bm) == BRI_OK);
	for (at = 1; at < size && !s->broken; at += n) {
		n = size - at < chunk ? size - at : chunk;
		evbuffer_add(in, data + at, n);
		sim_read(s, in, &auth);
	}
	evbuffer_free(in);
	frame_free(&s->fr);
	free(s);
	return 0;
}
