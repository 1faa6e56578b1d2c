/*
 * frame.c: a bot's answers read line by line (refd-protocol(7)).  An
 * answer starts with "=id text" or "?id text", may go on over further
 * lines, and ends with an empty line; outside an answer empty and
 * comment lines are ignored and anything else is garbage.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "util.h"

#define FRAME_RAWLEN	128	/* more of a line than its evidence shows */

/*
 * The last fault's evidence, of whichever frame: a fault ends the
 * reading of its bot and the seat copies the evidence at once, so one
 * room serves every frame (256 bytes less for each seat).
 */
static char	 frame_ev[256];

/* Record a fault's evidence: prefix, then the line as the bot sent it. */
static int
frame_fault(struct frame *f, int r, const char *prefix, const char *raw,
    size_t rawlen)
{
	size_t	 n;

	n = (size_t)snprintf(frame_ev, sizeof(frame_ev), "%s", prefix);
	util_printable(frame_ev + n, sizeof(frame_ev) - n, raw, rawlen);
	f->ev = frame_ev;
	return r;
}

/* An empty frame, its text in small. */
void
frame_init(struct frame *f)
{
	memset(f, 0, sizeof(*f));
	f->text = f->small;
	f->ev = "";
}

/* Give back what the frame holds; it is empty again after. */
void
frame_free(struct frame *f)
{
	free(f->big);
	f->big = NULL;
	f->text = f->small;
	f->small[0] = '\0';
	f->len = 0;
	f->in_answer = 0;
}

/*
 * Make room for an answer text of need bytes and its NUL (need <
 * GTP_MAXLINE): small while it fits, else big, which holds the text so
 * far.  Returns 0, or -1 if big cannot be had.
 */
static int
frame_room(struct frame *f, size_t need)
{
	if (need < sizeof(f->small) || f->text == f->big)
		return 0;
	if (f->big == NULL && (f->big = malloc(GTP_MAXLINE)) == NULL)
		return -1;
	memcpy(f->big, f->text, f->len + 1);
	f->text = f->big;
	return 0;
}

/*
 * Take one line of a bot's output, len bytes without a NUL (cleaned in
 * place).  awaited says whether an answer is due, and expect is then
 * the id it must carry.  Returns FRAME_DONE when an answer is complete:
 * its id, kind and text are in f until the next call.  Any result but
 * FRAME_MORE and FRAME_DONE is a fault, with its evidence in f->ev; the
 * caller stops reading that bot.
 */
int
frame_line(struct frame *f, char *line, size_t len, int awaited, long expect)
{
	char		 raw[FRAME_RAWLEN], pre[32], *text;
	size_t		 rawlen = len < sizeof(raw) ? len : sizeof(raw), n;
	long		 id;
	int		 ok, empty;

	/* evidence is what was sent, not what cleaning left of it */
	memcpy(raw, line, rawlen);
	empty = gtp_clean(line);
	if (!f->in_answer) {
		if (empty)
			return FRAME_MORE;
		if (gtp_parse_answer(line, &id, &ok, &text) == -1)
			return frame_fault(f, FRAME_GARBAGE, "", raw, rawlen);
		if (!awaited)
			return frame_fault(f, FRAME_UNASKED, "", raw, rawlen);
		if (id != expect) {
			snprintf(pre, sizeof(pre), "expected id %ld: ", expect);
			return frame_fault(f, FRAME_WRONGID, pre, raw, rawlen);
		}
		if ((n = strlen(text)) >= GTP_MAXLINE)
			return frame_fault(f, FRAME_OVERLONG,
			    "answer longer than the line cap", "", 0);
		/* the last long answer's room goes back with a short one */
		if (n < sizeof(f->small) && f->big != NULL) {
			free(f->big);
			f->big = NULL;
		}
		f->text = f->small;
		f->len = 0;
		f->small[0] = '\0';
		if (frame_room(f, n) == -1)
			return frame_fault(f, FRAME_NOMEM,
			    "out of memory for a long answer", "", 0);
		f->in_answer = 1;
		f->ok = ok;
		f->id = id;
		f->len = n;
		memcpy(f->text, text, n + 1);
		return FRAME_MORE;
	}
	if (empty) {
		f->in_answer = 0;
		return FRAME_DONE;
	}
	n = strlen(line);
	if (f->len + 1 + n >= GTP_MAXLINE)
		return frame_fault(f, FRAME_OVERLONG,
		    "answer longer than the line cap", "", 0);
	if (frame_room(f, f->len + 1 + n) == -1)
		return frame_fault(f, FRAME_NOMEM,
		    "out of memory for a long answer", "", 0);
	f->text[f->len++] = '\n';
	memcpy(f->text + f->len, line, n + 1);
	f->len += n;
	return FRAME_MORE;
}

/* The fault kind of a result, as the log and refd-protocol(7) name it. */
const char *
frame_fault_name(int r)
{
	switch (r) {
	case FRAME_GARBAGE:	return "garbage";
	case FRAME_UNASKED:	return "unasked";
	case FRAME_WRONGID:	return "wrong-id";
	case FRAME_OVERLONG:	return "overlong";
	case FRAME_NOMEM:	return "unresponsive";
	}
	return NULL;
}
