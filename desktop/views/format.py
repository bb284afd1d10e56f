"""How one event reads in the transcript: a category, a one-line preview, a full text.

Categories group event types for the filter menu and pick the row's colour.
"""

from __future__ import annotations

import json
from typing import Any

from desktop.views.approval_text import (
    attempt_line,
    choice_text,
    file_note,
    merge_text,
    resolution_text,
)
from desktop.views.branches import ahead_text
from desktop.views.deciders import chosen_text, decider, decision_text
from desktop.views.tool_calls import status_text

PREVIEW_CHARS = 300

CATEGORIES: dict[str, tuple[str, ...]] = {
    "user": ("message.user",),
    "assistant": ("message.assistant.final", "message.assistant.delta"),
    "thinking": ("message.assistant.thinking.final", "message.assistant.thinking.delta"),
    "tools": ("tool.proposed", "tool.started", "tool.completed"),
    "approvals": ("approval.requested", "approval.resolved"),
    "bus": ("bus.message", "handoff.sent", "inbox.queued"),
    "errors": ("run.failed", "log.recovered"),
}
DELTA_TYPES = ("message.assistant.delta", "message.assistant.thinking.delta")
HIDDEN_BY_DEFAULT = (*DELTA_TYPES, "node.heartbeat", "tool.started")


def category(event_type: str) -> str:
    """The filter category of an event type ("lifecycle" for the rest)."""
    for name, types in CATEGORIES.items():
        if event_type in types:
            return name
    return "lifecycle"


def _short(value: Any, limit: int = PREVIEW_CHARS) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text[: limit * 2].split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _args(args: Any) -> str:
    return json.dumps(args or {}, ensure_ascii=False, sort_keys=True)


def _modified(info: dict) -> str:
    """`` (modified by a person in the app)`` for a call whose args a person changed."""
    return f" (modified by {decider(info.get('by'))})" if info.get("modified") else ""


def preview(event: dict, tools: dict[str, dict] | None = None,
            merges: set[str] | frozenset[str] = frozenset()) -> str:
    """One line for the list row; an attempt's events (best-of-N) say which attempt.
    ``merges``: the ids of requests to decide a merge (:class:`RunNotes` learns them), so a
    refused one says the merge was undone."""
    line = _line(event, tools, merges)
    index = event.get("attemptIndex")
    if type(index) is int and event.get("type") != "choice.made":
        return f"[attempt {index}] {line}"
    return line


def _line(event: dict, tools: dict[str, dict] | None, merges: set[str] | frozenset[str]
          ) -> str:
    kind = event.get("type", "")
    if kind in ("message.user", "message.assistant.final", "message.assistant.delta"):
        return _short(event.get("text", ""))
    if kind.startswith("message.assistant.thinking"):
        return "▸ thinking · " + _short(event.get("text", ""), 120)
    if kind == "tool.proposed":
        tool = event.get("tool") or {}
        info = (tools or {}).get(tool.get("id", ""), {})
        status = _short(status_text(info), 160)
        latency = info.get("latency")
        tail = f" · {latency:.2f}s" if isinstance(latency, float) else ""
        # the args that ran: a person may have changed the proposal's before approving
        args = _short(_args(info.get("args", tool.get("args"))), 160)
        return f"{tool.get('name', '?')} {args}{_modified(info)} · {status}{tail}"
    if kind == "tool.started":
        return f"started {event.get('toolId', '')[:8]}"
    if kind == "tool.completed":
        info = (tools or {}).get(event.get("toolId", ""), {})
        name = info.get("name", event.get("toolId", "")[:8])
        if info.get("status") in ("denied", "withdrawn"):  # not a failure: nobody ran it
            error = event.get("error")
            why = info.get("reason") or (error.get("message") if isinstance(error, dict)
                                         else None)
            return f"⊘ {name} {info['status']}" + (f": {_short(why, 200)}" if why else "")
        latency = info.get("latency")
        mark = "✗" if event.get("error") else "✓"
        took = f" in {latency:.2f}s" if isinstance(latency, float) else ""
        body = event.get("error") or event.get("result") or {}
        return f"{mark} {name}{took}: {_short(body, 200)}"
    if kind == "approval.requested" and event.get("kind") == "merge":
        return f"decision needed: {_short(merge_text(event.get('merge') or {}), 240)}"
    if kind == "approval.requested" and event.get("kind") == "choice":
        return f"decision needed: {_short(choice_text(event.get('choice') or {}), 240)}"
    if kind == "attempt.started":
        model = f" ({event['model']})" if event.get("model") else ""
        return f"started on {event.get('branch') or '?'}{model}"
    if kind == "attempt.completed":
        return attempt_line(event.get("summary") or {})
    if kind == "choice.made":
        return f"{chosen_text(event.get('attemptIndex'), event.get('by'))}: it goes on"
    if kind == "approval.requested":
        tool = event.get("tool") or {}
        return f"approval needed: {tool.get('name', '?')} {_short(_args(tool.get('args')), 160)}"
    if kind == "approval.resolved":
        res = event.get("resolution") or {}
        if res.get("merge") is not None or event.get("approvalId") in merges:
            # a merge's decision (a refused one has no choice of sides): the Conversation's
            return resolution_text(res)
        return decision_text(res)
    if kind == "bus.message":
        return f"[{event.get('busType', '')}] {_short(event.get('message', ''))}"
    if kind == "handoff.sent":
        env = event.get("envelope") or {}
        return f"handoff → {_short((env.get('payload') or {}).get('message', ''))}"
    if kind == "inbox.queued":
        item = event.get("item") or {}
        return f"queued {item.get('kind', '')}: {_short(item.get('text', ''))}"
    if kind == "turn.status":
        extra = event.get("reason") or ""
        return f"turn {event.get('status', '')}" + (f" · {_short(extra, 200)}" if extra else "")
    if kind == "node.progress":
        return _short(event.get("message", ""))
    if kind == "node.log":
        return f"{event.get('stream', '')}: {_short(event.get('text', ''))}"
    if kind == "run.stalled":
        return f"stalled: repeated {event.get('reason', '')}"
    if kind == "telemetry.usage":
        cost = event.get("costUsd")
        money = f" · ${cost:.4f}" if isinstance(cost, int | float) else ""
        return f"{event.get('inputTokens', 0)} in / {event.get('outputTokens', 0)} out{money}"
    if kind == "artifact.created":
        art = event.get("artifact") or {}
        commit = art.get("commit")
        on = f" · commit {commit[:8]} on {art.get('branch') or '?'}" \
            if isinstance(commit, str) else ""
        return f"{art.get('kind', '')}: {art.get('name', '')}{on}"
    if kind == "verification.result":
        return f"verification {'ok' if event.get('ok') else 'failed'}: {event.get('command', '')}"
    if kind == "run.created":
        return f"run created: {event.get('workflowName', '')} · {event.get('mode', '')}"
    if kind == "run.mode":
        return f"mode {event.get('mode') or ''} {event.get('globalMode') or ''}".strip()
    if kind == "node.patch" and (event.get("patch") or {}).get("addedAtRuntime"):
        return f"node added at run time: {(event.get('patch') or {}).get('label', '')}"
    git = (event.get("patch") or {}).get("git") if kind == "node.patch" else None
    if isinstance(git, dict) and "worktree" in git:
        return f"works in its own worktree {git.get('worktree', '')} on {git.get('branch', '')}"
    if isinstance(git, dict) and isinstance(git.get("ahead"), int):
        return f"its branch is {ahead_text(git['ahead'])} of the run's base"
    if kind == "edge.created":
        return f"edge created ({(event.get('edge') or {}).get('type', '')})"
    reason = f": {_short(event['reason'])}" if event.get("reason") else ""
    return kind + reason


