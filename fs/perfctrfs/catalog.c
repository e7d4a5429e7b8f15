// SPDX-License-Identifier: GPL-2.0
/*
 * catalog.c - which events this kernel has, and which each CPU can count.
 *
 * A mount builds its catalogue once: the arch-neutral builtins of
 * grammar.c, then every PMU registered on the event_source bus with its
 * format fields and its named events (from the arch hook, or from the
 * "events" attribute group the driver publishes in sysfs).  The grammar
 * parses names against it; readdir lists from it.
 *
 * Whether a catalogue event exists on a CPU is never assumed: it is
 * probed by creating the counter, disabled, and releasing it at once.
 * Only the catalogue is probed, and only by the filesystem itself: once at
 * mount and again after a CPU comes or goes, from a work item, so never
 * for a name a user composed, never in the looker's task and never more
 * often than CPUs change.  The entries of PMUs whose event_init acts
 * (kprobe, uprobe, tracepoint, breakpoint) are not even probed: they have
 * no aliases today, and must not gain a probe if a driver adds some.
 *
 * A lookup answers from those results and from the grammar alone: a
 * member that encodes like a catalogue entry exists where that entry was
 * found countable; any other member (a raw code, PMU terms) exists when
 * it parses against the PMU's sysfs format.  Whether it can really be
 * counted is perf's answer at open, for the opener (file.c).
 */
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/perfctrfs.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include "internal.h"

/* A named event readdir offers: a builtin or "<pmu>.<alias>". */
struct perfctrfs_cat_entry {
	char *name;
	char *desc;			/* or NULL */
	struct perfctrfs_event_spec spec;
};

/* Which entries one CPU (or "all") can count, valid for one hotplug epoch. */
struct perfctrfs_probe_cache {
	bool valid;
	int gen;
	unsigned long *bits;
};

struct perfctrfs_cat {
	struct perfctrfs_catalog grammar;	/* what the grammar parses with */
	struct perfctrfs_pmu *pmus;
	unsigned int nr_pmus;
	struct perfctrfs_cat_entry *ents;
	unsigned int nr_ents;
	struct mutex lock;			/* guards cache[] */
	struct perfctrfs_probe_cache *cache;	/* nr_cpu_ids + 1: the last is "all" */
	struct work_struct probe_work;		/* refills cache[] */
	struct list_head node;			/* on perfctrfs_cats */
};

/* Every mount's catalogue: CPU hotplug queues each one's probe_work. */
static LIST_HEAD(perfctrfs_cats);
static DEFINE_SPINLOCK(perfctrfs_cats_lock);

/*
 * Probes run with the kernel's credentials, in a work item: what the
 * catalogue lists must not depend on who mounted or who looked first.
 */
static const struct cred *perfctrfs_probe_cred;

/* Bumped whenever a CPU comes or goes: probe caches older than it are stale. */
static atomic_t perfctrfs_hp_gen = ATOMIC_INIT(0);

/* The event_source bus: static in kernel/events/core.c, found via a PMU. */
static perfctrfs_bus_type *perfctrfs_bus;
static DEFINE_MUTEX(perfctrfs_bus_lock);

