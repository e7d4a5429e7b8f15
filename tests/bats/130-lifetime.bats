#!/usr/bin/env bats
#
# Lifetime: what open files see when what they count, or the mount they
# came from, goes away under them.
#
# CPU hotplug (in a QEMU guest only, on the kernel and on the FUSE daemon
# there: offlining a CPU of a shared host would disturb everyone on it).
# perf takes the CPU-wide
# counters of a CPU that goes offline out of their context for good, so:
# reads of period-0 leaves keep answering the count the CPU had reached,
# frozen (times too), also after the CPU returns; streams (a count or time
# period, irq) end as on a target's exit: what is left, then EOF, and poll
# says POLLHUP; control words say ENODEV; the CPU leaves the listing and
# its lookup is ENOENT, also below a directory held open.  A counter of a
# task bound to that CPU stays and counts again once the task runs there.
# FUSE differs where the kernel's caches decide: a CPU's lookup is ENOENT
# within its entry timeout (1 s), and what is already looked up below a
# held directory stays so (Documentation/filesystems/perfctrfs.rst).
#
# Umount (both backends, on a second mount this file makes itself): busy
# while anything is open (EBUSY, nothing changes); a lazy umount detaches
# the name while open files, directories and blocked readers keep
# working; the counters go with the last close of their file, the
# instance with the last close of anything (on FUSE the daemon exits).

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
	T=$BATS_TEST_TMPDIR
	offlined= second= second_pid= cgdir=
}

teardown() {
	# a CPU a test took offline comes back even when the test failed
	[ -z "$offlined" ] || timeout 30 sh -c "echo 1 > $offlined" || true
	# release every leafio waiting for a flag, then the rest
	touch "$T"/flag.off "$T"/flag.on "$T"/flag.lazy "$T"/flag.end 2>/dev/null
	exec 17<&-
	kill_bg_jobs
	[ -z "$second" ] || umount_second "$second"
	# a cgroup a test made goes once its tasks have (kill_bg_jobs waited)
	[ -z "$cgdir" ] || wait_until "rmdir '$cgdir' 2>/dev/null" 50 || true
}

# ---- helpers of this file ----------------------------------------------

# A leafio op that waits (at most 150 s, times SLOW) until the test
# raises flag $1: a bound on a stuck test, never reached by one that works.
wait_flag() {
	echo "sh=i=0; until [ -e $T/flag.$1 ] || [ \$i -ge $((3000 * SLOW)) ]; do sleep 0.05; i=\$((i + 1)); done"
}

raise() { : > "$T/flag.$1"; }

# Line $2 of file $1.
line() { sed -n "${2}p" "$1"; }

# Kernel log lines that tests/qemu/tap.awk counts as a splat.
SPLAT='WARNING:|BUG:|Oops|kernel BUG|possible circular locking|INFO: task .* blocked|Call Trace|UBSAN:|KASAN:|refcount_t:'
splats() { dmesg | grep -cE "$SPLAT" || true; }

# The CPU the hotplug tests take offline: $hp_cpu, its online file
# $hp_file.  Skips where no CPU may be offlined.
require_hotplug() {
	require_root
	[ -n "${PCTR_GUEST:-}" ] || skip "offlines a CPU: only in a QEMU guest (tests/qemu)"
	hp_cpu=$(online_cpus | tail -n 1)
	hp_file=/sys/devices/system/cpu/cpu$hp_cpu/online
	[ "$hp_cpu" != 0 ] && [ -w "$hp_file" ] || skip "no CPU that can go offline here"
}

# cpu_set 0|1: take $hp_cpu offline or bring it back, within 30 s.
cpu_set() {
	timeout 30 sh -c "echo $1 > $hp_file" || die "echo $1 > $hp_file failed or hung"
	if [ "$1" = 0 ]; then offlined=$hp_file; else offlined=; fi
}

# Wait (at most 10 s) until each pid has exited; fail naming the first
# that did not.
wait_exit() {
	local p
	for p; do
		wait_until "! kill -0 $p 2>/dev/null" 100 || die "pid $p still running"
	done
}

