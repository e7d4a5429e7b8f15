#!/bin/bash
# Build Linux 6.1 (or 6.12) with perfctrfs built in, boot it under QEMU
# TCG and run the tests inside: KUnit (at boot) and the bats suite as root
# and as an unprivileged user.  ppc64le boots the same kernel twice: with
# -icount shift=0 for KUnit and the POWER9 PMU checks of tests/qemu/ppc
# (exact instruction counts), then without -icount for the suite (its
# timing bounds need a clock that follows the host's): see README.md.
#
# Usage: tests/qemu/run.sh x86_64|x86_64-debug|x86_64-612|ppc64le|ppc64le-612
#                          [--shell] [--no-build] [--subset]
#
#   x86_64-612  the same x86_64 guest and tests on Debian's Linux 6.12
#               (linux-source-6.12, kernel/patches/6.12/, x86_64.config
#               plus x86_64-612.config); make check-612
#   ppc64le-612  the same POWER9 guest and its two boots on Linux 6.12
#               (kernel/patches/6.12/, ppc64le.config plus
#               ppc64le-612.config if it exists)
#   x86_64-debug  the x86_64 kernel with x86_64-debug.config merged over
#               x86_64.config (KASAN, lockdep, debugobjects, kmemleak, the
#               workqueue watchdog): same tests, then a kmemleak scan, and
#               one TAP line per kind of kernel report (see README.md)
#
#   --shell     boot the same kernel and initramfs with an interactive shell
#               on the console instead of running the tests (exit the shell
#               to power off; Ctrl-A x quits QEMU)
#   --no-build  reuse the last kernel built for this key, do not run make
#   --subset    x86_64: KUnit and the fixed subset of the suite in
#               tests/qemu/subset (root and user), the stress scenarios and
#               the permission matrix: what make check runs on 6.12, whose
#               whole suite is make check-612 (tests/qemu/README.md)
#
# Output: TAP on stdout (one stream, both of ppc64le's boots: KUnit cases,
# the ppc checks, bats as root, bats as user, on x86_64 tests/stress's stress scenarios and
# permission matrix, on x86_64-debug kmemleak's report, and checks of the
# guest's kernel log, each boot's), one line per stage with its time on
# stderr (and each boot's and each guest block's), exit status non-zero
# on any failing test, on a guest hang or panic in either boot, or when
# the guest produced no results.  On failure
# the tail of the serial log goes to stderr; the whole log is kept in
# build/qemu/<arch>/serial.log.
#
# Cache: /var/cache/perfctrfs/<arch>-<key>/ (PERFCTRFS_CACHE overrides the
# root; x86_64-debug: /var/cache/perfctrfs/debug/x86_64-<key>/, and
# x86_64-612 and ppc64le-612: /var/cache/perfctrfs/6.12/<arch>-<key>/, out
# of reach of the <arch>-* globs), key = hash of the linux-source-<version>
# package version, the config fragments and the base's kernel/patches.
# src/ is the pristine tree with the patches applied and the project's
# files linked in (re-pointed at this clone on every run), obj/ the
# out-of-tree build, so a rebuild after an edit takes seconds.
#
# Environment: QEMU_TIMEOUT (seconds for the whole guest run, default
# 2400, x86_64-debug 14400; ppc64le: each boot, default 2400 for the
# checks boot and 2 x PCTR_SUITE_TIMEOUT + 300 for the suite's), JOBS (make -j, default 2), PCTR_BATS
# (comma-separated tests/bats file names, e.g.
# 050-pids.bats,120-robustness.bats: run only those, to check a fix in the
# guest in minutes; "none": no suite, only what follows it; never set by
# scripts/check.sh), STRESS_SECS (x86_64: each timed stress scenario in
# the guest, default 3), PCTR_BUILD_NICE (the kernel build's niceness,
# default 10: it yields to the host stages), PCTR_SUITE_TIMEOUT
# (seconds for each bats run in the guest: x86_64 2400, x86_64-debug
# 5400, ppc64le 1800), PCTR_SLOW
# (x86_64-debug and ppc64le: the suite's slowness factor, default 5 and
# 1), PCTR_PPC_BOOTS (ppc64le: "checks", "suite" or both, the default:
# which boots run; checks alone takes a minute).
set -euo pipefail

