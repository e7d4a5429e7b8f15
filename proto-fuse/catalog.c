// SPDX-License-Identifier: GPL-2.0
/*
 * What this machine can count.
 *
 * The PMUs come from /sys/bus/event_source/devices: each one's type, its
 * format fields and its event aliases become the perfctrfs_catalog the
 * shared grammar parses against.  The event level lists only what can
 * really be counted on a CPU, so every candidate (the grammar's builtins
 * and every alias) is probed by opening it, disabled, on that CPU; the
 * answer is cached per CPU because a CPU's PMUs do not change while it
 * stays online.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <unistd.h>

#include "internal.h"

#define SYSFS_PMUS	"/sys/bus/event_source/devices"

struct perfctrfs_catalog pf_catalog;

static struct pf_candidate *cands;
static unsigned int nr_cands;

/* probe results: [cpu slot][candidate], -1 unknown, 0 no, 1 yes */
static signed char **probe_cache;
static unsigned int nr_slots;	/* max cpu id + 2 (the last is "all") */

/*
 * What a CPU slot lists at the event level: the candidates its probes
 * said yes to, in catalogue order.  Made from answers that never change
 * once remembered, so it never changes either, and lives as long as they
 * do: every directory handle on that CPU points at the one copy and
 * holds no reference.  (Should the probe cache ever forget a CPU, at
 * hotplug, this has to become reference-counted.)
 */
struct slot_events {
	unsigned int nr;
	unsigned int idx[];
};
static struct slot_events **slot_events;

/* probe_lock guards probe_cache[] and slot_events[] */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

/* snprintf a path; false when it does not fit */
static bool __attribute__((format(printf, 3, 4)))
pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

static int read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return n;
}

/* hidden files and the per-alias metadata files are not events */
static bool is_alias_meta(const char *name)
{
	static const char *const suffixes[] = {
		".scale", ".unit", ".snapshot", ".per-pkg",
	};
	size_t len = strlen(name);
	unsigned int i;

	if (name[0] == '.')
		return true;
	for (i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t sl = strlen(suffixes[i]);

		if (len > sl && !strcmp(name + len - sl, suffixes[i]))
			return true;
	}
	return false;
}

static int load_formats(const char *dir, struct perfctrfs_pmu *pmu)
{
	struct perfctrfs_format *fmts = NULL;
	unsigned int nr = 0;
	char path[512], text[256];
	struct dirent *de;
	DIR *d;

	if (!pathf(path, sizeof(path), "%s/format", dir))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct perfctrfs_format *tmp, *f;
		int len;

		if (de->d_name[0] == '.')
			continue;
		if (!pathf(path, sizeof(path), "%s/format/%s", dir, de->d_name))
			continue;
		len = read_text(path, text, sizeof(text));
		if (len < 0)
			continue;
		tmp = realloc(fmts, (nr + 1) * sizeof(*fmts));
		if (!tmp)
			break;
		fmts = tmp;
		f = &fmts[nr];
		if (perfctrfs_parse_format(text, len, &f->word, &f->mask))
			continue;
		f->name = strdup(de->d_name);
		if (!f->name)
			break;
		nr++;
	}
	closedir(d);
	pmu->formats = fmts;
	pmu->nr_formats = nr;
	return 0;
}

static int load_aliases(const char *dir, struct perfctrfs_pmu *pmu)
{
	struct perfctrfs_alias *als = NULL;
	unsigned int nr = 0;
	char path[512], text[512], pname[256];
	struct dirent *de;
	DIR *d;

	if (!pathf(path, sizeof(path), "%s/events", dir))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct perfctrfs_alias *tmp, *a;
		const char *dot;
		int len;

		if (is_alias_meta(de->d_name))
			continue;
		if (!pathf(path, sizeof(path), "%s/events/%s", dir, de->d_name))
			continue;
		len = read_text(path, text, sizeof(text));
		if (len < 0)
			continue;
		if (perfctrfs_alias_path(pmu->name, de->d_name, pname,
					 sizeof(pname)) < 0)
			continue;
		/* the catalogue keeps the alias part, the grammar adds "<pmu>." */
		dot = pname + strlen(pmu->name);
		if (*dot != '.')
			continue;
		tmp = realloc(als, (nr + 1) * sizeof(*als));
		if (!tmp)
			break;
		als = tmp;
		a = &als[nr];
		a->name = strdup(dot + 1);
		a->terms = strdup(text);
		if (!a->name || !a->terms) {
			free((char *)a->name);
			free((char *)a->terms);
			break;
		}
		nr++;
	}
	closedir(d);
	pmu->aliases = als;
	pmu->nr_aliases = nr;
	return 0;
}

