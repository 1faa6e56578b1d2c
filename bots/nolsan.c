/*
 * nolsan.c: linked into the example bots of a sanitizer build only
 * (./configure --enable-sanitizers).  A spawned bot's system-call filter
 * refuses ptrace(2), which LeakSanitizer needs to stop the process at
 * its exit: without this, a sanitized bot ends every match with
 * "LeakSanitizer does not work under ptrace" and exit status 1.
 * AddressSanitizer still checks every memory access of the bot; only the
 * leak check at exit is off.
 */
const char	*__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}
