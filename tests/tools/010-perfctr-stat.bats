#!/usr/bin/env bats
# perfctr-stat against counts of the same run read straight from the mount.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	tools_setup
}

@test "perfctr-stat: page_faults of a command that touches 3000 pages is at least 3000" {
	require_event page_faults
	run --separate-stderr "$T/perfctr-stat" -x, -e page_faults -- "$PY" -c "$TOUCH" 3000
	[ "$status" -eq 0 ]
	pf=$(csv_value "$output" page_faults)
	check '[ "$pf" -ge 3000 ] && [ "$pf" -lt 100000 ]' "page_faults=$pf"
}

@test "perfctr-stat: task_clock of sleep 0.2 is small, of a 0.3 s spin at least 250 ms" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-stat" -x, -e task_clock -- sleep 0.2
	[ "$status" -eq 0 ]
	idle=$(csv_value "$output" task_clock)
	check 'awk -v v="$idle" "BEGIN { exit !(v > 0 && v < 100) }"' "sleep: $idle msec"
	run --separate-stderr "$T/perfctr-stat" -x, -e task_clock -- "$PY" -c "$SPIN" 0.3
	[ "$status" -eq 0 ]
	busy=$(csv_value "$output" task_clock)
	check 'awk -v v="$busy" "BEGIN { exit !(v >= 250 && v < 1000) }"' "spin: $busy msec"
}

@test "perfctr-stat: counts every process the command creates (inheritance)" {
	require_event task_clock
	# Two spinning grandchildren of sh: 2 x 0.3 s of CPU whatever the cores.
	run --separate-stderr "$T/perfctr-stat" -x, -e task_clock -- \
		sh -c '"$0" -c "$1" 0.3 & "$0" -c "$1" 0.3; wait' "$PY" "$SPIN"
	[ "$status" -eq 0 ]
	v=$(csv_value "$output" task_clock)
	check 'awk -v v="$v" "BEGIN { exit !(v >= 500) }"' "task_clock=$v msec"
}

@test "perfctr-stat: the default table is perf stat's, <not supported> where an event is missing" {
	run --separate-stderr "$T/perfctr-stat" -- "$PY" -c "$SPIN" 0.1
	[ "$status" -eq 0 ]
	echo "$output"
	[[ ${lines[0]} == " Performance counter stats for '$PY -c "* ]]
	for e in task_clock context_switches cpu_migrations page_faults cycles \
		 instructions branch_instructions branch_misses; do
		line=$(grep -E "^ +(<not supported>|[0-9][0-9,.]*) +(msec +)?$e( |$)" <<<"$output")
		if [ -d "$M/all/$e" ]; then
			check '[[ $line =~ ^\ +[0-9][0-9,.]*\  ]]' "$e: $line"
		else
			check '[[ $line =~ ^\ +\<not\ supported\>\ +$e$ ]]' "$e: $line"
		fi
	done
	grep -Eq '^ +[0-9][0-9,]*\.[0-9]{2} msec task_clock +# +[0-9.]+ CPUs utilized$' <<<"$output"
	grep -Eq '^ +[0-9]+\.[0-9]{9} seconds time elapsed$' <<<"$output"
	grep -Eq '^ +[0-9]+\.[0-9]{9} seconds user$' <<<"$output"
}

@test "perfctr-stat: thousands separators on counts above 999" {
	require_event page_faults
	run --separate-stderr "$T/perfctr-stat" -e page_faults -- "$PY" -c "$TOUCH" 3000
	[ "$status" -eq 0 ]
	grep -Eq '^ +[0-9]{1,3}(,[0-9]{3})+ +page_faults' <<<"$output"
}

@test "perfctr-stat -p: agrees with a times leaf opened on the same pid" {
	require_event task_clock
	"$PY" -c "$SPIN" 1.0 &
	pid=$!
	exec {fd}<"$M/all/task_clock/$pid/times/0"
	run --separate-stderr "$T/perfctr-stat" -x, -e task_clock -p "$pid"
	read -r direct en runn < <(dd bs=4096 count=1 status=none <&"$fd")
	exec {fd}<&-
	wait "$pid"
	[ "$status" -eq 0 ]
	tool=$(csv_value "$output" task_clock)
	# The tool opened its leaf after ours and both ran to the exit.
	check 'awk -v t="$tool" -v d="$direct" "BEGIN { exit !(t >= 700 && t <= d / 1e6 + 1 && t >= 0.8 * d / 1e6) }"' \
		"tool $tool msec, direct $direct ns"
	check '[ "$en" -gt 0 ] && [ "$runn" -eq "$en" ]' "enabled $en running $runn"
}

