"""One line for a pending approval: a gated tool call, a merge that conflicts (its
branches and files), or the choice among a best-of-N turn's attempts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desktop.views.activity import tool_text
from desktop.views.deciders import A_PERSON, decider, decision_text


def file_note(entry: Mapping[str, Any]) -> str:
    """``a.txt (2 conflicts)``, ``logo.png (binary)``, ``b.txt (deleted on theirs)``."""
    hunks = entry.get("hunks") or []
    if entry.get("binary"):
        note = "binary"
    else:
        note = f"{len(hunks)} conflict{'s' if len(hunks) != 1 else ''}"
    if entry.get("ours") is False:
        note += ", deleted on ours"
    if entry.get("theirs") is False:
        note += ", deleted on theirs"
    return f"{entry.get('path')} ({note})"


def merge_text(merge: Mapping[str, Any]) -> str:
    """``merge canvas/1a2b/right into canvas/1a2b/lead: conflicts in a.txt (1 conflict)``."""
    files = ", ".join(file_note(entry) for entry in merge.get("files") or []) or "?"
    return f"merge {merge.get('source')} into {merge.get('target')}: conflicts in {files}"


def attempt_line(attempt: Mapping[str, Any]) -> str:
    """``2: 1 file changed, 3 insertions(+); "wrote two.txt"`` or ``1: failed (why)``."""
    if not attempt.get("ok", True):
        return f"{attempt.get('index')}: failed ({attempt.get('error') or '?'})"
    stat = (attempt.get("diffstat") or "").strip().splitlines()
    change = stat[-1].strip() if stat else "no change"
    said = (attempt.get("output") or "").strip().split("\n", 1)[0][:80]
    return f"{attempt.get('index')}: {change}" + (f'; "{said}"' if said else "")


def choice_text(choice: Mapping[str, Any]) -> str:
    """``choose the attempt that goes on: 1: ...; 2: ...``."""
    attempts = "; ".join(attempt_line(a) for a in choice.get("attempts") or []) or "?"
    return f"choose the attempt that goes on: {attempts}"


def approval_text(approval: Mapping[str, Any]) -> str:
    """What a pending approval (or an ``approval.requested`` event) asks about."""
    if approval.get("kind") == "merge":
        return merge_text(approval.get("merge") or {})
    if approval.get("kind") == "choice":
        return choice_text(approval.get("choice") or {})
    return tool_text(approval.get("tool") or {})


BY_PERSON = f"resolved by {A_PERSON}"
"""Who settled a merge's conflicts when the record does not say where: the engine's own
merge line (desktop/runtime/merge_gate.py). A decision's ``by`` is worded in one place,
desktop/views/deciders.py, for the Conversation and the CLI alike."""


def resolution_text(resolution: Mapping[str, Any]) -> str:
    """How a merge approval was decided: ``resolved by a person in the app: a.txt:
    theirs; b.txt: edited; the rest to the agent``, or ``refused by a person in the
    terminal (why): the merge was undone`` (``withdrawn``, not refused, when the engine
    let the request go)."""
    if resolution.get("status") == "denied":
        return f"{decision_text(resolution)}: the merge was undone"
    done = f"resolved by {decider(resolution.get('by'))}"
    choice = resolution.get("merge") or {}
    parts = [f"{path}: {side}" for path, side in (choice.get("files") or {}).items()]
    parts += [f"{path}: edited" for path in choice.get("contents") or {}]
    if choice.get("agent"):
        parts.append("the rest to the agent" if parts else "to the agent")
    return f"{done}: " + "; ".join(parts) if parts else done
