#!/usr/bin/env bats
#
# Nothing a caller does can stall another caller, leak a counter or bring
# the backend down: many blocked readers, killed readers, open/close
# storms, and exits under a reader.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
	# the target outlives any test (teardown kills it): 500 opens in a
	# TCG guest beside two kernel builds took over five minutes once
	sleep $((3600 * SLOW)) >/dev/null 3>&- &
	sleeper=$!
}

teardown() {
	kill_bg_jobs
}

@test "100 blocked period-N readers do not delay a period-0 reader" {
	before=$(counters_held)
	pids=() lf=$(leaf all task_clock$U "$sleeper" simple 1000000000000)
	for i in $(seq 1 100); do
		timeout $((60 * SLOW)) "$H/leafio" "$lf" read \
			>/dev/null 2>&1 3>&- &
		pids+=($!)
	done
	wait_until "[ \$(counters_held) -ge $((before + 100)) ]" 200 ||
		die "only $(( $(counters_held) - before )) of 100 readers hold a counter"
	# blocked readers hold no worker: a period-0 read is still answered
	# (liveness; its latency beside a storm is make bench's "9" row)
	run timeout $((30 * SLOW)) "$H/leafio" "$(leaf all task_clock$U self simple 0)" read
	[ "$status" -eq 0 ] || die "period-0 read beside 100 blocked readers: exit $status (124: no answer)"
	is_count "${lines[0]}" || die "period-0 read: ${lines[0]}"
	# and a fresh open too
	run timeout $((30 * SLOW)) "$H/leafio" "$(leaf all page_faults$U self times 0)" read
	[ "$status" -eq 0 ] || die "another period-0 read: exit $status (124: no answer)"
	set -- ${lines[0]}
	is_count "$1" || die "another period-0 read: ${lines[0]}"
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null || true
	wait_until "[ \$(counters_held) -le $before ]" 100 ||
		die "counters held after killing the readers: $(counters_held), before: $before"
}

@test "a reader killed in a blocking read frees its counter" {
	before=$(counters_held)
	"$H/leafio" "$(leaf all task_clock$U "$sleeper" simple 1000000000000)" read >/dev/null 3>&- &
	reader=$!
	wait_until "[ \$(counters_held) -eq $((before + 1)) ]" 100 || die "the reader holds no counter"
	sleep 0.2
	kill -KILL "$reader"
	wait "$reader" 2>/dev/null || true
	wait_until "[ \$(counters_held) -eq $before ]" 100 ||
		die "counters held after SIGKILL: $(counters_held), before: $before"
}

@test "a reader killed in a blocking irq read frees its counter" {
	before=$(counters_held)
	"$H/leafio" "$(leaf all task_clock:u "$sleeper" irq 1000000000)" read >/dev/null 3>&- &
	reader=$!
	wait_until "[ \$(counters_held) -eq $((before + 1)) ]" 100 || die "the reader holds no counter"
	kill -KILL "$reader"
	wait "$reader" 2>/dev/null || true
	wait_until "[ \$(counters_held) -eq $before ]" 100 ||
		die "counters held after SIGKILL: $(counters_held), before: $before"
}

@test "500 opens and closes leave no counter behind" {
	before=$(counters_held)
	for i in $(seq 1 100); do
		for t in simple/0 times/0 simple/1000 times/100ms irq/1000000; do
			out=$("$H/fsop" open "$M/all/task_clock:u/$sleeper/$t") ||
				die "open $t failed at round $i: $out (target $(kill -0 "$sleeper" 2>/dev/null && echo alive || echo gone))"
		done
	done
	wait_until "[ \$(counters_held) -eq $before ]" 100 ||
		die "counters held after 500 opens: $(counters_held), before: $before"
}

@test "a group whose open fails leaves no member behind" {
	before=$(counters_held)
	# the last member is fine by name, but nobody may count pid 1's kernel
	# side as this user, or (as root) the group still opens: both must
	# leave the count where it was once closed
	"$H/fsop" open "$M/all/task_clock$U+page_faults$U+context_switches/1/simple/0" >/dev/null || true
	wait_until "[ \$(counters_held) -eq $before ]" 100 ||
		die "counters held: $(counters_held), before: $before"
}

@test "many readers of one target exiting at once all get EOF" {
	# the target spins until every reader holds its counter (a timed one
	# could exit before the last open in a slow guest), then is killed
	before=$(counters_held)
	"$H/spin" $((120 * SLOW)) >/dev/null 3>&- &
	target=$!
	pids=() lf=$(leaf all task_clock$U "$target" simple 1000000000000)
	for i in $(seq 1 20); do
		timeout $((60 * SLOW)) "$H/leafio" "$lf" readall \
			> "$BATS_TEST_TMPDIR/r.$i" 2>&1 3>&- &
		pids+=($!)
	done
	wait_until "[ \$(counters_held) -ge $((before + 20)) ]" 300 ||
		die "only $(( $(counters_held) - before )) of 20 readers hold a counter"
	kill "$target"
	for p in "${pids[@]}"; do
		wait "$p" || die "a reader exited $? (124: still blocked after the target died)"
	done
	for i in $(seq 1 20); do
		assert_eq "$(tail -n 1 "$BATS_TEST_TMPDIR/r.$i")" EOF "reader $i's last read" || return 1
	done
}

@test "garbage, huge and repeated writes leave the backend serving" {
	big=$(printf 'x%.0s' $(seq 1 4096))
	for w in "$big" "$big$big$big$big" $'\x01\x02' "enable" "enable"; do
		timeout 10 "$H/leafio" -w "$(leaf all task_clock$U self simple 0)" "write=$w" >/dev/null || true
	done
	is_count "$(read0 "$(leaf all task_clock$U self simple 0)")"
}

@test "a counter on a process that exits while nobody reads still ends in EOF" {
	# the target lives until the leaf is open, then is killed while the
	# opener sleeps; only after it is gone does anyone read
	"$H/spin" $((120 * SLOW)) >/dev/null 3>&- &
	t=$!
	run timeout $((40 * SLOW)) "$H/leafio" "$(leaf all task_clock$U "$t" simple 1000000000000)" sleep=200 sh="kill $t" waitexit="$t" readall
	[ "$status" -eq 0 ]
	assert_eq "${lines[-1]}" EOF "after the target exited"
}

@test "the daemon holds no more perf fds than its counters" {
	require_fuse
	[ -n "${PERFCTR_DAEMON_PID:-}" ] || skip "PERFCTR_DAEMON_PID not set"
	ls "/proc/$PERFCTR_DAEMON_PID/fd" >/dev/null 2>&1 || skip "the daemon's fds are not readable here (needs root)"
	wait_until "[ \$(daemon_perf_fds) -eq \$(counters_held) ]" 50 || true
	assert_eq "$(daemon_perf_fds)" "$(counters_held)" "daemon perf fds vs user.perfctr.counters"
}

@test "120-robustness: no counter left held" {
	kill_bg_jobs
	assert_no_leak
}
