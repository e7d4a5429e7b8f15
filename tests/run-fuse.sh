#!/bin/bash
# Stage "fuse": the conformance suite (tests/bats) against the FUSE daemon.
#
# Builds proto-fuse and the test helpers, mounts the daemon with
# allow_other on a private temporary directory, runs the suite as root and
# then as an unprivileged user, and prints one TAP stream on stdout: the
# root run's tests named "[root] ...", the user run's "[user] ...",
# numbered 1..N across both.  Then unmounts and checks the daemon exited 0.
# Exits non-zero on any failure.  Progress goes to stderr.
#
# Environment: PERFCTR_TEST_USER (default perfctr-t1) is the unprivileged
# user, created when missing; BATS_FILTER is passed to bats --filter;
# PERFCTR_DAEMON is the daemon to mount, built by the caller (default:
# proto-fuse/perfctrfs-fuse, built here), for example
#   make -C proto-fuse SANITIZE=1
#   PERFCTR_DAEMON=proto-fuse/perfctrfs-fuse-asan ASAN_OPTIONS=... tests/run-fuse.sh
# The daemon gets ASAN_OPTIONS and UBSAN_OPTIONS; the suite does not.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/fuse-mount.sh"
user=${PERFCTR_TEST_USER:-perfctr-t1}
work= mnt=

log() { echo "run-fuse: $*" >&2; }

# Print a single failing TAP line and exit: a stage that cannot run fails.
abort() {
	log "$*"
	echo "1..1"
	echo "not ok 1 fuse stage setup: $*"
	exit 1
}

