# SPDX-License-Identifier: GPL-2.0
#
# perfctr-stat.awk - perf stat's output (text, -x CSV, -j JSON) from the
# leaves' lines that perfctr-stat gathered.  Tab-separated input:
#
#   E idx leader pos state kind scale unit name
#	one per event: pos is its place in its group's line, state ok,
#	ns (<not supported>) or nc (<not counted>), kind the path name
#	without modifiers (task_clock, cycles, ...) for the derived metrics
#   F fd leader cpu       which event group and CPU a descriptor holds
#   K cpu key label n     the aggregation key of a CPU, its printed label
#                         and the number of CPUs in the key
#   S which run line      a line of perfctr-helper read: which is P (the
#                         previous snapshot, subtracted: -I) or C
#   W run ns              the wall time of a run (or an interval)
#
# Variables: mode (global, cpu, core, socket), sep (CSV), json, ts
# (the interval's time, -I), head (the header text; empty for none),
# runs, user and sys (the command's rusage, "" for none), tsep (the
# locale's thousands separator, "" for none), ihead (print -I's header).

function group(s,   r, i, n, neg, f) {
	if (tsep == "")
		return s
	neg = substr(s, 1, 1) == "-"
	if (neg) s = substr(s, 2)
	i = index(s, ".")
	f = i ? substr(s, i) : ""
	n = i ? substr(s, 1, i - 1) : s
	r = ""
	while (length(n) > 3) {
		r = tsep substr(n, length(n) - 2) r
		n = substr(n, 1, length(n) - 3)
	}
	return (neg ? "-" : "") n r f
}

# perf's convert_unit_double: K, M, G above a thousand each.
function rate(v) {
	runit = "/sec"
	if (v > 1000) { v /= 1000; runit = "K/sec" }
	if (v > 1000) { v /= 1000; runit = "M/sec" }
	if (v > 1000) { v /= 1000; runit = "G/sec" }
	return v
}

# The derived metric perf prints for event i at key k: sets mfmt (printf
# format, "" for a blank metric), munit ("" for none) and mval.
function metric(i, k, r,   c, base) {
	mfmt = ""; munit = ""; mval = 0
	c = kind[i]
	if (c == "task_clock" || c == "cpu_clock") {
		if (wall > 0) { mfmt = "%8.3f"; munit = "CPUs utilized"; mval = val[k, i] * 1e6 / wall }
		return
	}
	if (c == "instructions") {
		munit = "insn per cycle"
		if (tot[k, "cycles"] > 0) { mfmt = "%7.2f "; mval = val[k, i] / tot[k, "cycles"] }
		return
	}
	if (c == "branch_misses") {
		munit = "of all branches"
		if (tot[k, "branch_instructions"] > 0) {
			mfmt = "%7.2f%%"; mval = 100 * val[k, i] / tot[k, "branch_instructions"]
		}
		return
	}
	if (c == "cache_misses") {
		munit = "of all cache refs"
		if (tot[k, "cache_references"] > 0) {
			mfmt = "%8.3f %%"; mval = 100 * val[k, i] / tot[k, "cache_references"]
		}
		return
	}
	if (c in missof) {
		munit = missof[c]
		base = c; sub(/_miss$/, "_access", base)
		if (tot[k, base] > 0) { mfmt = "%7.2f%%"; mval = 100 * val[k, i] / tot[k, base] }
		return
	}
	if (c == "stalled_cycles_frontend" || c == "stalled_cycles_backend") {
		munit = (c ~ /front/ ? "frontend" : "backend") " cycles idle"
		if (tot[k, "cycles"] > 0) { mfmt = "%7.2f%%"; mval = 100 * val[k, i] / tot[k, "cycles"] }
		return
	}
	if (c == "cycles") {
		if (clk[k] > 0) { mfmt = "%8.3f"; munit = "GHz"; mval = val[k, i] / clk[k] }
		else munit = "Ghz"
		return
	}
	if (clk[k] > 0) {
		mval = rate(1e9 * val[k, i] / clk[k])
		mfmt = "%8.3f"; munit = runit
	}
}

function prefix(k) {
	if (mode == "global") return ""
	if (json) {
		if (mode == "cpu") return sprintf("\"cpu\" : \"%s\", ", klabel[k])
		return sprintf("\"%s\" : \"%s\", \"aggregate-number\" : %d, ",
			mode, klabel[k], kn[k])
	}
	if (sep != "") {
		if (mode == "cpu") return "CPU" klabel[k] sep
		return klabel[k] sep kn[k] sep
	}
	if (mode == "cpu") return sprintf("CPU%-7s ", klabel[k])
	if (mode == "core") return sprintf("%-15s %4d ", klabel[k], kn[k])
	return sprintf("%-6s %4d ", klabel[k], kn[k])
}

