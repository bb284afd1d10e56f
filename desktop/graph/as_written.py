"""A YAML document's fields taken as written: numbers, flags and text as YAML typed them.

pydantic's lax mode turns ``timeoutSec: true`` into a one-second timeout, ``"30"`` (in
quotes: text) into 30, ``maxTurns: 5.5`` into an error but ``5.0`` into 5, and
``untilDone: "yes"`` into true. A value a user wrote is kept as they wrote it instead, the
one rule the service applies to request bodies (desktop/api/body_json.py): a number field
takes a number (a whole number where it counts things; a whole number is a fine number
of seconds), a flag takes true or false, and anything else is a problem naming the field
(desktop/graph/fields.py words it).

So every document a user writes in YAML (workflows, evaluation suites) is validated here,
through JSON text in pydantic's strict mode, as the service does: strict Python mode would
also refuse a mode's or provider's name, which YAML can only give as text.
"""

from __future__ import annotations

import base64
import datetime
import json
from typing import Any, TypeVar

from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound=BaseModel)


def _key(key: Any) -> str:
    """A mapping key as JSON holds it: text. YAML may give a number, a flag or a date
    (``1:``, ``yes:``); a field with such a name is still unknown, and a name of the
    user's own (a node config's, an env variable's) is the text they see."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return str(key).lower()
    if key is None:
        return "null"
    return _scalar(key) if isinstance(key, datetime.date | bytes) else str(key)


def _scalar(value: datetime.date | bytes) -> str:
    if isinstance(value, bytes):  # !!binary: its text when it is text, else as written
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return base64.b64encode(value).decode("ascii")
    return value.isoformat()  # an unquoted date is text to every field that takes text


def json_ready(value: Any) -> Any:
    """``value`` (what the safe YAML loader built) with every part JSON has no type for
    made into one that it has: dates as ISO text, sets and ordered pairs as lists, keys
    as text."""
    if isinstance(value, dict):
        return {_key(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_ready(item) for item in value]
    if isinstance(value, datetime.date | bytes):
        return _scalar(value)
    return value


def validate_as_written(model: type[ModelT], raw: Any) -> ModelT:
    """``raw`` as a ``model``, each value taken as written (see the module docstring);
    pydantic's ValidationError when one is wrong, located as the fields are."""
    # json, not orjson: a whole number wider than 64 bits is refused by name elsewhere
    # (desktop.graph.fields.wide_integers), and NaN reaches the field that refuses it;
    # ASCII, so no character the text holds can fail to encode on its way to pydantic
    text = json.dumps(json_ready(raw))
    return model.model_validate_json(text, strict=True)


_KINDS = {"int_type": "a whole number", "float_type": "a number", "bool_type": "true or false"}
_UNITS = (("Sec", "seconds"), ("Usd", "US dollars"), ("Bytes", "bytes"), ("Mb", "megabytes"))


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f"the text {value!r}"
    return repr(value)


def _number_in(text: str) -> float | None:
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return number if number == number and abs(number) != float("inf") else None


def _yaml_number(number: float) -> str:
    """``number`` as YAML reads a number: in digits, or with a dot and a signed exponent."""
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    mantissa, _, exponent = repr(number).partition("e")
    if not exponent:
        return mantissa
    return f"{mantissa if '.' in mantissa else mantissa + '.0'}e{exponent}"


def _write(kind: str, value: Any) -> str:
    """The fix: what to write instead of ``value`` where ``kind`` is wanted."""
    if kind == "bool_type":
        return "write true or false, without quotes"
    number = _number_in(value) if isinstance(value, str) else None
    if isinstance(value, float) and value.is_integer() and kind == "int_type":
        return f"write {int(value)}"
    if number is not None and (kind == "float_type" or number.is_integer()):
        if "e" in value.lower():
            # 1e3 unquoted: YAML reads an exponent without a dot and a sign as text
            return f"write {_yaml_number(number)}: YAML reads {value} as text"
        return f"write {value.strip()} without quotes"
    example = "3" if kind == "int_type" else "2.5"
    return f"write {_KINDS[kind]}, e.g. {example}, or leave the field out for the default"


def wrong_kind(kind: str, field: Any, value: Any) -> tuple[str, str] | None:
    """The message and the fix for ``value``, written where ``field`` takes a value of
    pydantic's ``kind`` (``int_type``, ``float_type``, ``bool_type``): ``timeoutSec must
    be a number of seconds, not true``; None for a kind (or a value, such as a list)
    the usual words say well enough."""
    if kind not in _KINDS or not isinstance(value, bool | int | float | str):
        return None
    wanted = _KINDS[kind]
    if kind != "bool_type" and isinstance(field, str):
        wanted += next((f" of {unit}" for end, unit in _UNITS if field.endswith(end)), "")
    name = field if isinstance(field, str) else "each item"
    return f"{name} must be {wanted}, not {_shown(value)}", _write(kind, value)


__all__ = ["json_ready", "validate_as_written", "wrong_kind"]
