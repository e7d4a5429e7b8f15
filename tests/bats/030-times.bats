#!/usr/bin/env bats
#
# The times type: "<count> <time_enabled_ns> <time_running_ns>".

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
}

@test "times line has three counts, enabled >= running > 0" {
	run "$H/leafio" "$(leaf all task_clock$U self times 0)" spin=20 read
	[ "$status" -eq 0 ]
	set -- ${lines[0]}
	assert_eq "$#" 3 "fields in '${lines[0]}'"
	is_count "$1" && is_count "$2" && is_count "$3" || die "not counts: ${lines[0]}"
	assert_ge "$3" 1 "time_running"
	assert_ge "$2" "$3" "time_enabled vs time_running"
}

@test "times: enabled time follows the wall clock across preads" {
	run "$H/leafio" "$(leaf all task_clock$U self times 0)" ms pread=0 sleep=200 pread=0 ms
	[ "$status" -eq 0 ]
	set -- ${lines[1]}; e0=$2
	set -- ${lines[2]}; e1=$2
	wall=${lines[3]}
	d=$((e1 - e0))
	# enabled time of a task counter runs while the task is scheduled in;
	# over a 200 ms sleep it must not run ahead of the wall clock, which
	# leafio measured around the two reads (a loaded machine stretches it)
	assert_ge "$wall" 200 "ms leafio measured around a 200 ms sleep"
	assert_le "$d" $(( (wall + 1) * 1000000 )) "time_enabled growth over the $wall ms around a 200 ms sleep"
}

@test "times: the task_clock count grows with the running time" {
	run "$H/leafio" "$(leaf all task_clock$U self times 0)" pread=0 spin=200 pread=0
	[ "$status" -eq 0 ]
	set -- ${lines[0]}; c0=$1 r0=$3
	set -- ${lines[1]}; c1=$1 r1=$3
	[ "$c1" -gt "$c0" ] && [ "$r1" -gt "$r0" ] || die "no growth: ${lines[*]}"
	assert_ge "$((c1 - c0))" 20000000 "task_clock growth over a 200 ms spin"
}

@test "times of a count event on CPU 0 reads three fields" {
	run "$H/leafio" "$(leaf 0 page_faults$U self times 0)" read
	[ "$status" -eq 0 ]
	assert_match "${lines[0]}" '^(0|[1-9][0-9]*) (0|[1-9][0-9]*) (0|[1-9][0-9]*)$' "times on cpu 0"
}

@test "times with period 0 is EOF after its line" {
	run "$H/leafio" "$(leaf all page_faults$U self times 0)" read read
	assert_eq "${lines[1]}" EOF "second read"
}

@test "030-times: no counter left held" {
	assert_no_leak
}
