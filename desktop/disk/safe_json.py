"""The one JSON decoder for input from outside: agents, files, API bodies.

``json.loads`` ends in RecursionError a few hundred levels down, and ``orjson``
parses up to 1,024 levels, deeper than ``orjson.dumps`` (255) can write back or
recursive Python code can walk. So every JSON value read here is refused past
``MAX_JSON_DEPTH`` (128) levels with an ordinary ``orjson.JSONDecodeError``
(a ``json.JSONDecodeError`` and a ``ValueError``), which every caller already
handles as "not JSON". The depth is only walked when the text holds more
brackets than the limit, so ordinary events cost two ``count`` calls.
"""

import json
from typing import Any

import orjson

MAX_JSON_DEPTH = 128

JSONDecodeError = orjson.JSONDecodeError


JSON_KINDS = {dict: "an object", list: "an array", str: "a string", int: "a number",
              float: "a number", bool: "true or false"}


def json_kind(value: Any) -> str:
    """What JSON type ``value`` is, in words ("a string", "an object", ...)."""
    for kind in (bool, dict, list, str, int, float):  # bool before int: True is an int
        if isinstance(value, kind):
            return JSON_KINDS[kind]
    return "null" if value is None else type(value).__name__


def too_deep(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``value`` holds lists or dicts nested more than ``limit`` levels."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (dict, list)))
    return False


def _bracket_count(data: bytes | bytearray | memoryview | str) -> int:
    if isinstance(data, str):
        return data.count("[") + data.count("{")
    if isinstance(data, memoryview):
        data = data.tobytes()
    return data.count(b"[") + data.count(b"{")


def loads(data: bytes | bytearray | memoryview | str, *, lenient: bool = False,
          max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Decode one JSON document; JSONDecodeError when it is not JSON or nested too deep.

    ``lenient`` also accepts what Python's ``json`` does and orjson does not (NaN,
    Infinity, integers beyond 64 bits): for streams written by other programs.
    """
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if not lenient or "depth" in exc.msg:
            raise
        try:
            value = json.loads(data)
        except (ValueError, RecursionError, TypeError):
            raise exc from None
    if _bracket_count(data) > max_depth and too_deep(value, max_depth):
        raise JSONDecodeError(f"nested deeper than {max_depth} levels", "", 0)
    return value


def load_file(path: Any, limit: int | None = None, **options: Any) -> Any:
    """Decode a JSON file (``limit``: refuse files above so many bytes); OSError or
    JSONDecodeError."""
    with open(path, "rb") as handle:
        data = handle.read() if limit is None else handle.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise JSONDecodeError(f"file is larger than {limit} bytes", "", 0)
    return loads(data, **options)