# The output of "leafio LEAF ms readall" in file $1: its ms mark, then
# lines of counts ("lost <n>" allowed), nondecreasing, then EOF?  (A
# stream that ended.)
stream_ended() {
	local f=$1 prev=0 l n
	n=$(wc -l < "$f")
	[ "$n" -ge 2 ] && [ "$(line "$f" "$n")" = EOF ] ||
		die "$f does not end in EOF: $(tail -n 3 "$f")" || return 1
	sed '1d;$d' "$f" > "$f.lines"
	while read -r l; do
		[[ $l == lost\ * ]] && continue
		is_count "${l%% *}" || die "$f: '$l' is not a line of counts" || return 1
		[ "${l%% *}" -ge "$prev" ] || die "$f: count went back: $l after $prev" || return 1
		prev=${l%% *}
	done < "$f.lines"
}

# ---- CPU hotplug -------------------------------------------------------

@test "hotplug: with counters open on a CPU going offline, reads freeze, streams end, the listing drops it, and nothing returns when it comes back" {
	require_hotplug
	c=$hp_cpu
	require_event cpu_clock "$c"
	require_event context_switches "$c"
	require_event task_clock "$c"
	require_cmd taskset
	held=$(counters_held)
	splat0=$(splats)
	mask=$(printf %x $((1 << c)))

	# a spinner that may run on CPU $c only, until the test (or its
	# teardown) kills it: a loaded guest took over 120 s to get to the
	# end, and the spinner had gone when it was to be pinned back
	taskset "$mask" "$H/spin" $((3600 * SLOW)) > "$T/spin.out" 3>&- &
	spid=$!
	wait_until "[ -s $T/spin.out ]" 100 || die "spinner did not start"

	L=$M/$c
	"$H/leafio" -w "$L/cpu_clock/all/simple/0" pread=0 "$(wait_flag off)" pread=0 sleep=300 pread=0 \
		poll=0 write=enable write=reset "$(wait_flag on)" sleep=300 pread=0 > "$T/p0" 2>&1 3>&- &
	p0=$!
	"$H/leafio" "$L/cpu_clock/all/times/0" pread=0 "$(wait_flag off)" pread=0 sleep=300 pread=0 \
		"$(wait_flag on)" sleep=300 pread=0 > "$T/times" 2>&1 3>&- &
	pt=$!
	"$H/leafio" "$L/cpu_clock+context_switches/all/simple/0" pread=0 "$(wait_flag off)" pread=0 \
		sleep=300 pread=0 > "$T/group" 2>&1 3>&- &
	pg=$!
	"$H/leafio" "$L/task_clock/$spid/simple/0" pread=0 "$(wait_flag off)" pread=0 sleep=300 pread=0 \
		"$(wait_flag on)" sleep=500 pread=0 > "$T/task" 2>&1 3>&- &
	pk=$!
	# blocked readers: a time period, a count no CPU reaches in a year, irq by time
	"$H/leafio" "$L/cpu_clock/all/simple/300ms" ms readall > "$T/time" 2>&1 3>&- &
	r1=$!
	"$H/leafio" "$L/context_switches/all/simple/1000000000000" ms readall > "$T/count" 2>&1 3>&- &
	r2=$!
	"$H/leafio" "$L/cpu_clock/all/irq/100ms" ms readall > "$T/irq" 2>&1 3>&- &
	r3=$!
	for f in p0 times group task; do
		wait_until "[ -s $T/$f ]" 100 || die "no first read in $f"
	done
	# the time reader has had a line: it is in its stream
	wait_until "[ \$(wc -l < $T/time) -ge 2 ]" 100 || die "no line from the time stream: $(cat "$T/time")"
	wait_until "[ -s $T/count ] && [ -s $T/irq ]" 100 || die "blocked readers did not open"
	assert_eq "$(wc -l < "$T/count")" 1 "lines of the count reader before offline (its ms only)"
	exec 17< "$L/cpu_clock/all/simple"
	assert_eq "$(names_of /proc/self/fd/17)" 0 "listing of a held period dir before offline"

	cpu_set 0
	raise off
	# nothing is stranded: every blocked reader ends within a few seconds
	wait_exit "$r1" "$r2" "$r3"
	stream_ended "$T/time"
	stream_ended "$T/irq"
	assert_eq "$(wc -l < "$T/count")" 3 "lines of the count reader: ms, a final line, EOF"
	stream_ended "$T/count"

	# the listing drops the CPU; nothing below it looks up, even from a held dir
	assert_eq "$(names_of "$M" | grep -cx "$c")" 0 "times offline cpu $c is listed"
	if [ "$PERFCTR_BACKEND" = fuse ]; then
		# the kernel keeps the daemon's answer for the entry timeout
		wait_until "[ \"\$(lookup $M/$c)\" = ENOENT ]" 20 || true
	fi
	assert_eq "$(lookup "$M/$c")" ENOENT "lookup of offline cpu $c"
	if [ "$PERFCTR_BACKEND" = kernel ]; then
		assert_eq "$(lookup /proc/self/fd/17/0)" ENOENT "lookup below a held dir of offline cpu $c"
		assert_eq "$(names_of /proc/self/fd/17)" "" "listing of a held dir of offline cpu $c"
	fi

	# open period-0 leaves answer, frozen
	wait_until "[ \$(wc -l < $T/p0) -ge 6 ] && [ \$(wc -l < $T/times) -ge 3 ]" 100 || die "reads after offline did not come"
	wait_exit "$pg"
	assert_eq "$(line "$T/p0" 3)" "$(line "$T/p0" 2)" "cpu_clock of offline cpu $c, 300ms apart"
	assert_ge "$(line "$T/p0" 2)" "$(line "$T/p0" 1)" "cpu_clock at offline"
	assert_match "$(line "$T/p0" 4)" 'POLLHUP' "poll of a leaf whose CPU went offline"
	assert_eq "$(line "$T/p0" 5)" ENODEV "enable on a counter whose CPU went offline"
	assert_eq "$(line "$T/p0" 6)" ENODEV "reset on a counter whose CPU went offline"
	assert_eq "$(line "$T/times" 3)" "$(line "$T/times" 2)" "times (count, enabled, running) of offline cpu $c"
	assert_match "$(line "$T/group" 2)" '^[0-9]+ [0-9]+$' "group read after offline"
	assert_eq "$(line "$T/group" 3)" "$(line "$T/group" 2)" "group of offline cpu $c, 300ms apart"
	wait_until "[ \$(wc -l < $T/task) -ge 3 ]" 100 || die "task reads after offline did not come"
	assert_eq "$(line "$T/task" 3)" "$(line "$T/task" 2)" "task_clock of a spinner moved off offline cpu $c"

	# back online: the listing returns, new opens count, old CPU-wide ones do not
	cpu_set 1
	taskset -p "$mask" "$spid" > /dev/null || die "cannot pin $spid back to cpu $c"
	raise on
	wait_exit "$p0" "$pt" "$pk"
	assert_eq "$(line "$T/p0" 7)" "$(line "$T/p0" 3)" "old cpu_clock leaf after cpu $c returned"
	assert_eq "$(line "$T/times" 4)" "$(line "$T/times" 2)" "old times leaf after cpu $c returned"
	t3=$(line "$T/task" 3) t4=$(line "$T/task" 4)
	assert_ge "$t4" $((t3 + 1)) "task_clock of the spinner back on cpu $c"
	wait_until "[ \"\$(lookup $M/$c)\" = dir ]" 50 || die "cpu $c did not come back"
	assert_eq "$(names_of "$M" | grep -cx "$c")" 1 "times cpu $c is listed once back"
	assert_eq "$(lookup /proc/self/fd/17/0)" file "lookup below the held dir once cpu $c is back"
	out=$("$H/leafio" "$L/cpu_clock/all/simple/0" pread=0 sleep=200 pread=0)
	a=$(echo "$out" | sed -n 1p) b=$(echo "$out" | sed -n 2p)
	assert_ge "$b" $((a + 1)) "a new cpu_clock leaf on cpu $c"

	kill "$spid"
	wait "$spid" 2>/dev/null || true
	exec 17<&-
	wait_until '[ "$(counters_held)" = "$held" ]' 50 || true
	assert_eq "$(counters_held)" "$held" "user.perfctr.counters after every file closed"
	assert_eq "$(splats)" "$splat0" "kernel log splats (see dmesg)"
}

