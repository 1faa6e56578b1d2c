/*
 * key.c: refd's Ed25519 signing key, created on first start, read on
 * every start after.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "key.h"

#define KEY_HEX		(2 * KEY_SECRETLEN)

static int	 key_create(const char *, uint8_t *, char *, size_t);

/* A new key pair, written to path, which must not exist yet. */
static int
key_create(const char *path, uint8_t *sk, char *err, size_t errlen)
{
	uint8_t	 pk[crypto_sign_PUBLICKEYBYTES];
	char	 hex[KEY_HEX + 2];
	int	 fd, ok;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	crypto_sign_keypair(pk, sk);
	sodium_bin2hex(hex, sizeof(hex), sk, KEY_SECRETLEN);
	hex[KEY_HEX] = '\n';
	ok = write(fd, hex, KEY_HEX + 1) == KEY_HEX + 1 && fsync(fd) == 0;
	sodium_memzero(hex, sizeof(hex));
	if (close(fd) == -1 || !ok) {
		snprintf(err, errlen, "%s: cannot write the key", path);
		unlink(path);
		return -1;
	}
	return 0;
}

int
key_load(const char *path, uint8_t *sk, char *err, size_t errlen)
{
	struct stat	 sb;
	uint8_t		 pk[crypto_sign_PUBLICKEYBYTES];
	uint8_t		 want[crypto_sign_PUBLICKEYBYTES];
	char		 hex[KEY_HEX + 2];
	size_t		 bin;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW)) == -1) {
		if (errno == ENOENT)
			return key_create(path, sk, err, errlen);
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (sb.st_mode & 077) != 0 || sb.st_uid != geteuid()) {
		close(fd);
		snprintf(err, errlen, "%s: the key must be a file of refd's "
		    "user that no one else may read (mode 0600)", path);
		return -1;
	}
	n = read(fd, hex, sizeof(hex));
	close(fd);
	if (n != KEY_HEX + 1 || hex[KEY_HEX] != '\n' ||
	    sodium_hex2bin(sk, KEY_SECRETLEN, hex, KEY_HEX, NULL, &bin,
	    NULL) != 0 || bin != KEY_SECRETLEN) {
		sodium_memzero(hex, sizeof(hex));
		snprintf(err, errlen, "%s: not a refd key (128 hex digits)",
		    path);
		return -1;
	}
	sodium_memzero(hex, sizeof(hex));
	/* the second half of the secret key is its public key */
	crypto_sign_ed25519_sk_to_pk(pk, sk);
	memcpy(want, sk + 32, sizeof(want));
	if (memcmp(pk, want, sizeof(pk)) != 0) {
		snprintf(err, errlen, "%s: a damaged key", path);
		return -1;
	}
	return 0;
}
