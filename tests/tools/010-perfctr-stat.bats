#!/usr/bin/env bats
# perfctr-stat against counts of the same run read straight from the mount.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	tools_setup
}

@test "perfctr-stat: page-faults of a command that touches 3000 pages is at least 3000" {
	require_event page_faults
	run --separate-stderr "$T/perfctr-stat" -x, -e page-faults -- "$PY" -c "$TOUCH" 3000
	[ "$status" -eq 0 ]
	pf=$(csv_value "$stderr" page-faults)
	check '[ "$pf" -ge 3000 ] && [ "$pf" -lt 100000 ]' "page_faults=$pf"
}

@test "perfctr-stat: task-clock of sleep 0.2 is small, of a 0.3 s spin at least 250 ms" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-stat" -x, -e task-clock -- sleep 0.2
	[ "$status" -eq 0 ]
	idle=$(csv_value "$stderr" task-clock)
	check 'awk -v v="$idle" "BEGIN { exit !(v > 0 && v < 100) }"' "sleep: $idle msec"
	run --separate-stderr "$T/perfctr-stat" -x, -e task-clock -- "$PY" -c "$SPIN" 0.3
	[ "$status" -eq 0 ]
	busy=$(csv_value "$stderr" task-clock)
	check 'awk -v v="$busy" "BEGIN { exit !(v >= 250 && v < 1000) }"' "spin: $busy msec"
}

@test "perfctr-stat: counts every process the command creates (inheritance)" {
	require_event task_clock
	# Two spinning grandchildren of sh: 2 x 0.3 s of CPU whatever the cores.
	run --separate-stderr "$T/perfctr-stat" -x, -e task-clock -- \
		sh -c '"$0" -c "$1" 0.3 & "$0" -c "$1" 0.3; wait' "$PY" "$SPIN"
	[ "$status" -eq 0 ]
	v=$(csv_value "$stderr" task-clock)
	check 'awk -v v="$v" "BEGIN { exit !(v >= 500) }"' "task_clock=$v msec"
}

