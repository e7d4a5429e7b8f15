#!/bin/bash
# The conformance suite (tests/bats) against the FUSE daemon run under a
# checker, as root, on a private mount:
#
#   tests/stress/run-sanitized.sh asan       perfctrfs-fuse-asan (ASan+UBSan,
#                                            LeakSanitizer at exit)
#   tests/stress/run-sanitized.sh valgrind   perfctrfs-fuse under valgrind
#                                            memcheck --leak-check=full
#
# Mounts the daemon the way tests/run-fuse.sh does, with the same harness
# (tests/lib/fuse-mount.sh: -f -o allow_other, the same environment for
# the suite), runs `bats --tap tests/bats` as root, unmounts,
# and turns the checker's logs into TAP lines of their own:
#   ok - asan: 0 errors            (AddressSanitizer, UBSan, LeakSanitizer)
#   ok - valgrind: 0 bytes definitely lost, 0 errors
# The suite's own lines come first, numbered as bats numbered them; the
# checker lines continue the count.  Exits non-zero on any failure.
# BATS_FILTER is passed to bats --filter.  Progress goes to stderr.
# The whole suite as root and as a user against the ASan daemon, without
# the checker lines, is tests/run-fuse.sh with
# PERFCTR_DAEMON=proto-fuse/perfctrfs-fuse-asan.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/fuse-mount.sh"
mode=${1:-asan}
work= mnt=

log() { echo "run-sanitized: $*" >&2; }
abort() {
	log "$*"
	echo "1..1"
	echo "not ok 1 - $mode suite setup: $*"
	exit 1
}
cleanup() {
	fuse_cleanup "$mnt"
	[ -n "$work" ] && [ -z "${KEEP_WORK:-}" ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || abort "needs root (mounts with allow_other)"
command -v bats >/dev/null || abort "bats not installed (scripts/deps.sh)"
# perf_event_paranoid is per host and the suite sets it: one stage at a time
exec 9> /tmp/perfctrfs-fuse-stage.lock
flock -w 1800 9 || abort "another fuse stage holds /tmp/perfctrfs-fuse-stage.lock"

make -s -C "$top/tests/helpers" >&2 || abort "make -C tests/helpers failed"
work=$(mktemp -d /tmp/perfctrfs-san.XXXXXX) || abort "mktemp failed"
fuse_suite_copy "$top" "$work" || abort "cannot copy the suite to $work"
mkdir -p "$work/mnt" "$work/logs" && chmod a+rX "$work/mnt"
chmod 1777 "$work/logs"
mnt=$work/mnt

case $mode in
asan)
	make -s -C "$top/proto-fuse" SANITIZE=1 >&2 || abort "make SANITIZE=1 failed"
	daemon=$top/proto-fuse/perfctrfs-fuse-asan
	export ASAN_OPTIONS="detect_leaks=1:log_path=$work/logs/asan:abort_on_error=0"
	export UBSAN_OPTIONS="print_stacktrace=1:log_path=$work/logs/ubsan"
	cmd=("$daemon")
	;;
valgrind)
	command -v valgrind >/dev/null || abort "valgrind not installed (scripts/deps.sh)"
	make -s -C "$top/proto-fuse" >&2 || abort "make -C proto-fuse failed"
	daemon=$top/proto-fuse/perfctrfs-fuse
	cmd=(valgrind --tool=memcheck --leak-check=full
	     --errors-for-leak-kinds=definite --error-exitcode=99
	     --log-file="$work/logs/vg.%p" "$daemon")
	;;
*)
	abort "unknown mode $mode (asan|valgrind)"
	;;
esac

log "mounting ${cmd[*]} on $mnt"
fuse_start "$mnt" "$work/daemon.log" 30 "${cmd[@]}" -f -o allow_other "$mnt" ||
	abort "no mount within 30 s"
dpid=$FUSE_PID

export PERFCTR_MNT=$mnt PERFCTR_BACKEND=fuse PERFCTR_DAEMON_PID=$dpid
export PERFCTR_HELPERS=$work/tests/helpers/bin PERFCTR_FUSE_BIN=$daemon
filter=()
[ -n "${BATS_FILTER:-}" ] && filter=(--filter "$BATS_FILTER")
log "suite as root against the $mode daemon"
# the checker's own environment is the daemon's, not the suite's.  The
# bound: quiet, the ASan suite takes 331 s; a cold make check ran it
# beside two kernel builds and the POWER9 guest's suite (two TCG vCPU
# threads at nice 0) and it ran past 1,500 s, 4.5 times slower, with
# no test failing (stop 32)
(cd "$work" && env -u ASAN_OPTIONS -u UBSAN_OPTIONS timeout 2700 \
	bats --tap "${filter[@]}" tests/bats 9>&-) > "$work/root.tap" 2> "$work/root.err"
rc_suite=$?
[ $rc_suite -ne 0 ] && tail -20 "$work/root.err" >&2
grep -qE '^(not )?ok [0-9]+' "$work/root.tap" || { log "the suite printed no TAP"; rc_suite=1; }

log "unmounting"
fuse_stop "$mnt" 60
rc_daemon=$FUSE_RC

n=$(grep -cE '^(not )?ok [0-9]+' "$work/root.tap")
grep -vE '^1\.\.[0-9]+' "$work/root.tap"
fail=0
[ $rc_suite -eq 0 ] || fail=1
case $mode in
asan)
	cat "$work"/logs/asan.* "$work"/logs/ubsan.* > "$work/checker.log" 2>/dev/null
	errs=$(grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$work/checker.log")
	leaks=$(sed -n 's/^SUMMARY: AddressSanitizer: \([0-9]*\) byte(s) leaked.*/\1/p' "$work/checker.log" | awk '{s += $1} END {print s + 0}')
	line="asan: $errs errors, $leaks bytes leaked, daemon exit $rc_daemon"
	ok=$([ "$errs" -eq 0 ] && [ $rc_daemon -eq 0 ] && echo ok)
	;;
valgrind)
	cat "$work"/logs/vg.* > "$work/checker.log" 2>/dev/null
	lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$work/checker.log" | tr -d , | awk '{s += $1} END {print s + 0}')
	errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$work/checker.log" | tr -d , | awk '{s += $1} END {print s + 0}')
	summaries=$(grep -c 'ERROR SUMMARY' "$work/checker.log")
	line="valgrind: $lost bytes definitely lost, $errs errors, daemon exit $rc_daemon"
	ok=$([ "$lost" -eq 0 ] && [ "$errs" -eq 0 ] && [ "$summaries" -ge 1 ] &&
	     [ $rc_daemon -eq 0 ] && echo ok)
	;;
esac
n=$((n + 1))
if [ -n "$ok" ]; then
	echo "ok $n - $line"
else
	echo "not ok $n - $line"
	grep -m20 -E 'ERROR|runtime error|definitely|SUMMARY|Invalid|uninitialised' "$work/checker.log" | sed 's/^/# /'
	tail -5 "$work/daemon.log" | sed 's/^/# daemon: /'
	fail=1
fi
echo "1..$n"
log "suite: exit $rc_suite, daemon: exit $rc_daemon"
exit $fail
