"""A merge that conflicts, put to a person: the ``merge`` approval and how it is resolved.

Before a node's turn its worktree merges the commits its senders sent
(desktop/runtime/worktree_merge.py). When one conflicts, the node waits on an approval
of kind ``merge`` (:class:`MergeRequest`: the branches, the conflicting files and their
hunks), with the conflicted worktree kept as it is. A person resolves it
(:class:`MergeChoice`, ``resolution.merge``) in one or more of three ways:

- ``files``: one side per file, ``ours`` (the node's branch) or ``theirs`` (the
  sender's), taken whole;
- ``contents``: the file's resolved text, as edited in the app;
- ``agent``: the files left conflicted go to the node's agent, which takes its turn in
  the conflicted worktree with the conflict in its prompt.

Every conflicting file needs a side or a content unless ``agent`` is set. Denying the
approval undoes the merge; the node then waits, the run paused, for a person to merge
by hand.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from desktop.contract.base import ContractModel

Side = Literal["ours", "theirs"]

_MARKER = re.compile(r"^(<{7}|\|{7}|={7}|>{7})(?:[ \t]|$)", re.M)


def has_conflict_markers(text: str) -> bool:
    """Whether ``text`` still holds a conflict marker line: seven ``<``, ``|``, ``=`` or
    ``>`` and then a space or the line's end, the rule of ``git diff --check`` (so an
    edit that left the base's ``|||||||`` or the ``=======`` between the sides is not
    taken as resolved)."""
    return _MARKER.search(text) is not None


class ConflictHunk(ContractModel):
    """One conflicted region of a file: both sides (and their common base)."""

    line: int = Field(ge=1, description="The line of its <<<<<<< marker in the conflicted "
                                        "file (1-based).")
    ours: str = Field(description="The node's branch's lines.")
    theirs: str = Field(description="The sender's lines.")
    base: str | None = Field(None, description="The lines both started from, when known.")


class ConflictFile(ContractModel):
    """A file the merge could not settle."""

    path: str = Field(description="Relative to the worktree's top, with / separators.")
    hunks: list[ConflictHunk] = Field(default_factory=list)
    ours: bool = Field(True, description="False: the node's branch deleted the file.")
    theirs: bool = Field(True, description="False: the sender's branch deleted the file.")
    binary: bool = Field(False, description="No text hunks: take a side.")
    truncated: bool = Field(False, description="Hunks were left out or shortened (the "
                                               "worktree has the whole file).")


class MergeRequest(ContractModel):
    """What a ``merge`` approval asks about."""

    source: str = Field(description="The branch merged in (theirs), e.g. canvas/1a2b3c4d/impl.")
    target: str = Field(description="The node's branch (ours).")
    sender: str = Field("", description="The sending node's key or label.")
    commit: str = Field(description="The commit merged: the one the sender sent.")
    worktree: str = Field(description="The conflicted worktree (absolute): the files with "
                                      "their conflict markers are there.")
    files: list[ConflictFile] = Field(default_factory=list)
    agent: bool = Field(True, description="Whether the conflict can be handed to the node's "
                                          "agent (one merge per turn can).")


class MergeChoice(ContractModel):
    """How a person resolved a ``merge`` approval (``resolution.merge``)."""

    files: dict[str, Side] = Field(default_factory=dict,
                                   description="path -> the side taken whole.")
    contents: dict[str, str] = Field(default_factory=dict,
                                     description="path -> the resolved text, as edited.")
    agent: bool = Field(False, description="Hand the files not resolved here to the node's "
                                           "agent: its turn runs in the conflicted worktree.")
