#!/usr/bin/env bats
# perfctr-top: bounded runs, the table's shape, rates that add up.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	tools_setup
	require_event cpu_clock context_switches
}

@test "perfctr-top -n 2: two frames, a line per CPU and the total, rates that add up, perf's names" {
	ncpu=$(mount_cpus | wc -l)
	start=$EPOCHREALTIME
	run --separate-stderr "$T/perfctr-top" -n 2 -d 300ms -e cpu-clock,context-switches
	end=$EPOCHREALTIME
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$(grep -c '^perfctr-top .* every 300ms' <<<"$output")" -eq 2 ]
	grep -Eq '^CPU +cpu-clock +context-swit~$' <<<"$output"
	grep -q 'refresh 2/2' <<<"$output"
	# Two frames of the leaves' intervals, not much more.
	awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s >= 0.55 && e - s < 10) }'
	for c in $(mount_cpus); do
		[ "$(grep -c "^$c " <<<"$output")" -eq 2 ]
	done
	# A CPU-wide cpu_clock runs all the time: about 100% of each CPU,
	# and the total is the sum of the CPUs.
	awk -v n="$ncpu" '
		$1 ~ /^[0-9]+$/ { if ($2 < 50 || $2 > 150) exit 1; sum += $2 }
		$1 == "all" { if ($2 < sum - 0.2 * n || $2 > sum + 0.2 * n) exit 1; sum = 0; frames++ }
		END { exit frames != 2 }' <<<"$output"
}

@test "perfctr-top: fits a narrow terminal and says what it left out" {
	COLUMNS=40 run --separate-stderr "$T/perfctr-top" -n 1 -d 100ms \
		-e cpu-clock,cs,cpu-clock,cs
	[ "$status" -eq 0 ]
	echo "$output"
	awk 'length($0) > 40 { exit 1 }' <<<"$output"
	grep -q 'more events: widen the terminal' <<<"$output"
}

@test "perfctr-top: usage errors and events that do not parse exit 2, an event not here 1" {
	run --separate-stderr "$T/perfctr-top" -n x
	[ "$status" -eq 2 ]
	run --separate-stderr "$T/perfctr-top" -d 0
	[ "$status" -eq 2 ]
	run --separate-stderr "$T/perfctr-top" -n 1 -e no_such_event
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$T/perfctr-top" -n 1 -e '{cs,faults}'
	[ "$status" -eq 2 ]
	[[ $stderr == *"groups are not shown"* ]]
	[ -d "$M/0/cycles" ] && skip "this machine counts cycles"
	run --separate-stderr "$T/perfctr-top" -n 1 -e cs,cycles
	[ "$status" -eq 1 ]
	[[ $stderr == *"'cycles' is not countable"* ]]
}

@test "perfctr-top -G: a row per cgroup, a busy one's share of a CPU, an idle one's 0, no total" {
	require_root
	require_event cpu_clock
	cg=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$cg" ] || skip "no cgroup2 mount on this machine"
	grep -qw '^perf_event' /proc/cgroups || skip "kernel without CONFIG_CGROUP_PERF"
	base=perfctr-top.$$
	mkdir "$cg/$base" "$cg/$base/busy" "$cg/$base/idle" || skip "cannot create a cgroup under $cg"
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" -c "$3" 30' sh "$cg/$base/busy" "$PY" "$SPIN" 3>&- &
	spinner=$!
	run --separate-stderr "$T/perfctr-top" -n 2 -d 500ms -e cpu-clock -G "$base/busy,$base/idle"
	kill "$spinner" 2>/dev/null
	wait "$spinner" 2>/dev/null || true
	rmdir "$cg/$base/busy" "$cg/$base/idle" "$cg/$base"
	[ "$status" -eq 0 ]
	echo "$output"
	grep -Eq '^CGROUP +cpu-clock$' <<<"$output"
	grep -q ' 2 cgroups ' <<<"$output"
	! grep -q '^all ' <<<"$output"
	# per wall second: a spinner on a loaded machine gets part of a CPU,
	# never more than one; nobody runs in idle
	awk -v b="$base/busy" -v i="$base/idle" '
		$1 == b { if ($2 <= 1 || $2 > 105) exit 1; nb++ }
		$1 == i { if ($2 != "0.0") exit 1; ni++ }
		END { exit !(nb == 2 && ni == 2) }' <<<"$output"
}
