"""A change of cost reads as US dollars, as every other cost in the app does."""

import re

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.usage import cost_delta_text

_DELTA = re.compile(r"^([+-])\$([\d,]+\.\d{4})$")


@given(st.floats(-1000, 1000, allow_nan=False))
def test_a_cost_delta_is_signed_dollars_to_four_decimals(delta: float) -> None:
    text = cost_delta_text(delta)
    if round(delta, 4) == 0:
        assert text == "±$0"
        return
    found = _DELTA.match(text)
    assert found, text
    sign, amount = found.groups()
    assert (sign == "+") == (delta > 0)
    assert abs(float(amount.replace(",", "")) - abs(delta)) <= 0.00005 + 1e-9


def test_the_example_of_a_cheaper_run() -> None:
    assert cost_delta_text(-0.0022) == "-$0.0022"
