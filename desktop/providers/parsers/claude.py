"""Claude Code ``-p --output-format stream-json --verbose`` (optionally with
``--include-partial-messages``) to contract events.

The turn's final text comes in an ``assistant`` message's text blocks, or only in the
closing ``result`` event's ``result`` field (some streams carry no text block at all);
either way it becomes a ``message.assistant.final`` event, and only once.

Usage is counted per model reply, from the raw ``message_start`` / ``message_delta``
events that ``--include-partial-messages`` passes on, so a budget sees a long run's
tokens while it goes on; the ``result`` line then adds only what those did not count
(and the cost, which only it gives).
"""

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from desktop.providers.parsers.common import StreamParser, as_dict, as_text

_EXIT = re.compile(r"exit code (\d+)", re.I)
_ERROR_KINDS = {"authentication_failed": "authentication", "billing_error": "authentication",
                "model_not_found": "unknown_model",
                "rate_limit": "rate_limit", "invalid_request": "other",
                "server_error": "other", "unknown": "other"}
_FILE_TOOLS = {"Write", "Edit", "MultiEdit", "NotebookEdit"}
_QUIET_SYSTEM = {"status", "thinking_tokens", "hook_started", "hook_response"}


@dataclass
class ClaudeParser(StreamParser):
    provider: str = "claude"
    _message_id: str | None = None
    _errored: bool = False
    _final_sent: bool = False
    _tool_names: dict[str, str] = field(default_factory=dict)
    _reply_input: int = 0  # input tokens of the model reply streaming now
    _counted: list[int] = field(default_factory=lambda: [0, 0])  # [in, out] sent this turn

    SHAPES: ClassVar[dict[str, dict[str, tuple[type, ...]]]] = {
        "system": {"subtype": (str,)},
        "stream_event": {"event": (dict,)},
        "assistant": {"message": (dict,), "message.content": (list,)},
        "user": {"message": (dict,), "message.content": (list, str)},
        "result": {"usage": (dict,), "result": (str,), "total_cost_usd": (int, float),
                   "is_error": (bool,)},
    }

    def _parse(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        kind = data.get("type")
        if kind == "system":
            return self._system(data)
        if kind == "stream_event":
            return self._stream_event(as_dict(data.get("event")))
        if kind == "assistant":
            return self._assistant(data)
        if kind == "user":
            return self._user(data)
        if kind == "result":
            return self._result(data)
        return [self.raw_event(data)]

    def _system(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        subtype = data.get("subtype")
        if subtype == "init":
            return self.session_event(data.get("session_id"), data.get("model"))
        if subtype in _QUIET_SYSTEM:
            return []
        return [self.raw_event(data)]

    def _stream_event(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        kind = event.get("type")
        if kind == "message_start":
            message = as_dict(event.get("message"))
            self._message_id = as_text(message.get("id")) or None
            self._reply_input = _input_tokens(as_dict(message.get("usage")))
            return []
        if kind == "message_delta":
            return self._reply_usage(as_dict(event.get("usage")))
        if kind != "content_block_delta":
            return []
        delta = as_dict(event.get("delta"))
        if delta.get("type") == "text_delta" and delta.get("text"):
            return [{"type": "message.assistant.delta", "text": as_text(delta["text"]),
                     **({"messageId": self._message_id} if self._message_id else {})}]
        if delta.get("type") == "thinking_delta" and delta.get("thinking"):
            return [{"type": "message.assistant.thinking.delta",
                     "text": as_text(delta["thinking"])}]
        return []

    def _reply_usage(self, usage: dict[str, Any]) -> list[dict[str, Any]]:
        """``telemetry.usage`` of one finished model reply (its output count is final)."""
        tokens_in = _input_tokens(usage) or self._reply_input
        tokens_out = _count(usage.get("output_tokens"))
        self._reply_input = 0
        if not tokens_in and not tokens_out:
            return []
        self._counted[0] += tokens_in
        self._counted[1] += tokens_out
        return [self.usage_event(tokens_in, tokens_out)]

    def _assistant(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        message = as_dict(data.get("message"))
        content = message.get("content")
        blocks = [as_dict(b) for b in content] if isinstance(content, list) else []
        if message.get("model") == "<synthetic>" or data.get("error"):
            text = "".join(as_text(b.get("text")) for b in blocks if b.get("type") == "text")
            self._errored = True
            return [self.error_event(text or data.get("error"),
                                     category=_ERROR_KINDS.get(as_text(data.get("error"))))]
        mid = as_text(message.get("id")) or None
        events: list[dict[str, Any]] = []
        for block in blocks:
            kind = block.get("type")
            if kind == "text":
                self._final_sent = self._final_sent or bool(block.get("text"))
                events.append({"type": "message.assistant.final",
                               "text": as_text(block.get("text")),
                               **({"messageId": mid} if mid else {})})
            elif kind == "thinking":
                events.append({"type": "message.assistant.thinking.final",
                               "text": as_text(block.get("thinking"))})
            elif kind == "tool_use":
                tool_id = as_text(block.get("id"))
                self._tool_names[tool_id] = as_text(block.get("name"))
                events += self.tool_proposed(tool_id, block.get("name"), block.get("input"))
        return events

    def _user(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        content = as_dict(data.get("message")).get("content")
        if not isinstance(content, list):
            return []
        detail = data.get("tool_use_result")
        events: list[dict[str, Any]] = []
        for block in (as_dict(b) for b in content):
            if block.get("type") != "tool_result":
                continue
            tool_id = as_text(block.get("tool_use_id"))
            output = as_text(block.get("content"))
            failed = bool(block.get("is_error"))
            code = _EXIT.search(output) if failed else None
            exit_code = int(code.group(1)) if code else (None if failed else 0)
            if self._tool_names.get(tool_id) != "Bash":
                exit_code = None
            events.append(self.tool_completed(tool_id, not failed, output, exit_code))
            path = as_dict(detail).get("filePath")
            if (not failed and path and self._tool_names.get(tool_id) in _FILE_TOOLS):
                events.append(self.file_artifact(path, as_dict(detail).get("type") or "edit"))
        return events

    def _result(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        usage = as_dict(data.get("usage"))
        events: list[dict[str, Any]] = []
        if usage or data.get("total_cost_usd") is not None:
            # the turn's totals, less what the replies' own usage already counted
            rest_in = max(_input_tokens(usage) - self._counted[0], 0)
            rest_out = max(_count(usage.get("output_tokens")) - self._counted[1], 0)
            events.append(self.usage_event(rest_in, rest_out, data.get("total_cost_usd")))
        self._counted = [0, 0]
        status = data.get("api_error_status")
        status = status if isinstance(status, int) and not isinstance(status, bool) else None
        if data.get("is_error") or (data.get("subtype") not in (None, "success")):
            message = data.get("result") or data.get("subtype") or "error"
            if self._errored and self.error is not None:
                if status is not None:
                    self.error["status"] = status
            else:
                events.append(self.error_event(message, status))
        elif isinstance(data.get("result"), str):
            self.final_text = data["result"]
            if self.final_text and not self._final_sent:  # the text came nowhere else
                events.insert(0, {"type": "message.assistant.final", "text": self.final_text,
                               **({"messageId": self._message_id} if self._message_id
                                  else {})})
        self._final_sent = False  # a resumed session's next turn starts afresh
        return events


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _input_tokens(usage: dict[str, Any]) -> int:
    """Input tokens with the cached ones (Anthropic counts those apart)."""
    return sum(_count(usage.get(k)) for k in ("input_tokens", "cache_creation_input_tokens",
                                              "cache_read_input_tokens"))