cleanup() {
	fuse_cleanup "$mnt"
	[ -n "$work" ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || abort "needs root (mounts with allow_other, runs as a second user)"
command -v bats >/dev/null || abort "bats not installed (scripts/deps.sh)"

# checked before the wait for the lock below: a typo fails at once
if [ -n "${PERFCTR_DAEMON:-}" ]; then
	daemon=$(realpath -e "$PERFCTR_DAEMON" 2>/dev/null) ||
		abort "PERFCTR_DAEMON=$PERFCTR_DAEMON does not exist"
	[ -f "$daemon" ] && [ -x "$daemon" ] ||
		abort "PERFCTR_DAEMON=$PERFCTR_DAEMON is not an executable file"
fi

# perf_event_paranoid is one per host and the permission tests set it: two
# fuse stages at once would change it under each other.  One at a time.
exec 9> /tmp/perfctrfs-fuse-stage.lock
flock -w 1800 9 || abort "another fuse stage still holds /tmp/perfctrfs-fuse-stage.lock"

if [ -n "${PERFCTR_DAEMON:-}" ]; then
	log "building tests/helpers"
else
	log "building proto-fuse and tests/helpers"
	make -s -C "$top/proto-fuse" >&2 || abort "make -C proto-fuse failed"
	daemon=$top/proto-fuse/perfctrfs-fuse
fi
make -s -C "$top/tests/helpers" >&2 || abort "make -C tests/helpers failed"
[ -x "$daemon" ] || abort "no $daemon after make"

# A private copy of the suite every user can read, wherever the clone is.
work=$(mktemp -d /tmp/perfctrfs-fuse.XXXXXX) || abort "mktemp failed"
fuse_suite_copy "$top" "$work" || abort "cannot copy the suite to $work"
mkdir -p "$work/mnt" && chmod a+rX "$work/mnt"
mnt=$work/mnt

log "mounting $daemon on $mnt"
fuse_start "$mnt" "$work/daemon.log" 10 "$daemon" -f -o allow_other "$mnt" ||
	abort "the daemon did not mount $mnt within 10 s"
dpid=$FUSE_PID

export PERFCTR_MNT=$mnt PERFCTR_BACKEND=fuse PERFCTR_DAEMON_PID=$dpid
export PERFCTR_HELPERS=$work/tests/helpers/bin PERFCTR_FUSE_BIN=$daemon
filter=()
[ -n "${BATS_FILTER:-}" ] && filter=(--filter "$BATS_FILTER")

# Each run is bounded (GNU timeout kills its whole process group): the
# two runs took 698-1033 s together beside the guests; 2400 s each is
# for a stuck run, not a slow one.  A run cut off is named in the TAP,
# and what its unfinished test changed (perf_event_paranoid) is put
# back before the next run, so that one failure does not become three.
pass_to=2400
paranoid=/proc/sys/kernel/perf_event_paranoid
paranoid0=$(cat "$paranoid")
# after_run TAG RC TAPFILE: name a cut-off run, restore perf_event_paranoid
after_run() {
	if [ "$2" = 124 ]; then
		log "the $1 run passed its ${pass_to}s bound and was killed"
		echo "not ok 999999 the $1 run passed its ${pass_to} s bound: the tests after the last one above did not run" >> "$3"
	fi
	if [ "$(cat "$paranoid")" != "$paranoid0" ]; then
		log "the $1 run left perf_event_paranoid at $(cat "$paranoid"): back to $paranoid0"
		echo "$paranoid0" > "$paranoid"
	fi
}

log "suite as root"
(cd "$work" && env -u ASAN_OPTIONS -u UBSAN_OPTIONS timeout "$pass_to" \
	bats --tap "${filter[@]}" tests/bats 9>&-) > "$work/root.tap" 2> "$work/root.err"
rc_root=$?
[ $rc_root -ne 0 ] && tail -20 "$work/root.err" >&2
after_run root $rc_root "$work/root.tap"

rc_user=0
if ! id "$user" >/dev/null 2>&1; then
	useradd -M -U -s /bin/sh "$user" >&2 || abort "cannot create user $user"
fi
log "suite as $user"
mkdir -p "$work/tmp-$user" && chown "$user" "$work/tmp-$user"
(cd "$work" && env -u ASAN_OPTIONS -u UBSAN_OPTIONS timeout "$pass_to" setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" \
	--clear-groups env HOME="$work/tmp-$user" TMPDIR="$work/tmp-$user" PATH="/usr/local/bin:/usr/bin:/bin" \
	bats --tap "${filter[@]}" tests/bats 9>&-) > "$work/user.tap" 2> "$work/user.err"
rc_user=$?
[ $rc_user -ne 0 ] && tail -20 "$work/user.err" >&2
after_run user $rc_user "$work/user.tap"

# One TAP stream: renumber, tag each run.
awk -v tags="root user" '
	BEGIN { split(tags, t, " ") }
	FNR == 1 { run++ }
	/^1\.\.[0-9]+/ { next }
	/^(not )?ok [0-9]+/ {
		n++
		not = ($1 == "not")
		sub(/^(not )?ok [0-9]+ ?/, "")
		out[++k] = (not ? "not ok " : "ok ") n " [" t[run] "] " $0
		next
	}
	{ out[++k] = $0 }
	END {
		print "1.." n
		for (i = 1; i <= k; i++)
			print out[i]
	}' "$work/root.tap" "$work/user.tap"

# A run that printed no test line at all is a failure of its own.
grep -qE '^(not )?ok [0-9]+' "$work/root.tap" || { log "root run printed no TAP"; rc_root=1; }
grep -qE '^(not )?ok [0-9]+' "$work/user.tap" || { log "user run printed no TAP"; rc_user=1; }

log "unmounting"
fuse_stop "$mnt" 10
rc_daemon=$FUSE_RC
[ $rc_daemon -eq 0 ] || { log "daemon $dpid exited $rc_daemon (124: still running)"; tail -20 "$work/daemon.log" >&2; }
log "root: exit $rc_root, user: exit $rc_user, daemon: exit $rc_daemon"
[ $rc_root -eq 0 ] && [ $rc_user -eq 0 ] && [ $rc_daemon -eq 0 ]