static void perfctrfs_attr_init(struct perf_event_attr *attr,
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

/* Errnos that say "not now", not "never": the open will tell. */
static bool perfctrfs_transient(int err)
{
	return err == -ENOMEM || err == -EBUSY || err == -EAGAIN ||
	       err == -EINTR || err == -EMFILE || err == -ENFILE;
}

/*
 * Does creating an event of @pmu act on the system (arm a probe, register
 * a tracer, take a debug register)?  Its events are created only by an
 * open, as the opener.
 */
static bool perfctrfs_pmu_acts(const struct pmu *pmu)
{
	return pmu->type == PERF_TYPE_TRACEPOINT ||
	       pmu->type == PERF_TYPE_BREAKPOINT ||
	       !strcmp(pmu->name, "kprobe") || !strcmp(pmu->name, "uprobe");
}

/* Can @cpu count catalogue event @ev?  The probe work only. */
static bool perfctrfs_probe_one(const struct perfctrfs_cpu *cpu,
				const struct perfctrfs_event *ev)
{
	struct perf_event_attr attr;
	struct perf_event *event;

	if (ev->type == PERFCTRFS_TYPE_RAW && perfctrfs_arch_raw_check(ev->config))
		return false;
	perfctrfs_attr_init(&attr, ev);
	/*
	 * "all" follows a task from CPU to CPU: probe it as a counter on a
	 * task, which is also how pid counters are made, so a CPU-only PMU
	 * (uncore, msr on some models) is rightly refused there.
	 */
	if (cpu->all)
		event = perf_event_create_kernel_counter(&attr, -1, current,
							 NULL, NULL);
	else
		event = perf_event_create_kernel_counter(&attr, cpu->cpu, NULL,
							 NULL, NULL);
	if (IS_ERR(event))
		return perfctrfs_transient(PTR_ERR(event));
	perf_event_release_kernel(event);
	return true;
}

static perfctrfs_bus_type *perfctrfs_pmu_bus(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.disabled = 1,
	};
	struct perf_event *event;

	mutex_lock(&perfctrfs_bus_lock);
	if (!perfctrfs_bus) {
		/*
		 * There is no exported way to the PMU list or its bus; the
		 * "software" PMU is always registered and always has a device.
		 */
		event = perf_event_create_kernel_counter(&attr, -1, current,
							 NULL, NULL);
		if (!IS_ERR(event)) {
			if (event->pmu->dev)
				perfctrfs_bus = event->pmu->dev->bus;
			perf_event_release_kernel(event);
		}
	}
	mutex_unlock(&perfctrfs_bus_lock);
	return perfctrfs_bus;
}

