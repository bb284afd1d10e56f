"""Where a run's result was applied, as Run history and ``runs show`` say it: every place
it went (the working tree, each branch), not only the last, and a count per place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.result import ResultSummary

TREE = {"target": "workingTree", "at": "2026-11-28T03:31:17Z"}


def branch(name: str, at: str = "2026-11-28T03:31:11Z") -> dict:
    return {"target": "branch", "branch": name, "at": at}


def summary(*applied: dict) -> ResultSummary:
    return ResultSummary("n1", "lead", "canvas/1a2b3c4d/lead", "/home/me/project", applied)


def test_a_branch_then_the_working_tree_names_both_and_counts_neither_twice() -> None:
    """Made a branch, then applied to the working tree: the cell said "applied: working
    tree" and its tip "applied to the working tree ... (2 times)", though the tree got it
    once and the branch was not mentioned."""
    both = summary(branch("agent-canvas/1a2b3c4d"), TREE)
    assert both.applied_where() == "working tree, branch agent-canvas/1a2b3c4d"
    assert both.applied_text() == (
        "applied to the working tree of /home/me/project at 2026-11-28 03:31:17; "
        "as branch agent-canvas/1a2b3c4d in /home/me/project at 2026-11-28 03:31:11")


def test_one_place_reads_as_before_and_repeats_are_counted() -> None:
    assert summary().applied_where() == "not applied" == summary().applied_text()
    assert summary(branch("x")).applied_where() == "branch x"
    again = summary(TREE, {**TREE, "at": "2026-11-28T04:00:00Z"})
    assert again.applied_where() == "working tree"
    assert again.applied_text() == \
        "applied to the working tree of /home/me/project at 2026-11-28 04:00:00 (2 times)"


@given(st.lists(st.one_of(st.just(TREE), st.sampled_from("abc").map(branch)), min_size=1))
def test_each_place_is_named_once_latest_first(applied: list[dict]) -> None:
    where = summary(*applied).applied_where().split(", ")
    names = ["working tree" if a["target"] != "branch" else f"branch {a['branch']}"
             for a in applied]
    assert sorted(where) == sorted(set(names))
    assert where[0] == names[-1]
    text = summary(*applied).applied_text()
    assert sum(int(t.split(" times")[0].rsplit("(", 1)[1]) if " times)" in t else 1
               for t in text.split("; ")) == len(applied)


def test_an_undone_application_no_longer_counts() -> None:
    undone = {**TREE, "undone": "2026-11-28T03:40:00Z"}
    assert summary(undone).applied_where() == "not applied"
    assert summary(undone).to_json()["applied"] == []
    kept = summary(branch("x"), undone)
    assert kept.applied_where() == "branch x" and kept.last_applied == branch("x")
