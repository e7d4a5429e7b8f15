#!/bin/bash
# tap.awk's debug checks against small serial logs, one per kind of
# kernel report (the report lines are the first lines of real reports from
# the debug guest, with deliberate bugs in perfctrfs): each must fail its
# own test and no other one; a clean log passes every test; a kmemleak
# object is ours exactly when its backtrace names a perfctrfs function;
# in a log of two boots (ppc64le) each kernel log is its own test.
#
#   tests/qemu/tap-selftest.sh      TAP on stdout, exit 1 on a failure
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/perfctrfs-tapself.XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0 fail=0
tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
printf 'perfctrfs_fill_super\ncounter_get_ref\n' > "$work/syms"

# log KMEMLEAK-LINES DMESG-LINES: a whole guest log around them
log() {
	printf '%s\n' '=== PCTR BEGIN kmemleak' "$1" '=== PCTR END kmemleak rc=0 5s' \
		'=== PCTR BEGIN dmesg' 'Linux version 6.1.192' "$2" \
		'=== PCTR END dmesg rc=0 1s' '=== PCTR QEMU-EXIT 0'
}
# failing LOG: the descriptions of the tests that fail on it
failing() {
	awk -v expect="kmemleak dmesg" -v debug=1 -v syms="$work/syms" \
		-f "$here/tap.awk" "$1" | sed -n 's/^not ok [0-9]* - //p' |
		sed 's/ ([0-9]* ours.*//; s/debug kernel: [0-9]* x //'
}
leak() { # COMM FRAME...: one kmemleak object
	printf 'unreferenced object 0xffff88800675ac00 (size 64):\n'
	printf '  comm "%s", pid 1, jiffies 4294910531\n  backtrace:\n' "$1"
	shift
	printf '    [<(____ptrval____)>] %s+0x13/0x35\n' __kmem_cache_alloc_node __kmalloc "$@"
}

log "" "ok" > "$work/clean"
out=$(failing "$work/clean")
tap "$([ -z "$out" ]; echo $?)" "a clean log fails nothing${out:+ (failed: $out)}"

check() { # KIND-DESCRIPTION DMESG-LINE
	log "" "$2" > "$work/one"
	out=$(failing "$work/one" | grep -v '^guest kernel log has no' | tr '\n' '|')
	tap "$([ "$out" = "$1|" ]; echo $?)" "'${2:0:50}' fails only '$1' (failed: ${out%|})"
}
check "KASAN report" "BUG: KASAN: use-after-free in pctr_bugs+0x27a/0x28f"
check "lockdep report (circular, inconsistent, recursive locking, suspicious RCU usage...)" \
	"WARNING: possible circular locking dependency detected"
check "lockdep report (circular, inconsistent, recursive locking, suspicious RCU usage...)" \
	"WARNING: inconsistent lock state"
check "lockdep report (circular, inconsistent, recursive locking, suspicious RCU usage...)" \
	"WARNING: possible recursive locking detected"
check "lockdep report (circular, inconsistent, recursive locking, suspicious RCU usage...)" \
	"WARNING: suspicious RCU usage"
check "sleeping function called from invalid context" \
	"BUG: sleeping function called from invalid context at include/linux/sched/mm.h:274"
check "debugobjects (ODEBUG) report" \
	"ODEBUG: free active (active state 0) object type: timer_list hint: pctr_bug_timer+0x0/0x1
WARNING: CPU: 1 PID: 622 at lib/debugobjects.c:515 debug_print_object+0x16f/0x188"
check "workqueue lockup" \
	"BUG: workqueue lockup - pool cpus=1 node=0 flags=0x0 nice=0 stuck for 50s!"
check "other BUG, WARNING or Oops" \
	"WARNING: CPU: 1 PID: 622 at kernel/time/timer.c:1564 __timer_delete_sync+0x94/0xb2"

log "$(leak swapper/0 acpi_os_create_cache acpi_ut_create_caches)" ok > "$work/theirs"
out=$(failing "$work/theirs")
tap "$([ -z "$out" ]; echo $?)" "kmemleak: an ACPI object is not ours${out:+ (failed: $out)}"
log "$(leak mount perfctrfs_fill_super.isra.0 vfs_get_super)" ok > "$work/ours"
out=$(failing "$work/ours")
tap "$([ "$out" = "kmemleak: no unreferenced object allocated through perfctrfs" ]; echo $?)" \
	"kmemleak: an object allocated under perfctrfs_fill_super.isra.0 is ours (failed: $out)"
log "$(leak cat counter_get_ref seq_read)" ok > "$work/static"
out=$(failing "$work/static")
tap "$([ "$out" = "kmemleak: no unreferenced object allocated through perfctrfs" ]; echo $?)" \
	"kmemleak: a static function from nm's list makes it ours (failed: $out)"
# ppc64le's two boots in one log: each boot's kernel log is its own
# test, and a boot that never came fails the blocks it owed.
two_boots() { # CHECKS-DMESG SUITE-DMESG
	printf '%s\n' '=== PCTR BEGIN ppc' '1..1' 'ok 1 counts' '=== PCTR END ppc rc=0 3s' \
		'=== PCTR BEGIN dmesg' "$1" '=== PCTR END dmesg rc=0 0s' '=== PCTR QEMU-EXIT 0' \
		'=== PCTR BEGIN bats-root' '1..1' 'ok 1 a' '=== PCTR END bats-root rc=0 9s' \
		'=== PCTR BEGIN bats-user' '1..1' 'ok 1 a' '=== PCTR END bats-user rc=0 9s' \
		'=== PCTR BEGIN dmesg-suite' "$2" '=== PCTR END dmesg-suite rc=0 0s' '=== PCTR QEMU-EXIT 0'
}
failing2() {
	awk -v expect="ppc dmesg bats-root bats-user dmesg-suite" -f "$here/tap.awk" "$1" |
		sed -n 's/^not ok [0-9]* - //p' | tr '\n' '|'
}
warn="WARNING: CPU: 1 PID: 622 at kernel/time/timer.c:1564 __timer_delete_sync+0x94/0xb2"
two_boots ok ok > "$work/two"
out=$(failing2 "$work/two")
tap "$([ -z "$out" ]; echo $?)" "two clean boots fail nothing${out:+ (failed: $out)}"
two_boots ok "$warn" > "$work/two"
out=$(failing2 "$work/two")
tap "$([ "$out" = "guest kernel log (suite boot) has no WARNING, BUG, Oops or lockdep report|" ]; echo $?)" \
	"a warning in the suite boot fails only its log's test (failed: $out)"
two_boots "$warn" ok > "$work/two"
out=$(failing2 "$work/two")
tap "$([ "$out" = "guest kernel log has no WARNING, BUG, Oops or lockdep report|" ]; echo $?)" \
	"a warning in the checks boot fails only its log's test (failed: $out)"
two_boots ok ok | sed '/BEGIN bats-root/,$d' > "$work/two"
out=$(failing2 "$work/two")
tap "$([ "$out" = "root: never started (guest hung, panicked or timed out)|user: never started (guest hung, panicked or timed out)|dmesg-suite: never started (guest hung, panicked or timed out)|" ]; echo $?)" \
	"a suite boot that never came fails its three blocks (failed: $out)"
echo "1..$n"
exit $fail