def expandable(event_type: str) -> bool:
    """Rows of this type open in place to show their whole text (thinking)."""
    return event_type.startswith("message.assistant.thinking")


def expanded_text(event: dict) -> str:
    """A thinking row opened in place: a header line, then the whole thought."""
    return "▾ thinking\n" + str(event.get("text", "")).strip()


def merge_markdown(merge: dict) -> str:
    """A merge approval's request: the branches, the worktree, each file's hunks."""
    lines = [f"merging `{merge.get('source')}` (from {merge.get('sender') or '?'}, commit "
             f"`{str(merge.get('commit'))[:12]}`) into `{merge.get('target')}` conflicts; "
             f"the worktree `{merge.get('worktree')}` holds the conflicted files"]
    for entry in merge.get("files") or []:
        lines.append(f"**{file_note(entry)}**")
        for hunk in entry.get("hunks") or []:
            lines.append(f"line {hunk.get('line')}, ours:\n```\n{hunk.get('ours', '')}```\n"
                         f"theirs:\n```\n{hunk.get('theirs', '')}```")
    return "\n\n".join(lines)[:50000]


def full_markdown(event: dict, tools: dict[str, dict] | None = None) -> str:
    """The whole event for the detail pane, as markdown."""
    kind = event.get("type", "")
    head = f"**{kind}** · seq {event.get('seq', '?')} · {event.get('ts', '')}\n\n"
    if kind in ("message.user", "message.assistant.final", "message.assistant.delta"):
        return head + str(event.get("text", ""))
    if kind.startswith("message.assistant.thinking"):
        return head + "> " + str(event.get("text", "")).replace("\n", "\n> ")
    if kind == "approval.requested" and event.get("kind") == "merge":
        return head + merge_markdown(event.get("merge") or {})
    if kind in ("tool.proposed", "approval.requested"):
        tool = event.get("tool") or {}
        info = (tools or {}).get(tool.get("id", ""), {})
        lines = [head + f"tool `{tool.get('name', '?')}`"]
        if info:
            lines.append(f"status: {status_text(info)}")
        if isinstance(info.get("latency"), float):
            lines.append(f"latency: {info['latency']:.3f}s")
        proposed = tool.get("args") or {}
        ran = info.get("args", proposed)
        if info.get("modified") or ran != proposed:
            lines.append(f"arguments{_modified(info)}:")
        lines.append("```json\n" + json.dumps(ran, indent=2) + "\n```")
        if ran != proposed:
            lines.append("proposed:\n```json\n" + json.dumps(proposed, indent=2) + "\n```")
        if "result" in info:
            lines.append("result:\n```json\n" + json.dumps(info["result"], indent=2)[:20000]
                         + "\n```")
        if event.get("context"):
            lines.append(str(event["context"]))
        return "\n\n".join(lines)
    body = {k: v for k, v in event.items() if k not in ("id", "runId", "ts", "type", "seq")}
    return head + "```json\n" + json.dumps(body, indent=2, ensure_ascii=False)[:50000] + "\n```"
