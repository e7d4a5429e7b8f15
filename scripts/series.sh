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
# series, kernel/patches/README), then perfctrfs: the filesystem with
# its build hooks, the x86 and powerpc PMU tables, Documentation, the
# KUnit tests, a MAINTAINERS entry.  fs/perfctrfs/compat.h is resolved
# for BASE (its LINUX_VERSION_CODE tests decided), so the series holds no
# version test; every other file is the clone's, byte for byte.
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
#     arch/x86/events/ for perf_event.h); the vmlinux link, so neither
#     whether a build hook really links an object in nor any link error:
#     tests/qemu/run.sh links the final tree (the same tree, checked
#     below), no intermediate one; htmldocs.  SERIES_BUILD=1 builds
#     bzImage after every patch instead (a full kernel build first: a
#     separate, long check), SERIES_BUILD=0 nothing;
#   - the final tree equals what tests/qemu/run.sh builds for BASE (the
#     base's kernel/patches applied, the clone's files laid over, compat.h
#     resolved), in every file the tests use.
#
# The pristine tree is a git repository cached in
# /var/cache/perfctrfs/series/BASE/ (PERFCTRFS_CACHE overrides the root),
# made once per package version (about 3 minutes); the obj directories
# are beside it, obj-ARCH-KEY (KEY: package version, fragment, compiler).
# JOBS: make -j for the builds (default 2).
#
# Output with --check: TAP on stdout, one "ok"/"not ok" line per check
# (2 per patch, + 1 per patch and arch that builds something, + 2 at
# the end), "1..N" last; progress and each build's time on stderr, with
# a failing check's log; exit status non-zero on any failure.
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

# ---------------------------------------------------------------- the series
make_series() {
	local p tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	fresh series
	# the base's perf-core patches: all but 0001, the build hooks
	# (6.1 has 0004, cgroup targets; 6.12 has no counterpart yet)
	nperf=0
	for p in "$pdir"/*.patch; do
		case ${p##*/} in 0001-*) continue ;; esac
		g am -q "$p" || die "$p does not apply with git am"
		nperf=$((nperf + 1))
	done

	# 1. the filesystem, without the arch tables and the tests
	kconfig_entries "$top/fs/perfctrfs/Kconfig" PERFCTRFS > "$tmp/Kconfig"
	put fs/perfctrfs/Kconfig "$tmp/Kconfig"
	grep -v KUNIT "$top/fs/perfctrfs/Makefile" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$tmp/Makefile"
	put fs/perfctrfs/Makefile "$tmp/Makefile"
	resolve_compat "$top/fs/perfctrfs/compat.h" > "$tmp/compat.h"
	put fs/perfctrfs/compat.h "$tmp/compat.h"
	for p in super.c dir.c catalog.c cgroup.c file.c counter.c counter.h \
		grammar.c grammar.h grammar_env.h internal.h; do
		put "fs/perfctrfs/$p"
	done
	put include/linux/perfctrfs.h
	hooks 'fs/*'
	commit "fs: perfctrfs, performance counters as files" <<-'EOF'
	perfctrfs makes every counter perf_events can count reachable as a
	file whose path says what to count:

	    /dev/perfctr/<cpu>/<event>/<pid>/<type>/<period>

	Nothing is stored.  Each level is looked up on demand: the CPUs, the
	events the mount's catalogue offers (perf's generic events, each
	PMU's sysfs aliases, raw codes and PMU terms through the PMU's own
	format fields, "a+b" groups), the tasks or a cgroup v2 directory
	(cgroup.<id>, one the caller could open, counted as
	PERF_FLAG_PID_CGROUP counts), the kinds of read (simple, times,
	irq) and the period.  A lookup is pure: it never creates an
	event.  Opening a leaf creates the counter, for the opener, with
	perf_event_open(2)'s own permission checks
	(perf_event_open_permitted(), perf_check_permission()); a group is
	one perf group made with perf_event_create_kernel_group() and read
	with one perf_event_read_group_kernel().  A read gives one line: the
	count, or count, time enabled and time running, or, with a period,
	one line per period until the target exits; an irq leaf gives one
	"<count> 0x<ip>" line per overflow sample.  Writing enable, disable
	or reset to a leaf opened O_RDWR controls its counter.

	The grammar (grammar.c) is plain C with no allocation, built from
	the same file by the project's FUSE daemon; grammar_env.h picks kernel
	or libc types.  The architecture hooks of include/linux/perfctrfs.h
	are stubs until an architecture selects PERFCTRFS_ARCH (next patch).
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
	cover "$out"/0000-cover-letter.patch "$nperf"
	say "$(find "$out" -name '*.patch' | wc -l) patches in $out"
}

