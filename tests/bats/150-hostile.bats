#!/usr/bin/env bats
#
# The threat model (Documentation/filesystems/perfctrfs.rst, "Security
# model"): any local user, root of a user namespace or a container
# included, sends hostile names, concurrently, and gains nothing that
# perf_event_open(2) would refuse them: no count, no sample, no oracle, no
# denial of service beyond their own share.  Each test here is an attack
# that succeeded on some earlier version of one backend; it runs against
# both, as root and as a user, and says why it skips where it does.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
	export LC_ALL=C
}

teardown() {
	kill_bg_jobs
	restore_paranoid
	true
}

# ---- lookups are pure: both backends ------------------------------------
#
# A lookup or readdir never creates a perf event for a name the caller
# composed (interface.md, "Lookup is pure; open decides").  perf numbers
# every event it makes from one global counter, which the lookupid helper
# reads before and after its lookups: "made 0" means nothing anywhere,
# kernel or daemon, made a perf event meanwhile.

# The PMUs of the running kernel, by their sysfs names.
have_pmu() { [ -d "/sys/bus/event_source/devices/$1" ]; }

# pure_lookups EXPECT NAME...: under each CPU directory in turn ("all",
# then online CPUs: fresh names each time, so nothing is answered from
# a cache), look every NAME up; each must answer EXPECT (or ENOENT for a
# PMU this kernel lacks), and on at least one round no perf event may
# have been made (one round suffices: other processes' events only add).
# Skips when perf_event_open(2) refuses this caller the counting event.
pure_lookups() {
	local expect=$1 dirs d n out made=x rounds=0 bad=
	shift
	dirs="all $(online_cpus | head -n 3)"
	for d in $dirs; do
		local paths=()
		for n; do paths+=("$M/$d/$n"); done
		out=$("$H/lookupid" ${PURE_STRING:+-s "$PURE_STRING"} "${paths[@]}")
		case $out in noperf*) skip "perf_event_open(2) refuses this caller a counting event: ${out#noperf }" ;; esac
		rounds=$((rounds + 1))
		local i=0 r
		while IFS= read -r r; do
			case $r in
			made\ *)
				[ "$made" = 0 ] || made=${r#made }
				continue
				;;
			esac
			[ "$r" = "$expect" ] || [ "$r" = ENOENT ] || bad+=" $d/${paths[$i]##*/}->$r"
			i=$((i + 1))
		done <<< "$out"
		[ "$made" = 0 ] && [ $rounds -ge 1 ] && break
	done
	[ -z "$bad" ] || die "lookups answered:$bad"
	assert_eq "$made" 0 "perf events made by lookups of composed names"
}

@test "150-hostile: a lookup of a composed name makes no perf event" {
	pure_lookups dir software.config=3 software.config=0x5 0x4064 \
		"task_clock:u+page_faults:k+software.config=0x2" \
		tracepoint.config=1 tracepoint.config=0x2 \
		kprobe.config2=0xffffffff81000000 breakpoint.config=0x1 \
		uprobe.config1=0x1000,config2=0x10
}

@test "150-hostile: readdir makes no perf event and lists no composed name" {
	local out d round made=x
	# the catalogue was probed at mount (or hotplug): a listing reads it
	for round in 1 2 3; do
		out=$("$H/lookupid" "$M/all/" $(online_cpus | head -n 2 | sed "s|.*|$M/&/|"))
		case $out in noperf*) skip "perf_event_open(2) refuses this caller a counting event" ;; esac
		made=$(echo "$out" | sed -n 's/^made //p')
		[ "$made" = 0 ] && break
	done
	assert_eq "$made" 0 "perf events made by listing CPU directories: $out"
	run names_of "$M/all"
	[ "$status" -eq 0 ]
	! echo "$output" | grep -qE '=|^0x' || die "composed names listed: $output"
}

@test "150-hostile: tracepoint.config=1 (ftrace's function tracer) registers nothing at lookup" {
	have_pmu tracepoint || skip "no tracepoint PMU in this kernel"
	pure_lookups dir tracepoint.config=1 tracepoint.config=0x1:u \
		"tracepoint.config=1+tracepoint.config=2"
}

