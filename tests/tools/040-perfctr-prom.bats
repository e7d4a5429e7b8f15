#!/usr/bin/env bats
# perfctr-prom: a valid exposition (promtool), replaced atomically, with
# per-CPU and system-wide counters that agree.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	tools_setup
	require_event context_switches cpu_clock
}

@test "perfctr-prom: promtool accepts the file, one series per CPU and a system-wide one" {
	require_cmd promtool
	out=$BATS_TEST_TMPDIR/perfctr.prom
	run --separate-stderr "$T/perfctr-prom" -n 1 -i 300ms -o "$out" -e context-switches,cpu-clock
	[ "$status" -eq 0 ]
	cat "$out"
	promtool check metrics <"$out"
	ncpu=$(mount_cpus | wc -l)
	[ "$(grep -c '^perfctr_context_switches_total{cpu="[0-9]*"} [0-9]*$' "$out")" -eq "$ncpu" ]
	grep -q '^# TYPE perfctr_context_switches_total counter$' "$out"
	grep -q '^# HELP perfctr_system_context_switches_total ' "$out"
	grep -Eq '^perfctr_system_context_switches_total [0-9]+$' "$out"
	# cpu_clock in seconds: every CPU for one 0.3 s interval.
	awk -v n="$ncpu" '
		/^perfctr_cpu_clock_seconds_total\{/ { sum += $2 }
		/^perfctr_system_cpu_clock_seconds_total / { sys = $2 }
		END { exit !(sum >= 0.25 * n && sum < 1.5 * n && sys >= 0.25 * n && sys < 1.5 * n) }' "$out"
	[ "$(stat -c %a "$out")" = 644 ]
	# Nothing left beside it.
	[ "$(ls "$BATS_TEST_TMPDIR" | grep -c perfctr)" -eq 1 ]
}

@test "perfctr-prom: counters only grow, and a reader never sees half a file" {
	out=$BATS_TEST_TMPDIR/perfctr.prom
	"$T/perfctr-prom" -n 8 -i 100ms -o "$out" -e cs 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	last=0 reads=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ -e "$out" ]; then
			# Every read is a whole exposition: the system-wide line last.
			v=$(awk '/^perfctr_system_context_switches_total / { v = $2 } END { print v + 0 }' "$out")
			tail -n 1 "$out" | grep -q '^perfctr_system_context_switches_total [0-9]*$'
			[ "$v" -ge "$last" ]
			last=$v reads=$((reads + 1))
		fi
		sleep 0.03
	done
	wait "$pid"
	[ "$reads" -ge 3 ]
	[ "$last" -gt 0 ]
}

@test "perfctr-prom: errors are one line: missing directory, unknown event, bad interval" {
	run --separate-stderr "$T/perfctr-prom" -n 1 -o "$BATS_TEST_TMPDIR/no/dir/x.prom"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$T/perfctr-prom" -n 1 -o - -e no_such_event
	[ "$status" -eq 2 ]
	[[ $stderr == *"event syntax error: 'no_such_event'"* ]]
	# The list is perf's: PMU terms are one event, not split at commas.
	run --separate-stderr "$T/perfctr-prom" -n 1 -o - -e 'nopmu/event=0x3c,umask=0x0/'
	[ "$status" -eq 1 ]
	[[ $stderr == *"'nopmu/event=0x3c,umask=0x0/' not found"* ]]
	run --separate-stderr "$T/perfctr-prom" -i 5x
	[ "$status" -eq 2 ]
}

@test "perfctr-prom --cgroup: one series per cgroup with its label, escaped; promtool accepts it" {
	require_root
	require_cmd promtool
	require_event cpu_clock
	cg=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$cg" ] || skip "no cgroup2 mount on this machine"
	grep -qw '^perf_event' /proc/cgroups || skip "kernel without CONFIG_CGROUP_PERF"
	base=perfctr-prom.$$
	busy=$base/busy odd=$base/'q"b\s'
	mkdir "$cg/$base" "$cg/$busy" "$cg/$odd" || skip "cannot create a cgroup under $cg"
	out=$BATS_TEST_TMPDIR/perfctr.prom
	# a spinner in busy for longer than the interval
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" -c "$3" 3' sh "$cg/$busy" "$PY" "$SPIN" 3>&- &
	spinner=$!
	run --separate-stderr "$T/perfctr-prom" -n 1 -i 1s -o "$out" -e cpu-clock -G "$busy,$odd"
	kill "$spinner" 2>/dev/null
	wait "$spinner" 2>/dev/null || true
	rmdir "$cg/$busy" "$cg/$odd" "$cg/$base"
	[ "$status" -eq 0 ]
	cat "$out"
	promtool check metrics <"$out"
	grep -q '^# TYPE perfctr_cgroup_cpu_clock_seconds_total counter$' "$out"
	v=$(awk -v l="perfctr_cgroup_cpu_clock_seconds_total{cgroup=\"$busy\"}" '$1 == l { print $2 }' "$out")
	check 'awk -v v="$v" "BEGIN { exit !(v > 0.05) }"' "busy cgroup's seconds '$v'"
	grep -qxF "perfctr_cgroup_cpu_clock_seconds_total{cgroup=\"$base/q\\\"b\\\\s\"} 0.000000000" "$out"
	run "$T/perfctr-prom" -n 1 -o - -G "$base/none"
	[ "$status" -eq 1 ]
	[[ $output == *"cannot find cgroup $base/none"* ]]
}
