# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # FUSE_RC and FUSE_PID are for the sourcing script
#
# The FUSE mount harness of the test stages, sourced by tests/run-fuse.sh,
# tests/tools/run.sh and tests/stress/run-sanitized.sh: start a daemon,
# wait until it has mounted, unmount it and reap it, keep its log.
#
#   fuse_mounted DIR            is DIR a FUSE mount (in /proc/self/mounts)?
#   fuse_start MNT LOG SECS CMD...
#                               run CMD... in the background, its stdout
#                               and stderr to LOG, without fds 3 (bats)
#                               and 9 (the stage lock); FUSE_PID is its
#                               pid.  Waits SECS at most for MNT to be
#                               mounted; on failure prints LOG to stderr
#                               and returns 1 (the daemon may still run:
#                               fuse_cleanup stops it)
#   fuse_stop MNT SECS          fusermount3 -u MNT, then wait SECS at most
#                               for the daemon to exit: FUSE_RC is its exit
#                               status, 124 while it still runs; FUSE_PID
#                               is emptied once it has been reaped
#   fuse_cleanup MNT            for an EXIT trap: unmount what is still
#                               mounted (lazily if need be), give a daemon
#                               still running 5 s, then TERM, then KILL
#   fuse_suite_copy TOP DIR     a private copy of the suite and its helper
#                               binaries in DIR (tests/bats,
#                               tests/helpers/bin, and packaging/ for the
#                               tests of its unit) that every user can
#                               read, wherever the clone is
#
# The sourcing script defines log MESSAGE (its progress, on stderr).

FUSE_PID=
FUSE_RC=

fuse_mounted() {
	grep -qs " $1 fuse" /proc/self/mounts
}

fuse_start() {
	local mnt=$1 logf=$2 secs=$3 i
	shift 3
	"$@" > "$logf" 2>&1 3>&- 9>&- &
	FUSE_PID=$!
	for ((i = 0; i < secs * 10; i++)); do
		fuse_mounted "$mnt" && return 0
		kill -0 "$FUSE_PID" 2>/dev/null || break
		sleep 0.1
	done
	fuse_mounted "$mnt" && return 0
	cat "$logf" >&2
	return 1
}

fuse_stop() {
	local mnt=$1 secs=$2 i
	timeout 10 fusermount3 -u "$mnt" || log "fusermount3 -u failed"
	FUSE_RC=124
	for ((i = 0; i < secs * 10; i++)); do
		if ! kill -0 "$FUSE_PID" 2>/dev/null; then
			wait "$FUSE_PID"
			FUSE_RC=$?
			FUSE_PID=
			return 0
		fi
		sleep 0.1
	done
	return 0
}

fuse_cleanup() {
	local mnt=$1 i
	if [ -n "$mnt" ] && fuse_mounted "$mnt"; then
		timeout 10 fusermount3 -u "$mnt" 2>/dev/null ||
			timeout 10 umount -l "$mnt" 2>/dev/null
	fi
	if [ -n "$FUSE_PID" ] && kill -0 "$FUSE_PID" 2>/dev/null; then
		for i in $(seq 1 50); do
			kill -0 "$FUSE_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -TERM "$FUSE_PID" 2>/dev/null
		sleep 1
		kill -KILL "$FUSE_PID" 2>/dev/null
	fi
	return 0
}

fuse_suite_copy() {
	local top=$1 dir=$2
	mkdir -p "$dir/tests/helpers" &&
		cp -r "$top/tests/bats" "$dir/tests/bats" &&
		cp -r "$top/tests/helpers/bin" "$dir/tests/helpers/bin" &&
		cp -r "$top/packaging" "$dir/packaging" &&
		chmod -R a+rX "$dir"
}
