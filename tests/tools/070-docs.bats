#!/usr/bin/env bats
# Documentation/filesystems/perfctrfs.rst builds clean, and the examples
# in Documentation/perfctrfs/examples run against the mount.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	tools_setup
}

@test "perfctrfs.rst: docutils builds it with no warning" {
	require_cmd rst2html
	run --separate-stderr rst2html --report=2 --halt=2 \
		"$TOP/Documentation/filesystems/perfctrfs.rst"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ $output == *"perfctrfs - perf counters as files"* ]]
}

@test "perfctrfs.rst: every event name it lists is one the grammar knows" {
	# The software events it names all exist on every machine.
	for e in cpu_clock task_clock page_faults context_switches cpu_migrations \
		 minor_faults major_faults alignment_faults emulation_faults; do
		grep -q "\`\`$e\`\`" "$TOP/Documentation/filesystems/perfctrfs.rst"
		[ -d "$M/all/$e" ]
	done
}

@test "perfctrfs.rst: the captured leaf lines have the shape the mount gives now" {
	# simple: one number; times: three; a group of three: five.
	run cat "$M/all/task_clock/self/simple/0"
	[[ $output =~ ^[0-9]+$ ]]
	run cat "$M/all/task_clock/self/times/0"
	[[ $output =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]
	[ -d "$M/all/task_clock+page_faults+context_switches" ] || skip "no groups on this backend"
	run cat "$M/all/task_clock+page_faults+context_switches/self/times/0"
	[[ $output =~ ^[0-9]+(\ [0-9]+){4}$ ]]
}

@test "examples/count.sh: counts a command's pages and time" {
	run --separate-stderr "$EX/count.sh" "$PY" -c "$TOUCH" 2000
	[ "$status" -eq 0 ]
	read -r t p <<<"$output"
	check '[ "$p" -ge 2000 ] && [ "$t" -gt 0 ]' "task_clock $t page_faults $p"
}

@test "examples/rate.awk: rates from a time-period leaf" {
	require_event cpu_clock
	# cpu_clock, system wide: every CPU for each 200ms interval.
	ncpu=$(mount_cpus | wc -l)
	run --separate-stderr bash -c 'timeout 10 head -n 3 "$1" | awk -v interval=0.2 -f "$2"' \
		_ "$M/all/cpu_clock/all/simple/200ms" "$EX/rate.awk"
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 3 ]
	awk -v n="$ncpu" '{ if ($1 != NR || $3 < 0.8 * n * 1e9 || $3 > 1.3 * n * 1e9) exit 1 }' <<<"$output"
}

@test "examples/group.py: a group's fresh lines grow together; poll waits for N events" {
	[ -d "$M/all/task_clock+page_faults" ] || skip "no groups on this backend"
	run --separate-stderr "$PY" "$EX/group.py" 1000
	[ "$status" -eq 0 ]
	echo "$output"
	awk 'NR <= 3 {
		if (NF != 4 || $3 != $4 || $2 < NR * 1000 || $1 <= lt || $2 <= lp) exit 1
		lt = $1; lp = $2 }' <<<"$output"
	[ "${lines[3]}" = "ready before touching: False" ]
	[[ ${lines[4]} =~ ^poll\ [0-9]+$ ]]
	[ "${lines[4]#poll }" -ge 1000 ]
}
