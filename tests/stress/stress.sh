#!/bin/bash
# Bounded stress and fault tests on perfctrfs, one TAP line each with its
# numbers, then the after-checks: no counter left (the root's
# user.perfctr.counters, and on FUSE the daemon's perf fds), the daemon's
# RSS back near its baseline, no process left behind.
#
#   tests/stress/stress.sh              mount the FUSE daemon privately
#   PERFCTR_MNT=/dev/perfctr PERFCTR_BACKEND=kernel tests/stress/stress.sh
#                                       the kernel filesystem (a guest:
#                                       bash, busybox, static helpers)
#
# STRESS_SECS (default 10) bounds each timed scenario.  PERFCTR_FUSE_BIN
# picks the daemon (default proto-fuse/perfctrfs-fuse).  STRESS_BIN and
# PERFCTR_HELPERS point at the stress and helper binaries (default
# tests/stress/bin, tests/helpers/bin).  Exits non-zero on any failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${STRESS_SECS:-10}
backend=${PERFCTR_BACKEND:-fuse}
S=${STRESS_BIN:-$here/bin}/stress
H=${PERFCTR_HELPERS:-$top/tests/helpers/bin}
daemon=${PERFCTR_FUSE_BIN:-$top/proto-fuse/perfctrfs-fuse}
mnt=${PERFCTR_MNT:-} own= dpid= work= n=0 fail=0

log() { echo "stress: $*" >&2; }
tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
mounted() { grep -qs " $1 " /proc/self/mounts; }

mount_daemon() {
	"$daemon" -f -o allow_other "$mnt" > "$work/daemon.log" 2>&1 &
	dpid=$!
	for _ in $(seq 1 100); do
		mounted "$mnt" && [ -d "$mnt/all" ] && return 0
		sleep 0.1
	done
	return 1
}

