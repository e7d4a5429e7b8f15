#!/usr/bin/env bats
#
# Who may do what: exactly perf_event_open(2)'s rules for the process that
# opens the leaf, with perf's errno, checked as two unprivileged users
# against what perf_event_open itself answers them; and the mount's
# uid/gid/mode on top.  Needs root (to switch users and set the sysctl).

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
	require_root
	set -- $PERFCTR_USERS
	U1=$1 U2=$2
	ensure_user "$U1" && ensure_user "$U2" || skip "cannot create users $U1 and $U2"
	as_user "$U1" "$H/fsop" stat "$H/leafio" >/dev/null || skip "helpers in $H are not reachable by $U1"
	[ -w "$PARANOID" ] || skip "no writable $PARANOID"
	extra=
}

teardown() {
	restore_paranoid
	[ -n "$extra" ] && umount_extra "$extra"
	kill_bg_jobs
}

# What opening a leaf gives USER: "ok" or the errno name.
open_as() {
	local out
	out=$(as_user "$1" "$H/leafio" "$2" read 2>&1) || true
	if is_count "$out" || [[ $out =~ ^(0|[1-9][0-9]*)( (0|[1-9][0-9]*))*$ ]]; then
		echo ok
	else
		echo "${out#open }"
	fi
}

# What perf_event_open gives USER for perfopen's ARGS: "ok" or the errno.
perf_as() {
	local u=$1 out
	shift
	out=$(as_user "$u" "$H/perfopen" "$@" 2>&1) || true
	echo "${out%% *}"
}

# Start a process of USER that spins until teardown kills it (bounded at
# 300 s: the paranoid matrix runs ~90 su-launched opens, minutes in a slow
# guest, and a target that died meanwhile turns every answer into ESRCH);
# its pid in $upid.
start_as() {
	as_user_argv "$1"
	"${AS_USER[@]}" "$H/spin" $((300 * SLOW)) >/dev/null 2>&1 3>&- &
	upid=$!
	wait_until "[ \$(stat -c %u /proc/$upid 2>/dev/null) = \$(id -u $1) ]" 100 ||
		die "$1's spinner $upid never started"
}

# same_as_perf USER "CPU EVENT PID" PERFOPEN-ARGS...: append a mismatch to $bad.
same_as_perf() {
	local u=$1 p=$2 f l
	shift 2
	set -f
	set -- $p "$@"
	set +f
	l=$(open_as "$u" "$(leaf "$1" "$2" "$3" simple 0)")
	shift 3
	f=$(perf_as "$u" "$@")
	[ "$l" = "$f" ] || bad+=" [paranoid $(cat "$PARANOID") $u $p: perfctrfs $l, perf $f]"
	echo "# paranoid $(cat "$PARANOID") $u $p: perfctrfs $l, perf $f" >> "$BATS_TEST_TMPDIR/log"
}

@test "a lookup never needs privilege" {
	set_paranoid 2
	run as_user "$U1" "$H/fsop" stat "$M/all/task_clock/1/simple/0"
	assert_match "$output" '^file ' "lookup of pid 1's leaf as $U1"
	run as_user "$U1" "$H/fsop" readdir "$M/all/task_clock"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q ' self$' || die "readdir as $U1: $output"
}

@test "a user counts its own process" {
	set_paranoid 2
	start_as "$U1"
	run as_user "$U1" "$H/leafio" "$(leaf all task_clock:u "$upid" simple 0)" sleep=200 read
	is_count "${lines[0]}" || die "$U1 counting its own $upid: ${lines[0]}"
	assert_ge "${lines[0]}" 1000000 "task_clock:u of a spinner over 200 ms"
}

@test "a user cannot count another user's process: perf's errno" {
	set_paranoid 2
	start_as "$U2"
	l=$(open_as "$U1" "$(leaf all task_clock:u "$upid" simple 0)")
	f=$(perf_as "$U1" -p "$upid" 1:1:u)
	[ "$f" != ok ] || die "perf lets $U1 count $U2's process: nothing to compare"
	assert_eq "$l" "$f" "$U1 opening $U2's process"
}

@test "a user cannot count pid 1: perf's errno" {
	set_paranoid 2
	l=$(open_as "$U1" "$(leaf all task_clock:u 1 simple 0)")
	f=$(perf_as "$U1" -p 1 1:1:u)
	[ "$f" != ok ] || die "perf lets $U1 count pid 1: nothing to compare"
	assert_eq "$l" "$f" "$U1 opening pid 1"
}