@test "perfctr-stat: the default table is perf stat's, on stderr, <not supported> where an event is missing" {
	run --separate-stderr "$T/perfctr-stat" -- "$PY" -c "$SPIN" 0.1
	[ "$status" -eq 0 ]
	echo "$stderr"
	[ -z "$output" ]
	[[ $stderr == *"Performance counter stats for '$PY -c "* ]]
	for ep in task-clock:task_clock context-switches:context_switches \
		  cpu-migrations:cpu_migrations page-faults:page_faults cycles:cycles \
		  instructions:instructions branches:branch_instructions \
		  branch-misses:branch_misses; do
		e=${ep%%:*} p=${ep#*:}
		line=$(grep -E "^ +(<not supported>|[0-9][0-9,.]*) +(msec +)?$e( |$)" <<<"$stderr")
		if [ -d "$M/all/$p" ]; then
			check '[[ $line =~ ^\ +[0-9][0-9,.]*\  ]]' "$e: $line"
		else
			check '[[ $line =~ ^\ +\<not\ supported\>\ +$e\ +$ ]]' "$e: $line"
		fi
	done
	grep -Eq '^ +[0-9][0-9,]*\.[0-9]{2} msec task-clock +# +[0-9.]+ CPUs utilized +$' <<<"$stderr"
	grep -Eq '^ +[0-9]+\.[0-9]{9} seconds time elapsed$' <<<"$stderr"
	grep -Eq '^ +[0-9]+\.[0-9]{9} seconds user$' <<<"$stderr"
}

@test "perfctr-stat: thousands separators where the locale has them, none with --no-big-num" {
	require_event page_faults
	loc=$(locale -a 2>/dev/null | grep -m1 -Ei '^en_US\.utf-?8$') ||
		skip "no en_US.UTF-8 locale here (locale-gen): C has no thousands separator"
	run --separate-stderr env LC_ALL="$loc" "$T/perfctr-stat" -e page-faults -- "$PY" -c "$TOUCH" 3000
	[ "$status" -eq 0 ]
	grep -Eq '^ +[0-9]{1,3}(,[0-9]{3})+ +page-faults' <<<"$stderr"
	run --separate-stderr env LC_ALL="$loc" "$T/perfctr-stat" --no-big-num -e page-faults -- "$PY" -c "$TOUCH" 3000
	grep -Eq '^ +[0-9]{4,} +page-faults' <<<"$stderr"
}

@test "perfctr-stat: the C locale prints counts without separators, as perf" {
	require_event page_faults
	run --separate-stderr env LC_ALL=C "$T/perfctr-stat" -e page-faults -- "$PY" -c "$TOUCH" 3000
	[ "$status" -eq 0 ]
	grep -Eq '^ +[0-9]{4,} +page-faults' <<<"$stderr"
}

@test "perfctr-stat -p: agrees with a times leaf opened on the same pid" {
	require_event task_clock
	require_cmd "$TOP/tests/helpers/bin/spin"
	# A gated spin: it burns only once both counters exist, however long
	# the tool takes to start on a loaded machine.
	"$TOP/tests/helpers/bin/spin" -g 1.0 >"$BATS_TEST_TMPDIR/gate" &
	pid=$!
	for i in $(seq 100); do grep -q gated "$BATS_TEST_TMPDIR/gate" && break; sleep 0.1; done
	exec {fd}<"$M/all/task_clock/$pid/times/0"
	# Without our descriptor: the tool's own leaf shows it is counting.
	"$T/perfctr-stat" -x, -e task-clock -p "$pid" 2>"$BATS_TEST_TMPDIR/stat" {fd}<&- &
	tpid=$!
	for i in $(seq 300); do
		ls -l "/proc/$tpid/fd" 2>/dev/null | grep -qF "$M/" && break
		sleep 0.1
	done
	kill -USR1 "$pid"
	wait "$pid"
	rc=0
	wait "$tpid" || rc=$?
	read -r direct en runn < <(dd bs=4096 count=1 status=none <&"$fd")
	exec {fd}<&-
	[ "$rc" -eq 0 ]
	tool=$(csv_value "$(cat "$BATS_TEST_TMPDIR/stat")" task-clock)
	# The tool opened its leaf after ours, both before the burn, and both
	# ran to the exit.
	check 'awk -v t="$tool" -v d="$direct" "BEGIN { exit !(d > 0 && t <= d / 1e6 + 1 && t >= 0.9 * d / 1e6) }"' \
		"tool $tool msec, direct $direct ns"
	check '[ "$en" -gt 0 ] && [ "$runn" -eq "$en" ]' "enabled $en running $runn"
}

@test "perfctr-stat -a: cpu-clock is every CPU for the whole time, no more than a wider leaf" {
	require_event cpu_clock
	ncpu=$(mount_cpus | wc -l)
	exec {fd}<"$M/all/cpu_clock/all/simple/0"
	run --separate-stderr "$T/perfctr-stat" -x, -a -e cpu-clock -- sleep 0.5
	read -r direct < <(dd bs=4096 count=1 status=none <&"$fd")
	exec {fd}<&-
	[ "$status" -eq 0 ]
	tool=$(csv_value "$stderr" cpu-clock)
	check 'awk -v t="$tool" -v d="$direct" -v n="$ncpu" "BEGIN { exit !(t >= 0.9 * n * 500 && t <= d / 1e6) }"' \
		"tool $tool msec, direct $direct ns, $ncpu CPUs"
}

@test "perfctr-stat -C 0: one CPU's cpu-clock over a 0.5 s command" {
	require_event cpu_clock
	run --separate-stderr "$T/perfctr-stat" -x, -C 0 -e cpu-clock -- sleep 0.5
	[ "$status" -eq 0 ]
	tool=$(csv_value "$stderr" cpu-clock)
	check 'awk -v t="$tool" "BEGIN { exit !(t >= 450 && t <= 1500) }"' "tool $tool msec"
}

@test "perfctr-stat -I: one line per interval, increasing times, the intervals add up" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-stat" -x, -I 100ms -e task-clock -- "$PY" -c "$SPIN" 1.5
	[ "$status" -eq 0 ]
	echo "$stderr"
	n=$(grep -c ',task-clock,' <<<"$stderr")
	check '[ "$n" -ge 4 ]' "$n interval lines"
	awk -F, '$4 == "task-clock" { if ($1 + 0 <= last + 0) exit 1; last = $1; sum += $2 }
		END { exit !(sum >= 1300) }' <<<"$stderr"
}

