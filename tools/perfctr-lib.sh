# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# perfctr-lib.sh - what perfctr-stat, perfctr-list, perfctr-top and
# perfctr-prom share, sourced by each: messages and exits, the mount, the
# CPUs and their topology, perf's event-list syntax mapped onto the
# perfctrfs path grammar, opening and reading leaves, and an event's scale
# and unit.  The tools find it next to themselves (the source tree) or in
# ../lib/perfctrfs (installed).
#
# The caller sets pc_prog (its name) and pc_mnt (the mount) first.

# The arrays and PC_* results below are for the sourcing tools.
# shellcheck disable=SC2034
pc_prog=${pc_prog:-perfctr}
pc_mnt=${pc_mnt:-${PERFCTR_MNT:-/dev/perfctr}}
pc_sysfs=${PERFCTR_SYSFS:-/sys}
pc_libdir=${BASH_SOURCE[0]%/*}
[ "$pc_libdir" = "${BASH_SOURCE[0]}" ] && pc_libdir=.

# One line on stderr and exit $pc_rc (1 unless the caller says otherwise:
# 2 for usage errors, 127 for a command that is not there).
pc_die() {
	printf '%s: %s\n' "$pc_prog" "$*" >&2
	exit "${pc_rc:-1}"
}

pc_need_mount() {
	[ -d "$pc_mnt/all" ] || pc_die "no perfctrfs mounted at $pc_mnt (no $pc_mnt/all)"
}

# PC_CPUS: the online CPUs, the numeric entries of the mount's root, sorted.
pc_cpus() {
	local d
	PC_CPUS=()
	for d in "$pc_mnt"/*; do
		d=${d##*/}
		[[ $d =~ ^(0|[1-9][0-9]*)$ ]] && PC_CPUS+=("$d")
	done
	[ ${#PC_CPUS[@]} -gt 0 ] || pc_die "no CPU directories under $pc_mnt"
	mapfile -t PC_CPUS < <(printf '%s\n' "${PC_CPUS[@]}" | sort -n)
}

# "0,2-3" -> PC_LIST=(0 2 3); returns 1 when it does not parse.
pc_cpu_list() {
	local p c parts
	PC_LIST=()
	IFS=, read -r -a parts <<<"$1"
	for p in "${parts[@]}"; do
		if [[ $p =~ ^(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$ ]]; then
			for ((c = BASH_REMATCH[1]; c <= BASH_REMATCH[2]; c++)); do
				PC_LIST+=("$c")
			done
		elif [[ $p =~ ^(0|[1-9][0-9]*)$ ]]; then
			PC_LIST+=("$p")
		else
			return 1
		fi
	done
	[ ${#PC_LIST[@]} -gt 0 ]
}

# PC_SOCKET[cpu], PC_DIE[cpu], PC_CORE[cpu] from sysfs topology, as perf
# --per-socket and --per-core group CPUs (0 where sysfs has no file).
pc_topology() {
	local c t
	PC_SOCKET=() PC_DIE=() PC_CORE=()
	for c; do
		t=$pc_sysfs/devices/system/cpu/cpu$c/topology
		PC_SOCKET[c]=$(cat "$t/physical_package_id" 2>/dev/null || echo 0)
		PC_DIE[c]=$(cat "$t/die_id" 2>/dev/null || echo 0)
		PC_CORE[c]=$(cat "$t/core_id" 2>/dev/null || echo 0)
	done
}

# perf's symbolic events: path name, category, perf's names (the first is
# the one perf list shows first, the others its aliases).
PC_SYMBOLS='cycles hw cpu-cycles cycles
instructions hw instructions
cache_references hw cache-references
cache_misses hw cache-misses
branch_instructions hw branch-instructions branches
branch_misses hw branch-misses
bus_cycles hw bus-cycles
stalled_cycles_frontend hw stalled-cycles-frontend idle-cycles-frontend
stalled_cycles_backend hw stalled-cycles-backend idle-cycles-backend
ref_cycles hw ref-cycles
alignment_faults sw alignment-faults
context_switches sw context-switches cs
cpu_clock sw cpu-clock
cpu_migrations sw cpu-migrations migrations
emulation_faults sw emulation-faults
major_faults sw major-faults
minor_faults sw minor-faults
page_faults sw page-faults faults
task_clock sw task-clock'

# perf's hw-cache names: <cache>-<op>[-<result>], each part one of perf's
# spellings; the first of each list is the one perf list prints.
PC_CACHES='l1d L1-dcache l1-d l1d L1-data
l1i L1-icache l1-i l1i L1-instruction
llc LLC L2
dtlb dTLB d-tlb Data-TLB
itlb iTLB i-tlb Instruction-TLB
branch branch branches bpu btb bpc
node node'
declare -A PC_SYM_PATH=() PC_SYM_CAT=() PC_PERF_NAME=() PC_SYM_NAMES=() PC_CACHE=() PC_CACHE_FIRST=()
while read -r p c names; do
	PC_PERF_NAME[$p]=${names%% *}
	PC_SYM_NAMES[$p]=$names
	PC_SYM_CAT[$p]=$c
	for n in $names; do
		PC_SYM_PATH[$n]=$p
	done
done <<<"$PC_SYMBOLS"
while read -r p names; do
	PC_CACHE_FIRST[$p]=${names%% *}
	for n in $names; do
		PC_CACHE[${n,,}]=$p
	done
done <<<"$PC_CACHES"

# perf's name of a hw-cache path name (l1d_read_miss -> L1-dcache-load-misses).
pc_cache_perf_name() {
	local c=${1%%_*} rest=${1#*_} op res first
	op=${rest%_*} res=${rest##*_}
	first=${PC_CACHE_FIRST[$c]}
	case $op in read) op=load ;; write) op=store ;; esac
	if [ "$res" = miss ]; then
		echo "$first-$op-misses"
	elif [ "$op" = prefetch ]; then
		echo "$first-prefetches"
	else
		echo "$first-${op}s"
	fi
}

# perf's name for a path name without modifiers: task_clock -> task-clock,
# msr.tsc -> msr/tsc/, cpu.event=0x3c -> cpu/event=0x3c/, 0x1c2 -> r1c2.
pc_perf_name() {
	local p=$1
	if [ -n "${PC_PERF_NAME[$p]:-}" ]; then
		# perf stat's own default names: cycles, branches.
		case $p in
		cycles) echo cycles ;;
		branch_instructions) echo branches ;;
		*) echo "${PC_PERF_NAME[$p]}" ;;
		esac
	elif [[ $p =~ ^(l1d|l1i|llc|dtlb|itlb|branch|node)_(read|write|prefetch)_(access|miss)$ ]]; then
		pc_cache_perf_name "$p"
	elif [[ $p =~ ^0x([0-9a-f]+)$ ]]; then
		echo "r${BASH_REMATCH[1]}"
	elif [[ $p == *=* ]]; then
		echo "${p%%.*}/${p#*.}/"
	elif [[ $p == *.* ]]; then
		echo "${p%%.*}/$(pc_alias_name "${p%%.*}" "${p#*.}")/"
	else
		echo "$p"
	fi
}

# The sysfs name of a PMU alias, whose path form is lower case with '-'
# turned into '_' (power.energy_pkg is power/energy-pkg/).
pc_alias_name() {
	local f n
	for f in "$pc_sysfs/bus/event_source/devices/$1/events"/*; do
		n=${f##*/} n=${n,,}
		[ "${n//-/_}" = "$2" ] && [[ $f != *.* ]] && { echo "${f##*/}"; return; }
	done
	echo "$2"
}

# The path name of one perf event name without modifiers, or return 1.
# Accepts perf's names, perf's hw-cache names, rNNNN, pmu/terms/ and
# pmu/alias/, and the path grammar's own names (task_clock, msr.tsc).
pc_member_path() {
	pc_path_of "$1" && echo "$PC_RET"
}

# pc_member_path's answer in PC_RET, without a fork: the tools parse
# before they open, and a loaded machine takes 0.1 s a fork.
pc_path_of() {
	local n=$1 lc=${1,,} c op res pmu body
	PC_RET=
	if [ -n "${PC_SYM_PATH[$n]:-}" ]; then
		PC_RET=${PC_SYM_PATH[$n]}
		return
	fi
	if [ -n "${PC_PERF_NAME[$n]:-}" ]; then
		PC_RET=$n
		return
	fi
	if [[ $n =~ ^r([0-9a-fA-F]{1,16})$ ]]; then
		body=${BASH_REMATCH[1],,}
		[[ $body =~ ^0*(.+)$ ]]
		PC_RET=0x${BASH_REMATCH[1]}
		return
	fi
	if [[ $n =~ ^0x[0-9a-f]+$ ]]; then
		PC_RET=$n
		return
	fi
	if [[ $n =~ ^([A-Za-z0-9_.-]+)/([^/]+)/$ ]]; then
		pmu=${BASH_REMATCH[1]} body=${BASH_REMATCH[2]}
		if [[ $body == *=* ]]; then
			PC_RET=$pmu.$body
		else
			body=${body,,}
			PC_RET=$pmu.${body//-/_}
		fi
		return
	fi
	if [[ $n =~ ^[a-z0-9_]+\.[A-Za-z0-9_=,]+$ ]]; then
		PC_RET=$n
		return
	fi
	if [[ $n =~ ^(l1d|l1i|llc|dtlb|itlb|branch|node)_(read|write|prefetch)_(access|miss)$ ]]; then
		PC_RET=$n
		return
	fi
	# hw-cache: the longest cache spelling that prefixes the name.
	for c in "${!PC_CACHE[@]}"; do
		[[ $lc == "$c" || $lc == "$c"-* ]] || continue
		[ -n "${body:-}" ] && [ ${#c} -le ${#body} ] && continue
		body=$c
	done
	[ -n "${body:-}" ] || return 1
	c=${PC_CACHE[$body]} lc=${lc#"$body"} op='read' res='access'
	local part seen_op=0 seen_res=0
	lc=${lc//speculative-read/prefetch} lc=${lc//speculative-load/prefetch}
	IFS=- read -r -a parts <<<"${lc#-}"
	[ ${#parts[@]} -le 2 ] || return 1
	for part in "${parts[@]}"; do
		case $part in
		load|loads|read) op='read'; seen_op=$((seen_op + 1)) ;;
		store|stores|write) op='write'; seen_op=$((seen_op + 1)) ;;
		prefetch|prefetches) op='prefetch'; seen_op=$((seen_op + 1)) ;;
		refs|reference|ops|access) res='access'; seen_res=$((seen_res + 1)) ;;
		misses|miss) res='miss'; seen_res=$((seen_res + 1)) ;;
		*) return 1 ;;
		esac
	done
	[ $seen_op -le 1 ] && [ $seen_res -le 1 ] || return 1
	PC_RET=${c}_${op}_${res}
}

# Modifiers as the path grammar takes them, in PC_RET: each of u k h I at
# most once, in that order.  perf's others (G H p P S D W ...) have no
# path form: return 1.
pc_mods() {
	local m=$1 x i
	PC_RET=
	for ((i = 0; i < ${#m}; i++)); do
		[[ ${m:i:1} == [ukhI] ]] || return 1
	done
	for x in u k h I; do
		[[ $m == *"$x"* ]] && PC_RET+=$x
	done
	return 0
}

# Split a perf event list at the commas that separate events: not those
# inside a pmu/.../ or inside {...}.  Into the array PC_ITEMS; returns 1
# when a brace or a slash is left open.
pc_split_list() {
	local s=$1 c cur='' depth=0 slash=0 i
	PC_ITEMS=()
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		'{') depth=$((depth + 1)) ;;
		'}') depth=$((depth - 1)) ;;
		/) slash=$((!slash)) ;;
		,)
			if [ $depth = 0 ] && [ $slash = 0 ]; then
				PC_ITEMS+=("$cur") cur=
				continue
			fi ;;
		esac
		cur+=$c
	done
	PC_ITEMS+=("$cur")
	[ $depth = 0 ] && [ $slash = 0 ]
}

# Parse one perf event list (-e) and append to:
#   PC_EV_NAME[i]   the name perf prints (what was typed, for a member)
#   PC_EV_PATH[i]   the member's path name, modifiers included
#   PC_EV_GROUP[i]  the index of its group's leader (itself when alone)
# Returns 1 with PC_ERR set when the list does not parse.
pc_parse_events() {
	local items item members m gmods body mods path name lead n
	PC_ERR=
	if ! pc_split_list "$1"; then
		PC_ERR="event syntax error: '$1' (unbalanced { } or / /)"
		return 1
	fi
	items=("${PC_ITEMS[@]}")
	for item in "${items[@]}"; do
		if [ -z "$item" ]; then
			PC_ERR="event syntax error: '$1' (empty event)"
			return 1
		fi
		gmods='' members=("$item")
		if [[ $item == \{* ]]; then
			if ! [[ $item =~ ^\{(.*)\}(:([A-Za-z]+))?$ ]]; then
				PC_ERR="event syntax error: '$item'"
				return 1
			fi
			gmods=${BASH_REMATCH[3]}
			pc_split_list "${BASH_REMATCH[1]}"
			members=("${PC_ITEMS[@]}")
		fi
		lead=${#PC_EV_PATH[@]} n=0
		for m in "${members[@]}"; do
			n=$((n + 1))
			[[ $m == *[{}]* ]] && { PC_ERR="event syntax error: '$m' (groups do not nest)"; return 1; }
			name=$m mods=''
			if [[ $m =~ ^([A-Za-z0-9_.-]+/[^/]+/):?([A-Za-z]*)$ ]]; then
				body=${BASH_REMATCH[1]} mods=${BASH_REMATCH[2]}
			elif [[ $m =~ ^([^:/]+):([A-Za-z]+)$ ]]; then
				body=${BASH_REMATCH[1]} mods=${BASH_REMATCH[2]}
			else
				body=$m
			fi
			if [ -z "$m" ]; then
				PC_ERR="event syntax error: '$item' (empty event)"
				return 1
			fi
			if ! pc_path_of "$body"; then
				PC_ERR="event syntax error: '$m' (perfctr-list shows the events)"
				return 1
			fi
			path=$PC_RET
			if ! pc_mods "$mods$gmods"; then
				PC_ERR="event '$m': perfctrfs takes only the modifiers u, k, h and I"
				return 1
			fi
			mods=$PC_RET
			[ -n "$mods" ] && path+=":$mods"
			PC_EV_NAME+=("$name") PC_EV_PATH+=("$path") PC_EV_GROUP+=("$lead")
		done
		if [ $n -gt 8 ]; then
			PC_ERR="group '$item': at most 8 events in a group"
			return 1
		fi
	done
}

# The path name of a whole group, in PC_RET: its members joined with '+'.
pc_group_path() {
	local lead=$1 i
	PC_RET=
	for i in "${!PC_EV_PATH[@]}"; do
		[ "${PC_EV_GROUP[i]}" = "$lead" ] && PC_RET+=${PC_RET:++}${PC_EV_PATH[i]}
	done
	return 0
}

# Is this path name one of the clocks (counted in ns, printed in msec)?
pc_is_clock() {
	[[ $1 =~ ^(task_clock|cpu_clock)(:|$) ]]
}

# PC_HELPER: the C helper (perfctr-helper run|read), next to the library.
pc_helper() {
	PC_HELPER=$pc_libdir/perfctr-helper
	[ -x "$PC_HELPER" ] || pc_die "perfctr-helper not found in $pc_libdir (make -C tools)"
}

# Open a leaf for reading into the variable named $1 (opening creates the
# counter: once only); on failure return 1 with PC_ERR the errno text.
# Needs pc_tmp, a private directory the caller made.
# shellcheck disable=SC2154
pc_open_leaf() {
	local -n _fd=$1
	{ exec {_fd}<"$2"; } 2>"$pc_tmp/open.err" && return 0
	PC_ERR=$(<"$pc_tmp/open.err")
	PC_ERR=${PC_ERR##*: }
	return 1
}

# One line of a leaf, into PC_LINE, by the shell's own read: no process
# a read (a dd a leaf cost perfctr-prom 8 s of CPU a scrape over 630
# leaves).  A leaf is seekable and each read(2) of it returns one whole
# line, so bash's buffered read makes exactly one read(2) and has nothing
# to give back.  False, with PC_LINE empty, at end of file.
pc_read_line() {
	PC_LINE=
	IFS= read -r -u "$1" PC_LINE || [ -n "$PC_LINE" ]
}

# An xattr of a directory of the mount, or nothing.
pc_xattr() {
	getfattr --absolute-names --only-values -n "$2" -- "$1" 2>/dev/null
}

# PC_SCALE and PC_UNIT of an event directory: its user.perfctr.scale and
# user.perfctr.unit (from the PMU's .scale and .unit), or 1 and "".
pc_scale_unit() {
	PC_SCALE=1 PC_UNIT=
	command -v getfattr >/dev/null || return 0
	PC_SCALE=$(pc_xattr "$1" user.perfctr.scale) || PC_SCALE=
	PC_UNIT=$(pc_xattr "$1" user.perfctr.unit) || PC_UNIT=
	[[ $PC_SCALE =~ ^[0-9.]+([eE][-+]?[0-9]+)?$ ]] || PC_SCALE=1
	return 0
}

# The pid level of cgroup NAME (relative to the cgroup2 mount, "/" its
# root, as perf's -G takes it) in PC_RET: cgroup.<id>, the inode number of
# its directory.  Fails with PC_ERR set.
pc_cgroup_leaf() {
	local d
	if [ -z "${PC_CG_MNT:-}" ]; then
		PC_CG_MNT=$(awk '/ - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
		[ -n "$PC_CG_MNT" ] || { PC_ERR="no cgroup2 mount on this machine"; return 1; }
	fi
	d=$PC_CG_MNT/${1#/}
	[ -d "$d" ] && [ ! -L "$d" ] || { PC_ERR="cannot find cgroup $1 under $PC_CG_MNT"; return 1; }
	PC_RET=cgroup.$(stat -c %i -- "$d") || { PC_ERR="cannot stat $d"; return 1; }
}
