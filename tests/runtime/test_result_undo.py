"""Undoing an application of a run's result to the working tree: the files it changed go
back to what they held before it, an edit made since elsewhere stays, one that collides
stops it whole, and the user's index, HEAD and branches are never touched."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitkit import fingerprint, git, no_git_config
from lockkit import applying_elsewhere
from test_result_apply import BASE_COMMITTED, a_result

from desktop.runtime.apply_lock import ApplyBusy
from desktop.runtime.result_apply import apply_result
from desktop.runtime.result_undo import undo_apply
from desktop.runtime.run_result import ResultError
from desktop.store.applied import read_applied
from desktop.views.result import undoable

__all__ = ["no_git_config"]


def test_undo_puts_back_every_file_as_it_was_before_applying(tmp_path: Path,
                                                             no_git_config) -> None:
    repo, result = a_result(tmp_path)
    before = fingerprint(repo)
    assert apply_result(result).applied
    assert fingerprint(repo)["files"] != before["files"]
    ref = read_applied(result.run_dir)[0]["undo"]
    assert git(repo, "rev-parse", "--verify", "-q", ref)
    check = undo_apply(result, check=True)
    assert not check.applied and check.files == result.paths()
    undone = undo_apply(result)
    assert undone.applied and undone.files == result.paths()
    assert fingerprint(repo) == before  # files, untracked ones too, index, HEAD, stash
    assert read_applied(result.run_dir)[0]["undone"]
    assert ref not in git(repo, "for-each-ref", "--format=%(refname)")
    with pytest.raises(ResultError, match="no application to your working tree to undo"):
        undo_apply(result)


def test_an_edit_made_since_stays_and_one_that_collides_stops_it(tmp_path: Path,
                                                                 no_git_config) -> None:
    repo, result = a_result(tmp_path)
    assert apply_result(result).applied
    # another file, and the applied file below the run's line: both kept by undo
    (repo / "later.txt").write_text("mine\n")
    applied = (repo / "committed.txt").read_text()
    (repo / "committed.txt").write_text(applied + "a line of mine\n")
    undone = undo_apply(result)
    assert undone.applied
    assert (repo / "committed.txt").read_text() == BASE_COMMITTED + "a line of mine\n"
    assert (repo / "later.txt").read_text() == "mine\n"
    assert not (repo / "src" / "new.py").exists() and (repo / "staged.txt").exists()

    assert apply_result(result).applied
    (repo / "src" / "new.py").write_text("print('rewritten by me')\n")
    before = fingerprint(repo)
    for check in (True, False):
        refused = undo_apply(result, check=check)
        assert not refused.applied and refused.collisions == ["src/new.py"]
        assert "nothing was changed" in refused.message
        assert fingerprint(repo) == before
    assert undoable(read_applied(result.run_dir)) is not None


def test_applications_are_undone_latest_first(tmp_path: Path, no_git_config) -> None:
    repo, result = a_result(tmp_path)
    start = fingerprint(repo)["files"]
    assert apply_result(result, files=["src/new.py"]).applied
    middle = fingerprint(repo)["files"]
    assert apply_result(result).applied
    assert apply_result(result, branch="kept").applied  # a branch is not undone here
    assert undo_apply(result).files == ["committed.txt", "staged.txt"]
    assert fingerprint(repo)["files"] == middle
    assert undo_apply(result).files == ["src/new.py"]
    assert fingerprint(repo)["files"] == start
    assert git(repo, "rev-parse", "--verify", "-q", "refs/heads/kept")
    with pytest.raises(ResultError, match="no application"):
        undo_apply(result)


def test_undo_waits_for_an_application_under_way_and_a_lost_state_is_said(
        tmp_path: Path, no_git_config) -> None:
    repo, result = a_result(tmp_path)
    assert apply_result(result).applied
    with applying_elsewhere(result.run_dir), pytest.raises(ApplyBusy):
        undo_apply(result)
    ref = read_applied(result.run_dir)[0]["undo"]
    git(repo, "update-ref", "-d", ref)
    before = fingerprint(repo)
    with pytest.raises(ResultError, match=r"was deleted\); nothing was changed"):
        undo_apply(result)
    assert fingerprint(repo) == before
