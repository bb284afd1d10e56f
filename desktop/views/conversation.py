"""A run's transcript as a conversation: what each node was given, what it said and thought,
each tool call with its result, each branch merged into a node's worktree (a merge
that conflicts, its decision, and a node blocked by one), and a turn that wrote a secret
value into a file, as one entry per thing a person would read.

Streaming text grows one entry until the final message replaces it; a tool call is one
entry whose status and result fill in as its events arrive (approval, denial, result). A
call a person modified before approving shows the arguments that ran, who modified it,
and the ones the agent proposed.
Only the newest ``limit`` entries are kept, so a long run costs no more than a short one;
the event list (desktop/views/transcript.py) still holds everything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from desktop.views.approval_text import attempt_line, merge_text, resolution_text
from desktop.views.branches import merge_note
from desktop.views.budget_meter import LIMIT_WORDS, limit_text
from desktop.views.deciders import chosen_text, decider, decision_text
from desktop.views.secret_words import conversation_text, recorded
from desktop.views.tool_calls import RunNotes

MAX_ENTRIES = 400
INCOMING = {"task": "Task", "handoff": "Handoff", "report": "Report"}
SENT = {"handoff": "handed off", "report": "reported"}
"""How the work a node merged came to it: a merge happens at the start of the receiver's
next turn, after the report (or handoff) that brought the sender's branch, so its line
names that report's sender as the report does (``merged the work reported by B``)."""
SYSTEM_TYPES = {"run.completed": "Run completed", "run.failed": "Run failed",
                "run.stopped": "Run stopped", "run.stalled": "Run stalled",
                "run.paused": "Run paused", "run.resumed": "Run resumed"}


@dataclass
class Entry:
    """One thing to read: ``kind`` is incoming, user, assistant, thinking, tool or system."""

    kind: str
    seq: int
    node: str | None
    ts: str = ""
    text: str = ""
    title: str = ""  # incoming: "Handoff from Planner"; tool: its name; system: the line
    tool_id: str = ""
    args: Any = None
    status: str = ""
    result: Any = None
    reason: str = ""
    live: bool = False  # streaming text not final yet
    extra: dict[str, Any] = field(default_factory=dict)
    proposed_args: Any = None  # tool: what the agent asked for, when other args ran
    modified_by: str = ""  # tool: who changed its args before it ran ("a person in the app")


