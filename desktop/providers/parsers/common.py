"""Shared pieces of the agent stream parsers: the parser base, error classes, helpers.

A parser turns one line of an agent's JSON-lines stdout into a list of partial
contract events (dicts with ``type`` and that type's fields; the engine adds
``id``/``runId``/``ts``/``nodeId``). Parsers are total: any line, however
broken, gives a list and never raises. Lines of an unknown type come back as
``agent.raw`` events holding the line; lines that are not JSON become
``node.log`` events flagged ``problem: "not-json"``.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from desktop.contract.base import new_id, utc_now
from desktop.disk.safe_json import JSON_KINDS as _KINDS
from desktop.disk.safe_json import json_kind
from desktop.disk.safe_json import loads as safe_loads

MAX_TEXT = 64_000
"""Longest text kept from one tool output or unparsed line (the rest is cut)."""

NIL_RUN_ID = "00000000-0000-0000-0000-000000000000"

ERROR_CATEGORIES = ("authentication", "rate_limit", "unknown_model", "network", "other")

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("authentication", re.compile(
        r"\b401\b|\b403\b|unauthori[sz]ed|authenticat|invalid[ _-]?(x-)?api[ _-]?key|"
        r"api[ _-]?key (is )?(not valid|invalid|missing)|permission[ _]denied|forbidden|"
        r"invalid bearer|credential|login required|/login", re.I)),
    ("rate_limit", re.compile(
        r"\b429\b|rate[ _-]?limit|too many requests|quota|resource[ _]exhausted|overloaded|"
        r"\b529\b", re.I)),
    ("unknown_model", re.compile(
        r"model.{0,40}(not (found|supported|exist)|does not exist|unknown|invalid)|"
        r"(unknown|invalid|unsupported) model|not_found_error.{0,80}model|no such model|"
        r"model_not_found", re.I)),
    ("network", re.compile(
        r"econnrefused|econnreset|enotfound|etimedout|connection (refused|reset|error|closed)|"
        r"network|timed? ?out|unable to connect|fetch failed|socket hang up|dns|"
        r"stream disconnected|error sending request|connect error", re.I)),
)


def classify_error(message: str | None, status: int | None = None) -> str:
    """The class of an agent error: authentication, rate_limit, unknown_model, network, other.

    An HTTP status decides when known; otherwise the agent's own message does.
    """
    if status in (401, 403):
        return "authentication"
    if status == 429:
        return "rate_limit"
    text = message or ""
    if status == 404 and re.search(r"model", text, re.I):
        return "unknown_model"
    for category, pattern in _PATTERNS:
        if pattern.search(text):
            return category
    return "other"


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters cut]"


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a dict, else an empty dict (lines from agents are untrusted)."""
    return value if isinstance(value, dict) else {}


def as_text(value: Any) -> str:
    """Best-effort text of a field that should be a string (or a list of text blocks)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for item in value:
            if isinstance(item, dict):
                parts.append(as_text(item.get("text", item.get("content", ""))))
            else:
                parts.append(as_text(item))
        return "".join(parts)
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def as_int(value: Any) -> int:
    """A non-negative int from a token count field; 0 when absent or invalid."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value == value and abs(value) < 1e18:
        return max(int(value), 0)
    return 0


