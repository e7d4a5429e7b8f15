#!/bin/bash
# The kernel part of perfctrfs as a patch series a maintainer can apply.
#
# Usage: scripts/series.sh BASE [OUT]      write the series
#        scripts/series.sh --check BASE    write it, then check it
#
#   BASE  6.1 or 6.12: Debian's linux-source-BASE, pristine
#   OUT   where the series goes (default build/series/BASE/): git
#         format-patch output, 0000-cover-letter.patch first
#
# The series, in order: the perf-core patches of kernel/patches (BASE's
# series, kernel/patches/README), then perfctrfs: the filesystem in seven
# steps (the mount with its build hooks and an empty root; lookup and
# readdir; open and read of single counters; groups; irq leaves;
# control words; cgroup targets), the x86 and powerpc PMU tables, Documentation, the
# KUnit tests, a MAINTAINERS entry.  Each step's files are the clone's
# with the blocks of the features not yet added left out: the sources'
# "series:" marker comments (series_markers below) say which lines
# arrive with which step, and "until" blocks hold, as // comments, the
# refusals and stand-ins of the steps before a feature (e.g. "a+b" does
# not look up before the groups patch).  fs/perfctrfs/compat.h is
# resolved for BASE (its LINUX_VERSION_CODE tests decided), so the series
# holds no version test; in the end every other file is the clone's
# without its marker lines and "until" blocks, otherwise byte for byte.
#
# --check, on a fresh branch from the pristine tree:
#   - every patch applies with git am, in order;
#   - every patch passes checkpatch.pl --strict (BASE's own);
#     FILE_PATH_CHANGES ("does MAINTAINERS need updating?") is ignored:
#     the MAINTAINERS entry is the series' last patch, as asked; on 6.1
#     also EMBEDDED_FILENAME, a false positive that checkpatch fixed;
#   - after each patch, a W=1 build of what the patch can affect, on
#     an out-of-tree obj directory configured as tests/qemu/run.sh
#     configures the guest (x86_64: tinyconfig + x86_64.config, + on
#     6.12 x86_64-612.config if there is one; made again after a patch
#     that edits a Kconfig) and prepared once:
#       - each directory with its own Makefile or Kbuild that holds a
#         file the patch touches, as a directory target (kernel/events/,
#         fs/perfctrfs/: everything of it the configuration builds);
#       - in a top-level directory or an arch's root (fs/, arch/x86/),
#         only the touched .c and .S files' objects: their Makefile or
#         Kbuild is read on kbuild's way down, their Kconfig by the
#         configuration, and nothing else there is rebuilt;
#       - arch/powerpc's files likewise with powerpc64le-linux-gnu-gcc
#         (allnoconfig + ppc64le.config), skipped without it;
#     it fails on make's failure, on any warning or error in a file of
#     the series so far, and when one of the patch's C files was not
#     compiled (configured out), and checks at the end that the x86_64
#     configuration kept every line of the fragment.  Not built: a patch
#     touching only Documentation/ or MAINTAINERS (no TAP line); the
#     other users of a touched header outside those directories (e.g.
#     arch/x86/events/ for perf_event.h); the vmlinux link: tests/qemu/
#     run.sh links the final tree (the same tree, checked below), no
#     intermediate one; htmldocs.  SERIES_BUILD=1 builds bzImage after
#     every patch instead (a full kernel build first: a separate, long
#     check), SERIES_BUILD=0 nothing;
#   - after each patch that built on x86_64 and has fs/perfctrfs, a link
#     check instead: every symbol perfctrfs's objects so far leave
#     undefined is defined by one of them or by the base kernel (the
#     System.map of the x86_64 guest kernel tests/qemu/run.sh built for
#     BASE, less perfctrfs's own symbols; while run.sh is building it,
#     the check waits for it, up to SERIES_GUEST_WAIT seconds, default
#     3600); SKIP without that kernel;
#   - the final tree equals what tests/qemu/run.sh builds for BASE (the
#     base's kernel/patches applied, the clone's files laid over, compat.h
#     resolved), in every file the tests use, the series markers and
#     "until" blocks stripped from the clone's files: they are comments.
#
# The pristine tree is a git repository cached in
# /var/cache/perfctrfs/series/BASE/ (PERFCTRFS_CACHE overrides the root),
# made once per package version (about 3 minutes); the obj directories
# are beside it, obj-ARCH-KEY (KEY: package version, fragment, compiler).
# JOBS: make -j for the builds (default 2).
#
# Output with --check: TAP on stdout, one "ok"/"not ok" line per check
# (2 per patch, + 1 per patch and arch that builds something, + 1 per
# patch with fs/perfctrfs built on x86_64, + 2 at the end), "1..N"
# last; progress and each build's time on stderr, with a failing
# check's log; exit status non-zero on any failure.
set -euo pipefail

usage() { sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

check=0
[ "${1:-}" = --check ] && { check=1; shift; }
base=${1:-}
case $base in
6.1 | 6.12) ;;
*) usage ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$top/build/series/$base}
srcpkg=linux-source-$base
tarball=/usr/src/$srcpkg.tar.xz
croot=${PERFCTRFS_CACHE:-/var/cache/perfctrfs}
work=$croot/series/$base
tree=$work/tree
pdir=$top/kernel/patches
[ "$base" != 6.1 ] && pdir=$pdir/$base
export GIT_AUTHOR_NAME=perfctrfs GIT_AUTHOR_EMAIL=perfctrfs@localhost
export GIT_COMMITTER_NAME=perfctrfs GIT_COMMITTER_EMAIL=perfctrfs@localhost
export GIT_AUTHOR_DATE='2026-12-01 00:00:00 +0000'
export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE

