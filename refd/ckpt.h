/*
 * ckpt.h: the log's checkpoints, made on a thread of its own.
 */
#ifndef REFD_CKPT_H
#define REFD_CKPT_H

struct event_base;
struct ckpt;

/*
 * done(arg, why) runs in the loop when a checkpoint asked for has ended:
 * why is NULL if it copied what it could, else SQLite's reason.
 */
struct ckpt	*ckpt_new(struct event_base *, const char *,
		    void (*)(void *, const char *), void *, char *, size_t);
void		 ckpt_request(struct ckpt *);
void		 ckpt_free(struct ckpt *);

#endif /* REFD_CKPT_H */