@test "perfctr-stat -I: the text form has perf's time column" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-stat" -I 200 -e task-clock -- sleep 0.5
	[ "$status" -eq 0 ]
	grep -q '^#           time             counts unit events$' <<<"$stderr"
	grep -Eq '^ +0\.[0-9]{9} +([0-9.]+|<not counted>) msec task-clock' <<<"$stderr"
}

@test "perfctr-stat -x: CSV with perf's seven fields and a running time from the times leaf" {
	require_event task_clock context_switches
	run --separate-stderr "$T/perfctr-stat" -x';' -e task-clock,cs -- sleep 0.1
	[ "$status" -eq 0 ]
	echo "$stderr"
	[ "${#stderr_lines[@]}" -eq 2 ]
	awk -F';' 'NF != 7 { exit 1 }
		$3 == "task-clock" && ($2 != "msec" || $4 <= 0 || $5 != "100.00" || $7 != "CPUs utilized") { exit 1 }
		$3 == "cs" && ($1 !~ /^[0-9]+$/ || $2 != "" || $7 !~ /\/sec$/) { exit 1 }' <<<"$stderr"
}

@test "perfctr-stat: a {group} is counted as one and printed one member a line" {
	require_event task_clock page_faults
	[ -d "$M/all/task_clock+page_faults" ] || skip "this backend has no groups yet"
	run --separate-stderr "$T/perfctr-stat" -x, -e '{task-clock,page-faults}' -- "$PY" -c "$TOUCH" 1000
	[ "$status" -eq 0 ]
	pf=$(csv_value "$stderr" page-faults)
	tc=$(csv_value "$stderr" task-clock)
	[ "$pf" -ge 1000 ]
	awk -v v="$tc" 'BEGIN { exit !(v > 0) }'
	# One group, one time: both members carry the same running time.
	[ "$(awk -F, '{ print $4 }' <<<"$stderr" | sort -u | wc -l)" -eq 1 ]
}

@test "perfctr-stat: the command's exit status and standard input pass through" {
	run "$T/perfctr-stat" -e task-clock -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	run --separate-stderr bash -c 'echo through-stdin | "$0" -e task-clock -- cat' "$T/perfctr-stat"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = through-stdin ]
}

@test "perfctr-stat -a: SIGINT ends counting and still prints the counts" {
	require_event cpu_clock
	out=$BATS_TEST_TMPDIR/out
	with_sigint "$T/perfctr-stat" -x, -a -e cpu-clock >"$out" 2>&1 &
	pid=$!
	# Counting has begun when the tool holds a leaf open.
	for i in $(seq 300); do
		ls -l "/proc/$pid/fd" 2>/dev/null | grep -qF "$M/" && break
		sleep 0.1
	done
	sleep 0.5
	kill -INT "$pid"
	rc=0
	timeout 10 tail --pid="$pid" -f /dev/null || { kill -KILL "$pid"; rc=124; }
	wait "$pid" || rc=$?
	cat "$out"
	[ "$rc" -eq 0 ]
	v=$(awk -F, '$3 == "cpu-clock" { print $1 }' "$out")
	awk -v v="$v" 'BEGIN { exit !(v >= 400) }'
}

