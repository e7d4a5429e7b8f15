#!/usr/bin/env bats
#
# The simple type with period 0, and that the tree cannot be changed.

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

# What a change of the tree may fail with: EPERM/EROFS, or EACCES from the
# VFS permission check of a 0555 directory when not root.
CHANGE_ERR='^(EPERM|EROFS)$'
change_err() {
	if is_root; then echo "$CHANGE_ERR"; else echo '^(EPERM|EROFS|EACCES)$'; fi
}

@test "simple/0 reads one count line, then EOF" {
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" read read
	[ "$status" -eq 0 ]
	is_count "${lines[0]}" || die "first read: ${lines[0]}"
	assert_eq "${lines[1]}" EOF "second read"
}

@test "simple/0 pread at offset 0 gives a fresh, larger line each time" {
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" read spin=100 pread=0 spin=100 pread=0
	[ "$status" -eq 0 ]
	a=${lines[0]} b=${lines[1]} c=${lines[2]}
	is_count "$a" && is_count "$b" && is_count "$c" || die "not counts: ${lines[*]}"
	[ "$b" -gt "$a" ] && [ "$c" -gt "$b" ] || die "not growing: $a $b $c"
}

@test "simple/0 lseek to 0 and read gives a fresh line" {
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" read spin=50 seek=0 read
	[ "$status" -eq 0 ]
	assert_eq "${lines[1]}" ok "lseek"
	[ "${lines[2]}" -gt "${lines[0]}" ] || die "not fresh: ${lines[*]}"
}

@test "task_clock of the opener grows by about the CPU time it burns" {
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" pread=0 spin=300 pread=0
	[ "$status" -eq 0 ]
	d=$((lines[1] - lines[0]))
	# task_clock is in ns; the spin burns 300 ms of its CPU time, and the
	# pread between adds a little
	assert_ge "$d" 290000000 "task_clock delta over a 300 ms spin"
	assert_le "$d" 400000000 "task_clock delta over a 300 ms spin"
}

@test "1-byte reads return the line piece by piece" {
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" read1 seek=0 read1
	[ "$status" -eq 0 ]
	set -- ${lines[0]}
	calls=$1 line=$2
	is_count "$line" || die "1-byte reads gave '$line'"
	# one call per digit, one for the newline
	assert_eq "$calls" $((${#line} + 1)) "read calls for '$line'"
	set -- ${lines[2]}
	is_count "$2" || die "after lseek, 1-byte reads gave '$2'"
}

@test "a read at an offset past the line is EOF" {
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" pread=4000
	assert_eq "${lines[0]}" EOF "pread at 4000"
}

@test "a read into an unmapped buffer is EFAULT and the leaf reads on" {
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" badread pread=0 seek=0 badread read
	[ "$status" -eq 0 ] || die "leafio: $status ${lines[*]}"
	assert_eq "${lines[0]}" EFAULT "read(2) into a PROT_NONE page"
	is_count "${lines[1]}" || die "pread after EFAULT: ${lines[1]}"
	assert_eq "${lines[3]}" EFAULT "read(2) at 0 into a PROT_NONE page"
	is_count "${lines[4]}" || die "read after EFAULT: ${lines[4]}"
}

@test "page_faults of a child that touches N pages is at least N" {
	start_pagetouch 500 || die "pagetouch never got ready"
	pid=$toucher
	run "$H/leafio" "$(leaf all page_faults$U "$pid" simple 0)" sh="kill -USR1 $pid" waitexit="$pid" read
	[ "$status" -eq 0 ]
	assert_ge "${lines[0]}" 500 "page_faults after touching 500 pages"
	assert_le "${lines[0]}" 5000 "page_faults after touching 500 pages"
}

@test "cpu N counts: cpu_clock on CPU 0 for this process is a count" {
	run "$H/leafio" "$(leaf 0 cpu_clock$U self simple 0)" read
	[ "$status" -eq 0 ]
	is_count "${lines[0]}"
}

@test "mkdir at every level fails with EPERM or EROFS" {
	for d in "$M" "$M/all" "$M/all/task_clock" "$M/all/task_clock/self" "$M/all/task_clock/self/simple"; do
		assert_match "$("$H/fsop" mkdir "$d/new")" "$(change_err)" "mkdir in $d" || return 1
		assert_match "$("$H/fsop" mkdir "$d/0")" "$(change_err)|^EEXIST$" "mkdir over a name in $d"
	done
}

@test "rmdir, unlink and rename fail with EPERM or EROFS" {
	assert_match "$("$H/fsop" rmdir "$M/all")" "$(change_err)|^EBUSY$" "rmdir all"
	assert_match "$("$H/fsop" rmdir "$M/all/task_clock")" "$(change_err)|^ENOTEMPTY$" "rmdir event"
	assert_match "$("$H/fsop" unlink "$M/all/task_clock/self/simple/0")" "$(change_err)" "unlink leaf"
	assert_match "$("$H/fsop" rename "$M/all/task_clock" "$M/all/x")" "$(change_err)" "rename event"
	assert_match "$("$H/fsop" rename "$M/all/task_clock/self/simple/0" "$M/all/task_clock/self/simple/1")" "$(change_err)" "rename leaf"
	assert_eq "$(lookup "$M/all/x")" ENOENT "rename target"
}

@test "creating files, links and nodes fails with EPERM or EROFS" {
	d=$M/all/task_clock/self/simple
	assert_match "$("$H/fsop" creat "$d/new")" "$(change_err)" "creat"
	assert_match "$("$H/fsop" open "$M/all/task_clock/self/newtype" creat)" "$(change_err)" "open O_CREAT"
	assert_match "$("$H/fsop" symlink 0 "$d/sym")" "$(change_err)" "symlink"
	assert_match "$("$H/fsop" link "$d/0" "$d/hard")" "$(change_err)|^EXDEV$" "link"
	assert_match "$("$H/fsop" mknod "$d/fifo")" "$(change_err)" "mknod"
	assert_eq "$(lookup "$d/new")" ENOENT "after creat"
}

@test "touch and chmod of a leaf and chmod of a dir are refused" {
	require_root
	assert_match "$("$H/fsop" chmod "$M/all/task_clock/self/simple/0" 0777)" "$CHANGE_ERR" "chmod leaf"
	assert_match "$("$H/fsop" chmod "$M/all" 0777)" "$CHANGE_ERR" "chmod dir"
	assert_match "$("$H/fsop" chown "$M/all" 1 1)" "$CHANGE_ERR" "chown dir"
	run touch "$M/all/task_clock/self/simple/new"
	[ "$status" -ne 0 ]
	assert_eq "$(lookup "$M/all/task_clock/self/simple/new")" ENOENT "after touch"
	assert_match "$("$H/fsop" stat "$M/all")" " mode=0555 " "mode after chmod"
}

@test "truncate of a leaf is refused or leaves it readable" {
	r=$("$H/fsop" truncate "$M/all/task_clock/self/simple/0") || true
	assert_match "$r" '^(ok|EPERM|EROFS|EACCES|EINVAL)$' "truncate"
	is_count "$(read0 "$M/all/task_clock$U/self/simple/0")"
}

@test "writing garbage to a leaf is EINVAL" {
	for w in garbage 1234 "enable disable" enablex ENABLE " enable" $'\n'; do
		run "$H/leafio" -w "$(leaf all task_clock$U self simple 0)" "write=$w"
		assert_eq "${lines[0]}" EINVAL "write of '$w'" || return 1
	done
}

@test "020-simple: no counter left held" {
	assert_no_leak
}
