// SPDX-License-Identifier: GPL-2.0
/*
 * The perfctrfs path grammar, written out in grammar.h.
 *
 * The same file is built into the kernel filesystem and into the FUSE
 * daemon, so it uses only what grammar_env.h provides: no allocation, no
 * formatted I/O, no library number parsing.  Every parser takes
 * (name, len) exactly as ->lookup gets it: it never reads name[len] and
 * never relies on a NUL, and a NUL inside the name makes it unparsable.
 *
 * Numbers in names are canonical, as fs/proc/util.c name_to_int() wants
 * them: decimal, no sign, no leading zero, no overflow, so one counter has
 * exactly one name.  Values inside PMU terms are the exception: they are
 * written the way sysfs writes them ("umask=0x00").
 */
#include "grammar.h"

/* Bits of the modifier set, in the order perf documents them. */
#define MOD_U	0x1
#define MOD_K	0x2
#define MOD_H	0x4
#define MOD_I	0x8

/* Does (s, len) spell the NUL-terminated @lit, exactly? */
static bool name_is(const char *s, size_t len, const char *lit)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (lit[i] == '\0' || lit[i] != s[i])
			return false;
	return lit[len] == '\0';
}

static bool has_nul(const char *s, size_t len)
{
	return memchr(s, '\0', len);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Value of a hex digit, or -1; upper case only when @upper allows it. */
static int hex_digit(char c, bool upper)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (upper && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A canonical decimal number no larger than @max. */
static int parse_canonical(const char *s, size_t len, u64 max, u64 *out)
{
	u64 v = 0;
	size_t i;

	if (len == 0 || (s[0] == '0' && len > 1))
		return -ENOENT;
	for (i = 0; i < len; i++) {
		unsigned int d;

		if (!is_digit(s[i]))
			return -ENOENT;
		d = s[i] - '0';
		if (v > (max - d) / 10)
			return -ENOENT;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* ---- level 1: cpu -------------------------------------------------- */

/**
 * perfctrfs_parse_cpu() - parse a cpu level name
 * @name: the path component, not NUL-terminated
 * @len: its length
 * @out: the decoded cpu, written only on success
 *
 * Accepts "all" or a canonical decimal number up to PERFCTRFS_MAX_ID.
 * Whether that CPU is online is the caller's question.
 *
 * Return: 0, or -ENOENT when @name does not parse.
 */
int perfctrfs_parse_cpu(const char *name, size_t len, struct perfctrfs_cpu *out)
{
	u64 v;

	if (name_is(name, len, "all")) {
		out->all = true;
		out->cpu = 0;
		return 0;
	}
	if (parse_canonical(name, len, PERFCTRFS_MAX_ID, &v))
		return -ENOENT;
	out->all = false;
	out->cpu = v;
	return 0;
}

/* ---- level 2: event ------------------------------------------------- */

/*
 * perf's generic events, in perf's order: the config of a hardware or
 * software event is its PERF_COUNT_* number, and a cache event's config
 * is cache | op << 8 | result << 16 (PERF_COUNT_HW_CACHE_*).
 */
#define CACHE_EVENT(name, cache, op, result) \
	{ name, PERFCTRFS_TYPE_HW_CACHE, (cache) | (op) << 8 | (result) << 16 }

const struct perfctrfs_builtin perfctrfs_builtins[] = {
	{ "cycles",			PERFCTRFS_TYPE_HARDWARE, 0 },
	{ "instructions",		PERFCTRFS_TYPE_HARDWARE, 1 },
	{ "cache_references",		PERFCTRFS_TYPE_HARDWARE, 2 },
	{ "cache_misses",		PERFCTRFS_TYPE_HARDWARE, 3 },
	{ "branch_instructions",	PERFCTRFS_TYPE_HARDWARE, 4 },
	{ "branch_misses",		PERFCTRFS_TYPE_HARDWARE, 5 },
	{ "bus_cycles",			PERFCTRFS_TYPE_HARDWARE, 6 },
	{ "stalled_cycles_frontend",	PERFCTRFS_TYPE_HARDWARE, 7 },
	{ "stalled_cycles_backend",	PERFCTRFS_TYPE_HARDWARE, 8 },
	{ "ref_cycles",			PERFCTRFS_TYPE_HARDWARE, 9 },
	{ "cpu_clock",			PERFCTRFS_TYPE_SOFTWARE, 0 },
	{ "task_clock",			PERFCTRFS_TYPE_SOFTWARE, 1 },
	{ "page_faults",		PERFCTRFS_TYPE_SOFTWARE, 2 },
	{ "context_switches",		PERFCTRFS_TYPE_SOFTWARE, 3 },
	{ "cpu_migrations",		PERFCTRFS_TYPE_SOFTWARE, 4 },
	{ "minor_faults",		PERFCTRFS_TYPE_SOFTWARE, 5 },
	{ "major_faults",		PERFCTRFS_TYPE_SOFTWARE, 6 },
	{ "alignment_faults",		PERFCTRFS_TYPE_SOFTWARE, 7 },
	{ "emulation_faults",		PERFCTRFS_TYPE_SOFTWARE, 8 },
	CACHE_EVENT("l1d_read_access", 0, 0, 0),
	CACHE_EVENT("l1d_read_miss", 0, 0, 1),
	CACHE_EVENT("l1d_write_access", 0, 1, 0),
	CACHE_EVENT("l1d_write_miss", 0, 1, 1),
	CACHE_EVENT("l1d_prefetch_access", 0, 2, 0),
	CACHE_EVENT("l1d_prefetch_miss", 0, 2, 1),
	CACHE_EVENT("l1i_read_access", 1, 0, 0),
	CACHE_EVENT("l1i_read_miss", 1, 0, 1),
	CACHE_EVENT("l1i_write_access", 1, 1, 0),
	CACHE_EVENT("l1i_write_miss", 1, 1, 1),
	CACHE_EVENT("l1i_prefetch_access", 1, 2, 0),
	CACHE_EVENT("l1i_prefetch_miss", 1, 2, 1),
	CACHE_EVENT("llc_read_access", 2, 0, 0),
	CACHE_EVENT("llc_read_miss", 2, 0, 1),
	CACHE_EVENT("llc_write_access", 2, 1, 0),
	CACHE_EVENT("llc_write_miss", 2, 1, 1),
	CACHE_EVENT("llc_prefetch_access", 2, 2, 0),
	CACHE_EVENT("llc_prefetch_miss", 2, 2, 1),
	CACHE_EVENT("dtlb_read_access", 3, 0, 0),
	CACHE_EVENT("dtlb_read_miss", 3, 0, 1),
	CACHE_EVENT("dtlb_write_access", 3, 1, 0),
	CACHE_EVENT("dtlb_write_miss", 3, 1, 1),
	CACHE_EVENT("dtlb_prefetch_access", 3, 2, 0),
	CACHE_EVENT("dtlb_prefetch_miss", 3, 2, 1),
	CACHE_EVENT("itlb_read_access", 4, 0, 0),
	CACHE_EVENT("itlb_read_miss", 4, 0, 1),
	CACHE_EVENT("itlb_write_access", 4, 1, 0),
	CACHE_EVENT("itlb_write_miss", 4, 1, 1),
	CACHE_EVENT("itlb_prefetch_access", 4, 2, 0),
	CACHE_EVENT("itlb_prefetch_miss", 4, 2, 1),
	CACHE_EVENT("branch_read_access", 5, 0, 0),
	CACHE_EVENT("branch_read_miss", 5, 0, 1),
	CACHE_EVENT("branch_write_access", 5, 1, 0),
	CACHE_EVENT("branch_write_miss", 5, 1, 1),
	CACHE_EVENT("branch_prefetch_access", 5, 2, 0),
	CACHE_EVENT("branch_prefetch_miss", 5, 2, 1),
	CACHE_EVENT("node_read_access", 6, 0, 0),
	CACHE_EVENT("node_read_miss", 6, 0, 1),
	CACHE_EVENT("node_write_access", 6, 1, 0),
	CACHE_EVENT("node_write_miss", 6, 1, 1),
	CACHE_EVENT("node_prefetch_access", 6, 2, 0),
	CACHE_EVENT("node_prefetch_miss", 6, 2, 1),
};

const unsigned int perfctrfs_nr_builtins = ARRAY_SIZE(perfctrfs_builtins);

/* Deposit @val into the bits of @mask, lowest first; -ENOENT if it spills. */
static int deposit(u64 val, u64 mask, u64 *word)
{
	unsigned int bit;

	for (bit = 0; bit < 64 && val; bit++) {
		if (!(mask & 1ULL << bit))
			continue;
		if (val & 1)
			*word |= 1ULL << bit;
		val >>= 1;
	}
	return val ? -ENOENT : 0;
}

/*
 * A term value fitting in 64 bits.  As a driver's sysfs alias writes it
 * (@canonical false): decimal, or "0x" and hex digits of either case,
 * leading zeros allowed.  In a name a user composes (@canonical true):
 * decimal or "0x" and lower-case hex digits, without a leading zero, so
 * that one value has one name, as every number in a path has.
 */
static int parse_value(const char *s, size_t len, u64 *out, bool canonical)
{
	unsigned int base = 10;
	size_t i = 0;
	u64 v = 0;

	if (len >= 2 && s[0] == '0' && s[1] == 'x') {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -ENOENT;
	if (canonical && s[i] == '0' && len > i + 1)
		return -ENOENT;
	for (; i < len; i++) {
		int d = hex_digit(s[i], !canonical);

		if (d < 0 || (unsigned int)d >= base)
			return -ENOENT;
		if (v > (~0ULL - d) / base)
			return -ENOENT;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* Length of the term name (before '=') of the item at @s, or @len. */
static size_t term_name_len(const char *s, size_t len)
{
	const char *eq = memchr(s, '=', len);

	return eq ? (size_t)(eq - s) : len;
}

/* Does a term before @stop in the list at @terms have this name? */
static bool term_seen(const char *terms, const char *stop,
		      const char *name, size_t nlen)
{
	const char *p = terms;

	while (p < stop) {
		const char *comma = memchr(p, ',', stop - p);
		size_t ilen = (comma ? comma : stop) - p;

		if (term_name_len(p, ilen) == nlen && !memcmp(p, name, nlen))
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}

/* Encode one "term=value" item of the list at @terms into @cfg. */
static int encode_term(const struct perfctrfs_pmu *pmu, const char *terms,
		       const char *s, size_t len, u64 cfg[3], bool canonical)
{
	size_t nlen = term_name_len(s, len);
	u64 mask = ~0ULL;
	unsigned int i;
	u64 val;
	u8 word;

	if (nlen == 0 || nlen == len)
		return -ENOENT;
	for (i = 0; i < pmu->nr_formats; i++)
		if (name_is(s, nlen, pmu->formats[i].name))
			break;
	if (i < pmu->nr_formats) {
		word = pmu->formats[i].word;
		mask = pmu->formats[i].mask;
	} else if (name_is(s, nlen, "config")) {
		word = 0;
	} else if (name_is(s, nlen, "config1")) {
		word = 1;
	} else if (name_is(s, nlen, "config2")) {
		word = 2;
	} else {
		return -ENOENT;
	}
	if (word > 2 || term_seen(terms, s, s, nlen))
		return -ENOENT;
	if (parse_value(s + nlen + 1, len - nlen - 1, &val, canonical))
		return -ENOENT;
	return deposit(val, mask, &cfg[word]);
}

/* perfctrfs_encode_terms(), for a driver's alias or (@canonical) a user's name */
static int encode_terms(const struct perfctrfs_pmu *pmu, const char *terms,
			size_t len, struct perfctrfs_event *ev, bool canonical)
{
	const char *end = terms + len;
	const char *p = terms;
	u64 cfg[3] = { 0, 0, 0 };

	if (len == 0 || has_nul(terms, len))
		return -ENOENT;
	for (;;) {
		const char *comma = memchr(p, ',', end - p);
		const char *stop = comma ? comma : end;
		int ret = encode_term(pmu, terms, p, stop - p, cfg,
				      canonical);

		if (ret)
			return ret;
		if (!comma)
			break;
		p = comma + 1;
	}
	ev->config = cfg[0];
	ev->config1 = cfg[1];
	ev->config2 = cfg[2];
	return 0;
}

/**
 * perfctrfs_encode_terms() - encode a PMU term list into config words
 * @pmu: the PMU whose format fields name the terms
 * @terms: "term=value[,term=value...]", not NUL-terminated
 * @len: its length
 * @ev: receives config, config1 and config2, only on success
 *
 * A term is one of @pmu's format fields or a whole word (config, config1,
 * config2); each may appear once.  Its value is deposited into the field's
 * bits from the lowest up, and must fit in them.  Driver alias strings that
 * use anything else ("period=", "?" placeholders) do not encode, and the
 * alias is then not usable.
 *
 * Return: 0, or -ENOENT for an unknown or repeated term, a missing '=',
 * a malformed or too wide value, or an empty list or item.
 */
int perfctrfs_encode_terms(const struct perfctrfs_pmu *pmu,
			   const char *terms, size_t len,
			   struct perfctrfs_event *ev)
{
	return encode_terms(pmu, terms, len, ev, false);
}

/* "0x" and 1..16 lower-case hex digits, no leading zero: a raw code. */
static int parse_raw(const char *s, size_t len, u64 *out)
{
	u64 v = 0;
	size_t i;

	if (len < 3 || len > 18 || s[0] != '0' || s[1] != 'x')
		return -ENOENT;
	if (s[2] == '0' && len > 3)
		return -ENOENT;
	for (i = 2; i < len; i++) {
		int d = hex_digit(s[i], false);

		if (d < 0)
			return -ENOENT;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

static const struct perfctrfs_pmu *find_pmu(const struct perfctrfs_catalog *cat,
					    const char *s, size_t len)
{
	unsigned int i;

	if (!cat || len == 0)
		return NULL;
	for (i = 0; i < cat->nr_pmus; i++)
		if (name_is(s, len, cat->pmus[i].name))
			return &cat->pmus[i];
	return NULL;
}

/* "<pmu>.<alias>" or "<pmu>.<term>=<value>,...": @dot splits the two. */
static int parse_pmu_event(const char *s, size_t len, const char *dot,
			   const struct perfctrfs_catalog *cat,
			   struct perfctrfs_event *ev)
{
	const struct perfctrfs_pmu *pmu = find_pmu(cat, s, dot - s);
	const char *rest = dot + 1;
	size_t rlen = s + len - rest;
	unsigned int i;

	if (!pmu || rlen == 0)
		return -ENOENT;
	ev->type = pmu->type;
	if (memchr(rest, '=', rlen))
		return encode_terms(pmu, rest, rlen, ev, true);
	for (i = 0; i < pmu->nr_aliases; i++) {
		const struct perfctrfs_alias *a = &pmu->aliases[i];

		if (name_is(rest, rlen, a->name))
			return perfctrfs_encode_terms(pmu, a->terms,
						      strlen(a->terms), ev);
	}
	return -ENOENT;
}

static int parse_base(const char *s, size_t len,
		      const struct perfctrfs_catalog *cat,
		      struct perfctrfs_event *ev)
{
	const char *dot;
	unsigned int i;

	if (len == 0)
		return -ENOENT;
	for (i = 0; i < perfctrfs_nr_builtins; i++) {
		if (name_is(s, len, perfctrfs_builtins[i].name)) {
			ev->type = perfctrfs_builtins[i].type;
			ev->config = perfctrfs_builtins[i].config;
			return 0;
		}
	}
	if (len >= 2 && s[0] == '0' && s[1] == 'x') {
		ev->type = PERFCTRFS_TYPE_RAW;
		return parse_raw(s, len, &ev->config);
	}
	dot = memchr(s, '.', len);
	if (dot)
		return parse_pmu_event(s, len, dot, cat, ev);
	return -ENOENT;
}

/* One or more of u, k, h, I, each at most once. */
static int parse_mods(const char *s, size_t len, struct perfctrfs_event *ev)
{
	unsigned int mods = 0;
	size_t i;

	if (len == 0)
		return -ENOENT;
	for (i = 0; i < len; i++) {
		unsigned int m;

		switch (s[i]) {
		case 'u':
			m = MOD_U;
			break;
		case 'k':
			m = MOD_K;
			break;
		case 'h':
			m = MOD_H;
			break;
		case 'I':
			m = MOD_I;
			break;
		default:
			return -ENOENT;
		}
		if (mods & m)
			return -ENOENT;
		mods |= m;
	}
	/* As perf: naming a privilege level excludes the ones not named. */
	if (mods & (MOD_U | MOD_K | MOD_H)) {
		ev->exclude_user = !(mods & MOD_U);
		ev->exclude_kernel = !(mods & MOD_K);
		ev->exclude_hv = !(mods & MOD_H);
	}
	ev->exclude_idle = !!(mods & MOD_I);
	return 0;
}

static int parse_member(const char *s, size_t len,
			const struct perfctrfs_catalog *cat,
			struct perfctrfs_event *ev)
{
	const char *colon = memchr(s, ':', len);
	size_t blen = colon ? (size_t)(colon - s) : len;
	int ret;

	ret = parse_base(s, blen, cat, ev);
	if (ret || !colon)
		return ret;
	return parse_mods(colon + 1, len - blen - 1, ev);
}

/**
 * perfctrfs_parse_event() - parse an event level name
 * @name: the path component, not NUL-terminated
 * @len: its length
 * @cat: the PMUs whose aliases and terms may be named; may be NULL
 * @out: the decoded members; zeroed first, meaningful only on success
 *
 * The grammar is in grammar.h.  Whether a CPU can count the event is the
 * caller's question.
 *
 * Return: 0, or -ENOENT when @name does not parse.
 */
int perfctrfs_parse_event(const char *name, size_t len,
			  const struct perfctrfs_catalog *cat,
			  struct perfctrfs_event_spec *out)
{
	const char *end = name + len;
	const char *p = name;

	memset(out, 0, sizeof(*out));
	if (len == 0 || has_nul(name, len))
		return -ENOENT;
	for (;;) {
		const char *plus = memchr(p, '+', end - p);
		const char *stop = plus ? plus : end;

		if (out->nr == PERFCTRFS_MAX_GROUP ||
		    parse_member(p, stop - p, cat, &out->ev[out->nr]))
			return -ENOENT;
		out->nr++;
		if (!plus)
			return 0;
		p = plus + 1;
	}
}

/**
 * perfctrfs_parse_format() - parse a PMU format field's sysfs text
 * @text: "config:0-7", "config1:0-31", "config:0-7,32-35", "config:21";
 *	one trailing newline, as sysfs shows it, is allowed
 * @len: its length
 * @word: receives 0, 1 or 2 (config, config1, config2), only on success
 * @mask: receives the field's bits, only on success
 *
 * Bit numbers are canonical decimals 0..63; ranges are low-high and may
 * not overlap.
 *
 * Return: 0, or -EINVAL when @text does not parse.
 */
int perfctrfs_parse_format(const char *text, size_t len, u8 *word, u64 *mask)
{
	const char *colon, *p, *end;
	u64 m = 0;
	u8 w;

	if (len && text[len - 1] == '\n')
		len--;
	if (len == 0 || has_nul(text, len))
		return -EINVAL;
	colon = memchr(text, ':', len);
	if (!colon)
		return -EINVAL;
	if (name_is(text, colon - text, "config"))
		w = 0;
	else if (name_is(text, colon - text, "config1"))
		w = 1;
	else if (name_is(text, colon - text, "config2"))
		w = 2;
	else
		return -EINVAL;

	end = text + len;
	p = colon + 1;
	for (;;) {
		const char *comma = memchr(p, ',', end - p);
		const char *stop = comma ? comma : end;
		const char *dash = memchr(p, '-', stop - p);
		u64 lo, hi, bits;

		if (parse_canonical(p, (dash ? dash : stop) - p, 63, &lo))
			return -EINVAL;
		hi = lo;
		if (dash && parse_canonical(dash + 1, stop - dash - 1, 63, &hi))
			return -EINVAL;
		if (hi < lo)
			return -EINVAL;
		bits = (~0ULL >> (63 - hi)) & ~((1ULL << lo) - 1);
		if (m & bits)
			return -EINVAL;
		m |= bits;
		if (!comma)
			break;
		p = comma + 1;
	}
	*word = w;
	*mask = m;
	return 0;
}

/*
 * Bounded output for the writers below: counts every byte it is given,
 * stores those that fit before the NUL.
 */
struct outbuf {
	char *buf;
	size_t size;
	size_t len;
};

static void put_char(struct outbuf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_str(struct outbuf *o, const char *s)
{
	while (*s)
		put_char(o, *s++);
}

static void put_num(struct outbuf *o, u64 v, unsigned int base)
{
	char digits[20];
	int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		put_char(o, digits[--n]);
}

static void put_field(struct outbuf *o, const char *name, u64 v, bool hex)
{
	put_char(o, ',');
	put_str(o, name);
	put_char(o, '=');
	if (hex)
		put_str(o, "0x");
	put_num(o, v, hex ? 16 : 10);
}

static int out_end(struct outbuf *o)
{
	if (o->len >= o->size)
		return -ENAMETOOLONG;
	o->buf[o->len] = '\0';
	return o->len;
}

/**
 * perfctrfs_alias_path() - write the path form of a PMU event alias
 * @pmu: the PMU's name, copied as it is
 * @alias: the alias as the driver names it ("cpu-cycles", "PM_RUN_INST_CMPL")
 * @buf: receives "<pmu>.<alias>", the alias in lower case with '-' as '_'
 * @size: size of @buf
 *
 * Return: the length written, without the NUL, or -ENAMETOOLONG when it
 * does not fit with its NUL.
 */
int perfctrfs_alias_path(const char *pmu, const char *alias,
			 char *buf, size_t size)
{
	struct outbuf o = { buf, size, 0 };

	put_str(&o, pmu);
	put_char(&o, '.');
	for (; *alias; alias++) {
		char c = *alias;

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		else if (c == '-')
			c = '_';
		put_char(&o, c);
	}
	return out_end(&o);
}

/**
 * perfctrfs_format_encoding() - describe what an event spec opens
 * @spec: a parsed event level name
 * @buf: receives "type=0,config=0x1" per member, then ",config1=0x..",
 *	",config2=0x.." when not 0 and ",exclude_user=1" (_kernel, _hv,
 *	_idle) when set; members are joined with '+'
 * @size: size of @buf
 *
 * This is the user.perfctr.encoding xattr.
 *
 * Return: the length written, without the NUL, or -ENAMETOOLONG when it
 * does not fit with its NUL.
 */
int perfctrfs_format_encoding(const struct perfctrfs_event_spec *spec,
			      char *buf, size_t size)
{
	struct outbuf o = { buf, size, 0 };
	unsigned int i;

	for (i = 0; i < spec->nr && i < PERFCTRFS_MAX_GROUP; i++) {
		const struct perfctrfs_event *ev = &spec->ev[i];

		if (i)
			put_char(&o, '+');
		put_str(&o, "type=");
		put_num(&o, ev->type, 10);
		put_field(&o, "config", ev->config, true);
		if (ev->config1)
			put_field(&o, "config1", ev->config1, true);
		if (ev->config2)
			put_field(&o, "config2", ev->config2, true);
		if (ev->exclude_user)
			put_field(&o, "exclude_user", 1, false);
		if (ev->exclude_kernel)
			put_field(&o, "exclude_kernel", 1, false);
		if (ev->exclude_hv)
			put_field(&o, "exclude_hv", 1, false);
		if (ev->exclude_idle)
			put_field(&o, "exclude_idle", 1, false);
	}
	return out_end(&o);
}

/* ---- level 3: pid --------------------------------------------------- */

/**
 * perfctrfs_parse_pid() - parse a pid level name
 * @name: the path component, not NUL-terminated
 * @len: its length
 * @out: the decoded target, written only on success
 *
 * Accepts "self", "all", a canonical decimal from 1 to PERFCTRFS_MAX_ID,
 * or "cgroup." and a canonical decimal from 1 to 2^64 - 1 (the grammar
 * is in grammar.h).  Whether that task or cgroup exists is the caller's
 * question.
 *
 * Return: 0, or -ENOENT when @name does not parse.
 */
int perfctrfs_parse_pid(const char *name, size_t len, struct perfctrfs_pid *out)
{
	const size_t plen = sizeof(PERFCTRFS_CGROUP_PREFIX) - 1;
	u64 v;

	if (name_is(name, len, "self")) {
		out->kind = PERFCTRFS_PID_SELF;
		out->pid = 0;
		out->cgroup = 0;
		return 0;
	}
	if (name_is(name, len, "all")) {
		out->kind = PERFCTRFS_PID_ALL;
		out->pid = 0;
		out->cgroup = 0;
		return 0;
	}
	if (len > plen && !memcmp(name, PERFCTRFS_CGROUP_PREFIX, plen)) {
		if (parse_canonical(name + plen, len - plen, ~0ULL, &v) ||
		    v == 0)
			return -ENOENT;
		out->kind = PERFCTRFS_PID_CGROUP;
		out->pid = 0;
		out->cgroup = v;
		return 0;
	}
	if (parse_canonical(name, len, PERFCTRFS_MAX_ID, &v) || v == 0)
		return -ENOENT;
	out->kind = PERFCTRFS_PID_NUM;
	out->pid = v;
	out->cgroup = 0;
	return 0;
}

/* ---- level 4: type -------------------------------------------------- */

const char *const perfctrfs_type_names[3] = {
	[PERFCTRFS_SIMPLE] = "simple",
	[PERFCTRFS_TIMES] = "times",
	[PERFCTRFS_IRQ] = "irq",
};

/**
 * perfctrfs_parse_type() - parse a type level name
 * @name: the path component, not NUL-terminated
 * @len: its length
 * @out: the decoded type, written only on success
 *
 * Return: 0, or -ENOENT unless @name is one of perfctrfs_type_names[].
 */
int perfctrfs_parse_type(const char *name, size_t len, enum perfctrfs_type *out)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(perfctrfs_type_names); i++) {
		if (name_is(name, len, perfctrfs_type_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- level 5: period ------------------------------------------------ */

/**
 * perfctrfs_parse_period() - parse a period level name
 * @name: the path component, not NUL-terminated
 * @len: its length
 * @type: the type level above it
 * @out: the decoded period, written only on success
 *
 * A count is a canonical decimal up to PERFCTRFS_MAX_COUNT; 0 does not
 * exist under irq.  A time is a canonical decimal and a unit (ns, us, ms,
 * s) of at least PERFCTRFS_MIN_PERIOD_NS, whose nanoseconds fit in
 * PERFCTRFS_MAX_COUNT.
 *
 * Return: 0, or -ENOENT when @name does not parse or names nothing.
 */
int perfctrfs_parse_period(const char *name, size_t len,
			   enum perfctrfs_type type,
			   struct perfctrfs_period *out)
{
	static const struct {
		const char *unit;
		u64 ns;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "ms", 1000000 },
		{ "s", 1000000000 },
	};
	size_t ndigits = 0;
	unsigned int i;
	u64 v;

	while (ndigits < len && is_digit(name[ndigits]))
		ndigits++;
	if (parse_canonical(name, ndigits, PERFCTRFS_MAX_COUNT, &v))
		return -ENOENT;
	if (ndigits == len) {
		if (v == 0 && type == PERFCTRFS_IRQ)
			return -ENOENT;
		out->is_time = false;
		out->value = v;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!name_is(name + ndigits, len - ndigits, units[i].unit))
			continue;
		if (v > PERFCTRFS_MAX_COUNT / units[i].ns)
			return -ENOENT;
		v *= units[i].ns;
		if (v < PERFCTRFS_MIN_PERIOD_NS)
			return -ENOENT;
		out->is_time = true;
		out->value = v;
		return 0;
	}
	return -ENOENT;
}
