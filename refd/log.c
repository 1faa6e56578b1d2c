/*
 * log.c: diagnostics.  In the foreground they go to stderr; as a daemon
 * to syslog.  -v raises the level: warnings always, then info, then debug.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static const char	*log_name = "refd";
static int		 log_foreground = 1;
static int		 log_level = 0;	/* 0 warn, 1 info, 2 debug */

/* Choose the program name, the destination and the verbosity. */
void
log_init(const char *name, int foreground, int level)
{
	log_name = name;
	log_foreground = foreground;
	log_level = level;
	if (!foreground)
		openlog(name, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

/* Write one message at syslog priority pri, with errno text if err. */
static void
log_vwrite(int pri, const char *err, const char *fmt, va_list ap)
{
	char	 buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_foreground) {
		if (err != NULL)
			fprintf(stderr, "%s: %s: %s\n", log_name, buf, err);
		else
			fprintf(stderr, "%s: %s\n", log_name, buf);
		fflush(stderr);
	} else if (err != NULL)
		syslog(pri, "%s: %s", buf, err);
	else
		syslog(pri, "%s", buf);
}

/* A warning with the current errno's text. */
void
log_warn(const char *fmt, ...)
{
	va_list	 ap;
	char	 err[128];

	snprintf(err, sizeof(err), "%s", strerror(errno));
	va_start(ap, fmt);
	log_vwrite(LOG_WARNING, err, fmt, ap);
	va_end(ap);
}

/* A warning. */
void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vwrite(LOG_WARNING, NULL, fmt, ap);
	va_end(ap);
}

/* Information, shown from -v. */
void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	if (log_level < 1)
		return;
	va_start(ap, fmt);
	log_vwrite(LOG_INFO, NULL, fmt, ap);
	va_end(ap);
}

/* Debugging, shown from -vv. */
void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (log_level < 2)
		return;
	va_start(ap, fmt);
	log_vwrite(LOG_DEBUG, NULL, fmt, ap);
	va_end(ap);
}

/* Log with errno and exit: for what cannot go on. */
void
fatal(const char *fmt, ...)
{
	va_list	 ap;
	char	 err[128];

	snprintf(err, sizeof(err), "%s", strerror(errno));
	va_start(ap, fmt);
	log_vwrite(LOG_CRIT, err, fmt, ap);
	va_end(ap);
	exit(1);
}

/* Log and exit. */
void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vwrite(LOG_CRIT, NULL, fmt, ap);
	va_end(ap);
	exit(1);
}
