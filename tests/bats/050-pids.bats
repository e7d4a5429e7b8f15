#!/usr/bin/env bats
#
# The pid level: self is the opener, a pid counts all its threads, a
# thread id counts one thread, all is CPU-wide, counters inherit.

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

@test "self counts the process that opens the leaf" {
	# leafio opens self and burns 300 ms itself: a counter on anything but
	# the opener (the daemon, the shell) would not see it
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" spin=300 pread=0
	[ "$status" -eq 0 ]
	assert_ge "${lines[0]}" 30000000 "task_clock of a self that burned 300 ms"
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" sleep=300 pread=0
	assert_le "${lines[0]}" 100000000 "task_clock of a self that slept 300 ms"
}

@test "self seen by two openers is two separate counters" {
	"$H/leafio" "$(leaf all task_clock$U self simple 0)" spin=400 pread=0 > "$BATS_TEST_TMPDIR/a" 3>&- &
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" sleep=400 pread=0
	wait
	assert_le "${lines[0]}" 100000000 "the sleeping opener's count"
	assert_ge "$(cat "$BATS_TEST_TMPDIR/a")" 30000000 "the spinning opener's count"
}

@test "a pid counts all of its threads, a thread id only that thread" {
	# spin outlives both 1.5 s windows however slow the machine; killed below
	"$H/spin" -T 2 120 > "$BATS_TEST_TMPDIR/tids" 3>&- &
	pid=$!
	wait_until "[ \$(wc -l < $BATS_TEST_TMPDIR/tids) -ge 2 ]" || die "spin never started"
	tid=$(grep -vx "$pid" "$BATS_TEST_TMPDIR/tids" | head -n 1)
	assert_eq "$(lookup "$M/all/task_clock/$tid")" dir "lookup of thread id $tid"
	"$H/leafio" "$(leaf all task_clock$U "$tid" simple 0)" pread=0 ms sleep=1500 pread=0 ms > "$BATS_TEST_TMPDIR/t" 3>&- &
	reader=$!
	run "$H/leafio" "$(leaf all task_clock$U "$pid" simple 0)" pread=0 sleep=1500 pread=0
	wait "$reader" || true
	kill "$pid" 2>/dev/null || true
	mapfile -t t < "$BATS_TEST_TMPDIR/t"
	dp=$((lines[1] - lines[0]))
	# t: count, ms, count, ms between the two reads
	dt=$((t[2] - t[0]))
	wall=${t[3]}
	assert_ge "$dt" 10000000 "thread delta"
	# two equally busy threads: the process sees both, about twice one,
	# however many CPUs there are to share
	assert_ge "$((dp * 10))" "$((dt * 15))" "process delta ($dp) vs 1.5 x thread delta ($dt)"
	# one thread cannot run more than the wall time between the two reads
	# (leafio's, which a loaded machine stretches past the 1.5 s sleep),
	# give or take what separates each read's sample from leafio's clock
	# stamp and the scheduler's clock from CLOCK_MONOTONIC (a TCG guest
	# once ran 2.5 ms over 1,506): 1% and 5 ms, far below a second thread
	assert_le "$dt" $(( (wall + 1) * 1010000 + 5000000 )) "thread delta over the $wall ms between its reads"
}

@test "a process counter inherits children created after the open" {
	# the shell stops itself, we open its counter, it forks a burner
	# the child burns 0.2 s of CPU time, however long a loaded machine
	# takes to give it that
	sh -c "kill -STOP \$\$; $H/spin -c 0.2; true" >/dev/null 3>&- &
	pid=$!
	wait_until "grep -q '^State:.*T' /proc/$pid/status" || die "shell never stopped"
	run timeout $((60 * SLOW)) "$H/leafio" "$(leaf all task_clock$U "$pid" simple 0)" sh="kill -CONT $pid" waitexit="$pid" read
	[ "$status" -eq 0 ]
	# the shell itself burns next to nothing: the count is the child's
	assert_ge "${lines[0]}" 190000000 "task_clock of shell + child that burned 0.2 s of CPU"
}