cleanup() {
	if [ -n "$own" ]; then
		mounted "$mnt" && { timeout 10 fusermount3 -u "$mnt" 2>/dev/null ||
				    timeout 10 umount -l "$mnt"; }
		[ -n "$dpid" ] && kill "$dpid" 2>/dev/null
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# from a source tree, always make (a no-op when current: a binary older
# than stress.c once ran without the churn scenario); a guest has binaries
if [ -f "$here/Makefile" ] && command -v make > /dev/null; then
	make -s -C "$here" >&2 && make -s -C "$top/tests/helpers" >&2 ||
		{ echo "1..1"; echo "not ok 1 - stress: cannot build"; exit 1; }
fi
[ -x "$S" ] || { echo "1..1"; echo "not ok 1 - stress: no $S"; exit 1; }
if [ -z "$mnt" ]; then
	[ "$backend" = fuse ] || { echo "1..1"; echo "not ok 1 - stress: PERFCTR_MNT unset"; exit 1; }
	own=1
	work=$(mktemp -d /tmp/perfctrfs-stress.XXXXXX)
	mnt=$work/mnt
	mkdir -p "$mnt"
	mount_daemon || { echo "1..1"; echo "not ok 1 - stress: daemon did not mount"; exit 1; }
fi

counters() { "$H/xattr" "$mnt" user.perfctr.counters 2>/dev/null || echo "?"; }
perf_fds() {
	[ -n "$dpid" ] || { echo 0; return; }
	ls -l "/proc/$dpid/fd" 2>/dev/null | grep -c 'anon_inode:\[perf_event\]'
}
rss_kb() { [ -n "$dpid" ] && awk '/^VmRSS/ {print $2}' "/proc/$dpid/status" 2>/dev/null || echo 0; }

# After a scenario: nothing held, nothing left running.
settled() {
	local what=$1 c f
	for _ in $(seq 1 50); do
		c=$(counters)
		f=$(perf_fds)
		[ "$c" = 0 ] && [ "$f" = 0 ] && break
		sleep 0.1
	done
	tap "$([ "$c" = 0 ] && [ "$f" = 0 ]; echo $?)" \
		"$what: afterwards counters xattr $c, daemon perf fds $f"
}

run() {
	local name=$1 mode=$2 out rc
	shift 2
	out=$(timeout $((secs * 3 + 60)) "$S" "$mode" "$mnt" "$@" 2>"$errf")
	rc=$?
	tap $rc "$name: ${out:-no output, exit $rc}"
	[ $rc -ne 0 ] && sed 's/^/# /' "$errf"
	settled "$name"
}

errf=$(mktemp)
trap 'rm -f "$errf"; cleanup' EXIT
# warm up, then the baseline: the catalogue and caches are filled
cat "$mnt/all/task_clock/self/simple/0" > /dev/null
rss0=$(rss_kb)
log "daemon ${dpid:-none}, baseline RSS ${rss0} kB, $secs s a scenario"

run "threads" threads "$secs" 16
# a self open while the opener's own threads come and go: once ENOENT
# whenever the last thread listed exited before its perf_event_open
run "self opens under thread churn" churn "$secs"
run "fork/exit storm" forkstorm "$secs"
run "target exits under 50 blocked readers" exitwait 50
run "reader killed mid-read" killread

# A counter whose period is 1 raises an overflow signal per event: the
# daemon must go on serving everyone else meanwhile (it once read the
# signal queue dry under its one lock, forever).
"$H/leafio" "$mnt/all/cpu_clock/self/simple/1" spin=3000 > /dev/null 2>&1 &
storm=$!
sleep 1
# (bash's clock: a busybox guest's date has no %N)
# Liveness only: the latency beside a storm is make bench's "9" row.
t0=${EPOCHREALTIME/[.,]/}
v=$(timeout 60 cat "$mnt/all/task_clock/self/simple/0" 2>&1)
ms=$(( (${EPOCHREALTIME/[.,]/} - t0) / 1000 ))
wait $storm
tap "$([[ $v =~ ^[0-9]+$ ]]; echo $?)" \
	"period-1 signal storm: another reader is answered (in $ms ms: ${v:0:20})"
settled "signal storm"

# The daemon's memory: what the scenarios took must be given back.
if [ -n "$dpid" ]; then
	rss1=$(rss_kb)
	tap "$([ "$rss1" -le $((rss0 + 16384)) ]; echo $?)" \
		"daemon RSS ${rss0} kB before, ${rss1} kB after (limit +16384 kB)"
fi

if [ "$backend" = fuse ] && [ -n "$own" ]; then
	# umount with open files: lazily, the readers keep working until they
	# close, then the daemon exits by itself
	"$H/leafio" "$mnt/all/task_clock/self/simple/0" read sleep=1500 pread=0 > "$work/held.out" 2>&1 &
	holder=$!
	sleep 0.5
	timeout 10 fusermount3 -u -z "$mnt"
	zrc=$?
	wait $holder
	hrc=$?
	lines=$(grep -cE '^[0-9]+$' "$work/held.out")
	drc=124
	for _ in $(seq 1 100); do
		kill -0 "$dpid" 2>/dev/null || { wait "$dpid"; drc=$?; break; }
		sleep 0.1
	done
	tap "$([ $zrc = 0 ] && [ $hrc = 0 ] && [ "$lines" = 2 ] && [ $drc = 0 ]; echo $?)" \
		"umount -z with an open leaf: holder read $lines of 2 lines after it (exit $hrc), daemon exit $drc"
	dpid=
	mounted "$mnt" && timeout 10 umount -l "$mnt"

	# SIGKILL the daemon with counters open: the clients see ENOTCONN
	# (or EIO), nothing hangs, and a fresh mount serves again
	mount_daemon || log "remount failed"
	"$H/leafio" "$mnt/all/task_clock/self/simple/0" read sleep=1500 read > "$work/k1.out" 2>&1 &
	k1=$!
	"$H/leafio" "$mnt/all/task_clock/self/simple/100000000000000" read > "$work/k2.out" 2>&1 &
	k2=$!
	sleep 0.7
	fds=$(perf_fds)
	kill -KILL "$dpid"
	wait "$dpid" 2>/dev/null
	dpid=
	t0=$(date +%s)
	timeout 20 bash -c "wait $k1 2>/dev/null; while kill -0 $k1 2>/dev/null || kill -0 $k2 2>/dev/null; do sleep 0.1; done"
	hung=$?
	errs=$(cat "$work/k1.out" "$work/k2.out" | grep -oE 'ENOTCONN|EIO|ECONNABORTED' | sort | uniq -c | awk '{printf "%s%s x%s", s, $2, $1; s=", "}')
	st=$(stat -c %i "$mnt/all" 2>&1 | grep -oE 'not connected' | head -1)
	timeout 10 umount -l "$mnt"
	mount_daemon
	again=$(cat "$mnt/all/task_clock/self/simple/0" 2>&1)
	tap "$([ $hung = 0 ] && [ -n "$errs" ] && [[ $again =~ ^[0-9]+$ ]] && [ "$fds" -gt 0 ]; echo $?)" \
		"daemon SIGKILLed with $fds perf fds open: readers got ${errs:-nothing}, ${st:-stat answered}, returned in $(( $(date +%s) - t0 )) s, remount reads ${again:0:20}"
	settled "after the remount"
fi

# every process this script started is gone (or a stuck one shows here)
left=$(jobs -rp | grep -vx "${dpid:-none}" | wc -l)
tap "$([ "$left" = 0 ]; echo $?)" "no process left behind ($left still running)"
echo "1..$n"
exit $fail
