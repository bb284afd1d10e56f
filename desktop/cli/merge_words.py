"""``merge [ID] CLAUSE...``: a merge approval resolved from the terminal.

A clause takes a side for files, edits them, or hands them to the agent::

    merge ours                       every conflicting file as the node's branch has it
    merge theirs a.txt               a.txt as the sender's branch has it
    merge ours a.txt theirs b.txt    one side per file
    merge edit a.txt                 a.txt as it now stands in the worktree (edited by hand)
    merge edit a.txt=fixed.txt       a.txt with the contents of fixed.txt
    merge agent                      the node's agent resolves them in its turn
    merge theirs a.txt agent         a.txt taken, the rest to the agent

``ours`` or ``theirs`` with no file takes that side for every file no other clause
names. Files are named by their path or a unique ending of it. The words become a
MergeChoice (desktop/contract/merge.py) for the engine or the API to check and apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desktop.contract.merge import has_conflict_markers
from desktop.views.node_ref import console_approval

USAGE = ("usage: merge [ID] ours|theirs [FILE...] | edit FILE[=FROM]... | agent "
         "(clauses combine: merge ours a.txt theirs b.txt)")
CLAUSES = ("ours", "theirs", "edit", "agent")


def _file(ref: str, files: list[str]) -> str:
    if ref in files:
        return ref
    hits = [path for path in files if path.endswith("/" + ref)]
    if len(hits) == 1:
        return hits[0]
    listing = ", ".join(files)
    what = "matches more than one" if hits else "is not one"
    raise ValueError(f"{ref!r} {what} of the conflicting files ({listing})")


def _contents(path: str, source: str, worktree: Path) -> str:
    origin = Path(source).expanduser() if source else worktree / path
    try:
        text = origin.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {origin}: {exc}") from None
    if has_conflict_markers(text):
        raise ValueError(f"{origin} still has conflict markers; edit them out first")
    return text


def merge_choice(words: list[str], request: Mapping[str, Any]) -> dict[str, Any]:
    """The MergeChoice (wire form) ``words`` mean for the merge ``request``; ValueError
    says what is wrong."""
    files = [str(entry.get("path")) for entry in request.get("files") or []]
    worktree = Path(str(request.get("worktree") or "."))
    sides: dict[str, str] = {}
    contents: dict[str, str] = {}
    agent, rest = False, None
    clause, named = None, False
    for word in [*words, ""]:
        if word.lower() in CLAUSES or not word:
            if clause in ("ours", "theirs") and not named:
                rest = clause
            if not word:
                break
            clause, named = word.lower(), False
            agent = agent or clause == "agent"
            continue
        if clause is None or clause == "agent":
            raise ValueError(USAGE)
        named = True
        if clause == "edit":
            ref, _, source = word.partition("=")
            path = _file(ref, files)
            contents[path] = _contents(path, source, worktree)
        else:
            sides[_file(word, files)] = clause
    if clause is None:
        raise ValueError(USAGE)
    if rest is not None:
        sides.update({path: rest for path in files if path not in sides
                      and path not in contents})
    return {"files": sides, "contents": contents, "agent": agent}


def split_approval(words: list[str], pending: list[str]) -> tuple[str | None, list[str]]:
    """(the pending approval a leading id prefix names, the words left); (None, words)
    when the first word is a clause or names none. ValueError when it could name several."""
    if words and words[0].lower() not in CLAUSES:
        approval = console_approval(pending, words[0])
        if approval is not None:
            return approval, words[1:]
    return None, words