static int load_pmus(void)
{
	struct perfctrfs_pmu *pmus = NULL;
	unsigned int nr = 0;
	char path[512], text[64];
	struct dirent *de;
	DIR *d;

	d = opendir(SYSFS_PMUS);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct perfctrfs_pmu *tmp, *p;
		char *end;
		unsigned long type;

		if (de->d_name[0] == '.')
			continue;
		if (!pathf(path, sizeof(path), "%s/%s/type", SYSFS_PMUS,
			   de->d_name))
			continue;
		if (read_text(path, text, sizeof(text)) <= 0)
			continue;
		errno = 0;
		type = strtoul(text, &end, 10);
		if (errno || *end || type > UINT32_MAX)
			continue;
		tmp = realloc(pmus, (nr + 1) * sizeof(*pmus));
		if (!tmp)
			break;
		pmus = tmp;
		p = &pmus[nr];
		memset(p, 0, sizeof(*p));
		p->name = strdup(de->d_name);
		if (!p->name)
			break;
		p->type = type;
		pathf(path, sizeof(path), "%s/%s", SYSFS_PMUS, de->d_name);
		load_formats(path, p);
		load_aliases(path, p);
		nr++;
	}
	closedir(d);
	pf_catalog.pmus = pmus;
	pf_catalog.nr_pmus = nr;
	return 0;
}

static int add_candidate(const char *name, const char *description)
{
	struct pf_candidate *tmp, *c;

	tmp = realloc(cands, (nr_cands + 1) * sizeof(*cands));
	if (!tmp)
		return -ENOMEM;
	cands = tmp;
	c = &cands[nr_cands];
	memset(c, 0, sizeof(*c));
	/* parse through the grammar so that readdir and lookup agree */
	if (perfctrfs_parse_event(name, strlen(name), &pf_catalog, &c->spec))
		return 0;
	c->name = strdup(name);
	if (!c->name)
		return -ENOMEM;
	c->description = description;
	nr_cands++;
	return 0;
}

static int load_candidates(void)
{
	unsigned int i, j;
	char name[256];
	int err;

	for (i = 0; i < perfctrfs_nr_builtins; i++) {
		const char *n = perfctrfs_builtins[i].name;

		err = add_candidate(n, pf_builtin_description(n));
		if (err)
			return err;
	}
	for (i = 0; i < pf_catalog.nr_pmus; i++) {
		const struct perfctrfs_pmu *p = &pf_catalog.pmus[i];

		for (j = 0; j < p->nr_aliases; j++) {
			if (snprintf(name, sizeof(name), "%s.%s", p->name,
				     p->aliases[j].name) >= (int)sizeof(name))
				continue;
			if (pf_candidate_find(name))
				continue;
			err = add_candidate(name, NULL);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * Parse a sysfs CPU list ("0-3,5").  Returns the number of CPUs and an
 * allocated array in *cpus, or a negative errno.
 */
int pf_online_cpus(unsigned int **cpus)
{
	char text[4096], *p, *end;
	unsigned int *list = NULL, nr = 0;
	int len;

	len = read_text("/sys/devices/system/cpu/online", text, sizeof(text));
	if (len < 0)
		return len;
	p = text;
	while (*p) {
		unsigned long lo, hi, c;
		unsigned int *tmp;

		lo = strtoul(p, &end, 10);
		if (end == p)
			break;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (hi < lo || hi > PERFCTRFS_MAX_ID)
			break;
		tmp = realloc(list, (nr + hi - lo + 1) * sizeof(*list));
		if (!tmp) {
			free(list);
			return -ENOMEM;
		}
		list = tmp;
		for (c = lo; c <= hi; c++)
			list[nr++] = c;
		if (*p == ',')
			p++;
	}
	*cpus = list;
	return nr;
}

/* 1 if @cpu is online, 0 if not, or a negative errno (EMFILE) */
int pf_cpu_online(unsigned int cpu)
{
	unsigned int *cpus = NULL;
	int i, nr, found = 0;

	nr = pf_online_cpus(&cpus);
	if (nr < 0)
		return nr;
	for (i = 0; i < nr; i++)
		if (cpus[i] == cpu)
			found = 1;
	free(cpus);
	return found;
}

unsigned int pf_nr_candidates(void)
{
	return nr_cands;
}

const struct pf_candidate *pf_candidate(unsigned int i)
{
	return i < nr_cands ? &cands[i] : NULL;
}

const struct pf_candidate *pf_candidate_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_cands; i++)
		if (!strcmp(cands[i].name, name))
			return &cands[i];
	return NULL;
}

static void probe_attr(struct perf_event_attr *attr,
		       const struct perfctrfs_event *ev)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->config2 = ev->config2;
	attr->exclude_user = ev->exclude_user;
	attr->exclude_kernel = ev->exclude_kernel;
	attr->exclude_hv = ev->exclude_hv;
	attr->exclude_idle = ev->exclude_idle;
	attr->disabled = 1;
}

