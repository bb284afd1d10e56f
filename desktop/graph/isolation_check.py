"""Where nodes work: a configured ``workspace`` that cannot be a folder (an error), and
advice on ``isolation`` (worktree | shared): where a worktree cannot be made.

A node gets its own git worktree when its configured ``workspace`` is in a git
repository, or, asked for, in the run's scratch repository (no workspace); folders
outside git stay shared. Asking for ``worktree`` where it cannot apply is a warning, not
an error: the node still runs, in the folder itself, as it would with ``shared``.
"""

from __future__ import annotations

from pathlib import Path

from desktop.contract.isolation import Isolation
from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import Problem

WORKTREE = Isolation.WORKTREE.value


def in_git_repository(folder: Path) -> bool:
    """Whether ``folder`` or a folder above it holds a ``.git`` (no git process run)."""
    here = folder.absolute()
    return any((place / ".git").exists() for place in (here, *here.parents))


def _workflow_dir(source: str | None) -> Path | None:
    if not source or source.startswith("<"):
        return None
    return Path(source).expanduser().absolute().parent


def _workspace(workspace: str, base: Path | None) -> Path | None:
    path = Path(workspace).expanduser()
    if path.is_absolute():
        return path
    return base / path if base is not None else None


def check_isolation(doc: WorkflowDocument, source: str | None = None) -> list[Problem]:
    """Warnings for ``isolation: worktree`` on nodes that cannot have a worktree: a
    workspace that is not a git repository (checked when the workflow is a file, so
    relative paths resolve)."""
    out: list[Problem] = []
    base = _workflow_dir(source)
    for node in doc.nodes:
        cfg = doc.node_configs.get(node.id)
        if cfg is None or cfg.isolation != WORKTREE:
            continue
        where = f"nodeConfigs.{node.id}.isolation"
        workspace = doc.workspace_of(node.id)
        if not workspace:  # a worktree of the run's scratch repository
            continue
        folder = _workspace(workspace, base)
        if folder is not None and folder.is_dir() and not in_git_repository(folder):
            out.append(Problem(
                where, f"the workspace {workspace!r} of node {node.id!r} is not in a git "
                "repository, so the node works in the folder itself (shared)",
                f"run `git init` in {folder}, or set isolation: shared", "warning"))
    return out


def check_workspaces(doc: WorkflowDocument, source: str | None = None) -> list[Problem]:
    """An error for each configured workspace that is a file, or lies under one: the run
    could not make the folder (relative paths are checked when the workflow is a file)."""
    out: list[Problem] = []
    base = _workflow_dir(source)
    named = [(f"nodeConfigs.{key}.workspace", cfg.workspace)
             for key, cfg in doc.node_configs.items()]
    for where, workspace in [("workspace", doc.workspace), *named]:
        folder = _workspace(workspace, base) if workspace else None
        if folder is None:
            continue
        # a missing folder is made when the run starts; the first part that exists decides
        first = next((p for p in (folder, *folder.parents) if p.exists()), None)
        if first is None or first.is_dir():
            continue
        what = "is a file" if first == folder else f"is inside {first}, which is a file"
        out.append(Problem(
            where, f"{workspace!r} {what}, not a folder",
            "name a folder (a missing one is made when the run starts), or move the file "
            "away"))
    return out
