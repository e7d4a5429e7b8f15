// SPDX-License-Identifier: GPL-2.0
/*
 * xattr - read one extended attribute, or list them, without getfattr
 * (the kernel test guests have only busybox).
 *
 *	xattr PATH NAME		print the value and a newline
 *	xattr -l PATH		print every attribute name, one a line
 *
 * On failure prints the errno name (ENODATA, ENOENT, ...) on stdout and
 * exits 1, so the suite can assert the errno.
 */
#include "common.h"
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	char buf[65536];
	ssize_t n, i;

	if (argc == 3 && !strcmp(argv[1], "-l")) {
		n = listxattr(argv[2], buf, sizeof(buf));
		if (n < 0)
			goto fail;
		for (i = 0; i < n; i += strlen(buf + i) + 1)
			printf("%s\n", buf + i);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: xattr PATH NAME | xattr -l PATH\n");
		return 2;
	}
	n = getxattr(argv[1], argv[2], buf, sizeof(buf) - 1);
	if (n < 0)
		goto fail;
	buf[n] = '\0';
	/* values may or may not carry their own newline: print exactly one */
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	printf("%s\n", buf);
	return 0;
fail:
	printf("%s\n", errname(errno));
	return 1;
}
