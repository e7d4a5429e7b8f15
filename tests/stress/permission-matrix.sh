#!/bin/bash
# The permission matrix: the same requests through a perfctrfs mount and
# to perf_event_open(2), by the same caller, cell by cell.
#
#   callers    root, user1, user2, user1 with only CAP_PERFMON (ambient,
#              through tests/helpers' runas --perfmon), and where the
#              machine lets users make namespaces: user1 as root of a new
#              user namespace (unshare -Ur: every capability there, none
#              that perf honours), and user1 as pid 1 of a new pid
#              namespace (unshare -Urpf --mount-proc)
#   paranoid   -1, 0, 1, 2   (kernel.perf_event_paranoid, restored on exit)
#   targets    self, another user's process, pid 1, CPU-wide (cpu 0, all)
#   events     context_switches and context_switches:u
#   PMUs that act when an event is made, with and without :u, for self
#   and CPU-wide: a tracepoint (sched_switch, when tracefs is there), a
#   kprobe at vfs_read, a uprobe without a path, a breakpoint without a
#   type (each exists only where the kernel has the PMU)
#   namespaces user1 as root of a new user namespace, root in a new pid
#              namespace: context_switches, self and CPU-wide
#
# Each cell is "mount errno / perf errno" ("ok" for success) and must
# agree.  Then the mount options: a second mount with uid=user1,gid=user1,
# mode=0600, where the owner gets perf's answer and everyone else EACCES
# from the kernel's default_permissions (root too is let in: DAC override).
#
#   tests/stress/permission-matrix.sh                 own FUSE mounts
#   PERFCTR_MNT=/dev/perfctr PERFCTR_BACKEND=kernel tests/stress/permission-matrix.sh
#
# Prints the matrix (stderr and as TAP comments) and TAP: one line a
# paranoid level, one for the mount options.  Needs root.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
H=${PERFCTR_HELPERS:-$top/tests/helpers/bin}
daemon=${PERFCTR_FUSE_BIN:-$top/proto-fuse/perfctrfs-fuse}
backend=${PERFCTR_BACKEND:-fuse}
u1=${PERFCTR_USER1:-perfctr-t1}
u2=${PERFCTR_USER2:-perfctr-t2}
mnt=${PERFCTR_MNT:-} work= pids=() dpids=() n=0 fail=0 tracefs_mounted=
orig=$(cat /proc/sys/kernel/perf_event_paranoid)

tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
mounted() { grep -qs " $1 " /proc/self/mounts; }

cleanup() {
	local m
	echo "$orig" > /proc/sys/kernel/perf_event_paranoid
	for m in "$work/mnt" "$work/mnt2"; do
		[ -n "$work" ] && mounted "$m" && { timeout 10 fusermount3 -u "$m" ||
						    timeout 10 umount -l "$m"; }
	done
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	[ ${#dpids[@]} -gt 0 ] && kill "${dpids[@]}" 2>/dev/null
	[ -n "$work" ] && rm -rf "$work"
	[ -n "$tracefs_mounted" ] && umount "$tracefs_mounted"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root"; exit 0; }
# perf_event_paranoid is one per host: no other fuse stage meanwhile
# (a busybox guest has no flock(1), and no other stage either)
exec 9> /tmp/perfctrfs-fuse-stage.lock
if command -v flock > /dev/null; then
	flock -w 1800 9 || { echo "1..1"; echo "not ok 1 - matrix: stage lock busy"; exit 1; }
else
	echo "# no flock(1) here: the matrix runs without the stage lock"
fi
for u in "$u1" "$u2"; do
	id "$u" >/dev/null 2>&1 || useradd -M -U -s /bin/sh "$u" >&2 ||
		{ echo "1..1"; echo "not ok 1 - matrix: cannot create user $u"; exit 1; }
done
# from a source tree, always make (a no-op when current); a guest has binaries
if [ -f "$top/tests/helpers/Makefile" ] && command -v make > /dev/null; then
	make -s -C "$top/tests/helpers" >&2
fi
work=$(mktemp -d /tmp/perfctrfs-matrix.XXXXXX)
chmod 755 "$work"

mount_at() {
	mkdir -p "$1"
	"$daemon" -f -o "allow_other${2:+,$2}" "$1" > "$work/daemon.log" 2>&1 9>&- &
	dpids+=($!)
	for _ in $(seq 1 100); do
		mounted "$1" && return 0
		sleep 0.1
	done
	return 1
}
if [ -z "$mnt" ]; then
	mnt=$work/mnt
	mount_at "$mnt" || { echo "1..1"; echo "not ok 1 - matrix: no mount"; exit 1; }
fi

uid1=$(id -u "$u1") gid1=$(id -g "$u1") uid2=$(id -u "$u2") gid2=$(id -g "$u2")
# run "$@" as caller $1
as() {
	local who=$1
	shift
	case $who in
	root) "$@" ;;
	user1) "$H/runas" "$uid1" "$gid1" "$@" ;;
	user2) "$H/runas" "$uid2" "$gid2" "$@" ;;
	perfmon) "$H/runas" --perfmon "$uid1" "$gid1" "$@" ;;
	userns) "$H/runas" "$uid1" "$gid1" unshare -Ur "$@" ;;
	pidns) "$H/runas" "$uid1" "$gid1" unshare -Urpf --mount-proc "$@" ;;
	esac
}