/*
 * Can @cpu count every event of @spec, a catalogue entry?  0 if so,
 * -ENOENT if not, or the daemon's own -EMFILE, -ENFILE or -ENOMEM.  The
 * daemon probes its own catalogue with its own rights; never a name a
 * caller composed (fs.c checks those against the grammar only).
 */
static int probe_spec(const struct perfctrfs_cpu *cpu,
		  const struct perfctrfs_event_spec *spec)
{
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < spec->nr; i++) {
		long fd;

		probe_attr(&attr, &spec->ev[i]);
		if (cpu->all)
			fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
				     PERF_FLAG_FD_CLOEXEC);
		else
			fd = syscall(SYS_perf_event_open, &attr, -1, cpu->cpu,
				     -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return pf_err_transient(errno) ? -errno : -ENOENT;
		close(fd);
	}
	return 0;
}

/* @cpu's index in probe_cache[] and slot_events[], or -1 if none */
static int cpu_slot(const struct perfctrfs_cpu *cpu)
{
	unsigned int slot = cpu->all ? nr_slots - 1 : cpu->cpu;

	return slot < nr_slots ? (int)slot : -1;
}

/* probe_spec() of candidate @i, remembered per CPU unless transient. */
int pf_probe_cached(const struct perfctrfs_cpu *cpu, unsigned int i)
{
	int slot = cpu_slot(cpu);
	int err;

	if (i >= nr_cands || slot < 0)
		return -ENOENT;
	pthread_mutex_lock(&probe_lock);
	if (!probe_cache[slot]) {
		probe_cache[slot] = malloc(nr_cands ? nr_cands : 1);
		if (!probe_cache[slot]) {
			pthread_mutex_unlock(&probe_lock);
			return -ENOMEM;
		}
		memset(probe_cache[slot], -1, nr_cands);
	}
	err = probe_cache[slot][i] < 0 ? probe_spec(cpu, &cands[i].spec) :
	      probe_cache[slot][i] ? 0 : -ENOENT;
	if (probe_cache[slot][i] < 0 && !pf_err_transient(-err))
		probe_cache[slot][i] = !err;
	pthread_mutex_unlock(&probe_lock);
	return err;
}

/*
 * The candidates @cpu can count, in catalogue order, as indices for
 * pf_candidate() in *@idx: their number, or the daemon's own -EMFILE,
 * -ENFILE or -ENOMEM (not remembered; the next call probes again).  The
 * array stays valid and unchanged until pf_catalog_exit().
 */
int pf_cpu_events(const struct perfctrfs_cpu *cpu, const unsigned int **idx)
{
	struct slot_events *se, *made, *tmp;
	int slot = cpu_slot(cpu), err;
	unsigned int i, nr = 0;

	*idx = NULL;
	if (slot < 0)
		return 0;	/* probes of it all say no */
	pthread_mutex_lock(&probe_lock);
	se = slot_events[slot];
	pthread_mutex_unlock(&probe_lock);
	if (!se) {
		made = malloc(sizeof(*made) + nr_cands * sizeof(made->idx[0]));
		if (!made)
			return -ENOMEM;
		/* each probe takes probe_lock itself: not held across them */
		for (i = 0; i < nr_cands; i++) {
			err = pf_probe_cached(cpu, i);
			if (!err) {
				made->idx[nr++] = i;
			} else if (err != -ENOENT) {
				free(made);
				return err;
			}
		}
		made->nr = nr;
		tmp = realloc(made, sizeof(*made) + nr * sizeof(made->idx[0]));
		if (tmp)
			made = tmp;
		pthread_mutex_lock(&probe_lock);
		se = slot_events[slot];
		if (!se)
			se = slot_events[slot] = made;
		pthread_mutex_unlock(&probe_lock);
		if (se != made)
			free(made);	/* another caller made the same first */
	}
	*idx = se->idx;
	return se->nr;
}

