#!/usr/bin/env bats
#
# Every name that does not parse, names nothing, or names something that
# does not exist fails lookup with ENOENT, at every level: checked by
# errno, not just by failure.  And the valid neighbours of each bad name
# do look up, so the ENOENTs are not a lookup that fails for everything.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
	offlined=
}

teardown() {
	# a CPU a test took offline comes back even when the test failed
	[ -z "$offlined" ] || echo 1 > "$offlined"
}

# expect_enoent PREFIX NAME...: every PREFIX/NAME gives ENOENT.
expect_enoent() {
	local prefix=$1 n r bad=
	shift
	for n; do
		r=$(lookup "$prefix/$n")
		[ "$r" = ENOENT ] || bad+=" '$n'->$r"
	done
	[ -z "$bad" ] || die "under $prefix, not ENOENT:$bad"
}

# expect_found PREFIX NAME...: every PREFIX/NAME resolves.
expect_found() {
	local prefix=$1 n r bad=
	shift
	for n; do
		r=$(lookup "$prefix/$n")
		[ "$r" = dir ] || [ "$r" = file ] || bad+=" '$n'->$r"
	done
	[ -z "$bad" ] || die "under $prefix, did not resolve:$bad"
}

@test "cpu level: malformed numbers and names are ENOENT" {
	expect_enoent "$M" 00 01 007 -0 -1 +0 +1 " 0" "0 " 0x0 1e0 0.0 \
		ALL All "all " " all" alll al self 4294967296 \
		18446744073709551616 2147483648 99999999999999999999 $'0\n' '*' '?' 
}

@test "cpu level: a CPU that does not exist or is offline is ENOENT" {
	expect_enoent "$M" 4096 2147483647
	if [ -r /sys/devices/system/cpu/possible ]; then
		for c in $(seq 0 63); do
			[ -d "/sys/devices/system/cpu/cpu$c" ] || { expect_enoent "$M" "$c"; break; }
		done
	fi
	for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ -r "$f" ] || continue
		[ "$(cat "$f")" = 0 ] || continue
		c=${f#/sys/devices/system/cpu/cpu}; c=${c%/online}
		expect_enoent "$M" "$c"
	done
}

@test "cpu level: a CPU taken offline leaves the listing and its lookup is ENOENT" {
	require_root
	# only in a throw-away guest: offlining a CPU of a shared host would
	# disturb everyone on it
	[ "$PERFCTR_BACKEND" = kernel ] || skip "offlines a CPU: only in a QEMU guest (kernel backend)"
	c=$(online_cpus | tail -n 1)
	f=/sys/devices/system/cpu/cpu$c/online
	[ "$c" != 0 ] && [ -w "$f" ] || skip "no CPU that can go offline here"
	echo 0 > "$f" || skip "cpu $c refused to go offline"
	offlined=$f
	r=$(lookup "$M/$c") listed=$(names_of "$M" | grep -cx "$c") || true
	echo 1 > "$f" && offlined=
	assert_eq "$r" ENOENT "lookup of offline cpu $c"
	assert_eq "$listed" 0 "times offline cpu $c is listed"
	wait_until "[ \"\$(lookup $M/$c)\" = dir ]" 50 || die "cpu $c did not come back"
}

@test "cpu level: 0 and all resolve" {
	expect_found "$M" 0 all
}

@test "event level: bad spellings, modifiers and raw codes are ENOENT" {
	expect_enoent "$M/all" TASK_CLOCK Task_clock task-clock taskclock task_clock_ \
		_task_clock "task_clock " " task_clock" task_clock: task_clock:x \
		task_clock:uu task_clock:U task_clock:uk:u task_clock::u "task_clock:u " \
		task_clock:II nosuch_event 0x 0X1 0xg 0x01 0x00 0x-1 0xABC \
		0x10000000000000000 0x00000000000000001 -0x1 \
		nosuchpmu.x msr.nosuch_alias $'task_clock\n' $'task\x01clock'
}

