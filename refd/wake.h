/*
 * wake.h: a thread waking the event loop.
 */
#ifndef REFD_WAKE_H
#define REFD_WAKE_H

struct event;
struct event_base;

/* Embedded in its owner, so that one that must outlive its owner can. */
struct wake {
	int		 pipe[2];
	struct event	*ev;
	void		(*cb)(void *);
	void		*arg;
};

int	wake_init(struct wake *, struct event_base *, void (*)(void *),
	    void *, char *, size_t);
void	wake_post(struct wake *);
void	wake_stop(struct wake *);
void	wake_free(struct wake *);

#endif /* REFD_WAKE_H */
