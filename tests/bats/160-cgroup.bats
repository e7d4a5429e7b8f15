#!/usr/bin/env bats
#
# cgroup targets: cgroup.<id> at the pid level counts the tasks of a
# cgroup v2 directory (and its descendants), as perf's
# PERF_FLAG_PID_CGROUP does; <id> is the directory's inode number.
#
# What is checked: the grammar at the mount (malformed names are ENOENT);
# lookup, readdir and user.perfctr.cgroup for the cgroups the caller can
# open, and nothing of the others (a directory it cannot open, a cgroup
# outside its cgroup namespace, an inode of cgroupfs that is not a
# directory); counts (a spinner's cgroup rises and its sibling's stays 0,
# a parent sums its children, perf stat -a -G agrees); removal ends
# streams (last line, EOF, POLLHUP); and perf's own permission rule, by
# comparing with what perf_event_open answers the same user.
#
# Runs against either backend: both resolve cgroups through a cgroup2
# mount (the FUSE daemon's, the kernel's one cgroup2 superblock), which
# the guest's /init makes.  Needs that mount and a kernel with
# CONFIG_CGROUP_PERF, or every test that counts skips saying which is
# missing.  Creating cgroups needs root: the user run checks what a user
# sees of the cgroups that exist.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
	T=$BATS_TEST_TMPDIR
	B= U1= X=
}

teardown() {
	restore_paranoid
	kill_bg_jobs
	[ -z "$B" ] || cg_remove "$B"
	[ -z "$X" ] || umount_extra "$X"
}

# ---- helpers of this file ----------------------------------------------

# The cgroup2 mount point, from mountinfo (the first cgroup2 mount).
cg_mount() { awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo; }

# Skip unless this machine has cgroup v2 with perf's cgroup support; sets CG.
require_cgroup() {
	CG=$(cg_mount)
	[ -n "$CG" ] || skip "no cgroup2 mount on this machine"
	grep -qw '^perf_event' /proc/cgroups 2>/dev/null ||
		skip "kernel without CONFIG_CGROUP_PERF (no perf_event in /proc/cgroups)"
}

# As require_cgroup, and root with a fresh cgroup of this test's in $B.
require_cgroup_root() {
	require_cgroup
	require_root
	B=$CG/perfctrfs-bats.$$.$BATS_TEST_NUMBER
	mkdir "$B" || { B=; skip "cannot create a cgroup under $CG"; }
}

cg_id() { stat -c %i "$1"; }

# Remove cgroup DIR and everything below it, once their tasks are gone.
# (names may hold spaces, tabs and quotes: never word-split, never eval'd)
cg_remove() {
	local d p i
	find "$1" -depth -type d -print0 2>/dev/null > "$T/cg.rm"
	while IFS= read -r -d '' d; do
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null
		done
		for i in $(seq 1 $((100 * SLOW))); do
			rmdir "$d" 2>/dev/null || [ ! -d "$d" ] && break
			sleep 0.1
		done
		[ -d "$d" ] && echo "# cannot remove cgroup $d" >&2
	done < "$T/cg.rm"
	return 0
}

# start_in DIR SPIN-ARGS...: run spin in cgroup DIR in the background
# (it joins the cgroup before it execs); its pid in $spid.
start_in() {
	local d=$1
	shift
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$d" \
		"$H/spin" "$@" 3>&- &
	spid=$!
}

# Users for the permission tests, or a skip.
require_users() {
	set -- $PERFCTR_USERS
	U1=$1
	ensure_user "$U1" || skip "cannot create user $U1"
	as_user "$U1" "$H/fsop" stat "$H/leafio" >/dev/null ||
		skip "helpers in $H are not reachable by $U1"
}

# What opening LEAF gives USER: "ok" or the errno name.
open_as() {
	local out
	out=$(as_user "$1" "$H/leafio" "$2" read 2>&1) || true
	if is_count "$out"; then echo ok; else echo "${out#open }"; fi
}

