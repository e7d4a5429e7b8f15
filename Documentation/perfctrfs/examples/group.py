#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""group.py - read correlated counters and wait for events, stdlib only.

Opens the group task_clock+page_faults of this process (one perf group:
both counted over the same interval), touches some pages, and prints one
line per pread() at offset 0, which gives a fresh line each time:

    <task_clock_ns> <page_faults> <enabled_ns> <running_ns>

Then opens a page_faults leaf with period N and waits for it with poll():
it becomes readable once N more faults have happened.  Prints
"poll <count>".  PERFCTR_MNT names the mount (default /dev/perfctr).
"""
import mmap
import os
import select
import sys

MNT = os.environ.get("PERFCTR_MNT", "/dev/perfctr")
PAGES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000


def touch(npages):
    m = mmap.mmap(-1, npages * mmap.PAGESIZE)
    for i in range(npages):
        m[i * mmap.PAGESIZE] = 1
    return m


def main():
    leaf = os.path.join(MNT, "all", "task_clock+page_faults", "self",
                        "times", "0")
    fd = os.open(leaf, os.O_RDONLY)
    keep = []
    for _ in range(3):
        keep.append(touch(PAGES))
        print(os.pread(fd, 4096, 0).decode().strip())
    os.close(fd)

    leaf = os.path.join(MNT, "all", "page_faults", "self", "simple",
                        str(PAGES))
    fd = os.open(leaf, os.O_RDONLY | os.O_NONBLOCK)
    p = select.poll()
    p.register(fd, select.POLLIN)
    before = p.poll(0)
    keep.append(touch(2 * PAGES))
    after = p.poll(5000)
    line = os.read(fd, 4096).decode().strip()
    os.close(fd)
    print("ready before touching:", bool(before))
    print("poll", line if after else "timeout")
    return 0 if after else 1


if __name__ == "__main__":
    sys.exit(main())
