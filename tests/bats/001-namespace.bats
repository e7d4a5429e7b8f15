#!/usr/bin/env bats
#
# The namespace: what each level lists, and that every listed name looks
# up, stats and (for events) opens.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
}

# CPUs the kernel says are online, one a line, from the sysfs range list.
sysfs_online_cpus() {
	tr ',' '\n' < /sys/devices/system/cpu/online | while IFS=- read -r a b; do
		seq "$a" "${b:-$a}"
	done
}

@test "root lists exactly every online CPU and all" {
	[ -r /sys/devices/system/cpu/online ] || skip "no /sys/devices/system/cpu/online"
	expected=$( (sysfs_online_cpus; echo all) | sort)
	actual=$(names_of "$M" | sort)
	assert_eq "$actual" "$expected" "root listing"
}

@test "cpu dir lists the software events the kernel always has" {
	for e in cpu_clock task_clock page_faults context_switches; do
		events_of all | grep -qxF "$e" || die "all/ does not list $e"
	done
}

@test "every online CPU lists the same software events as all" {
	for c in $(online_cpus); do
		for e in task_clock cpu_clock page_faults; do
			events_of "$c" | grep -qxF "$e" || die "$c/ does not list $e"
		done
	done
}

@test "cycles is listed exactly when perf_event_open can count it" {
	perf=$("$H/perfopen" 0:0:u)
	if [[ $perf == ok* ]]; then
		events_of all | grep -qxF cycles || die "perf counts cycles but all/ does not list it"
		assert_eq "$(lookup "$M/all/cycles")" dir "lookup of cycles"
	else
		! events_of all | grep -qxF cycles || die "cycles listed but perf says $perf"
		assert_eq "$(lookup "$M/all/cycles")" ENOENT "lookup of cycles without a PMU"
	fi
}

@test "no generic hardware event is listed that perf cannot open" {
	# type 0 configs in perf's order: the contract's generic names
	i=0
	for e in $HW_EVENTS; do
		if events_of all | grep -qxF "$e"; then
			perf=$("$H/perfopen" "0:$i:u")
			[[ $perf == ok* ]] || die "$e is listed but perf_event_open says $perf"
		fi
		i=$((i + 1))
	done
}

@test "every event listed in all/ looks up, stats as a dir and opens as perf would" {
	n=0
	for e in $(events_of all); do
		assert_eq "$(lookup "$M/all/$e")" dir "lookup of all/$e" || return 1
		line=$(read0 "$(leaf all "$e" self simple 0)") || true
		if ! is_count "$line"; then
			# listed implies opens, for whoever perf lets open it
			spec=$(perf_spec "$e") || die "no encoding for $e"
			perf=$("$H/perfopen" "$spec")
			[[ $perf != ok* ]] || die "all/$e/self/simple/0 read '$line', perf_event_open says $perf"
			assert_eq "$line" "open $perf" "open of all/$e vs perf ($spec)" || return 1
		fi
		n=$((n + 1))
	done
	assert_ge "$n" 4 "number of listed events"
}

@test "msr.tsc, when listed, counts and grows" {
	require_event msr.tsc
	perf=$("$H/perfopen" "$(perf_spec msr.tsc)")
	if [[ $perf != ok* ]]; then
		run "$H/leafio" "$(leaf all msr.tsc self simple 0)" read
		assert_eq "${lines[0]}" "open $perf" "msr.tsc refused to $(id -un) as perf refuses it"
		return 0
	fi
	run "$H/leafio" "$(leaf all msr.tsc self simple 0)" pread=0 sleep=50 pread=0
	[ "$status" -eq 0 ]
	is_count "${lines[0]}" && is_count "${lines[1]}"
	[ "${lines[1]}" -gt "${lines[0]}" ] || die "tsc did not grow: ${lines[*]}"
}

@test "pid level lists self, all, pid 1 and this shell" {
	names=$(names_of "$M/all/task_clock")
	for p in self all 1 $$; do
		echo "$names" | grep -qxF "$p" || die "pid level does not list $p"
	done
}

