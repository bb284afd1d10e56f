"""Helpers of the agent folder: the windowed handoff search and the normalize fast path."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.runtime.agent_folder import normalize, rfind_windowed


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200).map(lambda b: b.replace(b"x", b"ab")),
       st.sampled_from([b"ab", b"aba", b"b", b"abab"]), st.integers(1, 12), st.data())
def test_windowed_rfind_equals_rfind(data, needle, window, draw):
    window = max(window, len(needle))
    lo = draw.draw(st.integers(0, len(data)))
    hi = draw.draw(st.integers(lo, len(data)))
    assert rfind_windowed(data, needle, lo, hi, window) == data.rfind(needle, lo, hi)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(" \t\r\nab"), max_size=40))
def test_normalize_strips_trailing_blanks_like_the_regex(text):
    plain = re.sub(r"[ \t]+$", "", text.replace("\r\n", "\n").replace("\r", "\n"),
                   flags=re.M).strip("\n")
    assert normalize(text) == plain
