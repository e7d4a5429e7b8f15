#!/usr/bin/env bats
# make install, and real mounts through the systemd unit's command lines
# and through the fstab line, each checked by counting through them.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	require_root
	D=$BATS_TEST_TMPDIR/root
	# Not under BATS_TEST_TMPDIR (0700): another user must reach it.
	MP=$(mktemp -d /tmp/perfctrfs-tools-mp.XXXXXX)
	chmod 0755 "$MP"
}

teardown() {
	if grep -qs " $MP fuse" /proc/self/mounts; then
		timeout 10 fusermount3 -u "$MP" || timeout 10 umount -l "$MP"
	fi
	[ -n "${dpid:-}" ] && kill "$dpid" 2>/dev/null
	rmdir "$MP" 2>/dev/null
	return 0
}

mounted() { grep -qs " $1 fuse" /proc/self/mounts; }

wait_mounted() {
	local i
	for i in $(seq 1 100); do
		mounted "$1" && return 0
		sleep 0.1
	done
	return 1
}

# The pids of processes whose command line names our mount point.
daemons_on() {
	local f
	for f in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' <"$f" 2>/dev/null | grep -qF " $1 " && { f=${f#/proc/}; echo "${f%/cmdline}"; }
	done
	return 0
}

@test "make install: daemon, tools, man pages, unit and docs where PREFIX and DESTDIR say" {
	run make -s -C "$TOP/packaging" install DESTDIR="$D" PREFIX=/usr
	[ "$status" -eq 0 ]
	[ -x "$D/usr/sbin/perfctrfs-fuse" ]
	for t in perfctr-stat perfctr-list perfctr-top perfctr-prom; do
		[ -x "$D/usr/bin/$t" ]
		[ -f "$D/usr/share/man/man1/$t.1" ]
	done
	[ -f "$D/usr/share/man/man8/perfctrfs-fuse.8" ]
	[ "$(stat -c %a "$D/lib/systemd/system/perfctrfs.service")" = 644 ]
	[ -f "$D/usr/share/doc/perfctrfs/perfctrfs.rst" ]
	[ -x "$D/usr/share/doc/perfctrfs/examples/count.sh" ]
	# The installed tools work from where they were installed.
	run "$D/usr/bin/perfctr-stat" --mount "$M" -x, -e task_clock -- true
	[ "$status" -eq 0 ]
	[[ $output == *,msec,task_clock,* ]]
	run make -s -C "$TOP/packaging" uninstall DESTDIR="$D" PREFIX=/usr
	[ "$status" -eq 0 ]
	[ -z "$(find "$D" -type f)" ]
}

@test "make install PREFIX=/usr/local puts programs under it" {
	run make -s -C "$TOP/packaging" install DESTDIR="$D" PREFIX=/usr/local
	[ "$status" -eq 0 ]
	[ -x "$D/usr/local/sbin/perfctrfs-fuse" ]
	[ -x "$D/usr/local/bin/perfctr-stat" ]
	[ -f "$D/usr/local/share/man/man1/perfctr-stat.1" ]
}

