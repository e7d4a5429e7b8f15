# perfctrfs: top-level build and test entry points.
#
#   make            build the userspace parts (grammar runner, FUSE daemon,
#                   the tools' perfctr-helper)
#   make check      install what is missing, build everything, run every
#                   test stage: unit, FUSE suite, x86_64 and ppc64le
#                   kernels on Linux 6.1 in QEMU, and the x86_64 kernel on
#                   6.12 with the suite's subset in tests/qemu/subset,
#                   then the patch series of both bases (scripts/check.sh)
#   make check-STAGE  one stage: deps build unit fuse tools hardening
#                   qemu-x86 qemu-ppc qemu-x86-612 series-6.1 series-6.12
#   make check-debug  the x86_64 guest on a KASAN, lockdep, kmemleak kernel
#                   (tests/qemu/run.sh x86_64-debug; not part of make check)
#   make check-612  Linux 6.12 LTS: the whole suite in the x86_64 guest and
#                   the ppc64le guest (its POWER9 checks and the suite)
#                   (tests/qemu/README.md has the times that kept them out
#                   of make check)
#   make check-series  the two series stages of make check alone: the
#                   kernel part as a patch series on 6.1 and 6.12, git am,
#                   checkpatch --strict, a W=1 build and a link check after
#                   each patch, the final tree against the tested one
#   make fuzz       libFuzzer over the grammar and the daemon (FUZZ_SECONDS)
#   make bench      perfctrfs against perf_event_open(2), ratios in one run
#                   (BENCH_RUNS=N: N runs, each operation from its median)
#   make install    daemon, tools, man pages, systemd unit (DESTDIR, PREFIX)

.PHONY: all check check-debug check-612 check-series bench fuzz install uninstall clean
all:
	$(MAKE) -C tests/unit
	$(MAKE) -C proto-fuse
	$(MAKE) -C tools

check:
	scripts/check.sh

check-debug:
	scripts/check.sh qemu-x86-debug

check-612:
	scripts/check.sh qemu-x86-612-full qemu-ppc-612

check-series:
	scripts/check.sh series-6.1 series-6.12

check-%:
	scripts/check.sh $*

bench: all
	bench/run.sh

fuzz:
	$(MAKE) -C fuzz fuzz

install uninstall:
	$(MAKE) -C packaging $@

clean:
	$(MAKE) -C tests/unit clean
	$(MAKE) -C proto-fuse clean
	$(MAKE) -C tools clean
	rm -rf build
