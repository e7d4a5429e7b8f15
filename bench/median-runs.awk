# bench/median-runs.awk: BENCH_RUNS=N rows down to one table (bench/run.sh).
#
# Input, tab-separated: run, backend, operation, path, value, unit,
# vs perf, vs floor, target (bench.c's rows, the run's number first).
#
# A row is judged against the other rows of its operation in the same run
# (perfctrfs against perf and the floor, open @10000 against open @100,
# the slowdown under perfctrfs against that under perf), so the rows of an
# operation are never mixed across runs: each operation reports the run
# whose ranked figure is the median (the lower one for an even count),
# all its rows from that run.  The ranked figure is that of the
# operation's first row with a target, else its first perfctrfs row, else
# its first row.  A row's figure is its ratio to perf (else to the floor;
# to the floor first when its target is on the floor) for a perfctrfs
# row, its own value for a reference row.
#
# Output: the chosen rows with two more columns: the row's figure over
# the runs as "min to max (n runs)" (a row without a figure, such as a
# failure, as "in k of n runs", from the first run that has it), and its
# target's verdicts over the runs as "met in k of n" (or "-").

BEGIN {
	FS = OFS = "\t"
}

# a perfctrfs row, not a reference (perf's, the floor's)
function ours() {
	return $4 ~ /^perfctrfs/ || $6 ~ /perfctrfs/
}

function figure() {
	# a target on the floor (the readers' throughput) ranks by it
	if (ours() && $9 ~ /floor/ && $8 != "-")
		return $8
	if (ours() && $7 != "-")
		return $7
	if (ours() && $8 != "-")
		return $8
	return $5
}

function isnum(s) {
	return s ~ /^-?[0-9]+(\.[0-9]+)?$/
}

{
	# "(2032 entries)" moves between runs: one row all the same
	path = $4
	gsub(/\([0-9]+ entries\)/, "(N entries)", path)
	key = $2 FS $3 FS path FS $6
	group = $2 FS $3
	if (!(key in group_of)) {
		order[++nkeys] = key
		group_of[key] = group
	}
	if (!((group, $1) in group_run)) {
		group_run[group, $1] = 1
		runs_of[group, ++ngroup_runs[group]] = $1
	}
	row = $0
	sub(/^[^\t]*\t/, "", row)
	line[key, $1] = row
	fig[key, $1] = figure()
	if ($9 ~ /: (met|MISSED)$/) {
		judged[key]++
		if ($9 ~ /: met$/)
			met[key]++
	}
	# the operation's ranked row: 3 = has a target, 2 = ours, 1 = first
	pref = ($9 != "-") ? 3 : ours() ? 2 : 1
	if (pref > rank_pref[group] + 0) {
		rank_pref[group] = pref
		rank_key[group] = key
	}
}

function choose(group,    n, i, j, t, r, rk, cand) {
	rk = rank_key[group]
	n = 0
	for (i = 1; i <= ngroup_runs[group]; i++) {
		r = runs_of[group, i]
		if ((rk, r) in fig && isnum(fig[rk, r]))
			cand[++n] = r
	}
	if (n == 0)
		return runs_of[group, 1]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && fig[rk, cand[j - 1]] + 0 > fig[rk, cand[j]] + 0; j--) {
			t = cand[j]
			cand[j] = cand[j - 1]
			cand[j - 1] = t
		}
	return cand[int((n + 1) / 2)]
}

# The row's figure over the runs that measured it, or where it appears.
function spread(key, group,    i, r, n, had, lo, hi, v) {
	n = had = 0
	for (i = 1; i <= ngroup_runs[group]; i++) {
		r = runs_of[group, i]
		if (!((key, r) in line))
			continue
		had++
		if (!isnum(fig[key, r]))
			continue
		v = fig[key, r] + 0
		if (n++ == 0 || v < lo)
			lo = v
		if (n == 1 || v > hi)
			hi = v
	}
	if (n)
		return lo " to " hi " (" n (n == 1 ? " run)" : " runs)")
	return "in " had " of " ngroup_runs[group] " runs"
}

function first_run(key, group,    i) {
	for (i = 1; i <= ngroup_runs[group]; i++)
		if ((key, runs_of[group, i]) in line)
			return runs_of[group, i]
}

END {
	for (k = 1; k <= nkeys; k++) {
		key = order[k]
		group = group_of[key]
		if (!(group in chosen))
			chosen[group] = choose(group)
		r = chosen[group]
		if (!((key, r) in line))
			r = first_run(key, group)       # a row of other runs only
		verdict = judged[key] ? "met in " met[key] + 0 " of " judged[key] : "-"
		print line[key, r], spread(key, group), verdict
	}
}