@test "perfctr-stat: an event that does not parse is one line on stderr and exit 2" {
	for e in no_such_event '{cs,faults' 'cpu/event=0x3c' 'cs:G' 'L1-dcache-foo' ''; do
		run --separate-stderr "$T/perfctr-stat" -e "$e" -- true
		check '[ "$status" -eq 2 ] && [ "${#stderr_lines[@]}" -eq 1 ] && [ -z "$output" ]' \
			"'$e': status $status, $stderr"
	done
	run --separate-stderr "$T/perfctr-stat" -e no_such_event -- true
	[[ $stderr == *"event syntax error: 'no_such_event'"* ]]
	run --separate-stderr "$T/perfctr-stat" -e cs:G -- true
	[[ $stderr == *"only the modifiers u, k, h and I"* ]]
}

@test "perfctr-stat: an event the machine cannot count is <not supported>, as perf prints it" {
	[ -d "$M/all/cycles" ] && skip "this machine counts cycles"
	run --separate-stderr "$T/perfctr-stat" -x, -e cycles,r1c2,L1-dcache-load-misses,cs -- true
	[ "$status" -eq 0 ]
	echo "$stderr"
	grep -qx '<not supported>,,cycles,0,100.00,,' <<<"$stderr"
	grep -qx '<not supported>,,r1c2,0,100.00,,' <<<"$stderr"
	grep -qx '<not supported>,,L1-dcache-load-misses,0,100.00,,' <<<"$stderr"
	grep -Eq '^[0-9]+,,cs,[0-9]+,100.00,,$' <<<"$stderr"
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
	run --separate-stderr "$T/perfctr-stat" -p "$dead" -e task-clock
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
		"$T/perfctr-stat" -x, -e task-clock -- "$PY" -c "$SPIN" 0.1
	rm -rf "$tmpd"
	[ "$status" -eq 0 ]
	v=$(csv_value "$stderr" task-clock:u)
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
	run --separate-stderr bash -c 'exec 0<&-; "$0" -x, -e task-clock -- true 2>&1' "$T/perfctr-stat"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ $output == *,msec,task-clock,* ]]
}

@test "perfctr-stat: user and sys are the command's own (wait4), not the tool's" {
	require_event task_clock
	# The tool itself runs getopt, awk, mktemp...: none of that may count.
	run --separate-stderr "$T/perfctr-stat" -e task-clock -- sleep 0.3
	[ "$status" -eq 0 ]
	u=$(awk '$2 == "seconds" && $3 == "user" { print $1 }' <<<"$stderr")
	s=$(awk '$2 == "seconds" && $3 == "sys" { print $1 }' <<<"$stderr")
	check 'awk -v u="$u" -v s="$s" "BEGIN { exit !(u + s < 0.05) }"' "sleep: user $u sys $s"
	run --separate-stderr "$T/perfctr-stat" -e task-clock -- "$PY" -c "$SPIN" 0.4
	u=$(awk '$2 == "seconds" && $3 == "user" { print $1 }' <<<"$stderr")
	s=$(awk '$2 == "seconds" && $3 == "sys" { print $1 }' <<<"$stderr")
	check 'awk -v u="$u" -v s="$s" "BEGIN { exit !(u + s >= 0.35 && u + s < 2) }"' "spin: user $u sys $s"
}

@test "perfctr-stat -o FILE and --append: the counts go to the file, after perf's '# started on' line" {
	require_event context_switches
	f=$BATS_TEST_TMPDIR/stats
	run --separate-stderr "$T/perfctr-stat" -x, -o "$f" -e cs -- echo hello
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
	[ -z "$stderr" ]
	grep -Eq '^# started on [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$' "$f"
	[ "$(sed -n 2p "$f")" = "" ]
	grep -Eq '^[0-9]+,,cs,' "$f"
	run --separate-stderr "$T/perfctr-stat" -x, -o "$f" --append -e cs -- true
	[ "$(grep -c '^# started on' "$f")" -eq 2 ]
	[ "$(grep -c ',,cs,' "$f")" -eq 2 ]
	run --separate-stderr "$T/perfctr-stat" --append -e cs -- true
	[ "$status" -eq 2 ]
	run --separate-stderr "$T/perfctr-stat" -o "$BATS_TEST_TMPDIR/no/dir" -e cs -- true
	[ "$status" -eq 1 ]
}