say() { echo "series $base: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }
[ -r "$tarball" ] || die "$tarball missing (scripts/deps.sh installs $srcpkg)"
mkdir -p "$work"
exec 9> "$work/lock"
flock -w 3600 9 || die "$work stayed locked for an hour"

# ---------------------------------------------------------------- pristine
version=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null || stat -c '%s %Y' "$tarball")
if [ "$(cat "$work/version" 2>/dev/null)" != "$version" ] || [ ! -d "$tree/.git" ]; then
	say "extracting $tarball into a git repository (once per version)"
	rm -rf "$tree" "$work/version" "$work/obj" "$work"/obj-*
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1
	# Debian's source package ignores everything (/* in .gitignore): -f
	git -C "$tree" init -q
	git -C "$tree" add -f .
	git -C "$tree" commit -qm "$srcpkg $version"
	git -C "$tree" tag -f pristine > /dev/null
	echo "$version" > "$work/version"
fi
g() { git -C "$tree" "$@"; }
fresh() {	# a clean branch $1 at the pristine tree
	g am --abort > /dev/null 2>&1 || true
	g checkout -q -f -B "$1" pristine
	g clean -q -fdx
}

# ---------------------------------------------------------------- helpers
# compat.h for this base: each "#if LINUX_VERSION_CODE >= KERNEL_VERSION()"
# decided, the version header dropped; the rest as written.
resolve_compat() {
	python3 - "$base" "$1" <<-'EOF'
	import re, sys
	base = tuple(int(x) for x in sys.argv[1].split('.')) + (0,)
	out, stack = [], []	# stack: [taking this branch?, taken before?]
	for line in open(sys.argv[2]):
	    m = re.match(r'#if LINUX_VERSION_CODE >= KERNEL_VERSION\((\d+), (\d+), (\d+)\)', line)
	    if m:
	        t = base >= tuple(int(x) for x in m.groups())
	        stack.append([t, True])
	        continue
	    if stack and re.match(r'#else\b', line):
	        stack[-1][0] = not stack[-1][0]
	        continue
	    if stack and re.match(r'#endif\b', line):
	        stack.pop()
	        continue
	    if line.startswith('#include <linux/version.h>'):
	        continue
	    if all(s[0] for s in stack):
	        out.append(line)
	text = ''.join(out)
	if 'LINUX_VERSION_CODE' in text.replace('LINUX_VERSION_CODE tests', ''):
	    sys.exit('compat.h: a version test this script cannot decide')
	sys.stdout.write(text)
	EOF
}

# The filesystem's steps.  Its sources carry feature markers, whole
# comment lines that open and close a block:
#	/* series: FEATURE */		the lines up to the end marker
#	...				arrive with FEATURE's patch;
#	/* series: end */
#	/* series: until FEATURE */	each line "//" + code: that code
#	//	...			stands in the patches before
#	/* series: end */		FEATURE's, then goes (a refusal,
#					a stand-in for what FEATURE adds).
# FEATURE is one of $features, in the order of the patches; no nesting.
# series_markers FILE FEATURE... prints FILE as of the step whose
# features so far are FEATURE...: the blocks of those features kept, the
# "until" blocks of the others uncommented, the marker lines dropped.
# With every feature it is FILE without markers, "until" blocks and their
# "//" code: the series' final file, compared with the tested one below.
features="lookup counters groups irq control cgroup"
series_markers() {
	python3 - "$features" "$@" <<-'EOF'
	import re, sys
	known, path, have = sys.argv[1].split(), sys.argv[2], set(sys.argv[3:])
	mark = re.compile(r'\s*(?:/\*|#) series: (until )?(\w+)(?: \*/)?\s*$')
	out, block = [], None	# block: (until?, feature, line number)
	for n, line in enumerate(open(path), 1):
	    m = mark.match(line)
	    if m and m.group(2) == 'end' and not m.group(1):
	        if not block:
	            sys.exit('%s:%d: an end marker outside a block' % (path, n))
	        block = None
	        continue
	    if m:
	        if block:
	            sys.exit('%s:%d: a marker inside a block' % (path, n))
	        if m.group(2) not in known:
	            sys.exit('%s:%d: no feature %s' % (path, n, m.group(2)))
	        block = (bool(m.group(1)), m.group(2), n)
	        continue
	    if block and block[0]:
	        if not line.startswith('//'):
	            sys.exit('%s:%d: an "until" line without "//"' % (path, n))
	        if block[1] not in have:
	            out.append(line[2:])
	        continue
	    if not block or block[1] in have:
	        out.append(line)
	if block:
	    sys.exit('%s:%d: a block without its end' % (path, block[2]))
	sys.stdout.write(''.join(out))
	EOF
}

# Kconfig's entries by name: kconfig_entries FILE NAME... prints the
# SPDX line and those "config NAME" blocks.
kconfig_entries() {
	python3 - "$@" <<-'EOF'
	import re, sys
	blocks, head = [], []
	for line in open(sys.argv[1]):
	    m = re.match(r'config (\w+)', line)
	    if m:
	        blocks.append([m.group(1), []])
	    (blocks[-1][1] if blocks else head).append(line)
	text = ''.join(head) + ''.join(''.join(b) for n, b in blocks
	                               if n in sys.argv[2:])
	sys.stdout.write(text.rstrip('\n') + '\n')
	EOF
}

put() {	# put FILE [CONTENT-FILE]: the clone's file (or CONTENT-FILE) into the tree
	mkdir -p "$(dirname "$tree/$1")"
	cp "${2:-$top/$1}" "$tree/$1"
	g add -f "$1"
}

commit() {	# commit SUBJECT <<< BODY
	local msg
	msg=$(cat)
	g commit -q -s -m "$1" -m "$msg"
}

hooks() {	# the build hooks of 0001 for paths matching $1
	git -C "$tree" apply --include="$1" "$pdir"/0001-*.patch
	g add -u
}