# a long-lived process of each user, for "another user's pid"
"$H/runas" "$uid1" "$gid1" sleep 600 &
pids+=($!); p_u1=$!
"$H/runas" "$uid2" "$gid2" sleep 600 &
pids+=($!); p_u2=$!
sleep 0.2

# the mount's answer: "ok" or the errno name
via_mount() {
	local r
	r=$(as "$1" "$H/leafio" "$2" read 2>&1 | head -1)
	case $r in
	"open "*) echo "${r#open }" ;;
	[0-9]*) echo ok ;;
	*) echo "?$r" ;;
	esac
}
via_perf() {
	local r
	r=$(as "$1" "$H/perfopen" "${@:2}" 2>&1 | head -1)
	case $r in
	ok*) echo ok ;;
	*) echo "$r" ;;
	esac
}

callers="root user1 user2 perfmon"
if as userns true 2>/dev/null && as pidns true 2>/dev/null; then
	callers="$callers userns pidns"
else
	echo "# no unprivileged user and pid namespaces here: without those callers"
fi
ncallers=$(echo $callers | wc -w)
# caller check: the perfmon caller (runas --perfmon, also in a busybox
# guest) really holds CAP_PERFMON and no other
capeff=$(as perfmon grep CapEff /proc/self/status | awk '{print $2}')
[ "$capeff" = 0000004000000000 ] || { echo "1..1"; echo "not ok 1 - matrix: perfmon caller has CapEff $capeff"; exit 1; }

printf '%-4s %-8s %-7s %-4s %s\n' par caller target mod "mount/perf" > "$work/matrix"
for par in -1 0 1 2; do
	echo "$par" > /proc/sys/kernel/perf_event_paranoid
	bad=0 cells=0
	for who in $callers; do
		other=$p_u2
		[ "$who" = user2 ] && other=$p_u1
		for tgt in self other pid1 cpuwide; do
			for mod in "" ":u"; do
				ev=context_switches$mod
				case $tgt in
				self) path=all/$ev/self/simple/0 popt=(-p 0) ;;
				other) path=all/$ev/$other/simple/0 popt=(-p "$other") ;;
				pid1) path=all/$ev/1/simple/0 popt=(-p 1) ;;
				cpuwide) path=0/$ev/all/simple/0 popt=(-p -1 -C 0) ;;
				esac
				m=$(via_mount "$who" "$mnt/$path")
				p=$(via_perf "$who" "${popt[@]}" "1:0x3$mod")
				# another user's pid is not in a new pid namespace:
				# its name resolves to nothing, ENOENT at lookup;
				# perf says ESRCH, or EACCES where its paranoid
				# check comes before the pid's
				if [ "$who/$tgt/$m" = pidns/other/ENOENT ] &&
					{ [ "$p" = ESRCH ] || [ "$p" = EACCES ]; }; then
					m=$p
				fi
				cells=$((cells + 1))
				mark=
				[ "$m" = "$p" ] || { mark=" <-- DISAGREE"; bad=$((bad + 1)); }
				printf '%-4s %-8s %-7s %-4s %s/%s%s\n' "$par" "$who" "$tgt" \
					"${mod:-  }" "$m" "$p" "$mark" >> "$work/matrix"
			done
		done
	done
	tap "$([ $bad = 0 ]; echo $?)" "paranoid $par: $cells cells, $bad disagree ($ncallers callers x 4 targets x :u)"
done

# The PMUs whose event_init acts: "name path-event perfopen-spec" rows.
# Their cells compare errnos above all: perf core checks for both.
pmu_type() { cat "/sys/bus/event_source/devices/$1/type" 2>/dev/null; }
probe_rows=()
tracefs=/sys/kernel/tracing
if [ ! -d $tracefs/events ] && mount -t tracefs nodev $tracefs 2>/dev/null; then
	tracefs_mounted=$tracefs
fi
if t=$(pmu_type tracepoint) && id=$(cat $tracefs/events/sched/sched_switch/id 2>/dev/null); then
	probe_rows+=("tracepoint tracepoint.config=$id $t:$id")
fi
addr=$(awk '$3 == "vfs_read" && $2 ~ /^[Tt]$/ { print $1; exit }' /proc/kallsyms)
addr=$(echo "$addr" | sed 's/^0*//')
if t=$(pmu_type kprobe) && [ -n "$addr" ]; then
	probe_rows+=("kprobe kprobe.config2=0x$addr $t:0/0/0x$addr")
fi
if t=$(pmu_type uprobe); then
	probe_rows+=("uprobe uprobe.config2=0x10 $t:0/0/0x10")
fi
if t=$(pmu_type breakpoint); then
	probe_rows+=("bp breakpoint.config=0x0 $t:0")
