#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# rate.awk - turn the cumulative lines of a perfctrfs time-period leaf into
# rates: perfctrfs lines are counts since open, never deltas.
#
#   head -n 5 /dev/perfctr/all/context_switches/all/simple/1s |
#       awk -v interval=1 -f rate.awk
#
# Prints "<interval number> <events in it> <events per second>".  For a
# times leaf ("<count> <enabled> <running>") the first field is the count.
BEGIN {
	if (interval <= 0)
		interval = 1
}
{
	d = $1 - last
	last = $1
	printf "%d %d %.1f\n", NR, d, d / interval
}
