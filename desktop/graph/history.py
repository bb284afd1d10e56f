"""A workflow file's past versions in git: the commits that changed it, and the file as it
was at any of them. Read-only: ``git log`` and ``git show`` touch neither the working
tree, nor the index, nor any branch.

Renames are followed (``git log --follow``), so a commit before a rename reads the file
under the name it had then.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import Problem, WorkflowLoadError
from desktop.graph.io import MAX_WORKFLOW_BYTES, loads_workflow

_FIELD, _RECORD = "\x1f", "\x1e"
_FORMAT = _RECORD + _FIELD.join(("%H", "%h", "%aI", "%an", "%s"))
# a workflow file read from history is found by git, not named by the user: GIT_DIR and
# friends from a surrounding hook must not point git at another repository
_REPO_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX")


class HistoryError(Exception):
    """The file's history cannot be read; the message says why and what to do."""


@dataclass(frozen=True)
class FlowCommit:
    """One commit that changed the workflow file."""

    sha: str
    short: str
    date: str
    """Author date, ISO 8601."""
    author: str
    subject: str
    path: str
    """The file's path at this commit, relative to the repository's top."""

    def title(self) -> str:
        """``abc1234 2026-11-27 Tidy the reviewer's prompt``."""
        return f"{self.short} {self.date[:10]} {self.subject}"


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    if not cwd.is_dir():
        raise HistoryError(f"{cwd}: no such folder — check the workflow's path")
    env = {k: v for k, v in os.environ.items() if k not in _REPO_VARS}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    try:
        return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True,
                              check=False)
    except OSError as exc:
        raise HistoryError(f"cannot run git: {exc.strerror or exc} — install git") from None


def _reason(proc: subprocess.CompletedProcess[bytes]) -> str:
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"git exit {proc.returncode}"


def flow_commits(path: str | os.PathLike[str], limit: int = 200) -> list[FlowCommit]:
    """The commits that changed ``path``, newest first (at most ``limit``)."""
    file = Path(path).resolve()
    if _git(file.parent, "rev-parse", "--git-dir").returncode != 0:
        raise HistoryError(f"{file}: no git history — the workflow file must be inside a "
                           "git repository")
    if _git(file.parent, "rev-parse", "--verify", "--quiet", "HEAD").returncode != 0:
        return []  # a repository with no commit yet
    proc = _git(file.parent, "log", "--follow", f"--max-count={limit}", "--name-only",
                f"--format={_FORMAT}", "--", file.name)
    if proc.returncode != 0:
        raise HistoryError(f"{file}: cannot read its git history ({_reason(proc)})")
    commits = []
    for record in proc.stdout.decode("utf-8", "replace").split(_RECORD)[1:]:
        head, _, names = record.partition("\n")
        sha, short, date, author, subject = head.split(_FIELD)
        name = next((n for n in names.splitlines() if n.strip()), "")
        commits.append(FlowCommit(sha, short, date, author, subject, name))
    return commits


def flow_at(path: str | os.PathLike[str], commit: FlowCommit | str) -> WorkflowDocument:
    """The workflow ``path`` as it was at ``commit`` (a FlowCommit, or any revision
    git understands, for the file under its present name)."""
    file = Path(path).resolve()
    if isinstance(commit, FlowCommit):
        rev, spec = commit.sha, f"{commit.sha}:{commit.path}"
    else:
        rev, spec = commit, f"{commit}:./{file.name}"
    source = f"{file.name}@{rev[:12]}"
    proc = _git(file.parent, "cat-file", "-s", spec)
    if proc.returncode != 0:
        raise WorkflowLoadError([Problem(
            "", f"not in git at {rev} ({_reason(proc)})",
            "pick a commit that has the file (git log --follow -- FILE lists them)",
            file=source)])
    if int(proc.stdout or 0) > MAX_WORKFLOW_BYTES:
        raise WorkflowLoadError([Problem(
            "", f"larger than {MAX_WORKFLOW_BYTES} bytes at {rev}",
            "a workflow file is far smaller; check the commit", file=source)])
    proc = _git(file.parent, "show", spec)
    text = proc.stdout.decode("utf-8", "replace")
    return loads_workflow(text, source)