# fs_step FEATURE|- FILE...: the filesystem's files as of FEATURE (its
# patch; - for the first), FILEs arriving now; the Makefile links the
# objects of the .c files there are so far.  Uses make_series's $tmp.
fs_feats=() fs_files=()
fs_step() {
	local f o objs=()
	[ "$1" = - ] || fs_feats+=("$1")
	shift
	fs_files+=("$@")
	for f in "${fs_files[@]}"; do
		case $f in
		compat.h) resolve_compat "$top/fs/perfctrfs/$f" > "$tmp/$f" ;;
		*) series_markers "$top/fs/perfctrfs/$f" "${fs_feats[@]}" > "$tmp/$f" ||
			die "fs/perfctrfs/$f: bad series markers" ;;
		esac
		put "fs/perfctrfs/$f" "$tmp/$f"
	done
	for o in $(sed -n 's/^perfctrfs-y := //p' "$top/fs/perfctrfs/Makefile"); do
		[ -f "$tree/fs/perfctrfs/${o%.o}.c" ] && objs+=("$o")
	done
	# a conditional object ("perfctrfs-$(CONFIG_X) += x.o") once x.c is here
	grep -v KUNIT "$top/fs/perfctrfs/Makefile" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' |
		sed "s/^perfctrfs-y := .*/perfctrfs-y := ${objs[*]}/" |
		while IFS= read -r o; do
			case $o in
			'perfctrfs-$('*') += '*.o)
				o2=${o##* }
				[ -f "$tree/fs/perfctrfs/${o2%.o}.c" ] || continue ;;
			esac
			printf '%s\n' "$o"
		done > "$tmp/Makefile"
	put fs/perfctrfs/Makefile "$tmp/Makefile"
}

