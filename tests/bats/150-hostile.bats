#!/usr/bin/env bats
#
# The threat model (Documentation/filesystems/perfctrfs.rst, "Security
# model"): any local user, root of a user namespace or a container
# included, sends hostile names, concurrently, and gains nothing that
# perf_event_open(2) would refuse them: no count, no sample, no oracle, no
# denial of service beyond their own share.  Each test here is an attack
# that succeeded on some earlier version of one backend; it runs against
# both, as root and as a user, and says why it skips where it does.

load helpers

setup_file() {
	leak_baseline
}

setup() {
	perfctr_setup
	export LC_ALL=C
}

teardown() {
	kill_bg_jobs
	restore_paranoid
	true
}

# ---- lookups are pure: both backends ------------------------------------

# ---- the kernel filesystem ----------------------------------------------

# ---- the FUSE daemon ----------------------------------------------------

@test "150-hostile: no counter left held" {
	assert_no_leak
}
