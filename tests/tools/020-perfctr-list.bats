#!/usr/bin/env bats
# perfctr-list against readdir and getfattr of the same mount.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	tools_setup
	require_cmd getfattr
}

@test "perfctr-list -x: exactly the events the CPU directories list, on the CPUs that list them" {
	run --separate-stderr "$T/perfctr-list" -x'|'
	[ "$status" -eq 0 ]
	want=$(for c in $(mount_cpus); do ls "$M/$c"; done | sort -u)
	got=$(cut -d'|' -f1 <<<"$output" | sort)
	[ "$want" = "$got" ]
	ncpu=$(mount_cpus | wc -l)
	while IFS='|' read -r e cpus enc desc; do
		n=$(for c in $(mount_cpus); do [ -d "$M/$c/$e" ] && echo "$c"; done | wc -l)
		if [ "$n" -eq "$ncpu" ]; then
			check '[ "$cpus" = "$(mount_cpus | head -n1)-$(mount_cpus | tail -n1)" ] || [ "$ncpu" -eq 1 ]' "$e on $cpus"
		fi
	done <<<"$output"
}

@test "perfctr-list: each encoding and description is the event directory's xattr" {
	run --separate-stderr "$T/perfctr-list" -x'|'
	[ "$status" -eq 0 ]
	first=$(mount_cpus | head -n1)
	while IFS='|' read -r e cpus enc desc; do
		want=$(getfattr --only-values -n user.perfctr.encoding "$M/${cpus%%[-,]*}/$e" 2>/dev/null) || want=
		check '[ "$enc" = "$want" ]' "$e: '$enc' vs '$want'"
		want=$(getfattr --only-values -n user.perfctr.description "$M/${cpus%%[-,]*}/$e" 2>/dev/null) || want=
		check '[ "$desc" = "$want" ]' "$e: '$desc' vs '$want'"
	done <<<"$output"
	grep -q '^task_clock|[^|]*|type=1,config=0x1|' <<<"$output"
}

@test "perfctr-list: the table shows encodings, and no hybrid mark where every CPU has the event" {
	run --separate-stderr "$T/perfctr-list"
	[ "$status" -eq 0 ]
	grep -Eq '^  task_clock +\[type=1,config=0x1\]$' <<<"$output"
	for e in $(ls "$M/$(mount_cpus | head -n1)"); do
		all=1
		for c in $(mount_cpus); do [ -d "$M/$c/$e" ] || all=0; done
		line=$(grep -E "^  $e " <<<"$output")
		if [ $all = 1 ]; then
			check '[[ $line != *"only]"* ]]' "$line"
		else
			check '[[ $line == *"only]"* ]]' "$line"
		fi
	done
}

@test "perfctr-list PATTERN and -c CPU narrow the list" {
	run --separate-stderr "$T/perfctr-list" -x'|' clock
	[ "$status" -eq 0 ]
	[ "$(cut -d'|' -f1 <<<"$output" | sort)" = "$(ls "$M/all" | grep clock | sort)" ]
	run --separate-stderr "$T/perfctr-list" -x'|' -c all
	[ "$status" -eq 0 ]
	[ "$(cut -d'|' -f1 <<<"$output" | sort)" = "$(ls "$M/all" | sort)" ]
	run --separate-stderr "$T/perfctr-list" no_event_is_called_this
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "perfctr-list: a missing mount, an offline CPU, no getfattr: one line, exit 1" {
	run --separate-stderr "$T/perfctr-list" --mount "$BATS_TEST_TMPDIR/none"
	[ "$status" -eq 1 ]
	[[ $stderr == *"no perfctrfs mounted"* ]]
	run --separate-stderr "$T/perfctr-list" -c 100000
	[ "$status" -eq 1 ]
	[[ $stderr == *"CPU 100000 is not online"* ]]
	# A PATH with everything the tool uses but getfattr.
	mkdir "$BATS_TEST_TMPDIR/bin"
	for c in bash awk getopt sed sort cat; do
		ln -s "$(command -v $c)" "$BATS_TEST_TMPDIR/bin/$c"
	done
	run --separate-stderr env PATH="$BATS_TEST_TMPDIR/bin" bash "$T/perfctr-list"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"getfattr not found"* ]]
}
