#!/usr/bin/env bats
# perfctr-list against readdir and getfattr of the same mount.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	tools_setup
	require_cmd getfattr
}

# Every event the CPU directories list, once.
listed() { for c in $(mount_cpus); do ls "$M/$c"; done | sort -u; }

@test "perfctr-list -x: exactly the events the CPU directories list, on the CPUs that list them" {
	run --separate-stderr "$T/perfctr-list" -x'|'
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$(cut -d'|' -f6 <<<"$output" | sort)" = "$(listed)" ]
	ncpu=$(mount_cpus | wc -l)
	while IFS='|' read -r name alias cat cpus enc path desc; do
		n=$(for c in $(mount_cpus); do [ -d "$M/$c/$path" ] && echo "$c"; done | wc -l)
		if [ "$n" -eq "$ncpu" ] && [ "$ncpu" -gt 1 ]; then
			check '[ "$cpus" = "$(mount_cpus | head -n1)-$(mount_cpus | tail -n1)" ]' "$name on $cpus"
		fi
	done <<<"$output"
}

@test "perfctr-list -x,: fields holding the separator are quoted, and every field is the xattr's" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-list" -x,
	[ "$status" -eq 0 ]
	grep -q '^task-clock,,Software event,[0-9,-]*,"type=1,config=0x1",task_clock,' <<<"$output"
	"$PY" -c '
import csv, os, subprocess, sys
m = sys.argv[1]
rows = list(csv.reader(sys.stdin))
assert rows and all(len(r) == 7 for r in rows), rows
def xattr(d, n):
    try:
        return os.getxattr(d, "user.perfctr." + n).decode()
    except OSError:
        return ""
for name, alias, cat, cpus, enc, path, desc in rows:
    first = cpus.split(",")[0].split("-")[0]
    d = os.path.join(m, first, path)
    assert enc == xattr(d, "encoding"), (name, enc)
    assert desc == xattr(d, "description").replace("\n", " "), (name, desc)
' "$M" <<<"$output"
}

@test "perfctr-list: perf list's lines: names, aliases with OR, perf's categories, no hybrid mark where every CPU has the event" {
	run --separate-stderr "$T/perfctr-list"
	[ "$status" -eq 0 ]
	echo "$output"
	if [ -d "$M/all/task_clock" ]; then
		grep -Eq '^  task-clock {41}\[Software event\]$' <<<"$output"
		grep -Eq '^  context-switches OR cs +\[Software event\]$' <<<"$output"
		grep -Eq '^  page-faults OR faults +\[Software event\]$' <<<"$output"
	fi
	[ -d "$M/all/msr.tsc" ] && grep -Eq '^  msr/tsc/ +\[Kernel PMU event\]$' <<<"$output"
	[ -d "$M/all/cycles" ] && grep -Eq '^  cpu-cycles OR cycles +\[Hardware event\]$' <<<"$output"
	grep -Eq '^  rNNN +\[Raw hardware event descriptor\]$' <<<"$output"
	run --separate-stderr "$T/perfctr-list" -x'|'
	while IFS='|' read -r name alias cat cpus enc path desc; do
		all=1
		for c in $(mount_cpus); do [ -d "$M/$c/$path" ] || all=0; done
		line=$("$T/perfctr-list" | grep -E "^  $name( |$)")
		if [ $all = 1 ]; then
			check '[[ $line != *"only]"* ]]' "$line"
		else
			check '[[ $line == *"only]"* ]]' "$line"
		fi
	done <<<"$output"
}

@test "perfctr-list: perf list's filters (sw, hw, cache, pmu, globs) and -c CPU narrow the list" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-list" -x'|' sw
	[ "$status" -eq 0 ]
	[ "$(cut -d'|' -f3 <<<"$output" | sort -u)" = "Software event" ]
	run --separate-stderr "$T/perfctr-list" -x'|' '*clock'
	[ "$(cut -d'|' -f1 <<<"$output" | sort | tr '\n' ' ')" = "cpu-clock task-clock " ]
	# A glob matches an alias too, as perf list's does.
	run --separate-stderr "$T/perfctr-list" -x'|' cs
	[ "$(cut -d'|' -f1 <<<"$output")" = context-switches ]
	run --separate-stderr "$T/perfctr-list" -x'|' -c all
	[ "$status" -eq 0 ]
	[ "$(cut -d'|' -f6 <<<"$output" | sort)" = "$(ls "$M/all" | sort)" ]
	run --separate-stderr "$T/perfctr-list" no_event_is_called_this
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "perfctr-list --json: an array of objects, one per event, with the encoding" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-list" --json
	[ "$status" -eq 0 ]
	"$PY" -c '
import json, sys
ev = json.load(sys.stdin)
n = {e["EventName"]: e for e in ev}
t = n["task-clock"]
assert t["EventType"] == "Software event" and t["Encoding"] == "type=1,config=0x1", t
assert n["context-switches"]["EventAlias"] == "cs"
assert all(set(e) >= {"EventName", "EventType", "Encoding", "PerfctrfsName", "CPUs"} for e in ev)
assert len(ev) == int(sys.argv[1]), (len(ev), sys.argv[1])
' "$(listed | wc -l)" <<<"$output"
}

@test "perfctr-list --details: the encoding and the path name under each event" {
	require_event task_clock
	run --separate-stderr "$T/perfctr-list" --details task-clock
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${lines[1]}" = "       type=1,config=0x1 (task_clock)" ]
}

@test "perfctr-list: a missing mount, an offline CPU, no getfattr, bad options: one line, exit 1 or 2" {
	run --separate-stderr "$T/perfctr-list" --mount "$BATS_TEST_TMPDIR/none"
	[ "$status" -eq 1 ]
	[[ $stderr == *"no perfctrfs mounted"* ]]
	run --separate-stderr "$T/perfctr-list" -c 100000
	[ "$status" -eq 1 ]
	[[ $stderr == *"CPU 100000 is not online"* ]]
	run --separate-stderr "$T/perfctr-list" -x'"'
	[ "$status" -eq 2 ]
	run --separate-stderr "$T/perfctr-list" -x, -j
	[ "$status" -eq 2 ]
	# A PATH with everything the tool uses but getfattr.
	mkdir "$BATS_TEST_TMPDIR/bin"
	for c in bash awk getopt sed sort cat dirname readlink; do
		ln -s "$(command -v $c)" "$BATS_TEST_TMPDIR/bin/$c"
	done
	run --separate-stderr env PATH="$BATS_TEST_TMPDIR/bin" bash "$T/perfctr-list"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"getfattr not found"* ]]
}
