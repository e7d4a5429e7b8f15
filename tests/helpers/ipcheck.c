// SPDX-License-Identifier: GPL-2.0
/*
 * ipcheck - check irq records against a process's executable mappings.
 *
 *	ipcheck MAPS_FILE < records
 *
 * MAPS_FILE is a copy of /proc/<pid>/maps taken while the process lived.
 * Records are irq lines, "<count> 0x<ip>"; "lost <n>" lines are counted
 * apart.  Prints "records R inside I outside O lost L", where inside means
 * the ip falls in an r-xp mapping of MAPS_FILE whose path is the sampled
 * program (the first executable mapping's file), and exits 0.  Lines that
 * are neither are printed on stderr and make it exit 1.
 */
#include "common.h"
#include <stdint.h>

#define MAX_MAPS 256

struct range {
	uint64_t lo, hi;
};

int main(int argc, char **argv)
{
	static struct range r[MAX_MAPS];
	unsigned long long in = 0, out = 0, lost = 0, recs = 0, cnt, ip;
	char line[4096], perms[8], path[2048], prog[2048] = "";
	unsigned long long lo, hi, n;
	unsigned int nr = 0, i;
	int bad = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: ipcheck MAPS_FILE < records\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	while (fgets(line, sizeof(line), f) && nr < MAX_MAPS) {
		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %2047s",
			   &lo, &hi, perms, path) < 3)
			continue;
		if (perms[2] != 'x' || path[0] != '/')
			continue;
		if (!prog[0])
			snprintf(prog, sizeof(prog), "%s", path);
		if (strcmp(path, prog))
			continue;
		r[nr].lo = lo;
		r[nr++].hi = hi;
	}
	fclose(f);
	if (!nr) {
		fprintf(stderr, "ipcheck: no executable mapping in %s\n", argv[1]);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "lost %llu", &n) == 1) {
			lost += n;
			continue;
		}
		if (sscanf(line, "%llu 0x%llx", &cnt, &ip) != 2) {
			fprintf(stderr, "ipcheck: bad record: %s", line);
			bad = 1;
			continue;
		}
		recs++;
		for (i = 0; i < nr; i++)
			if (ip >= r[i].lo && ip < r[i].hi)
				break;
		if (i < nr)
			in++;
		else
			out++;
	}
	printf("records %llu inside %llu outside %llu lost %llu\n",
	       recs, in, out, lost);
	return bad;
}
