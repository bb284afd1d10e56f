"""How a node's git branch reads in every view: its name, how far it is ahead of the run's
base, and a merge into its worktree.

The engine records each node's branch and count on the node's ``git`` record
(desktop/contract/isolation.py: NodeGit ``branch`` and ``ahead``), and says each merge
in a ``node.progress`` line (desktop/runtime/merge_gate.py); these functions turn them
into the words the canvas, the conversation and the CLI show.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop.wording import plural

_MERGED = re.compile(r"^merged (?P<source>\S+) \(from (?P<sender>.*?)\) into (?P<target>\S+) "
                     r"\((?P<commit>[0-9a-f]+)\)(?:: (?P<how>.*))?$", re.DOTALL)


def ahead_text(count: int) -> str:
    """``1 commit ahead``, ``3 commits ahead``, ``no commits ahead``."""
    return "no commits ahead" if count == 0 else f"{plural(count, 'commit')} ahead"


@dataclass(frozen=True)
class BranchNote:
    """What a node's card says of its branch."""

    branch: str
    ahead: int | None
    """Commits ahead of the run's base; None: not counted (a log from before counts)."""

    @property
    def count_text(self) -> str:
        """``+3``: the short form beside the branch on the card ("" when not counted, and
        when the branch has no commits of its own yet: "+0" read as a change)."""
        return "" if not self.ahead else f"+{self.ahead}"

    def describe(self) -> str:
        """``branch canvas/1a2b3c4d/lead, 3 commits ahead of the run's base``."""
        ahead = "" if self.ahead is None else f", {ahead_text(self.ahead)} of the run's base"
        return f"branch {self.branch}{ahead}"

    def forms(self) -> list[str]:
        """The branch's name, then shorter forms for a card too narrow for it: without
        the ``canvas/`` every run's branches share, then the node's own part alone. A
        name cut in the middle of a word (``…vas/1a2b3c4d/lead``) reads as a typo."""
        found = [self.branch]
        if self.branch.startswith("canvas/"):
            found.append(self.branch.removeprefix("canvas/"))
        last = self.branch.rsplit("/", 1)[-1]
        if last and last != found[-1]:
            found.append(last)
        return found


def branch_note(node: Mapping[str, Any]) -> BranchNote | None:
    """The branch note of a node (its wire-form state), or None when it works in no
    worktree of its own."""
    git = node.get("git")
    if not isinstance(git, Mapping) or not isinstance(git.get("branch"), str):
        return None
    ahead = git.get("ahead")
    return BranchNote(git["branch"], ahead if type(ahead) is int and ahead >= 0 else None)


@dataclass(frozen=True)
class MergeNote:
    """A branch merged into a node's worktree (its ``node.progress`` line, read back)."""

    source: str
    sender: str
    target: str
    commit: str
    how: str = ""
    """How a conflict was resolved (``resolved by a person: a.txt: theirs``); "" when the
    merge was clean."""


def merge_note(message: str) -> MergeNote | None:
    """The merge a ``node.progress`` message reports, or None when it reports none."""
    found = _MERGED.match(message)
    if found is None:
        return None
    return MergeNote(found["source"], found["sender"], found["target"], found["commit"],
                     found["how"] or "")


__all__ = ["BranchNote", "MergeNote", "ahead_text", "branch_note", "merge_note"]
