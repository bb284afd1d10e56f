"""What the transcript knows besides single events: node labels and each tool call's progress.

A tool call goes ``proposed`` -> (``awaiting approval`` -> ``approved`` | ``denied``) ->
``running`` -> ``completed`` | ``failed``. A denied call is ``denied``, with the reason the
person or the policy gave, even though the agent then reports it as failed. A request its
engine denied when it let go of the run (stopped, or left paused) is ``withdrawn``: nobody
said no, and the turn asks again when the run resumes.

Views read a big log lazily, so events may be learned out of order, more than once, or
some not at all (a filter hides them). A call's record therefore keeps the facts learned
(proposed, asked, decided, started, finished) and its status is derived from all of them,
so it is the same whatever order they came in. The record also keeps the call's name,
result and how long it ran, and, when a person modified the call before approving it
(``modified``, ``by``), the arguments that ran (``args``): the proposal's are then not
what happened.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

AWAITING = "awaiting approval"
WITHDRAWN = "withdrawn"
FINAL = frozenset({"completed", "failed", "denied", WITHDRAWN})
ENGINE = "engine"
"""Who denied a request its engine withdrew (desktop/runtime/approvals.py abort_all)."""
_LEARNED = frozenset({"run.created", "node.patch", "tool.proposed", "tool.started",
                      "tool.completed", "approval.requested", "approval.resolved"})
TOOL_EVENTS = frozenset({"tool.proposed", "tool.started", "tool.completed",
                         "approval.requested", "approval.resolved"})


def seconds_between(start: str, end: str) -> float | None:
    """Seconds from one ISO timestamp to another (None when either is unreadable)."""
    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return max(0.0, (b - a).total_seconds())


def call_status(info: dict[str, Any]) -> str:
    """A call's status from the facts known about it (in any order)."""
    if info.get("decision") == "denied":
        return WITHDRAWN if info.get("by") == ENGINE else "denied"
    if "error" in info:
        return "failed"
    if info.get("finished"):
        return "completed"
    if info.get("started"):
        return "running"
    if info.get("decision"):
        return "approved"
    if info.get("asked"):
        return AWAITING
    return "proposed"


def _shown(info: dict[str, Any]) -> tuple:
    """What a row of the call shows: a change to any of it redraws the row."""
    return info.get("status"), info.get("modified"), info.get("args")


class RunNotes:
    """Node labels, tool-call records and merge requests learned from events (in any
    order)."""

    def __init__(self) -> None:
        self.node_labels: dict[str, str] = {}
        self.tools: dict[str, dict[str, Any]] = {}
        self._approval_tool: dict[str, str] = {}  # approvalId -> tool id
        self._decided: dict[Any, dict[str, Any]] = {}  # resolutions read before requests
        self._seen: set[int] = set()  # seqs of the events learned (of the kinds above)
        self.merges: set[str] = set()  # the ids of requests to decide a merge

    def learn(self, event: dict) -> str | None:
        """Take what ``event`` says about labels and tool calls (once per event); returns
        the id of the tool call whose status this changed, if any."""
        kind = event.get("type")
        if kind not in _LEARNED:
            return None
        seq = event.get("seq")
        if seq is not None:
            if seq in self._seen:
                return None
            self._seen.add(seq)
        if kind == "approval.requested" and event.get("kind") == "merge" and \
                isinstance(event.get("approvalId"), str):
            self.merges.add(event["approvalId"])
        if kind == "run.created":
            for node_id, node in (event.get("nodes") or {}).items():
                self.node_labels[node_id] = node.get("label") or node.get("key") or node_id[:8]
            return None
        if kind == "node.patch":
            label = (event.get("patch") or {}).get("label")
            if label and event.get("nodeId"):
                self.node_labels[event["nodeId"]] = label
            return None
        tool_id, facts = self._facts(kind, event)
        if not tool_id:
            return None
        info = self.tools.setdefault(tool_id, {})
        before = _shown(info)
        for key, value in facts.items():
            if key == "name":
                info.setdefault("name", value)
            else:
                info[key] = value
        # what ran beats what was decided (a provider may report the args it used)
        ran = info.get("ranArgs", info.get("modifiedArgs"))
        if ran is not None:
            info["args"] = ran
        if info.get("started") and info.get("ended") and "latency" not in info:
            info["latency"] = seconds_between(info["started"], info["ended"])
        info["status"] = call_status(info)
        return tool_id if _shown(info) != before else None

    def _facts(self, kind: str, event: dict) -> tuple[str | None, dict[str, Any]]:
        """The tool call an event is about, and what it says of it."""
        if kind == "tool.proposed":
            tool = event.get("tool") or {}
            return tool.get("id"), {"name": tool.get("name", "?"), "proposed": True}
        if kind == "approval.requested":
            tool = event.get("tool") or {}
            tool_id, approval_id = tool.get("id"), event.get("approvalId")
            if not isinstance(tool_id, str):
                return None, {}
            facts: dict[str, Any] = {"name": tool.get("name", "?"), "asked": True}
            if isinstance(approval_id, str):
                self._approval_tool[approval_id] = tool_id
                facts.update(self._decided.pop(approval_id, {}))  # resolution read first
            return tool_id, facts
        if kind == "approval.resolved":
            resolution = event.get("resolution") or {}
            decided = {"decision": "denied" if resolution.get("status") == "denied"
                       else "approved", "asked": True}
            if resolution.get("reason"):
                decided["reason"] = str(resolution["reason"])
            if resolution.get("by"):
                decided["by"] = str(resolution["by"])
            if resolution.get("status") == "modified":
                decided["modified"] = True
                if isinstance(resolution.get("modifiedArgs"), dict):
                    decided["modifiedArgs"] = resolution["modifiedArgs"]
            tool_id = self._approval_tool.get(event.get("approvalId"))
            if tool_id is None:
                self._decided[event.get("approvalId")] = decided
            return tool_id, decided
        if kind == "tool.started":
            facts = {"started": event.get("ts") or True}
            if isinstance(event.get("args"), dict):
                facts["ranArgs"] = event["args"]
            return event.get("toolId"), facts
        # tool.completed
        facts = {"finished": True, "result": event.get("error") or event.get("result"),
                 "ended": event.get("ts")}
        if event.get("error"):
            facts["error"] = event.get("error")
        return event.get("toolId"), facts


def status_text(info: dict[str, Any]) -> str:
    """The status as a row shows it: ``denied: the reason`` for a denied call."""
    status = info.get("status", "proposed")
    if status in ("denied", WITHDRAWN) and info.get("reason"):
        return f"{status}: {info['reason']}"
    return status