def as_args(value: Any) -> dict[str, Any]:
    """Tool arguments as a dict (a JSON string is decoded, anything else wrapped)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            decoded = safe_loads(value, lenient=True)
        except ValueError:
            return {"input": value}
        return decoded if isinstance(decoded, dict) else {"input": decoded}
    if value is None:
        return {}
    return {"input": value}


@dataclass
class StreamParser:
    """Per-stream state shared by the agent parsers; subclasses implement ``_parse``."""

    provider: str = ""
    run_id: str = NIL_RUN_ID
    started_on_proposal: bool = True
    """Emit ``tool.started`` right after ``tool.proposed`` (skip mode: nothing holds it)."""
    session_id: str | None = None
    model: str | None = None
    final_text: str = ""
    error: dict[str, Any] | None = None
    lines: int = 0
    unparsed: int = 0
    raw: int = 0
    objects: int = 0
    """Lines that were JSON objects."""
    malformed: int = 0
    """Lines of a known type whose fields have the wrong JSON types (kept as agent.raw)."""
    _tools: dict[str, str] = field(default_factory=dict)

    SHAPES: ClassVar[dict[str, dict[str, tuple[type, ...]]]] = {}
    """For each line ``type``: fields (dotted paths) that must have one of these types
    when present; a line that breaks one is kept whole, with a note, not half-read."""

    def shape_problem(self, data: dict[str, Any]) -> str | None:
        """Why ``data`` can not be read as the line its ``type`` says, or None."""
        kind = data.get("type")
        if kind is not None and not isinstance(kind, str):
            return f"its type is {json_kind(kind)}, not a string"
        for path, types in self.SHAPES.get(kind, {}).items():
            value: Any = data
            for part in path.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            if value is not None and not isinstance(value, types):
                wanted = " or ".join(dict.fromkeys(_KINDS[t] for t in types))
                return f"field {path!r} of a {kind!r} line is {json_kind(value)}, not {wanted}"
        return None

    def feed(self, line: str | bytes) -> list[dict[str, Any]]:
        """Events for one stdout line; never raises."""
        self.lines += 1
        if isinstance(line, bytes):
            line = line.decode("utf-8", errors="replace")
        text = line.strip()
        if not text:
            return []
        try:
            data = safe_loads(text, lenient=True)
        except ValueError:
            return [self._unparsed(text)]
        if not isinstance(data, dict):
            return [self._unparsed(text)]
        self.objects += 1
        problem = self.shape_problem(data)
        if problem is not None:
            self.malformed += 1
            return [self.raw_event(data, note=problem)]
        try:
            return self._parse(data)
        except Exception as exc:  # a parser bug must not end the stream
            return [self.raw_event(data, note=f"parser error: {type(exc).__name__}: {exc}")]

    def finish(self) -> list[dict[str, Any]]:
        """Events owed at the end of the stream (pending text, tools that never ended)."""
        return []

    def _parse(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        raise NotImplementedError

    # --- event makers ---------------------------------------------------------

    def _unparsed(self, text: str) -> dict[str, Any]:
        self.unparsed += 1
        return {"type": "node.log", "stream": "stdout", "problem": "not-json",
                "text": clip(text, 4000)}

    def raw_event(self, data: dict[str, Any], note: str | None = None) -> dict[str, Any]:
        """An ``agent.raw`` event keeping a line this parser does not map."""
        self.raw += 1
        event: dict[str, Any] = {"type": "agent.raw", "provider": self.provider, "line": data}
        if note:
            event["note"] = note
        return event

    def session_event(self, session_id: Any, model: Any = None) -> list[dict[str, Any]]:
        """Record the agent's session id on the node (resume uses it next turn)."""
        if not isinstance(session_id, str) or not session_id:
            return []
        self.session_id = session_id
        if isinstance(model, str) and model:
            self.model = model
        return [{"type": "node.patch", "patch": {"session": {"sessionId": session_id}}}]

    def error_event(self, message: Any, status: int | None = None,
                    category: str | None = None, fatal: bool = True) -> dict[str, Any]:
        """An ``agent.error`` event with the error's class and the agent's own message."""
        text = as_text(message).strip() or "unknown error"
        kind = category if category in ERROR_CATEGORIES else classify_error(text, status)
        error = {"category": kind, "message": clip(text, 4000)}
        if status is not None:
            error["status"] = status
        if fatal or self.error is None:
            self.error = error
        return {"type": "agent.error", "fatal": fatal, **error}

    def tool_proposed(self, tool_id: Any, name: Any, args: Any) -> list[dict[str, Any]]:
        """``tool.proposed`` (and ``tool.started`` in skip mode) for a new tool call."""
        tid = str(tool_id) if tool_id not in (None, "") else new_id()
        tool_name = as_text(name) or "tool"
        self._tools[tid] = tool_name
        events: list[dict[str, Any]] = [
            {"type": "tool.proposed", "tool": {"id": tid, "name": tool_name,
                                               "args": as_args(args)}}]
        if self.started_on_proposal:
            events.append({"type": "tool.started", "toolId": tid})
        return events

    def tool_completed(self, tool_id: Any, ok: bool, output: Any = None,
                       exit_code: Any = None, error: Any = None,
                       extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """``tool.completed`` with the result (ok, output, exit code) and any error."""
        tid = str(tool_id) if tool_id not in (None, "") else "unknown"
        self._tools.pop(tid, None)
        result: dict[str, Any] = {"ok": bool(ok)}
        if output is not None:
            result["output"] = clip(as_text(output))
        if isinstance(exit_code, int) and not isinstance(exit_code, bool):
            result["exitCode"] = exit_code
        if extra:
            result.update(extra)
        event: dict[str, Any] = {"type": "tool.completed", "toolId": tid, "result": result}
        if error not in (None, "", {}):
            event["error"] = {"message": clip(as_text(error), 4000)}
        elif not ok:
            fallback = f"exit code {exit_code}" if "exitCode" in result else "tool failed"
            event["error"] = {"message": clip(as_text(output), 4000) or fallback}
        return event

    def open_tools(self) -> list[str]:
        """Ids of tools proposed and not completed."""
        return list(self._tools)

    def usage_event(self, input_tokens: Any, output_tokens: Any, cost: Any = None,
                    model: Any = None) -> dict[str, Any]:
        """``telemetry.usage`` with token counts and the cost when the agent gives one."""
        event: dict[str, Any] = {"type": "telemetry.usage",
                                 "inputTokens": as_int(input_tokens),
                                 "outputTokens": as_int(output_tokens)}
        if isinstance(cost, int | float) and not isinstance(cost, bool) and 0 <= cost < 1e9:
            event["costUsd"] = float(cost)
        name = model if isinstance(model, str) and model else self.model
        if name:
            event["model"] = name
        return event

    def file_artifact(self, path: Any, change: Any = None) -> dict[str, Any]:
        """``artifact.created`` (kind diff) for a file the agent changed."""
        name = as_text(path) or "file"
        artifact = {"id": new_id(), "runId": self.run_id, "kind": "diff",
                    "name": name.rsplit("/", 1)[-1] or name, "path": name,
                    "createdAt": utc_now()}
        if change:
            artifact["change"] = as_text(change)
        return {"type": "artifact.created", "artifact": artifact}
