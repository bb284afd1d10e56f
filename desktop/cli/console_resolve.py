"""What an ``approve``/``deny``/``modify``, ``merge`` or ``choose`` line means now, and what
the console says once it is done: one answer for both consoles, the in-process one
(desktop/cli/run_console.py) and the one of a run in the service
(desktop/cli/remote_console.py), so a line gets the same resolution and the same words
wherever the run lives.

An approval is named by a unique id prefix, or left out for the oldest pending one.
:class:`NotFound` says that nothing pending matches (yet: a console waits and tries
again while the run is busy), :class:`Invalid` that the line is wrong whatever comes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from desktop.cli.choose_words import ChooseWords, pick
from desktop.cli.merge_words import CLAUSES, merge_choice, split_approval
from desktop.runtime.control import Invalid, NotFound, Resolve
from desktop.views.node_ref import console_approval

NO_MERGE = "no merge approval is pending"


@dataclass(frozen=True)
class Asked:
    """A pending approval as a console line can name it."""

    approval_id: str
    merge: dict[str, Any] | None = None
    """The MergeRequest (wire form) of a merge that conflicts."""
    choice: bool = False
    """A best-of-N turn's choice of attempt."""


def asked_of(pending: Iterable[Any]) -> list[Asked]:
    """The pending approvals, oldest first, from the engine's broker (PendingRequest) or a
    run state (PendingApproval): each has ``approval_id``, ``merge`` and ``choice``."""
    out = []
    for p in pending:
        merge = p.merge
        if merge is not None and not isinstance(merge, dict):
            merge = merge.to_json_dict()
        out.append(Asked(p.approval_id, merge, p.choice is not None))
    return out


def resolve(line: Any, pending: list[Asked], no_merge: Callable[[], str] | None = None
            ) -> Resolve:
    """The Resolve a Decide, MergeWords or ChooseWords line means with ``pending``.
    ``no_merge``: what to say when a ``merge`` finds no merge approval (default
    :data:`NO_MERGE`)."""
    from desktop.cli.run_console import Decide, MergeWords

    if isinstance(line, Decide):
        return _decision(line, pending)
    if isinstance(line, MergeWords):
        return _merge(line, pending, no_merge or (lambda: NO_MERGE))
    if isinstance(line, ChooseWords):
        return _choose(line, pending)
    raise TypeError(f"not a decision: {line!r}")


def _decision(decide: Any, pending: list[Asked]) -> Resolve:
    words = list(decide.words)
    approval: str | None = None
    if words:
        try:
            approval = console_approval([p.approval_id for p in pending], words[0])
        except ValueError as exc:  # an ambiguous prefix: waiting would not settle it
            raise Invalid(str(exc), "approvalId") from None
        if approval is not None:
            words = words[1:]
        elif not decide.words_are_reason:
            raise NotFound(f"no pending approval matches {words[0]!r}")
    if approval is None:
        if not pending:
            raise NotFound("no approval is pending")
        approval = pending[0].approval_id
    asked = next(p for p in pending if p.approval_id == approval)
    return decide.command(approval, words, asked.merge is not None)


def _merge(parsed: Any, pending: list[Asked], no_merge: Callable[[], str]) -> Resolve:
    merges = {p.approval_id: p.merge or {} for p in pending if p.merge is not None}
    try:
        approval, words = split_approval(list(parsed.words), list(merges))
    except ValueError as exc:
        raise Invalid(str(exc), "approvalId") from None
    if approval is None and words[0].lower() not in CLAUSES:
        raise NotFound(f"no pending merge approval matches {words[0]!r}")
    if approval is None:
        if not merges:
            raise NotFound(no_merge())
        approval = next(iter(merges))
    try:
        choice = merge_choice(words, merges[approval])
    except ValueError as exc:
        raise Invalid(str(exc)) from None
    return Resolve(approval, "approved", merge=choice)


def _choose(parsed: ChooseWords, pending: list[Asked]) -> Resolve:
    try:
        approval, index = pick(parsed, [p.approval_id for p in pending if p.choice])
    except LookupError as exc:
        raise NotFound(str(exc)) from None
    if approval is None:
        raise NotFound("no choice approval is pending")
    return Resolve(approval, "approved", choice=index)


def said(command: Resolve) -> str:
    """What the console says once ``command`` is carried out."""
    word = "merged" if command.merge is not None else command.status
    if command.choice is not None:
        word = f"chose attempt {command.choice}"
    return f"{word}: {command.approval[:8]}"


__all__ = ["NO_MERGE", "Asked", "asked_of", "resolve", "said"]