/* Call @fn on each attribute of @pmu's groups named @group, visible in sysfs. */
static int perfctrfs_walk_group(struct pmu *pmu, const char *group,
				int (*fn)(void *ctx, const char *name,
					  const char *text),
				void *ctx)
{
	const struct attribute_group **lists[2] = {
		pmu->attr_groups, pmu->attr_update
	};
	const struct attribute_group **grp;
	struct device_attribute *da;
	struct attribute *attr;
	unsigned int l, i;
	char *page;
	ssize_t n;
	int ret = 0;

	if (!pmu->dev)
		return 0;
	page = (char *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	if (!page)
		return -ENOMEM;
	for (l = 0; l < ARRAY_SIZE(lists); l++) {
		for (grp = lists[l]; grp && *grp; grp++) {
			if (!(*grp)->name || strcmp((*grp)->name, group) ||
			    !(*grp)->attrs)
				continue;
			for (i = 0; (attr = (*grp)->attrs[i]); i++) {
				if ((*grp)->is_visible &&
				    !(*grp)->is_visible(&pmu->dev->kobj, attr, i))
					continue;
				da = container_of(attr, struct device_attribute,
						  attr);
				if (!da->show)
					continue;
				n = da->show(pmu->dev, da, page);
				if (n <= 0 || n >= PAGE_SIZE)
					continue;
				while (n > 0 && (page[n - 1] == '\n' ||
						 page[n - 1] == ' '))
					n--;
				page[n] = '\0';
				ret = fn(ctx, attr->name, page);
				if (ret)
					goto out;
			}
		}
	}
out:
	free_page((unsigned long)page);
	return ret;
}

struct perfctrfs_walk_ctx {
	perfctrfs_emit_t emit;
	void *ctx;
};

static int perfctrfs_walk_event(void *ctx, const char *name, const char *text)
{
	struct perfctrfs_walk_ctx *w = ctx;

	/* "energy-pkg.scale", "energy-pkg.unit": properties, not events */
	if (strchr(name, '.'))
		return 0;
	return w->emit(w->ctx, name, text, NULL);
}

/**
 * perfctrfs_pmu_walk_attrs() - emit the aliases a PMU publishes in sysfs
 * @pmu: a registered PMU
 * @emit: called once per alias in the PMU's "events" attribute groups
 * @ctx: passed to @emit
 *
 * Reads the driver's own attribute tables (attr_groups and attr_update),
 * honouring their is_visible(), so it emits what
 * /sys/bus/event_source/devices/<pmu>/events shows.  Process context.
 *
 * Return: 0, or the first negative value @emit returned.
 */
int perfctrfs_pmu_walk_attrs(struct pmu *pmu, perfctrfs_emit_t emit, void *ctx)
{
	struct perfctrfs_walk_ctx w = { .emit = emit, .ctx = ctx };

	return perfctrfs_walk_group(pmu, "events", perfctrfs_walk_event, &w);
}

/* What perfctrfs_cat_prop() looks for, and what it found. */
struct perfctrfs_prop_ctx {
	const char *pmu;	/* the PMU's name */
	const char *want;	/* "<pmu>.<alias>" in path form */
	const char *prop;	/* "scale" or "unit" */
	char *buf;
	size_t size;
	int len;
};

/* A scale is a positive number as sysfs writes it, a unit a short word. */
static bool perfctrfs_prop_valid(const char *prop, const char *v)
{
	const char *ok = strcmp(prop, "scale") ?
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789%/_.-" :
		"0123456789.eE+-";

	if (!*v || strspn(v, ok) != strlen(v))
		return false;
	return strcmp(prop, "scale") || (*v >= '0' && *v <= '9' &&
					 strpbrk(v, "123456789"));
}

static int perfctrfs_match_prop(void *ctx, const char *name, const char *text)
{
	struct perfctrfs_prop_ctx *p = ctx;
	char alias[NAME_MAX + 1], path[NAME_MAX + 1];
	const char *dot = strrchr(name, '.');

	if (!dot || strcmp(dot + 1, p->prop) ||
	    (size_t)(dot - name) >= sizeof(alias))
		return 0;
	memcpy(alias, name, dot - name);
	alias[dot - name] = '\0';
	if (perfctrfs_alias_path(p->pmu, alias, path, sizeof(path)) < 0 ||
	    strcmp(path, p->want))
		return 0;
	if (!perfctrfs_prop_valid(p->prop, text))
		p->len = -ENODATA;
	else if (strscpy(p->buf, text, p->size) < 0)
		p->len = -ENAMETOOLONG;	/* listxattr's 1-byte probe */
	else
		p->len = strlen(p->buf);
	return 1;	/* found: stop the walk */
}

/**
 * perfctrfs_cat_prop() - the scale or unit a PMU publishes for an alias
 * @name: an event level name, not NUL-terminated: "<pmu>.<alias>",
 *	modifiers allowed ("power.energy_pkg:u")
 * @len: its length
 * @prop: "scale" or "unit"
 * @buf: receives the value, NUL-terminated
 * @size: size of @buf
 *
 * perf multiplies an alias's count by the driver's "<alias>.scale"
 * attribute and prints its "<alias>.unit" (RAPL: 2^-32 and Joules); these
 * are the user.perfctr.scale and user.perfctr.unit xattrs.  Read from the
 * driver's own attribute tables when asked, as sysfs shows them.
 * Process context.
 *
 * Return: the value's length; -ENAMETOOLONG when it does not fit @buf;
 * -ENODATA when the event has none (groups, composed names, builtins, a
 * PMU or driver without the attribute, a value that is no number or word).
 */
int perfctrfs_cat_prop(const char *name, size_t len, const char *prop,
		       char *buf, size_t size)
{
	char pmu_name[NAME_MAX + 1], want[NAME_MAX + 1];
	struct perfctrfs_prop_ctx p = {
		.pmu = pmu_name, .want = want, .prop = prop,
		.buf = buf, .size = size, .len = -ENODATA,
	};
	const char *colon = memchr(name, ':', len);
	perfctrfs_bus_type *bus = perfctrfs_pmu_bus();
	const char *dot;
	struct device *dev;
	struct pmu *pmu;

	if (colon)
		len = colon - name;
	dot = memchr(name, '.', len);
	if (!bus || !dot || len >= sizeof(want) || memchr(name, '+', len) ||
	    memchr(name, '=', len))
		return -ENODATA;
	memcpy(want, name, len);
	want[len] = '\0';
	memcpy(pmu_name, name, dot - name);
	pmu_name[dot - name] = '\0';
	dev = bus_find_device_by_name(bus, NULL, pmu_name);
	if (!dev)
		return -ENODATA;
	pmu = dev_get_drvdata(dev);
	if (pmu && perfctrfs_walk_group(pmu, "events", perfctrfs_match_prop, &p) < 0)
		p.len = -ENODATA;
	put_device(dev);
	return p.len;
}

/* ---- building ------------------------------------------------------- */

/* What building needs beside a struct perfctrfs_pmu; parallel to cat->pmus. */
struct perfctrfs_pmu_extra {
	unsigned int cap_formats;
	unsigned int cap_aliases;
	char **descs;			/* parallel to the PMU's aliases */
};

struct perfctrfs_build {
	struct perfctrfs_cat *cat;
	struct perfctrfs_pmu_extra *extra;	/* parallel to cat->pmus */
	unsigned int cur;			/* the PMU being filled */
};

static int perfctrfs_add_format(void *ctx, const char *name, const char *text)
{
	struct perfctrfs_build *b = ctx;
	struct perfctrfs_pmu *pmu = &b->cat->pmus[b->cur];
	struct perfctrfs_pmu_extra *x = &b->extra[b->cur];
	struct perfctrfs_format *f;
	u64 mask;
	u8 word;

	if (perfctrfs_parse_format(text, strlen(text), &word, &mask))
		return 0;	/* a field this grammar cannot use */
	if (pmu->nr_formats == x->cap_formats) {
		x->cap_formats = x->cap_formats ? 2 * x->cap_formats : 8;
		f = krealloc_array((void *)pmu->formats, x->cap_formats,
				   sizeof(*f), GFP_KERNEL_ACCOUNT);
		if (!f)
			return -ENOMEM;
		pmu->formats = f;
	}
	f = (struct perfctrfs_format *)&pmu->formats[pmu->nr_formats];
	f->name = kstrdup(name, GFP_KERNEL_ACCOUNT);
	if (!f->name)
		return -ENOMEM;
	f->word = word;
	f->mask = mask;
	pmu->nr_formats++;
	return 0;
}

static int perfctrfs_add_alias(void *ctx, const char *name, const char *terms,
			       const char *desc)
{
	struct perfctrfs_build *b = ctx;
	struct perfctrfs_pmu *pmu = &b->cat->pmus[b->cur];
	struct perfctrfs_pmu_extra *x = &b->extra[b->cur];
	size_t skip = strlen(pmu->name) + 1;
	struct perfctrfs_alias *a;
	char path[NAME_MAX + 1];
	char **d;
	int len;

	len = perfctrfs_alias_path(pmu->name, name, path, sizeof(path));
	if (len < 0 || (size_t)len <= skip)
		return 0;	/* too long to be a path component: skip it */
	if (pmu->nr_aliases == x->cap_aliases) {
		x->cap_aliases = x->cap_aliases ? 2 * x->cap_aliases : 16;
		a = krealloc_array((void *)pmu->aliases, x->cap_aliases,
				   sizeof(*a), GFP_KERNEL_ACCOUNT);
		if (!a)
			return -ENOMEM;
		pmu->aliases = a;
		d = krealloc_array(x->descs, x->cap_aliases, sizeof(*d),
				   GFP_KERNEL_ACCOUNT);
		if (!d)
			return -ENOMEM;
		x->descs = d;
	}
	a = (struct perfctrfs_alias *)&pmu->aliases[pmu->nr_aliases];
	a->name = kstrdup(path + skip, GFP_KERNEL_ACCOUNT);
	a->terms = kstrdup(terms, GFP_KERNEL_ACCOUNT);
	d = &x->descs[pmu->nr_aliases];
	*d = desc ? kstrdup(desc, GFP_KERNEL_ACCOUNT) : NULL;
	pmu->nr_aliases++;	/* counted now, so that a failure frees them */
	if (!a->name || !a->terms || (desc && !*d))
		return -ENOMEM;
	return 0;
}

static int perfctrfs_add_pmu(struct device *dev, void *data)
{
	struct perfctrfs_build *b = data;
	struct perfctrfs_cat *cat = b->cat;
	struct pmu *pmu = dev_get_drvdata(dev);
	struct perfctrfs_pmu_extra *x;
	struct perfctrfs_pmu *p;
	int ret;

	if (!pmu || !pmu->name || pmu->type < 0)
		return 0;
	p = krealloc_array(cat->pmus, cat->nr_pmus + 1, sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	cat->pmus = p;
	x = krealloc_array(b->extra, cat->nr_pmus + 1, sizeof(*x), GFP_KERNEL_ACCOUNT);
	if (!x)
		return -ENOMEM;
	b->extra = x;
	b->cur = cat->nr_pmus;
	p = &cat->pmus[b->cur];
	x = &b->extra[b->cur];
	memset(p, 0, sizeof(*p));
	memset(x, 0, sizeof(*x));
	p->name = kstrdup(pmu->name, GFP_KERNEL_ACCOUNT);
	if (!p->name)
		return -ENOMEM;
	p->type = pmu->type;
	cat->nr_pmus++;

	ret = perfctrfs_walk_group(pmu, "format", perfctrfs_add_format, b);
	if (ret || perfctrfs_pmu_acts(pmu))
		return ret;	/* no aliases: the catalogue would probe them */
	ret = perfctrfs_arch_pmu_events(pmu, perfctrfs_add_alias, b);
	if (ret == -EOPNOTSUPP)
		ret = perfctrfs_pmu_walk_attrs(pmu, perfctrfs_add_alias, b);
	return ret;
}

static int perfctrfs_add_entry(struct perfctrfs_cat *cat, unsigned int *cap,
			       const char *name, const char *desc)
{
	struct perfctrfs_cat_entry *e;
	unsigned int i;

	for (i = 0; i < cat->nr_ents; i++)
		if (!strcmp(cat->ents[i].name, name))
			return 0;
	if (cat->nr_ents == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		e = krealloc_array(cat->ents, *cap, sizeof(*e), GFP_KERNEL_ACCOUNT);
		if (!e)
			return -ENOMEM;
		cat->ents = e;
	}
	e = &cat->ents[cat->nr_ents];
	/* only what the grammar accepts is listed: readdir agrees with lookup */
	if (perfctrfs_parse_event(name, strlen(name), &cat->grammar, &e->spec))
		return 0;
	e->name = kstrdup(name, GFP_KERNEL_ACCOUNT);
	e->desc = desc ? kstrdup(desc, GFP_KERNEL_ACCOUNT) : NULL;
	if (!e->name || (desc && !e->desc)) {
		kfree(e->name);
		kfree(e->desc);
		return -ENOMEM;
	}
	cat->nr_ents++;
	return 0;
}

static int perfctrfs_add_entries(struct perfctrfs_cat *cat,
				 struct perfctrfs_pmu_extra *extra)
{
	const struct perfctrfs_pmu *p;
	char path[NAME_MAX + 1];
	unsigned int cap = 0, i, j;
	int ret;

	for (i = 0; i < perfctrfs_nr_builtins; i++) {
		ret = perfctrfs_add_entry(cat, &cap, perfctrfs_builtins[i].name,
					  NULL);
		if (ret)
			return ret;
	}
	for (i = 0; i < cat->nr_pmus; i++) {
		p = &cat->pmus[i];
		for (j = 0; j < p->nr_aliases; j++) {
			if (perfctrfs_alias_path(p->name, p->aliases[j].name,
						 path, sizeof(path)) < 0)
				continue;
			ret = perfctrfs_add_entry(cat, &cap, path,
						  extra[i].descs[j]);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Probe every catalogue entry on every online CPU and on "all": at mount,
 * and after each CPU hotplug event.  A CPU going away meanwhile bumps the
 * generation again and requeues this work, so a stale result never
 * outlives the next run.  Process context, in a kworker.
 */
static void perfctrfs_cat_probe_work(struct work_struct *work)
{
	struct perfctrfs_cat *cat = container_of(work, struct perfctrfs_cat,
						 probe_work);
	struct perfctrfs_probe_cache *c;
	struct perfctrfs_cpu cpu;
	const struct cred *old;
	unsigned int idx, j;
	int gen;

	old = override_creds(perfctrfs_probe_cred);
	gen = atomic_read(&perfctrfs_hp_gen);
	mutex_lock(&cat->lock);
	for (idx = 0; idx <= nr_cpu_ids; idx++) {
		c = &cat->cache[idx];
		cpu.all = idx == nr_cpu_ids;
		cpu.cpu = cpu.all ? 0 : idx;
		bitmap_zero(c->bits, cat->nr_ents);
		c->gen = gen;
		c->valid = cpu.all || cpu_online(idx);
		if (!c->valid)
			continue;
		for (j = 0; j < cat->nr_ents; j++) {
			if (perfctrfs_probe_one(&cpu, &cat->ents[j].spec.ev[0]))
				__set_bit(j, c->bits);
			cond_resched();
		}
	}
	mutex_unlock(&cat->lock);
	revert_creds(old);
}

/**
 * perfctrfs_cat_free() - free a catalogue
 * @cat: from perfctrfs_cat_build(), or NULL
 */
void perfctrfs_cat_free(struct perfctrfs_cat *cat)
{
	const struct perfctrfs_pmu *p;
	unsigned int i, j;

	if (!cat)
		return;
	spin_lock(&perfctrfs_cats_lock);
	list_del_init(&cat->node);
	spin_unlock(&perfctrfs_cats_lock);
	cancel_work_sync(&cat->probe_work);
	for (i = 0; i < cat->nr_pmus; i++) {
		p = &cat->pmus[i];
		for (j = 0; j < p->nr_formats; j++)
			kfree(p->formats[j].name);
		for (j = 0; j < p->nr_aliases; j++) {
			kfree(p->aliases[j].name);
			kfree(p->aliases[j].terms);
		}
		kfree(p->formats);
		kfree(p->aliases);
		kfree(p->name);
	}
	kfree(cat->pmus);
	for (i = 0; i < cat->nr_ents; i++) {
		kfree(cat->ents[i].name);
		kfree(cat->ents[i].desc);
	}
	kfree(cat->ents);
	if (cat->cache)
		for (i = 0; i <= nr_cpu_ids; i++)
			bitmap_free(cat->cache[i].bits);
	kfree(cat->cache);
	mutex_destroy(&cat->lock);
	kfree(cat);
}

/**
 * perfctrfs_cat_build() - build the event catalogue of a new mount
 *
 * Context: process context, may sleep.  Walks the PMUs registered now;
 * a PMU a module registers later shows up in the next mount.
 *
 * Return: the catalogue, or an ERR_PTR().
 */
struct perfctrfs_cat *perfctrfs_cat_build(void)
{
	struct perfctrfs_build b = { };
	struct perfctrfs_cat *cat;
	perfctrfs_bus_type *bus;
	unsigned int i, j;
	int ret;

	bus = perfctrfs_pmu_bus();
	if (!bus)
		return ERR_PTR(-ENODEV);
	cat = kzalloc(sizeof(*cat), GFP_KERNEL_ACCOUNT);
	if (!cat)
		return ERR_PTR(-ENOMEM);
	mutex_init(&cat->lock);
	INIT_WORK(&cat->probe_work, perfctrfs_cat_probe_work);
	INIT_LIST_HEAD(&cat->node);
	b.cat = cat;
	ret = bus_for_each_dev(bus, NULL, &b, perfctrfs_add_pmu);
	if (ret)
		goto out;
	cat->grammar.pmus = cat->pmus;
	cat->grammar.nr_pmus = cat->nr_pmus;
	ret = perfctrfs_add_entries(cat, b.extra);
	if (ret)
		goto out;
	cat->cache = kcalloc(nr_cpu_ids + 1, sizeof(*cat->cache), GFP_KERNEL_ACCOUNT);
	if (!cat->cache) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i <= nr_cpu_ids; i++) {
		cat->cache[i].bits = bitmap_zalloc(cat->nr_ents, GFP_KERNEL_ACCOUNT);
		if (!cat->cache[i].bits) {
			ret = -ENOMEM;
			goto out;
		}
	}
out:
	for (i = 0; i < cat->nr_pmus; i++) {
		for (j = 0; b.extra && j < cat->pmus[i].nr_aliases; j++)
			kfree(b.extra[i].descs[j]);
		kfree(b.extra ? b.extra[i].descs : NULL);
	}
	kfree(b.extra);
	if (ret) {
		perfctrfs_cat_free(cat);
		return ERR_PTR(ret);
	}
	spin_lock(&perfctrfs_cats_lock);
	list_add(&cat->node, &perfctrfs_cats);
	spin_unlock(&perfctrfs_cats_lock);
	/* The mount's probes, so that its first readdir finds them made. */
	queue_work(system_unbound_wq, &cat->probe_work);
	flush_work(&cat->probe_work);
	return cat;
}

/* ---- queries -------------------------------------------------------- */

/**
 * perfctrfs_cat_grammar() - the catalogue as the grammar parses with it
 * @cat: a mount's catalogue
 *
 * Return: the PMUs, their formats and aliases; valid as long as @cat.
 */
const struct perfctrfs_catalog *perfctrfs_cat_grammar(const struct perfctrfs_cat *cat)
{
	return &cat->grammar;
}

/**
 * perfctrfs_cat_nr() - how many named events readdir may offer
 * @cat: a mount's catalogue
 *
 * Return: the number of entries, countable or not.
 */
unsigned int perfctrfs_cat_nr(const struct perfctrfs_cat *cat)
{
	return cat->nr_ents;
}

/**
 * perfctrfs_cat_name() - the path name of a named event
 * @cat: a mount's catalogue
 * @i: its index, below perfctrfs_cat_nr()
 *
 * Return: the name, valid as long as @cat.
 */
const char *perfctrfs_cat_name(const struct perfctrfs_cat *cat, unsigned int i)
{
	return cat->ents[i].name;
}

/**
 * perfctrfs_cat_desc() - what the kernel says a named event is
 * @cat: a mount's catalogue
 * @name: an event level name, not NUL-terminated
 * @len: its length
 *
 * Return: the one-line description, or NULL when there is none (unnamed
 * encodings, groups, modifiers, or a driver that gives none).
 */
const char *perfctrfs_cat_desc(const struct perfctrfs_cat *cat,
			       const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < cat->nr_ents; i++)
		if (strlen(cat->ents[i].name) == len &&
		    !memcmp(cat->ents[i].name, name, len))
			return cat->ents[i].desc;
	return NULL;
}

/**
 * perfctrfs_cat_countable() - can a CPU count a named event?
 * @cat: a mount's catalogue
 * @cpu: an online CPU, or "all"
 * @i: the event's index, below perfctrfs_cat_nr()
 *
 * Answers from the probes the filesystem made at mount and after the last
 * CPU hotplug event; when a CPU came or went since, waits for the probe
 * work to redo them.  Never probes in the caller.  Process context, may
 * sleep.
 *
 * Return: true when the probe found it countable there.
 */
bool perfctrfs_cat_countable(struct perfctrfs_cat *cat,
			     const struct perfctrfs_cpu *cpu, unsigned int i)
{
	unsigned int idx = cpu->all ? nr_cpu_ids : cpu->cpu;
	struct perfctrfs_probe_cache *c;
	bool ret, stale;

	if (idx > nr_cpu_ids || i >= cat->nr_ents)
		return false;
	c = &cat->cache[idx];
	mutex_lock(&cat->lock);
	stale = !c->valid || c->gen != atomic_read(&perfctrfs_hp_gen);
	mutex_unlock(&cat->lock);
	if (stale) {
		queue_work(system_unbound_wq, &cat->probe_work);
		flush_work(&cat->probe_work);
	}
	mutex_lock(&cat->lock);
	ret = c->valid && test_bit(i, c->bits);
	mutex_unlock(&cat->lock);
	return ret;
}

/* Does @m encode as catalogue entry @e does (modifiers aside)? */
static bool perfctrfs_same_event(const struct perfctrfs_event *m,
				 const struct perfctrfs_event *e)
{
	return m->type == e->type && m->config == e->config &&
	       m->config1 == e->config1 && m->config2 == e->config2;
}

/**
 * perfctrfs_cat_check() - does an event level name exist on a CPU?
 * @cat: a mount's catalogue
 * @cpu: the cpu level: a CPU number, or "all"
 * @spec: the parsed event level
 *
 * What a lookup may know without creating anything: a member that encodes
 * like a catalogue entry exists where the catalogue's probes found that
 * entry countable; a raw code must fit the core PMU's fields
 * (perfctrfs_arch_raw_check()); any other member parsed against its PMU's
 * sysfs format and exists.  Whether the PMU accepts it, for whom, and
 * together with the other members, is perf's answer at open.  Process
 * context, may sleep (see perfctrfs_cat_countable()).
 *
 * Return: 0, or -ENOENT.
 */
int perfctrfs_cat_check(struct perfctrfs_cat *cat,
			const struct perfctrfs_cpu *cpu,
			const struct perfctrfs_event_spec *spec)
{
	const struct perfctrfs_event *m;
	unsigned int i, j;

	for (i = 0; i < spec->nr; i++) {
		m = &spec->ev[i];
		if (m->type == PERFCTRFS_TYPE_RAW &&
		    perfctrfs_arch_raw_check(m->config))
			return -ENOENT;
		for (j = 0; j < cat->nr_ents; j++) {
			if (!perfctrfs_same_event(m, &cat->ents[j].spec.ev[0]))
				continue;
			if (!perfctrfs_cat_countable(cat, cpu, j))
				return -ENOENT;
			break;
		}
	}
	return 0;
}

static int perfctrfs_cpu_changed(unsigned int cpu)
{
	struct perfctrfs_cat *cat;

	atomic_inc(&perfctrfs_hp_gen);
	spin_lock(&perfctrfs_cats_lock);
	list_for_each_entry(cat, &perfctrfs_cats, node)
		queue_work(system_unbound_wq, &cat->probe_work);
	spin_unlock(&perfctrfs_cats_lock);
	return 0;
}

/**
 * perfctrfs_catalog_init() - follow CPU hotplug for the probe caches
 *
 * Context: once, from the filesystem's initcall.
 *
 * Return: 0, or a negative errno from the hotplug core.
 */
int perfctrfs_catalog_init(void)
{
	int ret;

	perfctrfs_probe_cred = prepare_kernel_cred(&init_task);
	if (!perfctrfs_probe_cred)
		return -ENOMEM;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					"fs/perfctrfs:online",
					perfctrfs_cpu_changed,
					perfctrfs_cpu_changed);
	return ret < 0 ? ret : 0;
}
