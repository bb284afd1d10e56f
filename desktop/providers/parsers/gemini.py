"""Gemini CLI ``--output-format stream-json`` to contract events."""

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from desktop.providers.parsers.common import StreamParser, as_dict, as_text

_CODE = re.compile(r'"code"\s*:\s*(\d{3})|\b(?:status|error)\D{0,12}(\d{3})\b', re.I)
_FILE_TOOLS = {"write_file", "replace", "edit"}
_EXIT = re.compile(r"exit(?:ed with)? code:?\s*(-?\d+)", re.I)


@dataclass
class GeminiParser(StreamParser):
    provider: str = "gemini"
    _pending: list[str] = field(default_factory=list)
    _params: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)

    SHAPES: ClassVar[dict[str, dict[str, tuple[type, ...]]]] = {
        "init": {"session_id": (str,)},
        "message": {"role": (str,), "content": (str, list)},
        "tool_use": {"tool_id": (str,), "tool_name": (str,), "parameters": (dict,)},
        "tool_result": {"tool_id": (str,), "status": (str,)},
        "result": {"stats": (dict,), "status": (str,)},
    }

    def _parse(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        kind = data.get("type")
        if kind == "init":
            return self.session_event(data.get("session_id"), data.get("model"))
        if kind == "message":
            if data.get("role") != "assistant":
                return []
            text = as_text(data.get("content"))
            if data.get("delta"):
                self._pending.append(text)
                return [{"type": "message.assistant.delta", "text": text}] if text else []
            self._pending.append(text)
            return self._flush()
        if kind == "tool_use":
            events = self._flush()
            tool_id = as_text(data.get("tool_id"))
            params = as_dict(data.get("parameters"))
            self._params[tool_id] = (as_text(data.get("tool_name")), params)
            return events + self.tool_proposed(tool_id, data.get("tool_name"), params)
        if kind == "tool_result":
            return self._tool_result(data)
        if kind == "error":
            return [self.error_event(data.get("message"), fatal=False)]
        if kind == "result":
            return self._flush() + self._result(data)
        return [self.raw_event(data)]

    def finish(self) -> list[dict[str, Any]]:
        return self._flush()

    def _flush(self) -> list[dict[str, Any]]:
        if not self._pending:
            return []
        text = "".join(self._pending)
        self._pending = []
        if not text:
            return []
        self.final_text = text
        return [{"type": "message.assistant.final", "text": text}]

    def _tool_result(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        tool_id = as_text(data.get("tool_id"))
        ok = data.get("status") == "success"
        error = as_dict(data.get("error")).get("message") or (
            data.get("error") if isinstance(data.get("error"), str) else None)
        name, params = self._params.pop(tool_id, ("", {}))
        exit_code = None
        if name == "run_shell_command" and ok:
            match = _EXIT.search(as_text(data.get("output")))
            exit_code = int(match.group(1)) if match else 0
            ok = exit_code == 0
        events = [self.tool_completed(tool_id, ok, data.get("output"), exit_code, error)]
        path = params.get("file_path") or params.get("path")
        if ok and name in _FILE_TOOLS and path:
            events.append(self.file_artifact(path, name))
        return events

    def _result(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        stats = as_dict(data.get("stats"))
        events = []
        if stats:
            events.append(self.usage_event(stats.get("input_tokens"), stats.get("output_tokens")))
        if data.get("status") not in (None, "success"):
            error = as_dict(data.get("error"))
            message = as_text(error.get("message")) or as_text(data.get("error")) or "error"
            match = _CODE.search(message)
            status = int(match.group(1) or match.group(2)) if match else None
            events.append(self.error_event(message, status))
        return events
