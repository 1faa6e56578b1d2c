/*
 * policy.c: the names of the fault policies, read and written.
 */
#include "config.h"

#include <string.h>

#include "policy.h"

static const char *const policy_names[] = {
	[POLICY_FORFEIT] = "forfeit",
	[POLICY_FALLBACK] = "fallback",
};

/* The name of a policy as the log and every tool spell it. */
const char *
policy_name(enum fault_policy p)
{
	if (p < POLICY_FORFEIT || p > POLICY_FALLBACK)
		return "default";
	return policy_names[p];
}

/* Parse a policy's name into *p; returns 0, or -1 if it is none. */
int
policy_parse(const char *s, enum fault_policy *p)
{
	int	 i;

	for (i = POLICY_FORFEIT; i <= POLICY_FALLBACK; i++)
		if (strcmp(s, policy_names[i]) == 0) {
			*p = (enum fault_policy)i;
			return 0;
		}
	return -1;
}
