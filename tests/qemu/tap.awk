# Turn the guest's serial log into one TAP stream (run by tests/qemu/run.sh).
#
# The guest's /init prints result blocks between "=== PCTR BEGIN <name>"
# and "=== PCTR END <name> rc=<n>":
#   kunit      KTAP from the boot log: one TAP line per test case
#              ("kunit: suite.case"), a suite line only when the suite
#              failed without failing cases
#   bats-*     bats --tap output, renumbered, named "<who>: <test>"
#   ppc        the POWER9 PMU checks, as bats-*
#   stress     tests/stress/stress.sh in the guest, as bats-*
#   matrix     tests/stress/permission-matrix.sh in the guest, as bats-*
#   kmemleak   /sys/kernel/debug/kmemleak after two scans (debug kernel):
#              one test, no unreferenced object whose backtrace names a
#              perfctrfs function; the others are counted and listed as
#              comments (tinyconfig's early-boot objects are not ours)
#   dmesg      the whole kernel log: one test, "no warning, BUG or Oops";
#              dmesg-<boot> the same for a second boot's log (ppc64le's
#              suite boot: run.sh appends both boots' logs into one);
#              with debug=1 also one test per kind of report (KASAN,
#              lockdep, sleep in atomic, debugobjects, workqueue lockup,
#              any other BUG/WARNING/Oops), each with its count and the
#              first reports' text as comments
# A block that began and never ended (hang, panic, timeout), a block
# that is missing, a bats run that exited non-zero without a failing
# test, fewer results than a plan announced, or no results at all are
# failures of their own.  Exit status 1 when anything failed.
#
# Variables: want_kunit=1 when the perfctrfs KUnit suites are built (a
# kunit block without any KTAP result fails either way);
# expect="kunit bats-root ..." the blocks that must appear; debug=1 for
# the per-kind report tests; syms=FILE, the names of the functions
# defined in perfctrfs's objects (one a line), for kmemleak's backtraces.

function emit(ok, desc) {
	n++
	if (!ok)
		failed++
	printf "%s %d - %s\n", ok ? "ok" : "not ok", n, desc
}

function unfinished(b) {
	if (plan >= 0 && nres < plan)
		emit(0, label(b) ": only " nres " of " plan " tests reported")
	emit(0, label(b) ": did not finish (guest hung, panicked or timed out)")
}

function label(b) {
	if (b == "bats-root")
		return "root"
	if (b == "bats-user")
		return "user"
	return b
}

# A kernel report's kind by its first line, or "" for any other line.
function report_kind(l) {
	if (l ~ /BUG: KASAN:/)
		return "kasan"
	if (l ~ /possible circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|irq lock inversion|bad unlock balance|held lock freed|lock held when returning to user space|lock held at task exit/)
		return "lockdep"
	if (l ~ /BUG: sleeping function called from invalid context|BUG: scheduling while atomic/)
		return "atomic"
	if (l ~ /ODEBUG:/)
		return "odebug"
	if (l ~ /BUG: workqueue lockup|workqueue lockup/)
		return "wq"
	# the WARN() that carries an ODEBUG line, counted there
	if (l ~ /WARNING: .* at lib\/debugobjects\.c/)
		return ""
	if (l ~ /WARNING:|BUG:|Oops|kernel BUG/)
		return "other"
	return ""
}

# The function a kmemleak backtrace line names: "[<addr>] name+0x1/0x2"
function frame_fn(l) {
	if (!match(l, /\] [A-Za-z0-9_.]+\+0x/))
		return ""
	l = substr(l, RSTART + 2, RLENGTH - 5)
	sub(/\..*/, "", l) # .isra.0, .constprop.0
	return l
}

# Close the kmemleak object being read: ours or someone else's.
function leak_done() {
	if (leak_hdr == "")
		return
	if (leak_ours) {
		ours++
		ours_text[ours] = leak_text
	} else {
		others++
		others_text[others] = leak_hdr " " leak_comm " at " leak_where
	}
	leak_hdr = ""
}

BEGIN {
	n = 0
	failed = 0
	block = ""
	split(expect, exp_list, " ")
	nkinds = split("kasan lockdep atomic odebug wq other", kinds, " ")
	kind_desc["kasan"] = "KASAN report"
	kind_desc["lockdep"] = "lockdep report (circular, inconsistent, recursive locking, suspicious RCU usage...)"
	kind_desc["atomic"] = "sleeping function called from invalid context"
	kind_desc["odebug"] = "debugobjects (ODEBUG) report"
	kind_desc["wq"] = "workqueue lockup"
	kind_desc["other"] = "other BUG, WARNING or Oops"
	if (syms != "") {
		while ((getline s < syms) > 0)
			if (s != "")
				ours_fn[s] = 1
		close(syms)
	}
}

{
	sub(/\r$/, "")
	# a marker may follow the rest of a kernel line on the console
	if (match($0, /=== PCTR (BEGIN|END) /))
		$0 = substr($0, RSTART)
}

/^=== PCTR BEGIN / {
	if (block != "")
		unfinished(block)
	block = $4
	seen[block] = 1
	nres = 0
	nfail = 0
	plan = -1
	bad = 0 # each boot's kernel log (dmesg, dmesg-<boot>) on its own
	suite = ""
	cases = 0
	next
}

