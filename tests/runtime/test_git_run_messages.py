"""What a failing git command of a run says: the subcommand that failed, not the ``-c``
options put in front of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.runtime.git_run import GitError, must


def test_a_failure_names_the_subcommand_after_config_options(tmp_path: Path) -> None:
    with pytest.raises(GitError) as failed:
        must(tmp_path, "-c", "core.untrackedCache=true", "add", "-A", "--", ":/")
    assert str(failed.value).startswith(f"git add in {tmp_path} failed: ")
