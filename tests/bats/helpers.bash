# helpers.bash - small named helpers for the perfctrfs conformance suite.
#
# The suite runs against whatever perfctrfs is mounted: the FUSE daemon on
# a host (tests/run-fuse.sh) or the kernel filesystem in a QEMU guest
# (tests/qemu/).  It runs as root and again as an unprivileged user.
#
# Environment contract:
#   PERFCTR_MNT         the mount point (default /dev/perfctr)
#   PERFCTR_BACKEND     fuse|kernel: only for the few things that truly
#                       differ (how to mount a second instance, where the
#                       daemon's perf fds are); default fuse
#   PERFCTR_HELPERS     directory of the helper binaries built from
#                       tests/helpers (default tests/helpers/bin)
#   PERFCTR_DAEMON_PID  (fuse) pid of the daemon serving PERFCTR_MNT
#   PERFCTR_FUSE_BIN    (fuse) the daemon binary, to mount extra
#                       instances (default proto-fuse/perfctrfs-fuse)
#   PERFCTR_MNT_OPTS    the mount options PERFCTR_MNT was mounted with, if
#                       any (uid=,gid=,mode=): the default-ownership test
#                       then skips
#   PERFCTR_USERS       two unprivileged user names for the permission
#                       tests (default "perfctr-t1 perfctr-t2"); created
#                       when missing and root, else those tests skip
#   PCTR_SLOW           how many times slower than normal this machine
#                       runs the suite (default 1; the KASAN guest sets
#                       5): every wait_until bound and the lifetimes of
#                       targets ($((N * SLOW))) are multiplied by it.  Only upper
#                       bounds grow: no check gets weaker in what it counts
#
# Leak check: the mount root's xattr user.perfctr.counters is the number of
# perf events the backend holds for the mount; every file records it in
# setup_file and its last test asserts it is back (and, on FUSE as root,
# the daemon's perf_event fd count too).
#
# Helpers (tests/helpers, static for the guests): leafio (scripted
# read/pread/poll/write/sendfile on one open leaf), perfopen (the same
# request to perf_event_open, for errno comparison), fsop (one syscall, its
# errno name), lookupid (lookups, and how many perf events anyone made
# meanwhile), xattr, spin, pagetouch, ipcheck, runas.
#
# What the suite may use: bash, busybox applets with busybox options only
# (cat head ls stat find awk sed grep sleep timeout dd kill), and the
# helpers.  Tests of other clients (coreutils, getfattr, python3) skip
# with "<tool> not installed here" when the machine lacks them.  Tests
# that need root skip with "needs root".  Skips are decided in setup()
# or in the test itself, never in setup_file (bats 1.8.2 mis-reports it).

PERFCTR_MNT=${PERFCTR_MNT:-/dev/perfctr}
PERFCTR_BACKEND=${PERFCTR_BACKEND:-fuse}
PERFCTR_HELPERS=${PERFCTR_HELPERS:-$(cd "$BATS_TEST_DIRNAME/../helpers/bin" 2>/dev/null && pwd)}
PERFCTR_USERS=${PERFCTR_USERS:-perfctr-t1 perfctr-t2}
M=$PERFCTR_MNT
H=$PERFCTR_HELPERS
export PERFCTR_MNT PERFCTR_BACKEND PERFCTR_HELPERS

# ---- setup and skips ---------------------------------------------------

# Fail (not skip) when there is nothing to test: a missing mount or
# missing helpers is a broken run, not a machine that lacks a feature.
perfctr_setup() {
	[ -x "$H/leafio" ] || die "no helper binaries in PERFCTR_HELPERS=$H"
	[ -d "$M/all" ] || die "perfctrfs is not mounted at PERFCTR_MNT=$M"
}

die() {
	echo "# $*" >&2
	return 1
}

is_root() { [ "$(id -u)" = 0 ]; }

require_root() { is_root || skip "needs root"; }

require_cmd() {
	local c
	for c; do
		command -v "$c" >/dev/null 2>&1 || skip "$c not installed here"
	done
}

# GNU coreutils (not busybox) behind the name $1.
require_coreutils() {
	require_cmd "$1"
	"$1" --version 2>/dev/null | grep -q 'GNU coreutils' ||
		skip "coreutils $1 not installed here (busybox only)"
}

require_fuse() {
	[ "$PERFCTR_BACKEND" = fuse ] || skip "only the FUSE backend has a daemon"
}