usage() { sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

arch=${1:-}
[ $# -gt 0 ] && shift
mode=test build=1 subset=0
for a in "$@"; do
	case $a in
	--shell) mode=shell ;;
	--no-build) build=0 ;;
	--subset) subset=1 ;;
	*) usage ;;
	esac
done
debug=0 kver=6.1
case $arch in
x86_64) tag=qemu-x86 karch=x86_64 cross= debarch=amd64 ;;
x86_64-debug) tag=qemu-x86-debug karch=x86_64 cross= debarch=amd64 debug=1 ;;
x86_64-612) tag=qemu-x86-612 karch=x86_64 cross= debarch=amd64 kver=6.12 ;;
ppc64le) tag=qemu-ppc karch=powerpc cross=powerpc64le-linux-gnu- debarch=ppc64el ;;
ppc64le-612) tag=qemu-ppc-612 karch=powerpc cross=powerpc64le-linux-gnu- debarch=ppc64el kver=6.12 ;;
*) usage ;;
esac
base=${arch%-debug} # the arch proper: x86_64 or ppc64le
base=${base%-612}

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/qemu
croot=${PERFCTRFS_CACHE:-/var/cache/perfctrfs}
srcpkg=linux-source-$kver
tarball=/usr/src/$srcpkg.tar.xz
frag_files=("$here/$base.config")
# the variant's own lines, merged over the arch's: the debug options, or
# what a newer base's Kconfig needs
[ "$arch" != "$base" ] && [ -f "$here/$arch.config" ] && frag_files+=("$here/$arch.config")
jobs=${JOBS:-2}
out=$top/build/qemu/$arch
mkdir -p "$out" "$croot"

