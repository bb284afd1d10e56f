"""Turning one line of agent output into a partial contract event (or not)."""

from typing import Any

import orjson
from pydantic import ValidationError

from desktop.contract.events import EVENT_TYPES
from desktop.disk.safe_json import loads as safe_loads

# Fields the engine fills in; an agent cannot choose them.
ENGINE_FIELDS = ("id", "runId", "ts", "nodeId", "seq")
_ENGINE_KEYS = frozenset(ENGINE_FIELDS)
_PLACEHOLDER_RUN = "00000000-0000-4000-8000-000000000000"
MAX_LOG_TEXT = 64 * 1024
_STREAMING = frozenset({"message.assistant.delta", "message.assistant.thinking.delta"})


def parse_event_line(line: str) -> tuple[dict[str, Any] | None, str | None]:
    """``(event, None)`` for a valid contract event line, ``(None, why)`` for an invalid one,
    ``(None, None)`` when the line is not meant as an event at all."""
    stripped = line.strip()
    if not stripped.startswith("{") or '"type"' not in stripped:
        return None, None
    try:
        obj = safe_loads(stripped)
    except orjson.JSONDecodeError:
        return None, None
    if type(obj) is not dict or type(obj.get("type")) is not str \
            or obj["type"] not in EVENT_TYPES:
        return None, None
    if _ENGINE_KEYS.isdisjoint(obj):
        event = obj  # freshly parsed: nobody else holds it
    else:
        event = {k: v for k, v in obj.items() if k not in _ENGINE_KEYS}
    if obj["type"] in _STREAMING and type(obj.get("text")) is str:
        return event, None  # the hot path of a streaming agent: nothing else to check
    try:  # the type's own model: only the types an agent sends get built
        EVENT_TYPES[obj["type"]].model_validate({**event, "runId": _PLACEHOLDER_RUN})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "event"
        return None, f"invalid {obj['type']} event from agent: {where}: {first['msg']}"
    return event, None


def log_event(text: str, stream: str = "stdout") -> dict[str, Any]:
    """A node.log event for one line the agent printed (cut to a sane size)."""
    if len(text) > MAX_LOG_TEXT:
        text = text[:MAX_LOG_TEXT] + f" [{len(text) - MAX_LOG_TEXT} more characters]"
    return {"type": "node.log", "stream": stream, "text": text}
