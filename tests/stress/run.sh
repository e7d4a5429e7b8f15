#!/bin/bash
# The hardening stage, short versions, as one TAP stream:
#
#   [fuzz]    make -C fuzz smoke      (SMOKE_SECONDS each, default 20)
#   [asan]    run-sanitized.sh asan   (the suite as root, ASan+UBSan+LSan)
#   [stress]  stress.sh               (STRESS_SECS each, default 5)
#   [matrix]  permission-matrix.sh
#
# About 6 minutes on 2 cores.  Needs root, clang-14, libfuse3-dev, bats.
# Each part's lines are renumbered into one stream and tagged; a part that
# prints no test line at all counts as a failure.  Exits non-zero on any
# failure.  Progress goes to stderr.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$(mktemp -d /tmp/perfctrfs-hard.XXXXXX)
trap 'rm -rf "$out"' EXIT
export STRESS_SECS=${STRESS_SECS:-5}
export SMOKE_SECONDS=${SMOKE_SECONDS:-20}

rc=0
part() {
	local tag=$1 t0=$SECONDS r
	shift
	echo "hardening: $tag: $*" >&2
	"$@" > "$out/$tag.tap"
	r=$?
	echo "hardening: $tag: exit $r in $((SECONDS - t0)) s" >&2
	grep -qE '^(not )?ok [0-9]+' "$out/$tag.tap" || { r=1; echo "not ok 1 - $tag printed no TAP (exit $r)" >> "$out/$tag.tap"; }
	[ $r -eq 0 ] || rc=1
}

part fuzz make -s -C "$top/fuzz" smoke
part asan "$here/run-sanitized.sh" asan
part stress "$here/stress.sh"
part matrix "$here/permission-matrix.sh"

awk '
	FNR == 1 { tag = FILENAME; sub(/.*\//, "", tag); sub(/\.tap$/, "", tag) }
	/^1\.\.[0-9]+/ { next }
	/^(not )?ok [0-9]+/ {
		n++
		not = ($1 == "not")
		sub(/^(not )?ok [0-9]+ ?(- )?/, "")
		out[++k] = (not ? "not ok " : "ok ") n " - [" tag "] " $0
		next
	}
	{ out[++k] = $0 }
	END {
		print "1.." n
		for (i = 1; i <= k; i++)
			print out[i]
	}' "$out/fuzz.tap" "$out/asan.tap" "$out/stress.tap" "$out/matrix.tap"
exit $rc