@test "event level: bad groups are ENOENT" {
	t=task_clock
	expect_enoent "$M/all" "$t+" "+$t" "$t++$t" "+" "$t+nosuch" "$t+$t:x" \
		"$t+$t+$t+$t+$t+$t+$t+$t+$t" "$t + $t" "$t,$t"
}

@test "event level: modifiers and groups of up to 8 resolve" {
	t=task_clock
	expect_found "$M/all" "$t:u" "$t:k" "$t:uk" "$t:uI" "$t+page_faults" \
		"$t+$t+$t+$t+$t+$t+$t+$t"
}

@test "event level: an unlisted hardware event is ENOENT" {
	for e in $HW_EVENTS; do
		events_of all | grep -qxF "$e" && continue
		expect_enoent "$M/all" "$e" "$e:u" "task_clock+$e"
	done
}

@test "event level: a name of 255 bytes is ENOENT" {
	long=$(printf 'x%.0s' $(seq 1 255))
	expect_enoent "$M/all" "$long" "task_clock+$(printf 'x%.0s' $(seq 1 244))"
}

@test "event level: a 4 KiB name fails with ENOENT or ENAMETOOLONG, and the mount still serves" {
	long=$(printf 'task_clock+%.0s' $(seq 1 372))task_clock
	r=$(lookup "$M/all/$long")
	# names beyond NAME_MAX may be refused by the VFS before the lookup
	assert_match "$r" '^(ENOENT|ENAMETOOLONG)$' "lookup of a 4 KiB name"
	is_count "$(read0 "$(leaf all task_clock$U self simple 0)")"
}

@test "pid level: malformed pids and names are ENOENT" {
	expect_enoent "$M/all/task_clock" 0 00 01 007 -1 +1 " 1" "1 " 1x x1 0x1 \
		SELF Self "self " selff ALL "all " 4294967297 2147483648 \
		99999999999999999999 $'1\n'
}

@test "pid level: a dead pid is ENOENT" {
	sh -c 'exit 0' &
	dead=$!
	wait "$dead" || true
	# only if nothing took the pid back meanwhile
	[ -d "/proc/$dead" ] && skip "pid $dead was reused"
	expect_enoent "$M/all/task_clock" "$dead"
	pid_max=$(cat /proc/sys/kernel/pid_max)
	expect_enoent "$M/all/task_clock" "$pid_max" 2147483647
}

@test "pid level: self, all, 1 and this shell resolve" {
	expect_found "$M/all/task_clock" self all 1 $$
}

@test "type level: anything but simple, times and irq is ENOENT" {
	expect_enoent "$M/all/task_clock/self" Simple SIMPLE simpl simples "simple " \
		time timess irqs IRQ sample 0 $'times\n'
}

@test "period level: malformed counts are ENOENT" {
	expect_enoent "$M/all/task_clock/self/simple" 00 01 007 -0 -1 +1 " 1" "1 " \
		0x10 1e3 1.5 1,000 9223372036854775808 18446744073709551616 \
		99999999999999999999 $'1\n' x
}

@test "period level: malformed and too short times are ENOENT" {
	expect_enoent "$M/all/task_clock/self/simple" 999us 999999ns 0ms 0s 0ns 0us \
		1S 1MS 1m 1min 1sec 1h "1 s" ms s 01s 00ms 1.5s -1s +1s 1s1 1ss 1msx \
		10000000000000000000s
}

@test "period level: counts and times of 1ms or more resolve" {
	expect_found "$M/all/task_clock/self/simple" 0 1 300 9223372036854775807 \
		1ms 1000us 1000000ns 100ms 1s 10s
}

@test "period level: irq has no period 0 and takes counts and times" {
	expect_enoent "$M/all/task_clock/self/irq" 0 00 999us
	expect_found "$M/all/task_clock/self/irq" 1 100000 10ms
}

@test "lookups below a leaf are ENOTDIR or ENOENT" {
	r=$(lookup "$M/all/task_clock/self/simple/0/x")
	assert_match "$r" '^(ENOTDIR|ENOENT)$' "lookup below a leaf"
}

@test "010-lookup-errors: no counter left held" {
	assert_no_leak
}
