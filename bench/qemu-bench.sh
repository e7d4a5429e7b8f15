#!/bin/bash
# Run bench/bench-static against the kernel perfctrfs inside QEMU TCG.
#
# Usage: bench/qemu-bench.sh OUT.tsv
#
# Reuses a kernel that tests/qemu/run.sh built (it has no hook to run
# another program in the guest, and tests/qemu/ is not ours): the newest
# bzImage of /var/cache/perfctrfs/x86_64-*/obj (run.sh's cache), else the
# newest bzImage below /var/cache/perfctrfs whose .config has
# CONFIG_PERFCTRFS=y; PERFCTRFS_BENCH_KERNEL names one explicitly.  Builds
# its own small initramfs (busybox-static, bench-static, an /init that
# mounts cgroup2 and perfctrfs and runs the bench), boots it with -smp 2
# -m 1G under `timeout` (BENCH_QEMU_TIMEOUT, default 300 s: the cgroups
# part adds its cold scrapes) and writes bench's rows to OUT.tsv; a line
# describing the guest goes to OUT's directory/guest.txt.
# Exit 3 when there is no kernel to boot (nothing was measured).
#
# BENCH_PROFILE=1, a profiling aid: bench samples its own kernel time on
# each path (see bench.c), and the hottest kernel functions of each, by
# the System.map beside the kernel (PERFCTRFS_BENCH_MAP names another), go
# to OUT's directory/profile.txt.
set -euo pipefail

out=${1:?usage: $0 OUT.tsv}
top=$(cd "$(dirname "$0")/.." && pwd)
croot=${PERFCTRFS_CACHE:-/var/cache/perfctrfs}
build=$top/build/bench
say() { echo "bench-qemu: $*" >&2; }

kernel=${PERFCTRFS_BENCH_KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$(ls -t "$croot"/x86_64-*/obj/arch/x86/boot/bzImage 2>/dev/null | head -n1 || true)
fi
if [ -z "$kernel" ]; then
	for k in $(ls -t $(find "$croot" -maxdepth 8 -path '*/obj/arch/x86/boot/bzImage' 2>/dev/null) 2>/dev/null); do
		if grep -qx 'CONFIG_PERFCTRFS=y' "${k%/arch/x86/boot/bzImage}/.config" 2>/dev/null; then
			kernel=$k
			break
		fi
	done
fi
if [ -z "$kernel" ] || [ ! -f "$kernel" ]; then
	say "SKIP: no perfctrfs kernel built yet (run tests/qemu/run.sh x86_64 first)"
	exit 3
fi
say "kernel $kernel ($(date -u -r "$kernel" '+%H:%M UTC'))"

make -s -C "$top/bench" bench-static >&2
root=$build/root
rm -rf "$root"
mkdir -p "$root"/{bin,proc,sys,dev,tmp,mnt/perfctr}
cp /bin/busybox "$root/bin/busybox"
for a in sh mount umount mkdir cat grep echo reboot sleep uname nproc sync; do
	ln -s busybox "$root/bin/$a"
done
cp "$top/bench/bench-static" "$root/bin/bench"
: > "$root/bench.env"
[ -n "${BENCH_PROFILE:-}" ] && echo "export BENCH_PROFILE=1" >> "$root/bench.env"
# BENCH_ONLY's parts are letters, digits and commas: safe to pass as is
[[ ${BENCH_ONLY:-} =~ ^[a-z0-9,]+$ ]] && echo "export BENCH_ONLY=$BENCH_ONLY" >> "$root/bench.env"
cat > "$root/init" <<'EOF'
#!/bin/sh
export PATH=/bin
. /bench.env
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
# bench's cgroups part makes its cgroups in a cgroup2 mount (issue 18).
# A new cgroup gets perf_event's state (perf_event is implicit on cgroup2)
# only once the root's cgroup.subtree_control has been written, as systemd
# does at boot: until then perf refuses every child cgroup with ENOENT.
if grep -qw cgroup2 /proc/filesystems && mount -t cgroup2 cgroup2 /sys/fs/cgroup; then
	for c in $(cat /sys/fs/cgroup/cgroup.controllers); do
		echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control && break
	done
fi
echo 1 > /proc/sys/kernel/printk 2>/dev/null
echo "=== BENCH GUEST $(uname -r), $(nproc) CPUs, $(grep -m1 MemTotal /proc/meminfo | tr -s ' ')"
if mount -t perfctrfs perfctrfs /mnt/perfctr; then
	echo "=== BENCH BEGIN"
	bench kernel /mnt/perfctr 1 2>&1
	echo "=== BENCH END rc=$?"
	umount /mnt/perfctr
else
	echo "=== BENCH no perfctrfs mount"
fi
sync
reboot -f
EOF
chmod 755 "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$build/initramfs.cpio.gz"

log=$build/serial.log
t0=$SECONDS
timeout -k 10 "${BENCH_QEMU_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -m 1G -smp 2 \
	-nodefaults -nographic -no-reboot -monitor none -serial stdio \
	-kernel "$kernel" -initrd "$build/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=4" < /dev/null 2>&1 |
	tr -d '\r' > "$log" || true
say "guest ran $((SECONDS - t0)) s, log $log"
{ grep '^=== BENCH GUEST' "$log" | sed 's/^=== BENCH GUEST /QEMU TCG guest: /' | tr -d '\n'
  echo ", kernel $kernel (built $(date -u -r "$kernel" '+%H:%M UTC'))"; } > "$(dirname "$out")/guest.txt" || true
grep -P '^R\t' "$log" > "$out" || true
if [ -n "${BENCH_PROFILE:-}" ]; then
	map=${PERFCTRFS_BENCH_MAP:-${kernel%/arch/x86/boot/bzImage}/System.map}
	grep -P '^P\t' "$log" | python3 -c '
import bisect, collections, sys
syms = []
for line in open(sys.argv[1]):
    a, t, name = line.split()[:3]
    if t in "tTwW":
        syms.append((int(a, 16), name))
syms.sort()
addrs = [a for a, _ in syms]
prof = collections.OrderedDict()
for line in sys.stdin:
    _, what, ip, n = line.rstrip("\n").split("\t")
    i = bisect.bisect_right(addrs, int(ip, 16)) - 1
    fn = syms[i][1] if i >= 0 else ip
    prof.setdefault(what, collections.Counter())[fn] += int(n)
for what, c in prof.items():
    total = sum(c.values())
    print("== %s: %d kernel samples" % (what, total))
    for fn, n in c.most_common(25):
        print("  %5.1f%%  %6d  %s" % (100.0 * n / total, n, fn))
' "$map" > "$(dirname "$out")/profile.txt" || say "profile: no symbols ($map)"
	say "profile: $(dirname "$out")/profile.txt"
fi
grep -q '^=== BENCH END rc=0' "$log" || {
	say "the guest bench did not finish; log tail:"
	tail -n 30 "$log" >&2
	exit 1
}
