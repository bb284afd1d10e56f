"""A resolved text is one with no conflict marker line left, by git's own rule (`git diff
--check`): seven ``<``, ``|``, ``=`` or ``>`` at a line's start, then a space or its end."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.merge import has_conflict_markers


@pytest.mark.parametrize("line", ["<<<<<<< ours", "||||||| base", "=======", ">>>>>>> theirs",
                                  "<<<<<<<", "======= \t", "|||||||\tbase"])
def test_each_marker_left_is_found(line: str) -> None:
    assert has_conflict_markers(f"kept\n{line}\nkept too\n")


@pytest.mark.parametrize("line", ["========", "Title\n=====", "  =======", "<<<<<<<<",
                                  "a ======= b", "<<<<<<x", "|||||| six"])
def test_text_that_only_looks_alike_is_resolved(line: str) -> None:
    assert not has_conflict_markers(f"kept\n{line}\nkept too\n")


@given(st.text(alphabet=st.characters(blacklist_characters="<|=>")))
def test_text_without_marker_characters_has_no_marker(text: str) -> None:
    assert not has_conflict_markers(text)