@test "a user cannot count CPU-wide while perf_event_paranoid > 0: perf's errno" {
	for lvl in 1 2; do
		set_paranoid "$lvl"
		for c in all 0; do
			l=$(open_as "$U1" "$(leaf "$c" cpu_clock:u all simple 0)")
			f=$(perf_as "$U1" -p -1 -C 0 1:0:u)
			[ "$f" != ok ] || die "perf lets $U1 count CPU-wide at $lvl"
			assert_eq "$l" "$f" "$U1 opening $c/cpu_clock:u/all at paranoid $lvl" || return 1
		done
	done
}

@test "at perf_event_paranoid 2 counting the kernel needs :u" {
	set_paranoid 2
	l=$(open_as "$U1" "$(leaf all task_clock self simple 0)")
	f=$(perf_as "$U1" 1:1)
	[ "$f" != ok ] || die "perf lets $U1 count the kernel at paranoid 2"
	assert_eq "$l" "$f" "task_clock without :u"
	assert_eq "$(open_as "$U1" "$(leaf all task_clock:u self simple 0)")" ok "task_clock:u"
}

@test "at every paranoid level, opening gives what perf_event_open gives the same user" {
	start_as "$U1"; own=$upid
	start_as "$U2"; other=$upid
	bad=
	for lvl in -1 0 1 2; do
		set_paranoid "$lvl"
		same_as_perf "$U1" "all task_clock self" 1:1
		same_as_perf "$U1" "all task_clock:u self" 1:1:u
		same_as_perf "$U1" "all task_clock $own" -p "$own" 1:1
		same_as_perf "$U1" "all task_clock:u $own" -p "$own" 1:1:u
		same_as_perf "$U1" "0 task_clock:u $own" -p "$own" -C 0 1:1:u
		same_as_perf "$U1" "all task_clock:u $other" -p "$other" 1:1:u
		same_as_perf "$U1" "all page_faults:u 1" -p 1 1:2:u
		same_as_perf "$U1" "0 cpu_clock all" -p -1 -C 0 1:0
		same_as_perf "$U1" "0 cpu_clock:u all" -p -1 -C 0 1:0:u
		same_as_perf "$U1" "all cpu_clock:u all" -p -1 -C 0 1:0:u
		same_as_perf "$U2" "all task_clock:u $other" -p "$other" 1:1:u
	done
	[ -z "$bad" ] || die "perfctrfs and perf disagree:$bad"
}

@test "root may count anything a user may not" {
	set_paranoid 2
	start_as "$U2"
	for p in "all task_clock $upid" "all task_clock 1" "0 cpu_clock all" "all cpu_clock all"; do
		set -- $p
		run "$H/leafio" "$(leaf "$1" "$2" "$3" simple 0)" read
		is_count "${lines[0]}" || die "root opening $p: ${lines[0]}"
	done
}

@test "mount options uid, gid and mode show in stat" {
	extra=$(extra_dir)
	uid=$(id -u "$U1") gid=$(id -g "$U1")
	mount_extra "$extra" "uid=$uid,gid=$gid,mode=0660"
	for d in "$extra" "$extra/all" "$extra/all/task_clock" "$extra/all/task_clock/self/simple"; do
		st=$("$H/fsop" stat "$d")
		assert_match "$st" "^dir .* uid=$uid gid=$gid " "owner of $d" || return 1
		mode=$(echo "$st" | sed 's/.* mode=\(0[0-7]*\) .*/\1/')
		# other users get nothing; owner and group may search
		(( (mode & 07) == 0 && (mode & 0500) == 0500 )) ||
			die "mode of $d: $mode for mode=0660"
	done
	assert_match "$("$H/fsop" stat "$extra/all/task_clock/self/simple/0")" \
		"^file ino=[0-9]+ mode=0660 uid=$uid gid=$gid " "the leaf"
}

@test "a user outside the mount's group is refused at open even where perf allows" {
	set_paranoid -1
	extra=$(extra_dir)
	mount_extra "$extra" "uid=$(id -u "$U1"),gid=$(id -g "$U1"),mode=0660"
	assert_eq "$(perf_as "$U2" 1:1:u)" ok "perf for $U2 on itself"
	assert_eq "$(open_as "$U2" "$extra/all/task_clock:u/self/simple/0")" EACCES "$U2 outside the group"
	assert_eq "$(open_as "$U1" "$extra/all/task_clock:u/self/simple/0")" ok "$U1, the owner"
	assert_eq "$(open_as "$U2" "$M/all/task_clock:u/self/simple/0")" ok "$U2 on the default mount"
}

@test "110-permissions: no counter left held" {
	assert_no_leak
}
