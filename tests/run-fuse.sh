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
# user, created when missing; BATS_FILTER is passed to bats --filter.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
user=${PERFCTR_TEST_USER:-perfctr-t1}
work= dpid= mnt=

log() { echo "run-fuse: $*" >&2; }

# Print a single failing TAP line and exit: a stage that cannot run fails.
abort() {
	log "$*"
	echo "1..1"
	echo "not ok 1 fuse stage setup: $*"
	exit 1
}

mounted() { grep -qs " $1 fuse" /proc/self/mounts; }

cleanup() {
	local i
	if [ -n "$mnt" ] && mounted "$mnt"; then
		timeout 10 fusermount3 -u "$mnt" 2>/dev/null ||
			timeout 10 umount -l "$mnt" 2>/dev/null
	fi
	if [ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null; then
		for i in $(seq 1 50); do
			kill -0 "$dpid" 2>/dev/null || break
			sleep 0.1
		done
		kill -TERM "$dpid" 2>/dev/null
		sleep 1
		kill -KILL "$dpid" 2>/dev/null
	fi
	[ -n "$work" ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || abort "needs root (mounts with allow_other, runs as a second user)"
command -v bats >/dev/null || abort "bats not installed (scripts/deps.sh)"

# perf_event_paranoid is one per host and the permission tests set it: two
# fuse stages at once would change it under each other.  One at a time.
exec 9> /tmp/perfctrfs-fuse-stage.lock
flock -w 1800 9 || abort "another fuse stage still holds /tmp/perfctrfs-fuse-stage.lock"

log "building proto-fuse and tests/helpers"
make -s -C "$top/proto-fuse" >&2 || abort "make -C proto-fuse failed"
make -s -C "$top/tests/helpers" >&2 || abort "make -C tests/helpers failed"
daemon=$top/proto-fuse/perfctrfs-fuse
[ -x "$daemon" ] || abort "no $daemon after make"

# A private copy of the suite every user can read, wherever the clone is.
work=$(mktemp -d /tmp/perfctrfs-fuse.XXXXXX) || abort "mktemp failed"
mkdir -p "$work/mnt" "$work/tests/helpers"
cp -r "$top/tests/bats" "$work/tests/bats"
cp -r "$top/tests/helpers/bin" "$work/tests/helpers/bin"
chmod -R a+rX "$work"
mnt=$work/mnt

log "mounting $daemon on $mnt"
"$daemon" -f -o allow_other "$mnt" > "$work/daemon.log" 2>&1 3>&- 9>&- &
dpid=$!
for i in $(seq 1 100); do
	mounted "$mnt" && break
	kill -0 "$dpid" 2>/dev/null || break
	sleep 0.1
done
mounted "$mnt" || { cat "$work/daemon.log" >&2; abort "the daemon did not mount $mnt within 10 s"; }

export PERFCTR_MNT=$mnt PERFCTR_BACKEND=fuse PERFCTR_DAEMON_PID=$dpid
export PERFCTR_HELPERS=$work/tests/helpers/bin PERFCTR_FUSE_BIN=$daemon
filter=()
[ -n "${BATS_FILTER:-}" ] && filter=(--filter "$BATS_FILTER")

log "suite as root"
(cd "$work" && timeout 1200 bats --tap "${filter[@]}" tests/bats 9>&-) > "$work/root.tap" 2> "$work/root.err"
rc_root=$?
[ $rc_root -ne 0 ] && tail -20 "$work/root.err" >&2

rc_user=0
if ! id "$user" >/dev/null 2>&1; then
	useradd -M -U -s /bin/sh "$user" >&2 || abort "cannot create user $user"
fi
log "suite as $user"
mkdir -p "$work/tmp-$user" && chown "$user" "$work/tmp-$user"
(cd "$work" && timeout 1200 setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" \
	--clear-groups env HOME="$work/tmp-$user" TMPDIR="$work/tmp-$user" PATH="/usr/local/bin:/usr/bin:/bin" \
	bats --tap "${filter[@]}" tests/bats 9>&-) > "$work/user.tap" 2> "$work/user.err"
rc_user=$?
[ $rc_user -ne 0 ] && tail -20 "$work/user.err" >&2

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
timeout 10 fusermount3 -u "$mnt" || log "fusermount3 -u failed"
rc_daemon=124
for i in $(seq 1 100); do
	if ! kill -0 "$dpid" 2>/dev/null; then
		wait "$dpid"
		rc_daemon=$?
		break
	fi
	sleep 0.1
done
dpid_done=$dpid
[ $rc_daemon -eq 0 ] || { log "daemon $dpid_done exited $rc_daemon (124: still running)"; tail -20 "$work/daemon.log" >&2; }
[ $rc_daemon -ne 124 ] && dpid=
log "root: exit $rc_root, user: exit $rc_user, daemon: exit $rc_daemon"
[ $rc_root -eq 0 ] && [ $rc_user -eq 0 ] && [ $rc_daemon -eq 0 ]
