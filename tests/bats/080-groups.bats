#!/usr/bin/env bats
#
# Groups: "a+b+c" is one perf event group, read in one line, counts in the
# order named, one pair of times; a group the PMU cannot take fails at
# open with perf's own errno.

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

@test "a group reads one line with one count per member" {
	run "$H/leafio" "$(leaf all "task_clock$U+page_faults$U+context_switches$U" self simple 0)" spin=50 read
	[ "$status" -eq 0 ]
	assert_match "${lines[0]}" '^(0|[1-9][0-9]*) (0|[1-9][0-9]*) (0|[1-9][0-9]*)$' "group line"
}

@test "group counts come in the order named" {
	g1="task_clock$U+context_switches$U"
	g2="context_switches$U+task_clock$U"
	run "$H/leafio" "$(leaf all "$g1" self simple 0)" spin=200 read
	set -- ${lines[0]}
	# 200 ms of task clock is > 10^7 ns; context switches in 200 ms are not
	assert_ge "$1" 10000000 "first of $g1"
	assert_le "$2" 10000 "second of $g1"
	run "$H/leafio" "$(leaf all "$g2" self simple 0)" spin=200 read
	set -- ${lines[0]}
	assert_le "$1" 10000 "first of $g2"
	assert_ge "$2" 10000000 "second of $g2"
}

@test "a group of 8 reads 8 counts" {
	t=task_clock$U
	run "$H/leafio" "$(leaf all "$t+$t+$t+$t+$t+$t+$t+$t" self simple 0)" spin=20 read
	[ "$status" -eq 0 ]
	set -- ${lines[0]}
	assert_eq "$#" 8 "members in '${lines[0]}'"
}

@test "group times: counts then one enabled and running pair, enabled >= running > 0" {
	run "$H/leafio" "$(leaf all "task_clock$U+page_faults$U" self times 0)" spin=50 read
	set -- ${lines[0]}
	assert_eq "$#" 4 "fields in '${lines[0]}'"
	assert_ge "$4" 1 "running"
	assert_ge "$3" "$4" "enabled vs running"
}

@test "members of a group count over the same interval" {
	# the same event twice in one group: both members are scheduled
	# together, so they read (nearly) the same; two separate counters
	# opened one after the other would not
	t=task_clock$U
	run "$H/leafio" "$(leaf all "$t+$t" self simple 0)" spin=200 read
	set -- ${lines[0]}
	assert_ge "$1" 10000000 "first member"
	d=$(( $1 > $2 ? $1 - $2 : $2 - $1 ))
	assert_le "$d" "$(( $1 / 20 + 1000000 ))" "difference of two identical members"
}

@test "a group with period N blocks on its leader and reads all members" {
	"$H/spin" 5 >/dev/null 3>&- &
	run timeout 15 "$H/leafio" "$(leaf all "task_clock$U+page_faults$U" $! simple 20000000)" read read
	[ "$status" -eq 0 ]
	set -- ${lines[0]}; a=$1
	set -- ${lines[1]}; b=$1
	assert_ge "$a" 20000000 "leader in the first line"
	assert_ge "$((b - a))" 20000000 "leader growth to the second line"
}

@test "a group the PMU cannot take fails at open with perf's errno" {
	cands=()
	hw=$(events_of all | grep -xE "$(echo "$HW_EVENTS" | tr ' ' '|')" | head -n 1) || true
	if [ -n "$hw" ]; then
		cands+=("$hw$U+$hw$U+$hw$U+$hw$U+$hw$U+$hw$U+$hw$U+$hw$U")
	fi
	for a in $(events_of all | grep -F . | head -n 3); do
		[ -n "$hw" ] && cands+=("$hw$U+$a$U" "$a$U+$hw$U")
		cands+=("$a$U+$a$U")
	done
	for g in "${cands[@]}"; do
		spec=
		for m in ${g//+/ }; do
			# a member this caller cannot name alone (msr.tsc:u, where
			# the msr PMU takes no modifiers) is not a group question
			[ "$(lookup "$M/all/$m")" = dir ] || continue 2
			s=$(perf_spec "$m") || die "no encoding for $m"
			spec+=${spec:++}$s
		done
		perf=$("$H/perfopen" "$spec")
		[[ $perf == ok* ]] && continue
		run "$H/leafio" "$(leaf all "$g" self simple 0)" read
		assert_eq "${lines[0]}" "open $perf" "open of impossible group $g ($spec)"
		return 0
	done
	skip "no group here that perf refuses (${#cands[@]} candidates from the listed events)"
}

@test "080-groups: no counter left held" {
	assert_no_leak
}