@test "perfctr-stat -a: cpu_clock is every CPU for the whole time, no more than a wider leaf" {
	require_event cpu_clock
	ncpu=$(mount_cpus | wc -l)
	exec {fd}<"$M/all/cpu_clock/all/simple/0"
	run --separate-stderr "$T/perfctr-stat" -x, -a -e cpu_clock -- sleep 0.5
	read -r direct < <(dd bs=4096 count=1 status=none <&"$fd")
	exec {fd}<&-
	[ "$status" -eq 0 ]
	tool=$(csv_value "$output" cpu_clock)
	check 'awk -v t="$tool" -v d="$direct" -v n="$ncpu" "BEGIN { exit !(t >= 0.9 * n * 500 && t <= d / 1e6) }"' \
		"tool $tool msec, direct $direct ns, $ncpu CPUs"
}

@test "perfctr-stat -C 0: one CPU's cpu_clock over a 0.5 s command" {
	require_event cpu_clock
	run --separate-stderr "$T/perfctr-stat" -x, -C 0 -e cpu_clock -- sleep 0.5
	[ "$status" -eq 0 ]
	tool=$(csv_value "$output" cpu_clock)
	check 'awk -v t="$tool" "BEGIN { exit !(t >= 450 && t <= 1500) }"' "tool $tool msec"
}

@test "perfctr-stat -I: one line per interval, increasing times, the intervals add up" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-stat" -x, -I 100ms -e task_clock -- "$PY" -c "$SPIN" 0.7
	[ "$status" -eq 0 ]
	echo "$output"
	n=$(grep -c ',task_clock,' <<<"$output")
	check '[ "$n" -ge 4 ]' "$n interval lines"
	awk -F, '$4 == "task_clock" { if ($1 + 0 <= last + 0) exit 1; last = $1; sum += $2 }
		END { exit !(sum >= 550) }' <<<"$output"
}

@test "perfctr-stat -I: the text form has perf's time column" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-stat" -I 200 -e task_clock -- sleep 0.5
	[ "$status" -eq 0 ]
	grep -q '^#           time             counts unit events$' <<<"$output"
	grep -Eq '^ +0\.[0-9]{9} +[0-9.]+ msec task_clock' <<<"$output"
}

@test "perfctr-stat -x: CSV with perf's seven fields and a running time from the times leaf" {
	require_event task_clock context_switches
	run --separate-stderr "$T/perfctr-stat" -x';' -e task_clock,context_switches -- sleep 0.1
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	awk -F';' 'NF != 7 { exit 1 }
		$3 == "task_clock" && ($2 != "msec" || $4 <= 0 || $5 != "100.00") { exit 1 }
		$3 == "context_switches" && ($1 !~ /^[0-9]+$/ || $2 != "") { exit 1 }' <<<"$output"
}

@test "perfctr-stat: a group is counted as one and printed one member a line" {
	require_event task_clock page_faults
	[ -d "$M/all/task_clock+page_faults" ] || skip "this backend has no groups yet"
	run --separate-stderr "$T/perfctr-stat" -x, -e task_clock+page_faults -- "$PY" -c "$TOUCH" 1000
	[ "$status" -eq 0 ]
	pf=$(csv_value "$output" page_faults)
	tc=$(csv_value "$output" task_clock)
	[ "$pf" -ge 1000 ]
	awk -v v="$tc" 'BEGIN { exit !(v > 0) }'
	# One group, one time: both members carry the same running time.
	[ "$(awk -F, '{ print $4 }' <<<"$output" | sort -u | wc -l)" -eq 1 ]
}

