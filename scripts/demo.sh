#!/bin/bash
# Set up perfctrfs on this machine and show it counting.
#
#   scripts/demo.sh [MOUNTPOINT]      (default /dev/perfctr; run as root)
#
# Installs the few Debian packages the FUSE daemon needs, builds it, mounts
# it with allow_other (so every user may count, under perf's own rules),
# and reads a few counters the way a shell user would.  The mount stays up;
# `fusermount3 -u MOUNTPOINT` takes it down.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mnt=${1:-/dev/perfctr}

"$top/scripts/deps.sh" --fuse
make -s -C "$top/proto-fuse"

mkdir -p "$mnt"
if ! mountpoint -q "$mnt"; then
	"$top/proto-fuse/perfctrfs-fuse" -o allow_other "$mnt"
fi
for _ in $(seq 50); do
	[ -d "$mnt/all" ] && break
	sleep 0.1
done

show() { printf '\n$ %s\n' "$*"; "$@"; }
show ls "$mnt"
show ls "$mnt/0"
show cat "$mnt/all/task_clock/self/simple/0"
show cat "$mnt/all/task_clock/self/times/0"
# a child that faults in 10000 pages, counted from its start by inheritance
printf '\n$ %s\n' "page_faults of this shell and its children (dd allocates a 40 MiB buffer)"
exec 3< "$mnt/all/page_faults/self/simple/0"
dd if=/dev/zero bs=40M count=1 status=none | cat > /dev/null
cat <&3
exec 3<&-
show getfattr -d "$mnt/0/task_clock"
printf '\n$ %s\n' "timeout 3.5 cat $mnt/all/cpu_clock/all/simple/1s   (system-wide, a line a second)"
timeout 3.5 cat "$mnt/all/cpu_clock/all/simple/1s" || true
echo
echo "perfctrfs is mounted at $mnt (fusermount3 -u $mnt to unmount)."
