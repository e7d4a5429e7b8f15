#!/usr/bin/env bats
# The man pages: groff-clean, and they document every option the tools take.

load helpers
bats_require_minimum_version 1.5.0

@test "man pages: groff -ww -z -man prints no warning for any page" {
	require_cmd groff
	n=0
	for f in "$TOP"/man/*.[18]; do
		run groff -ww -z -man "$f"
		[ "$status" -eq 0 ]
		check '[ -z "$output" ]' "$f: $output"
		n=$((n + 1))
	done
	[ "$n" -ge 5 ]
}

@test "man pages: each tool's page names every long option of its --help" {
	for t in perfctr-stat perfctr-list perfctr-top perfctr-prom; do
		page=$TOP/man/$t.1
		[ -f "$page" ]
		run "$T/$t" --help
		[ "$status" -eq 0 ]
		for o in $(grep -oE -- '--[a-z][a-z-]+' <<<"$output" | sort -u); do
			# roff writes a hyphen in an option as \-.
			grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$page" ||
				{ echo "# $t: $o missing from $page" >&2; return 1; }
		done
	done
}

@test "man pages: the daemon's page names its real binary and options" {
	grep -q '^\.B perfctrfs-fuse$' "$TOP/man/perfctrfs-fuse.8"
	for o in uid= gid= mode= allow_other max_counters= max_threads=; do
		grep -qF "$o" "$TOP/man/perfctrfs-fuse.8"
	done
}
