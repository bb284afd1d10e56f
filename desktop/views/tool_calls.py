"""What the transcript knows besides single events: node labels and each tool call's progress.

A tool call goes ``proposed`` -> (``awaiting approval`` -> ``approved`` | ``denied``) ->
``running`` -> ``completed`` | ``failed``. A denied call stays ``denied`` even when the
agent then reports it as failed. Views read a big log lazily, so events may be learned
out of order or more than once: each is learned once, and a status never goes back.
A call's record keeps its name, its result and how long it ran.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

AWAITING = "awaiting approval"
_RANK = {"proposed": 0, AWAITING: 1, "approved": 2, "denied": 2, "running": 3,
         "completed": 4, "failed": 4}
_LEARNED = frozenset({"run.created", "node.patch", "tool.proposed", "tool.started",
                      "tool.completed", "approval.requested", "approval.resolved"})


def seconds_between(start: str, end: str) -> float | None:
    """Seconds from one ISO timestamp to another (None when either is unreadable)."""
    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return max(0.0, (b - a).total_seconds())


class RunNotes:
    """Node labels and tool-call records learned from events, in seq order."""

    def __init__(self) -> None:
        self.node_labels: dict[str, str] = {}
        self.tools: dict[str, dict[str, Any]] = {}
        self._approval_tool: dict[str, str] = {}  # approvalId -> tool id, while pending
        self._decided: dict[Any, str] = {}  # resolutions read before their request
        self._seen: set[int] = set()  # seqs of the events learned (of the kinds above)

    def learn(self, event: dict) -> None:
        """Take what ``event`` says about labels and tool calls (once per event)."""
        kind = event.get("type")
        if kind not in _LEARNED:
            return
        seq = event.get("seq")
        if seq is not None:
            if seq in self._seen:
                return
            self._seen.add(seq)
        if kind == "run.created":
            for node_id, node in (event.get("nodes") or {}).items():
                self.node_labels[node_id] = node.get("label") or node.get("key") or node_id[:8]
        elif kind == "node.patch":
            label = (event.get("patch") or {}).get("label")
            if label and event.get("nodeId"):
                self.node_labels[event["nodeId"]] = label
        elif kind == "tool.proposed":
            tool = event.get("tool") or {}
            info = self.tools.setdefault(tool.get("id", ""), {})
            _advance(info, "proposed")
            info["name"] = tool.get("name", "?")
        elif kind == "approval.requested":
            tool = event.get("tool") or {}
            tool_id = tool.get("id")
            approval_id = event.get("approvalId")
            if isinstance(tool_id, str) and isinstance(approval_id, str):
                info = self.tools.setdefault(tool_id, {})
                info.setdefault("name", tool.get("name", "?"))
                _advance(info, AWAITING)
                decided = self._decided.pop(approval_id, None)
                if decided is None:
                    self._approval_tool[approval_id] = tool_id
                else:  # the resolution was read first
                    _advance(info, decided)
        elif kind == "approval.resolved":
            status = (event.get("resolution") or {}).get("status")
            decided = "denied" if status == "denied" else "approved"
            tool_id = self._approval_tool.pop(event.get("approvalId"), None)
            if tool_id is None:
                self._decided[event.get("approvalId")] = decided
            elif tool_id in self.tools:
                _advance(self.tools[tool_id], decided)
        elif kind == "tool.started":
            info = self.tools.setdefault(event.get("toolId", ""), {})
            _advance(info, "running")
            info["started"] = event.get("ts")
        elif kind == "tool.completed":
            info = self.tools.setdefault(event.get("toolId", ""), {})
            if info.get("status") != "denied":
                _advance(info, "failed" if event.get("error") else "completed")
            info["result"] = event.get("error") or event.get("result")
            if info.get("started") and event.get("ts"):
                info["latency"] = seconds_between(info["started"], event["ts"])


def _advance(info: dict[str, Any], status: str) -> None:
    """Move a call to ``status`` unless it is already further along."""
    if _RANK[status] >= _RANK.get(info.get("status", "proposed"), 0):
        info["status"] = status
