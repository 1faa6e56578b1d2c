/*
 * ctlopt.h: the words of the control command match_start, checked into
 * a match's settings.  Nothing here acts, and nothing needs libevent or
 * SQLite, so the fuzzer (tests/fuzz/fuzz_ctlcmd.c) runs this code.
 */
#ifndef REFD_CTLOPT_H
#define REFD_CTLOPT_H

#include <stddef.h>

struct match_conf;
struct refd_conf;

int		 ctlopt_match(struct match_conf *, const struct refd_conf *,
		    int, char **, char *, size_t);

#endif /* REFD_CTLOPT_H */
