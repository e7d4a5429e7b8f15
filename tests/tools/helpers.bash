# helpers.bash - small named helpers for the tools tests (tests/tools).
#
# The tests run against the perfctrfs mounted at PERFCTR_MNT (tests/tools/
# run.sh mounts the FUSE daemon when it is not set) and compare what each
# tool prints with counts read directly from the same mount in the same
# test.  They run as root: some mount and install.

M=${PERFCTR_MNT:-/dev/perfctr}
TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
T=$TOP/tools
EX=$TOP/Documentation/perfctrfs/examples
# Debian's python3 first: a pyenv shim is a shell script that costs 0.5 s.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
export PERFCTR_MNT=$M

tools_setup() {
	[ -d "$M/all" ] || { echo "# perfctrfs is not mounted at PERFCTR_MNT=$M" >&2; return 1; }
}

require_cmd() {
	local c
	for c; do
		command -v "$c" >/dev/null 2>&1 || skip "$c not installed here"
	done
}

require_event() {
	local e
	for e; do
		[ -d "$M/all/$e" ] || skip "no $e event on this machine"
	done
}

require_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }

# Online CPUs as the mount lists them, sorted.
mount_cpus() {
	ls "$M" | grep -E '^(0|[1-9][0-9]*)$' | sort -n
}

# Python programs with a known lower bound, so that the tools tests need
# no C helper.  SPIN burns argv[1] seconds of its own CPU time (not wall
# time: on a loaded machine a wall-time spin may get a third of a CPU);
# TOUCH writes one byte into each of argv[1] fresh anonymous pages.
SPIN='import sys, time
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    pass'
TOUCH='import mmap, sys
n = int(sys.argv[1])
m = mmap.mmap(-1, n * mmap.PAGESIZE)
for i in range(n):
    m[i * mmap.PAGESIZE] = 1'

# Run a command with SIGINT at its default disposition: bats starts
# background jobs with SIGINT ignored, which a shell cannot undo.  Only
# for `with_sigint ... &': it exec()s, so that $! is the command's pid.
with_sigint() {
	exec "$PY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# The value of the line of perfctr-stat's CSV output (-x,) for an event.
csv_value() {
	awk -F, -v e="$2" '$3 == e { print $1 }' <<<"$1"
}

# Assert with a message naming the values.
check() {
	if ! eval "$1"; then
		echo "# check failed: $1 ($2)" >&2
		return 1
	fi
}
