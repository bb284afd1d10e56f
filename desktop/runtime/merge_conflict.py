"""A merge left conflicted in a node's worktree: described for a person, resolved as they
chose, concluded with a merge commit.

- :func:`describe`: the ``merge`` approval's request (desktop/contract/merge.py): the
  branches, and per conflicting file which sides have it and its hunks, read from the
  conflict markers (diff3 style: ours, base, theirs) in the worktree's file;
- :func:`apply`: a side per file (the file as the node's branch, ``HEAD``, or the
  sender's commit, ``MERGE_HEAD``, has it, deleted where that side deleted it) and the
  contents a person wrote, each staged;
- :func:`unresolved`: the files of the merge the agent left unresolved: a text file
  holding a conflict marker line, a binary file still unmerged in the index;
- :func:`conclude`: everything staged and committed with both parents.

Blocking: run these on a worker thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop.contract.merge import has_conflict_markers
from desktop.runtime.git_run import GitError
from desktop.runtime.worktree_merge import Conflicted, conflicts
from desktop.runtime.worktree_repair import end_merge
from desktop.runtime.worktrees import NodeTree

MAX_SIDE_CHARS = 20_000
"""Longest side of a hunk put in a request; the worktree has the whole file."""
MAX_HUNKS = 50
MAX_FILES = 200
MAX_TOTAL_CHARS = 200_000
"""Hunk text in one request, all files together; past it, hunks are left out."""


def _hunks(text: str) -> tuple[list[dict[str, Any]], bool]:
    """The conflict hunks of a file's text, and whether any was left out or shortened."""
    hunks: list[dict[str, Any]] = []
    cut = False
    part: str | None = None
    sides: dict[str, list[str]] = {}
    start = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.startswith("<<<<<<<"):
            part, sides, start = "ours", {"ours": [], "base": [], "theirs": []}, number
        elif part is not None and line.startswith("|||||||"):
            part = "base"
        elif part is not None and line.rstrip("\r\n") == "=======":
            part = "theirs"
        elif part is not None and line.startswith(">>>>>>>"):
            hunk: dict[str, Any] = {"line": start}
            for name, lines in sides.items():
                body = "".join(lines)
                cut |= len(body) > MAX_SIDE_CHARS
                if name != "base" or lines:
                    hunk[name] = body[:MAX_SIDE_CHARS]
            hunk.setdefault("ours", "")
            hunk.setdefault("theirs", "")
            if len(hunks) < MAX_HUNKS:
                hunks.append(hunk)
            else:
                cut = True
            part = None
        elif part is not None:
            sides[part].append(line)
    return hunks, cut


def _exists(tree: NodeTree, rev: str, path: str) -> bool:
    return tree.git("cat-file", "-e", f"{rev}:{path}").ok


def _text(tree: NodeTree, path: str) -> str | None:
    """The file as it stands in the worktree ("" when absent); None when it is binary."""
    target = tree.path / path
    data = target.read_bytes() if target.is_file() else b""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if "\0" in text else text


def _file(tree: NodeTree, path: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": path, "ours": _exists(tree, "HEAD", path),
                             "theirs": _exists(tree, "MERGE_HEAD", path)}
    text = _text(tree, path)
    if text is None:
        entry["binary"] = True
        return entry
    hunks, cut = _hunks(text)
    entry["hunks"] = hunks
    if cut:
        entry["truncated"] = True
    return entry


def describe(tree: NodeTree, conflict: Conflicted, files: list[str] | None = None,
             agent: bool = True) -> dict[str, Any]:
    """The ``merge`` approval's request (MergeRequest wire form) for the merge under way;
    ``files``: the ones to ask about (default: those git left unmerged)."""
    names = conflict.files if files is None else files
    listed = [_file(tree, path) for path in names[:MAX_FILES]]
    if len(names) > MAX_FILES:
        listed[-1]["truncated"] = True
    budget = MAX_TOTAL_CHARS
    for entry in listed:
        kept = []
        for hunk in entry.get("hunks") or []:
            size = sum(len(hunk.get(side) or "") for side in ("ours", "theirs", "base"))
            if size > budget:
                entry["truncated"] = True
                continue
            budget -= size
            kept.append(hunk)
        if "hunks" in entry:
            entry["hunks"] = kept
    return {"source": conflict.source.branch, "target": tree.branch,
            "sender": conflict.source.sender, "commit": conflict.commit,
            "worktree": str(tree.path), "files": listed, "agent": agent}


def _inside(tree: NodeTree, path: str) -> Path:
    target = (tree.path / path).resolve()
    if not target.is_relative_to(tree.path.resolve()) or target == tree.path.resolve() \
            or ".git" in Path(path).parts:
        raise GitError(f"{path!r} is not a file of the worktree {tree.path}")
    return target


def apply(tree: NodeTree, choice: dict[str, Any]) -> None:
    """Resolve files as ``choice`` (MergeChoice wire form) says: each side taken whole
    (deleted where that side has no such file), each content written; all staged."""
    for path, side in (choice.get("files") or {}).items():
        _inside(tree, path)
        rev = "HEAD" if side == "ours" else "MERGE_HEAD"
        if _exists(tree, rev, path):
            tree.must("checkout", rev, "--", path)
        else:
            tree.must("rm", "--quiet", "--force", "--ignore-unmatch", "--sparse", "--",
                 path)
    for path, text in (choice.get("contents") or {}).items():
        target = _inside(tree, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")
        tree.must("add", "--sparse", "--", path)


def unresolved(tree: NodeTree, files: list[str]) -> list[str]:
    """Those of ``files`` not resolved yet: a text file with a conflict marker line, a
    binary one still unmerged in the index (nothing else tells)."""
    unmerged = set(conflicts(tree.path))
    left = []
    for path in files:
        text = _text(tree, path)
        if text is None:
            if path in unmerged:
                left.append(path)
        elif has_conflict_markers(text):
            left.append(path)
    return left


def conclude(tree: NodeTree, message: str) -> str:
    """Stage everything and commit the merge (its parents: the node's commit and the one
    merged in); the new commit."""
    tree.must("add", "-A", "--sparse", "--", ":/")
    tree.must("commit", "--quiet", "--no-verify", "--allow-empty", "-m", message)
    end_merge(tree)
    return tree.must("rev-parse", "HEAD")


def resolved_message(conflict: Conflicted, target: str, how: str) -> str:
    """The message of a merge commit a person's decision (``how``) concluded."""
    return (f"Merge {conflict.source.branch} into {target}\n\n{how}\n\n"
            f"From: {conflict.source.sender}\nCommit: {conflict.commit}\n")


__all__ = ["MAX_SIDE_CHARS", "apply", "conclude", "describe", "resolved_message",
           "unresolved"]