# ---------------------------------------------------------------- the series
make_series() {
	local p tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	fresh series
	# the base's perf-core patches: every one but 0001, the build hooks
	for p in "$pdir"/0*.patch; do
		case ${p##*/} in 0001-*) continue ;; esac
		g am -q "$p" || die "$p does not apply with git am"
	done

	# 1-7. the filesystem, a feature a patch (series_markers above)
	kconfig_entries "$top/fs/perfctrfs/Kconfig" PERFCTRFS > "$tmp/Kconfig"
	put fs/perfctrfs/Kconfig "$tmp/Kconfig"
	fs_step - super.c internal.h compat.h grammar.h grammar_env.h
	hooks 'fs/*'
	commit "fs: perfctrfs, the mount and an empty root" <<-'EOF'
	perfctrfs makes every counter perf_events can count reachable as a
	file whose path says what to count:

	    /dev/perfctr/<cpu>/<event>/<pid>/<type>/<period>

	Nothing is stored: each level is looked up on demand, and opening a
	leaf creates the counter, for the opener, with perf_event_open(2)'s
	own checks.  This series adds it a step at a time: the mount, lookup
	and readdir, single counters, groups, overflow sampling, control
	words, then the architecture tables.

	This first step is the mount: the filesystem type, its options
	(uid=, gid=, mode= of the leaves; directories get r-x for every class
	that has a right on them), remount, mountinfo, and the inode life
	cycle.  Every inode carries in i_private the node that says what its
	path names (internal.h); grammar.h defines the levels' types, which
	the grammar of the next patch parses.  The root is an empty
	directory until then: every name is ENOENT.
	EOF

	fs_step lookup dir.c catalog.c grammar.c
	put include/linux/perfctrfs.h
	commit "perfctrfs: lookup and readdir of the five levels" <<-'EOF'
	A lookup parses one path component with the grammar (grammar.c, plain
	C without allocation, which the project's FUSE daemon builds too;
	grammar_env.h picks kernel or libc types), checks that what it names
	exists now and makes an inode whose node is its parent's plus this
	level.  It never creates a perf event:

	    cpu     "all", or an online CPU
	    event   perf's generic events, each PMU's sysfs aliases, raw
	            codes and PMU terms through the PMU's own format fields;
	            a catalogue entry exists where the mount's probes found
	            it countable (catalog.c)
	    pid     "self", "all", or a live task in the caller's pid
	            namespace
	    type    simple, times
	    period  a count or a time: a regular file, the leaf

	Readdir lists what lookup accepts and instantiates each entry through
	the dcache, so that the inode numbers it reports are stat()'s.
	Dentries of a CPU gone offline or of a dead pid stop revalidating.
	Events carry read-only user.perfctr.* xattrs (encoding, description,
	scale, unit).  Nothing can be created, removed or renamed.

	A leaf cannot be opened yet (ENXIO, the VFS's answer for an inode
	without file operations); "a+b" group names and the irq type do not
	look up until their patches.  The architecture hooks of
	include/linux/perfctrfs.h are stubs until an architecture selects
	PERFCTRFS_ARCH (later in the series).
	EOF

	fs_step counters counter.c counter.h file.c
	commit "perfctrfs: open and read a counter" <<-'EOF'
	Opening a leaf creates its counter with the perf core's kernel-counter
	API, for the opener: perf_event_open_permitted() for the event, the
	task lookup, perf_allow_cpu() for a CPU-wide counter and
	perf_check_permission() under exec_update_lock (both made available
	by the perf patches before this one).  A process is counted one
	event per thread, inherited by the children it creates; cpu "all"
	with pid "all" one event per online CPU; reads sum them.  Every read
	passes the LSM's read hook, as perf_read() does.

	A read gives one line: the count (simple), or the count, time enabled
	and time running (times).  Period 0 is a seekable snapshot, fresh at
	offset 0; any other period makes the leaf a stream of one line per
	period, a count (the counter's overflow wakes the reader) or a time
	(an hrtimer, charged against a per-user rate), until the target exits
	or the CPU goes offline, then EOF; poll follows it.  The root's
	user.perfctr.counters xattr says how many events open leaves hold.

	Writes are EINVAL and ioctls ENOTTY until the control patch.
	EOF

	fs_step groups
	commit "perfctrfs: groups" <<-'EOF'
	An event level "a+b+..." (up to eight members) names one perf group,
	made with perf_event_create_kernel_group() and read at once with
	perf_event_read_group_kernel() (kernel/events, first patch of this
	series): the members are scheduled together and their counts are one
	measurement, a line of one count per member.  An inherited child
	group that a thread's exit is taking apart is waited for (-ECHILD,
	bounded) rather than read member by member; a CPU-wide group that CPU
	hotplug took apart is read member by member, as one last measurement.
	EOF

	fs_step irq
	commit "perfctrfs: irq leaves, overflow sampling" <<-'EOF'
	The irq type samples: every <period> events (or nanoseconds, for the
	clock events) the leader's overflow handler queues a record, and a
	read gives one "<count> 0x<ip>" line per record, "lost <n>" after
	records the ring had no room for or that perf never sampled
	(throttling), so that records plus lost always account for the count.

	The ring is a bounded lock-free multi-producer queue: overflows run
	in NMI or hard irq context, on several CPUs at once; the one consumer
	is the reader under the file's mutex, and an irq_work wakes it.  The
	ring is charged to the opener as perf_mmap() charges a perf ring
	buffer: perf_event_mlock_kb first, then RLIMIT_MEMLOCK (EPERM).
	EOF

	fs_step control
	commit "perfctrfs: enable, disable and reset" <<-'EOF'
	Writing "enable", "disable" or "reset" (one word a write, newline
	optional) to a leaf opened for writing, or the perf fd's ENABLE,
	DISABLE and RESET ioctls, act on every group of the leaf, members and
	inherited children included, through perf_event_ioctl_kernel() (the
	first patch of this series), after the LSM's write hook, as perf_ioctl()
	does.  A reset restarts a count period and the irq records' count; a
	leaf whose every CPU went offline says ENODEV.
	EOF

	fs_step cgroup cgroup.c
	commit "perfctrfs: cgroup targets" <<-'EOF'
	The pid level also names a cgroup v2 directory, cgroup.<id>, its id
	being the inode number of the directory (stat -c %i), and a leaf under
	it counts the tasks of that cgroup and its descendants, one group per
	CPU counted, as perf_event_open(2) with PERF_FLAG_PID_CGROUP does; the
	perf patch before the filesystem's lets perf_event_create_kernel_group()
	take the cgroup itself, since perf_cgroup_connect() took only a
	directory's fd.

	Who reaches a cgroup is decided for the caller, at lookup, readdir,
	revalidation and again at open (cgroup.c): a cgroup outside the
	caller's cgroup namespace, or whose directory the caller could not
	open, is ENOENT; the open's permission is then perf's for a cgroup
	event, perf_event_open_permitted() and perf_allow_cpu().  Readdir
	lists the cgroups the caller reaches after the processes, in id
	order; the user.perfctr.cgroup xattr gives a cgroup's path from the
	caller's cgroup namespace root.  When the cgroup is removed its
	streams end, as when a process exits: the last line, then EOF.
	EOF

	# 2. the arch tables
	kconfig_entries "$top/fs/perfctrfs/Kconfig" PERFCTRFS PERFCTRFS_ARCH > "$tmp/Kconfig"
	put fs/perfctrfs/Kconfig "$tmp/Kconfig"
	put arch/x86/perfctrfs_pmu.c
	put arch/powerpc/perfctrfs_pmu.c
	hooks 'arch/*'
	commit "perfctrfs: x86 and powerpc PMU tables" <<-'EOF'
	The filesystem asks the architecture three things through
	include/linux/perfctrfs.h: the named hardware events a PMU offers
	beyond its sysfs aliases, whether a raw code is one the PMU accepts,
	and why a group cannot be scheduled.  x86 answers from CPUID leaf 0xA
	and the perf driver's counter masks, powerpc from the POWER PMU's
	generic events and constraint checks.  The pure parts take recorded
	inputs so that the KUnit tests (later in the series) run them on
	machines without the PMU.
	EOF

	# 3. Documentation
	put Documentation/filesystems/perfctrfs.rst
	sed -i 's/^   overlayfs$/   overlayfs\n   perfctrfs/' "$tree/Documentation/filesystems/index.rst"
	grep -qx '   perfctrfs' "$tree/Documentation/filesystems/index.rst" ||
		die "no place for perfctrfs in Documentation/filesystems/index.rst"
	g add -u
	commit "Documentation: perfctrfs" <<-'EOF'
	The path grammar, what each kind of leaf reads, the control words,
	every errno and who gets it, the security model (lookup is pure,
	open decides with perf's own checks, for the opener's credentials),
	memory accounting, lifetime, CPU hotplug and umount, and the classic
	objections to counters as files with how each is answered.
	EOF

	# 4. KUnit
	put fs/perfctrfs/Kconfig
	put fs/perfctrfs/Makefile
	put fs/perfctrfs/.kunitconfig
	for p in grammar_kunit.c grammar_cases.h perfctrfs_kunit.c; do
		put "fs/perfctrfs/$p"
	done
	commit "perfctrfs: KUnit tests" <<-'EOF'
	grammar_kunit walks the grammar's test vectors (grammar_cases.h, the
	table the FUSE daemon's userspace runner walks too): every path the
	grammar must accept, with what it names, and every one it must
	refuse, with the errno.  perfctrfs_kunit mounts an internal instance
	and checks that readdir agrees with lookup, that lookups never open
	a counter, the xattrs, and the arch tables' pure functions.

	    ./tools/testing/kunit/kunit.py run --kunitconfig fs/perfctrfs
	EOF

	# 5. MAINTAINERS
	awk '
		/^PERFORMANCE EVENTS SUBSYSTEM$/ && !done {
			print "PERFCTRFS FILESYSTEM"
			print "M:\tperfctrfs <perfctrfs@localhost>"
			print "L:\tlinux-perf-users@vger.kernel.org"
			print "S:\tMaintained"
			print "F:\tDocumentation/filesystems/perfctrfs.rst"
			print "F:\tarch/powerpc/perfctrfs_pmu.c"
			print "F:\tarch/x86/perfctrfs_pmu.c"
			print "F:\tfs/perfctrfs/"
			print "F:\tinclude/linux/perfctrfs.h"
			print ""
			done = 1
		}
		{ print }' "$tree/MAINTAINERS" > "$tmp/MAINTAINERS"
	put MAINTAINERS "$tmp/MAINTAINERS"
	commit "MAINTAINERS: add perfctrfs" <<-'EOF'
	perfctrfs is a client of perf_events: its reviews belong on the perf
	users' list.
	EOF

	rm -rf "$out"
	mkdir -p "$out"
	g format-patch -q --cover-letter --zero-commit -o "$out" pristine..series
	cover "$out"/0000-cover-letter.patch
	say "$(find "$out" -name '*.patch' | wc -l) patches in $out"
}

cover() {	# the cover letter's subject and body
	python3 - "$1" "$base" "$top/bench/results/latest.md" <<-'EOF'
	import glob, os, re, sys
	path, base, bench = sys.argv[1:4]
	# patch numbers, by subject, from the series' own patches
	subjects = {}
	for f in glob.glob(os.path.join(os.path.dirname(path), '0*.patch')):
	    m = re.search(r'^Subject: \[PATCH (\d+)/\d+\] (.*)$', open(f).read(), re.M)
	    if m:
	        subjects[m.group(2)] = int(m.group(1))
	def no(prefix):
	    hits = [n for s, n in subjects.items() if s.startswith(prefix)]
	    if len(hits) != 1:
	        sys.exit('cover letter: no one patch "%s"' % prefix)
	    return hits[0]
	num = {k: no(v) for k, v in {
	    'kgroup': 'perf: create, read and control whole event groups',
	    'perm': "perf: share perf_event_open(2)'s permission checks",
	    'kcgroup': 'perf: let a kernel group count the tasks of a cgroup',
	    'counters': 'perfctrfs: open and read a counter',
	    'groups': 'perfctrfs: groups',
	    'irq': 'perfctrfs: irq leaves',
	    'control': 'perfctrfs: enable, disable and reset',
	    'cgroup': 'perfctrfs: cgroup targets',
	    'doc': 'Documentation: perfctrfs',
	}.items()}
	rows = []
	try:
	    for line in open(bench):
	        c = [x.strip() for x in line.strip().strip('|').split('|')]
	        if len(c) > 6 and c[0] == 'kernel':
	            rows.append('  %-19s %-36s %10s %-6s %6s' % (c[1], c[2], c[3], c[4], c[5]))
	except OSError:
	    rows.append('  (no bench/results/latest.md: run make bench)')
	body = open(path).read()
	body = body.replace('*** SUBJECT HERE ***',
	                    'perfctrfs: performance counters as files')
	blurb = '''\
	perfctrfs makes the counters perf_events can count reachable as files,
	so that cat, ls, awk, shell scripts and Python with no bindings can
	count.  The path says what to count:

	  /dev/perfctr/<cpu>/<event>/<pid>/<type>/<period>
	  cat /dev/perfctr/all/task_clock/self/simple/0       # this shell's CPU time
	  cat /dev/perfctr/all/page_faults/1234/simple/1s     # a line a second
	  cat /dev/perfctr/0/cycles+instructions/all/times/0  # one group, CPU 0
	  cat /dev/perfctr/all/cycles/cgroup.4242/simple/1s  # a cgroup's tasks

	Every counter is a perf_events counter, made when the file is opened,
	for the opener, with perf_event_open(2)'s own checks; perf core does
	the counting, scheduling and multiplexing.  A cgroup v2 directory,
	named by its id, is a target as it is for perf stat -G (patches
	%(kcgroup)d and %(cgroup)d).

	Why a filesystem
	----------------
	H. Peter Anvin proposed exactly this hierarchy when perf counters were
	first posted (LKML, December 2008, "[patch 0/3] [Announcement]
	Performance Counters for Linux"): strings rather than numbers, the
	events listed by readdir, and tools in any language.  The objections
	raised in that thread, and how this series answers each:

	 - "To read N events you need N syscalls and there is no atomicity
	   between the reads; N events need N file descriptors with no
	   coordinated start and stop" (Stephane Eranian, Paul Mackerras).
	   "a+b+c" is one perf group in one file: scheduled together, read
	   in one read() (PERF_FORMAT_GROUP), enabled, disabled and reset
	   together by writing a word to it (patches %(kgroup)d, %(groups)d and %(control)d).
	 - "Counters get multiplexed; raw counts lie" (David Miller).  The
	   times leaf gives time enabled and time running with the count
	   (patch %(counters)d).
	 - "When a counter overflows you must sample" (David Miller).  irq
	   leaves give one "<count> 0x<ip>" line per overflow record
	   (patch %(irq)d).
	 - "The kernel would have to know every event and every constraint"
	   (Stephane Eranian, Paul Mackerras).  It knows no more than perf
	   does: names come from perf's generic events and each PMU's sysfs
	   aliases, raw codes and PMU terms are encoded through the PMU's
	   own format fields, and a group the PMU cannot schedule is refused
	   by the PMU's event_init(), with the errno perf_event_open(2) gives.
	 - "A filesystem cannot keep perf's security model."  It does not
	   copy it: patch %(perm)d moves the syscall's checks into
	   perf_event_open_permitted() and exposes perf_check_permission(),
	   and every open calls them for the opener.  Lookups never create
	   an event.

	Documentation/filesystems/perfctrfs.rst (patch %(doc)d) has the details.

	What it costs
	-------------
	perfctrfs against perf_event_open(2) and a one-line seq_file
	(/proc/uptime) in the same QEMU TCG guest (make bench in the
	project; the project's bench/results/latest.md):

	  operation           path                                     median unit   vs perf
	%(rows)s

	How it was tested
	-----------------
	In QEMU on Debian's Linux 6.1 and 6.12 (x86_64, with the kprobe,
	uprobe, tracepoint and breakpoint PMUs) and on 6.1 and 6.12 ppc64le (POWER9
	pseries, whose PMU QEMU emulates): these KUnit tests; a conformance
	suite of bats tests run as root and as an unprivileged user (every
	errno, groups, periods, irq, control words, hotplug, lifetime,
	cgroup targets, hostile names); stress scenarios; a permission matrix comparing every
	open against perf_event_open(2) for the same caller, including user
	and pid namespaces; on POWER9, instruction counts exact to
	perf_event_open(2)'s within 0.1%%, groups and multiplexing; and on
	6.1 a KASAN, lockdep and kmemleak kernel.  Every patch of this series
	applies with git am, passes checkpatch.pl --strict and builds with
	W=1 on x86_64 and powerpc with no warning in these files, and the
	objects of the filesystem so far link against the base kernel; the
	series' final tree is the one those tests built.

	The series is against Debian's linux-source-%(base)s.
	''' % dict(num, rows='\n'.join(rows), base=base)
	body = body.replace('*** BLURB HERE ***', blurb.rstrip('\n'))
	open(path, 'w').write(body)
	EOF
}

make_series
[ $check = 1 ] || exit 0

# ---------------------------------------------------------------- the check
n=0 rc=0
tap() {	# tap OK|FAIL|SKIP description [why skipped]
	n=$((n + 1))
	case $1 in
	OK) echo "ok $n $2" ;;
	SKIP) echo "ok $n $2 # SKIP $3" ;;
	*) echo "not ok $n $2"; rc=1 ;;
	esac
}

