#!/usr/bin/env bats
#
# Clients nobody here wrote: busybox and coreutils cat/head/ls/stat/find/dd,
# awk, getfattr, Python.  Each must read the tree as it reads /proc.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
}

teardown() {
	kill_bg_jobs
}

@test "cat of a period-0 leaf prints one count and exits 0" {
	run timeout 10 cat "$(leaf all task_clock$U self simple 0)"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ] && is_count "${lines[0]}" || die "cat: $output"
}

@test "sendfile, as busybox cat uses it, reads the line" {
	for i in 1 2 3; do
		run timeout 10 "$H/leafio" "$(leaf all cpu_clock$U self simple 0)" sendfile
		is_count "${lines[0]}" || die "sendfile from a period-0 leaf, try $i: ${lines[*]}"
	done
}

@test "sendfile reads a whole line that is longer than the line before it" {
	# The FUSE daemon lets the kernel cache a leaf's name; a short splice
	# read leaves i_size at that line's length, which the next open must
	# reset (GETATTR), or the next sendfile stops at the old length.  So:
	# a line of at most 6 digits (under 1 ms of CPU), then one of at least
	# 8 from the same leaf; cut at 7 bytes it would be under 10,000,000.
	leaf=$(leaf all task_clock$U self simple 0)
	first=
	for i in 1 2 3 4 5; do
		run timeout 10 "$H/leafio" "$leaf" sendfile
		is_count "${lines[0]}" || die "first sendfile, try $i: ${lines[*]}"
		[ "${lines[0]}" -lt 1000000 ] && { first=${lines[0]}; break; }
	done
	[ -n "$first" ] || skip "5 opens each took >= 1 ms of CPU here: no short first line to follow"
	run timeout 10 "$H/leafio" "$leaf" spin=300 sendfile
	is_count "${lines[0]}" || die "second sendfile: ${lines[*]}"
	assert_ge "${lines[0]}" 30000000 "task_clock of a self that burned 300 ms, by sendfile after a line of $first"
}

@test "sendfile streams a blocking 1s leaf line by line" {
	# FUSE in Linux >= 6.9 splices even FOPEN_DIRECT_IO files through the
	# page cache (filemap_splice_read), bounded by i_size, and a leaf that
	# blocks has no size; upstream's "fuse: use copy_splice_read for
	# FOPEN_DIRECT_IO" lifts that.  read() streams on every kernel.
	[ "$PERFCTR_BACKEND" = fuse ] &&
		skip "FUSE on this kernel ($(uname -r)) cannot splice a blocking direct_io file"
	# the spinner's 2.5 s start once the leaf is open (a slow guest's open
	# took most of them: one line)
	"$H/spin" -g 2.5 > "$BATS_TEST_TMPDIR/gate" 3>&- &
	s=$!
	wait_until "grep -qx gated $BATS_TEST_TMPDIR/gate" || die "spin -g never got ready"
	run timeout 10 "$H/leafio" "$(leaf all task_clock$U $s simple 1s)" sh="kill -USR1 $s" sendfile
	[ "${#lines[@]}" -ge 2 ] || die "sendfile from a 1s leaf: ${lines[*]}"
}

@test "awk reads the times line as three fields" {
	run timeout 10 awk '{ print NF, ($2 >= $3) }' "$(leaf all task_clock$U self times 0)"
	assert_eq "$output" "3 1" "awk NF and enabled >= running"
}

@test "dd with 1-byte blocks reads the whole line" {
	# a many-digit count, so that 1-byte reads must reassemble it: the
	# leaf is opened on a spinner that then works 300 ms before dd reads
	# the open file (dd's own task_clock between open and its first read
	# can be 0 at a guest's clock resolution)
	"$H/spin" $((120 * SLOW)) >/dev/null 3>&- &
	pid=$!
	exec {fd}< "$(leaf all task_clock$U "$pid" simple 0)"
	sleep 0.3
	out=$(timeout 10 dd bs=1 <&"$fd" 2>/dev/null) || true
	exec {fd}<&-
	kill "$pid" 2>/dev/null || true
	is_count "$out" || die "dd bs=1: $out"
	assert_ge "$out" 1000000 "task_clock of a 300 ms spinner read by dd"
}

@test "head -n 1 of a 1s leaf returns the first line and exits" {
	# lives until teardown: a 1 s period needs 1 s of its CPU time
	"$H/spin" $((60 * SLOW)) >/dev/null 3>&- &
	run timeout 10 head -n 1 "$(leaf all task_clock$U $! simple 1s)"
	[ "$status" -eq 0 ] || die "head exited $status"
	is_count "$output" || die "head: $output"
}