fi
callers_ns="userns pidns"
# as(): two callers more, in namespaces of their own
as_ns() {
	case $1 in
	userns) "$H/runas" "$uid1" "$gid1" unshare -U -r "${@:2}" ;;
	pidns) unshare -p -f "${@:2}" ;;
	*) as "$@" ;;
	esac
}
via_mount_ns() {
	local r
	r=$(as_ns "$1" "$H/leafio" "$2" read 2>&1 | head -1)
	case $r in
	"open "*) echo "${r#open }" ;;
	[0-9]*) echo ok ;;
	*) echo "?$r" ;;
	esac
}
via_perf_ns() {
	local r
	r=$(as_ns "$1" "$H/perfopen" "${@:2}" 2>&1 | head -1)
	case $r in
	ok*) echo ok ;;
	*) echo "$r" ;;
	esac
}
ns_ok=1
for who in $callers_ns; do
	r=$(as_ns "$who" true 2>&1) || { ns_ok=0; echo "# no $who caller here: $r"; }
done
for par in -1 0 1 2; do
	echo "$par" > /proc/sys/kernel/perf_event_paranoid
	bad=0 cells=0
	for row in "${probe_rows[@]}"; do
		read -r kind pev pspec <<< "$row"
		for who in $callers; do
			for tgt in self cpuwide; do
				for mod in "" ":u"; do
					case $tgt in
					self) path=all/$pev$mod/self/simple/0 popt=(-p 0) ;;
					cpuwide) path=0/$pev$mod/all/simple/0 popt=(-p -1 -C 0) ;;
					esac
					m=$(via_mount "$who" "$mnt/$path")
					p=$(via_perf "$who" "${popt[@]}" "$pspec$mod")
					cells=$((cells + 1))
					mark=
					[ "$m" = "$p" ] || { mark=" <-- DISAGREE"; bad=$((bad + 1)); }
					printf '%-4s %-8s %-7s %-4s %s/%s%s\n' "$par" "$who" "$tgt" \
						"$kind${mod:-  }" "$m" "$p" "$mark" >> "$work/matrix"
				done
			done
		done
	done
	tap "$([ $bad = 0 ]; echo $?)" "paranoid $par, PMUs that act (${#probe_rows[@]}: $(for r in "${probe_rows[@]}"; do printf '%s ' "${r%% *}"; done)): $cells cells, $bad disagree"
	[ $ns_ok = 1 ] || continue
	bad=0 cells=0
	for who in $callers_ns; do
		for tgt in self cpuwide; do
			for mod in "" ":u"; do
				case $tgt in
				self) path=all/context_switches$mod/self/simple/0 popt=(-p 0) ;;
				cpuwide) path=0/context_switches$mod/all/simple/0 popt=(-p -1 -C 0) ;;
				esac
				m=$(via_mount_ns "$who" "$mnt/$path")
				p=$(via_perf_ns "$who" "${popt[@]}" "1:0x3$mod")
				cells=$((cells + 1))
				mark=
				[ "$m" = "$p" ] || { mark=" <-- DISAGREE"; bad=$((bad + 1)); }
				printf '%-4s %-8s %-7s %-4s %s/%s%s\n' "$par" "$who" "$tgt" \
					"${mod:-  }" "$m" "$p" "$mark" >> "$work/matrix"
			done
		done
	done
	tap "$([ $bad = 0 ]; echo $?)" "paranoid $par, callers in new user and pid namespaces: $cells cells, $bad disagree"
done
echo "$orig" > /proc/sys/kernel/perf_event_paranoid

# mount options: uid/gid/mode cells
if [ "$backend" = fuse ]; then
	echo 1 > /proc/sys/kernel/perf_event_paranoid
	mount_at "$work/mnt2" "uid=$uid1,gid=$gid1,mode=0600"
	bad=0 cells=0
	for who in $callers; do
		m=$(via_mount "$who" "$work/mnt2/all/context_switches/self/simple/0")
		case $who in
		user2) want=EACCES ;;	# neither owner nor group: the mode says no
		*) want=$(via_perf "$who" -p 0 1:0x3) ;;
		esac
		cells=$((cells + 1))
		mark=
		[ "$m" = "$want" ] || { mark=" <-- DISAGREE"; bad=$((bad + 1)); }
		printf '%-4s %-8s %-7s %-4s %s/%s%s\n' 1 "$who" "uid1,0600" "" "$m" "$want" "$mark" >> "$work/matrix"
	done
	st=$(stat -c '%u:%g %a' "$work/mnt2/all/context_switches/self/simple/0")
	dst=$(stat -c '%a' "$work/mnt2/all")
	ok=$([ "$bad" = 0 ] && [ "$st" = "$uid1:$gid1 600" ] && [ "$dst" = 500 ]; echo $?)
	tap "$ok" "mount -o uid=$u1,gid=$u1,mode=0600: $cells cells, $bad disagree; leaf $st, dir $dst"
	echo "$orig" > /proc/sys/kernel/perf_event_paranoid
fi
sed 's/^/# /' "$work/matrix"
sed 's/^/matrix: /' "$work/matrix" >&2
now=$(cat /proc/sys/kernel/perf_event_paranoid)
tap "$([ "$now" = "$orig" ]; echo $?)" "perf_event_paranoid restored to $now (was $orig)"
echo "1..$n"
exit $fail
