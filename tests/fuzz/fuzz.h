/*
 * fuzz.h: what every fuzz target of tests/fuzz/ defines, libFuzzer's two
 * entry points, and the check that stops on a broken invariant.  Each
 * target is built twice: with -fsanitize=fuzzer for libFuzzer (make
 * fuzz), and with replay.c's main() for make check.
 */
#ifndef REFD_FUZZ_H
#define REFD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Once, before any input; argc and argv are the program's. */
int	LLVMFuzzerInitialize(int *, char ***);
/* One input: must not crash, leak or hang, whatever the bytes. */
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* A broken invariant is a crash, for libFuzzer and for make check alike. */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,	\
		    __LINE__, #cond);					\
		abort();						\
	}								\
} while (0)

#endif
