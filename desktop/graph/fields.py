"""Turn raw-data and pydantic mistakes into located problems with fix hints."""

import difflib
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from desktop.graph.as_written import wrong_kind
from desktop.graph.errors import Problem, format_path
from desktop.graph.sourcemap import SourceMap

FREE_FORM_FIELDS = {"extra", "script"}  # user data; anything goes inside
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""Whole numbers a workflow may hold: run state and events are written as JSON by orjson,
which refuses any integer outside the signed 64-bit range."""


def _field_keys(model: type[BaseModel]) -> dict[str, Any]:
    keys: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        keys[info.alias or name] = info.annotation
    return keys


def _models_in(annotation: Any) -> list[tuple[str, type[BaseModel]]]:
    """Nested models reachable through Optional / list / dict annotations."""
    origin = typing.get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [("", annotation)]
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    if origin is list:
        return [("[]", m) for _, m in _models_in(typing.get_args(annotation)[0])]
    if origin is dict:
        return [("{}", m) for _, m in _models_in(typing.get_args(annotation)[1])]
    return []


def unknown_fields(model: type[BaseModel], data: Any, path: tuple = ()) -> list[Problem]:
    """Keys of ``data`` that ``model`` (and its nested models) do not define."""
    if not isinstance(data, dict):
        return []
    keys = _field_keys(model)
    problems: list[Problem] = []
    for key, value in data.items():
        child = (*path, key)
        if key not in keys:
            known = sorted(keys)
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known fields: {', '.join(known)}"
            problems.append(Problem(format_path(child), f"unknown field {key!r}", hint))
            continue
        if key in FREE_FORM_FIELDS:
            continue
        for kind, sub in _models_in(keys[key]):
            if kind == "[]" and isinstance(value, list):
                for i, item in enumerate(value):
                    problems += unknown_fields(sub, item, (*child, i))
            elif kind == "{}" and isinstance(value, dict):
                for k, item in value.items():
                    problems += unknown_fields(sub, item, (*child, k))
            elif kind == "":
                problems += unknown_fields(sub, value, child)
            break
    return problems


_SCHEMA_PREFIXES = ("function-", "json-or-python", "lax-or-strict", "is-instance",
                    "constrained-", "tagged-union", "nullable")


def is_schema_part(part: object) -> bool:
    """Whether a part of a pydantic error location names a union member or a validator
    (``list[dict[str,any]]``, ``function-after[_check()]``), which users never wrote,
    rather than a field, an index or a key of theirs (``impl-text``: node keys have
    dashes). The service's 422s name their field with it too."""
    return isinstance(part, str) and (any(c in part for c in "[(")
                                      or part.startswith(_SCHEMA_PREFIXES))


def _clean_loc(loc: tuple) -> tuple:
    return tuple(p for p in loc if not is_schema_part(p))


def _hint(err: dict) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "enum":
        expected = str(ctx.get("expected", "")).replace(" or ", ", ").replace("'", "")
        return f"use one of: {expected}"
    if kind == "missing":
        return "add this field"
    if kind == "string_pattern_mismatch":
        return ("ids are slugs: a letter, then letters, digits, '_', '.' or '-' "
                "(at most 64 characters)")
    if kind.startswith(("greater_than", "less_than")):
        return "use a number in range, or leave the field out for the default"
    if kind.endswith(("_type", "_parsing", "_from_float")):
        return _WRITE_AS.get(kind.split("_")[0], "")
    return ""


_WRITE_AS = {
    "int": "write a whole number, e.g. 3",
    "float": "write a number, e.g. 2.5",
    "decimal": "write a number, e.g. 2.5",
    "bool": "write true or false",
    "string": "write text (in quotes when it starts with [, { or *)",
    "list": "write a list: [a, b], or one '- item' a line below the field",
    "tuple": "write a list: [a, b], or one '- item' a line below the field",
    "set": "write a list: [a, b], or one '- item' a line below the field",
    "dict": "write a mapping: 'key: value' lines indented below the field",
    "model": "write a mapping: 'key: value' lines indented below the field",
}
"""How to write a value of each pydantic type in YAML, for the fix part of a problem: the
type's own name ("expected a int value", "a model value") tells a user nothing."""


def from_validation_error(exc: ValidationError) -> list[Problem]:
    """One problem per pydantic error (unknown-field errors are left to unknown_fields)."""
    problems = []
    for err in exc.errors():
        if err["type"] == "extra_forbidden":
            continue
        loc = format_path(_clean_loc(err["loc"]))
        message = err["msg"].removeprefix("Value error, ")
        named = [p for p in _clean_loc(err["loc"]) if isinstance(p, str)]
        cleaned = _clean_loc(err["loc"])
        worded = wrong_kind(err["type"], cleaned[-1] if cleaned else None, err.get("input"))
        if worded is not None:  # a value not as written where a number or flag is
            problems.append(Problem(loc, *worded))
            continue
        if err["type"] == "enum" and named:
            message = f"unknown {named[-1]} {err.get('input')!r}"
        elif err["type"] == "model_type":  # not "... or instance of Budget": a class name
            message = "Input should be a mapping of its fields"
        elif err["type"] not in ("missing",) and "input" in err:
            shown = repr(err["input"])
            if len(shown) <= 60:
                message = f"{message} (got {shown})"
        problems.append(Problem(loc, message, _hint(err)))
    return problems


def wide_integers(data: Any, path: tuple = ()) -> list[Problem]:
    """A problem for every whole number in ``data`` (free-form fields included) outside
    the signed 64-bit range, located by its field path.

    Checked over all of the data rather than per field: any number a workflow holds can
    reach the run's state or events, and one that does not fit there fails the run
    after its turns have run.
    """
    if isinstance(data, dict):
        return [p for key, value in data.items() for p in wide_integers(value, (*path, key))]
    if isinstance(data, list | tuple):
        return [p for i, value in enumerate(data) for p in wide_integers(value, (*path, i))]
    if type(data) is not int or INT64_MIN <= data <= INT64_MAX:  # bool is no number here
        return []
    shown = str(data) if len(str(data)) <= 30 else f"{str(data)[:27]}..."
    if data > INT64_MAX:
        message = f"{shown} is too large: whole numbers must be at most {INT64_MAX}"
    else:
        message = f"{shown} is too small: whole numbers must be at least {INT64_MIN}"
    return [Problem(format_path(path), message,
                    "use a number in range, or leave the field out for the default")]


def locate(problems: list[Problem], smap: SourceMap | None, file: str | None) -> list[Problem]:
    """The problems with ``line`` and ``file`` filled in where known."""
    out = []
    for p in problems:
        line = p.line if p.line is not None else (smap.line(p.location) if smap else None)
        out.append(Problem(p.location, p.message, p.hint, p.severity, line, p.file or file))
    return out
