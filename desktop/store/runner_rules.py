"""The rules RN1-RN11 of runner records (specs/runner-spec.md), checked on any JSON value.

Each rule adds a :class:`Violation` (rule id, message, ``$.path`` of the field) for
everything it finds wrong, so one pass reports every violation at once. RN12 (canonical
form) needs the record's bytes and lives in :mod:`desktop.store.runner_verify`.

Paths name both tools' findings. ``path`` is ours, always a JSONPath down to the field;
``reference_path`` is the path the Motherlabs kernel's ``runner-verify`` gives for the
same finding (``sandbox`` where ours is ``$.sandbox.backend``), or None where it gives
none (RN1, RN2, RN12). Where the kernel reports a finding ours folds into another (a
``duration_ms`` mismatch when ``completed_at`` is also before ``started_at``), both
are reported, so the (rule, reference_path) pairs are a superset of the kernel's.
"""

import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from desktop.contract.runner import (
    ARCHES,
    BACKENDS,
    FORBIDDEN_ENV_PREFIXES,
    ISOLATION_LEVELS,
    OSES,
    OUTPUT_BYTES,
    OUTPUT_FILES,
    RUNNER_ID_PATTERN,
    RUNNER_SCHEMA_VERSION,
    TIMEOUT_MS,
    Runner,
)
from desktop.store.runner import utf16_key

SEMVER = (r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
          r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
          r"(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
          r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?")
SEMVER_RE = re.compile(SEMVER)
LOCALE_RE = re.compile(r"(C|POSIX|[a-z]{2,3}(_[A-Z]{2}|_\d{3})?)(\.[A-Za-z0-9-]+)?(@[A-Za-z0-9]+)?")
SIGNAL_RE = re.compile(r"[A-Z][A-Z0-9+]*")
RUNNER_ID_RE = re.compile(RUNNER_ID_PATTERN)
UTC_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)")
KNOWN_FIELDS = frozenset(Runner.model_fields)
_STR = frozenset({str})
FORBIDDEN_RE = re.compile("^(?:" + "|".join(FORBIDDEN_ENV_PREFIXES) + ")", re.M | re.I)


_NO_REFERENCE_PATH = frozenset({"RN1", "RN2", "RN12"})
"""Rules whose violations the kernel's verifier reports without a path."""


def reference_path_of(rule_id: str, path: str) -> str | None:
    """The kernel's usual path for our ``path``: ours without ``$.``, None where it has none."""
    if rule_id in _NO_REFERENCE_PATH or not path.startswith("$."):
        return None
    return path[2:]


@dataclass(frozen=True)
class Violation:
    """One broken rule: its id (``RN5``), what is wrong, where (``$.limits.timeout_ms``),
    and where the kernel's verifier says it is (``limits.timeout_ms``, or None)."""

    rule_id: str
    message: str
    path: str
    reference_path: str | None = None

    def as_dict(self) -> dict[str, str]:
        """The spec's violation object; ``reference_path`` only when the kernel gives one."""
        out = {"rule_id": self.rule_id, "message": self.message, "path": self.path}
        if self.reference_path is not None:
            out["reference_path"] = self.reference_path
        return out


def utf16_sorted(items: list[str]) -> bool:
    """Whether ``items`` is in the order JavaScript's sort() gives (UTF-16 code units)."""
    if "".join(items).isascii():  # the usual case: code point order is the same
        return items == sorted(items)
    keys = [utf16_key(s) for s in items]
    return keys == sorted(keys)


def parse_utc(value: Any) -> datetime | None:
    """An ISO 8601 UTC timestamp as a datetime, or None when it is not one."""
    if type(value) is not str or not UTC_RE.fullmatch(value):
        return None
    try:  # Z or +00:00 only (UTC_RE): every result has the same zero offset
        return datetime.fromisoformat(value.replace("Z", "+00:00", 1))
    except ValueError:
        return None


def is_number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