@test "ls -l of a cpu dir lists directories" {
	run ls -l "$M/all"
	[ "$status" -eq 0 ]
	echo "$output" | grep -qE '^d.* task_clock$' || die "ls -l: $output"
}

@test "ls -li shows the inode numbers stat shows" {
	run ls -id "$M/all/task_clock"
	# busybox pads the inode number with leading spaces
	ino=$(echo "$output" | awk '{ print $1 }')
	is_count "$ino" || die "ls -id: $output"
	assert_match "$("$H/fsop" stat "$M/all/task_clock")" " ino=$ino " "ls -id vs stat"
}

@test "stat -c reports a leaf as a regular file and a level as a directory" {
	# a leaf has size 0, as /proc files do: "regular empty file"
	assert_match "$(stat -c %F "$M/all/task_clock/self/simple/0")" "^regular (empty )?file$" "stat of a leaf"
	assert_eq "$(stat -c %F "$M/all/task_clock/self")" "directory" "stat of a level"
}

@test "find with -maxdepth walks a pid subtree" {
	run timeout 20 find "$M/all/task_clock/self" -maxdepth 2
	[ "$status" -eq 0 ]
	for p in simple times irq simple/0 times/0; do
		echo "$output" | grep -qxF "$M/all/task_clock/self/$p" || die "find did not list $p: $output"
	done
}

@test "coreutils cat, head, stat and ls work on the tree" {
	require_coreutils cat
	require_coreutils stat
	is_count "$(timeout 10 cat "$(leaf all task_clock$U self simple 0)")"
	is_count "$(timeout 10 head -c 64 "$(leaf all task_clock$U self simple 0)")"
	assert_eq "$(stat -c '%F %a' "$M/all/task_clock")" "directory $(stat -c %a "$M/all/task_clock")" "coreutils stat"
	ls --color=never -la "$M/all" | grep -q ' task_clock$'
}

@test "head -n 2 of a period-N leaf gets two growing lines" {
	# lives until teardown: a 1 s period needs 1 s of its CPU time
	"$H/spin" $((60 * SLOW)) >/dev/null 3>&- &
	run timeout 10 head -n 2 "$(leaf all task_clock$U $! simple 10000000)"
	[ "${#lines[@]}" -eq 2 ] || die "head -n 2: $output"
	[ "${lines[1]}" -gt "${lines[0]}" ]
}

@test "getfattr -n reads one attribute" {
	require_cmd getfattr
	run getfattr --absolute-names --only-values -n user.perfctr.encoding "$M/all/page_faults"
	assert_eq "$output" "type=1,config=0x2" "getfattr --only-values"
}

@test "python3 open().read() gives a count and os.listdir lists the events" {
	require_cmd python3
	run timeout 20 python3 -c '
import os, sys
m = sys.argv[1]
print(open(m + "/all/task_clock" + sys.argv[2] + "/self/simple/0").read().strip())
print(" ".join(sorted(os.listdir(m + "/all/task_clock/self"))))
print("task_clock" in os.listdir(m + "/all"))
' "$M" "$U"
	[ "$status" -eq 0 ] || die "python3: $output"
	is_count "${lines[0]}" || die "python3 read: ${lines[0]}"
	assert_eq "${lines[1]}" "irq simple times" "os.listdir of a pid dir"
	assert_eq "${lines[2]}" True "task_clock in os.listdir"
}

@test "python3 readline on a period-N leaf returns successive lines" {
	require_cmd python3
	# lives until teardown: a 1 s period needs 1 s of its CPU time
	"$H/spin" $((60 * SLOW)) >/dev/null 3>&- &
	run timeout 20 python3 -c '
import sys
with open(sys.argv[1]) as f:
    a = int(f.readline()); b = int(f.readline())
print(b > a)
' "$(leaf all task_clock$U $! simple 10000000)"
	assert_eq "$output" True "second line above the first"
}

@test "python3 os.stat and os.scandir agree on inode numbers" {
	require_cmd python3
	run timeout 20 python3 -c '
import os, sys
d = sys.argv[1] + "/all"
for e in os.scandir(d):
    if e.inode() != os.stat(e.path).st_ino:
        print("mismatch", e.name, e.inode(), os.stat(e.path).st_ino)
print("done")
' "$M"
	assert_eq "$output" done "scandir vs stat"
}

@test "070-clients: no counter left held" {
	assert_no_leak
}
