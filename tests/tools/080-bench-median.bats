#!/usr/bin/env bats
# bench/median-runs.awk, which turns BENCH_RUNS=N runs of make bench into
# one table: each operation's rows come from one run, its median.

load helpers

AWK_PROG=$TOP/bench/median-runs.awk

# row RUN BACKEND OP PATH VALUE UNIT VSPERF VSFLOOR TARGET
row() {
	local IFS=$'\t'
	echo "$*"
}

# three runs of one hot read: perfctrfs at 1.40x, 1.10x and 1.25x perf
hot_read_runs() {
	local r v p
	for r in 1 2 3; do
		case $r in
		1) v=1400 p=1.40 ;;
		2) v=1100 p=1.10 ;;
		3) v=1250 p=1.25 ;;
		esac
		row $r kernel "1 hot read" "perf read()" $((1000 + r)) ns/op 1.00 0.50 -
		row $r kernel "1 hot read" "perfctrfs pread()" $v ns/op $p 0.70 \
			"<=1.3x perf: $([ "$r" = 1 ] && echo MISSED || echo met)"
	done
}

@test "bench median: an operation reports its median run, every row from that run" {
	run awk -f "$AWK_PROG" <(hot_read_runs)
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	# run 3 (1.25x) is the median; perf's row is run 3's too (1003 ns),
	# though 1002 would be the median of that row alone
	[ "$(cut -f3,4 <<< "${lines[0]}")" = $'perf read()\t1003' ]
	[ "$(cut -f3,4,6 <<< "${lines[1]}")" = $'perfctrfs pread()\t1250\t1.25' ]
}

@test "bench median: each row carries its range and its target's verdicts over the runs" {
	run awk -f "$AWK_PROG" <(hot_read_runs)
	[ "$status" -eq 0 ]
	# perfctrfs rows range over their ratio, reference rows over their value
	[ "$(cut -f9,10 <<< "${lines[0]}")" = $'1001 to 1003 (3 runs)\t-' ]
	[ "$(cut -f9,10 <<< "${lines[1]}")" = $'1.1 to 1.4 (3 runs)\tmet in 2 of 3' ]
}

@test "bench median: an even number of runs takes the lower middle" {
	run awk -f "$AWK_PROG" <(hot_read_runs | grep -v '^3')
	[ "$status" -eq 0 ]
	[ "$(cut -f4,8 <<< "${lines[1]}")" = $'1100\t<=1.3x perf: met' ]
}

@test "bench median: entry counts that differ between runs stay one row" {
	run awk -f "$AWK_PROG" <(
		row 1 kernel "4 readdir" "perfctrfs ls 0/x/ (2032 entries)" 900 ns/op - 0.90 -
		row 2 kernel "4 readdir" "perfctrfs ls 0/x/ (2031 entries)" 1100 ns/op - 1.10 -
		row 3 kernel "4 readdir" "perfctrfs ls 0/x/ (2030 entries)" 1000 ns/op - 1.00 -)
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(cut -f3,7,9 <<< "${lines[0]}")" = $'perfctrfs ls 0/x/ (2030 entries)\t1.00\t0.9 to 1.1 (3 runs)' ]
}

@test "bench median: a row only some runs have is kept from the first of them" {
	run awk -f "$AWK_PROG" <(
		hot_read_runs
		row 2 kernel "1 hot read" "perf 10, perfctrfs 9 open" - - - - "failed: Too many open files")
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(cut -f8,9 <<< "${lines[2]}")" = $'failed: Too many open files\tin 1 of 3 runs' ]
}

@test "bench median: operations and backends are chosen apart, in first-seen order" {
	run awk -f "$AWK_PROG" <(
		hot_read_runs
		row 1 fuse "1 hot read" "perfctrfs pread()" 30 ns/op 30.0 1.30 -
		row 2 fuse "1 hot read" "perfctrfs pread()" 10 ns/op 10.0 1.10 -
		row 3 fuse "1 hot read" "perfctrfs pread()" 20 ns/op 20.0 1.20 -)
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(cut -f1,4 <<< "${lines[1]}")" = $'kernel\t1250' ]
	[ "$(cut -f1,4 <<< "${lines[2]}")" = $'fuse\t20' ]
}

@test "bench median: a row whose target is on the floor ranks and ranges by its ratio to the floor" {
	# by vs perf run 1 would be the median; by vs floor it is run 2
	run awk -f "$AWK_PROG" <(
		row 1 fuse "7 readers 2" "perfctrfs pread()" 100 reads/s 0.06 0.95 ">=0.9x floor: met"
		row 2 fuse "7 readers 2" "perfctrfs pread()" 200 reads/s 0.07 0.85 ">=0.9x floor: MISSED"
		row 3 fuse "7 readers 2" "perfctrfs pread()" 300 reads/s 0.05 0.75 ">=0.9x floor: MISSED")
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(cut -f4,9,10 <<< "${lines[0]}")" = $'200\t0.75 to 0.95 (3 runs)\tmet in 1 of 3' ]
}
