#!/bin/bash
# Run each libFuzzer target for SECONDS and print one TAP line each:
#
#   fuzz/run.sh SECONDS [TARGET...]     (default: grammar_fuzz fuse_fuzz)
#
# A target fails on any crash, hang (-timeout=5 s for one input), leak
# (-detect_leaks=1) or sanitizer report; its reproducer stays in
# fuzz/artifacts/, its log in fuzz/logs/.  Numbers come from libFuzzer's
# own final stats: executions (stat::number_of_executed_units) and the
# last "cov:" it printed.  Run from anywhere; build first (make -C fuzz).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:?usage: run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(grammar_fuzz fuse_fuzz)

echo "1..${#targets[@]}"
fail=0 n=0
mkdir -p "$here/logs" "$here/artifacts"
for t in "${targets[@]}"; do
	n=$((n + 1))
	seeds=$here/seeds/${t%_fuzz}
	corpus=$here/corpus/${t%_fuzz}
	log=$here/logs/$t.log
	mkdir -p "$corpus"
	if [ ! -x "$here/$t" ] || [ ! -d "$seeds" ]; then
		echo "not ok $n - $t: not built (make -C fuzz)"
		fail=1
		continue
	fi
	echo "fuzz: $t for $secs s" >&2
	# the corpus dir first: new inputs go there, the seeds stay as built
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	timeout -k 10 $((secs + 120)) "$here/$t" -max_total_time="$secs" \
		-timeout=5 -detect_leaks=1 -rss_limit_mb=2048 -max_len=4096 \
		-print_final_stats=1 -artifact_prefix="$here/artifacts/$t-" \
		"$corpus" "$seeds" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
	crashes=$(grep -cE '^==[0-9]+==ERROR|^SUMMARY: (Address|Undefined|Leak)Sanitizer|runtime error:|ALARM: working on the last Unit|broken:' "$log")
	line="$t: ${execs:-0} execs, cov ${cov:-0}, $crashes crashes (${secs}s)"
	if [ $rc -eq 0 ] && [ "$crashes" -eq 0 ] && [ -n "$execs" ]; then
		echo "ok $n - $line"
	else
		echo "not ok $n - $line, exit $rc: see $log"
		grep -m5 -E 'ERROR|runtime error|broken|Test unit written' "$log" | sed 's/^/# /'
		fail=1
	fi
done
exit $fail