cover() {	# cover LETTER NPERF: its subject and body (NPERF perf-core patches)
	python3 - "$1" "$base" "$top/bench/results/latest.md" "$2" <<-'EOF'
	import sys
	path, base, bench = sys.argv[1:4]
	# the filesystem's patch follows the perf-core ones; then the arch
	# tables, then Documentation
	fs_patch = int(sys.argv[4]) + 1
	doc_patch = fs_patch + 2
	rows = []
	try:
	    for line in open(bench):
	        c = [x.strip() for x in line.strip().strip('|').split('|')]
	        if len(c) > 6 and c[0] == 'kernel':
	            rows.append('  %-18s %-36s %10s %-6s %6s' % (c[1], c[2], c[3], c[4], c[5]))
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

	Every counter is a perf_events counter, made when the file is opened,
	for the opener, with perf_event_open(2)'s own checks; perf core does
	the counting, scheduling and multiplexing.

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
	   together by writing a word to it (patches 1 and %d).
	 - "Counters get multiplexed; raw counts lie" (David Miller).  The
	   times leaf gives time enabled and time running with the count.
	 - "When a counter overflows you must sample" (David Miller).  irq
	   leaves give one "<count> 0x<ip>" line per overflow record.
	 - "The kernel would have to know every event and every constraint"
	   (Stephane Eranian, Paul Mackerras).  It knows no more than perf
	   does: names come from perf's generic events and each PMU's sysfs
	   aliases, raw codes and PMU terms are encoded through the PMU's
	   own format fields, and a group the PMU cannot schedule is refused
	   by the PMU's event_init(), with the errno perf_event_open(2) gives.
	 - "A filesystem cannot keep perf's security model."  It does not
	   copy it: patch 2 moves the syscall's checks into
	   perf_event_open_permitted() and exposes perf_check_permission(),
	   and every open calls them for the opener.  Lookups never create
	   an event.

	Documentation/filesystems/perfctrfs.rst (patch %d) has the details.

	What it costs
	-------------
	perfctrfs against perf_event_open(2) and a one-line seq_file
	(/proc/uptime) in the same QEMU TCG guest (make bench in the
	project; the project's bench/results/latest.md):

	  operation          path                                     median unit   vs perf
	%s

	How it was tested
	-----------------
	In QEMU on Debian's Linux 6.1 and 6.12 (x86_64, with the kprobe,
	uprobe, tracepoint and breakpoint PMUs) and on 6.1 and 6.12 ppc64le (POWER9
	pseries, whose PMU QEMU emulates): these KUnit tests; a conformance
	suite of bats tests run as root and as an unprivileged user (every
	errno, groups, periods, irq, control words, hotplug, lifetime,
	hostile names); stress scenarios; a permission matrix comparing every
	open against perf_event_open(2) for the same caller, including user
	and pid namespaces; on POWER9, instruction counts exact to
	perf_event_open(2)'s within 0.1%%, groups and multiplexing; and on
	6.1 a KASAN, lockdep and kmemleak kernel.  Every patch of this series
	applies with git am and passes checkpatch.pl --strict, and the
	series' final tree is the one those tests built, with W=1 and no
	warning in these files.

	The series is against Debian's linux-source-%s.
	''' % (fs_patch, doc_patch, '\n'.join(rows), base)
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
	else
		tap FAIL "$what"
		{ cat "$work/ours.warnings"; tail -n 30 "$log"; } >&2
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
# over, compat.h resolved, the KUnit Kconfig as it is.
final=$(g rev-parse HEAD)
fresh expect
for p in "$pdir"/*.patch; do
	git -C "$tree" apply "$p"
done
for f in $(cd "$top" && ls fs/perfctrfs/{Kconfig,Makefile,.kunitconfig,*.[ch]} \
	include/linux/perfctrfs.h arch/x86/perfctrfs_pmu.c \
	arch/powerpc/perfctrfs_pmu.c Documentation/filesystems/perfctrfs.rst); do
	mkdir -p "$(dirname "$tree/$f")"
	cp "$top/$f" "$tree/$f"
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
