"""Why a run stalled, in words: one sentence for the stall banner and the inbox alike."""

from __future__ import annotations

from typing import Any


def stall_detail(stall: dict[str, Any]) -> str:
    """``the same output came back 3 times (threshold 3)``, or ``it was silent for 310 s
    (limit 300 s)``, from a ``run.stalled`` event or the run state's ``stall``."""
    evidence = stall.get("evidence") or {}
    signal = evidence.get("signal") or stall.get("reason") or "?"
    if signal == "silent":
        return (f"it was silent for {evidence.get('idleForSec', '?')} s "
                f"(limit {evidence.get('silenceSec', '?')} s)")
    return (f"the same {signal} came back {evidence.get('count', '?')} times "
            f"(threshold {evidence.get('threshold', '?')})")
