#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# count.sh COMMAND [ARG...] - count a command and every process it creates
# with perfctrfs `self' leaves, and print "task_clock_ns page_faults".
#
# A subshell opens the leaves, which count the subshell ("self") and,
# through inheritance, every child it creates after the open: the command.
# The subshell holds the descriptors, so it can read them when the command
# is done.  It counts its own few steps too; perfctr-stat avoids that by
# counting a pid that exec()s the command.
set -eu
m=${PERFCTR_MNT:-/dev/perfctr}
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
(
	exec {tc}<"$m/all/task_clock/self/simple/0"
	exec {pf}<"$m/all/page_faults/self/simple/0"
	"$@" >&2
	read -r t <&"$tc"
	read -r p <&"$pf"
	echo "$t $p"
)