# What perf_event_open gives USER for perfopen's ARGS: "ok" or the errno.
perf_as() {
	local u=$1 out
	shift
	out=$(as_user "$u" "$H/perfopen" "$@" 2>&1) || true
	out=${out#opendir }
	echo "${out%% *}"
}

# ---- names ---------------------------------------------------------------

@test "cgroup names that do not parse are ENOENT at the mount" {
	local n
	for n in cgroup. cgroup cgroup.0 cgroup.00 cgroup.01 cgroup.-1 \
		cgroup.+1 cgroup.0x1 cgroup.1x cgroup..1 cgroup.1. cgroup.self \
		CGROUP.1 Cgroup.1 cgroups.1 cgroup_1 cgroup:1 \
		cgroup.18446744073709551616 cgroup.99999999999999999999; do
		assert_eq "$(lookup "$M/all/cpu_clock/$n")" ENOENT "lookup of $n"
	done
}

@test "a cgroup id that names no cgroup directory is ENOENT" {
	require_cgroup
	# the largest id that parses, and the inode of a cgroupfs file
	assert_eq "$(lookup "$M/all/cpu_clock/cgroup.18446744073709551615")" ENOENT "an id no cgroup has"
	assert_eq "$(lookup "$M/all/cpu_clock/cgroup.$(cg_id "$CG/cgroup.procs")")" ENOENT \
		"the inode of cgroup.procs, a file"
}

@test "the cgroup2 root is listed, looks up, and its path is /" {
	require_cgroup
	local id
	id=$(cg_id "$CG")
	names_of "$M/all/cpu_clock" | grep -qxF "cgroup.$id" ||
		die "cgroup.$id (the cgroup2 root) not listed"
	assert_eq "$(lookup "$M/0/cpu_clock/cgroup.$id")" dir "lookup"
	assert_eq "$("$H/xattr" "$M/all/cpu_clock/cgroup.$id" user.perfctr.cgroup)" / \
		"user.perfctr.cgroup"
	assert_eq "$(lookup "$M/all/cpu_clock/cgroup.$id/times/1s")" file "a leaf below it"
}

@test "every listed cgroup looks up and names a cgroup2 directory with that id" {
	require_cgroup
	local n id p
	for n in $(names_of "$M/all/cpu_clock" | grep '^cgroup\.'); do
		id=${n#cgroup.}
		p=$("$H/xattr" "$M/all/cpu_clock/$n" user.perfctr.cgroup) ||
			{ [ ! -e "$M/all/cpu_clock/$n" ] && continue; die "no path for $n"; }
		# removed meanwhile is fine; else the path must be that cgroup
		[ -d "$CG$p" ] || continue
		assert_eq "$(cg_id "$CG$p")" "$id" "inode of $CG$p"
	done
}

@test "opening a cgroup counter gives exactly what perf_event_open gives this caller" {
	require_cgroup
	local id ours theirs
	id=$(cg_id "$CG")
	ours=$("$H/leafio" "$(leaf 0 cpu_clock "cgroup.$id" simple 0)" read 2>&1) || true
	theirs=$("$H/perfopen" -G "$CG" -C 0 1:0 2>&1)
	if [[ $theirs == ok* ]]; then
		is_count "$ours" || die "perf counts, perfctrfs says '$ours'"
	else
		assert_eq "${ours#open }" "$theirs" "errno"
	fi
}

# ---- counts --------------------------------------------------------------

@test "two sibling cgroups: the spinner's counts its CPU time, the other's 0" {
	require_cgroup_root
	require_event cpu_clock
	local a b va vb
	mkdir "$B/a" "$B/b"
	a=$(cg_id "$B/a") b=$(cg_id "$B/b")
	exec 5< "$(leaf all cpu_clock "cgroup.$a" simple 0)"
	exec 6< "$(leaf all cpu_clock "cgroup.$b" simple 0)"
	start_in "$B/a" -c 0.3
	wait "$spid"
	read -r va <&5
	read -r vb <&6
	exec 5<&- 6<&-
	assert_ge "$va" 250000000 "cpu_clock of the spinner's cgroup (0.3 s of CPU)"
	assert_eq "$vb" 0 "cpu_clock of its empty sibling"
}

@test "a cgroup on one CPU counts only what runs there" {
	require_cgroup_root
	require_cmd taskset
	[ "$(online_cpus | wc -l)" -ge 2 ] || skip "needs two online CPUs"
	local id c0 c1 v0 v1
	set -- $(online_cpus)
	c0=$1 c1=$2
	mkdir "$B/pin"
	id=$(cg_id "$B/pin")
	exec 5< "$(leaf "$c0" cpu_clock "cgroup.$id" simple 0)"
	exec 6< "$(leaf "$c1" cpu_clock "cgroup.$id" simple 0)"
	# pinned before it joins the cgroup, so nothing of it runs elsewhere
	taskset -c "$c0" sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" -c 0.2' \
		sh "$B/pin" "$H/spin" 3>&- &
	wait $!
	read -r v0 <&5
	read -r v1 <&6
	exec 5<&- 6<&-
	assert_ge "$v0" 150000000 "cpu_clock of the cgroup on CPU $c0, where it spun"
	assert_eq "$v1" 0 "cpu_clock of the cgroup on CPU $c1"
}

@test "a parent cgroup counts its children: its count is their sum, as perf's" {
	require_cgroup_root
	require_event cpu_clock
	local p c1 c2 vp v1 v2 s1 sum diff
	mkdir -p "$B/p/c1" "$B/p/c2"
	p=$(cg_id "$B/p") c1=$(cg_id "$B/p/c1") c2=$(cg_id "$B/p/c2")
	exec 5< "$(leaf all cpu_clock "cgroup.$p" simple 0)"
	exec 6< "$(leaf all cpu_clock "cgroup.$c1" simple 0)"
	exec 7< "$(leaf all cpu_clock "cgroup.$c2" simple 0)"
	start_in "$B/p/c1" -c 0.3
	s1=$spid
	start_in "$B/p/c2" -c 0.2
	wait "$s1" "$spid"
	read -r vp <&5
	read -r v1 <&6
	read -r v2 <&7
	exec 5<&- 6<&- 7<&-
	assert_ge "$v1" 250000000 "child 1 (0.3 s of CPU)"
	assert_ge "$v2" 150000000 "child 2 (0.2 s of CPU)"
	# the same switches start and stop every counter: 2% and 5 ms apart
	sum=$((v1 + v2))
	diff=$((vp > sum ? vp - sum : sum - vp))
	assert_le "$diff" $((sum / 50 + 5000000)) "parent $vp against children $v1 + $v2"
}

@test "a group on a cgroup target reads its members and times together" {
	require_cgroup_root
	require_event cpu_clock
	require_event task_clock
	local id out
	mkdir "$B/g"
	id=$(cg_id "$B/g")
	exec 5< "$(leaf all cpu_clock+task_clock "cgroup.$id" times 0)"
	start_in "$B/g" -c 0.2
	wait "$spid"
	read -r out <&5
	exec 5<&-
	assert_match "$out" '^[1-9][0-9]* [1-9][0-9]* [1-9][0-9]* [1-9][0-9]*$' "group line"
	set -- $out
	assert_ge "$1" 150000000 "cpu_clock member"
	assert_ge "$2" 150000000 "task_clock member"
}

@test "perfctrfs agrees with perf stat -a -G on the same cgroup (within 10% + 50 ms)" {
	require_cgroup_root
	require_cmd perf
	require_event cpu_clock
	local id rel out ours perf_ns
	mkdir "$B/cmp"
	id=$(cg_id "$B/cmp")
	rel=${B#"$CG"/}/cmp
	start_in "$B/cmp" $((30 * SLOW))
	# our counter is opened and read inside perf's window: perf's count
	# is ours plus what the spinner ran before and after, never less
	out=$(perf stat -a -x, -e cpu-clock -G "$rel" -- \
		"$H/leafio" "$(leaf all cpu_clock "cgroup.$id" simple 0)" sleep=2000 pread=0 \
		2> "$T/perf.csv") || die "perf stat failed: $(cat "$T/perf.csv")"
	ours=$out
	perf_ns=$(awk -F, '$3 == "cpu-clock" && $1 ~ /^[0-9.]+$/ { printf "%d", $1 * 1000000 }' "$T/perf.csv")
	echo "# perfctrfs $ours ns, perf stat -a -G $perf_ns ns" >&3
	is_count "$ours" || die "perfctrfs read '$ours'"
	is_count "$perf_ns" || die "perf stat printed no count: $(cat "$T/perf.csv")"
	assert_ge "$ours" 100000000 "the spinner's cgroup over 2 s"
	assert_ge "$perf_ns" "$((ours * 99 / 100))" "perf stat's count, whose window holds ours"
	assert_le "$perf_ns" "$((ours * 110 / 100 + 50000000))" "perf stat's count"
}

# ---- lifetime --------------------------------------------------------------

@test "removing a cgroup ends its streams: the last line, EOF, POLLHUP, and ENOENT" {
	require_cgroup_root
	local id
	mkdir "$B/gone"
	id=$(cg_id "$B/gone")
	run timeout $((30 * SLOW)) "$H/leafio" "$(leaf all cpu_clock "cgroup.$id" simple 100ms)" \
		read sh="rmdir '$B/gone'" readall poll=1000
	[ "$status" -eq 0 ] || die "leafio: status $status: $output"
	is_count "${lines[0]}" || die "first line '${lines[0]}'"
	is_count "${lines[1]}" || die "no last line after the removal: ${lines[*]}"
	assert_match "$output" $'\nEOF\n' "EOF after the removal"
	assert_match "${lines[-1]}" POLLHUP "poll after the removal"
	assert_eq "$(lookup "$M/all/cpu_clock/cgroup.$id")" ENOENT "lookup after the removal"
	names_of "$M/all/cpu_clock" | grep -qxF "cgroup.$id" && die "still listed" || true
}

@test "a period-N stream of a removed cgroup ends, and so does one on a CPU" {
	require_cgroup_root
	local id c
	c=$(online_cpus | head -n 1)
	mkdir "$B/gone2"
	id=$(cg_id "$B/gone2")
	"$H/leafio" "$(leaf all cpu_clock "cgroup.$id" simple 1000000)" readall > "$T/n.out" 3>&- &
	"$H/leafio" "$(leaf "$c" cpu_clock "cgroup.$id" times 1s)" readall > "$T/t.out" 3>&- &
	sleep 1
	rmdir "$B/gone2"
	wait_until "grep -qx EOF '$T/n.out' && grep -qx EOF '$T/t.out'" $((300)) ||
		die "streams still open 30 s after the removal: $(cat "$T/n.out" "$T/t.out")"
	assert_eq "$(tail -n 2 "$T/n.out" | head -n 1)" 0 "last line of the period-N stream"
}

# ---- who sees what -----------------------------------------------------------

@test "a user without CPU-wide permission gets perf's errno, one with it a count" {
	require_cgroup_root
	require_users
	[ -w "$PARANOID" ] || skip "no writable $PARANOID"
	local id p ours theirs
	mkdir "$B/perm"
	id=$(cg_id "$B/perm")
	for p in 2 1 0 -1; do
		set_paranoid "$p"
		ours=$(open_as "$U1" "$(leaf 0 cpu_clock "cgroup.$id" simple 0)")
		theirs=$(perf_as "$U1" -G "$B/perm" -C 0 1:0)
		assert_eq "$ours" "$theirs" "paranoid $p: perfctrfs against perf_event_open"
	done
	# perf's rule for a cgroup: CPU-wide, refused above paranoid 0
	set_paranoid 1
	assert_eq "$(open_as "$U1" "$(leaf 0 cpu_clock "cgroup.$id" simple 0)")" EACCES "paranoid 1"
	set_paranoid -1
	assert_eq "$(open_as "$U1" "$(leaf all cpu_clock "cgroup.$id" simple 0)")" ok "paranoid -1, cpu all"
}

@test "a cgroup its caller cannot open is not listed and does not look up" {
	require_cgroup_root
	require_users
	local s i
	mkdir -p "$B/secret/inner"
	chmod 700 "$B/secret"
	s=$(cg_id "$B/secret") i=$(cg_id "$B/secret/inner")
	# root can
	assert_eq "$(lookup "$M/all/cpu_clock/cgroup.$s")" dir "root's lookup"
	assert_eq "$(lookup "$M/all/cpu_clock/cgroup.$i")" dir "root's lookup of inner"
	# the user cannot open either directory, so neither exists for it
	assert_eq "$(perf_as "$U1" -G "$B/secret" -C 0 1:0)" EACCES "the user's own open of the directory"
	assert_eq "$(as_user "$U1" "$H/fsop" stat "$M/all/cpu_clock/cgroup.$s" | cut -d' ' -f1)" ENOENT "user's lookup"
	assert_eq "$(as_user "$U1" "$H/fsop" stat "$M/all/cpu_clock/cgroup.$i" | cut -d' ' -f1)" ENOENT "user's lookup of inner"
	as_user "$U1" "$H/fsop" readdir "$M/all/cpu_clock" > "$T/list"
	grep -qE " cgroup\.($s|$i)\$" "$T/list" && die "listed to the user: $(grep cgroup "$T/list")" || true
	assert_eq "$(as_user "$U1" "$H/leafio" "$M/all/cpu_clock/cgroup.$s/simple/0" read 2>&1)" "open ENOENT" "user's open"
}

@test "a cgroup outside the caller's cgroup namespace does not look up; paths start at its root" {
	require_cgroup_root
	require_cmd unshare
	# busybox's unshare (the guest's) has no -C
	unshare -C true 2>/dev/null || skip "unshare cannot make a cgroup namespace (-C)"
	local in sub out
	mkdir -p "$B/ns/in/sub" "$B/out"
	in=$(cg_id "$B/ns/in") sub=$(cg_id "$B/ns/in/sub") out=$(cg_id "$B/out")
	# a shell that joins ns/in, then makes a cgroup namespace rooted there
	sh -c 'echo $$ > "$1/cgroup.procs" && exec unshare -C sh -c "
		for n in $2 $3 $4 $5; do
			echo \"\$n \$(\"$6/fsop\" stat \"$7/cgroup.\$n\" | cut -d\" \" -f1)\"
		done
		echo \"path \$(\"$6/xattr\" \"$7/cgroup.$2\" user.perfctr.cgroup)\"
		echo \"path \$(\"$6/xattr\" \"$7/cgroup.$3\" user.perfctr.cgroup)\"
		\"$6/fsop\" readdir \"$7\" | grep -c \" cgroup\\.\""' \
		sh "$B/ns/in" "$in" "$sub" "$out" "$(cg_id "$CG")" "$H" "$M/all/cpu_clock" \
		> "$T/ns.out" 2>&1 3>&- || die "unshare -C failed: $(cat "$T/ns.out")"
	run cat "$T/ns.out"
	assert_eq "${lines[0]}" "$in dir" "its namespace root"
	assert_eq "${lines[1]}" "$sub dir" "a cgroup below its root"
	assert_eq "${lines[2]}" "$out ENOENT" "a sibling outside its namespace"
	assert_eq "${lines[3]}" "$(cg_id "$CG") ENOENT" "the hierarchy's root"
	assert_eq "${lines[4]}" "path /" "user.perfctr.cgroup of its root"
	assert_eq "${lines[5]}" "path /sub" "user.perfctr.cgroup below its root"
	assert_eq "${lines[6]}" 2 "cgroups listed inside the namespace"
}

# A caller in another cgroup namespace: a shell that joins cgroup $1,
# unshares a cgroup namespace rooted there, says so in file $2, waits
# for file $3, then execs the rest (the same pid all along: $! is it).
in_cgns_bg() {
	local d=$1 ready=$2 go=$3
	shift 3
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec unshare -C sh -c "
		touch \"\$0\"; while [ ! -e \"\$1\" ]; do sleep 0.01; done
		shift; exec \"\$@\"" "$@"' sh "$d" "$ready" "$go" "$@" 3>&- &
}

@test "a caller moving between cgroups while it looks up never reaches above its namespace root" {
	require_cgroup_root
	require_cmd unshare
	unshare -C true 2>/dev/null || skip "unshare cannot make a cgroup namespace (-C)"
	local out pid res n=$((3000 * SLOW))
	# its namespace is rooted at q; q/x and q/q/x end alike, so a path
	# read as q/x from outside and as /q/x from inside, a move apart,
	# puts the root one level up, at $B, where "out" is
	mkdir -p "$B/q/x" "$B/q/q/x" "$B/out"
	out=$(cg_id "$B/out")
	in_cgns_bg "$B/q" "$T/ready" "$T/go" "$H/hashflood" count "$M/all/cpu_clock/cgroup.$out" "$n" > "$T/race.out"
	pid=$!
	wait_until "[ -e '$T/ready' ]" 100 || die "the caller did not start"
	touch "$T/go"
	while kill -0 "$pid" 2>/dev/null; do
		{ echo "$pid" > "$B/q/x/cgroup.procs"; } 2>/dev/null || true
		{ echo "$pid" > "$B/q/q/x/cgroup.procs"; } 2>/dev/null || true
	done
	wait "$pid" || die "hashflood failed: $(cat "$T/race.out")"
	res=$(cat "$T/race.out")
	echo "# $n lookups of a cgroup outside the namespace, moving: $res" >&3
	assert_match "$res" '^found 0 last ENOENT$' "lookups above the namespace root"
}

@test "a caller in another cgroup namespace costs the daemon no process a request" {
	require_fuse
	require_cgroup_root
	require_cmd unshare
	require_cmd perf
	unshare -C true 2>/dev/null || skip "unshare cannot make a cgroup namespace (-C)"
	local sub pid n=200 forks
	mkdir -p "$B/fk/in/sub"
	sub=$(cg_id "$B/fk/in/sub")
	# one of each first (an opener may start for it), then timed:
	# lookups, readdirs and xattr reads
	in_cgns_bg "$B/fk/in" "$T/ready" "$T/go" sh -c '
		M=$0 H=$1 sub=$2 n=$3
		"$H/fsop" stat "$M/cgroup.$sub" > /dev/null
		"$H/fsop" readdir "$M" > /dev/null
		touch "$4"; while [ ! -e "$5" ]; do sleep 0.01; done
		"$H/hashflood" time "$M/cgroup.$sub" "$n" > /dev/null || exit 1
		for i in $(seq 1 20); do
			"$H/fsop" readdir "$M" > /dev/null
			"$H/xattr" "$M/cgroup.$sub" user.perfctr.cgroup > /dev/null || exit 1
		done' "$M/all/cpu_clock" "$H" "$sub" "$n" "$T/warm" "$T/timed"
	pid=$!
	wait_until "[ -e '$T/ready' ]" 100 || die "the caller did not start"
	touch "$T/go"
	wait_until "[ -e '$T/warm' ]" 300 || die "the caller's first requests did not end"
	# the daemon's forks (its threads and what they fork) while it serves them
	perf stat -x, -e sched:sched_process_fork -p "$PERFCTR_DAEMON_PID" -o "$T/perf.csv" -- \
		sh -c 'touch "$1"; while kill -0 "$2" 2>/dev/null; do sleep 0.05; done' sh "$T/timed" "$pid" ||
		die "perf stat: $(cat "$T/perf.csv")"
	wait "$pid" || die "the caller's requests failed"
	forks=$(awk -F, '$3 ~ /sched_process_fork/ { print $1 }' "$T/perf.csv")
	is_count "$forks" || die "no fork count: $(cat "$T/perf.csv")"
	echo "# $n lookups, 20 readdirs and 20 xattr reads from another cgroup namespace: $forks forks of the daemon" >&3
	# a new worker thread is a fork to the tracepoint too, and libfuse
	# makes them as requests come: a tenth of the requests, not one each
	assert_le "$forks" $(((n + 40) / 10)) "the daemon's forks for $((n + 40)) requests"
}

# flood_phase NAME [spin]: $U1 looks up NAME in each directory of $DIRS,
# one process each, at once (FUSE serialises the lookups of one
# directory), while root's leaf $V is read; prints the best of three
# times of $N preads of it (ns).  With spin, $U1 also burns a CPU, as its
# opener does while it walks: any user may, and the bound is on workers.
flood_phase() {
	local d t best= pids=()
	as_user_argv "$U1"
	[ "${2:-}" != spin ] || { "${AS_USER[@]}" "$H/spin" 300 > /dev/null 3>&- & pids+=($!); }
	for d in $DIRS; do
		"${AS_USER[@]}" "$H/hashflood" count "$d/$1" 100000000 > /dev/null 3>&- &
		pids+=($!)
	done
	sleep 1
	for i in 1 2 3; do
		# a starved reader takes minutes: 60 s is a failure already
		t=$(timeout 60 "$H/hashflood" reads "$V" "$N") || t=60000000000
		[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
	done
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	echo "$best"
}

@test "a user's flood of cgroup lookups holds no more than its share of the daemon: another's reads stay live" {
	require_fuse
	require_cgroup_root
	require_users
	local i e c cheap walk
	N=100 DIRS=
	# 16 event directories: more lookups at once than the daemon has workers
	for c in all $(online_cpus | head -n 1); do
		for e in $(events_of | grep -v '[.+]' | head -n 8); do
			DIRS="$DIRS $M/$c/$e"
		done
	done
	# a delegated subtree of 3,660 cgroups, which every walk of U1 visits
	mkdir "$B/atk"
	(cd "$B/atk" && mkdir $(seq 1 60) && for i in $(seq 1 60); do (cd "$i" && mkdir $(seq 1 60)); done) ||
		die "cannot make the subtree"
	chown -R "$U1" "$B/atk"
	V=$(leaf 0 cpu_clock self simple 0)
	# the control: as many lookups of a pid that does not exist, which
	# identify the caller as a cgroup's do but wait on no opener, and a
	# CPU burnt by the same user; then of an id that no cgroup has, which
	# walks the whole tree each time
	cheap=$(flood_phase 999999999 spin)
	walk=$(flood_phase cgroup.18446744073709551615)
	echo "# $N preads of root's leaf while $U1 looks up in $(echo $DIRS | wc -w) directories at once: $((cheap / 1000)) us against lookups of a missing pid, $((walk / 1000)) us against cgroup walks" >&3
	find "$B/atk" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true
	assert_le "$walk" $((cheap * 3)) "ns for $N preads while $U1's lookups walk (against lookups of a missing pid: $cheap)"
}

@test "a removed cgroup's leaf gives back its cgroup.events unit at once" {
	require_fuse
	require_cgroup_root
	require_users
	[ -w "$PARANOID" ] || skip "no writable $PARANOID"
	local r1 r2 out
	# 4 units: a cgroup leaf on one CPU holds 2 (its counter and its
	# cgroup.events) and takes 3 while it opens (its directory too)
	X=$(extra_dir)
	mount_extra "$X" max_counters=4
	set_paranoid -1
	mkdir "$B/r1" "$B/r2"
	chown "$U1" "$B"
	r1=$(cg_id "$B/r1") r2=$(cg_id "$B/r2")
	# the first leaf (period N, non-blocking: its reads see the removal)
	# stays open across the removal of its cgroup; then a second leaf on
	# another cgroup
	out=$(as_user "$U1" "$H/leafio" -n "$X/0/cpu_clock/cgroup.$r1/simple/1000000000000" read \
		sh="rmdir '$B/r1'" read read \
		sh="'$H/leafio' '$X/0/cpu_clock/cgroup.$r2/simple/0' read" 2>&1) || true
	echo "# $(echo $out)" >&3
	set -- $out
	assert_eq "$1" EAGAIN "the first leaf's read, before"
	is_count "$2" || die "the first leaf's last line after its cgroup's removal: $out"
	assert_eq "$3" EOF "the first leaf after its last line"
	is_count "$4" || die "the second leaf, with the first one's cgroup gone: '$4' (all: $out)"
}

@test "a user's directory handles at the pid level hold at most 128 KiB of cgroup ids" {
	require_fuse
	require_cgroup_root
	require_users
	[ -n "${PERFCTR_DAEMON_PID:-}" ] || die "PERFCTR_DAEMON_PID is not set"
	local i rss0 rss1 grew out S
	# where the user and the test signal each other ($T is root's alone)
	S=$(mktemp -d /tmp/perfctr-cg.XXXXXX) && chmod 777 "$S" || die "mktemp"
	# 2,000 cgroups the user can open: 16 KiB of ids in each listing
	mkdir "$B/many"
	(cd "$B/many" && mkdir $(seq 1 40) && for i in $(seq 1 40); do (cd "$i" && mkdir $(seq 1 49)); done) ||
		die "cannot make the cgroups"
	names_of "$M/all/cpu_clock" > /dev/null
	rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PERFCTR_DAEMON_PID/status")
	# the user holds 200 handles on a pid level (max_dirs is 256); run as
	# the job itself (not in a function's subshell), so that teardown's
	# kill_bg_jobs ends it if the test fails before it says done
	as_user_argv "$U1"
	"${AS_USER[@]}" bash -c '
		n=0
		for i in $(seq 1 200); do
			{ exec {fd}<"$1"; } 2>/dev/null && n=$((n + 1))
		done
		echo "$n" > "$2"
		while [ ! -e "$3" ]; do sleep 0.1; done' sh "$M/all/cpu_clock" "$S/held" "$S/done" 3>&- &
	wait_until "[ -s '$S/held' ]" 1200 || { touch "$S/done"; die "the handles were not opened"; }
	rss1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PERFCTR_DAEMON_PID/status")
	out=$(as_user "$U1" "$H/fsop" open "$M/all/cpu_clock") || true
	i=$(cat "$S/held")
	touch "$S/done"
	wait
	rm -rf "$S"
	find "$B/many" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true
	grew=$((rss1 > rss0 ? rss1 - rss0 : 0))
	echo "# $U1 held $i handles of $M/all/cpu_clock with 2,000 cgroups; the daemon's VmRSS grew by $grew KiB; one more: $out" >&3
	if grep -q libasan "/proc/$PERFCTR_DAEMON_PID/maps" 2>/dev/null; then
		echo "# the daemon runs under ASan: its VmRSS growth is not held to the bound" >&3
	else
		# 200 listings of 2,000 ids are 3.1 MiB; 16,384 ids a user, 128 KiB
		assert_le "$grew" 1024 "growth of the daemon's VmRSS (KiB) while they were held"
	fi
}

@test "a cgroup walk stops after 16,384 directories tried, with ELOOP" {
	require_fuse
	require_cgroup_root
	local i t0 out b
	# 16,640 cgroups: more than one walk may try
	mkdir "$B/big"
	(cd "$B/big" && mkdir $(seq 1 130) && for i in $(seq 1 130); do (cd "$i" && mkdir $(seq 1 127)); done) ||
		die "cannot make the cgroups"
	b=$(cg_id "$B")
	t0=$SECONDS
	out=$(lookup "$M/all/cpu_clock/cgroup.18446744073709551615")
	echo "# an id no cgroup has, among 16,640 cgroups: $out in $((SECONDS - t0)) s" >&3
	# its parent is found on the way down, before the subtree
	assert_eq "$(lookup "$M/all/cpu_clock/cgroup.$b")" dir "a cgroup found before the cap"
	names_of "$M/all/cpu_clock" | grep -q '^cgroup\.' || die "no cgroup listed past the cap"
	find "$B/big" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true
	assert_eq "$out" ELOOP "lookup of an id past the walk's cap"
}

@test "hostile cgroup names come back whole in user.perfctr.cgroup" {
	require_cgroup_root
	local n id got
	# (cgroupfs itself refuses a newline in a name)
	for n in $'sp ace' 'back\slash' 'cgroup.1' '..dots' $'tab\there' \
		'%s%n' "$(printf 'x%.0s' $(seq 1 200))"; do
		mkdir "$B/$n" || die "mkdir of '$n'"
		id=$(cg_id "$B/$n")
		got=$("$H/xattr" "$M/all/cpu_clock/cgroup.$id" user.perfctr.cgroup)
		assert_eq "$got" "/${B#"$CG"/}/$n" "path of '$n'"
		assert_eq "$(lookup "$M/all/cpu_clock/cgroup.$id/simple/0")" file "leaf below '$n'"
	done
}

@test "160-cgroup: no counter left held" {
	assert_no_leak
}