# ------------------------------------------------ the per-patch build
# One out-of-tree obj directory per arch, configured as tests/qemu/run.sh
# configures that arch's guest kernel and prepared once, kept between
# runs: $work/obj-ARCH-KEY, KEY a hash of the package version, the
# fragment and the compiler's version, so that a rerun only recompiles
# what the series' files (rewritten by git am on every run) feed.
cross_ppc=powerpc64le-linux-gnu-
declare -A kobj
frag_for() {	# frag_for ARCH: the config lines tests/qemu/run.sh merges for ARCH on BASE
	local v=$top/tests/qemu/$1-${base//./}.config
	{
		cat "$top/tests/qemu/$1.config"
		# a newer base's own lines (x86_64-612.config), as run.sh does
		if [ "$base" != 6.1 ] && [ -f "$v" ]; then cat "$v"; fi
	} | grep -E '^CONFIG_|^# CONFIG_[A-Z0-9_]+ is not set$'
}
kmake() {	# kmake ARCH MAKE-ARGUMENTS...
	local arch=$1
	shift
	case $arch in
	x86_64) make -C "$tree" O="${kobj[$arch]}" ARCH=x86_64 "$@" ;;
	ppc64le) make -C "$tree" O="${kobj[$arch]}" ARCH=powerpc CROSS_COMPILE=$cross_ppc "$@" ;;
	esac
}
configure() {	# configure ARCH: from scratch, as run.sh does, for this tree
	local arch=$1
	if [ "$arch" = x86_64 ]; then
		kmake "$arch" tinyconfig &&
			(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "${kobj[$arch]}" \
				"${kobj[$arch]}/.config" "$work/$arch.config") &&
			kmake "$arch" olddefconfig
	else
		kmake "$arch" KCONFIG_ALLCONFIG="$work/$arch.config" allnoconfig
	fi
}
setup_obj() {	# setup_obj ARCH: kobj[ARCH] configured for this tree, prepared
	local arch=$1 cc=gcc key o d
	[ "$arch" = ppc64le ] && cc=${cross_ppc}gcc
	frag_for "$arch" > "$work/$arch.config" || return 1
	key=$({ echo "$version"; cat "$work/$arch.config"; "$cc" --version | head -n 1; } |
		sha256sum | cut -c1-12)
	o=$work/obj-$arch-$key
	for d in "$work/obj" "$work/obj-$arch"-*; do	# older keys (obj: before keys)
		[ "$d" = "$o" ] || rm -rf "$d"
	done
	kobj[$arch]=$o
	mkdir -p "$o"
	configure "$arch" || return 1
	[ -f "$o/.series-prepared" ] && return 0
	kmake "$arch" -j"${JOBS:-2}" W=1 prepare && touch "$o/.series-prepared"
}

