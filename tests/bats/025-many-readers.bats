#!/usr/bin/env bats
#
# Many readers of one target at once: every open leaf counts from its own
# open and answers to its own control words and ioctls, whatever the other
# leaves on the same target (in the same process or another) do, and every
# count only grows while threads come and go.  A backend may read such
# leaves through shared counters (the FUSE daemon does); none of that may
# show.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
	"$H/spin" $((120 * SLOW)) >/dev/null 3>&- &
	spinner=$!
}

teardown() {
	kill_bg_jobs
}

# field N (0-based) of a count line
field() { local a; read -ra a <<< "$1"; echo "${a[$2]}"; }

@test "a second leaf on the same target counts from its own open, not the first one's" {
	for type in simple times; do
		l=$(leaf all task_clock$U "$spinner" "$type" 0)
		# the second leaf lives between the first leaf's two reads
		run timeout 20 "$H/leafio" "$l" sleep=300 pread=0 sh="$H/leafio $l pread=0" pread=0
		[ "$status" -eq 0 ] || die "$type: leafio: $output"
		[ "${#lines[@]}" -eq 3 ] || die "$type: three lines wanted: $output"
		for f in 0 1 2; do
			[ "$type" = simple ] && [ "$f" -gt 0 ] && break
			a1=$(field "${lines[0]}" $f) b=$(field "${lines[1]}" $f) a2=$(field "${lines[2]}" $f)
			is_count "$a1" && is_count "$b" && is_count "$a2" || die "$type: not counts: $output"
			assert_ge "$a1" 1 "$type field $f of the first leaf after 300 ms" || return 1
			assert_le "$b" $((a2 - a1)) "$type field $f of the second leaf: what ran while it was open" || return 1
		done
	done
}

@test "reset and disable through one leaf leave another leaf on the same target counting" {
	l=$(leaf all task_clock$U "$spinner" simple 0)
	"$H/leafio" "$l" sleep=600 pread=0 sleep=800 pread=0 > "$BATS_TEST_TMPDIR/other" 2>&1 3>&- &
	other=$!
	run timeout 15 "$H/leafio" -w "$l" sleep=400 write=reset write=disable pread=0 sleep=300 pread=0
	wait "$other" || die "the other leaf: $(cat "$BATS_TEST_TMPDIR/other")"
	mapfile -t b < "$BATS_TEST_TMPDIR/other"
	assert_eq "${lines[0]} ${lines[1]}" "ok ok" "write reset, write disable"
	assert_eq "${lines[3]}" "${lines[2]}" "the disabled leaf 300 ms later"
	is_count "${b[0]}" && is_count "${b[1]}" || die "the other leaf: ${b[*]}"
	assert_ge "$((b[1] - b[0]))" 50000000 "the other leaf's growth over 800 ms, after the reset and disable"
}

@test "many threads reading their own leaves while others open, control and close them: every count only grows" {
	for l in "$(leaf all task_clock$U self simple 0)" \
		"$(leaf all task_clock$U self times 0)" \
		"$(leaf all "task_clock$U+page_faults$U" self times 0)" \
		"$(leaf all task_clock$U "$spinner" simple 0)"; do
		run timeout $((60 * SLOW)) "$H/manyread" -s 3000 -r 8 -c 3 -t 2 "$l"
		[ "$status" -eq 0 ] || die "$l: $output"
		[[ "$output" == "ok reads="* ]] || die "$l: $output"
	done
}

@test "025-many-readers: no counter left held" {
	assert_no_leak
}
