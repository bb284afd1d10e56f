"""A run's scratch workspace: made a git repository so a turn's change shows as a diff.

Where a node works is desktop/views/node_folder.py, the rule the views share."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

from desktop.runtime import helper_process


def init_scratch(path: Path) -> None:
    """Make ``path`` a git repository (unless it is one) so each turn's change there shows
    as a diff like in a real project. With no workspace configured, a run's nodes share
    such a scratch folder."""
    if (path / ".git").exists():
        return
    path.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        helper_process.run(["git", "init", "-q", str(path)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        exclude = path / ".git" / "info" / "exclude"
        if exclude.parent.is_dir():
            exclude.write_text("__pycache__/\n*.pyc\n.pytest_cache/\n")
