"""ACP ``session/update`` notifications as contract events (pure, total).

:class:`AcpMapper` keeps the little state the mapping needs (text being
streamed, tool calls seen and started) and turns each update dict, exactly as
it arrived on the wire, into partial contract events:

- ``agent_message_chunk`` -> ``message.assistant.delta``; the message's
  ``message.assistant.final`` follows when anything else arrives or the turn ends
- ``agent_thought_chunk`` -> thinking delta, then thinking final likewise
- ``tool_call`` -> ``tool.proposed`` (+ ``tool.started`` once in progress)
- ``tool_call_update`` -> ``tool.started`` / ``tool.completed``; ``diff``
  content becomes an ``artifact.created`` (kind diff) through ``write_diff``
- ``plan`` -> ``node.progress`` with a one-line summary and the entries
- anything else (or a malformed update) -> an ``agent.raw`` event

Nothing here raises on bad input: a mapping error becomes an ``agent.raw``
event naming it.
"""

import difflib
from collections.abc import Callable
from typing import Any

from desktop.contract.base import new_id, utc_now
from desktop.providers.parsers.common import NIL_RUN_ID, as_dict, as_int, as_text, clip

PROVIDER = "acp"
DiffWriter = Callable[[str, str, str], str | None]
"""``write_diff(file_path, patch_text, tool_id)`` -> the artifact path, or None."""

_TERMINAL = {"completed", "failed"}
# ACP tool kinds named the way the gate's policy knows them (desktop.runtime.gate).
_KIND_NAMES = {"execute": "shell", "edit": "edit", "delete": "delete_file"}


def tool_name(tool: dict[str, Any]) -> str:
    """A tool call's name for the contract: its kind when the gate's policy needs it."""
    kind = as_text(tool.get("kind"))
    if kind in _KIND_NAMES:
        return _KIND_NAMES[kind]
    title = as_text(tool.get("title")).strip()
    return kind if kind and kind != "other" else (title[:80] or "tool")


def tool_args(tool: dict[str, Any]) -> dict[str, Any]:
    """The call's raw input, with its title, kind and a ``command`` for shell calls."""
    raw = tool.get("rawInput")
    args: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
    if raw is not None and not isinstance(raw, dict):
        args["input"] = raw
    title = as_text(tool.get("title")).strip()
    if title:
        args.setdefault("title", title)
    kind = as_text(tool.get("kind"))
    if kind:
        args.setdefault("kind", kind)
    if kind == "execute" and "command" not in args and "cmd" not in args and title:
        args["command"] = title.strip("`")  # shells put the command line in the title
    locations = tool.get("locations")
    paths = [as_text(loc.get("path")) for loc in locations
             if isinstance(loc, dict)] if isinstance(locations, list) else []
    if paths and "path" not in args:
        args["paths"] = paths
    return args


def unified_diff(path: str, old: str | None, new: str) -> str:
    """A unified diff of one file's change (``old`` None: a new file)."""
    before = (old or "").splitlines(keepends=True)
    after = new.splitlines(keepends=True)
    origin = "/dev/null" if old is None else f"a/{path.lstrip('/')}"
    return "".join(difflib.unified_diff(before, after, origin, f"b/{path.lstrip('/')}"))