static const struct {
	const char *name;
	const char *text;
} descriptions[] = {
	{ "cycles", "CPU cycles" },
	{ "instructions", "retired instructions" },
	{ "cache_references", "cache accesses (usually last-level cache)" },
	{ "cache_misses", "cache misses (usually last-level cache)" },
	{ "branch_instructions", "retired branch instructions" },
	{ "branch_misses", "mispredicted branch instructions" },
	{ "bus_cycles", "bus cycles" },
	{ "stalled_cycles_frontend", "cycles stalled in the frontend" },
	{ "stalled_cycles_backend", "cycles stalled in the backend" },
	{ "ref_cycles", "reference cycles, unaffected by frequency scaling" },
	{ "cpu_clock", "CPU clock, a high-resolution per-CPU timer, in ns" },
	{ "task_clock", "clock running while the task runs, in ns" },
	{ "page_faults", "page faults" },
	{ "context_switches", "context switches" },
	{ "cpu_migrations", "migrations of the task to another CPU" },
	{ "minor_faults", "minor page faults (no I/O)" },
	{ "major_faults", "major page faults (I/O needed)" },
	{ "alignment_faults", "alignment faults fixed up by the kernel" },
	{ "emulation_faults", "instructions emulated by the kernel" },
};

static const struct {
	const char *key;
	const char *text;
} cache_words[] = {
	{ "l1d", "L1 data cache" },
	{ "l1i", "L1 instruction cache" },
	{ "llc", "last-level cache" },
	{ "dtlb", "data TLB" },
	{ "itlb", "instruction TLB" },
	{ "branch", "branch predictor" },
	{ "node", "local memory node" },
};

/*
 * A short phrase for a builtin.  Cache events are composed from their
 * three words; the strings live until pf_catalog_exit().
 */
static char *composed[64];
static unsigned int nr_composed;

const char *pf_builtin_description(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(descriptions); i++)
		if (!strcmp(descriptions[i].name, name))
			return descriptions[i].text;
	for (i = 0; i < ARRAY_SIZE(cache_words); i++) {
		size_t kl = strlen(cache_words[i].key);
		char op[16], res[16], *s;

		if (strncmp(name, cache_words[i].key, kl) || name[kl] != '_')
			continue;
		if (sscanf(name + kl + 1, "%15[a-z]_%15[a-z]", op, res) != 2)
			return NULL;
		if (nr_composed >= ARRAY_SIZE(composed))
			return NULL;
		if (asprintf(&s, "%s %s %ses", cache_words[i].text, op,
			     res) < 0)
			return NULL;
		composed[nr_composed++] = s;
		return s;
	}
	return NULL;
}

int pf_catalog_init(void)
{
	unsigned int *cpus = NULL, max = 0;
	int i, nr, err;

	err = load_pmus();
	if (err)
		return err;
	err = load_candidates();
	if (err)
		return err;
	/* leave room for CPUs that come online later */
	nr = pf_online_cpus(&cpus);
	for (i = 0; i < nr; i++)
		if (cpus[i] > max)
			max = cpus[i];
	free(cpus);
	i = sysconf(_SC_NPROCESSORS_CONF);
	if (i > 0 && (unsigned int)i > max + 1)
		max = i - 1;
	nr_slots = max + 2;
	probe_cache = calloc(nr_slots, sizeof(*probe_cache));
	slot_events = calloc(nr_slots, sizeof(*slot_events));
	if (!probe_cache || !slot_events)
		return -ENOMEM;
	pf_log(LOG_DEBUG, "%u PMUs, %u candidate events", pf_catalog.nr_pmus,
	       nr_cands);
	return 0;
}

void pf_catalog_exit(void)
{
	unsigned int i, j;

	for (i = 0; i < nr_slots && probe_cache; i++)
		free(probe_cache[i]);
	free(probe_cache);
	probe_cache = NULL;
	for (i = 0; i < nr_slots && slot_events; i++)
		free(slot_events[i]);
	free(slot_events);
	slot_events = NULL;
	for (i = 0; i < nr_cands; i++)
		free(cands[i].name);
	free(cands);
	cands = NULL;
	nr_cands = 0;
	for (i = 0; i < pf_catalog.nr_pmus; i++) {
		struct perfctrfs_pmu *p = (struct perfctrfs_pmu *)&pf_catalog.pmus[i];

		for (j = 0; j < p->nr_formats; j++)
			free((char *)p->formats[j].name);
		for (j = 0; j < p->nr_aliases; j++) {
			free((char *)p->aliases[j].name);
			free((char *)p->aliases[j].terms);
		}
		free((void *)p->formats);
		free((void *)p->aliases);
		free((char *)p->name);
	}
	free((void *)pf_catalog.pmus);
	pf_catalog.pmus = NULL;
	pf_catalog.nr_pmus = 0;
	/* freed at exit so that a leak checker sees a clean exit */
	for (i = 0; i < nr_composed; i++)
		free(composed[i]);
	nr_composed = 0;
}
