"""Turning the reducer's wire-form dict into a RunState, repairing what does not validate.

The reducer validates everything it takes from event payloads, so a repair is rare: an
event with a malformed timestamp, say. Rather than fail to open a run, the offending
entry is dropped (or the field reset) and validation is tried again.
"""

from typing import Any

from pydantic import ValidationError

from desktop.contract.state import RunState

_COLLECTIONS = {"nodes", "nodeConfigs", "edges", "artifacts", "inboxes", "pendingApprovals",
                "turns", "runningTurns", "lastAgentRun", "usage", "nodeUsage",
                "runnerHashes"}
_MAX_ROUNDS = 64


def _repair(s: dict[str, Any], exc: ValidationError) -> bool:
    """Drop or reset what ``exc`` complains about; False when nothing could be done."""
    changed = False
    for err in exc.errors():
        loc = err.get("loc") or ()
        if not loc:
            continue
        top = loc[0]
        if top in _COLLECTIONS and len(loc) >= 2 and isinstance(s.get(top), dict):
            entry = s[top].get(loc[1])
            if top == "inboxes" and len(loc) >= 3 and isinstance(entry, list):
                if isinstance(loc[2], int) and loc[2] < len(entry):
                    entry.pop(loc[2])
                    changed = True
                    break  # indexes of later errors moved
                continue
            if loc[1] in s[top]:
                del s[top][loc[1]]
                changed = True
        elif top in ("createdAt", "updatedAt"):
            fallback = s.get("createdAt") if top == "updatedAt" else s.get("updatedAt")
            s[top] = fallback if fallback != s.get(top) else "1970-01-01T00:00:00Z"
            changed = True
        elif top != "id" and top in s:
            del s[top]
            changed = True
    return changed


def validate_state(s: dict[str, Any]) -> RunState:
    """``s`` as a RunState; invalid parts are dropped rather than raised."""
    for _ in range(_MAX_ROUNDS):
        try:
            return RunState.model_validate(s)
        except ValidationError as exc:
            if not _repair(s, exc):
                raise
    return RunState.model_validate(s)
