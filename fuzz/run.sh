#!/bin/bash
# Run each libFuzzer target for SECONDS and print one TAP line each:
#
#   fuzz/run.sh SECONDS [TARGET...]     (default: grammar_fuzz fuse_fuzz)
#
# A target fails on any crash, hang (-timeout=FUZZ_TIMEOUT s for one input,
# default 5), leak (-detect_leaks=1) or sanitizer report; its reproducer
# stays in fuzz/artifacts/, its log in fuzz/logs/.  Numbers come from
# libFuzzer's own final stats: executions (stat::number_of_executed_units)
# and the last "cov:" it printed.  Run from anywhere; build first
# (make -C fuzz).
#
# FUZZ_JOBS=N runs N workers of a target at once (-jobs=N -workers=N),
# each for SECONDS on the shared corpus, logs in fuzz/logs/TARGET.jobs/;
# the line then sums their executions.  FUZZ_MAX_LEN bounds an input
# (default 4096): fuse_fuzz's inputs grow to it, and a worker at 1024
# (still room for eight paths) runs 40% more inputs a second.  A long
# run on both cores:
#   FUZZ_JOBS=2 FUZZ_TIMEOUT=60 FUZZ_MAX_LEN=1024 fuzz/run.sh 9000 fuse_fuzz
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:?usage: run.sh SECONDS [TARGET...]}
shift
jobs=${FUZZ_JOBS:-1}
hang=${FUZZ_TIMEOUT:-5}
maxlen=${FUZZ_MAX_LEN:-4096}
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
	logs=("$log")
	mkdir -p "$corpus"
	if [ ! -x "$here/$t" ] || [ ! -d "$seeds" ]; then
		echo "not ok $n - $t: not built (make -C fuzz)"
		fail=1
		continue
	fi
	echo "fuzz: $t for $secs s" >&2
	args=(-max_total_time="$secs" -timeout="$hang" -detect_leaks=1
	      -rss_limit_mb=2048 -max_len="$maxlen" -print_final_stats=1
	      -artifact_prefix="$here/artifacts/$t-")
	if [ "$jobs" -gt 1 ]; then
		# libFuzzer writes fuzz-<i>.log into its working directory
		rm -rf "$here/logs/$t.jobs"
		mkdir -p "$here/logs/$t.jobs"
		args+=(-jobs="$jobs" -workers="$jobs")
		logs=()
		for ((j = 0; j < jobs; j++)); do
			logs+=("$here/logs/$t.jobs/fuzz-$j.log")
		done
	fi
	# the corpus dir first: new inputs go there, the seeds stay as built
	(if [ "$jobs" -gt 1 ]; then cd "$here/logs/$t.jobs" || exit 1; fi
	 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	 exec timeout -k 10 $((secs + 120)) "$here/$t" "${args[@]}" \
		"$corpus" "$seeds") > "$log" 2>&1
	rc=$?
	execs="" cov=0 crashes=0
	for l in "${logs[@]}"; do
		e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$l" 2>/dev/null | tail -1)
		# a worker without final stats did not finish: no count at all
		[ -n "$e" ] || { execs=; break; }
		execs=$((${execs:-0} + e))
		c=$(grep -oE 'cov: [0-9]+' "$l" | tail -1 | awk '{print $2}')
		[ "${c:-0}" -gt "$cov" ] && cov=$c
		crashes=$((crashes + $(grep -cE '^==[0-9]+==ERROR|^SUMMARY: (Address|Undefined|Leak)Sanitizer|runtime error:|ALARM: working on the last Unit|broken:' "$l")))
	done
	[ "$jobs" -gt 1 ] && js=", $jobs workers" || js=
	line="$t: ${execs:-0} execs, cov ${cov:-0}, $crashes crashes (${secs}s$js)"
	if [ $rc -eq 0 ] && [ "$crashes" -eq 0 ] && [ -n "$execs" ]; then
		echo "ok $n - $line"
	else
		echo "not ok $n - $line, exit $rc: see $log"
		cat "${logs[@]}" 2>/dev/null |
			grep -m5 -E 'ERROR|runtime error|broken|Test unit written' | sed 's/^/# /'
		fail=1
	fi
done
exit $fail