class AcpMapper:
    """Turns the update stream of one ACP session into contract events."""

    def __init__(self, run_id: str = NIL_RUN_ID, write_diff: DiffWriter | None = None,
                 node_id: str | None = None):
        self.run_id = run_id
        self.node_id = node_id
        self.write_diff = write_diff
        self.muted = False
        """While set (a loaded session replays its history), updates give no events."""
        self.final_text = ""
        self.raw = 0
        self._text: list[str] = []
        self._thought: list[str] = []
        self._message_id: str | None = None
        self._tools: dict[str, str] = {}  # id -> "proposed" | "started" | "denied"

    # --- entry points ---------------------------------------------------------

    def update(self, update: Any) -> list[dict[str, Any]]:
        """Events for one ``session/update`` ``update`` object; never raises."""
        if self.muted:
            return []
        if not isinstance(update, dict):
            return [self._raw(update, "update is not an object")]
        try:
            return self._update(update)
        except Exception as exc:  # a mapping bug must not end the turn
            return [self._raw(update, f"mapping error: {type(exc).__name__}: {exc}")]

    def permission_asked(self, tool: Any) -> list[dict[str, Any]]:
        """``tool.proposed`` for the call a permission request is about, unless already seen."""
        tool = as_dict(tool)
        tid = as_text(tool.get("toolCallId"))
        if not tid or tid in self._tools:
            return []
        try:
            return self._flush() + self._propose(tid, tool)
        except Exception as exc:  # a mapping bug must not end the turn
            return [self._raw(tool, f"mapping error: {type(exc).__name__}: {exc}")]

    def permission_decided(self, tool_id: str, allowed: bool) -> list[dict[str, Any]]:
        """``tool.started`` when allowed; a denied call is closed (not ok) if nothing else does."""
        state = self._tools.get(tool_id)
        if state is None:
            return []
        if not allowed:
            self._tools[tool_id] = "denied"
            return []
        if state == "proposed":
            self._tools[tool_id] = "started"
            return [{"type": "tool.started", "toolId": tool_id}]
        return []

    def finish(self) -> list[dict[str, Any]]:
        """Events owed at the end of the turn: pending text, tools that never ended."""
        events = self._flush()
        for tid, state in list(self._tools.items()):
            why = "denied" if state == "denied" else "the tool call did not complete"
            events.append(self._completed(tid, False, None, why))
        return events

    def usage(self, response: Any) -> list[dict[str, Any]]:
        """``telemetry.usage`` from a ``session/prompt`` result (standard or ``_meta``)."""
        response = as_dict(response)
        usage = as_dict(response.get("usage"))
        model = None
        if not usage:  # Gemini CLI reports its counts under _meta.quota
            quota = as_dict(as_dict(response.get("_meta")).get("quota"))
            counts = as_dict(quota.get("token_count"))
            usage = {"inputTokens": counts.get("input_tokens"),
                     "outputTokens": counts.get("output_tokens")}
            models = quota.get("model_usage")
            if isinstance(models, list) and models:
                model = as_dict(models[0]).get("model")
        if not any(as_int(usage.get(k)) for k in ("inputTokens", "outputTokens")):
            return []
        event = {"type": "telemetry.usage", "inputTokens": as_int(usage.get("inputTokens")),
                 "outputTokens": as_int(usage.get("outputTokens"))}
        if isinstance(model, str) and model:
            event["model"] = model
        return [event]

    # --- mapping ----------------------------------------------------------------

    def _update(self, update: dict[str, Any]) -> list[dict[str, Any]]:
        kind = update.get("sessionUpdate")
        if kind == "agent_message_chunk":
            return self._chunk(update, thought=False)
        if kind == "agent_thought_chunk":
            return self._chunk(update, thought=True)
        events = self._flush()
        if kind == "tool_call":
            return events + self._tool_call(update)
        if kind == "tool_call_update":
            return events + self._tool_update(update)
        if kind == "plan":
            return [*events, self._plan(update)]
        return [*events, self._raw(update)]

    def _chunk(self, update: dict[str, Any], thought: bool) -> list[dict[str, Any]]:
        content = as_dict(update.get("content"))
        if content.get("type") != "text" or not isinstance(content.get("text"), str):
            return [*self._flush(), self._raw(update, "non-text content")]
        text = content["text"]
        if thought:
            events = self._flush_text()
            self._thought.append(text)
            return [*events, {"type": "message.assistant.thinking.delta", "text": text}]
        events = self._flush_thought()
        if not self._text:
            self._message_id = new_id()
        self._text.append(text)
        return [*events, {"type": "message.assistant.delta", "text": text,
                          "messageId": self._message_id}]

    def _tool_call(self, update: dict[str, Any]) -> list[dict[str, Any]]:
        tid = as_text(update.get("toolCallId")) or new_id()
        events = [] if tid in self._tools else self._propose(tid, update)
        return events + self._progress(tid, update)

    def _tool_update(self, update: dict[str, Any]) -> list[dict[str, Any]]:
        tid = as_text(update.get("toolCallId"))
        if not tid:
            return [self._raw(update, "tool_call_update without toolCallId")]
        events = [] if tid in self._tools else self._propose(tid, update)
        return events + self._progress(tid, update)

    def _propose(self, tid: str, tool: dict[str, Any]) -> list[dict[str, Any]]:
        self._tools[tid] = "proposed"
        return [{"type": "tool.proposed",
                 "tool": {"id": tid, "name": tool_name(tool), "args": tool_args(tool)}}]

    def _progress(self, tid: str, update: dict[str, Any]) -> list[dict[str, Any]]:
        status = update.get("status")
        state = self._tools.get(tid)
        events: list[dict[str, Any]] = []
        if status in ("in_progress", *_TERMINAL) and state == "proposed":
            self._tools[tid] = "started"
            events.append({"type": "tool.started", "toolId": tid})
        if status in _TERMINAL:
            output, diffs = self._content(tid, update.get("content"))
            if not output and update.get("rawOutput") is not None:
                output = as_text(update.get("rawOutput"))
            ok = status == "completed"
            events.append(self._completed(tid, ok, output, None if ok else output or "failed"))
            events.extend(diffs)
        return events

    def _content(self, tid: str, content: Any) -> tuple[str, list[dict[str, Any]]]:
        """The text of a tool's content blocks, and artifacts for its diffs."""
        texts: list[str] = []
        artifacts: list[dict[str, Any]] = []
        for block in content if isinstance(content, list) else []:
            block = as_dict(block)
            if block.get("type") == "content":
                texts.append(as_text(as_dict(block.get("content")).get("text")))
            elif block.get("type") == "diff":
                path = as_text(block.get("path")) or "file"
                old = block.get("oldText")
                patch = unified_diff(path, old if isinstance(old, str) else None,
                                     as_text(block.get("newText")))
                texts.append(f"changed {path}")
                artifacts.extend(self._diff_artifact(path, patch, tid))
            elif block.get("type") == "terminal":
                texts.append(f"[terminal {as_text(block.get('terminalId'))}]")
        return "\n".join(t for t in texts if t), artifacts

    def _diff_artifact(self, path: str, patch: str, tid: str) -> list[dict[str, Any]]:
        stored = self.write_diff(path, patch, tid) if self.write_diff else None
        if stored is None:
            return []
        artifact = {"id": new_id(), "runId": self.run_id, "kind": "diff",
                    "name": path.rsplit("/", 1)[-1] or path, "path": stored,
                    "createdAt": utc_now()}
        if self.node_id:
            artifact["nodeId"] = self.node_id
        return [{"type": "artifact.created", "artifact": artifact}]

    def _completed(self, tid: str, ok: bool, output: str | None,
                   error: str | None) -> dict[str, Any]:
        self._tools.pop(tid, None)
        result: dict[str, Any] = {"ok": ok}
        if output:
            result["output"] = clip(output)
        event: dict[str, Any] = {"type": "tool.completed", "toolId": tid, "result": result}
        if not ok:
            event["error"] = {"message": clip(error or "failed", 4000)}
        return event

    def _plan(self, update: dict[str, Any]) -> dict[str, Any]:
        entries = [as_dict(e) for e in update.get("entries") or [] if isinstance(e, dict)]
        plan = [{"content": as_text(e.get("content")), "status": as_text(e.get("status")),
                 "priority": as_text(e.get("priority"))} for e in entries]
        done = sum(1 for e in plan if e["status"] == "completed")
        current = next((e["content"] for e in plan if e["status"] == "in_progress"), None)
        message = f"plan: {done}/{len(plan)} done"
        if current:
            message += f"; now: {current[:100]}"
        return {"type": "node.progress", "message": message, "plan": plan}

    # --- helpers ------------------------------------------------------------------

    def _flush(self) -> list[dict[str, Any]]:
        return self._flush_thought() + self._flush_text()

    def _flush_text(self) -> list[dict[str, Any]]:
        if not self._text:
            return []
        text, self._text = "".join(self._text), []
        self.final_text = text
        return [{"type": "message.assistant.final", "text": text,
                 "messageId": self._message_id}]

    def _flush_thought(self) -> list[dict[str, Any]]:
        if not self._thought:
            return []
        text, self._thought = "".join(self._thought), []
        return [{"type": "message.assistant.thinking.final", "text": text}]

    def _raw(self, update: Any, note: str | None = None) -> dict[str, Any]:
        self.raw += 1
        event: dict[str, Any] = {"type": "agent.raw", "provider": PROVIDER,
                                 "line": update if isinstance(update, dict) else {"value": update}}
        if note:
            event["note"] = note
        return event