@test "perfctr-stat -r 3: means, ( +- x.xx% ), '(3 runs)' and the elapsed mean +- its deviation" {
	require_event task_clock page_faults
	run --separate-stderr "$T/perfctr-stat" -r 3 -e task-clock,page-faults -- "$PY" -c "$SPIN" 0.05
	[ "$status" -eq 0 ]
	echo "$stderr"
	grep -q "' (3 runs):$" <<<"$stderr"
	grep -Eq '^ +[0-9.]+ msec task-clock +# +[0-9.]+ CPUs utilized +\( \+- +[0-9]+\.[0-9]{2}% \)$' <<<"$stderr"
	grep -Eq '^ +[0-9.]+ \+- [0-9.]+ seconds time elapsed(  \( \+- +[0-9.]+% \))?$' <<<"$stderr"
	! grep -q 'seconds user' <<<"$stderr"
	run --separate-stderr "$T/perfctr-stat" -x, -r 3 -e page-faults -- "$PY" -c "$TOUCH" 1000
	# perf's field order with -r: the variance after the event name.
	awk -F, 'NF != 8 || $3 != "page-faults" || $4 !~ /^[0-9]+\.[0-9][0-9]%$/ || $1 < 1000 { exit 1 }' <<<"$stderr"
	run --separate-stderr "$T/perfctr-stat" -r 0 -- true
	[ "$status" -eq 2 ]
}

@test "perfctr-stat -j: one JSON object a line, perf 6.1's keys in perf's order" {
	require_event task_clock page_faults
	run --separate-stderr "$T/perfctr-stat" -j -e task-clock,page-faults,cycles -- "$PY" -c "$TOUCH" 100
	[ "$status" -eq 0 ]
	echo "$stderr"
	"$PY" -c '
import json, sys
rows = [json.loads(l, object_pairs_hook=list) for l in sys.stdin.read().splitlines()]
keys = [[k for k, v in r] for r in rows]
std = ["counter-value", "unit", "event", "event-runtime", "pcnt-running", "metric-value", "metric-unit"]
assert all(k == std for k in keys), keys
r = [dict(x) for x in rows]
assert r[0]["event"] == "task-clock" and r[0]["unit"] == "msec" and r[0]["metric-unit"] == "CPUs utilized"
assert float(r[1]["counter-value"]) >= 100 and r[1]["metric-unit"].endswith("/sec")
assert r[2]["event"] == "cycles"
assert r[2]["counter-value"] in ("<not supported>",) or float(r[2]["counter-value"]) > 0
' <<<"$stderr"
}

@test "perfctr-stat -a -A, --per-core, --per-socket: one row per CPU, core or socket from sysfs topology" {
	require_event cpu_clock
	ncpu=$(mount_cpus | wc -l)
	run --separate-stderr "$T/perfctr-stat" -x, -a -A -e cpu-clock -- sleep 0.3
	[ "$status" -eq 0 ]
	echo "$stderr"
	[ "$(grep -c ',cpu-clock,' <<<"$stderr")" -eq "$ncpu" ]
	for c in $(mount_cpus); do
		v=$(awk -F, -v c="CPU$c" '$1 == c && $4 == "cpu-clock" { print $2 }' <<<"$stderr")
		check 'awk -v v="$v" "BEGIN { exit !(v >= 250 && v < 3000) }"' "CPU$c: $v msec"
	done
	run --separate-stderr "$T/perfctr-stat" -x, -a --per-socket -e cpu-clock -- sleep 0.1
	nsock=$(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id | sort -u | wc -l)
	[ "$(grep -c ',cpu-clock,' <<<"$stderr")" -eq "$nsock" ]
	awk -F, -v n="$ncpu" '{ sum += $2 } END { exit sum != n }' <<<"$stderr"
	grep -Eq '^S[0-9]+,[0-9]+,' <<<"$stderr"
	run --separate-stderr "$T/perfctr-stat" -x, -a --per-core -e cpu-clock -- sleep 0.1
	grep -Eq '^S[0-9]+-D[0-9]+-C[0-9]+,[0-9]+,[0-9.]+,msec,cpu-clock,' <<<"$stderr"
	run --separate-stderr "$T/perfctr-stat" -A -e cpu-clock -- true
	[ "$status" -eq 2 ]
}

