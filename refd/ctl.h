/*
 * ctl.h: the control socket, where an operator speaks GTP to refd.
 */
#ifndef REFD_CTL_H
#define REFD_CTL_H

#include <stdint.h>

struct match;

int		 ctl_listen(const char *);
void		 ctl_close(void);
void		 ctl_status_text(char *, size_t);
void		 ctl_match_event(struct match *, const char *);
void		 ctl_match_done(struct match *);
void		 ctl_tourney_done(int64_t, const char *, const char *);
void		 ctl_tourney_drawn(int64_t);

#endif /* REFD_CTL_H */
