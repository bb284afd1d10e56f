"""Budget limits have one range everywhere: a workflow file, a request and the console's
``budget`` line take a limit above 0 and at most BUDGET_MAX, and refuse anything beyond."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from desktop.cli.run_console import parse
from desktop.contract.api import SetBudgetRequest
from desktop.contract.state import BUDGET_MAX, Budget

WORDS = {"maxTokens": "tokens", "maxCostUsd": "cost", "maxWallSec": "wall"}


def _number(field: str, value: float) -> float | int:
    return int(value) if field == "maxTokens" else value


def _accepted(field: str, value: float | int) -> dict[str, bool]:
    """Whether the file's model, the request and the console line each take ``value``."""
    seen = {}
    try:
        Budget.model_validate({field: value})
        seen["file"] = True
    except ValidationError:
        seen["file"] = False
    try:
        SetBudgetRequest.model_validate({field: value})
        seen["request"] = True
    except ValidationError:
        seen["request"] = False
    try:
        parse(f"budget {WORDS[field]}={value!r}")
        seen["console"] = True
    except ValueError as exc:
        assert f"at most {BUDGET_MAX[field]:,}" in str(exc)  # says the range
        seen["console"] = False
    return seen


@given(st.sampled_from(sorted(BUDGET_MAX)),
       st.floats(min_value=1.0, max_value=1e308, allow_nan=False, allow_infinity=False))
def test_every_way_in_takes_the_same_range(field: str, raw: float) -> None:
    value = _number(field, raw)
    seen = _accepted(field, value)
    assert set(seen.values()) == {value <= BUDGET_MAX[field]}, seen


@pytest.mark.parametrize("field", sorted(BUDGET_MAX))
def test_the_largest_limit_is_taken_and_one_more_is_not(field: str) -> None:
    most = BUDGET_MAX[field]
    assert set(_accepted(field, most).values()) == {True}
    assert set(_accepted(field, most + 1).values()) == {False}


def test_nan_and_infinity_are_not_limits_on_the_console() -> None:
    for word in ("nan", "inf", "-inf"):
        with pytest.raises(ValueError, match="at most"):
            parse(f"budget cost={word}")
