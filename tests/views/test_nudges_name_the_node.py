"""A notification of a stall or of a budget reached names the node the run paused on,
by its label (its short id when the label is not known), with the limit in words and
figures as the terminal says them, not a field name and a raw float."""

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.views.notices import notices_of
from desktop.views.nudges import Nudges

labels = st.text(alphabet="ABCDEFGHIJ abcdefghij-", min_size=1, max_size=20).map(str.strip) \
    .filter(bool)
quick = settings(max_examples=60, deadline=None)
STALL = {"type": "run.stalled", "nodeId": "n1", "reason": "repeat",
         "evidence": {"signal": "output", "count": 3, "threshold": 3}}


@quick
@given(labels)
def test_a_stall_names_the_node_by_its_label(label: str) -> None:
    [nudge] = Nudges().decide("r", "Flow", notices_of([STALL]), labels={"n1": label})
    assert nudge.text == (f"Paused: node {label} looks stuck: the same output came back "
                          "3 times (threshold 3).")


@quick
@given(labels, st.sampled_from([("maxTokens", 300, 312, "tokens 312 of 300"),
                                ("maxWallSec", 2, 2.05018, "wall time 2 s of 2 s"),
                                ("maxCostUsd", 1, 1.5, "cost $1.5000 of $1.0000")]))
def test_a_budget_pause_names_the_node_and_the_limit_in_words(label: str, case) -> None:
    limit, budget, used, words = case
    event = {"type": "run.budget_exceeded", "nodeId": "n-impl", "limit": limit,
             "budget": budget, "used": used}
    [nudge] = Nudges().decide("r", "Flow", notices_of([event]), labels={"n-impl": label})
    assert nudge.text == f"Paused: the budget of node {label} is reached ({words})."


def test_a_node_whose_label_is_not_known_is_named_by_its_short_id() -> None:
    event = {"type": "run.budget_exceeded", "nodeId": "0123456789ab", "limit": "maxTokens",
             "budget": 300, "used": 300}
    [nudge] = Nudges().decide("r", "Flow", notices_of([event]))
    assert "the budget of node 01234567 is reached (tokens 300 of 300)" in nudge.text
