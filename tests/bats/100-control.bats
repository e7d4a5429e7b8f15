#!/usr/bin/env bats
#
# Control words written to a leaf opened O_RDWR: enable, disable, reset.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
	# the target must outlive every leaf a test opens on it, however slow
	# the machine: it spins until teardown kills it (bounded at 120 s)
	"$H/spin" $((120 * SLOW)) >/dev/null 3>&- &
	spinner=$!
}

teardown() {
	kill_bg_jobs
}

@test "a disabled counter stands still while its target runs" {
	run timeout 15 "$H/leafio" -w "$(leaf all task_clock$U "$spinner" simple 0)" \
		sleep=100 write=disable pread=0 sleep=300 pread=0
	[ "$status" -eq 0 ]
	assert_eq "${lines[0]}" ok "write disable"
	assert_ge "${lines[1]}" 1 "count before disable"
	assert_eq "${lines[2]}" "${lines[1]}" "count 300 ms after disable"
}

@test "enable after disable makes it count again" {
	run timeout 15 "$H/leafio" -w "$(leaf all task_clock$U "$spinner" simple 0)" \
		write=disable pread=0 write=enable sleep=300 pread=0
	[ "$status" -eq 0 ]
	assert_eq "${lines[2]}" ok "write enable"
	assert_ge "$((lines[3] - lines[1]))" 10000000 "growth over 300 ms after enable"
}

@test "reset brings the count back to about 0" {
	# the opener burns its own CPU time: a spinner of another process got
	# 36 ms of a 500 ms sleep on a CI machine at load 20
	run timeout 15 "$H/leafio" -w "$(leaf all task_clock$U self simple 0)" \
		spin=300 pread=0 write=reset pread=0
	[ "$status" -eq 0 ]
	assert_ge "${lines[0]}" 250000000 "count before reset, after a 300 ms spin"
	assert_eq "${lines[1]}" ok "write reset"
	# what the spinner ran between the reset and the read: far below before
	assert_le "${lines[2]}" $((lines[0] / 4)) "count right after reset"
}

@test "control words take an optional newline" {
	run timeout 15 "$H/leafio" -w "$(leaf all task_clock$U "$spinner" simple 0)" \
		$'write=disable\n' $'write=enable\n' $'write=reset\n'
	assert_eq "${lines[*]}" "ok ok ok" "writes with a newline"
}

@test "a bad control word is EINVAL and leaves the counter running" {
	for w in disabled Disable "reset now" "enable disable" $'reset\n\n' $'\nreset' \
		"reset " 0 1 x; do
		run timeout 15 "$H/leafio" -w "$(leaf all task_clock$U "$spinner" simple 0)" "write=$w" \
			pread=0 sleep=200 pread=0
		assert_eq "${lines[0]}" EINVAL "write of '$w'" || return 1
		assert_ge "$((lines[2] - lines[1]))" 1 "growth after a bad word" || return 1
	done
}

@test "a 64 KiB write is EINVAL" {
	big=$(printf 'x%.0s' $(seq 1 8192))
	big=$big$big$big$big$big$big$big$big
	run timeout 15 "$H/leafio" -w "$(leaf all task_clock$U "$spinner" simple 0)" "write=$big" pread=0
	assert_eq "${lines[0]}" EINVAL "64 KiB write"
	is_count "${lines[1]}"
}

@test "writing to a leaf opened read-only fails" {
	run timeout 15 "$H/leafio" "$(leaf all task_clock$U "$spinner" simple 0)" write=disable
	assert_eq "${lines[0]}" EBADF "write on O_RDONLY"
}

@test "disable controls every member of a group" {
	run timeout 15 "$H/leafio" -w "$(leaf all "task_clock$U+task_clock$U" "$spinner" simple 0)" \
		sleep=100 write=disable pread=0 sleep=300 pread=0
	assert_eq "${lines[0]}" ok "write disable"
	assert_eq "${lines[2]}" "${lines[1]}" "group 300 ms after disable"
}

@test "control of one opener leaves another opener's counter alone" {
	# both open the same leaf (one inode); each counts itself, so the
	# other's count is exactly the CPU time it burns, at any load
	local lf
	lf=$(leaf all task_clock$U self simple 0)
	"$H/leafio" -w "$lf" write=disable sleep=1500 > "$BATS_TEST_TMPDIR/ctl" 3>&- &
	ctl=$!
	sleep 0.2
	run timeout 15 "$H/leafio" "$lf" spin=300 pread=0
	wait "$ctl"
	assert_eq "$(cat "$BATS_TEST_TMPDIR/ctl")" ok "the other opener's disable"
	assert_ge "${lines[0]}" 250000000 "a counter that burned 300 ms beside another opener's disable"
}

@test "the perf ioctls disable, reset and enable like the control words" {
	run timeout 15 "$H/leafio" "$(leaf all task_clock$U "$spinner" simple 0)" \
		sleep=100 ioctl=disable pread=0 sleep=300 pread=0 ioctl=reset pread=0 \
		ioctl=enable sleep=300 pread=0
	# ioctls are optional ("where the backend can pass ioctls")
	case ${lines[0]} in
	ENOTTY|ENOSYS|EOPNOTSUPP|EINVAL) skip "this backend passes no perf ioctls (${lines[0]})" ;;
	esac
	assert_eq "${lines[0]}" ok "PERF_EVENT_IOC_DISABLE"
	assert_eq "${lines[2]}" "${lines[1]}" "count 300 ms after the disable ioctl"
	assert_eq "${lines[3]}" ok "PERF_EVENT_IOC_RESET"
	assert_le "${lines[4]}" $((lines[2] / 4 + 1000000)) "count after the reset ioctl"
	assert_eq "${lines[5]}" ok "PERF_EVENT_IOC_ENABLE"
	assert_ge "$((lines[6] - lines[4]))" 10000000 "growth over 300 ms after the enable ioctl"
}

@test "100-control: no counter left held" {
	assert_no_leak
}
