"""Small measuring helpers shared by the bench modules."""

import os


def rss_mb() -> float:
    """This process's resident memory in MB (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0
