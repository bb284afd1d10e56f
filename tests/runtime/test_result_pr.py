"""A pull request of a run's result: its body lists exactly the files the branch carries
(the files the user accepted), through a stand-in ``gh`` on PATH."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitkit import git, no_git_config
from test_result_apply import a_result

from desktop.runtime.result_apply import apply_result
from desktop.runtime.result_pr import made_branches, open_pull_request

__all__ = ["no_git_config"]


@pytest.fixture
def stand_in_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``gh`` on PATH that records its arguments, one a line, and prints a url."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "gh.args"
    gh = bin_dir / "gh"
    gh.write_text(f"#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > {log}\n"
                  "echo https://github.com/u/p/pull/7\n")
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def _body(log: Path) -> str:
    args = log.read_text().split("\0")
    return args[args.index("--body") + 1]


# staged.txt, deleted by the run, was never committed: the branch, made on HEAD, has no
# change of it to carry, though the user accepted it
@pytest.mark.parametrize("accepted", [["src/new.py"], ["src/new.py", "staged.txt"]])
def test_the_pull_request_lists_only_the_files_its_branch_carries(
        tmp_path: Path, no_git_config, stand_in_gh: Path, accepted: list[str]) -> None:
    repo, result = a_result(tmp_path)
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "remote.git"))
    git(repo, "remote", "add", "origin", str(tmp_path / "remote.git"))
    made = apply_result(result, files=accepted, branch="agent/result")
    assert made.applied
    url, remote = open_pull_request(result, "agent/result", made=made_branches(result))
    assert (url, remote) == ("https://github.com/u/p/pull/7", "origin")
    body = _body(stand_in_gh)
    carried = git(repo, "diff-tree", "-r", "--name-only", "--no-commit-id", "agent/result")
    assert carried.split() == made.files == ["src/new.py"]
    listed = [line for line in body.splitlines() if line.startswith("- ")]
    assert listed == ["- `src/new.py` (added)"]
    # the file the user rejected, and the one the branch has no change of, are not listed
    assert "committed.txt" not in body and "staged.txt" not in body
