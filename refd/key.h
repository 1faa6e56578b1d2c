/*
 * key.h: refd's signing key, an Ed25519 key pair (libsodium's
 * crypto_sign) kept in a file only refd's user can read.
 *
 * key_load(path, sk, err, errlen) reads the secret key (libsodium's
 * 64-byte form, as 128 hex digits and a newline) from path into sk, or,
 * when path does not exist, creates a new key there, mode 0600.  A file
 * that others may read or write, or that does not hold one key, is
 * refused.  Returns 0, or -1 with the reason in err.
 */
#ifndef REFD_KEY_H
#define REFD_KEY_H

#include <stddef.h>
#include <stdint.h>

#define KEY_SECRETLEN	64	/* crypto_sign_SECRETKEYBYTES */

int	key_load(const char *, uint8_t *, char *, size_t);

#endif /* REFD_KEY_H */