# What a patch can affect, to build on ARCH (one per line):
#  - a directory with its own Makefile or Kbuild that holds a touched
#    file (the nearest one above it: fs/perfctrfs/, kernel/events/), as a
#    directory target: every object of it this configuration builds;
#  - but where that directory is a top-level one or an arch's root (fs/,
#    kernel/, arch/x86/: hundreds of objects, touched only at a build
#    hook or by one file of ours), the touched .c and .S files' objects
#    alone; their Makefile or Kbuild is read on the way down (kbuild
#    descends from the top for single targets too), their Kconfig by the
#    configuration;
#  - nothing for Documentation/, MAINTAINERS, include/ (a header is
#    compiled by the touched directories that include it), scripts/,
#    tools/, top-level files, another arch's files; arch-independent
#    directories on x86_64 only.
mine() {	# mine ARCH FILE...: the FILEs that ARCH's build can compile
	local arch=$1 karch=x86 f
	shift
	[ "$arch" = ppc64le ] && karch=powerpc
	for f in "$@"; do
		case $f in
		Documentation/* | MAINTAINERS | include/* | scripts/* | tools/*) ;;
		arch/"$karch"/*) echo "$f" ;;
		arch/*) ;;
		*/*) [ "$arch" = x86_64 ] && echo "$f" ;;
		esac
	done
	return 0
}
targets() {	# targets ARCH FILE...
	local f d
	mine "$@" | while IFS= read -r f; do
		d=${f%/*}
		while [ "$d" != . ] && [ ! -f "$tree/$d/Makefile" ] && [ ! -f "$tree/$d/Kbuild" ]; do
			d=$(dirname "$d")
		done
		[ "$d" = . ] && continue
		if [ "$d" = "${d%%/*}" ] || [[ $d =~ ^arch/[^/]+$ ]]; then
			case $f in *.c | *.S) echo "${f%.*}.o" ;; esac
		else
			echo "$d/"
		fi
	done | LC_ALL=C sort -u
}

# The series' files so far as regular expressions: a warning names one as
# /abs/tree/fs/perfctrfs/super.c:12:, fs/perfctrfs/super.o: (objtool) or
# fs/perfctrfs/Kconfig:3: (kconfig).
ours() {
	g diff --name-only pristine HEAD |
		sed -e 's/\.[chS]$//' -e 's/[]\\.*^$+?(){}|[]/\\&/g' -e 's,^,(^|/),' -e 's,$,[.:],'
}

# build_patch ARCH NAME FILE...: this patch's targets on ARCH, one TAP line
build_patch() {
	local arch=$1 name=$2 t0=$SECONDS what ok=1 log=$work/build-$1.log
	shift 2
	local -a tg
	if [ "${SERIES_BUILD:-0}" = 1 ] && [ "$arch" = x86_64 ]; then
		tg=(bzImage)
	else
		mapfile -t tg < <(targets "$arch" "$@")
	fi
	[ ${#tg[@]} -gt 0 ] || return 0
	what="$name builds with W=1 on $arch (${tg[*]}): its C files compiled, no warning in the series' files"
	if [ "$arch" = ppc64le ] && ! command -v "${cross_ppc}gcc" > /dev/null; then
		tap SKIP "$what" "no ${cross_ppc}gcc"
		return 0
	fi
	: > "$log"
	if [ -z "${kobj[$arch]:-}" ]; then
		# the first build on ARCH: configured for this tree, prepared
		setup_obj "$arch" >> "$log" 2>&1 || ok=0
		say "$arch: ${kobj[$arch]##*/} configured and prepared: $((SECONDS - t0))s"
	elif printf '%s\n' "$@" | grep -qE '(^|/)Kconfig'; then
		# a Kconfig edit can change the configuration: made again
		configure "$arch" >> "$log" 2>&1 || ok=0
	fi
	touch "$work/build.stamp"
	[ $ok = 1 ] && { kmake "$arch" -s -j"${JOBS:-2}" W=1 "${tg[@]}" >> "$log" 2>&1 || ok=0; }
	grep -E 'warning:|error:|WARNING:' "$log" | grep -E -f <(ours) > "$work/ours.warnings" || true
	[ -s "$work/ours.warnings" ] && ok=0
	# git am wrote every file the patch touches: each of its .c and .S
	# files this arch can build must have been compiled now, not left
	# out by the configuration (nor an older run's object kept)
	mine "$arch" "$@" | grep -E '\.[cS]$' | while IFS= read -r f; do
		f=${kobj[$arch]}/${f%.*}.o
		[ "$f" -nt "$work/build.stamp" ] || echo "not compiled: ${f#"${kobj[$arch]}"/}"
	done >> "$work/ours.warnings"
	[ -s "$work/ours.warnings" ] && ok=0
	say "$name: $arch W=1 ${tg[*]}: $((SECONDS - t0))s"
	if [ $ok = 1 ]; then
		tap OK "$what"
		if [ "$arch" = x86_64 ]; then link_check "$name"; fi
	else
		tap FAIL "$what"
		{ cat "$work/ours.warnings"; tail -n 30 "$log"; } >&2
	fi
}