# The names a directory lists, one a line, from readdir alone: busybox ls
# stats every entry and fails when a listed pid exits meanwhile.
names_of() { "$H/fsop" readdir "$1" | cut -d' ' -f2-; }

# Every event a CPU dir lists.
events_of() { names_of "$M/${1:-all}"; }

# Skip unless the event is listed (listed implies looks up implies opens).
require_event() {
	events_of "${2:-all}" | grep -qxF "$1" || skip "event $1 not listed on this machine"
}

# The generic hardware events of the contract.
HW_EVENTS="cycles instructions cache_references cache_misses branch_instructions branch_misses bus_cycles stalled_cycles_frontend stalled_cycles_backend ref_cycles"
SW_EVENTS="cpu_clock task_clock page_faults context_switches cpu_migrations minor_faults major_faults alignment_faults emulation_faults"

# The first listed generic hardware event, or a skip.
hw_event() {
	local e listed
	listed=$(events_of all)
	for e in $HW_EVENTS; do
		if echo "$listed" | grep -qxF "$e"; then
			echo "$e"
			return 0
		fi
	done
	return 1
}

online_cpus() { names_of "$M" | grep -E '^[0-9]+$' | sort -n; }

# The modifier this caller needs to count at all: ":u" where
# perf_event_paranoid forbids it counting the kernel (paranoid >= 2 for an
# unprivileged user), else nothing.  Tests that open leaves name events
# as task_clock$U.
if [[ $("$H/perfopen" 1:1 2>/dev/null) == ok* ]]; then U=; else U=:u; fi

