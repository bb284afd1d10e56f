"""Pass-rate intervals and verdicts: properties over any counts."""

from hypothesis import given
from hypothesis import strategies as st

from desktop.eval.stats import verdict, wilson

counts = st.integers(0, 40).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@given(counts)
def test_interval_contains_the_rate(count) -> None:
    passes, n = count
    lo, hi = wilson(passes, n)
    assert 0.0 <= lo <= hi <= 1.0
    if n:
        assert lo - 1e-9 <= passes / n <= hi + 1e-9


@given(counts, counts)
def test_swapping_sides_swaps_fixes_and_regressions(base, new) -> None:
    forward, backward = verdict(*base, *new), verdict(*new, *base)
    mirror = {"regressed": "fixed", "fixed": "regressed"}
    assert backward == mirror.get(forward, forward)


@given(counts, counts)
def test_a_regression_means_the_rate_went_down(base, new) -> None:
    result = verdict(*base, *new)
    if result == "regressed":
        assert new[0] / new[1] < base[0] / base[1]
    if result == "fixed":
        assert new[0] / new[1] > base[0] / base[1]


@given(counts)
def test_the_same_samples_never_regress(count) -> None:
    assert verdict(*count, *count) in ("unchanged_pass", "unchanged_fail", "flaky", "missing")


def test_single_samples_and_flaky_repeats() -> None:
    assert verdict(1, 1, 0, 1) == "regressed"
    assert verdict(0, 1, 1, 1) == "fixed"
    assert verdict(5, 5, 4, 5) == "flaky"        # one flaky sample is not a regression
    assert verdict(5, 5, 1, 5) == "regressed"
    assert verdict(3, 3, 0, 0) == "missing"
    assert verdict(2, 2, 2, 2) == "unchanged_pass"
    assert verdict(0, 3, 0, 2) == "unchanged_fail"