@test "perfctrfs.service: its ExecStart mounts a tree that counts, its ExecStop unmounts it" {
	unit=$TOP/packaging/perfctrfs.service
	grep -qx 'Type=simple' "$unit"
	# The unit's own lines, with the installed paths pointed at this tree.
	start=$(awk -F= '$1 == "ExecStart" { sub(/^ExecStart=/, ""); print }' "$unit")
	stop=$(awk -F= '$1 == "ExecStop" { sub(/^ExecStop=/, ""); print }' "$unit")
	pre=$(awk -F= '$1 == "ExecStartPre" { sub(/^ExecStartPre=/, ""); print }' "$unit")
	[ "$start" = "/usr/sbin/perfctrfs-fuse -f -o allow_other,auto_unmount /dev/perfctr" ]
	[[ $stop == *"fusermount3 -u /dev/perfctr" ]]
	rmdir "$MP"
	sub() { sed -e "s|/usr/sbin/perfctrfs-fuse|$PERFCTR_FUSE_BIN|" -e "s|/dev/perfctr|$MP|g" <<<"$1"; }
	# each ExecStartPre line in order; systemd ignores the failure of
	# one that starts with "-"
	while read -r line; do
		if [[ $line == -* ]]; then
			eval "$(sub "${line#-}")" 2>/dev/null || true
		else
			eval "$(sub "$line")"
		fi
	done <<<"$pre"
	[ -d "$MP" ]
	eval "$(sub "$start")" 3>&- &
	dpid=$!
	wait_mounted "$MP"
	grep " $MP " /proc/self/mounts | grep -q allow_other
	v=$(cat "$MP/all/task_clock/self/simple/0")
	[ "$v" -gt 0 ]
	# Another user may look in (allow_other).
	run setpriv --reuid=65534 --regid=65534 --clear-groups ls "$MP/all"
	[ "$status" -eq 0 ]
	[[ $output == *task_clock* ]]
	eval "$(sub "$stop")"
	! mounted "$MP"
	# Type=simple: the daemon is the service's main process, and ends 0.
	timeout 10 tail --pid="$dpid" -f /dev/null
	wait "$dpid"
	dpid=
}

@test "perfctrfs.service: systemd-analyze verify accepts it" {
	require_cmd systemd-analyze
	u=$BATS_TEST_TMPDIR/perfctrfs.service
	sed -e "s|/usr/sbin/perfctrfs-fuse|$PERFCTR_FUSE_BIN|" "$TOP/packaging/perfctrfs.service" >"$u"
	# --man=no: the pages are installed by make install, not here.
	run --separate-stderr systemd-analyze verify --man=no "$u"
	echo "$stderr"
	[ "$status" -eq 0 ]
	! grep -i "perfctrfs.service" <<<"$stderr"
}

@test "fstab: mount -a -T through mount.fuse3 starts the daemon, which counts and leaves on umount" {
	require_cmd mount.fuse3
	run make -s -C "$TOP/packaging" install DESTDIR="$D" PREFIX=/usr
	[ "$status" -eq 0 ]
	line=$(grep -v '^#' "$TOP/packaging/fstab.example" | grep -m1 'perfctrfs-fuse')
	read -r src dir type opts dump pass <<<"$line"
	[ "$src $dir $type" = "perfctrfs-fuse /dev/perfctr fuse" ]
	# The same line, with the daemon at its installed path under DESTDIR
	# (mount gives helpers a fixed PATH) and our mount point.
	printf '%s %s %s %s %s %s\n' "$D/usr/sbin/perfctrfs-fuse" "$MP" "$type" "$opts" "$dump" "$pass" \
		>"$BATS_TEST_TMPDIR/fstab"
	run timeout 20 mount -a -T "$BATS_TEST_TMPDIR/fstab"
	[ "$status" -eq 0 ]
	mounted "$MP"
	grep " $MP " /proc/self/mounts | grep -q allow_other
	v=$(cat "$MP/all/page_faults/self/simple/0")
	[ "$v" -gt 0 ]
	pids=$(daemons_on "$MP")
	[ -n "$pids" ]
	umount "$MP"
	! mounted "$MP"
	for i in $(seq 1 50); do
		[ -z "$(daemons_on "$MP")" ] && break
		sleep 0.1
	done
	[ -z "$(daemons_on "$MP")" ]
}

@test "perfctrfs-fuse.8: uid=, gid= and mode= do what the page says" {
	# mode=0640: leaves rw-r-----, directories r-xr-x--- (5 where any bit).
	"$PERFCTR_FUSE_BIN" -f -o allow_other,uid=65534,gid=65534,mode=0640 "$MP" 3>&- &
	dpid=$!
	wait_mounted "$MP"
	[ "$(stat -c '%a %u %g' "$MP/all/task_clock/self/simple/0")" = "640 65534 65534" ]
	[ "$(stat -c '%a %u %g' "$MP/all/task_clock")" = "550 65534 65534" ]
	fusermount3 -u "$MP"
	timeout 10 tail --pid="$dpid" -f /dev/null
	dpid=
}
