"""Codex ``exec --json`` (threads, turns and items) to contract events."""

from dataclasses import dataclass
from typing import Any, ClassVar

from desktop.providers.parsers.common import StreamParser, as_dict, as_text

_TOOL_ITEMS = {"command_execution", "mcp_tool_call", "file_change", "web_search"}


@dataclass
class CodexParser(StreamParser):
    provider: str = "codex"
    _last_error: str | None = None

    SHAPES: ClassVar[dict[str, dict[str, tuple[type, ...]]]] = {
        "thread.started": {"thread_id": (str,)},
        "item.started": {"item": (dict,)},
        "item.updated": {"item": (dict,)},
        "item.completed": {"item": (dict,)},
        "turn.completed": {"usage": (dict,)},
        "turn.failed": {"error": (dict,)},
        "error": {"message": (str,)},
    }

    def _parse(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        kind = data.get("type")
        if kind == "thread.started":
            return self.session_event(data.get("thread_id"))
        if kind == "turn.started":
            return []
        if kind in ("item.started", "item.updated", "item.completed"):
            return self._item(kind, as_dict(data.get("item")), data)
        if kind == "turn.completed":
            usage = as_dict(data.get("usage"))
            return [self.usage_event(usage.get("input_tokens"), usage.get("output_tokens"))]
        if kind == "turn.failed":
            message = as_text(as_dict(data.get("error")).get("message")) or "turn failed"
            if message == self._last_error:
                return []
            return [self.error_event(message)]
        if kind == "error":
            message = as_text(data.get("message"))
            self._last_error = message
            return [self.error_event(message)]
        return [self.raw_event(data)]

    def _tool(self, item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        kind = item.get("type")
        if kind == "command_execution":
            return "command", {"cmd": as_text(item.get("command"))}
        if kind == "mcp_tool_call":
            name = ".".join(as_text(item.get(k)) for k in ("server", "tool") if item.get(k))
            args = item.get("arguments")
            return name or "mcp", args if isinstance(args, dict) else {"input": args}
        if kind == "file_change":
            return "apply_patch", {"changes": item.get("changes") or []}
        return "web_search", {"query": as_text(item.get("query"))}

    def _item(self, phase: str, item: dict[str, Any],
              data: dict[str, Any]) -> list[dict[str, Any]]:
        kind = item.get("type")
        item_id = as_text(item.get("id")) or None
        if kind in _TOOL_ITEMS:
            if phase == "item.started":
                return self.tool_proposed(item_id, *self._tool(item))
            if phase == "item.updated":
                return []
            events = [] if item_id in self._tools else self.tool_proposed(
                item_id, *self._tool(item))
            return events + self._tool_done(item, item_id)
        if phase != "item.completed":
            return [] if kind in ("agent_message", "reasoning") else [self.raw_event(data)]
        if kind == "agent_message":
            self.final_text = as_text(item.get("text"))
            return [{"type": "message.assistant.final", "text": self.final_text,
                     **({"messageId": item_id} if item_id else {})}]
        if kind == "reasoning":
            return [{"type": "message.assistant.thinking.final",
                     "text": as_text(item.get("text"))}]
        if kind == "error":
            return [self.error_event(item.get("message"), fatal=False)]
        return [self.raw_event(data)]

    def _tool_done(self, item: dict[str, Any], item_id: str | None) -> list[dict[str, Any]]:
        kind, status = item.get("type"), item.get("status")
        if kind == "command_execution":
            code = item.get("exit_code")
            ok = status == "completed" and (code in (0, None))
            return [self.tool_completed(item_id, ok, item.get("aggregated_output"), code)]
        if kind == "mcp_tool_call":
            error = as_dict(item.get("error")).get("message") or item.get("error")
            ok = status == "completed" and not error
            return [self.tool_completed(item_id, ok, item.get("result"), error=error)]
        if kind == "file_change":
            ok = status == "completed"
            events = [self.tool_completed(item_id, ok, None)]
            changes = item.get("changes")
            if ok and isinstance(changes, list):
                events += [self.file_artifact(as_dict(c).get("path"), as_dict(c).get("kind"))
                           for c in changes if as_dict(c).get("path")]
            return events
        return [self.tool_completed(item_id, status != "failed", None)]