@test "perfctr-stat -t TID counts one thread, -p PID the whole process" {
	require_event task_clock
	require_cmd "$TOP/tests/helpers/bin/spin"
	out=$BATS_TEST_TMPDIR/tids
	# Two threads burn: the process (both) against one that is not the
	# main thread, counted over the same second by two tools at once.
	"$TOP/tests/helpers/bin/spin" -T 2 60 >"$out" &
	pid=$!
	for i in $(seq 50); do [ "$(wc -l <"$out")" -ge 2 ] && break; sleep 0.1; done
	tid=$(grep -vx "$pid" "$out" | head -n1)
	[ -n "$tid" ] && [ "$tid" != "$pid" ]
	"$T/perfctr-stat" -x, -e task-clock -t "$tid" -- sleep 2 2>"$BATS_TEST_TMPDIR/one" &
	one_pid=$!
	"$T/perfctr-stat" -x, -e task-clock -p "$pid" -- sleep 2 2>"$BATS_TEST_TMPDIR/all"
	wait "$one_pid"
	kill "$pid" 2>/dev/null
	wait "$pid" || true
	one=$(csv_value "$(cat "$BATS_TEST_TMPDIR/one")" task-clock)
	all=$(csv_value "$(cat "$BATS_TEST_TMPDIR/all")" task-clock)
	check 'awk -v a="$all" -v o="$one" "BEGIN { exit !(o > 0 && a > 1.3 * o) }"' "thread $one, process $all msec"
}

@test "perfctr-stat -I: intervals at fixed deadlines, the last partial one printed, CPUs utilized right" {
	require_event cpu_clock
	ncpu=$(mount_cpus | wc -l)
	run --separate-stderr "$T/perfctr-stat" -x, -I 200 -a -e cpu-clock -- sleep 1.1
	[ "$status" -eq 0 ]
	echo "$stderr"
	# Deadlines at 0.2, 0.4, ...: the k-th line is never before k * 0.2 s,
	# and the command's end (1.1 s) adds one partial interval.
	awk -F, '{ k++; if ($1 < k * 0.2 - 0.01) exit 1 } END { exit !(k >= 4 && $1 >= 1.1) }' <<<"$stderr"
	# Every CPU runs cpu-clock all the time: n CPUs utilized each interval.
	awk -F, -v n="$ncpu" '$7 < 0.75 * n || $7 > 1.25 * n { exit 1 }' <<<"$stderr"
	run --separate-stderr "$T/perfctr-stat" -x, -I 100 --interval-count 2 -a -e cpu-clock -- sleep 1
	[ "$(grep -c ',cpu-clock,' <<<"$stderr")" -eq 2 ]
	run --separate-stderr "$T/perfctr-stat" --interval-count 2 -a -e cpu-clock -- true
	[ "$status" -eq 2 ]
}

@test "perfctr-stat -v: each leaf's raw count, enabled and running time" {
	require_event context_switches
	run --separate-stderr "$T/perfctr-stat" -v -x, -e cs -- true
	[ "$status" -eq 0 ]
	grep -Eq '^cs: cpu all: [0-9]+ [0-9]+ [0-9]+$' <<<"$stderr"
}