say() { echo "$tag: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }

# step NAME CMD...: run one stage, report its time; on failure show the
# tail of its log ($out/NAME.log) and stop.
step() {
	local name=$1 t0=$SECONDS rc=0
	shift
	"$@" > "$out/$name.log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 40 "$out/$name.log" >&2
		die "$name failed (exit $rc), log: $out/$name.log"
	fi
	say "$name $((SECONDS - t0))s"
}

# x86_64-debug: KASAN and TCG make the guest about five times slower:
# the suite's waits and target lifetimes scale by PCTR_SLOW
# (tests/bats/helpers.bash), each bats run gets PCTR_SUITE_TIMEOUT.
# ppc64le's suite boot: each bats run took 507-556 s on 2 shared cores
# at a load of 1-6, PCTR_SLOW=1 (README.md); 1800 s leaves room for a
# CI machine building kernels beside it.
# x86_64: a bats run as root took 731-1024 s beside the host stages and
# the other guests (stop 32's cold and warm runs); one CI run passed
# the old 1,100 s and lost its last tests: 2400 s.
stress_secs=${STRESS_SECS:-3} suite_to=${PCTR_SUITE_TIMEOUT:-5400} slow=${PCTR_SLOW:-5}
if [ "$base" = ppc64le ]; then
	suite_to=${PCTR_SUITE_TIMEOUT:-1800} slow=${PCTR_SLOW:-1}
elif [ $debug = 0 ]; then
	suite_to=${PCTR_SUITE_TIMEOUT:-2400} slow=${PCTR_SLOW:-1}
fi
build_nice=${PCTR_BUILD_NICE:-10}
[[ $build_nice =~ ^([0-9]|1[0-9])$ ]] || die "PCTR_BUILD_NICE: a niceness, 0 to 19"
[[ $slow =~ ^[1-9][0-9]*$ ]] || die "PCTR_SLOW: a whole factor, 1 or more"
[[ $stress_secs =~ ^[0-9]+$ ]] || die "STRESS_SECS: a number of seconds"
[[ $suite_to =~ ^[0-9]+$ ]] || die "PCTR_SUITE_TIMEOUT: a number of seconds"
[ -r "$tarball" ] || die "$tarball missing (scripts/deps.sh installs $srcpkg)"
if [ $subset = 1 ]; then
	[ "$base" = x86_64 ] || die "--subset: x86_64 guests only"
	# tests/qemu/subset: one bats file a line, # comments
	[ -n "${PCTR_BATS:-}" ] ||
		PCTR_BATS=$(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$here/subset" | paste -sd, -)
	[ -n "$PCTR_BATS" ] || die "tests/qemu/subset lists no file"
	for f in ${PCTR_BATS//,/ }; do
		[ -f "$top/tests/bats/$f" ] || die "tests/qemu/subset: no tests/bats/$f"
	done
fi

# The effective fragment: the PERFCTRFS lines only once the code exists.
frag=$out/fragment.config
frag_lines() {
	cat "${frag_files[@]}" | grep -E '^CONFIG_|^# CONFIG_[A-Z0-9_]+ is not set$'
}
if [ -e "$top/fs/perfctrfs/Kconfig" ]; then
	frag_lines > "$frag"
	have_perfctrfs=1
else
	frag_lines | grep -v PERFCTRFS > "$frag"
	have_perfctrfs=0
fi

# The series for this base: kernel/patches/*.patch is 6.1's, a newer
# base's is in kernel/patches/<version>/ (kernel/patches/README).
patches=() pdir=$top/kernel/patches
[ "$kver" != 6.1 ] && pdir=$pdir/$kver
if [ -d "$pdir" ]; then
	mapfile -t patches < <(find "$pdir" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
fi
key=$( {
	dpkg-query -W -f='${Version}\n' "$srcpkg" 2>/dev/null || stat -c '%s %Y' "$tarball"
	cat "${frag_files[@]}"
	for p in "${patches[@]}"; do basename "$p"; cat "$p"; done
} | sha256sum | cut -c1-12)
# The debug kernel's caches live in their own directory: the cleanup
# below and bench/qemu-bench.sh (newest x86_64-*/obj) see only the normal
# ones.
cdir=$croot
[ $debug = 1 ] && cdir=$croot/debug
[ "$kver" != 6.1 ] && cdir=$croot/$kver
cache=$cdir/$base-$key
src=$cache/src obj=$cache/obj
mkdir -p "$cache"

# One run per cache dir at a time: the links in src/ point at one clone.
exec 9> "$cache/lock"
flock -w 3600 9 || die "cache $cache stayed locked for an hour"

# Caches of older keys for this arch and variant are dead weight (1-2 GB
# each): only <arch>-<12 hex digits>, never a scratch or other directory.
for d in "$cdir/$base"-*; do
	[[ ${d##*/} =~ ^$base-[0-9a-f]{12}$ ]] || continue
	[ "$d" = "$cache" ] || [ ! -d "$d" ] && continue
	if flock -n "$d/lock" true 2>/dev/null; then rm -rf "$d"; fi
done

extract() {
	rm -rf "$cache/src.tmp"
	mkdir -p "$cache/src.tmp"
	tar -xJf "$tarball" -C "$cache/src.tmp"
	local p
	for p in "${patches[@]}"; do
		echo "applying $p"
		patch -d "$cache/src.tmp/$srcpkg" -p1 -s --no-backup-if-mismatch < "$p"
	done
	rm -rf "$src" "$obj"
	mv "$cache/src.tmp/$srcpkg" "$src"
	rmdir "$cache/src.tmp"
}
[ -f "$src/Makefile" ] || step extract extract

# Lay the project's files over the tree as links to this clone.
# fs/perfctrfs is a directory of links to the sources only: objects a
# host build left in the clone must never reach the kernel (make's VPATH
# would take a stale fs/perfctrfs/x.o from the source tree as built).
for f in include/linux/perfctrfs.h arch/x86/perfctrfs_pmu.c \
	arch/powerpc/perfctrfs_pmu.c; do
	if [ -e "$src/$f" ] && [ ! -L "$src/$f" ]; then
		die "$src/$f is not a link: the tree is not pristine, remove $cache"
	fi
	rm -f "$src/$f"
	[ -e "$top/$f" ] && ln -s "$top/$f" "$src/$f"
done
d=$src/fs/perfctrfs
if [ -e "$d" ] && [ ! -L "$d" ] && [ ! -e "$d/.perfctrfs-links" ]; then
	die "$d is not ours: the tree is not pristine, remove $cache"
fi
rm -rf "$d" # a link (older runs) or our own directory
if [ -d "$top/fs/perfctrfs" ]; then
	mkdir -p "$d"
	touch "$d/.perfctrfs-links"
	for f in "$top"/fs/perfctrfs/{Kconfig,Makefile,.kunitconfig,*.[ch]}; do
		[ -f "$f" ] && ln -s "$f" "$d/${f##*/}"
	done
fi

# make compares times: an object built from another clone's (or a newer
# version of these) files is newer than this clone's files, and make would
# keep it, booting code this clone does not have.  So when the linked
# files' contents differ from the last build's, every object built from
# one of them goes (its .cmd file lists what it was built from).
linked_hash() {
	local f
	for f in include/linux/perfctrfs.h arch/x86/perfctrfs_pmu.c \
		arch/powerpc/perfctrfs_pmu.c fs/perfctrfs/Kconfig \
		fs/perfctrfs/Makefile fs/perfctrfs/.kunitconfig fs/perfctrfs/*.[ch]; do
		[ -f "$top/$f" ] && { echo "== $f"; cat "$top/$f"; }
	done | sha256sum | cut -c1-16
}
drop_stale_objects() {
	local c o
	[ -d "$obj" ] || return 0
	[ "$(cat "$obj/.perfctrfs-linked" 2>/dev/null)" = "$linked" ] && return 0
	# a tree configured but never built has no .o.cmd: nothing to drop
	{ grep -rlE --include='.*.o.cmd' 'include/linux/perfctrfs\.h|/fs/perfctrfs/|perfctrfs_pmu\.c' "$obj" || true; } |
	while IFS= read -r c; do
		o=${c##*/}
		o=${o#.}
		o=${c%/*}/${o%.cmd}
		echo "rebuild ${o#"$obj"/}"
		rm -f "$o"
	done
}
linked=$(cd "$top" && linked_hash)

# The kernel builds yield to the host stages beside them (scripts/check.sh
# runs the guests in the background): with three cold builds at nice 0
# on two CPUs, the FUSE suite as root ran past its 1200 s bound.
kmake() {
	nice -n "$build_nice" make -C "$src" O="$obj" ARCH="$karch" ${cross:+CROSS_COMPILE=$cross} "$@"
}

verify_config() {
	local line missing=()
	while IFS= read -r line; do
		grep -qxF -- "$line" "$obj/.config" || missing+=("$line")
	done < "$frag"
	if [ ${#missing[@]} -ne 0 ]; then
		echo "config lines lost by the kernel's dependencies:" >&2
		printf '  %s\n' "${missing[@]}" >&2
		return 1
	fi
}

configure() {
	mkdir -p "$obj"
	if [ "$base" = x86_64 ]; then
		kmake tinyconfig
		(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "$frag")
		kmake olddefconfig
	else
		kmake KCONFIG_ALLCONFIG="$frag" allnoconfig
	fi
	cp "$frag" "$obj/.perfctrfs-fragment"
	verify_config
}

build_kernel() {
	local target=bzImage rc=0
	[ "$base" = ppc64le ] && target=vmlinux
	# W=1 costs nothing extra; its warnings matter only in our files.
	kmake -j"$jobs" W=1 "$target" || rc=$?
	# (the cache path itself contains "perfctrfs": match our files)
	grep -E 'warning:|error:|WARNING:' "$out/build.log" |
		grep -E 'fs/perfctrfs/|perfctrfs_pmu\.c|linux/perfctrfs\.h|modpost.*perfctrfs' \
		> "$out/ours.warnings" || true
	if [ -s "$out/ours.warnings" ]; then
		echo "warnings in perfctrfs files:"
		cat "$out/ours.warnings"
		return 1
	fi
	return $rc
}

if [ $build = 1 ]; then
	if [ ! -f "$obj/.config" ] || ! cmp -s "$frag" "$obj/.perfctrfs-fragment"; then
		step configure configure
	else
		step configure verify_config
	fi
	step stale drop_stale_objects
	step build build_kernel
	echo "$linked" > "$obj/.perfctrfs-linked"
fi
if [ "$base" = x86_64 ]; then
	kernel=$obj/arch/x86/boot/bzImage
else
	kernel=$obj/vmlinux
fi
[ -f "$kernel" ] || die "no kernel at $kernel"

# ---------------------------------------------------------------- initramfs
root=$out/root
initrd=$out/initramfs.cpio.gz

# Debian's static busybox and bash for the guest architecture.
guest_debs() {
	local deb=$croot/debs-$debarch
	if [ "$debarch" = amd64 ]; then
		bb=/bin/busybox bash_static=/bin/bash-static
		return 0
	fi
	if [ ! -x "$deb/x/bin/busybox" ] || [ ! -x "$deb/x/bin/bash-static" ]; then
		mkdir -p "$deb"
		if ! dpkg --print-foreign-architectures | grep -qx "$debarch"; then
			dpkg --add-architecture "$debarch"
			apt-get update -qq
		fi
		(cd "$deb" && rm -f ./*.deb &&
			{ apt-get download "busybox-static:$debarch" "bash-static:$debarch" ||
			  { apt-get update -qq && apt-get download "busybox-static:$debarch" "bash-static:$debarch"; }; })
		rm -rf "$deb/x"
		for f in "$deb"/*.deb; do dpkg-deb -x "$f" "$deb/x"; done
	fi
	bb=$deb/x/bin/busybox bash_static=$deb/x/bin/bash-static
}

make_initramfs() {
	local cc=gcc
	[ -n "$cross" ] && cc=${cross}gcc
	guest_debs
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/lib,usr/libexec,etc,proc,sys,dev,tmp,root,tests}
	mkdir -p "$root"/home/{user,perfctr-t1,perfctr-t2}
	chmod 1777 "$root/tmp"
	cp "$bb" "$root/bin/busybox"
	# Applets by name in /bin; the host's list is the guest's (same
	# Debian version), and running the guest binary here is not possible.
	local a
	for a in $(busybox --list); do
		# busybox setpriv has no --reuid: leave it out so that
		# the suite's as_user falls back to su.
		case $a in busybox | setpriv) continue ;; esac
		ln -sf busybox "$root/bin/$a"
	done
	for a in "$root"/bin/*; do
		ln -sf "../../bin/${a##*/}" "$root/usr/bin/${a##*/}"
		ln -sf "../bin/${a##*/}" "$root/sbin/${a##*/}"
	done
	cp "$bash_static" "$root/bin/bash"
	# bats from the Debian package: it is shell, any arch.
	cp /usr/bin/bats "$root/usr/bin/bats"
	cp -a /usr/lib/bats-core "$root/usr/lib/"
	cp -a /usr/libexec/bats-core "$root/usr/libexec/"
	# The suite, its helpers built static, our guest-side checks.
	[ -d "$top/tests/bats" ] && cp -a "$top/tests/bats" "$root/tests/"
	if [ -f "$top/tests/helpers/Makefile" ]; then
		mkdir -p "$root/tests/helpers/bin"
		make -C "$top/tests/helpers" STATIC=1 CC="$cc" OUT="$out/helpers"
		cp -a "$out/helpers/." "$root/tests/helpers/bin/"
	fi
	# x86_64: tests/stress's stress scenarios and permission matrix run
	# after the suite (their static program in /tests/stress/bin).
	if [ "$base" = x86_64 ] && [ -f "$top/tests/stress/Makefile" ]; then
		mkdir -p "$root/tests/stress/bin"
		cp "$top/tests/stress/stress.sh" "$top/tests/stress/permission-matrix.sh" \
			"$root/tests/stress/"
		make -C "$top/tests/stress" STATIC=1 CC="$cc" OUT="$out/stress"
		cp -a "$out/stress/." "$root/tests/stress/bin/"
	fi
	# x86_64: the FUSE daemon, static, for 130-lifetime on the FUSE
	# backend (CPU hotplug can be tried only in a guest).  Built in this
	# run's own directory: make check's two x86_64 guests (6.1 and 6.12)
	# make their initramfs at once when their kernels are cached, and one
	# link in proto-fuse/ replaced the file the other was copying.
	if [ "$base" = x86_64 ] && [ -f "$top/proto-fuse/Makefile" ]; then
		mkdir -p "$root/tests/fuse"
		make -C "$top/proto-fuse" STATIC=1 CC="$cc" OBJDIR="$out/fuse-static" \
			PROG="$out/fuse-static/perfctrfs-fuse" &&
			cp "$out/fuse-static/perfctrfs-fuse" "$root/tests/fuse/perfctrfs-fuse" ||
			die "the static FUSE daemon for the guest did not build"
	fi
	if [ "$base" = ppc64le ]; then
		mkdir -p "$root/tests/ppc"
		cp "$here"/ppc/*.bats "$here"/ppc/*.bash "$root/tests/ppc/" 2>/dev/null || true
		$cc -static -O2 -Wall -Wextra -Werror -o "$root/tests/ppc/loop" "$here/ppc/loop.c"
	fi
	cat > "$root/etc/passwd" <<-EOF
	root:x:0:0:root:/root:/bin/sh
	user:x:1000:1000:user:/home/user:/bin/sh
	perfctr-t1:x:1001:1001:perfctr-t1:/home/perfctr-t1:/bin/sh
	perfctr-t2:x:1002:1002:perfctr-t2:/home/perfctr-t2:/bin/sh
	EOF
	cat > "$root/etc/group" <<-EOF
	root:x:0:
	user:x:1000:
	perfctr-t1:x:1001:
	perfctr-t2:x:1002:
	EOF
	cp "$here/init" "$root/init"
	chmod 755 "$root/init"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -1 > "$initrd"
}
step initramfs make_initramfs

# ---------------------------------------------------------------- boot
if [ "$base" = x86_64 ]; then
	# the debug kernel: KASAN's shadow (1/8) and quarantine, kmemleak's
	# objects, and a log buffer that holds every report until the end
	mem=1G
	[ $debug = 1 ] && mem=2G
	qemu=(qemu-system-x86_64 -accel tcg -m "$mem" -smp 2 -nodefaults -nographic
		-no-reboot -monitor none -kernel "$kernel" -initrd "$initrd")
	cmdline="console=ttyS0 panic=-1 oops=panic loglevel=4 kunit.enable=1"
	cmdline="$cmdline PCTR_STRESS_SECS=$stress_secs"
	cmdline="$cmdline PCTR_SUITE_TIMEOUT=$suite_to PCTR_SLOW=$slow"
	[ $debug = 1 ] && cmdline="$cmdline log_buf_len=8M"
else
	# -icount goes on in the checks boot only (below)
	qemu=(qemu-system-ppc64 -M pseries -cpu POWER9 -smp 2 -m 1G -nographic
		-no-reboot -kernel "$kernel" -initrd "$initrd")
	cmdline="console=hvc0 panic=-1 oops=panic loglevel=4 mitigations=off"
fi

# ppc64le boots the same kernel and initramfs twice (PCTR_PPC_BOOTS
# picks, default both): "checks" with -icount shift=0 (one instruction a
# virtual nanosecond: the exact counts of tests/qemu/ppc) runs KUnit and
# the PMU checks; "suite" without it (a clock that follows the host's,
# which the suite's timing bounds need) runs the suite as root and as
# user.  x86_64 boots once ("all") and runs every block.
boots=all
if [ "$base" = ppc64le ]; then
	boots=${PCTR_PPC_BOOTS:-checks suite}
	[ "${PCTR_BATS:-}" = none ] && boots=${boots/suite/}
	for b in $boots; do
		case $b in checks | suite) ;; *) die "PCTR_PPC_BOOTS: checks, suite or both" ;; esac
	done
	[ -n "${boots// /}" ] || die "PCTR_PPC_BOOTS: no boot left to run"
fi
# boot_args BOOT: sets qemu_args and args, that boot's QEMU options and
# kernel command line
boot_args() {
	qemu_args=("${qemu[@]}") args=$cmdline
	case $1 in
	all) ;; # x86_64: $cmdline has all it needs
	checks)
		# allnoconfig turns KUNIT_DEFAULT_ENABLED off: kunit.enable=1
		# runs the suites at boot anyway (only in this boot).
		qemu_args+=(-icount shift=0)
		args="$args kunit.enable=1 PCTR_BOOT=checks" ;;
	suite)
		args="$args PCTR_BOOT=suite PCTR_SUITE_TIMEOUT=$suite_to PCTR_SLOW=$slow" ;;
	esac
	if [ -n "${PCTR_BATS:-}" ]; then
		[[ $PCTR_BATS =~ ^[A-Za-z0-9._,-]+$ ]] || die "PCTR_BATS: comma-separated file names only"
		args="$args PCTR_BATS=$PCTR_BATS"
	fi
}

if [ $mode = shell ]; then
	say "interactive shell: exit it to power off, Ctrl-A x quits QEMU"
	set -- $boots
	boot_args "$1"
	[ "$base" = x86_64 ] && qemu_args+=(-serial mon:stdio)
	exec "${qemu_args[@]}" -append "$args PCTR_MODE=shell"
fi

[ "$base" = x86_64 ] && qemu+=(-serial stdio)
log=$out/serial.log
: > "$log"
# x86_64's one boot: two bats runs, each bounded by suite_to in the guest,
# then the FUSE pass, stress and matrix (a few minutes)
qemu_to=${QEMU_TIMEOUT:-$((2 * suite_to + 900))}
[ $debug = 1 ] && qemu_to=${QEMU_TIMEOUT:-14400}
# the suite boot: two bats runs, each bounded by suite_to in the guest
[ "$base" = ppc64le ] && qemu_to_suite=${QEMU_TIMEOUT:-$((2 * suite_to + 300))}
# run_boot BOOT: boot it, append its console to $log, time it; the
# "=== PCTR QEMU-EXIT <status>" line ends each boot's part of the log.
run_boot() {
	local t0=$SECONDS tb= to=$qemu_to line
	[ "$1" = suite ] && to=$qemu_to_suite
	boot_args "$1"
	case $1 in
	checks) say "checks boot (-icount shift=0)" ;;
	suite) say "suite boot (no -icount)" ;;
	esac
	# Read the console as it comes, to time boot and suite apart.
	while IFS= read -r line; do
		line=${line%$'\r'}
		printf '%s\n' "$line" >> "$log"
		if [ -z "$tb" ] && [[ $line == *"=== PCTR INIT"* ]]; then
			tb=$SECONDS
			say "boot $((tb - t0))s"
		fi
		if [[ $line =~ "=== PCTR END "([a-z-]+)" rc="(-?[0-9]+)" "([0-9]+s) ]]; then
			say "  ${BASH_REMATCH[1]} ${BASH_REMATCH[3]} (guest), exit ${BASH_REMATCH[2]}"
		fi
	done < <(timeout -k 10 "$to" \
		"${qemu_args[@]}" -append "$args" < /dev/null 2>&1; echo "=== PCTR QEMU-EXIT $?")
	[ -n "$tb" ] || { tb=$t0; say "boot: init never started"; }
	# "suite": the guest's time after /init started
	case $1 in
	all) say "suite $((SECONDS - tb))s" ;;
	*) say "$1 boot: guest $((SECONDS - tb))s, in all $((SECONDS - t0))s" ;;
	esac
}
for b in $boots; do
	run_boot "$b"
done

# ---------------------------------------------------------------- results
tap=$out/results.tap
rc=0
expect="kunit bats-root bats-user fuse-lifetime stress matrix dmesg"
[ "${PCTR_BATS:-}" = none ] && expect="kunit stress matrix dmesg"
# the FUSE pass runs 130-lifetime only, when the suite includes it
[[ ${PCTR_BATS:-} = "" || ,$PCTR_BATS, = *,130-lifetime.bats,* ]] ||
	expect=${expect/ fuse-lifetime/}
[ $debug = 1 ] && expect=${expect/dmesg/kmemleak dmesg}
if [ "$base" = ppc64le ]; then
	expect=
	[[ " $boots " = *" checks "* ]] && expect="kunit ppc dmesg"
	[[ " $boots " = *" suite "* ]] && expect="$expect bats-root bats-user dmesg-suite"
fi
# The functions perfctrfs defines, for kmemleak's backtraces.
syms=$out/perfctrfs.syms
find "$obj/fs/perfctrfs" "$obj/arch" -name '*.o' \( -path '*/fs/perfctrfs/*' -o -name 'perfctrfs_pmu.o' \) \
	-exec nm --defined-only {} + 2>/dev/null |
	awk '$2 ~ /^[tTwW]$/ { sub(/\..*/, "", $3); print $3 }' | LC_ALL=C sort -u > "$syms" || true
awk -v want_kunit="$have_perfctrfs" -v expect="$expect" -v debug="$debug" -v syms="$syms" \
	-f "$here/tap.awk" "$log" > "$tap" || rc=$?
cat "$tap"
if [ -n "$(grep -o 'PCTR PPC-COUNTS.*' "$log" || true)" ]; then
	grep -o 'PCTR PPC-COUNTS.*' "$log" | sed "s/^PCTR PPC-COUNTS/$tag: counts:/" >&2
fi
# every boot's QEMU must have exited 0
nboots=$(wc -w <<< "$boots")
if [ "$(grep -c '^=== PCTR QEMU-EXIT 0$' "$log")" -ne "$nboots" ]; then
	say "QEMU did not exit cleanly: $(grep -o 'PCTR QEMU-EXIT.*' "$log" | paste -sd' ' - || echo '?') (124 = timeout)"
	rc=1
fi
if [ $rc -ne 0 ]; then
	say "serial log tail ($log):"
	tail -n 60 "$log" >&2
fi
exit $rc
