# Turn the guest's serial log into one TAP stream (run by tests/qemu/run.sh).
#
# The guest's /init prints result blocks between "=== PCTR BEGIN <name>"
# and "=== PCTR END <name> rc=<n>":
#   kunit      KTAP from the boot log: one TAP line per test case
#              ("kunit: suite.case"), a suite line only when the suite
#              failed without failing cases
#   bats-*     bats --tap output, renumbered, named "<who>: <test>"
#   ppc        the POWER9 PMU checks, as bats-*
#   dmesg      the whole kernel log: one test, "no warning, BUG or Oops"
# A block that began and never ended (hang, panic, timeout), a block
# that is missing, a bats run that exited non-zero without a failing
# test, fewer results than a plan announced, or no results at all are
# failures of their own.  Exit status 1 when anything failed.
#
# Variables: want_kunit=1 when the perfctrfs KUnit suites are built (a
# kunit block without any KTAP result fails either way);
# expect="kunit bats-root ..." the blocks that must appear.

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

BEGIN {
	n = 0
	failed = 0
	block = ""
	split(expect, exp_list, " ")
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
	suite = ""
	cases = 0
	next
}

/^=== PCTR END / {
	rc = $5
	sub(/^rc=/, "", rc)
	ended[$4] = 1
	if (block ~ /^bats-|^ppc$/) {
		if (plan >= 0 && nres < plan)
			emit(0, label(block) ": only " nres " of " plan " tests reported")
		if (rc != 0 && nfail == 0)
			emit(0, label(block) ": bats exited " rc " without a failing test")
	}
	# KUnit must never pass silently: a kunit block without one KTAP
	# result (kunit disabled, suites not built, log overwritten) fails.
	if (block == "kunit" && kunit_n == 0)
		emit(0, "kunit: no KUnit results in the boot log" (want_kunit ? "" : " (perfctrfs not built yet)"))
	if (block == "dmesg") {
		emit(bad == 0, "guest kernel log has no WARNING, BUG, Oops or lockdep report")
		for (i = 1; i <= bad && i <= 20; i++)
			print "# " badline[i]
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

block == "dmesg" {
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