@test "hotplug: a cgroup target's stream on a CPU going offline ends; its cpu-all leaf goes on counting" {
	require_hotplug
	c=$hp_cpu
	require_event cpu_clock "$c"
	cg=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$cg" ] || skip "no cgroup2 mount on this machine"
	grep -qw '^perf_event' /proc/cgroups || skip "kernel without CONFIG_CGROUP_PERF"
	mkdir "$cg/perfctrfs-hotplug.$$" || skip "cannot create a cgroup under $cg"
	cgdir=$cg/perfctrfs-hotplug.$$
	id=$(stat -c %i "$cgdir")
	held=$(counters_held)
	splat0=$(splats)

	# a spinner in the cgroup, free to run on every CPU
	sh -c "echo \$\$ > '$cgdir/cgroup.procs' && exec '$H/spin' $((120 * SLOW))" > "$T/spin.out" 3>&- &
	spid=$!
	wait_until "[ -s $T/spin.out ]" 100 || die "spinner did not start"
	"$H/leafio" "$M/$c/cpu_clock/cgroup.$id/simple/100ms" ms readall > "$T/cpu" 2>&1 3>&- &
	rc=$!
	"$H/leafio" "$M/all/cpu_clock/cgroup.$id/simple/0" pread=0 "$(wait_flag on)" pread=0 > "$T/all" 2>&1 3>&- &
	pa=$!
	wait_until "[ -s $T/all ] && [ \$(wc -l < $T/cpu) -ge 2 ]" 100 ||
		die "readers did not start: $(cat "$T/all" "$T/cpu")"

	cpu_set 0
	# the CPU's stream of the cgroup ends as a CPU-wide one does
	wait_exit "$rc"
	stream_ended "$T/cpu"
	cpu_set 1
	# the cgroup's all-CPU leaf counted on through it, on the CPU that stayed
	sleep 0.3
	raise on
	wait_exit "$pa"
	assert_ge "$(line "$T/all" 2)" $(($(line "$T/all" 1) + 1)) "the cgroup's cpu_clock on all CPUs across the offline"

	kill "$spid"
	wait "$spid" 2>/dev/null || true
	wait_until '[ "$(counters_held)" = "$held" ]' 50 || true
	assert_eq "$(counters_held)" "$held" "user.perfctr.counters after every file closed"
	assert_eq "$(splats)" "$splat0" "kernel log splats (see dmesg)"
}