@test "cpu all with pid all is the sum over CPUs, at least any single CPU" {
	perf=$("$H/perfopen" -p -1 -C 0 "1:0$U")
	if [[ $perf != ok* ]]; then
		# perf refuses CPU-wide counting to this caller: so must we
		run "$H/leafio" "$(leaf all cpu_clock$U all simple 0)" read
		assert_eq "${lines[0]}" "open $perf" "open of all/cpu_clock/all as $(id -un)"
		return 0
	fi
	n=$(online_cpus | wc -l)
	"$H/leafio" "$(leaf 0 cpu_clock$U all simple 0)" sleep=300 pread=0 > "$BATS_TEST_TMPDIR/c0" 3>&- &
	run "$H/leafio" "$(leaf all cpu_clock$U all simple 0)" sleep=300 sh="sleep 0.2" pread=0
	wait
	c0=$(cat "$BATS_TEST_TMPDIR/c0")
	is_count "$c0" || die "cpu 0: $c0"
	assert_ge "${lines[0]}" "$c0" "system-wide cpu_clock vs cpu 0"
	# cpu_clock of a CPU runs with wall time: about n CPUs x 0.5 s
	assert_ge "${lines[0]}" $((n * 300000000)) "system-wide cpu_clock over >= 0.5 s on $n CPUs"
}

@test "per-CPU counters of one process add up to its any-CPU counter" {
	# a stopped shell that becomes a 1 s spinner once every counter is
	# open: the final counts then cover exactly the same run
	sh -c "kill -STOP \$\$; exec $H/spin 1" >/dev/null 3>&- &
	pid=$!
	wait_until "grep -q '^State:.*T' /proc/$pid/status" || die "shell never stopped"
	before=$(counters_held)
	n=0
	readers=()
	for c in $(online_cpus) all; do
		timeout 30 "$H/leafio" "$(leaf "$c" task_clock$U "$pid" simple 0)" waitexit="$pid" read \
			> "$BATS_TEST_TMPDIR/cpu.$c" 3>&- &
		readers+=($!)
		n=$((n + 1))
	done
	wait_until "[ \$(counters_held) -ge $((before + n)) ]" 100 || die "the readers never opened"
	kill -CONT "$pid"
	wait "${readers[@]}"
	all=$(cat "$BATS_TEST_TMPDIR/cpu.all")
	assert_ge "$all" 10000000 "any-CPU task_clock of a 1 s spinner"
	sum=0
	for c in $(online_cpus); do
		v=$(cat "$BATS_TEST_TMPDIR/cpu.$c")
		is_count "$v" || die "cpu $c: $v"
		sum=$((sum + v))
	done
	# the same run, counted two ways: equal within 2 %
	assert_ge "$((sum * 100))" "$((all * 98))" "sum over CPUs ($sum) vs all ($all)"
	assert_le "$((sum * 100))" "$((all * 102))" "sum over CPUs ($sum) vs all ($all)"
}

@test "a counter on an exited process reads its final count, then EOF" {
	# the target lives until the leaf is open (a short-lived one may be
	# gone before the open in a slow guest), burns 300 ms, then is killed
	"$H/spin" $((120 * SLOW)) >/dev/null 3>&- &
	pid=$!
	run timeout 40 "$H/leafio" "$(leaf all task_clock$U "$pid" simple 0)" sleep=300 sh="kill $pid" waitexit="$pid" read read
	[ "$status" -eq 0 ]
	assert_ge "${lines[0]}" 1000000 "final count"
	assert_eq "${lines[1]}" EOF "after the final count"
}

@test "a process of more threads than an open keeps on its stack gets one counter per thread" {
	# spin outlives the check however slow the machine; killed below
	"$H/spin" -T 6 120 > "$BATS_TEST_TMPDIR/tids" 3>&- &
	pid=$!
	wait_until "[ \$(wc -l < $BATS_TEST_TMPDIR/tids) -ge 6 ]" || die "spin never started"
	before=$(counters_held)
	is_count "$before" || die "user.perfctr.counters: $before"
	# the open makes one counter per thread before it returns: count them
	# once the first read is out, then let the reader go on
	go=$BATS_TEST_TMPDIR/go
	"$H/leafio" "$(leaf all task_clock$U "$pid" simple 0)" pread=0 \
		sh="until [ -e $go ]; do sleep 0.05; done" sleep=3000 pread=0 > "$BATS_TEST_TMPDIR/p" 3>&- &
	reader=$!
	wait_until "[ -s $BATS_TEST_TMPDIR/p ]" 300 || die "the open of the 6-thread process did not return"
	held=$(counters_held)
	: > "$go"
	wait "$reader" || die "leafio on the 6-thread process failed"
	kill "$pid" 2>/dev/null || true
	assert_eq "$((held - before))" 6 "counters held for a 6-thread process"
	mapfile -t p < "$BATS_TEST_TMPDIR/p"
	is_count "${p[1]}" || die "second read: ${p[1]}"
	assert_ge "$((p[1] - p[0]))" 10000000 "6 spinning threads over 3 s"
}

@test "050-pids: no counter left held" {
	assert_no_leak
}