# -G: an event's cgroup, where perf prints it: after the event's name, as
# a field of its own (CSV), a "cgroup" key (JSON); nothing without -G.
function tcg(i) { return cg[i] == "" ? "" : " " cg[i] }
function ccg(i) { return hascg ? sep cg[i] : "" }
function jcg(i) { return hascg ? sprintf("\"cgroup\" : \"%s\", ", cg[i]) : "" }

function row(k, i,   v, s, u, line, n, tsp, noise, m, pct) {
	u = unit[i]
	tsp = ts == "" ? "" : (json ? sprintf("\"interval\" : %s, ", ts) : sprintf("%16s%s", ts, sep == "" ? " " : sep))
	noise = runs > 1 ? 100 * sd[k, i] / (val[k, i] ? val[k, i] : 1) : 0
	if (!(val[k, i] > 0)) noise = 0
	if (st[k, i] != "ok") {
		s = st[k, i] == "ns" ? "<not supported>" : "<not counted>"
		if (json)
			return sprintf("{%s%s\"counter-value\" : \"%s\", \"unit\" : \"%s\", \"event\" : \"%s\", %s%s\"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}",
				tsp, prefix(k), s, u, name[i], jcg(i), runs > 1 ? "\"variance\" : 0.00, " : "")
		if (sep != "")
			return tsp prefix(k) s sep u sep name[i] ccg(i) (runs > 1 ? sep "0.00%" : "") sep 0 sep "100.00" sep sep
		return tsp prefix(k) sprintf("%18s %-4s %-25s%s%-35s", s, u, name[i], tcg(i), "")
	}
	v = val[k, i]
	pct = en[k, i] > 0 ? 100 * rn[k, i] / en[k, i] : 100
	metric(i, k)
	if (json) {
		line = sprintf("{%s%s\"counter-value\" : \"%f\", \"unit\" : \"%s\", \"event\" : \"%s\", %s",
			tsp, prefix(k), v, u, name[i], jcg(i))
		if (runs > 1) line = line sprintf("\"variance\" : %.2f, ", noise)
		line = line sprintf("\"event-runtime\" : %.0f, \"pcnt-running\" : %.2f, ", rn[k, i], pct)
		if (munit == "")
			return line "\"metric-value\" : 0.000000, \"metric-unit\" : \"(null)\"}"
		return line sprintf("\"metric-value\" : %f, \"metric-unit\" : \"%s\"}", mfmt == "" ? 0 : mval, munit)
	}
	s = sprintf(dec[i] ? "%.2f" : "%.0f", v)
	if (sep != "") {
		line = tsp prefix(k) s sep u sep name[i] ccg(i)
		if (runs > 1) line = line sep sprintf("%.2f%%", noise)
		line = line sep sprintf("%.0f", rn[k, i]) sep sprintf("%.2f", pct)
		m = mfmt == "" ? "" : sprintf(mfmt, mval)
		gsub(/^ +/, "", m); sub(/[^0-9.].*$/, "", m)
		return line sep m sep munit
	}
	line = tsp prefix(k) sprintf("%18s %-4s %-32s", group(s), u, name[i]) tcg(i)
	if (mfmt != "") {
		m = " # " sprintf(mfmt, mval)
		n = length(m)
		line = line m sprintf(" %-" (35 - n - 1) "s", munit)
	} else
		line = line sprintf("%-35s", "")
	if (noise != 0) line = line sprintf("  ( +-%6.2f%% )", noise)
	if (rn[k, i] < en[k, i]) line = line sprintf("  (%.2f%%)", pct)
	return line
}

BEGIN {
	FS = "\t"
	missof["l1d_read_miss"] = "of all L1-dcache accesses"
	missof["l1i_read_miss"] = "of all L1-icache accesses"
	missof["dtlb_read_miss"] = "of all dTLB cache accesses"
	missof["itlb_read_miss"] = "of all iTLB cache accesses"
	missof["llc_read_miss"] = "of all LL-cache accesses"
}
$1 == "E" {
	ne++; lead[$2] = $3; pos[$2] = $4; state[$2] = $5; kind[$2] = $6
	scale[$2] = $7; unit[$2] = $8; name[$2] = $9; cg[$2] = $10
	if ($10 != "") hascg = 1
	clock[$2] = kind[$2] == "task_clock" || kind[$2] == "cpu_clock"
	if (clock[$2]) { scale[$2] = 1e-6; unit[$2] = "msec" }
	dec[$2] = clock[$2] || scale[$2] != int(scale[$2])
	next
}
$1 == "F" { fdlead[$2] = $3; fdcpu[$2] = $4; next }
$1 == "K" {
	if (!($3 in kseen)) { kseen[$3] = 1; korder[++nk] = $3; klabel[$3] = $4; kn[$3] = $5 }
	cpukey[$2] = $3
	next
}
$1 == "W" { walls[$2] = $3; next }
# -I: the previous and the current snapshot as perfctr-helper printed
# them.  A leaf at end of file (its process is gone) keeps its last line,
# and the current snapshot, so completed, goes to snapout for the next.
FILENAME == pfile || FILENAME == cfile {
	w = FILENAME == pfile ? "P" : "C"
	if ($0 ~ /^T /) { split($0, f, " "); tsnap[w] = f[2] }
	else {
		fd = substr($0, 1, index($0, " ") - 1)
		if (w == "P") pline[fd] = $0
		else if ($0 ~ / (EOF|ERR)/ && (fd in pline)) $0 = pline[fd]
	}
	if (w == "C" && snapout != "") print > snapout
	snap(w, 1, $0)
	next
}
$1 == "S" { snap($2, $3, $4); next }

