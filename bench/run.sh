#!/bin/bash
# make bench: perfctrfs against perf_event_open(2) and each transport's
# floor, as ratios measured side by side in one process (bench/bench.c).
#
#   FUSE:   proto-fuse/perfctrfs-fuse and bench/nullfs (the do-nothing
#           FUSE floor), both mounted here on temp dirs with the same
#           options, bench run on this host.
#   kernel: bench/qemu-bench.sh boots the cached perfctrfs kernel under
#           QEMU TCG with bench-static in its own initramfs.
#
# Output: the table on stdout, the same in bench/results/latest.md (date,
# machine, load), the ratios as a bar chart in bench/results/ratios.png.
#
# Environment: BENCH_SKIP=fuse|kernel skips one backend; BENCH_OPTS, the
# mount options for both FUSE file systems (default -o allow_other);
# BENCH_ONLY=reads,readdir,scale,storm,readers,syswide,stream,cgroups runs
# only those parts of bench.c, on both backends (with cgroups, FUSE also
# runs tools/perfctr-prom -G over as many cgroups: prom_rows below);
# BENCH_PROFILE=1 profiles the kernel paths (bench/qemu-bench.sh) into
# build/bench/profile.RUN.txt;
# BENCH_RUNS=N (default 1) runs both backends N times (TCG moves the
# kernel rows 10-20% between boots) and reports, for each operation, the
# rows of its median run, with each row's range and its target's verdicts
# over all N runs (bench/median-runs.awk).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
here=$top/bench
res=$here/results
work=$(mktemp -d /tmp/perfctrfs-bench.XXXXXX)
mkdir -p "$res"
say() { echo "bench: $*" >&2; }
runs=${BENCH_RUNS:-1}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { say "BENCH_RUNS: a whole number, 1 or more"; exit 2; }

