#!/usr/bin/env bats
#
# Extended attributes: every event directory says what it opens
# (user.perfctr.encoding), and the root says how many counters are held
# (user.perfctr.counters).

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
}

# The perf config of a generic name: its position in perf's enum.
config_of() {
	local name=$1 list i=0 e
	for list in "$HW_EVENTS" "$SW_EVENTS"; do
		i=0
		for e in $list; do
			[ "$e" = "$name" ] && { printf '0x%x\n' "$i"; return 0; }
			i=$((i + 1))
		done
	done
	return 1
}

@test "task_clock's encoding is type=1,config=0x1" {
	assert_eq "$("$H/xattr" "$M/all/task_clock" user.perfctr.encoding)" "type=1,config=0x1" encoding
}

@test "every listed software event carries its perf type and config" {
	n=0
	for e in $SW_EVENTS; do
		events_of all | grep -qxF "$e" || continue
		assert_eq "$("$H/xattr" "$M/all/$e" user.perfctr.encoding)" "type=1,config=$(config_of "$e")" "$e" || return 1
		n=$((n + 1))
	done
	assert_ge "$n" 4 "software events checked"
}

@test "every listed generic hardware event carries type=0 and its config" {
	hw_event >/dev/null || skip "no generic hardware event listed on this machine"
	for e in $HW_EVENTS; do
		events_of all | grep -qxF "$e" || continue
		assert_eq "$("$H/xattr" "$M/all/$e" user.perfctr.encoding)" "type=0,config=$(config_of "$e")" "$e" || return 1
	done
}

@test "every listed PMU alias carries its PMU's sysfs type" {
	n=0
	for e in $(events_of all | grep -F .); do
		pmu=${e%%.*}
		[ -r "/sys/bus/event_source/devices/$pmu/type" ] || die "$e: no PMU $pmu in sysfs"
		enc=$("$H/xattr" "$M/all/$e" user.perfctr.encoding)
		assert_match "$enc" "^type=$(cat "/sys/bus/event_source/devices/$pmu/type"),config=0x[0-9a-f]+" "$e" || return 1
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "no PMU alias listed on this machine"
}

@test "msr.tsc's encoding is the msr PMU's type and its sysfs event code" {
	require_event msr.tsc
	t=$(cat /sys/bus/event_source/devices/msr/type)
	code=$(sed -n 's/^event=\(0x[0-9a-fA-F]*\).*/\1/p' /sys/bus/event_source/devices/msr/events/tsc)
	assert_eq "$("$H/xattr" "$M/all/msr.tsc" user.perfctr.encoding)" "type=$t,config=$(printf '0x%x' "$code")" "msr.tsc"
}

@test "modifiers show as exclude bits" {
	assert_eq "$("$H/xattr" "$M/all/task_clock:u" user.perfctr.encoding)" \
		"type=1,config=0x1,exclude_kernel=1,exclude_hv=1" "task_clock:u"
	assert_eq "$("$H/xattr" "$M/all/task_clock:k" user.perfctr.encoding)" \
		"type=1,config=0x1,exclude_user=1,exclude_hv=1" "task_clock:k"
	assert_eq "$("$H/xattr" "$M/all/page_faults:uI" user.perfctr.encoding)" \
		"type=1,config=0x2,exclude_kernel=1,exclude_hv=1,exclude_idle=1" "page_faults:uI"
}

@test "a group's encoding is its members' joined with +" {
	assert_eq "$("$H/xattr" "$M/all/task_clock+page_faults" user.perfctr.encoding)" \
		"type=1,config=0x1+type=1,config=0x2" "task_clock+page_faults"
}

@test "the encoding is the same on every CPU dir" {
	for c in $(online_cpus); do
		assert_eq "$("$H/xattr" "$M/$c/page_faults" user.perfctr.encoding)" "type=1,config=0x2" "cpu $c" || return 1
	done
}

@test "listxattr of an event dir names user.perfctr.encoding" {
	"$H/xattr" -l "$M/all/task_clock" | grep -qxF user.perfctr.encoding
}

@test "an attribute that does not exist is ENODATA" {
	assert_eq "$("$H/xattr" "$M/all/task_clock" user.perfctr.nosuch)" ENODATA "user.perfctr.nosuch"
}

@test "the root's user.perfctr.counters counts the counters held open" {
	before=$(counters_held)
	is_count "$before" || die "user.perfctr.counters: $before"
	run "$H/leafio" "$(leaf all task_clock$U self simple 0)" sh="$H/xattr $M user.perfctr.counters"
	[ "$status" -eq 0 ]
	assert_eq "${lines[0]}" $((before + 1)) "counters while one leaf is open"
	run "$H/leafio" "$(leaf all task_clock$U+page_faults$U self simple 0)" sh="$H/xattr $M user.perfctr.counters"
	assert_eq "${lines[0]}" $((before + 2)) "counters while a 2-member group is open"
}

@test "setting an attribute is refused" {
	r=$("$H/fsop" setxattr "$M/all/task_clock" user.perfctr.encoding "type=0,config=0x0") || true
	assert_match "$r" '^(EPERM|EROFS|EACCES|ENOTSUP|EOPNOTSUPP)$' "setxattr"
	assert_eq "$("$H/xattr" "$M/all/task_clock" user.perfctr.encoding)" "type=1,config=0x1" "after setxattr"
}

@test "getfattr -d shows the encoding" {
	require_cmd getfattr
	run getfattr --absolute-names -d "$M/all/task_clock"
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'user.perfctr.encoding="type=1,config=0x1"' || die "getfattr -d: $output"
}

@test "a PMU alias's user.perfctr.scale and .unit are its sysfs .scale and .unit, and only where it has them" {
	assert_eq "$("$H/xattr" "$M/all/task_clock" user.perfctr.scale)" ENODATA "task_clock scale"
	assert_eq "$("$H/xattr" "$M/all/task_clock" user.perfctr.unit)" ENODATA "task_clock unit"
	local d e f b l src p want n=0
	for d in "$M"/all/*.*; do
		e=${d##*/}
		src=
		for f in /sys/bus/event_source/devices/"${e%%.*}"/events/*; do
			b=${f##*/} l=${b,,}
			[[ $b != *.* && ${l//-/_} == "${e#*.}" ]] && src=$f
		done
		[ -n "$src" ] || continue
		n=$((n + 1))
		for p in scale unit; do
			want=ENODATA
			[ -f "$src.$p" ] && want=$(sed 's/[ \n]*$//' "$src.$p")
			assert_eq "$("$H/xattr" "$d" "user.perfctr.$p")" "$want" "$e $p" || return 1
		done
	done
	[ "$n" -gt 0 ] || skip "no PMU alias on this machine"
}

@test "060-xattr: no counter left held" {
	assert_no_leak
}
