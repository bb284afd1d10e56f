"""The evaluation report writes a change of cost as US dollars, as the app's evaluation
table does (``+$0.0032``), not as a bare number; other changes keep their units."""

from hypothesis import given
from hypothesis import strategies as st

from desktop.eval.report_html import delta
from desktop.views.usage import cost_delta_text


@given(st.floats(min_value=-1000, max_value=1000, allow_nan=False))
def test_a_cost_change_reads_as_the_app_writes_it(value: float) -> None:
    html = delta(value, digits=4, currency="$")
    assert f">{cost_delta_text(value)}</span>" in html
    grew = round(value, 4) != 0 and value > 0
    assert ('class="up"' in html) == grew


def test_a_time_change_keeps_its_unit_and_sign() -> None:
    assert ">+1.5 s</span>" in delta(1.5, " s", 1)
    assert ">-2 s</span>" in delta(-2.0, " s")
    assert ">±0</span>" in delta(0.01, " s")
