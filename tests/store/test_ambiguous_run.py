"""A run id prefix several runs share is refused naming each of them by a prefix that is
its own, so one can be copied from the message (it named cut ids, `1b038645-e25`, with
"..." after however many there were)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from desktop.store.runs import RunError, ambiguous_run, find_run

HEX = "0123456789abcdef"


def named(message: str) -> list[str]:
    inside = re.search(r"\((.*)\)", message)
    assert inside is not None, message
    return inside.group(1).split(" and ")[0].split(", ")


@given(st.sets(st.text(HEX, min_size=12, max_size=12).map(lambda t: "ab" + t), min_size=2,
               max_size=8))
def test_each_run_named_is_its_own_prefix_and_the_rest_are_counted(ids: set[str]) -> None:
    listed = sorted(ids)
    message = ambiguous_run("ab", listed)
    assert message.startswith(f"'ab' matches {len(listed)} runs (")
    shown = named(message)
    assert len(shown) == min(5, len(listed))
    for prefix, run_id in zip(shown, listed, strict=False):
        assert len(prefix) >= 8 and run_id.startswith(prefix)
        assert [i for i in listed if i.startswith(prefix)] == [run_id]
    if len(listed) > 5:
        assert f" and {len(listed) - 5} more)" in message
    else:
        assert " more)" not in message and "..." not in message


def test_the_refusal_names_runs_as_runs_list_shows_them(tmp_path: Path) -> None:
    for name in ("1b038645-e25c-4a29-9c4e-13481bfdf5d3",
                 "1e37fb08-370b-47ea-8239-f87114de06b9"):
        (tmp_path / "runs" / name).mkdir(parents=True)
    try:
        find_run(tmp_path, "1")
    except RunError as exc:
        assert str(exc) == "'1' matches 2 runs (1b038645, 1e37fb08); give more of the id"
    else:
        raise AssertionError("an ambiguous prefix was taken")
