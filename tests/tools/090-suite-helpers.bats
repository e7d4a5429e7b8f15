#!/usr/bin/env bats
# The conformance suite's own helpers (tests/bats/helpers.bash) stay cheap
# at scale: what a test asks of a daemon with 1,000 leaves open must not
# cost a process per leaf, or a loaded machine runs out the waits it feeds
# (issue 22: 140-daemon's pidfd test timed out so on a cold CI run).

load helpers

setup() {
	require_cmd strace
	# the suite's helpers, as a bats file of the suite loads them
	PERFCTR_HELPERS=$TOP/tests/helpers/bin
	[ -x "$PERFCTR_HELPERS/leafio" ] || make -s -C "$TOP/tests/helpers" >&2
	BATS_TEST_DIRNAME=$TOP/tests/bats
	# shellcheck source=../bats/helpers.bash
	. "$TOP/tests/bats/helpers.bash"
}

teardown() {
	[ -n "${holder:-}" ] && kill "$holder" 2>/dev/null
	true
}

@test "anon_fds_of counts 2,000 descriptors with a fixed number of processes" {
	# a process holding 2,000 eventfds (anon_inode:[eventfd])
	"$PY" -c '
import os, sys, time
fds = [os.eventfd(0) for _ in range(2000)]
print("ready", flush=True)
time.sleep(120)' > "$BATS_TEST_TMPDIR/ready" &
	holder=$!
	for i in $(seq 1 100); do
		grep -q ready "$BATS_TEST_TMPDIR/ready" && break
		sleep 0.1
	done
	strace -f -qq -e trace=execve -o "$BATS_TEST_TMPDIR/trace" \
		bash -c '. "$0"; anon_fds_of "$1" eventfd > "$2"' \
		"$TOP/tests/bats/helpers.bash" "$holder" "$BATS_TEST_TMPDIR/n"
	[ "$(cat "$BATS_TEST_TMPDIR/n")" = 2000 ] ||
		{ echo "# counted $(cat "$BATS_TEST_TMPDIR/n"), not 2000" >&2; return 1; }
	execs=$(grep -c 'execve(' "$BATS_TEST_TMPDIR/trace")
	echo "# $execs execve for 2,000 descriptors" >&3
	# bash itself, helpers.bash's perfopen probe, ls and grep: not 2,000
	[ "$execs" -le 10 ] || { echo "# $execs execve: a process per descriptor?" >&2; return 1; }
}