class _Checker:
    """Collects the violations of one record, rule by rule."""

    def __init__(self, record: dict[str, Any]):
        self.record = record
        self.found: list[Violation] = []

    def bad(self, rule: str, path: str, message: str, reference: str | None = "") -> None:
        """Record a violation; ``reference`` is the kernel's path when it is not ours
        without ``$.`` (None: the kernel gives none)."""
        ref = reference_path_of(rule, path) if reference == "" else reference
        self.found.append(Violation(rule, message, path, ref))

    def obj(self, rule: str, name: str) -> dict[str, Any] | None:
        value = self.record.get(name)
        if isinstance(value, dict):
            return value
        self.bad(rule, f"$.{name}", "missing; it is required" if name not in self.record
                 else f"must be an object, not {kind_of(value)}")
        return None

    def text(self, rule: str, part: dict, name: str, path: str) -> str | None:
        value = part.get(name)
        if isinstance(value, str) and value:
            return value
        self.bad(rule, f"{path}.{name}", "missing; it is required" if name not in part
                 else "must be a non-empty string")
        return None

    def boolean(self, rule: str, part: dict, name: str, path: str) -> None:
        if type(part.get(name)) is not bool:
            self.bad(rule, f"{path}.{name}", "missing; it is required" if name not in part
                     else "must be a boolean")

    def sorted_strings(self, rule: str, value: Any, path: str) -> list[str] | None:
        if type(value) is not list or not _STR.issuperset(map(type, value)):
            self.bad(rule, path, "missing; it is required" if value is None
                     else "must be an array of strings")
            return None
        if not utf16_sorted(value):
            self.bad(rule, path, "must be sorted lexicographically")
        return value

    def number_in(self, rule: str, part: dict, name: str, path: str,
                  low: float, high: float | None) -> None:
        value = part.get(name)
        if type(value) is int and (low <= value <= high if high is not None else value > low):
            return  # the usual case, decided at once
        where = f"{path}.{name}"
        if name not in part:
            self.bad(rule, where, "missing; it is required")
        elif not is_number(value):
            self.bad(rule, where, f"must be a number, not {kind_of(value)}")
        elif high is None and value <= low:
            self.bad(rule, where, f"must be positive, got {value}")
        elif high is not None and not low <= value <= high:
            self.bad(rule, where, f"must be in [{low}, {high}], got {value}")