@test "perfctr-stat: the command's exit status and standard input pass through" {
	run "$T/perfctr-stat" -e task_clock -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	run --separate-stderr bash -c 'echo through-stdin | "$0" -e task_clock -- cat' "$T/perfctr-stat"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = through-stdin ]
}

@test "perfctr-stat -a: SIGINT ends counting and still prints the counts" {
	require_event cpu_clock
	out=$BATS_TEST_TMPDIR/out
	with_sigint "$T/perfctr-stat" -x, -a -e cpu_clock >"$out" 2>&1 &
	pid=$!
	sleep 0.5
	kill -INT "$pid"
	rc=0
	timeout 10 tail --pid="$pid" -f /dev/null || { kill -KILL "$pid"; rc=124; }
	wait "$pid" || rc=$?
	cat "$out"
	[ "$rc" -eq 0 ]
	v=$(awk -F, '$3 == "cpu_clock" { print $1 }' "$out")
	awk -v v="$v" 'BEGIN { exit !(v >= 400) }'
}

@test "perfctr-stat: an unknown event is one line on stderr and exit 1" {
	run --separate-stderr "$T/perfctr-stat" -e no_such_event -- true
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"'no_such_event' not found"* ]]
	[ -z "$output" ]
}

@test "perfctr-stat: a missing mount is one line on stderr and exit 1" {
	run --separate-stderr "$T/perfctr-stat" --mount "$BATS_TEST_TMPDIR/none" -- true
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"no perfctrfs mounted at $BATS_TEST_TMPDIR/none"* ]]
}

@test "perfctr-stat: a dead pid is one line on stderr and exit 1" {
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	run --separate-stderr "$T/perfctr-stat" -p "$dead" -e task_clock
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"no process $dead"* ]]
}

@test "perfctr-stat: usage errors exit 2, an unknown command 127" {
	run --separate-stderr "$T/perfctr-stat" --no-such-option true
	[ "$status" -eq 2 ]
	run --separate-stderr "$T/perfctr-stat" -I 0 true
	[ "$status" -eq 2 ]
	[[ $stderr == *"bad interval '0'"* ]]
	run --separate-stderr "$T/perfctr-stat" -p 12x
	[ "$status" -eq 2 ]
	run --separate-stderr "$T/perfctr-stat"
	[ "$status" -eq 2 ]
	run -127 --separate-stderr "$T/perfctr-stat" -- /no/such/command
	[ "$status" -eq 127 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "perfctr-stat: where perf_event_paranoid forbids the kernel, a user counts user space, named :u" {
	require_root
	p=$(cat /proc/sys/kernel/perf_event_paranoid)
	[ "$p" -ge 2 ] || skip "perf_event_paranoid is $p: users may count the kernel here"
	require_event task_clock
	tmpd=$(mktemp -d /tmp/perfctr-stat-user.XXXXXX)
	chmod 1777 "$tmpd"
	run --separate-stderr env TMPDIR="$tmpd" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$T/perfctr-stat" -x, -e task_clock -- "$PY" -c "$SPIN" 0.1
	rm -rf "$tmpd"
	[ "$status" -eq 0 ]
	v=$(csv_value "$output" task_clock:u)
	awk -v v="$v" 'BEGIN { exit !(v > 0) }'
}

@test "why perfctr-stat holds the descriptors: /proc/<pid>/fd/N opens a new counter" {
	require_event page_faults
	# The shell opens a pid leaf on itself; its child touches 3000 pages.
	run --separate-stderr bash -c '
		exec 3<"$1/all/page_faults/$$/simple/0"
		"$2" -c "$3" 3000
		echo "$(cat /proc/$$/fd/3) $(dd bs=4096 count=1 status=none <&3)"' \
		_ "$M" "$PY" "$TOUCH"
	[ "$status" -eq 0 ]
	read -r reopened held <<<"$output"
	check '[ "$held" -ge 3000 ] && [ "$reopened" -lt 3000 ]' "reopened $reopened, held $held"
}

@test "perfctr-stat: runs with standard input closed, as CI starts it" {
	run --separate-stderr bash -c 'exec 0<&-; "$0" -x, -e task_clock -- true' "$T/perfctr-stat"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ $output == *,msec,task_clock,* ]]
}
