"""A git command given a timeout is stopped when it passes, and says so: a push to a remote
that never answers fails its request instead of holding a worker thread for good."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.runtime.git_run import git


@pytest.mark.parametrize("terminal", [False, True])
def test_a_git_command_that_never_ends_is_stopped_at_its_timeout(
        tmp_path: Path, terminal: bool) -> None:
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)  # git blocks opening it: nothing will ever write to it
    result = git(tmp_path, "hash-object", str(fifo), terminal=terminal, timeout=0.3)
    assert result.code == 124 and not result.ok
    assert result.reason() == "no answer within 0.3 s; stopped"
