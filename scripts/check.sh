#!/bin/bash
# Run every perfctrfs test stage, from nothing, and sum the results.
#
# Each stage is a command that prints TAP on stdout (progress on stderr)
# and exits non-zero on failure.  Its TAP is kept in build/results/.
# The last line is "N passed, N failed, N skipped" over every TAP line of
# every stage; a stage that fails without a "not ok" line counts as one
# failure of its own, so a crash is never a pass.  A "not ok ... # TODO"
# line is a known, named bug: TAP does not count it as a failure, and
# neither does this; it is counted and reported on stderr.
#
# The QEMU stages spend most of their time in a single-threaded emulator
# and in the guests' sleeps, so they run in the background while the host
# stages run; their TAP is printed and counted after them, in order.
#
# CHECK_LOAD=N runs N CPU hogs (busy shell loops, niced to 0 like the
# tests) for the whole run, so that a quiet machine shows what a loaded
# CI machine does: the cold run's kernel builds already keep two cores
# at a load of 5-11 while the host stages run; CHECK_LOAD=2 adds two.
#
# Usage: scripts/check.sh [stage...]   (default: all stages, in order)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
results=$top/build/results
mkdir -p "$results"

declare -A cmd=(
	[deps]="scripts/deps.sh"
	[build]="make -s all"
	[unit]="make -s -C tests/unit check"
	[fuse]="tests/run-fuse.sh"
	[tools]="tests/tools/run.sh"
	[hardening]="tests/stress/run.sh"
	[qemu-x86]="tests/qemu/run.sh x86_64"
	[qemu-ppc]="tests/qemu/run.sh ppc64le"
	[qemu-x86-debug]="tests/qemu/run.sh x86_64-debug"
	[qemu-x86-612]="tests/qemu/run.sh x86_64-612 --subset"
	[qemu-x86-612-full]="tests/qemu/run.sh x86_64-612"
	[qemu-ppc-612]="tests/qemu/run.sh ppc64le-612"
	[series-6.1]="scripts/series.sh --check 6.1"
	[series-6.12]="scripts/series.sh --check 6.12"
)
declare -A background=([qemu-x86]=1 [qemu-ppc]=1 [qemu-x86-debug]=1
	[qemu-x86-612]=1 [qemu-x86-612-full]=1 [qemu-ppc-612]=1)
# On Linux 6.12, make check runs KUnit and the fixed subset of
# tests/qemu/subset in the x86_64 guest (qemu-x86-612); make check-612
# runs the whole suite there (qemu-x86-612-full) and the POWER9 guest
# (qemu-ppc-612: its checks and the whole suite, as qemu-ppc on 6.1).
# The patch series of both bases (series-6.1, series-6.12; also make
# check-series) runs last, in the foreground: its W=1 builds would slow
# the host stages' timed tests, and by the time those end the guests'
# kernel builds are ending and their QEMUs take one CPU each.
# qemu-x86-612-full, qemu-ppc-612 and qemu-x86-debug (make check-debug)
# are not in the default order: tests/qemu/README.md has the measured
# times that decided it.
order=(deps build qemu-x86 qemu-ppc qemu-x86-612 unit fuse tools hardening
	series-6.1 series-6.12)
[ $# -gt 0 ] && order=("$@")

pass=0 fail=0 skip=0 todo=0 bad_stages=()
declare -A started rcfile
bgpids=()
t0=$(date +%s)

hogs=()
load=${CHECK_LOAD:-0}
[[ $load =~ ^[0-9]+$ ]] || { echo "check: CHECK_LOAD: a number of CPU hogs" >&2; exit 2; }
stop_hogs() { [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; hogs=(); }
trap stop_hogs EXIT
trap 'stop_hogs; exit 130' INT TERM
for ((i = 0; i < load; i++)); do
	( trap - EXIT; while :; do :; done ) &
	hogs+=($!)
done
[ "$load" -gt 0 ] && echo "=== check: $load CPU hogs running (CHECK_LOAD): ${hogs[*]}" >&2

run_stage() {	# stage: runs it, its TAP to a file, its exit code returned
	local st=$1
	${cmd[$st]} > "$results/$st.tap"
}

tally() {	# stage rc seconds: print its TAP and add it up
	local st=$1 rc=$2 secs=$3 p s f
	# every stage's test lines as "ok N - name": one form for whoever reads
	# the log for the names of failures (bats alone prints no "- ")
	sed -E 's/^((not )?ok [0-9]+) (- )?/\1 - /' "$results/$st.tap"
	p=$(grep -cE '^ok [0-9]+' "$results/$st.tap" | tr -d ' ')
	s=$(grep -ciE '^ok [0-9]+.*# skip' "$results/$st.tap" | tr -d ' ')
	f=$(grep -E '^not ok [0-9]+' "$results/$st.tap" | grep -cv '# TODO' | tr -d ' ')
	t=$(grep -E '^not ok [0-9]+' "$results/$st.tap" | grep -c '# TODO' | tr -d ' ')
	p=$((p - s))
	todo=$((todo + t))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok 0 - stage $st exited $rc without a failing test line"
	fi
	[ "$rc" -ne 0 ] && bad_stages+=("$st")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	printf '=== stage %s: %ss, %d passed, %d failed, %d skipped, %d todo, exit %d\n' \
		"$st" "$secs" "$p" "$f" "$s" "$t" "$rc" >&2
}

for st in "${order[@]}"; do
	[ -n "${cmd[$st]:-}" ] || { echo "check: no stage '$st'" >&2; exit 2; }
	echo "=== stage $st: ${cmd[$st]}${background[$st]:+ (in the background)}" >&2
	s0=$(date +%s)
	if [ -n "${background[$st]:-}" ] && [ ${#order[@]} -gt 1 ]; then
		rcfile[$st]=$results/$st.rc
		rm -f "${rcfile[$st]}"
		( run_stage "$st"; echo $? > "${rcfile[$st]}" ) &
		bgpids+=($!)
		started[$st]=$s0
		continue
	fi
	run_stage "$st"
	tally "$st" $? $(($(date +%s) - s0))
done
[ ${#bgpids[@]} -gt 0 ] && wait "${bgpids[@]}"
for st in "${order[@]}"; do
	[ -n "${started[$st]:-}" ] || continue
	rc=$(cat "${rcfile[$st]}" 2>/dev/null || echo 99)
	tally "$st" "$rc" $(($(date +%s) - ${started[$st]}))
done
stop_hogs
echo "check: $(($(date +%s) - t0))s in all${bad_stages[*]:+; failed stages: ${bad_stages[*]}}" >&2
[ "$todo" -gt 0 ] && echo "check: $todo known bug(s) reported as 'not ok ... # TODO' (not counted as failures)" >&2
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ ${#bad_stages[@]} -eq 0 ]