@test "150-hostile: a kprobe lookup arms nothing and answers alike for kernel text and garbage" {
	have_pmu kprobe || skip "no kprobe PMU in this kernel"
	local text
	text=$(awk '$3 == "vfs_read" && $2 ~ /^[Tt]$/ { print $1; exit }' /proc/kallsyms 2>/dev/null)
	[ -n "$text" ] && [ -n "${text//0/}" ] ||
		skip "kernel addresses are hidden from this user (kallsyms shows zeros): root's run poses the oracle"
	text=0x$(echo "$text" | sed 's/^0*//')
	local a b
	a=$(lookup "$M/all/kprobe.config2=$text") b=$(lookup "$M/all/kprobe.config2=0x1")
	assert_eq "$a" "$b" "lookup of a kprobe at kernel text ($text) vs at 0x1"
	a=$(lookup "$M/0/kprobe.retprobe=1,config2=$text") b=$(lookup "$M/0/kprobe.retprobe=1,config2=0x1")
	assert_eq "$a" "$b" "lookup of a kretprobe at kernel text vs at 0x1, CPU 0"
	pure_lookups dir "kprobe.config2=$text" "kprobe.retprobe=1,config2=$text"
}

@test "150-hostile: a uprobe lookup does not tell whether a file exists where the caller cannot look" {
	have_pmu uprobe || skip "no uprobe PMU in this kernel"
	local d=$BATS_TEST_TMPDIR/closed run_as=() yes no
	mkdir -p "$d"
	echo secret > "$d/exists"
	if is_root; then
		# root may look anywhere: the oracle is for another user
		require_user perfctr-t1
		chmod 700 "$d"
		as_user_argv perfctr-t1
		run_as=("${AS_USER[@]}")
		chmod 755 "$BATS_TEST_TMPDIR"
	else
		chmod 000 "$d"
	fi
	[ "$("${run_as[@]}" "$H/fsop" stat "$d/exists" | cut -d' ' -f1)" = EACCES ] ||
		{ chmod 755 "$d"; skip "this caller can look into a 0700 directory of another user"; }
	yes=$("${run_as[@]}" "$H/lookupid" -s "$d/exists" "$M/all/uprobe.config1=%p,config2=0x0" "$M/0/uprobe.config1=%p,config2=0x0")
	no=$("${run_as[@]}" "$H/lookupid" -s "$d/absent" "$M/all/uprobe.config1=%p,config2=0x0" "$M/0/uprobe.config1=%p,config2=0x0")
	chmod 755 "$d"
	case $yes in noperf*) skip "perf_event_open(2) refuses this caller a counting event" ;; esac
	assert_eq "$(echo "$yes" | grep -v '^made')" "$(echo "$no" | grep -v '^made')" \
		"lookups naming a file that exists vs one that does not"
	assert_eq "$(echo "$yes" | sed -n 's/^made //p')" 0 "perf events made by the lookups (existing file)"
	assert_eq "$(echo "$no" | sed -n 's/^made //p')" 0 "perf events made by the lookups (absent file)"
}

@test "150-hostile: composed term values have one spelling: leading zeros and upper case are ENOENT" {
	local n r bad=
	for n in software.config=01 software.config=0x01 software.config=00 \
		software.config=0x0a software.config=0X1 software.config=0xA \
		software.config=0x0000000000000001 \
		"task_clock+software.config=007"; do
		r=$(lookup "$M/all/$n")
		[ "$r" = ENOENT ] || bad+=" $n->$r"
	done
	[ -z "$bad" ] || die "not ENOENT:$bad"
	for n in software.config=1 software.config=0x1 software.config=0 \
		software.config=0x0 software.config=0xa software.config=10; do
		r=$(lookup "$M/all/$n")
		[ "$r" = dir ] || bad+=" $n->$r"
	done
	[ -z "$bad" ] || die "did not resolve:$bad"
}

@test "150-hostile: a composed raw code resolves, and its open gives perf's errno for the opener" {
	local want got
	assert_eq "$(lookup "$M/all/0x4064")" dir "lookup of all/0x4064"
	want=$("$H/perfopen" "4:0x4064:u" | cut -d' ' -f1)
	got=$("$H/fsop" open "$(leaf all 0x4064:u self simple 0)" rdonly) || true
	assert_eq "$got" "$want" "open of all/0x4064:u vs perf_event_open(2)"
}

# ---- the kernel filesystem ----------------------------------------------

require_kernel() {
	[ "$PERFCTR_BACKEND" = kernel ] || skip "the kernel filesystem's: $1"
}

# nest_script FILE LEAF MAX: FILE N holds LEAF open once per level, one
# leafio each, up to MAX levels ("held MAX"), or prints leafio's
# "open <ERRNO>" and "failed at N" for the level that could not open it.
nest_script() {
	cat > "$1" <<-EOF
	#!/bin/sh
	[ "\$1" -ge $3 ] && { echo "held \$1"; exit 0; }
	"$H/leafio" "$2" sh="$1 \$((\$1 + 1))" || echo "failed at \$1"
	EOF
	chmod 755 "$1"
}

