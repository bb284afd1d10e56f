"""Usage as shown: tokens, and a cost that is "unknown" (never 0) when none was reported."""

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.usage import budget_text, cost, cost_text, exceeded_text, usage_text


@given(st.integers(0, 10**9), st.integers(0, 10**9))
def test_no_cost_reported_is_unknown_never_zero(tokens_in: int, tokens_out: int) -> None:
    usage = {"inputTokens": float(tokens_in), "outputTokens": float(tokens_out)}
    assert cost(usage) == "unknown" and cost_text(usage) == "unknown"
    assert "cost unknown" in usage_text(usage)
    assert f"{tokens_in + tokens_out:,} tokens" in usage_text(usage)


def test_a_reported_cost_of_zero_is_zero() -> None:
    assert cost({"costUsd": 0.0}) == 0.0 and cost_text({"costUsd": 0.0}) == "$0.0000"


def test_budget_and_exceeded_texts_name_the_limits() -> None:
    assert budget_text({"maxTokens": 4000, "maxCostUsd": 1.5}) == "4,000 tokens, $1.50"
    assert budget_text({}) == "no limit"
    text = exceeded_text({"limit": "maxTokens", "budget": 4000, "used": 4040}, "Coder")
    assert text.startswith("budget of Coder reached: tokens 4,040 of 4,000")