@test "hotplug: 20 offline/online cycles while readers open and read the CPU's leaves: no hang, no splat, no leak" {
	require_hotplug
	c=$hp_cpu
	require_event cpu_clock "$c"
	held=$(counters_held)
	splat0=$(splats)

	# reopen and read a leaf of the CPU, over and over
	( while [ ! -e "$T/flag.end" ]; do
		"$H/leafio" "$M/$c/cpu_clock/all/simple/0" read
	done ) > "$T/loop" 2>&1 3>&- &
	loop=$!
	# a stream of the CPU, and the system-wide counter, held across all cycles
	"$H/leafio" "$M/$c/cpu_clock/all/simple/100ms" ms readall > "$T/stream" 2>&1 3>&- &
	rs=$!
	"$H/leafio" "$M/all/cpu_clock/all/simple/0" pread=0 "$(wait_flag end)" pread=0 > "$T/all" 2>&1 3>&- &
	pa=$!
	wait_until "[ -s $T/all ] && [ \$(wc -l < $T/stream) -ge 2 ] && [ -s $T/loop ]" 100 ||
		die "readers did not start"

	for i in $(seq 1 20); do
		cpu_set 0
		cpu_set 1
	done
	raise end
	wait_exit "$loop" "$rs" "$pa"

	stream_ended "$T/stream"
	bad=$(grep -vxE '[0-9]+|open ENOENT|open ENODEV' "$T/loop" | sort | uniq -c | head -n 5)
	assert_eq "$bad" "" "what a reopening reader got besides a count, ENOENT or ENODEV"
	assert_ge "$(grep -cxE '[0-9]+' "$T/loop")" 1 "reads that gave a count"
	# cpu=all goes on counting on the CPUs that stay
	assert_ge "$(line "$T/all" 2)" $(($(line "$T/all" 1) + 1)) "system-wide cpu_clock across the cycles"
	assert_eq "$(names_of "$M" | grep -cx "$c")" 1 "times cpu $c is listed after the cycles"
	wait_until '[ "$(counters_held)" = "$held" ]' 50 || true
	assert_eq "$(counters_held)" "$held" "user.perfctr.counters after the cycles"
	assert_eq "$(splats)" "$splat0" "kernel log splats (see dmesg)"
}