# The perfopen spec ("type:config[:mods]") of an event name, from its
# user.perfctr.encoding; fails when the name does not look up.
perf_spec() {
	local base=${1%%:*} mods= enc cfg
	[ "$base" != "$1" ] && mods=:${1#*:}
	enc=$("$H/xattr" "$M/all/$base" user.perfctr.encoding) || return 1
	cfg=$(echo "$enc" | sed -n 's/^type=\([0-9]*\),config=\(0x[0-9a-f]*\).*/\1:\2/p')
	[ -n "$cfg" ] || return 1
	echo "$cfg$mods"
}

# ---- paths and reading -------------------------------------------------

# leaf CPU EVENT PID TYPE PERIOD
leaf() { echo "$M/$1/$2/$3/$4/$5"; }

# Read a leaf once, with read(2) (cat's own behaviour is 070-clients'
# business: busybox cat uses sendfile).
read0() { timeout 10 "$H/leafio" "$1" read; }

# The errno name a lookup of PATH gives, or "dir"/"file" when it resolves.
lookup() { "$H/fsop" stat "$1" | cut -d' ' -f1; }

# Is "$1" a non-negative decimal?
is_count() { [[ "$1" =~ ^(0|[1-9][0-9]*)$ ]]; }

# assert_eq ACTUAL EXPECTED [WHAT]
assert_eq() {
	[ "$1" = "$2" ] && return 0
	echo "# ${3:-value}: expected '$2', got '$1'" >&2
	return 1
}

# assert_ge A B [WHAT]: integer A >= B
assert_ge() {
	is_count "$1" || { echo "# ${3:-value}: '$1' is not a count" >&2; return 1; }
	[ "$1" -ge "$2" ] && return 0
	echo "# ${3:-value}: expected >= $2, got $1" >&2
	return 1
}

# assert_le A B [WHAT]: integer A <= B
assert_le() {
	is_count "$1" || { echo "# ${3:-value}: '$1' is not a count" >&2; return 1; }
	[ "$1" -le "$2" ] && return 0
	echo "# ${3:-value}: expected <= $2, got $1" >&2
	return 1
}

# assert_match STRING REGEX [WHAT]
assert_match() {
	[[ "$1" =~ $2 ]] && return 0
	echo "# ${3:-value}: '$1' does not match /$2/" >&2
	return 1
}

# ---- processes ---------------------------------------------------------

# Start "pagetouch -w N" in the background, ready for its SIGUSR1 (sent
# early it would kill it); its pid in $toucher.
start_pagetouch() {
	"$H/pagetouch" -w "$1" > "$BATS_TEST_TMPDIR/pagetouch.out" 3>&- &
	toucher=$!
	wait_until "grep -q ready $BATS_TEST_TMPDIR/pagetouch.out"
}

# How many times slower than normal this machine runs (PCTR_SLOW): a
# bound of N seconds is $((N * SLOW)).  Arithmetic, not a function: a
# command substitution in a background job's arguments forks, and a
# teardown that kills the job then makes the fork fail inside a copy of
# bats, which reports it as a failed test of its own.
SLOW=${PCTR_SLOW:-1}

# Wait (at most $2 tenths of a second, default 50, times PCTR_SLOW) until
# a command succeeds.
wait_until() {
	local n=$((${2:-50} * SLOW)) i
	for i in $(seq 1 "$n"); do
		eval "$1" && return 0
		sleep 0.1
	done
	return 1
}

# Kill and reap the background jobs a test left behind.
kill_bg_jobs() {
	local p
	for p in $(jobs -p); do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null || true
}

# ---- counters held: leak checks ----------------------------------------

# How many perf events the backend holds for this mount: the root xattr.
counters_held() { "$H/xattr" "$M" user.perfctr.counters; }

# Record the count a test file starts from (call in setup_file).
leak_baseline() {
	local n
	n=$(counters_held) || n=unknown
	echo "$n" > "$BATS_FILE_TMPDIR/counters.before"
	# the daemon's fds are readable only to its own user (root)
	if [ "$PERFCTR_BACKEND" = fuse ] && [ -n "${PERFCTR_DAEMON_PID:-}" ] &&
		ls "/proc/$PERFCTR_DAEMON_PID/fd" >/dev/null 2>&1; then
		daemon_perf_fds > "$BATS_FILE_TMPDIR/fds.before"
	fi
}

# anon_fds_of PID KIND: how many anon_inode:[KIND] descriptors PID has.
# One ls, not a readlink per descriptor: a test that holds 1,000 leaves
# asks this of a daemon with 1,000 fds, and 1,000 forks took minutes at a
# load of 10, longer than the waits they fed.
anon_fds_of() {
	ls -l "/proc/$1/fd/" 2>/dev/null | grep -cF -- "-> anon_inode:[$2]" || true
}
perf_fds_of() { anon_fds_of "$1" perf_event; }

# The number of perf_event descriptors the FUSE daemon has open.
daemon_perf_fds() { perf_fds_of "$PERFCTR_DAEMON_PID"; }

# The last test of every file: counters are back to where they started.
# Releases are asynchronous on FUSE (close returns before RELEASE is
# handled), so allow a few seconds.
assert_no_leak() {
	local before now
	before=$(cat "$BATS_FILE_TMPDIR/counters.before")
	is_count "$before" || die "user.perfctr.counters unreadable at file start: $before"
	wait_until '[ "$(counters_held)" = "$before" ]' 50 || true
	now=$(counters_held)
	assert_eq "$now" "$before" "user.perfctr.counters after this file" || return 1
	if [ -f "$BATS_FILE_TMPDIR/fds.before" ] && [ -d "/proc/$PERFCTR_DAEMON_PID/fd" ]; then
		before=$(cat "$BATS_FILE_TMPDIR/fds.before")
		wait_until '[ "$(daemon_perf_fds)" = "$before" ]' 30 || true
		assert_eq "$(daemon_perf_fds)" "$before" "daemon perf fds after this file"
	fi
}

# ---- users -------------------------------------------------------------

# Make sure user $1 exists, with a group of its own; fails when it cannot
# be created.  A busybox guest may have neither useradd nor adduser: then
# /etc/passwd and /etc/group get a line each, with a free id from 2001.
ensure_user() {
	local id
	id "$1" >/dev/null 2>&1 && return 0
	is_root || return 1
	if command -v useradd >/dev/null 2>&1; then
		useradd -M -U -s /bin/sh "$1" >/dev/null 2>&1
	elif command -v adduser >/dev/null 2>&1; then
		adduser -D -H -s /bin/sh "$1" >/dev/null 2>&1
	elif [ -w /etc/passwd ] || [ ! -e /etc/passwd ]; then
		for id in $(seq 2001 2099); do
			grep -q "^[^:]*:[^:]*:$id:" /etc/passwd 2>/dev/null && continue
			grep -q "^[^:]*:[^:]*:$id:" /etc/group 2>/dev/null && continue
			echo "$1:x:$id:$id::/:/bin/sh" >> /etc/passwd
			echo "$1:x:$id:" >> /etc/group
			break
		done
	fi
	id "$1" >/dev/null 2>&1
}

# Skip unless root and user $1 exists or can be made.
require_user() {
	require_root
	ensure_user "$1" || skip "cannot create user $1"
}

# as_user USER CMD...: run CMD as USER (its own uid, gid, no extra groups).
as_user() {
	local u=$1
	shift
	as_user_argv "$u"
	"${AS_USER[@]}" "$@"
}

# Set AS_USER to the command prefix that runs a command as user $1 (its
# uid, its gid, no other groups) and execs it, so "${AS_USER[@]}" prog &
# gives prog's own pid in $!.  The runas helper, because busybox's setpriv
# has no --reuid.
as_user_argv() {
	AS_USER=("$H/runas" "$(id -u "$1")" "$(id -g "$1")")
}

# wait_owner PID USER: wait until PID, started through $AS_USER, runs as
# USER.  Until runas has dropped root and exec'd, the target is root's,
# and a leaf of it opened for USER is perf's EACCES: a loaded machine
# widens that window to seconds.
wait_owner() {
	wait_until "[ \"\$(stat -c %u /proc/$1 2>/dev/null)\" = $(id -u "$2") ]" 100 ||
		die "$1 never ran as $2"
}

# ---- sysctl ------------------------------------------------------------

PARANOID=/proc/sys/kernel/perf_event_paranoid

# Set perf_event_paranoid, remembering the first value for restore_paranoid.
set_paranoid() {
	[ -f "$BATS_TEST_TMPDIR/paranoid.saved" ] ||
		cat "$PARANOID" > "$BATS_TEST_TMPDIR/paranoid.saved"
	echo "$1" > "$PARANOID"
}

# Put perf_event_paranoid back (call from teardown: runs even on failure).
restore_paranoid() {
	if [ -f "$BATS_TEST_TMPDIR/paranoid.saved" ]; then
		cat "$BATS_TEST_TMPDIR/paranoid.saved" > "$PARANOID"
		rm -f "$BATS_TEST_TMPDIR/paranoid.saved"
	fi
}

# ---- a second mount with options ---------------------------------------

PERFCTR_FUSE_BIN=${PERFCTR_FUSE_BIN:-$BATS_TEST_DIRNAME/../../proto-fuse/perfctrfs-fuse}

# A fresh directory every user can reach, for mount_extra.
extra_dir() {
	local d
	d=$(mktemp -d /tmp/perfctr-extra.XXXXXX) || return 1
	chmod 755 "$d"
	echo "$d"
}

# mount_extra DIR OPTS: mount another perfctrfs instance on DIR with the
# mount options OPTS (uid=,gid=,mode=), the backend's own way.
mount_extra() {
	local dir=$1 opts=$2
	case $PERFCTR_BACKEND in
	fuse)
		[ -x "$PERFCTR_FUSE_BIN" ] || die "no FUSE daemon at PERFCTR_FUSE_BIN=$PERFCTR_FUSE_BIN" || return 1
		"$PERFCTR_FUSE_BIN" -f -o "allow_other,$opts" "$dir" \
			> "$BATS_TEST_TMPDIR/extra.log" 2>&1 3>&- &
		echo $! > "$BATS_TEST_TMPDIR/extra.pid"
		;;
	kernel)
		mount -t perfctrfs -o "$opts" perfctrfs "$dir" || return 1
		;;
	*)
		die "unknown PERFCTR_BACKEND=$PERFCTR_BACKEND" || return 1
		;;
	esac
	wait_until "grep -qs ' $dir ' /proc/self/mounts" 100 ||
		die "no mount on $dir: $(cat "$BATS_TEST_TMPDIR/extra.log" 2>/dev/null)"
}

# umount_extra DIR: undo mount_extra (and stop its daemon), then remove DIR.
umount_extra() {
	local dir=$1 pid
	if grep -qs " $dir " /proc/self/mounts; then
		if [ "$PERFCTR_BACKEND" = fuse ]; then
			timeout 10 fusermount3 -u "$dir" 2>/dev/null || timeout 10 umount -l "$dir"
		else
			timeout 10 umount "$dir"
		fi
	fi
	if [ -f "$BATS_TEST_TMPDIR/extra.pid" ]; then
		pid=$(cat "$BATS_TEST_TMPDIR/extra.pid")
		wait_until "! kill -0 $pid 2>/dev/null" 50 || kill -KILL "$pid" 2>/dev/null
		rm -f "$BATS_TEST_TMPDIR/extra.pid"
	fi
	rmdir "$dir" 2>/dev/null || true
}
