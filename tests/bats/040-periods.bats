#!/usr/bin/env bats
#
# Periods: N events (blocks until N more events happened), times (one line
# per interval), O_NONBLOCK, poll(), and EOF when the target exits.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
}

teardown() {
	kill_bg_jobs
}

# Start a CPU burner for $1 seconds; its pid in $spinner.
start_spinner() {
	"$H/spin" "$1" >/dev/null 3>&- &
	spinner=$!
}

# Start a spinner of $1 seconds whose clock starts only at SIGUSR1 (spin
# -g), its pid in $spinner: the test opens its leaf, then lets it run, via
# leafio's sh="kill -USR1 $spinner", so a slow machine cannot lose a
# short-lived target before the open.
start_gated_spinner() {
	"$H/spin" -g "$1" > "$BATS_TEST_TMPDIR/gate" 3>&- &
	spinner=$!
	wait_until "grep -qx gated $BATS_TEST_TMPDIR/gate" || die "spin -g never got ready"
}

# Start a process that sleeps $1 seconds; its pid in $sleeper.
start_sleeper() {
	sleep "$1" >/dev/null 3>&- &
	sleeper=$!
}

@test "period N: each read waits for N more events and lines are cumulative" {
	start_spinner 5
	# 50 ms of task clock a line
	run timeout 20 "$H/leafio" "$(leaf all task_clock$U "$spinner" simple 50000000)" read read read
	[ "$status" -eq 0 ]
	a=${lines[0]} b=${lines[1]} c=${lines[2]}
	is_count "$a" && is_count "$b" && is_count "$c" || die "not counts: ${lines[*]}"
	assert_ge "$a" 50000000 "first line"
	assert_ge "$((b - a))" 50000000 "second minus first"
	assert_ge "$((c - b))" 50000000 "third minus second"
}

@test "period N: a read into an unmapped buffer is EFAULT and the line stays for the next read" {
	start_spinner 5
	# 1 ms of task clock a line: due at once on a spinner
	run timeout 20 "$H/leafio" "$(leaf all task_clock$U "$spinner" simple 1000000)" badread read
	[ "$status" -eq 0 ] || die "leafio: $status ${lines[*]}"
	assert_eq "${lines[0]}" EFAULT "read(2) into a PROT_NONE page"
	is_count "${lines[1]}" || die "read after EFAULT: ${lines[1]}"
	assert_ge "${lines[1]}" 1000000 "the line kept"
}

@test "period N without O_NONBLOCK blocks while too few events happen" {
	start_sleeper 10
	run timeout 10 "$H/leafio" "$(leaf all task_clock$U "$sleeper" simple 1000000000000)" alarm=500 read
	assert_eq "${lines[0]}" EINTR "a blocked read interrupted by an alarm"
}

@test "period N with O_NONBLOCK gives EAGAIN while no line is ready" {
	start_sleeper 10
	run timeout 10 "$H/leafio" -n "$(leaf all task_clock$U "$sleeper" simple 1000000000000)" read
	assert_eq "${lines[0]}" EAGAIN "O_NONBLOCK read"
}

@test "period N with O_NONBLOCK returns the line once it is ready" {
	start_spinner 5
	run timeout 10 "$H/leafio" -n "$(leaf all task_clock$U "$spinner" simple 10000000)" poll=3000 read
	assert_eq "${lines[0]}" POLLIN "poll"
	is_count "${lines[1]}" || die "read after POLLIN: ${lines[1]}"
	assert_ge "${lines[1]}" 10000000 "the line"
}

@test "poll reports POLLIN when a line is ready and times out when not" {
	start_spinner 5
	start_sleeper 10
	run timeout 10 "$H/leafio" "$(leaf all task_clock$U "$sleeper" simple 1000000000000)" poll=300
	assert_eq "${lines[0]}" timeout "poll on a sleeping target"
	run timeout 10 "$H/leafio" "$(leaf all task_clock$U "$spinner" simple 20000000)" poll=5000
	assert_match "${lines[0]}" '^POLLIN' "poll on a spinning target"
}

