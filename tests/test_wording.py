"""Counted nouns read right in the singular and the plural."""

from hypothesis import given
from hypothesis import strategies as st

from desktop.wording import plural, plural_of


def test_one_is_singular_and_every_other_count_plural():
    assert plural(1, "node") == "1 node"
    assert plural(0, "error") == "0 errors"
    assert plural(2, "match") == "2 matches"
    assert plural(3, "entry") == "3 entries"
    assert plural(1200, "event") == "1,200 events"
    assert plural(1200, "event", sep="") == "1200 events"
    assert plural(2, "fix") == "2 fixes"
    assert plural(2, "day") == "2 days"


@given(st.integers(min_value=0, max_value=10**9), st.sampled_from(
    ["node", "edge", "error", "warning", "row", "event", "problem", "line", "run"]))
def test_the_noun_is_singular_exactly_when_the_count_is_one(count, noun):
    text = plural(count, noun)
    assert text.split(" ", 1)[1] == (noun if count == 1 else plural_of(noun))
    assert int(text.split(" ", 1)[0].replace(",", "")) == count
