#!/bin/bash
# Stage "tools": the tools, man pages, packaging and documentation tests
# (tests/tools/*.bats) against a real perfctrfs mount.
#
# With PERFCTR_MNT set to a mounted perfctrfs (as inside tests/run-fuse.sh)
# it runs against that.  Otherwise it builds proto-fuse, mounts the daemon
# with allow_other on a private temporary directory, runs the tests as
# root, unmounts and checks that the daemon exited 0.  TAP on stdout,
# progress on stderr, non-zero exit on any failure.
#
# Environment: BATS_FILTER is passed to bats --filter.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/fuse-mount.sh"
work="" mnt=""

log() { echo "tools: $*" >&2; }

abort() {
	log "$*"
	echo "1..1"
	echo "not ok 1 tools stage setup: $*"
	exit 1
}

cleanup() {
	fuse_cleanup "$mnt"
	[ -n "$work" ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v bats >/dev/null || abort "bats not installed (scripts/deps.sh)"
filter=()
[ -n "${BATS_FILTER:-}" ] && filter=(--filter "$BATS_FILTER")

log "building proto-fuse"
make -s -C "$top/proto-fuse" >&2 || abort "make -C proto-fuse failed"
make -s -C "$top/tools" >&2 || abort "make -C tools failed"
make -s -C "$top/tests/helpers" >&2 || abort "make -C tests/helpers failed"
daemon=$top/proto-fuse/perfctrfs-fuse
[ -x "$daemon" ] || abort "no $daemon after make"
export PERFCTR_FUSE_BIN=$daemon

if [ -n "${PERFCTR_MNT:-}" ]; then
	[ -d "$PERFCTR_MNT/all" ] || abort "PERFCTR_MNT=$PERFCTR_MNT is not a perfctrfs mount"
	log "running against PERFCTR_MNT=$PERFCTR_MNT"
	cd "$top" && exec timeout 900 bats --tap "${filter[@]}" tests/tools
fi

[ "$(id -u)" = 0 ] || abort "needs root (mounts with allow_other)"
work=$(mktemp -d /tmp/perfctrfs-tools.XXXXXX) || abort "mktemp failed"
chmod 0755 "$work"
mkdir -p "$work/mnt"
mnt=$work/mnt
log "mounting $daemon on $mnt"
fuse_start "$mnt" "$work/daemon.log" 10 "$daemon" -f -o allow_other "$mnt" ||
	abort "the daemon did not mount $mnt within 10 s"
dpid=$FUSE_PID

export PERFCTR_MNT=$mnt PERFCTR_DAEMON_PID=$dpid
(cd "$top" && timeout 900 bats --tap "${filter[@]}" tests/tools) > "$work/tools.tap" 2> "$work/tools.err"
rc=$?
cat "$work/tools.tap"
[ $rc -ne 0 ] && tail -20 "$work/tools.err" >&2
grep -qE '^(not )?ok [0-9]+' "$work/tools.tap" || { log "bats printed no TAP"; rc=1; }

log "unmounting"
fuse_stop "$mnt" 10
rc_daemon=$FUSE_RC
[ $rc_daemon -eq 0 ] || { log "daemon exited $rc_daemon (124: still running)"; tail -20 "$work/daemon.log" >&2; }
log "tests: exit $rc, daemon: exit $rc_daemon"
[ $rc -eq 0 ] && [ $rc_daemon -eq 0 ]