def kind_of(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def _rn1(c: _Checker) -> None:
    value = c.record.get("runner_schema_version")
    if "runner_schema_version" not in c.record:
        c.bad("RN1", "$.runner_schema_version", "missing; it is required")
    elif not isinstance(value, str) or not value:
        c.bad("RN1", "$.runner_schema_version", "must be a non-empty string")
    elif value != RUNNER_SCHEMA_VERSION:
        c.bad("RN1", "$.runner_schema_version",
              f"must be {RUNNER_SCHEMA_VERSION!r}, got {value!r}")


def _rn2(c: _Checker) -> None:
    rid = c.text("RN2", c.record, "runner_id", "$")
    if rid is not None and not RUNNER_ID_RE.fullmatch(rid):
        c.bad("RN2", "$.runner_id", f"{rid!r} does not match runner_YYYYMMDD_HHMMSS_<a-z0-9>")
    c.text("RN2", c.record, "runner_version", "$")


def _rn3(c: _Checker) -> None:
    p = c.obj("RN3", "platform")
    if p is None:
        return
    for name, allowed in (("os", OSES), ("arch", ARCHES)):
        if p.get(name) in allowed:  # a known name is a non-empty string too
            continue
        value = c.text("RN3", p, name, "$.platform")
        if value is not None and value not in allowed:
            c.bad("RN3", f"$.platform.{name}", f"{value!r} is not one of {', '.join(allowed)}")
    node = c.text("RN3", p, "node_version", "$.platform")
    if node is not None and not (node.startswith("v") and SEMVER_RE.fullmatch(node[1:])):
        c.bad("RN3", "$.platform.node_version", f"{node!r} is not 'v' followed by semver")
    npm = c.text("RN3", p, "npm_version", "$.platform")
    if npm is not None and not SEMVER_RE.fullmatch(npm):
        c.bad("RN3", "$.platform.npm_version", f"{npm!r} is not a semver string")


def _rn4(c: _Checker) -> None:
    s = c.obj("RN4", "sandbox")
    if s is None:
        return
    backend = c.text("RN4", s, "backend", "$.sandbox")
    if backend is not None and backend not in BACKENDS:
        c.bad("RN4", "$.sandbox.backend", f"{backend!r} is not one of {', '.join(BACKENDS)}")
    level = c.text("RN4", s, "isolation_level", "$.sandbox")
    if level is not None and level not in ISOLATION_LEVELS:
        c.bad("RN4", "$.sandbox.isolation_level",
              f"{level!r} is not one of {', '.join(ISOLATION_LEVELS)}")
    c.boolean("RN4", s, "network_blocked", "$.sandbox")
    c.boolean("RN4", s, "filesystem_readonly", "$.sandbox")
    if level == "none" and backend is not None and backend != "none":
        c.bad("RN4", "$.sandbox.backend",
              f"isolation_level 'none' requires backend 'none', got {backend!r}", "sandbox")


def _rn5(c: _Checker) -> None:
    lim = c.obj("RN5", "limits")
    if lim is None:
        return
    c.number_in("RN5", lim, "timeout_ms", "$.limits", *TIMEOUT_MS)
    c.number_in("RN5", lim, "max_output_files", "$.limits", *OUTPUT_FILES)
    c.number_in("RN5", lim, "max_total_output_bytes", "$.limits", *OUTPUT_BYTES)
    for name in ("max_memory_bytes", "max_cpu_seconds"):
        if name in lim:
            c.number_in("RN5", lim, name, "$.limits", 0, None)


def _rn6(c: _Checker) -> None:
    cmd = c.obj("RN6", "commands")
    if cmd is None:
        return
    allow = c.sorted_strings("RN6", cmd.get("allowlist"), "$.commands.allowlist")
    block = c.sorted_strings("RN6", cmd.get("blocklist"), "$.commands.blocklist")
    c.text("RN6", cmd, "shell", "$.commands")
    if allow and block:
        for both in sorted(set(allow) & set(block)):
            c.bad("RN6", "$.commands.blocklist", f"{both!r} is in both allowlist and blocklist",
                  "commands")


def _rn7(c: _Checker) -> None:
    roots = c.sorted_strings("RN7", c.record.get("write_roots"), "$.write_roots")
    for i, root in enumerate(roots or []):
        if not root:
            c.bad("RN7", f"$.write_roots[{i}]",
                  "must not be empty (use '.' for the working folder)")
        elif root.startswith(("/", "\\")) or (root[1:2] == ":" and root[0].isalpha()):
            c.bad("RN7", f"$.write_roots[{i}]",
                  f"{root!r} is absolute; only relative paths are allowed")
        elif ".." in root and ".." in root.replace("\\", "/").split("/"):
            c.bad("RN7", f"$.write_roots[{i}]", f"{root!r} contains path traversal ('..')")


def _rn8(c: _Checker) -> None:
    ctx = c.obj("RN8", "context")
    if ctx is None:
        return
    if ctx.get("working_dir") != ".":
        c.bad("RN8", "$.context.working_dir", "missing; it is required"
              if "working_dir" not in ctx else "must be '.'")
    names = c.sorted_strings("RN8", ctx.get("env_allowlist"), "$.context.env_allowlist")
    forbidden = names and FORBIDDEN_RE.search("\n".join(names))
    for i, name in enumerate(names if forbidden else []):
        if name.upper().startswith(FORBIDDEN_ENV_PREFIXES):
            c.bad("RN8", f"$.context.env_allowlist[{i}]",
                  f"{name!r} has a forbidden (secret-bearing) prefix")
    locale = c.text("RN8", ctx, "locale", "$.context")
    if locale is not None and not LOCALE_RE.fullmatch(locale):
        c.bad("RN8", "$.context.locale", f"{locale!r} is not a locale name (e.g. en_US.UTF-8)")
    c.text("RN8", ctx, "timezone", "$.context")


def _rn9(c: _Checker) -> None:
    t = c.obj("RN9", "timing")
    if t is None:
        return
    start, end = parse_utc(t.get("started_at")), parse_utc(t.get("completed_at"))
    for name, moment in (("started_at", start), ("completed_at", end)):
        if moment is None:
            c.bad("RN9", f"$.timing.{name}", "missing; it is required" if name not in t
                  else "must be an ISO 8601 UTC timestamp (…Z)")
    duration = t.get("duration_ms")
    if not is_number(duration):
        c.bad("RN9", "$.timing.duration_ms", "missing; it is required"
              if "duration_ms" not in t else "must be a number")
    if start is not None and end is not None:
        span = (end - start).total_seconds() * 1000
        if end < start:
            c.bad("RN9", "$.timing.completed_at", "is before started_at", "timing")
        if is_number(duration) and abs(span - duration) > 1:
            c.bad("RN9", "$.timing.duration_ms",
                  f"{duration} differs from completed_at - started_at ({span:g} ms)")
    if "phases" in t:
        _phases(c, t["phases"])


def _phases(c: _Checker, phases: Any) -> None:
    if not isinstance(phases, list):
        c.bad("RN9", "$.timing.phases", "must be an array")
        return
    starts = []
    for i, phase in enumerate(phases):
        where = f"$.timing.phases[{i}]"
        if not isinstance(phase, dict):
            c.bad("RN9", where, "must be an object")
            continue
        c.text("RN9", phase, "name", where)
        moment = parse_utc(phase.get("started_at"))
        if moment is None:
            c.bad("RN9", f"{where}.started_at", "must be an ISO 8601 UTC timestamp")
        else:
            starts.append(moment)
        if not is_number(phase.get("duration_ms")):
            c.bad("RN9", f"{where}.duration_ms", "must be a number")
    if starts != sorted(starts):
        c.bad("RN9", "$.timing.phases", "must be sorted by started_at")


def _rn10(c: _Checker) -> None:
    e = c.obj("RN10", "exit")
    if e is None:
        return
    code = e.get("code")
    if type(code) is not int or not 0 <= code <= 255:
        c.bad("RN10", "$.exit.code", "missing; it is required" if "code" not in e
              else f"must be an integer in [0, 255], got {code!r}")
    if "signal" in e and not (isinstance(e["signal"], str) and SIGNAL_RE.fullmatch(e["signal"])):
        c.bad("RN10", "$.exit.signal", f"must be an uppercase signal name, got {e['signal']!r}")
    c.boolean("RN10", e, "oom_killed", "$.exit")
    c.boolean("RN10", e, "timeout_killed", "$.exit")


def _rn11(c: _Checker) -> None:
    for key in () if KNOWN_FIELDS.issuperset(c.record) else c.record:
        if key not in KNOWN_FIELDS:
            c.bad("RN11", f"$.{key}", f"unknown field {key!r}: it is neither core nor "
                  "ephemeral, so the hash could not say whether it counts")
    if "warnings" in c.record:
        c.sorted_strings("RN11", c.record["warnings"], "$.warnings")
    if "ephemeral" in c.record:
        eph = c.record["ephemeral"]
        if not isinstance(eph, dict):
            c.bad("RN11", "$.ephemeral", "must be an object")
            return
        for key, value in eph.items():
            if key not in ("host_id", "session_id", "human_notes"):
                c.bad("RN11", f"$.ephemeral.{key}", f"unknown ephemeral field {key!r}")
            elif not isinstance(value, str):
                c.bad("RN11", f"$.ephemeral.{key}", "must be a string")


RULES = (_rn1, _rn2, _rn3, _rn4, _rn5, _rn6, _rn7, _rn8, _rn9, _rn10, _rn11)


def check_rules(record: dict[str, Any]) -> list[Violation]:
    """Every violation of RN1-RN11 in ``record``, rule by rule."""
    checker = _Checker(record)
    for rule in RULES:
        rule(checker)
    return checker.found
