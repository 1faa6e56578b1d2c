/*
 * policy.h: what a match does when a bot faults (refd(8)).  Shared by
 * refd, tournament definitions and refctl, so the words are said once.
 */
#ifndef REFD_POLICY_H
#define REFD_POLICY_H

enum fault_policy {
	POLICY_DEFAULT = -1,	/* not set: refd's default applies */
	POLICY_FORFEIT,		/* any fault forfeits the match */
	POLICY_FALLBACK		/* a move fault costs a fallback card */
};

const char	*policy_name(enum fault_policy);
int		 policy_parse(const char *, enum fault_policy *);

#endif /* REFD_POLICY_H */
