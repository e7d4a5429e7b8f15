// SPDX-License-Identifier: GPL-2.0
/*
 * hashflood - aim lookups at one chain of the FUSE daemon's node table, as
 * an attacker who knows its hash would, and time another caller's stats.
 *
 *	hashflood flood DIR INO COUNT
 *		stat DIR/N for COUNT period names N (decimal counts, from 1
 *		up) whose inode number the unkeyed hash the daemon had until
 *		it was keyed (proto-fuse/fs.c name_hash(), 4096 buckets by
 *		ino % 4096) puts in INO's bucket; prints "looked N tried T",
 *		or the first errno name stat gave
 *	hashflood time PATH COUNT
 *		stat PATH COUNT times; prints the nanoseconds taken
 *	hashflood reads PATH COUNT
 *		open PATH (a period-0 leaf) once, pread it at 0 COUNT times;
 *		prints the nanoseconds the preads took
 *	hashflood count PATH COUNT
 *		stat PATH COUNT times, whatever each gives; prints "found N"
 *		(how many succeeded) and, when one failed, the last errno
 *		name; exits 0 (a race's odds, not one answer, are the result)
 *
 * Exits 0 when every stat succeeded, 1 when one failed, 2 on bad usage.
 */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OLD_BUCKETS	4096

/* proto-fuse/fs.c name_hash() before it was keyed */
static uint64_t old_hash(uint64_t parent, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ parent;

	for (; *name; name++) {
		h ^= (unsigned char)*name;
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

static int flood(const char *dir, uint64_t ino, unsigned long count)
{
	unsigned long looked = 0;
	unsigned long long n, tried = 0;
	char path[4096], name[32];
	struct stat st;

	if (stat(dir, &st)) {
		printf("%s\n", errname(errno));
		return 1;
	}
	for (n = 1; looked < count; n++) {
		uint64_t h;

		snprintf(name, sizeof(name), "%llu", n);
		h = old_hash(st.st_ino, name);
		tried++;
		/* the daemon skips 0 and 1 (FUSE_ROOT_ID) */
		if (h <= 1 || h % OLD_BUCKETS != ino % OLD_BUCKETS)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		struct stat leaf;

		if (stat(path, &leaf)) {
			printf("%s\n", errname(errno));
			return 1;
		}
		looked++;
	}
	printf("looked %lu tried %llu\n", looked, tried);
	return 0;
}

static int timed(const char *path, unsigned long count)
{
	struct timespec a, b;
	struct stat st;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < count; i++)
		if (stat(path, &st)) {
			printf("%s\n", errname(errno));
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
	       (b.tv_nsec - a.tv_nsec));
	return 0;
}

static int reads(const char *path, unsigned long count)
{
	struct timespec a, b;
	unsigned long i;
	char buf[4096];
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < count; i++)
		if (pread(fd, buf, sizeof(buf), 0) <= 0) {
			printf("%s\n", errname(errno));
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(fd);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
	       (b.tv_nsec - a.tv_nsec));
	return 0;
}

static int counted(const char *path, unsigned long count)
{
	unsigned long i, found = 0;
	struct stat st;
	int err = 0;

	for (i = 0; i < count; i++) {
		if (!stat(path, &st))
			found++;
		else
			err = errno;
	}
	if (err)
		printf("found %lu last %s\n", found, errname(err));
	else
		printf("found %lu\n", found);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "flood"))
		return flood(argv[2], num_arg(argv[3]), num_arg(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "time"))
		return timed(argv[2], num_arg(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "reads"))
		return reads(argv[2], num_arg(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "count"))
		return counted(argv[2], num_arg(argv[3]));
	fprintf(stderr, "usage: see the comment at the top of hashflood.c\n");
	return 2;
}