# ---- umount ------------------------------------------------------------

# mount_second DIR: another instance on DIR, the backend's way; $second
# names it for teardown.  Skips where this caller cannot mount one.
mount_second() {
	local d=$1
	second=$d
	case $PERFCTR_BACKEND in
	kernel)
		is_root || skip "needs root to mount a second kernel perfctrfs"
		mount -t perfctrfs perfctrfs "$d" || die "mount -t perfctrfs on $d failed" || return 1
		;;
	fuse)
		[ -x "$PERFCTR_FUSE_BIN" ] || die "no FUSE daemon at PERFCTR_FUSE_BIN=$PERFCTR_FUSE_BIN" || return 1
		if is_root; then
			"$PERFCTR_FUSE_BIN" -f -o allow_other "$d" > "$T/second.log" 2>&1 3>&- &
		else
			# fusermount3 (setuid) mounts it for a user
			require_cmd fusermount3
			"$PERFCTR_FUSE_BIN" -f "$d" > "$T/second.log" 2>&1 3>&- &
		fi
		second_pid=$!
		;;
	esac
	if ! wait_until "grep -qs ' $d ' /proc/self/mounts" 100; then
		is_root || skip "this user cannot mount FUSE here: $(tail -n 1 "$T/second.log")"
		die "no second mount on $d: $(cat "$T/second.log" 2>/dev/null)"
	fi
}

# umount_once DIR [lazy]: umount2(), or fusermount3 for a user's FUSE
# mount; prints "ok", the errno name, or fusermount3's message.
umount_once() {
	local out
	if is_root; then
		"$H/fsop" umount "$1" ${2:+lazy}
	else
		if out=$(timeout 10 fusermount3 -u ${2:+-z} "$1" 2>&1); then
			echo ok
		else
			case $out in
			*"resource busy"*) echo EBUSY ;;
			*) echo "$out" ;;
			esac
		fi
	fi
}

# umount_second DIR: teardown's lazy umount, the daemon's end, rmdir.
umount_second() {
	if grep -qs " $1 " /proc/self/mounts; then
		umount_once "$1" lazy > /dev/null
	fi
	[ -z "$second_pid" ] || wait_until "! kill -0 $second_pid 2>/dev/null" 50 ||
		kill -KILL "$second_pid" 2>/dev/null
	rmdir "$1" 2>/dev/null || true
}

mounted() { grep -qs " $1 " /proc/self/mounts; }

