"""A request body as the service reads it: strict JSON.

A JSON value is taken as JSON says it is: ``true`` is not 1, ``"3"`` is not 3 (pydantic's
lax mode would make them so, and a ``timeoutSec: true`` would be a one-second timeout).

And every object's keys are distinct: JSON parsers keep the last of two equal keys, so
``{"status": "running", "status": "stopped"}`` would stop a run its sender may have meant
to resume. RFC 8259 leaves such an object's meaning to the reader and I-JSON (RFC 7493)
forbids it; the project refuses duplicate keys in YAML (desktop/store/safe_yaml.py) and
runner records (desktop/store/runner_verify.py), and here too, naming the key and where
it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import ValidationError

from desktop.api.api_error import ApiError
from desktop.api.errors import from_validation
from desktop.disk.safe_json import JSONDecodeError
from desktop.disk.safe_json import loads as safe_loads

if TYPE_CHECKING:
    from desktop.graph.document import WorkflowDocument


class _Twice(dict[str, Any]):
    """An object that held ``key`` twice (the last value kept, as the JSON parser would)."""

    key: str = ""


def _marking(marked: list[_Twice]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An ``object_pairs_hook`` marking each object with a key twice (kept in ``marked``)."""
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(items)
        if len(found) == len(items):
            return found
        twice = _Twice(found)
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                twice.key = key
                break
            seen.add(key)
        marked.append(twice)
        return twice
    return pairs


def _path_to_mark(value: Any) -> tuple[str, str]:
    """The key of the first marked object in ``value`` and the dotted path to it.

    The parser builds inner objects first and knows no path, so the hook marks the object
    and this walk, from the top, names where it is."""
    stack: list[tuple[Any, list[str]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _Twice):
            return item.key, ".".join([*path, item.key])
        if isinstance(item, dict):
            stack.extend((v, [*path, k]) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((v, [*path, str(i)]) for i, v in reversed(list(enumerate(item))))
    raise AssertionError("no marked object")  # only called when the hook marked one


def decode_body(raw: bytes) -> Any:
    """The JSON value of a request body; 400 ``invalid_json`` for anything not strict JSON
    (bad syntax, NaN, too deep, a key given twice in one object: ``field`` names it)."""
    try:
        value = safe_loads(raw)  # refuses NaN, huge integers and deep nesting first
    except JSONDecodeError as exc:
        raise ApiError(400, "invalid_json", f"the body is not valid JSON: {exc}") from None
    if b"{" not in raw:  # no object, no key to repeat
        return value
    # orjson has no hook for duplicate keys; the standard parser has, and the input is now
    # known to be valid JSON, shallow enough for it.
    marked: list[_Twice] = []
    parsed = json.loads(raw, object_pairs_hook=_marking(marked))
    if marked:
        key, where = _path_to_mark(parsed)
        raise ApiError(400, "invalid_json", f"the body is not valid JSON: key {key!r} is "
                       f"given twice in one object (at {where}); give each key once", where)
    return value


def workflow_document(data: dict[str, Any], field: str = "workflow") -> WorkflowDocument:
    """A workflow document sent in a request body, checked strictly as JSON (``timeoutSec:
    true`` is not one second, ``untilDone: "yes"`` not true); 422 naming the field.

    Only documents from the network: a YAML file is read by desktop/graph/io.py with
    its own checks and its own messages."""
    from desktop.graph.document import WorkflowDocument

    try:  # JSON text again: pydantic's strict Python mode would refuse enum values
        return WorkflowDocument.model_validate_json(orjson.dumps(data), strict=True)
    except ValidationError as exc:
        raise from_validation(exc, field) from None


__all__ = ["decode_body", "workflow_document"]
