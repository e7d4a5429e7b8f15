# perfctrfs: top-level build and test entry points.
#
#   make            build the userspace parts (grammar runner, FUSE daemon,
#                   the tools' perfctr-helper)
#   make check      install what is missing, build everything, run every
#                   test stage: unit, FUSE suite, x86_64 and ppc64le
#                   kernels in QEMU on Linux 6.1, the x86_64 kernel on 6.12
#                   with a fixed subset of the suite (scripts/check.sh)
#   make check-STAGE  one stage: deps build unit fuse tools hardening
#                   qemu-x86 qemu-ppc qemu-x86-612
#   make check-debug  the x86_64 guest on a KASAN, lockdep, kmemleak kernel
#                   (tests/qemu/run.sh x86_64-debug; not part of make check)
#   make check-612  Linux 6.12 LTS: the whole suite in the x86_64 guest
#                   (make check runs a subset there) and the ppc64le
#                   guest's POWER9 checks (tests/qemu/README.md: times)
#   make fuzz       libFuzzer over the grammar and the daemon (FUZZ_SECONDS)
#   make bench      perfctrfs against perf_event_open(2), ratios in one run
#                   (BENCH_RUNS=N: N runs, each operation from its median)
#   make install    daemon, tools, man pages, systemd unit (DESTDIR, PREFIX)

.PHONY: all check check-debug check-612 bench fuzz install uninstall clean
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
