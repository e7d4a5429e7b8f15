#!/usr/bin/env bats
# perfctr-stat's formatter (tools/perfctr-stat.awk) on lines written here,
# for what this machine's counters cannot show: a PMU's scale and unit
# (RAPL's energy-pkg, 2^-32 Joules a count) and a multiplexed counter.

load helpers
bats_require_minimum_version 1.5.0

# fmt VAR=VALUE...: the formatter with these awk variables.
fmt() {
	local a=() v
	for v; do a+=(-v "$v"); done
	awk -v mode=global -v runs=1 "${a[@]}" -f "$T/perfctr-stat.awk"
}

# One event, one leaf (fd 10, CPU all), a 1 s run: the leaf's line was
# "COUNT ENABLED RUNNING"; $4 is its scale, $5 its unit.
records() {
	printf 'E\t1\t1\t0\tok\t%s\t%s\t%s\t%s\n' "$1" "$4" "$5" "$2"
	printf 'F\t10\t1\tall\nK\tall\tall\t\t1\nW\t1\t1000000000\n'
	printf 'S\tP\t1\t10 0 0 0\nS\tC\t1\t10 %s\n' "$3"
}

@test "perfctr-stat.awk: a PMU's scale is applied and its unit printed, as perf prints Joules" {
	out=$(records power.energy_pkg power/energy-pkg/ "4294967296 1000000000 1000000000" \
		2.3283064365386962890625e-10 Joules | fmt sep=, json=0)
	[ "$out" = "1.00,Joules,power/energy-pkg/,1000000000,100.00,," ]
	out=$(records power.energy_pkg power/energy-pkg/ "6442450944 1000000000 1000000000" \
		2.3283064365386962890625e-10 Joules | fmt sep= json=0 "head='system wide'")
	echo "$out"
	# perf's columns: a count of 18, the unit, the name in 32, the metric in 35.
	line=$(grep -E '^ {14}1\.50 Joules power/energy-pkg/ +$' <<<"$out")
	[ ${#line} -eq $((18 + 1 + 6 + 1 + 32 + 35)) ]
	out=$(records power.energy_pkg power/energy-pkg/ "4294967296 1000000000 1000000000" \
		2.3283064365386962890625e-10 Joules | fmt sep= json=1)
	[ "$out" = '{"counter-value" : "1.000000", "unit" : "Joules", "event" : "power/energy-pkg/", "event-runtime" : 1000000000, "pcnt-running" : 100.00, "metric-value" : 0.000000, "metric-unit" : "(null)"}' ]
}

@test "perfctr-stat.awk: a multiplexed count is scaled by enabled/running, with perf's (xx.xx%)" {
	out=$(records context_switches cs "500 2000000000 1000000000" 1 "" | fmt sep=, json=0)
	[ "$out" = "1000,,cs,1000000000,50.00,," ]
	out=$(records context_switches cs "500 2000000000 1000000000" 1 "" | fmt sep= json=0 "head='x'")
	echo "$out"
	grep -Eq '^ +1000      cs +  \(50\.00%\)$' <<<"$out"
}

@test "perfctr-stat.awk: a counter that never ran is <not counted>" {
	out=$(records context_switches cs "0 0 0" 1 "" | fmt sep=, json=0)
	[ "$out" = "<not counted>,,cs,0,100.00,," ]
}