/^=== PCTR END / {
	rc = $5
	sub(/^rc=/, "", rc)
	ended[$4] = 1
	if (block ~ /^bats-|^ppc$|^stress$|^matrix$|^fuse-lifetime$/) {
		if (plan >= 0 && nres < plan)
			emit(0, label(block) ": only " nres " of " plan " tests reported")
		if (rc != 0 && nfail == 0)
			emit(0, label(block) ": exited " rc " without a failing test")
	}
	# KUnit must never pass silently: a kunit block without one KTAP
	# result (kunit disabled, suites not built, log overwritten) fails.
	if (block == "kunit" && kunit_n == 0)
		emit(0, "kunit: no KUnit results in the boot log" (want_kunit ? "" : " (perfctrfs not built yet)"))
	if (block == "kmemleak") {
		leak_done()
		if (rc != 0)
			emit(0, "kmemleak: the scan failed (exit " rc "): kmemleak is off or broke down")
		emit(ours == 0, "kmemleak: no unreferenced object allocated through perfctrfs (" ours + 0 " ours, " others + 0 " others)")
		for (i = 1; i <= ours && i <= 10; i++)
			printf "%s", ours_text[i]
		if (others)
			print "# kmemleak: " others " unreferenced objects whose backtrace names no perfctrfs function:"
		for (i = 1; i <= others && i <= 40; i++)
			print "#   " others_text[i]
	}
	if (block ~ /^dmesg/) {
		emit(bad == 0, "guest kernel log" (block == "dmesg" ? "" : " (" substr(block, 7) " boot)") " has no WARNING, BUG, Oops or lockdep report")
		for (i = 1; i <= bad && i <= 20; i++)
			print "# " badline[i]
		if (debug) {
			for (k = 1; k <= nkinds; k++) {
				kd = kinds[k]
				emit(kcount[kd] + 0 == 0, "debug kernel: " (kcount[kd] + 0) " x " kind_desc[kd])
				# the first two reports of the kind, 40 lines each
				for (r = 1; r <= kcount[kd] && r <= 2; r++)
					for (i = kstart[kd, r]; i < kstart[kd, r] + 40 && i <= ndl; i++)
						print "#   " dl[i]
			}
		}
	}
	block = ""
	next
}

block == "" {
	next
}

block == "kunit" {
	line = $0
	match(line, /^ */)
	indent = RLENGTH
	sub(/^ +/, "", line)
	if (indent == 4 && line ~ /^# Subtest: /) {
		suite = substr(line, 12)
		cases = 0
	} else if (indent == 4 && line ~ /^(not )?ok [0-9]+ /) {
		ok = line !~ /^not /
		sub(/^(not )?ok [0-9]+ (- )?/, "", line)
		emit(ok, "kunit: " suite "." line)
		kunit_n++
		cases++
		if (!ok)
			case_fail++
	} else if (indent == 0 && line ~ /^(not )?ok [0-9]+ /) {
		ok = line !~ /^not /
		sub(/^(not )?ok [0-9]+ (- )?/, "", line)
		if (cases == 0 || (!ok && case_fail == 0)) {
			emit(ok, "kunit: suite " line)
			kunit_n++
		}
		cases = 0
		case_fail = 0
	} else if (line ~ /^# / && line !~ /^# Subtest/ && indent > 0) {
		print "# kunit: " substr(line, 3)
	}
	next
}

block == "kmemleak" {
	if ($0 ~ /^unreferenced object /) {
		leak_done()
		leak_hdr = $0
		sub(/:$/, "", leak_hdr)
		leak_ours = 0
		leak_comm = ""
		leak_where = ""
		leak_text = "# " $0 "\n"
		next
	}
	if (leak_hdr == "")
		next
	leak_text = leak_text "# " $0 "\n"
	if ($0 ~ /^ *comm "/) {
		leak_comm = $0
		sub(/^ */, "", leak_comm)
		sub(/, jiffies.*/, "", leak_comm)
	}
	f = frame_fn($0)
	if (f != "") {
		if (f in ours_fn || f ~ /perfctrfs/)
			leak_ours = 1
		# the first frame past the allocator: where it came from
		if (leak_where == "" && f !~ /^(__)?(kmalloc|kmem_cache|kzalloc|kcalloc|krealloc|kvmalloc|kstrdup|kmemdup|__alloc|alloc_|slab_|__slab|kmemleak|__kmem|__do_kmalloc|kasan|__kasan|memblock|pcpu_|__vmalloc|vmalloc|__get_vm_area)/)
			leak_where = f
	}
	next
}

block ~ /^dmesg/ {
	ndl++
	dl[ndl] = $0
	kd = report_kind($0)
	if (kd != "") {
		kcount[kd]++
		kstart[kd, kcount[kd]] = ndl
	}
	if ($0 ~ /WARNING:|BUG:|Oops|kernel BUG|possible circular locking|INFO: task .* blocked|Call Trace|UBSAN:|KASAN:|refcount_t:/) {
		bad++
		badline[bad] = $0
	}
	next
}

/^(not )?ok [0-9]+/ {
	line = $0
	ok = line !~ /^not /
	sub(/^(not )?ok [0-9]+ (- )?/, "", line)
	emit(ok, label(block) ": " line)
	nres++
	if (!ok && line !~ /# [Tt][Oo][Dd][Oo]/)
		nfail++
	next
}

/^1\.\.[0-9]+/ {
	plan = substr($0, 4) + 0
	next
}

/^#/ {
	print
	next
}

END {
	if (block != "")
		unfinished(block)
	for (i = 1; i in exp_list; i++)
		if (!(exp_list[i] in seen))
			emit(0, label(exp_list[i]) ": never started (guest hung, panicked or timed out)")
	if (n == 0)
		emit(0, "guest produced no results")
	print "1.." n
	exit (failed > 0)
}
