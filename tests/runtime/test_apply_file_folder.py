"""A result that needs a folder where the user has a file (or a file where they have a
folder) collides under the user's own path, said as such, never under the name git
gives the side it moves aside (``foo~<commit>``); nothing is changed."""

from __future__ import annotations

from pathlib import Path

from gitkit import fingerprint, no_git_config, user_repo

from desktop.runtime.result_apply import apply_result
from desktop.runtime.run_result import RunResult, changed_files
from desktop.runtime.worktrees import commit_all, head, open_tree

__all__ = ["no_git_config"]
RUN = "1a2b3c4d-0000-4000-8000-000000000002"
NODE = "00000000-0000-4000-8000-00000000000b"


def a_result_writing(tmp_path: Path, files: dict[str, str]) -> tuple[Path, RunResult]:
    """The user's repository, and a run's result that writes ``files``."""
    repo = user_repo(tmp_path / "repo")
    run_dir = tmp_path / "runs" / RUN
    tree = open_tree(repo, run_dir, RUN, "impl", NODE)
    assert tree is not None
    for name, text in files.items():
        (tree.path / name).parent.mkdir(parents=True, exist_ok=True)
        (tree.path / name).write_text(text)
    assert commit_all(tree, "the run's turn\n") is not None
    tip = head(tree.path)
    return repo, RunResult(RUN, run_dir, NODE, "impl", repo, tree.branch, tree.base, tip,
                           changed_files(repo, tree.base, tip))


def test_a_file_of_the_user_s_where_the_result_needs_a_folder_is_named_as_theirs(
        tmp_path: Path, no_git_config) -> None:
    repo, result = a_result_writing(tmp_path, {"foo/bar.txt": "the run's\n"})
    (repo / "foo").write_text("the user's untracked file\n")
    before = fingerprint(repo)
    for check in (True, False):
        outcome = apply_result(result, check=check)
        assert not outcome.applied and outcome.collisions == ["foo"], outcome
        assert "foo is a file of yours where the result needs a folder" in outcome.message
    assert fingerprint(repo) == before


def test_a_folder_of_the_user_s_where_the_result_writes_a_file_is_named_as_theirs(
        tmp_path: Path, no_git_config) -> None:
    repo, result = a_result_writing(tmp_path, {"out": "the run's file\n"})
    (repo / "out").mkdir()
    (repo / "out" / "mine.txt").write_text("the user's\n")
    before = fingerprint(repo)
    outcome = apply_result(result)
    assert not outcome.applied and "out" in outcome.collisions, outcome
    assert not any("~" in name for name in outcome.collisions)
    assert "out is a folder of yours where the result writes a file" in outcome.message
    assert fingerprint(repo) == before
