"""Facts about the machine showcause runs on."""

from __future__ import annotations

import os

__all__ = ["spare_cores", "usable_cpus"]

# A tree's test run already fills two cores (testexec's two lanes): speculating on base beside it pays only
# with room for a second run.
_SPECULATE_FROM = 4


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not available on every platform
        return os.cpu_count() or 1


def spare_cores() -> bool:
    """Whether there are cores for base-tree checks beside head's (speculatively, for latency)."""
    return usable_cpus() >= _SPECULATE_FROM