function snap(w, r, line,   f, nf, fd, k, sgn, j) {
	nf = split(line, f, " ")
	if (f[1] == "T") return
	fd = f[1]; k = cpukey[fdcpu[fd]]
	if (f[2] == "EOF" || f[2] == "ERR") return
	sgn = w == "P" ? -1 : 1
	raw[r, k, fdlead[fd], "en"] += sgn * f[nf - 1]
	raw[r, k, fdlead[fd], "rn"] += sgn * f[nf]
	for (j = 2; j <= nf - 2; j++)
		raw[r, k, fdlead[fd], j - 2] += sgn * f[j]
	have[r, k, fdlead[fd]] = 1
	if (r > nruns) nruns = r
}
END {
	if (runs == "") runs = 1
	if (pfile != "") {
		walls[1] = tsnap["C"] - tsnap["P"]
		ts = sprintf("%.9f", (tsnap["C"] - t0) / 1e9)
	}
	# Means over the runs, and the standard deviation of the mean, as
	# perf's stddev_stats; then the clocks and totals the metrics use.
	wsum = 0; wsq = 0
	for (r = 1; r <= nruns; r++) { wsum += walls[r]; wsq += walls[r] * walls[r] }
	wall = nruns ? wsum / nruns : 0
	wsd = nruns > 1 ? sqrt((wsq - nruns * wall * wall) / (nruns - 1) / nruns) : 0
	if (wsd < 0 || wsd != wsd) wsd = 0
	for (kk = 1; kk <= nk; kk++) {
		k = korder[kk]
		for (i = 1; i <= ne; i++) {
			l = lead[i]
			if (state[i] != "ok") { st[k, i] = state[i]; continue }
			s1 = 0; s2 = 0; e = 0; rr = 0; got = 0
			for (r = 1; r <= nruns; r++) {
				if (!have[r, k, l]) continue
				c = raw[r, k, l, pos[i]]
				if (raw[r, k, l, "rn"] > 0 && raw[r, k, l, "rn"] < raw[r, k, l, "en"])
					c = c * raw[r, k, l, "en"] / raw[r, k, l, "rn"]
				c *= scale[i]
				s1 += c; s2 += c * c; e += raw[r, k, l, "en"]; rr += raw[r, k, l, "rn"]
				got++
			}
			if (!got || rr == 0) { st[k, i] = "nc"; continue }
			st[k, i] = "ok"
			val[k, i] = s1 / got
			sd[k, i] = got > 1 ? (s2 - got * val[k, i] * val[k, i]) / (got - 1) / got : 0
			sd[k, i] = sd[k, i] > 0 ? sqrt(sd[k, i]) : 0
			en[k, i] = e / got; rn[k, i] = rr / got
			b = kind[i]
			if (clock[i]) { clk[k] += val[k, i] * 1e6; nclk[k]++ }
			else tot[k, b] += val[k, i]
		}
		if (nclk[k]) clk[k] /= nclk[k]
	}
	if (head != "" && sep == "" && !json) {
		if (ts != "") {
			if (ihead) printf "#           time             counts unit events\n"
		} else
			printf "\n Performance counter stats for %s%s:\n\n", head,
				(runs > 1 ? " (" runs " runs)" : "")
	}
	if (mode == "core" || mode == "socket") {
		for (kk = 1; kk <= nk; kk++)
			for (i = 1; i <= ne; i++)
				print row(korder[kk], i)
	} else {
		for (i = 1; i <= ne; i++)
			for (kk = 1; kk <= nk; kk++)
				print row(korder[kk], i)
	}
	if (ts != "" || sep != "" || json || head == "")
		exit
	printf "\n"
	if (runs > 1) {
		p = wsd / 1e9 > 1 ? 0 : int(-log(wsd / 1e9) / log(10) + 0.999999999) + 2
		if (wsd == 0) p = 9
		fmt = " %17." p "f +- %." p "f seconds time elapsed"
		printf fmt, wall / 1e9, wsd / 1e9
		if (wsd > 0) printf "  ( +-%6.2f%% )", 100 * wsd / wall
		printf "\n\n"
	} else {
		printf " %17.9f seconds time elapsed\n\n", wall / 1e9
		if (user != "")
			printf " %17.9f seconds user\n %17.9f seconds sys\n\n\n", user, sys
	}
}