@test "perfctr-stat: PMU terms, rNNNN, modifiers and groups map onto the path grammar" {
	require_event msr.tsc task_clock
	run --separate-stderr "$T/perfctr-stat" -x, -e 'msr/tsc/,{task-clock,cs}:u,faults:k' -- true
	[ "$status" -eq 0 ]
	echo "$stderr"
	grep -Eq '^[0-9]+,,msr/tsc/,' <<<"$stderr"
	grep -Eq '^[0-9.]+,msec,task-clock,' <<<"$stderr"
	grep -Eq '^[0-9]+,,cs,' <<<"$stderr"
	grep -Eq '^[0-9]+,,faults:k,' <<<"$stderr"
}

@test "perfctr-stat -G: perf's cgroup column; a cgroup's count, and <not counted> for an empty one" {
	require_root
	require_event cpu_clock
	cg=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$cg" ] || skip "no cgroup2 mount on this machine"
	grep -qw '^perf_event' /proc/cgroups || skip "kernel without CONFIG_CGROUP_PERF"
	base=perfctr-tools.$$
	mkdir "$cg/$base" "$cg/$base/busy" "$cg/$base/idle" || skip "cannot create a cgroup under $cg"
	# the command puts itself in busy, then burns 0.3 s of CPU there
	run --separate-stderr "$T/perfctr-stat" -x, -e cpu-clock,cpu-clock \
		-G "$base/busy,$base/idle" -- \
		sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" -c "$3" 0.3' sh "$cg/$base/busy" "$PY" "$SPIN"
	rmdir "$cg/$base/busy" "$cg/$base/idle" "$cg/$base"
	[ "$status" -eq 0 ]
	busy=$(echo "$stderr" | awk -F, -v c="$base/busy" '$3 == "cpu-clock" && $4 == c { print $1 }')
	idle=$(echo "$stderr" | awk -F, -v c="$base/idle" '$3 == "cpu-clock" && $4 == c { print $1 }')
	check 'awk -v t="$busy" "BEGIN { exit !(t >= 250) }"' "busy cgroup $busy msec: $stderr"
	check '[ "$idle" = "<not counted>" ] || [ "$idle" = 0.00 ]' "idle cgroup '$idle': $stderr"
	run "$T/perfctr-stat" -G "$base/none" -e cpu-clock -- true
	[ "$status" -eq 1 ]
	[[ $output == *"cannot find cgroup $base/none"* ]]
}

@test "perfctr-stat --for-each-cgroup: every event once per cgroup, in perf's order" {
	require_root
	require_event cpu_clock
	cg=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$cg" ] || skip "no cgroup2 mount on this machine"
	grep -qw '^perf_event' /proc/cgroups || skip "kernel without CONFIG_CGROUP_PERF"
	base=perfctr-tools-each.$$
	mkdir "$cg/$base" "$cg/$base/a" "$cg/$base/b" || skip "cannot create a cgroup under $cg"
	run --separate-stderr "$T/perfctr-stat" -x, -e cpu-clock,context-switches \
		--for-each-cgroup "$base/a,$base/b" -- \
		sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" -c "$3" 0.2' sh "$cg/$base/a" "$PY" "$SPIN"
	rmdir "$cg/$base/a" "$cg/$base/b" "$cg/$base"
	[ "$status" -eq 0 ]
	got=$(echo "$stderr" | awk -F, 'NF > 4 { print $3 "@" $4 }' | tr '\n' ' ')
	check '[ "$got" = "cpu-clock@$base/a context-switches@$base/a cpu-clock@$base/b context-switches@$base/b " ]' "rows: $got"
	a=$(echo "$stderr" | awk -F, -v c="$base/a" '$3 == "cpu-clock" && $4 == c { print $1 }')
	check 'awk -v t="$a" "BEGIN { exit !(t >= 150) }"' "cgroup a: $a msec"
	run "$T/perfctr-stat" -G x --for-each-cgroup y true
	[ "$status" -eq 2 ]
}
