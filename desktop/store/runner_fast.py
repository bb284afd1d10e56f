"""The quick way to accept a runner record: one strict parse and validation in pydantic's core.

:func:`accept` parses the bytes straight into the usual shape of a valid record (every field
of its JSON type, no unknown key, no float, integers within 2^53) and checks the rules that
field types, patterns and ranges cannot say (sorted lists, disjoint command lists, relative
write roots, allowed env names, consistent timing), then RN12 (the bytes are the canonical
form). It returns the record and its core's canonical bytes, or None: None decides nothing,
and the record is then verified rule by rule by :mod:`desktop.store.runner_rules`, which says
what is wrong. So this module may turn away a valid record (one with ``timing.phases``, a
float, an unknown key in a part) but never accepts one the rules refuse; a test holds it
to that on generated and broken records.

Because the shape leaves no float, no integer past 2^53 and no key outside ASCII, orjson's
sorted output is the RFC 8785 form byte for byte (see :func:`desktop.store.runner.canonical`),
without walking the value to find out.
"""

import re
from datetime import datetime
from typing import Annotated, Any, Literal, NotRequired

import orjson
from pydantic import ConfigDict, Field, TypeAdapter, with_config
from typing_extensions import TypedDict

from desktop.contract.runner import (
    ARCHES,
    BACKENDS,
    ISOLATION_LEVELS,
    OSES,
    OUTPUT_BYTES,
    OUTPUT_FILES,
    RUNNER_ID_PATTERN,
    RUNNER_SCHEMA_VERSION,
    TIMEOUT_MS,
)
from desktop.store.runner import core
from desktop.store.runner_rules import (
    FORBIDDEN_RE,
    LOCALE_RE,
    SEMVER,
    SIGNAL_RE,
    UTC_RE,
    utf16_sorted,
)

_INT_MAX = 2**53 - 1
# Values are mostly distinct from record to record: caching only keys parses faster.
_strict = with_config(ConfigDict(strict=True, extra="forbid", cache_strings="keys"))


def _matching(pattern: str) -> Any:
    """A string the whole of which matches ``pattern``. The rules' patterns run on Python's
    ``re``, these on Rust's: ``\\d`` becomes ``[0-9]`` so that a digit the two engines'
    Unicode tables might disagree on is never accepted here (the rules then decide)."""
    return Annotated[str, Field(pattern="^(?:" + pattern.replace(r"\d", "[0-9]") + ")$")]


Text = Annotated[str, Field(min_length=1)]
Names = list[str]
Count = Annotated[int, Field(gt=0, le=_INT_MAX)]
Millis = Annotated[int, Field(ge=-_INT_MAX, le=_INT_MAX)]


@_strict
class _Platform(TypedDict):
    os: Literal[OSES]  # type: ignore[valid-type]
    arch: Literal[ARCHES]  # type: ignore[valid-type]
    node_version: _matching("v" + SEMVER)  # type: ignore[valid-type]
    npm_version: _matching(SEMVER)  # type: ignore[valid-type]


@_strict
class _Sandbox(TypedDict):
    backend: Literal[BACKENDS]  # type: ignore[valid-type]
    isolation_level: Literal[ISOLATION_LEVELS]  # type: ignore[valid-type]
    network_blocked: bool
    filesystem_readonly: bool


@_strict
class _Limits(TypedDict):
    timeout_ms: Annotated[int, Field(ge=TIMEOUT_MS[0], le=TIMEOUT_MS[1])]
    max_output_files: Annotated[int, Field(ge=OUTPUT_FILES[0], le=OUTPUT_FILES[1])]
    max_total_output_bytes: Annotated[int, Field(ge=OUTPUT_BYTES[0], le=OUTPUT_BYTES[1])]
    max_memory_bytes: NotRequired[Count]
    max_cpu_seconds: NotRequired[Count]


@_strict
class _Commands(TypedDict):
    allowlist: Names
    blocklist: Names
    shell: Text


@_strict
class _Context(TypedDict):
    working_dir: Literal["."]
    env_allowlist: Names
    locale: _matching(LOCALE_RE.pattern)  # type: ignore[valid-type]
    timezone: Text