@test "umount: busy while files are open, lazy detaches, open files keep working, the last close frees every counter, a remount works" {
	# extra_dir is in /tmp, which need not be writable for a user
	if is_root; then d=$(extra_dir); else d=$(mktemp -d "$T/mnt.XXXXXX"); fi
	mount_second "$d"
	splat0=0
	[ "$PERFCTR_BACKEND" = kernel ] && splat0=$(splats)
	# the kernel counts its counters for all mounts at once; a FUSE daemon its own
	global=$(counters_held)
	base=$("$H/xattr" "$d" user.perfctr.counters)
	is_count "$base" || die "user.perfctr.counters of the second mount: $base"

	sleep 1000 3>&- &
	target=$!
	"$H/leafio" "$d/all/task_clock$U/self/simple/0" pread=0 "$(wait_flag lazy)" pread=0 pread=0 \
		"$(wait_flag end)" > "$T/leaf" 2>&1 3>&- &
	pl=$!
	# blocked until the target exits, whenever that is
	"$H/leafio" "$d/all/task_clock$U/$target/simple/1000000000000" ms readall > "$T/reader" 2>&1 3>&- &
	pr=$!
	wait_until "[ -s $T/leaf ] && [ -s $T/reader ]" 100 || die "leaves did not open: $(cat "$T/leaf" "$T/reader")"
	exec 17< "$d"
	assert_eq "$("$H/xattr" /proc/self/fd/17 user.perfctr.counters)" $((base + 2)) "counters of the second mount, two leaves open"

	# plain umount: busy, and nothing changes
	assert_eq "$(umount_once "$d")" EBUSY "umount with files open"
	mounted "$d" || die "$d is no longer mounted after a refused umount"
	assert_eq "$(lookup "$d/all")" dir "lookup on the busy mount"

	# lazy: the name goes, everything open stays
	assert_eq "$(umount_once "$d" lazy)" ok "umount -l with files open"
	! mounted "$d" || die "$d still mounted after umount -l"
	assert_eq "$(lookup "$d/all")" ENOENT "lookup of the detached name"
	names_of /proc/self/fd/17 | grep -qx all || die "the held root lists no 'all' after umount -l"
	assert_eq "$(lookup /proc/self/fd/17/all/task_clock$U/self/simple/0)" file "lookup below the held root"
	assert_eq "$("$H/xattr" /proc/self/fd/17 user.perfctr.counters)" $((base + 2)) "counters after umount -l"

	raise lazy
	kill "$target"
	# the blocked reader gets the target's exit: a final line, then EOF
	wait_exit "$pr"
	assert_eq "$(wc -l < "$T/reader")" 3 "lines of the blocked reader: ms, a final line, EOF"
	stream_ended "$T/reader"
	wait_until "[ \$(wc -l < $T/leaf) -ge 3 ]" 100 || die "reads after umount -l did not come: $(cat "$T/leaf")"
	assert_ge "$(line "$T/leaf" 2)" "$(line "$T/leaf" 1)" "read after umount -l"
	assert_ge "$(line "$T/leaf" 3)" "$(line "$T/leaf" 2)" "second read after umount -l"
	raise end
	wait_exit "$pl"

	# every counter goes with its file, while the instance still lives
	wait_until "[ \"\$(\"$H/xattr\" /proc/self/fd/17 user.perfctr.counters)\" = $base ]" 50 || true
	assert_eq "$("$H/xattr" /proc/self/fd/17 user.perfctr.counters)" "$base" "counters of the detached mount, leaves closed"
	if [ -n "$second_pid" ]; then
		kill -0 "$second_pid" 2>/dev/null || die "the daemon left while a directory of it was open"
	fi
	exec 17<&-
	if [ -n "$second_pid" ]; then
		# the last close ends the connection, and the daemon with it
		wait_exit "$second_pid"
		rc=0
		wait "$second_pid" || rc=$?
		assert_eq "$rc" 0 "exit status of the daemon of the detached mount (its log: $(tail -n 5 "$T/second.log"))"
		second_pid=
	fi
	wait_until '[ "$(counters_held)" = "$global" ]' 50 || true
	assert_eq "$(counters_held)" "$global" "user.perfctr.counters of the suite's mount"

	# the same directory mounts again, counts, and unmounts when idle
	mount_second "$d"
	is_count "$(read0 "$d/all/task_clock$U/self/simple/0")" || die "no count from the remount"
	assert_eq "$(umount_once "$d")" ok "umount of an idle mount"
	if [ -n "$second_pid" ]; then
		wait_exit "$second_pid"
		second_pid=
	fi
	[ "$PERFCTR_BACKEND" != kernel ] || assert_eq "$(splats)" "$splat0" "kernel log splats (see dmesg)"
}

@test "130-lifetime: no counter left held" {
	assert_no_leak
}