class Conversation:
    """Entries folded from a run's events (in seq order, each event once)."""

    def __init__(self, limit: int = MAX_ENTRIES) -> None:
        self.limit = limit
        self.notes = RunNotes()
        self.entries: list[Entry] = []
        self._tools: dict[str, Entry] = {}
        self._live: dict[tuple[str | None, str], Entry] = {}  # (node, kind) -> streaming
        self._approvals: dict[str, str] = {}  # approval id -> tool id
        self._merges: set[str] = set()  # merge approvals still pending
        self._choices: set[str] = set()  # best-of-N choices still pending
        self._names: dict[str, str] = {}  # a node's key and label -> its id (merge lines)
        self._brought: dict[tuple[Any, str], str] = {}  # (receiver, sender) -> report/handoff
        self._last_seq = 0
        self.version = 0  # grows on every change; views redraw when it moved

    @property
    def labels(self) -> dict[str, str]:
        return self.notes.node_labels

    def label(self, node: str | None) -> str:
        if not node:
            return "run"
        return self.labels.get(node, node[:8])

    def extend(self, events: Iterable[dict]) -> bool:
        """Fold new events; True when an entry changed."""
        before = self.version
        for event in events:
            seq = event.get("seq")
            if isinstance(seq, int):
                if seq <= self._last_seq:
                    continue
                self._last_seq = seq
            self.notes.learn(event)
            self._learn_names(event)
            self._fold(event)
        if len(self.entries) > self.limit:
            del self.entries[: len(self.entries) - self.limit]
            kept = {id(e) for e in self.entries}
            self._tools = {k: e for k, e in self._tools.items() if id(e) in kept}
        return self.version != before

    def visible(self, node: str | None = None, upto: int | None = None) -> list[Entry]:
        """Entries of ``node`` (all when None) made at or before seq ``upto``."""
        return [e for e in self.entries if (node is None or e.node == node or e.node is None)
                and (upto is None or e.seq <= upto)]

    def _learn_names(self, event: dict) -> None:
        """A merge line names its sender by key (or label): which node that is."""
        if event.get("type") == "run.created":
            for node_id, node in (event.get("nodes") or {}).items():
                for name in (node.get("key"), node.get("label")):
                    if name:
                        self._names.setdefault(str(name), node_id)
        elif event.get("type") == "node.patch" and event.get("nodeId"):
            patch = event.get("patch") or {}
            for name in (patch.get("key"), patch.get("label")):
                if name:
                    self._names.setdefault(str(name), event["nodeId"])

    def _sender_label(self, sender: str) -> str:
        """The node a merge names by key, by its label when the run told which it is."""
        sender_id = self._names.get(sender)
        return sender if sender_id is None else self.label(sender_id)

    def _merged_title(self, node: str | None, sender: str) -> str:
        """``Lead merged the work reported by Right``, or ``Lead merged Right's branch``
        when no report or handoff from that sender came in."""
        sender_id = self._names.get(sender)
        how = None if sender_id is None else self._brought.get((node, sender_id))
        if sender_id is None or how is None:
            return f"{self.label(node)} merged {self._sender_label(sender)}'s branch"
        return f"{self.label(node)} merged the work {how} by {self.label(sender_id)}"

    # ---------------------------------------------------------------- folding
    def _add(self, entry: Entry) -> Entry:
        self.entries.append(entry)
        self.version += 1
        return entry

    def _touch(self) -> None:
        self.version += 1

    def _fold(self, event: dict) -> None:
        kind = event.get("type", "")
        seq = event.get("seq") or 0
        node = event.get("nodeId")
        ts = event.get("ts", "")
        if kind == "inbox.queued":
            item = event.get("item") or {}
            what = item.get("kind", "")
            if what not in INCOMING:  # a chat message: message.user shows it
                return
            env = item.get("envelope") or {}
            sender = env.get("fromNodeId")
            title = INCOMING[what] + (f" from {self.label(sender)}" if sender else "")
            if sender and what in SENT:
                self._brought[(node, str(sender))] = SENT[what]
            self._add(Entry("incoming", seq, node, ts, str(item.get("text", "")), title))
        elif kind == "message.user":
            self._add(Entry("user", seq, node, ts, str(event.get("text", "")), "You"))
        elif kind in ("message.assistant.delta", "message.assistant.thinking.delta"):
            which = "thinking" if "thinking" in kind else "assistant"
            live = self._live.get((node, which))
            if live is None:
                live = self._live[(node, which)] = self._add(
                    Entry(which, seq, node, ts, "", live=True))
            live.text += str(event.get("text", ""))
            self._touch()
        elif kind in ("message.assistant.final", "message.assistant.thinking.final"):
            which = "thinking" if "thinking" in kind else "assistant"
            live = self._live.pop((node, which), None)
            if live is not None:
                live.text, live.live, live.ts = str(event.get("text", "")), False, ts
                self._touch()
            else:
                self._add(Entry(which, seq, node, ts, str(event.get("text", ""))))
        elif kind == "tool.proposed":
            tool = event.get("tool") or {}
            entry = self._add(Entry("tool", seq, node, ts, title=str(tool.get("name", "?")),
                                    tool_id=str(tool.get("id", "")), args=tool.get("args")))
            self._tools[entry.tool_id] = entry
            self._refresh_tool(entry)
        elif kind == "approval.requested" and event.get("kind") == "merge":
            self._merges.add(str(event.get("approvalId", "")))
            merge = event.get("merge") or {}
            sender = (f"{self._sender_label(str(merge['sender']))}'s branch"
                      if merge.get("sender") else "a branch")
            self._add(Entry("system", seq, node, ts, merge_text(merge),
                            f"{self.label(node)} waits: merging {sender} conflicts"))
        elif kind == "approval.resolved" and event.get("approvalId") in self._merges:
            self._merges.discard(event.get("approvalId"))
            self._add(Entry("system", seq, node, ts, resolution_text(
                event.get("resolution") or {}), "Merge decided"))
        elif kind == "approval.requested" and event.get("kind") == "choice":
            self._choices.add(str(event.get("approvalId", "")))
            attempts = (event.get("choice") or {}).get("attempts") or []
            self._add(Entry("system", seq, node, ts,
                            "\n".join(f"attempt {attempt_line(a)}" for a in attempts),
                            f"{self.label(node)} waits: choose one of {len(attempts)} attempts"))
        elif kind == "approval.resolved" and event.get("approvalId") in self._choices:
            self._choices.discard(event.get("approvalId"))
            resolution = event.get("resolution") or {}
            if resolution.get("status") == "denied":  # a choice made is told by choice.made
                self._add(Entry("system", seq, node, ts,
                                f"{decision_text(resolution)}: the turn fails",
                                "No attempt chosen"))
        elif kind == "choice.made":
            index = event.get("attemptIndex")
            commit = f" at {str(event['commit'])[:8]}" if event.get("commit") else ""
            self._add(Entry("system", seq, node, ts,
                            f"attempt {index} goes on{commit}; the others keep their branches",
                            f"{self.label(node)}: {chosen_text(index, event.get('by'))}"))
        elif kind == "approval.requested":
            tool = event.get("tool") or {}
            tool_id = str(tool.get("id", ""))
            self._approvals[str(event.get("approvalId", ""))] = tool_id
            entry = self._tools.get(tool_id)
            if entry is None:  # a call the agent did not announce (an ACP permission)
                entry = self._add(Entry("tool", seq, node, ts, title=str(tool.get("name", "?")),
                                        tool_id=tool_id, args=tool.get("args")))
                self._tools[tool_id] = entry
            self._refresh_tool(entry)
        elif kind == "approval.resolved":
            tool_id = self._approvals.pop(str(event.get("approvalId", "")), "")
            entry = self._tools.get(tool_id)
            if entry is not None:
                entry.reason = str((event.get("resolution") or {}).get("reason") or "")
                self._refresh_tool(entry)
        elif kind in ("tool.started", "tool.completed"):
            entry = self._tools.get(str(event.get("toolId", "")))
            if entry is not None:
                self._refresh_tool(entry)
        elif kind in SYSTEM_TYPES:
            reason = str(event.get("reason") or event.get("error") or "")
            if kind == "run.stalled" and reason:
                reason = f"repeated {reason}"
            self._add(Entry("system", seq, None, ts, str(reason), SYSTEM_TYPES[kind]))
        elif kind == "run.budget_exceeded":
            self._add(Entry("system", seq, node, ts, _over_budget(event),
                            "Run paused over budget"))
        elif kind == "node.progress":
            merged = merge_note(str(event.get("message") or ""))
            if merged is not None:
                how = f"; {merged.how}" if merged.how else ""
                self._add(Entry("system", seq, node, ts,
                                f"{merged.source} into {merged.target} at {merged.commit}{how}",
                                self._merged_title(node, merged.sender)))
        elif kind == "node.patch" and (event.get("patch") or {}).get("status") == "blocked":
            why = str((event.get("patch") or {}).get("summary") or "")
            self._add(Entry("system", seq, node, ts, why, f"{self.label(node)} is blocked"))
        elif kind == "artifact.created" and recorded(event.get("artifact") or {}):
            artifact = event.get("artifact") or {}
            self._add(Entry("system", seq, node, ts, conversation_text(
                recorded(artifact), artifact.get("commit"), artifact.get("branch")),
                f"{self.label(node)} wrote a secret into a file"))
        elif kind == "turn.status" and event.get("status") == "failed":
            self._add(Entry("system", seq, node, ts, str(event.get("reason") or ""),
                            f"{self.label(node)}'s turn failed"))

    def _refresh_tool(self, entry: Entry) -> None:
        info = self.notes.tools.get(entry.tool_id, {})
        entry.status = str(info.get("status", "proposed"))
        ran = info.get("args")
        if ran is not None and ran != entry.args:
            if entry.proposed_args is None:
                entry.proposed_args = entry.args
            entry.args = ran
        if info.get("modified"):
            entry.modified_by = decider(info.get("by"))
        if "result" in info:
            entry.result = info["result"]
        if isinstance(info.get("latency"), float):
            entry.extra["latency"] = info["latency"]
        self._touch()


def _over_budget(event: dict) -> str:
    """``its tokens budget: 700 tokens of 500 tokens; the turn that spent it stopped``."""
    limit = str(event.get("limit") or "")
    figures = [event.get(k) for k in ("used", "budget")]
    if limit not in LIMIT_WORDS or any(type(f) not in (int, float) for f in figures):
        return "a budget limit was reached"
    used, budget = (float(f) for f in figures)  # type: ignore[arg-type]
    return (f"its {LIMIT_WORDS[limit]} budget: {limit_text(limit, used)} of "
            f"{limit_text(limit, budget)}; the turn that spent it was stopped")
