"""Loop safety: notice a node repeating itself (specs/shared-contract.md, "Loop safety").

Three signals are counted per node: the hash of its output, the hash of its
workspace diff and the hash of a failing verification. A count grows while the
value repeats and restarts at 1 when it changes. When a count reaches the
node's threshold the run is paused with ``run.stalled``.

Everything counted comes from ``turn.status completed`` events (they carry
``outputHash``, ``diffHash``, ``verification`` and ``outputHead``), so the
counters are rebuilt exactly by replaying the log on resume. A ``run.stalled``
event resets the stalled node's counters (after the user resumes, the node
gets a full threshold of turns again), and so does a change of the node's
config (``node.patch`` with ``config``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SIGNALS = ("output", "diff", "verification")
HEAD_CHARS = 200
DEFAULT_THRESHOLD = 3


@dataclass
class _Counter:
    value: str | None = None
    count: int = 0
    samples: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Stall:
    """A detected stall: the signal, the node and the evidence for ``run.stalled``."""

    reason: str
    node_id: str
    evidence: dict[str, Any]


def _signal_values(event: dict[str, Any]) -> dict[str, str | None]:
    verification = event.get("verification") or None
    failing = None
    if isinstance(verification, dict) and verification.get("ok") is False:
        failing = verification.get("hash") or str(verification.get("exitCode"))
    return {
        "output": event.get("outputHash"),
        # No diff is not a repeat of anything; only identical changes count.
        "diff": event.get("diffHash") or None,
        "verification": failing,
    }


class StallDetector:
    """Counts repeated output / diff / verification-failure values per node."""

    def __init__(self, threshold_for: Callable[[str], int] | None = None) -> None:
        self._threshold_for = threshold_for or (lambda _node: DEFAULT_THRESHOLD)
        self._counters: dict[str, dict[str, _Counter]] = {}

    def observe_event(self, event: dict[str, Any]) -> Stall | None:
        """Feed one event; returns a stall when a ``turn.status completed`` repeats enough."""
        kind = event.get("type")
        node_id = event.get("nodeId")
        if not node_id:
            return None
        if kind == "run.stalled":
            self.reset(node_id)
            return None
        if kind == "node.patch" and event.get("config"):
            self.reset(node_id)  # new instructions deserve a fresh count
            return None
        if kind == "node.deleted":
            self._counters.pop(node_id, None)
            return None
        if kind != "turn.status" or event.get("status") != "completed":
            return None
        return self._observe_turn(node_id, event)

    def reset(self, node_id: str) -> None:
        """Forget the node's counts (after a stall, or when its instructions change)."""
        self._counters.pop(node_id, None)

    def counts(self, node_id: str) -> dict[str, int]:
        """Current repeat counts of the node, by signal."""
        counters = self._counters.get(node_id, {})
        return {name: counters[name].count if name in counters else 0 for name in SIGNALS}

    def _observe_turn(self, node_id: str, event: dict[str, Any]) -> Stall | None:
        counters = self._counters.setdefault(node_id, {s: _Counter() for s in SIGNALS})
        sample = {
            "agentRunId": event.get("agentRunId"),
            "turnId": event.get("turnId"),
            "outputHead": (event.get("outputHead") or "")[:HEAD_CHARS],
        }
        threshold = max(2, int(self._threshold_for(node_id) or DEFAULT_THRESHOLD))
        fired: Stall | None = None
        for name, value in _signal_values(event).items():
            counter = counters[name]
            if value is None:
                counters[name] = _Counter()
                continue
            if value == counter.value:
                counter.count += 1
                counter.samples.append(sample)
            else:
                counters[name] = counter = _Counter(value=value, count=1, samples=[sample])
            del counter.samples[:-threshold]
            if fired is None and counter.count >= threshold:
                fired = Stall(
                    reason=name,
                    node_id=node_id,
                    evidence={
                        "signal": name,
                        "hash": value,
                        "count": counter.count,
                        "threshold": threshold,
                        "outputHash": event.get("outputHash"),
                        "diffHash": event.get("diffHash"),
                        "verification": event.get("verification"),
                        "agentRunIds": [s["agentRunId"] for s in counter.samples],
                        "outputs": [s["outputHead"] for s in counter.samples],
                    },
                )
        return fired


def silent_evidence(node_id: str, silence_sec: float, idle_for: float,
                    agent_run_id: str | None) -> dict[str, Any]:
    """Evidence for a ``run.stalled`` with reason ``silent``."""
    return {
        "signal": "silent",
        "silenceSec": silence_sec,
        "idleForSec": round(idle_for, 3),
        "agentRunIds": [agent_run_id] if agent_run_id else [],
        "nodeId": node_id,
    }
