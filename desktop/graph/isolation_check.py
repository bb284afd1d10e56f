"""Where nodes work: a configured ``workspace`` that cannot be a folder (an error), and
advice on ``isolation`` (worktree | shared): where a worktree cannot be made, a
``worktreeSetup`` that no worktree would ever run, and a repository whose submodules
the nodes' worktrees would have empty.

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


def repository_top(folder: Path) -> Path | None:
    """The nearest folder from ``folder`` up that holds a ``.git`` (no git process run)."""
    here = folder.absolute()
    return next((place for place in (here, *here.parents) if (place / ".git").exists()),
                None)


def git_folder(folder: Path) -> Path | None:
    """The git folder ``folder`` is in, when it is in one: a bare repository, or a
    repository's ``.git`` (no git process run: git's own test, ``HEAD``, ``objects/``
    and ``refs/`` side by side)."""
    here = folder.absolute()
    for place in (here, *here.parents):
        if place.name == ".git" and place.is_dir():
            return place
        if (place / "HEAD").is_file() and (place / "objects").is_dir() and \
                (place / "refs").is_dir():
            return place
    return None


def _plain_folder(folder: Path | None) -> bool:
    """Whether ``folder`` is a folder in no git repository (one inside a git folder is
    an error of its own: check_workspaces says it, and no advice on worktrees applies)."""
    return folder is not None and folder.is_dir() and not in_git_repository(folder) \
        and git_folder(folder) is None


def in_git_repository(folder: Path) -> bool:
    """Whether ``folder`` or a folder above it holds a ``.git`` (no git process run)."""
    return repository_top(folder) is not None


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
        if _plain_folder(folder):
            out.append(Problem(
                where, f"the workspace {workspace!r} of node {node.id!r} is not in a git "
                "repository, so the node works in the folder itself (shared)",
                f"run `git init` in {folder}, or set isolation: shared", "warning"))
    return out


def check_workspaces(doc: WorkflowDocument, source: str | None = None) -> list[Problem]:
    """An error for each configured workspace that is a file, or lies under one (the run
    could not make the folder), or lies in a git folder (relative paths are checked when
    the workflow is a file)."""
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
        inside = git_folder(first) if first is not None and first.is_dir() else None
        if inside is not None:
            fix = (f"name the repository's working tree, {inside.parent}, or a folder in it"
                   if inside.name == ".git" else
                   f"name a working tree of the repository (`git -C {inside} worktree "
                   f"list`; make one with `git -C {inside} worktree add PATH`)")
            out.append(Problem(
                where, f"{workspace!r} is inside the git folder {inside} (a bare repository, "
                "or a repository's .git): an agent would write among git's own files", fix))
            continue
        if first is None or first.is_dir():
            continue
        what = "is a file" if first == folder else f"is inside {first}, which is a file"
        out.append(Problem(
            where, f"{workspace!r} {what}, not a folder",
            "name a folder (a missing one is made when the run starts), or move the file "
            "away"))
    return out


def _no_worktree(doc: WorkflowDocument, node_id: str,
                 base: Path | None) -> tuple[str, str] | None:
    """Why ``node_id`` would never work in a worktree of its own, and what would give it
    one; None when it may (or it cannot be told: a relative workspace of a workflow not
    read from a file)."""
    if doc.isolation_of(node_id) == Isolation.SHARED.value:
        return "works in its workspace itself (isolation: shared)", "set isolation: worktree"
    workspace = doc.workspace_of(node_id)
    if not workspace:
        if doc.isolation_of(node_id) == WORKTREE:
            return None  # a worktree of the run's scratch repository
        return ("has no workspace, so it works in the run's scratch folder",
                "set a workspace in a git repository")
    folder = _workspace(workspace, base)
    if _plain_folder(folder):
        return (f"works on {workspace!r}, which is not in a git repository",
                f"run `git init` in {folder}")
    return None


def check_setups(doc: WorkflowDocument, source: str | None = None) -> list[Problem]:
    """Warnings for a ``worktreeSetup`` that would never run: a node's, when the node
    never works in a worktree of its own; the workflow's, when none of the nodes that
    take it does."""
    out: list[Problem] = []
    base = _workflow_dir(source)
    takers: list[tuple[str, tuple[str, str] | None]] = []  # taking the workflow's setup
    for node in doc.nodes:
        if node.kind != "agent":  # a subflow's own nodes are its file's to check
            continue
        why = _no_worktree(doc, node.id, base)
        if doc.config(node.id).worktree_setup is None:
            takers.append((node.id, why))
        elif why is not None:
            out.append(Problem(
                f"nodeConfigs.{node.id}.worktreeSetup", f"node {node.id!r} {why[0]}, so its "
                "worktreeSetup never runs", f"{why[1]}, or remove worktreeSetup", "warning"))
    if doc.worktree_setup is not None and takers and all(why for _, why in takers):
        node_id, why = takers[0]
        assert why is not None
        others = len(takers) - 1
        more = "" if not others else " (and so does the other node that takes it)" \
            if others == 1 else f" (and so do the {others} other nodes that take it)"
        out.append(Problem(
            "worktreeSetup", f"node {node_id!r} {why[0]}{more}, so the workflow's "
            "worktreeSetup never runs", f"{why[1]}, or remove worktreeSetup", "warning"))
    return out


def check_submodules(doc: WorkflowDocument, source: str | None = None) -> list[Problem]:
    """A warning per repository with submodules (a ``.gitmodules``) that nodes would work
    on in worktrees of their own with no setup command: a worktree does not check
    submodules out, so their agents would find those folders empty."""
    base = _workflow_dir(source)
    found: dict[Path, tuple[str, list[str]]] = {}  # repository: where, its nodes
    for node in doc.nodes:
        workspace = doc.workspace_of(node.id)
        setup = doc.setup_of(node.id)
        if node.kind != "agent" or not workspace or (setup is not None and setup.run) \
                or _no_worktree(doc, node.id, base):
            continue
        folder = _workspace(workspace, base)
        top = repository_top(folder) if folder is not None and folder.is_dir() else None
        if top is None or not (top / ".gitmodules").is_file():
            continue
        where = "workspace" if not doc.config(node.id).workspace \
            else f"nodeConfigs.{node.id}.workspace"
        found.setdefault(top, (where, []))[1].append(node.id)
    fix = "give the workflow worktreeSetup: {run: git submodule update --init --recursive}"
    return [Problem(where, f"{top} has submodules, which {_worktrees_of(nodes)} would "
                    "have empty (a worktree does not check submodules out)", fix, "warning")
            for top, (where, nodes) in found.items()]


def _worktrees_of(nodes: list[str]) -> str:
    """``the worktree of node 'a'``, ``the worktrees of nodes 'a' and 'b'``, ``... of
    nodes 'a', 'b' and 3 more``."""
    quoted = [repr(n) for n in nodes]
    if len(quoted) == 1:
        return f"the worktree of node {quoted[0]}"
    shown = quoted[:2] if len(quoted) > 3 else quoted[:-1]
    rest = f"{len(quoted) - 2} more" if len(quoted) > 3 else quoted[-1]
    return f"the worktrees of nodes {', '.join(shown)} and {rest}"
