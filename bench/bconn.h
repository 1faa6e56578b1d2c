/*
 * bconn.h: one remote bot's connection to refd, for the benchmark
 * programs that play thousands of them from one epoll loop (loadgen,
 * thinkbot): the bytes read and not yet taken up, the answers not yet
 * written, and its opening (bconn.c).
 */
#ifndef REFD_BCONN_H
#define REFD_BCONN_H

#include <signal.h>
#include <stddef.h>

#define BCONN_INLEN	8192	/* refd's lines are short; 4096 at most */

struct sockaddr_in;

struct bconn {
	int		 fd;
	char		 in[BCONN_INLEN]; /* bytes read, not yet taken up */
	size_t		 inlen;
	char		*out;		/* answers not yet written */
	size_t		 outlen, outcap;
	int		 want_out;	/* EPOLLOUT is armed */
};

void	 bconn_open(struct bconn *, const struct sockaddr_in *, int, void *,
	    const char *, size_t);
void	 bconn_add(struct bconn *, const char *, size_t);
int	 bconn_flush(struct bconn *, int, void *);
int	 bconn_read(struct bconn *);
void	 bconn_signals(void (*)(int), sigset_t *);
int	 bconn_address(const char *, const char *, struct sockaddr_in *);
int	 bconn_total(const char *, int, char **, long);
size_t	 bconn_spec(const char *, char *, char *, size_t, long, int *);

#endif /* REFD_BCONN_H */