@test "pid level lists processes, not their other threads" {
	# spin lives until killed (bounded at 120 s): a slow guest must not
	# see it exit before the listing, nor kill a process already gone
	"$H/spin" -T 2 120 > "$BATS_TEST_TMPDIR/tids" 3>&- &
	pid=$!
	wait_until "[ \$(wc -l < $BATS_TEST_TMPDIR/tids) -ge 2 ]" || die "spin never started"
	tid=$(grep -vx "$pid" "$BATS_TEST_TMPDIR/tids" | head -n 1)
	names=$(names_of "$M/all/task_clock")
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	echo "$names" | grep -qxF "$pid" || die "process $pid not listed"
	! echo "$names" | grep -qxF "$tid" || die "thread $tid listed"
}

@test "type level lists exactly simple, times and irq" {
	assert_eq "$(names_of "$M/all/task_clock/self" | sort | tr '\n' ' ')" "irq simple times " "type listing"
}

@test "period level lists 0 and only names that look up" {
	names=$(names_of "$M/all/task_clock/self/simple")
	echo "$names" | grep -qxF 0 || die "simple/ does not list 0"
	for p in $names; do
		assert_eq "$(lookup "$M/all/task_clock/self/simple/$p")" file "simple/$p"
	done
}

@test "readdir inode numbers match stat at every level" {
	for d in "$M" "$M/all" "$M/all/task_clock" "$M/all/task_clock/self" \
		 "$M/all/task_clock/self/simple" "$M/0/page_faults/self/times"; do
		"$H/fsop" readdir "$d" > "$BATS_TEST_TMPDIR/ents" || die "readdir $d failed"
		[ -s "$BATS_TEST_TMPDIR/ents" ] || die "$d lists nothing"
		# pid listings change under us: check the names that are not pids
		# and the first few pids
		while read -r ino name; do
			st=$("$H/fsop" stat "$d/$name") || true
			case $st in
			ENOENT) [[ $name =~ ^[0-9]+$ ]] && [ "$d" = "$M/all/task_clock" ] && continue ;;
			esac
			assert_match "$st" "^(dir|file) ino=$ino " "stat of $d/$name vs readdir ino $ino" || return 1
		done < <(head -n 40 "$BATS_TEST_TMPDIR/ents")
	done
}

@test "a name stats to the same inode twice" {
	for p in "$M/all" "$M/all/task_clock" "$M/all/task_clock/self/simple/0"; do
		a=$("$H/fsop" stat "$p")
		b=$("$H/fsop" stat "$p")
		assert_eq "$b" "$a" "second stat of $p"
	done
}

@test "levels are directories 0555 and leaves regular files 0666 owned by root by default" {
	[ -z "${PERFCTR_MNT_OPTS:-}" ] || skip "mounted with options: $PERFCTR_MNT_OPTS"
	for d in "$M" "$M/all" "$M/all/task_clock" "$M/all/task_clock/self" "$M/all/task_clock/self/times"; do
		assert_match "$("$H/fsop" stat "$d")" "^dir ino=[0-9]+ mode=0555 uid=0 gid=0 " "$d"
	done
	assert_match "$("$H/fsop" stat "$M/all/task_clock/self/times/0")" "^file ino=[0-9]+ mode=0666 uid=0 gid=0 " leaf
}

@test "different paths have different inode numbers" {
	a=$("$H/fsop" stat "$M/all/task_clock/self/simple/0" | cut -d' ' -f2)
	b=$("$H/fsop" stat "$M/all/page_faults/self/simple/0" | cut -d' ' -f2)
	c=$("$H/fsop" stat "$M/all/task_clock/self/times/0" | cut -d' ' -f2)
	[ "$a" != "$b" ] && [ "$a" != "$c" ] && [ "$b" != "$c" ] ||
		die "inode numbers collide: $a $b $c"
}

@test "001-namespace: no counter left held" {
	assert_no_leak
}
