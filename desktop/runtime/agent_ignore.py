"""What an agent leaves behind that is no work of its: kept out of its turn's commit.

An agent that runs Python or its tests leaves ``__pycache__/`` and tool caches in its
worktree. Unless the repository ignores them, ``git add -A`` commits them, the turn's
diff lists them and the run's result would carry them into the user's repository. So a
node's commits read one more excludes file: the user's own (``core.excludesFile``, else
git's default ``$XDG_CONFIG_HOME/git/ignore``), then :data:`PATTERNS`. Passed with
``-c core.excludesFile``, which replaces the user's setting for that command only, so it
is copied in first. Their ``.gitignore`` files and ``info/exclude`` apply as always, and
git never ignores a file it already tracks: a repository that commits such files keeps
doing so.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from desktop.disk.atomic import atomic_write_text
from desktop.runtime.git_run import git

PATTERNS = ("__pycache__/", "*.py[cod]", ".pytest_cache/", ".mypy_cache/", ".ruff_cache/",
            ".DS_Store")
FILE = ".agent-excludes"
"""The excludes file, in the run's folder of worktrees."""
_made: dict[Path, Path] = {}
_guard = threading.Lock()


def user_excludes(cwd: Path) -> Path:
    """The excludes file git reads for the repository at ``cwd`` (it may not exist)."""
    found = git(cwd, "config", "--path", "--get", "core.excludesFile")
    if found.ok and found.text:
        return Path(found.text).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "git" / "ignore"


def excludes_for(worktree: Path) -> Path:
    """The excludes file for the commits of the node worktree at ``worktree``: written
    beside the run's worktrees the first time, then reused."""
    folder = worktree.parent
    with _guard:
        made = _made.get(folder)
        if made is not None and made.is_file():
            return made
        theirs = user_excludes(worktree)
        try:
            text = theirs.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        if text and not text.endswith("\n"):
            text += "\n"
        text += "# Agent Canvas: what agents leave behind, kept out of their commits\n"
        text += "".join(f"{pattern}\n" for pattern in PATTERNS)
        path = folder / FILE
        atomic_write_text(path, text)
        _made[folder] = path
        return path


__all__ = ["FILE", "PATTERNS", "excludes_for", "user_excludes"]