# The link the per-patch build does not do, cheaply: after a patch built
# on x86_64, every symbol perfctrfs's objects so far (fs/perfctrfs/*.o
# of the tree's .c files, arch/x86/perfctrfs_pmu.o) leave undefined must
# be defined by one of them or by the base kernel: the System.map of the
# x86_64 guest kernel tests/qemu/run.sh built for BASE (same
# configuration, the base's kernel/patches in), less the symbols that
# perfctrfs's own objects define there.  SKIP without such a kernel.
# run.sh's cache directories of BASE's x86_64 guest: <root>/x86_64-<key>
# for 6.1, <root>/<base>/x86_64-<key> for a newer base
guest_dirs=("$croot"/x86_64-*)
[ "$base" != 6.1 ] && guest_dirs=("$croot/$base"/x86_64-*)
guest_obj() {	# the newest x86_64 guest obj directory of BASE, if any
	local d best=
	for d in "${guest_dirs[@]}"; do
		[ -f "$d/obj/System.map" ] || continue
		if [ -z "$best" ] || [ "$d/obj/System.map" -nt "$best/System.map" ]; then
			best=$d/obj
		fi
	done
	[ -n "$best" ] && echo "$best"
}
# make check runs this beside tests/qemu/run.sh, whose cold build of
# the same kernel may not have linked yet: while a run.sh holds the lock
# of a cache directory of BASE's x86_64 guest, wait for its System.map
# (SERIES_GUEST_WAIT seconds, default 3600), then use whatever exists.
guest=
wait_guest() {
	local d t=0 limit=${SERIES_GUEST_WAIT:-3600} busy
	[[ $limit =~ ^[0-9]+$ ]] || die "SERIES_GUEST_WAIT: a number of seconds"
	until guest_obj; do
		busy=
		for d in "${guest_dirs[@]}"; do
			[ -f "$d/lock" ] && ! flock -n "$d/lock" true 2> /dev/null && busy=$d
		done
		[ -n "$busy" ] && [ "$t" -lt "$limit" ] || return 1
		[ "$t" = 0 ] && say "link check: waiting for the x86_64 guest kernel tests/qemu/run.sh is building in $busy"
		sleep 15
		t=$((t + 15))
	done
	[ "$t" = 0 ] || say "link check: waited ${t}s for the guest kernel"
}
globals() {	# globals OBJ...: the global symbols they define
	nm -g --defined-only "$@" | awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u
}
link_check() {	# link_check NAME
	local o=${kobj[x86_64]} g f what
	local -a objs=() own=()
	what="$1 links on x86_64: what perfctrfs's objects so far use, they or the base kernel define"
	[ -f "$tree/fs/perfctrfs/Makefile" ] || return 0
	[ -n "$guest" ] || guest=$(wait_guest) || guest=none
	g=$guest
	if [ "$g" = none ]; then
		tap SKIP "$what" "no x86_64 guest kernel of $base in $croot (tests/qemu/run.sh)"
		return 0
	fi
	for f in $(cd "$tree" && ls fs/perfctrfs/*.c arch/x86/perfctrfs_pmu.c 2> /dev/null); do
		[ -f "$o/${f%.c}.o" ] && objs+=("$o/${f%.c}.o")
	done
	for f in "$g"/fs/perfctrfs/*.o "$g"/arch/x86/perfctrfs_pmu.o; do
		[ -f "$f" ] && own+=("$f")
	done
	LC_ALL=C comm -23 <(nm -u "${objs[@]}" | awk '$1 == "U" { print $2 }' | LC_ALL=C sort -u) \
		<(globals "${objs[@]}") > "$work/link.need"
	LC_ALL=C comm -23 <(awk '$2 ~ /^[A-Z]$/ { print $3 }' "$g/System.map" | LC_ALL=C sort -u) \
		<(globals "${own[@]}") > "$work/link.base"
	LC_ALL=C comm -23 "$work/link.need" "$work/link.base" > "$work/link.missing"
	say "$1: x86_64 link check against ${g%/obj}: $(wc -l < "$work/link.need") symbols used, $(wc -l < "$work/link.missing") missing"
	if [ ${#objs[@]} -gt 0 ] && [ ! -s "$work/link.missing" ]; then
		tap OK "$what"
	else
		tap FAIL "$what"
		sed 's/^/undefined: /' "$work/link.missing" >&2
	fi
}

# The configuration the builds ended with keeps every line of run.sh's
# fragment: the series' code (PERFCTRFS, PERFCTRFS_ARCH, the KUnit
# tests) was really built, not configured out.
verify_config() {	# verify_config ARCH
	local line missing=()
	[ -n "${kobj[$1]:-}" ] || return 0
	while IFS= read -r line; do
		grep -qxF -- "$line" "${kobj[$1]}/.config" || missing+=("$line")
	done < "$work/$1.config"
	if [ ${#missing[@]} -eq 0 ]; then
		tap OK "$1: the last build's configuration has every line of tests/qemu's fragment"
	else
		tap FAIL "$1: the last build's configuration has every line of tests/qemu's fragment"
		printf 'lost: %s\n' "${missing[@]}" >&2
	fi
}

# 6.1's checkpatch finds "fs/Kconfig" inside source "fs/perfctrfs/Kconfig"
# (EMBEDDED_FILENAME without the word boundaries later checkpatch uses).
# Its SPDX check runs "python3" from PATH and needs ply: Debian's python3
# (python3-ply) first.
ignore=
[ "$base" = 6.1 ] && ignore=,EMBEDDED_FILENAME
fresh check
archs=(x86_64 ppc64le)
[ "${SERIES_BUILD:-1}" = 0 ] && archs=()
mapfile -t series < <(find "$out" -name '0*.patch' ! -name '0000-*' | LC_ALL=C sort)
for p in "${series[@]}"; do
	name=${p##*/}
	if g am -q "$p" > "$work/am.log" 2>&1; then
		tap OK "$name applies with git am"
	else
		tap FAIL "$name applies with git am"
		cat "$work/am.log" >&2
		break
	fi
	if (cd "$tree" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict \
		--ignore "FILE_PATH_CHANGES$ignore" -q "$p") > "$work/checkpatch.log" 2>&1; then
		tap OK "$name passes checkpatch.pl --strict"
	else
		tap FAIL "$name passes checkpatch.pl --strict"
		cat "$work/checkpatch.log" >&2
	fi
	mapfile -t touched < <(g diff --name-only HEAD~1 HEAD)
	for a in "${archs[@]}"; do
		build_patch "$a" "$name" "${touched[@]}"
	done
done
# (ppc64le builds one file, at one patch: its configuration is the one
# of that patch's tree, so it is not compared with the final tree's)
[ ${#archs[@]} -gt 0 ] && verify_config x86_64

# What the tests ran: the base's kernel/patches, the clone's files laid
# over, compat.h resolved, the KUnit Kconfig as it is; the series markers
# (and "until" blocks, comments there) stripped, as the series has them.
final=$(g rev-parse HEAD)
fresh expect
for p in "$pdir"/*.patch; do
	git -C "$tree" apply "$p"
done
for f in $(cd "$top" && ls fs/perfctrfs/{Kconfig,Makefile,.kunitconfig,*.[ch]} \
	include/linux/perfctrfs.h arch/x86/perfctrfs_pmu.c \
	arch/powerpc/perfctrfs_pmu.c Documentation/filesystems/perfctrfs.rst); do
	mkdir -p "$(dirname "$tree/$f")"
	series_markers "$top/$f" $features > "$tree/$f" || die "$f: bad series markers"
done
resolve_compat "$top/fs/perfctrfs/compat.h" > "$tree/fs/perfctrfs/compat.h"
g add -A -f
g commit -q -m expect
# MAINTAINERS and the Documentation index exist only in the series
if g diff --exit-code --stat "$final" HEAD -- . ':!MAINTAINERS' \
	':!Documentation/filesystems/index.rst' >&2; then
	tap OK "the series' final tree is what tests/qemu/run.sh builds for $base"
else
	tap FAIL "the series' final tree is what tests/qemu/run.sh builds for $base"
fi
g checkout -q -f series
echo "1..$n"
exit $rc