@test "period 0 never blocks and poll reports it readable" {
	start_sleeper 10
	run timeout 10 "$H/leafio" -n "$(leaf all task_clock$U "$sleeper" simple 0)" poll=0 read
	assert_match "${lines[0]}" '^POLLIN' "poll of period 0"
	is_count "${lines[1]}" || die "O_NONBLOCK period-0 read: ${lines[1]}"
}

@test "a blocked period-N read returns what is left, then EOF, when the target exits" {
	start_gated_spinner 0.5
	run timeout 15 "$H/leafio" "$(leaf all task_clock$U "$spinner" simple 1000000000000)" \
		sh="kill -USR1 $spinner" readall
	[ "$status" -eq 0 ] || die "leafio timed out or failed: $status ${lines[*]}"
	assert_eq "${lines[-1]}" EOF "last read"
	[ "${#lines[@]}" -eq 2 ] || die "expected one line then EOF: ${lines[*]}"
	assert_ge "${lines[0]}" 1000000 "final count of a 0.5 s spinner"
}

@test "poll reports POLLHUP after the target exited" {
	start_gated_spinner 0.3
	run timeout 15 "$H/leafio" "$(leaf all task_clock$U "$spinner" simple 1000000000000)" \
		sh="kill -USR1 $spinner" waitexit="$spinner" sleep=100 poll=3000
	assert_match "${lines[0]}" 'POLLHUP' "poll after exit"
}

@test "cat of a 1s leaf prints about one line a second and ends when the process exits" {
	# cat reads the leaf opened before the spinner's clock starts: on a
	# slow guest the open itself took most of a 3.5 s life (1 line)
	start_gated_spinner 3.5
	t0=${EPOCHREALTIME/./}
	exec {fd}<"$(leaf all task_clock$U "$spinner" simple 1s)"
	kill -USR1 "$spinner"
	run timeout 15 cat <&"$fd"
	t1=${EPOCHREALTIME/./}
	exec {fd}<&-
	[ "$status" -eq 0 ] || die "cat exited $status (124 = did not end with the process)"
	n=${#lines[@]} ms=$(((t1 - t0) / 1000))
	# one line a second of the wall time since the open, and one more at
	# the exit: a bound on that, not on the spinner's 3.5 s, which a loaded
	# CI machine has stretched (9 lines, 4.58 s of task clock)
	[ "$n" -ge 2 ] && [ "$n" -le $((ms / 1000 + 2)) ] ||
		die "$n lines in $ms ms: ${lines[*]}"
	prev=0
	for l in "${lines[@]}"; do
		is_count "$l" || die "not a count: $l"
		assert_ge "$l" "$prev" "cumulative line"
		prev=$l
	done
	# cat ended by itself (status 0, not timeout's 124)
	echo "# cat ran $ms ms for a 3.5 s target: $n lines, the last ${lines[-1]} ns of task clock" >&3
}

@test "a time period spaces lines by the interval" {
	start_spinner 3
	run timeout 15 "$H/leafio" "$(leaf all task_clock$U "$spinner" simple 500ms)" read ms read ms read ms
	[ "$status" -eq 0 ]
	# lines: count ms count ms count ms
	for i in 3 5; do
		assert_ge "${lines[$i]}" 350 "ms between lines" || return 1
		# not much later either; generous: a loaded machine schedules
		# the reader late, and the next line then comes early
		assert_le "${lines[$i]}" $((3000 * SLOW)) "ms between lines" || return 1
	done
}

@test "a time period line is ready for poll after the interval, not before" {
	start_sleeper 10
	run timeout 10 "$H/leafio" "$(leaf all task_clock$U "$sleeper" simple 1s)" poll=300 poll=3000
	assert_eq "${lines[0]}" timeout "poll before the interval"
	assert_match "${lines[1]}" '^POLLIN' "poll after the interval"
}

@test "040-periods: no counter left held" {
	assert_no_leak
}