@test "150-hostile: irq rings are charged as perf's ring buffers: EPERM past the locked-memory limits" {
	require_kernel "the FUSE daemon's perf rings are its own (root's) locked memory"
	local run_as=() d script l out out2
	if is_root; then
		# root has CAP_IPC_LOCK: the limit is for a user
		require_user perfctr-t1
		as_user_argv perfctr-t1
		run_as=("${AS_USER[@]}")
	fi
	d=$(extra_dir)
	script=$d/nest.sh
	l=$(leaf all page_faults:u self irq 1000)
	nest_script "$script" "$l" 64
	# with RLIMIT_MEMLOCK 0, only the perf_event_mlock_kb allowance
	# (516 KiB a CPU by default) is left: a few 96 KiB rings
	out=$("${run_as[@]}" sh -c "ulimit -l 0 && exec $script 0" 2>&1)
	# closed, they are uncharged: one opens again
	out2=$("${run_as[@]}" sh -c "ulimit -l 0 && exec $H/leafio $l sleep=1" 2>&1)
	rm -rf "$d"
	echo "$out" | grep -qx 'open EPERM' || die "no EPERM within 64 irq leaves: $out"
	assert_match "$out" "failed at [1-9]" "irq leaves held before EPERM"
	assert_eq "$out2" "" "an irq leaf opened after the others closed"
}

@test "150-hostile: a user's time-period timers are bounded: ENOSPC past 100 leaves of 1ms" {
	require_kernel "the FUSE daemon's timers are its own"
	local script=$BATS_TEST_TMPDIR/nest.sh out
	nest_script "$script" "$(leaf all task_clock$U self simple 1ms)" 120
	out=$("$script" 0 2>&1)
	echo "$out" | grep -qx 'open ENOSPC' || die "no ENOSPC within 120 1ms leaves: $(echo "$out" | tail -n 3)"
	assert_match "$out" "failed at 100" "1ms leaves held before ENOSPC"
	# the budget is the user's whole: longer periods cost less
	out=$("$H/leafio" "$(leaf all task_clock$U self simple 1s)" sleep=1 2>&1)
	assert_eq "$out" "" "a 1s leaf opened after the others closed"
}

@test "150-hostile: a setuid exec of a process target ends its count-period stream" {
	require_kernel "the FUSE daemon's side of a setuid exec is not this test's"
	require_user perfctr-t1
	local d out pid
	# busybox run as "sleep", setuid root: perf treats the exec as an exit
	require_cmd busybox
	d=$(extra_dir)
	cp "$(command -v busybox)" "$d/sleep"
	chmod 4755 "$d/sleep"
	as_user_argv perfctr-t1
	"${AS_USER[@]}" /bin/sh -c "sleep 2; exec $d/sleep $((60 * SLOW))" 3>&- &
	pid=$!
	# one line per second of task time: the sleeping target never gets there
	out=$(timeout $((30 * SLOW)) "$H/leafio" "$(leaf all task_clock "$pid" simple 1000000000)" read read)
	kill -0 "$pid" 2>/dev/null || { rm -rf "$d"; die "the target exited: the test proves nothing"; }
	kill "$pid"
	rm -rf "$d"
	assert_eq "$(echo "$out" | sed -n 2p)" EOF "the stream after the setuid exec: $out"
	is_count "$(echo "$out" | sed -n 1p)" || die "no last line: $out"
}

@test "150-hostile: mount options show ids as the reader's user namespace maps them" {
	require_kernel "FUSE shows its own mount options"
	require_root
	require_cmd unshare
	local d out
	d=$(extra_dir)
	mount_extra "$d" uid=1000,gid=1000
	out=$(unshare -U -r grep " $d " /proc/self/mountinfo 2>&1) ||
		{ umount_extra "$d"; skip "no user namespaces here: $out"; }
	umount_extra "$d"
	# 1000 is not mapped in a namespace that maps only root: overflow ids
	assert_match "$out" "uid=65534,gid=65534" "mountinfo in a new user namespace"
	! echo "$out" | grep -q "uid=1000" || die "init_user_ns ids shown: $out"
}

# ---- the FUSE daemon ----------------------------------------------------

@test "150-hostile: no counter left held" {
	assert_no_leak
}
