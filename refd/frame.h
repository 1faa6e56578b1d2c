/*
 * frame.h: a bot's answers read line by line.  The state of the answer
 * being read and the rules that end it, with no I/O, so that a seat
 * (seat.c) and the fuzzer (tests/fuzz/fuzz_botline.c) run the same code.
 */
#ifndef REFD_FRAME_H
#define REFD_FRAME_H

#include <stddef.h>

#include "gtp.h"

#define FRAME_SHORT	64	/* an answer this long needs no allocation */

/*
 * One answer being read, or none.  Most answers are a card or a word:
 * they are kept in small, and only a longer one takes GTP_MAXLINE bytes
 * on the heap (big), which the next short answer gives back, so that
 * a seat waiting for its bot costs tens of bytes, not the line cap.
 * The evidence of a fault is read (copied) before the next line of any
 * seat is framed, as seat.c does.  frame_init() before the first line,
 * frame_free() after the last.
 */
struct frame {
	int		 in_answer;	/* reading an answer's lines */
	long		 id;		/* its id, -1 if it had none */
	int		 ok;		/* 1 for "=", 0 for "?" */
	char		*text;		/* answer text so far: small or big */
	size_t		 len;		/* strlen(text) */
	char		 small[FRAME_SHORT]; /* text of a short answer */
	char		*big;		/* GTP_MAXLINE bytes, or NULL */
	const char	*ev;		/* a fault's evidence, printable, in
					   room of frame.c's own until the
					   next fault of any frame */
};

/* What a line did. */
enum frame_result {
	FRAME_MORE,		/* noise, or part of an answer: read on */
	FRAME_DONE,		/* an answer is complete in the frame */
	FRAME_GARBAGE,		/* not an answer where one must start */
	FRAME_UNASKED,		/* an answer while none is awaited */
	FRAME_WRONGID,		/* an answer to another command */
	FRAME_OVERLONG,		/* the answer outgrew the line cap */
	FRAME_NOMEM		/* no memory for a long answer */
};

void		 frame_init(struct frame *);
void		 frame_free(struct frame *);
int		 frame_line(struct frame *, char *, size_t, int, long);
const char	*frame_fault_name(int);

#endif
