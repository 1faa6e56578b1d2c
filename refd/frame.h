/*
 * frame.h: a bot's answers read line by line.  The state of the answer
 * being read and the rules that end it, with no I/O, so that a seat
 * (seat.c) and the fuzzer (tests/fuzz/fuzz_botline.c) run the same code.
 */
#ifndef REFD_FRAME_H
#define REFD_FRAME_H

#include <stddef.h>

#include "gtp.h"

/* One answer being read, or none. */
struct frame {
	int		 in_answer;	/* reading an answer's lines */
	long		 id;		/* its id, -1 if it had none */
	int		 ok;		/* 1 for "=", 0 for "?" */
	char		 text[GTP_MAXLINE];	/* answer text so far */
	size_t		 len;		/* strlen(text) */
	char		 ev[256];	/* a fault's evidence, printable */
};

/* What a line did. */
enum frame_result {
	FRAME_MORE,		/* noise, or part of an answer: read on */
	FRAME_DONE,		/* an answer is complete in the frame */
	FRAME_GARBAGE,		/* not an answer where one must start */
	FRAME_UNASKED,		/* an answer while none is awaited */
	FRAME_WRONGID,		/* an answer to another command */
	FRAME_OVERLONG		/* the answer outgrew the line cap */
};

int		 frame_line(struct frame *, char *, size_t, int, long);
const char	*frame_fault_name(int);

#endif
