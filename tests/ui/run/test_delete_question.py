"""The question before runs are deleted names what goes: a run that worked in no
worktree of its own has no worktrees or branches to lose, and is not said to."""

from __future__ import annotations

from types import SimpleNamespace

from desktop.ui.run.history_delete import delete_question


def row(run_id: str, worked: bool, applied: tuple = ()) -> SimpleNamespace:
    result = SimpleNamespace(applied=applied) if worked else None
    return SimpleNamespace(run_id=run_id, workflow="Plan", result=result)


def test_a_run_in_a_scratch_folder_loses_its_folder_only() -> None:
    text, note, listed = delete_question([row("aaaaaaaa-1", False)])  # type: ignore[list-item]
    assert text == "Delete “Plan” (run aaaaaaaa)?" and listed == ""
    assert note.startswith("Deleted: its folder (events, logs, artifacts).\n")


def test_runs_in_worktrees_lose_those_and_their_branches() -> None:
    _text, note, _listed = delete_question([row("aaaaaaaa-1", True)])  # type: ignore[list-item]
    assert note.startswith("Deleted: its folder (events, logs, artifacts), its node worktrees "
                           "and its branches canvas/aaaaaaaa/*.\n")
    _text, note, listed = delete_question(  # type: ignore[arg-type]
        [row("aaaaaaaa-1", False), row("bbbbbbbb-2", True)])
    assert note.startswith("Deleted: their folders (events, logs, artifacts), and the node "
                           "worktrees and branches of those that had them (canvas/bbbbbbbb/*).")
    assert listed.splitlines() == ["“Plan” (run aaaaaaaa)", "“Plan” (run bbbbbbbb)"]


def test_a_run_whose_apply_could_be_undone_says_that_goes_too() -> None:
    applied = ({"target": "worktree", "at": "2026-11-28T19:27:31Z",
                "undo": "refs/canvas/aaaaaaaa/applied/1"},)
    _text, note, _listed = delete_question([row("aaaaaaaa-1", True, applied)])  # type: ignore[list-item]
    assert "So is the state before its apply to your working tree: that apply can no " \
           "longer be undone (what it wrote stays)." in note
    branch = ({"target": "branch", "branch": "x"},)
    _text, note, _listed = delete_question([row("aaaaaaaa-1", True, branch)])  # type: ignore[list-item]
    assert "undone (what" not in note
