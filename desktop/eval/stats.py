"""Pass rates with confidence intervals, and when a change counts as a regression or a fix.

Each side of a case has ``passes`` out of ``n`` samples (one per repeat). Its
95 % interval is the Wilson score interval. A case **regressed** when the new
pass rate lies below the baseline's interval *and* the baseline's rate lies
above the new interval; a **fix** is the mirror image. So with one sample per
side a clean pass→fail is a regression, while 4/5 against 5/5 is not: one
flaky sample does not make a regression. Anything else that differs is
``flaky``.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054

VERDICTS = ("regressed", "fixed", "unchanged_pass", "unchanged_fail", "flaky", "missing")


def wilson(passes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``passes`` successes in ``n`` trials (``(0, 1)`` if n=0;
    a half success counts a tie in a head-to-head)."""
    if n <= 0:
        return 0.0, 1.0
    passes = min(max(passes, 0), n)
    p = passes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


def verdict(base_passes: int, base_n: int, new_passes: int, new_n: int) -> str:
    """How the case changed from baseline to new (one of :data:`VERDICTS`)."""
    if base_n <= 0 or new_n <= 0:
        return "missing"
    p_base, p_new = base_passes / base_n, new_passes / new_n
    lo_base, hi_base = wilson(base_passes, base_n)
    lo_new, hi_new = wilson(new_passes, new_n)
    if p_new < lo_base and p_base > hi_new:
        return "regressed"
    if p_new > hi_base and p_base < lo_new:
        return "fixed"
    if p_base == p_new == 1.0:
        return "unchanged_pass"
    if p_base == p_new == 0.0:
        return "unchanged_fail"
    return "flaky"