@_strict
class _Timing(TypedDict):
    started_at: _matching(UTC_RE.pattern)  # type: ignore[valid-type]
    completed_at: _matching(UTC_RE.pattern)  # type: ignore[valid-type]
    duration_ms: Millis


@_strict
class _Exit(TypedDict):
    code: Annotated[int, Field(ge=0, le=255)]
    signal: NotRequired[_matching(SIGNAL_RE.pattern)]  # type: ignore[valid-type]
    oom_killed: bool
    timeout_killed: bool


@_strict
class _Ephemeral(TypedDict, total=False):
    host_id: str
    session_id: str
    human_notes: str


@_strict
class _Record(TypedDict):
    runner_schema_version: Literal[RUNNER_SCHEMA_VERSION]  # type: ignore[valid-type]
    runner_id: _matching(RUNNER_ID_PATTERN.strip("^$"))  # type: ignore[valid-type]
    runner_version: Text
    platform: _Platform
    sandbox: _Sandbox
    limits: _Limits
    commands: _Commands
    write_roots: Names
    context: _Context
    timing: _Timing
    exit: _Exit
    warnings: NotRequired[Names]
    ephemeral: NotRequired[_Ephemeral]


_SHAPE: TypeAdapter[_Record] = TypeAdapter(_Record)
_parse = _SHAPE.validator.validate_json
"""The core validator itself: TypeAdapter.validate_json's Python wrapper costs a third more."""


def accept(raw: bytes) -> tuple[dict[str, Any], bytes] | None:
    """The record in ``raw`` and its core's canonical bytes when it plainly keeps every
    rule RN1-RN12; None when that is not decided here."""
    try:
        record: dict[str, Any] = _parse(raw)
    except ValueError:  # ValidationError, or bytes that are not UTF-8 or JSON
        return None
    if not _keeps_the_other_rules(record):
        return None
    try:
        form = orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
        core_form = orjson.dumps(core(record), option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # a lone surrogate: the rules say what is wrong
        return None
    if raw != form and raw != form + b"\n":  # RN12: canonical, then at most one \n
        return None
    return record, core_form


def _keeps_the_other_rules(record: dict[str, Any]) -> bool:
    """RN4, RN6-RN9 and RN11 where a field's type and pattern do not decide them."""
    sandbox, commands, context = record["sandbox"], record["commands"], record["context"]
    allow, block, roots = commands["allowlist"], commands["blocklist"], record["write_roots"]
    names, warnings = context["env_allowlist"], record.get("warnings", [])
    return (
        (sandbox["isolation_level"] != "none" or sandbox["backend"] == "none")
        and _all_sorted(allow, block, roots, names, warnings)
        and set(allow).isdisjoint(block)
        and not (roots and _NOT_RELATIVE.search("\n".join(roots)))
        and not FORBIDDEN_RE.search("\n".join(names))
        and _timing_consistent(record["timing"]))


def _all_sorted(*lists: list[str]) -> bool:
    """Whether every list is in the spec's order (RN6, RN7, RN8, RN11)."""
    if not "".join([text for items in lists for text in items]).isascii():
        return all(map(utf16_sorted, lists))
    return all(items == sorted(items) for items in lists)  # ASCII: code point order


_NOT_RELATIVE = re.compile(r"^(?:$|[/\\]|.:)|(?:^|[/\\])\.\.(?:$|[/\\])", re.M)
"""RN7 on write roots joined by newlines: a root that is empty, absolute (``/``, ``\\``,
``X:``) or holds a ``..`` segment. A newline inside a root only adds line starts, and any
root with ``:`` second is turned away, so this refuses at least what the rule refuses."""


def _timing_consistent(timing: dict[str, Any]) -> bool:
    """RN9: both moments real, completed not before started, duration within 1 ms."""
    try:  # the pattern is UTC_RE's: Z or +00:00 only
        start = datetime.fromisoformat(timing["started_at"].replace("Z", "+00:00", 1))
        end = datetime.fromisoformat(timing["completed_at"].replace("Z", "+00:00", 1))
    except ValueError:  # a day or hour out of range
        return False
    return end >= start and abs(
        (end - start).total_seconds() * 1000 - timing["duration_ms"]) <= 1