pf_pid='' nf_pid='' prom_cg=''
cleanup() {
	local m
	prom_cg_remove
	for m in "$work/pf" "$work/null"; do
		mountpoint -q "$m" 2>/dev/null && { fusermount3 -u "$m" 2>/dev/null || umount -l "$m"; }
	done
	for p in $pf_pid $nf_pid; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

say "building"
make -s -C "$top/proto-fuse" >&2
make -s -C "$here" >&2

load_before=$(uptime)
t0=$SECONDS
rows=$work/rows.tsv       # the reported rows: backend, op, path, ...
all=$work/all.tsv         # every run's rows, the run's number first
: > "$all"

# wait_mount DIR PID: until DIR is a mount point, 10 s at most
wait_mount() {
	local i
	for ((i = 0; i < 100; i++)); do
		mountpoint -q "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# ---------------------------------------------------------------- perfctr-prom
# The issue 18 scrape through the real tool: tools/perfctr-prom -G over
# PROM_CG cgroups of our own, with the events bench's cgroups part chose
# (it writes them to $work/cg-events), on the FUSE mount.  perfctr-prom
# is a bash loop that reads each leaf with its own read builtin (one
# read(2), no process) and formats a scrape with one awk; it always opens
# the per-CPU and system-wide leaves of each event too.  It runs twice,
# for 1 and for 1 + PROM_K scrapes: the difference is PROM_K scrapes
# without its start (lookups, opens).  Measured: its user+sys with its
# children's (/usr/bin/time), and the daemon's utime+stime growth
# (/proc/PID/stat), each per scrape.
PROM_CG=60 PROM_K=3 PROM_INTERVAL=1s

prom_cg_remove() {
	local d
	[ -n "$prom_cg" ] || return 0
	for d in "$prom_cg"/c*/; do
		[ -d "$d" ] && rmdir "$d"
	done
	rmdir "$prom_cg" || say "perfctr-prom: cannot remove cgroup $prom_cg"
	prom_cg=''
}

# The daemon's utime+stime in clock ticks
daemon_ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# prom_once N: perfctr-prom for N scrapes; "user+sys daemon-ticks" on stdout
prom_once() {
	local t0 t
	t0=$(daemon_ticks "$pf_pid")
	/usr/bin/time -f '%U %S' -o "$work/prom.time" timeout 300 \
		"$top/tools/perfctr-prom" --mount "$work/pf" -G "$prom_names" \
		-e "$prom_events" -i "$PROM_INTERVAL" -n "$1" \
		-o "$work/prom/perfctr.prom" >&2 || return 1
	t=$(awk '{ print $1 + $2 }' "$work/prom.time")
	echo "$t $(($(daemon_ticks "$pf_pid") - t0))"
}

# prom_rows RUN: the perfctr-prom rows of run RUN into $all
prom_rows() {
	local cgmnt e i m ncpu a b a1 a2 b1 b2 op hz
	if [ ! -s "$work/cg-events" ]; then
		say "perfctr-prom: skipped (bench's cgroups part chose no events)"
		return 0
	fi
	command -v /usr/bin/time >/dev/null || { say "perfctr-prom: skipped (no /usr/bin/time)"; return 0; }
	cgmnt=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	prom_cg=$cgmnt/perfctrfs-bench-prom.$$
	mkdir "$prom_cg" || { prom_cg=''; say "perfctr-prom: cannot make a cgroup under $cgmnt"; return 1; }
	prom_names=''
	for ((i = 0; i < PROM_CG; i++)); do
		mkdir "$prom_cg/c$i" || return 1
		prom_names+=${prom_names:+,}${prom_cg#"$cgmnt"/}/c$i
	done
	# path names to perf's syntax: pmu.event is pmu/event/
	prom_events='' m=0
	while read -r e; do
		[[ $e == *.* ]] && e=${e%%.*}/${e#*.}/
		prom_events+=${prom_events:+,}$e m=$((m + 1))
	done < "$work/cg-events"
	mkdir -p "$work/prom"
	if ! a=$(prom_once 1) || ! b=$(prom_once $((PROM_K + 1))); then
		prom_cg_remove
		say "perfctr-prom failed"
		return 1
	fi
	prom_cg_remove
	hz=$(getconf CLK_TCK)
	ncpu=$(find "$work/pf" -mindepth 1 -maxdepth 1 -name '[0-9]*' | wc -l)
	op="11 perfctr-prom -G ${PROM_CG}x$m, -i $PROM_INTERVAL"
	read -r a1 a2 <<<"$a"
	read -r b1 b2 <<<"$b"
	awk -v r="$1" -v op="$op" -v k="$PROM_K" -v hz="$hz" -v n=$((PROM_CG * m)) \
		-v c=$((m * (ncpu + 1))) -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" 'BEGIN {
		OFS = "\t"
		print r, "fuse", op, "perfctr-prom user+sys (bash, its own read of each leaf: " n " cgroup + " c " CPU leaves)", \
			sprintf("%.1f", (b1 - a1) * 1000 / k), "ms/scrape", "-", "-", "-"
		print r, "fuse", op, "perfctrfs-fuse utime+stime", \
			sprintf("%.1f", (b2 - a2) * 1000 / hz / k), "ms/scrape", "-", "-", "-"
	}' >> "$all"
}

# run_fuse RUN: the FUSE rows of run RUN into $all
run_fuse() {
	local opts=${BENCH_OPTS--o allow_other} n
	# 10,000 counters open at once, in the daemon and in bench
	ulimit -Hn 65536 2>/dev/null || true
	ulimit -n "$(ulimit -Hn)"
	say "fuse: RLIMIT_NOFILE $(ulimit -n) for the daemon and bench"
	mkdir -p "$work/pf" "$work/null"
	# shellcheck disable=SC2086
	"$top/proto-fuse/perfctrfs-fuse" -f $opts "$work/pf" 2> "$work/pf.log" &
	pf_pid=$!
	wait_mount "$work/pf" "$pf_pid" || { cat "$work/pf.log" >&2; say "perfctrfs-fuse did not mount"; return 1; }
	# the floor's root lists as many names as a cpu directory
	n=$(find "$work/pf/0" -mindepth 1 -maxdepth 1 | wc -l)
	# shellcheck disable=SC2086
	NULLFS_ENTRIES=$((n > 2 ? n - 2 : 0)) NULLFS_BIG=2002 \
		"$here/nullfs" -f $opts "$work/null" 2> "$work/null.log" &
	nf_pid=$!
	wait_mount "$work/null" "$nf_pid" || { cat "$work/null.log" >&2; say "nullfs did not mount"; return 1; }
	say "fuse: perfctrfs-fuse (pid $pf_pid) and nullfs (pid $nf_pid) mounted $opts"
	rm -f "$work/cg-events"
	BENCH_CG_EVENTS=$work/cg-events timeout -k 5 240 \
		"$here/bench" fuse "$work/pf" "$work/null" "$pf_pid" 2 |
		sed "s/^R\t/$1\tfuse\t/" >> "$all"
	prom_rows "$1" || true
	fusermount3 -u "$work/pf" || umount -l "$work/pf"
	fusermount3 -u "$work/null" || umount -l "$work/null"
	# a daemon that outlives its mount is ours to stop
	kill -9 "$pf_pid" "$nf_pid" 2>/dev/null || true
	wait "$pf_pid" "$nf_pid" 2>/dev/null || true
	pf_pid='' nf_pid=''
}

for ((r = 1; r <= runs; r++)); do
	[ "$runs" -gt 1 ] && say "run $r of $runs"
	if [ "${BENCH_SKIP:-}" != fuse ]; then
		run_fuse "$r" || say "FUSE bench failed"
	fi
	if [ "${BENCH_SKIP:-}" != kernel ]; then
		rm -f "$work/kernel.tsv"
		"$here/qemu-bench.sh" "$work/kernel.tsv" || say "kernel bench failed or skipped (above)"
		[ -f "$work/kernel.tsv" ] && sed "s/^R\t/$r\tkernel\t/" "$work/kernel.tsv" >> "$all"
		# BENCH_PROFILE=1: keep the profile past $work's removal
		if [ -f "$work/profile.txt" ]; then
			mkdir -p "$top/build/bench"
			mv "$work/profile.txt" "$top/build/bench/profile.$r.txt"
			say "profile of run $r: $top/build/bench/profile.$r.txt"
		fi
	fi
done
load_after=$(uptime)

# One table from the runs (the one run's rows, two columns more)
awk -f "$here/median-runs.awk" "$all" > "$rows"

# ---------------------------------------------------------------- table
md=$res/latest.md
{
	echo "# perfctrfs bench: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "- machine: $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "- kernel guest: $(cat "$work/guest.txt" 2>/dev/null || echo 'not run')"
	echo "- load before: ${load_before#*load average: }; after: ${load_after#*load average: }; bench took $((SECONDS - t0)) s"
	echo "- method: one process, pinned to CPU 0, paths interleaved (A B C, C B A), 11 rounds of ~20 ms each after a warm-up, median"
	echo "- readers (7): T threads of one process on every CPU, each reading its own fd for 200 ms; 5 rounds after a warm-up, paths interleaved, median of all reads/s; vs perf and vs floor are throughput ratios (the target: perfctrfs >= 0.9x the floor); the perfctrfs leaf is all/task_clock/self/simple/0, so it counts the T + 1 threads of the reading process; \"one task\" is all/task_clock/PID/simple/0 of a sleeping child, one counter whatever T; \"floor, readers counted\" is the floor read by threads that each hold a perf task_clock counter on themselves, as the self leaf counts them (what counting the readers costs them)"
	echo "- cgroups (10): 60 cgroups of bench's own (3 with a small busy process), up to 10 events that open as cgroup events on every CPU; a scrape reads every (cgroup, event) once: perf = one PERF_FLAG_PID_CGROUP event per CPU, read() and summed; perfctrfs = one pread() of all/<event>/cgroup.<id>/simple/0; per counter = per scrape / (cgroups x events); memory = Slab (and FUSE daemon VmRSS) growth with all open, / (cgroups x events). Anchor: cAdvisor's published scrape of 60 containers x 10 perf counters, 8.65 s on 40 cores"
	echo "- perfctr-prom (11, FUSE): tools/perfctr-prom -G over $PROM_CG cgroups, the same events, -i $PROM_INTERVAL, -n 1 and -n $((PROM_K + 1)); the difference / $PROM_K: its user+sys with its children (one awk a scrape), and the daemon's utime+stime"
	if [ "$runs" -gt 1 ]; then
		echo "- runs: $runs of both backends (BENCH_RUNS); each operation's rows are those of the run whose ranked row is the median (bench/median-runs.awk), with each row's figure over all runs (a perfctrfs row's ratio to perf, else to the floor; a reference row's value) and its target's verdict in each run"
	fi
	echo "- floors: FUSE = bench/nullfs (same libfuse, same options, a 20-byte line); kernel = /proc/uptime (a one-line seq_file); readdir = nullfs root / nullfs /big, or the /proc directory nearest in size and /proc"
	echo
	# with BENCH_RUNS, the two columns median-runs.awk adds
	head="| backend | operation | path | median | unit | vs perf | vs floor | target |"
	rule="|---|---|---|---:|---|---:|---:|---|"
	cols=8
	if [ "$runs" -gt 1 ]; then
		head="$head over the runs | verdicts |" rule="$rule---|---|" cols=10
	fi
	echo "$head"
	echo "$rule"
	awk -F'\t' -v cols="$cols" '{ s = "|"; for (i = 1; i <= cols; i++) s = s " " $i " |"; print s }' "$rows"
} > "$md"
cat "$md"

# ---------------------------------------------------------------- chart
png=$res/ratios.png
if command -v gnuplot > /dev/null; then
	awk -F'\t' '$5 == "ns/op" && ($6 != "-" || $7 != "-") && $3 ~ /^perfctrfs/ {
		label = $1 " " substr($2, 3)
		printf "\"%s\" %s %s\n", label, ($6 == "-" ? "NaN" : $6), ($7 == "-" ? "NaN" : $7)
	}' "$rows" > "$work/ratios.dat"
	if [ -s "$work/ratios.dat" ]; then
		gnuplot <<-EOF
		set terminal pngcairo size 1000,560 font "DejaVu Sans,11" noenhanced
		set output "$png"
		set title "perfctrfs cost as a ratio, log scale (median ns/op; lower is better; dashed: 1.0)"
		set style data histograms
		set style histogram clustered gap 1
		set style fill solid 0.85 border -1
		set boxwidth 0.9
		set ylabel "ratio"
		set logscale y
		set yrange [0.2:*]
		set ytics (0.25, 0.5, 1, 1.2, 1.5, 2, 5, 10, 20, 50, 100)
		set grid ytics
		set bmargin 7
		set rmargin 12
		set xtics rotate by -25 left
		set key top right
		set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "black"
		plot "$work/ratios.dat" using 2:xtic(1) title "vs perf_event_open(2)" lc rgb "#4477aa", \
		     "" using 3 title "vs transport floor" lc rgb "#ee7733"
		EOF
		say "chart: $png"
	fi
else
	say "gnuplot missing (apt-get install gnuplot-nox): no chart"
fi
say "table: $md"
