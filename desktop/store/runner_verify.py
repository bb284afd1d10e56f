"""Verification of runner records (specs/runner-spec.md, rules RN1-RN12).

:func:`parse` turns bytes into a JSON value the strict way (UTF-8, no NaN/Infinity, no
duplicate keys, bounded size and depth) or raises :class:`RunnerParseError`;
:func:`verify` checks every rule on any JSON value (RN1-RN11 in
:mod:`desktop.store.runner_rules`, RN12 here) and reports every violation at once, each
with its rule id, a message, the path of the field (``$.limits.timeout_ms``) and,
where the Motherlabs kernel's ``runner-verify`` reports a path for the same finding, that
path too (``reference_path``: ``limits.timeout_ms``); :func:`check` does both for
bytes, parsing a canonical record only once (and a plainly valid one in a single strict
parse and validation, :mod:`desktop.store.runner_fast`).

RN12 accepts the canonical bytes alone or followed by exactly one ``\n`` (what the
kernel's writer, and :func:`desktop.store.runner.write_runner`, emit); any other bytes
are not the canonical form.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from desktop.store.runner import NEWLINE, CanonicalError, canonical, canonical_record, hash_of
from desktop.store.runner_fast import accept
from desktop.store.runner_rules import Violation, check_rules, kind_of

__all__ = ["RunnerParseError", "Verification", "Violation", "check", "parse", "verify",
           "verify_all"]

MAX_BYTES = 1024 * 1024
"""A record is a few kilobytes; anything past this is refused unread."""
MAX_DEPTH = 64
"""A record nests three levels; deeper input is refused, never parsed recursively."""
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_OPENERS = re.compile(r"[\[\]{}]")


class RunnerParseError(ValueError):
    """The input is not one strict JSON value (exit code 2)."""


@dataclass
class Verification:
    """The outcome for one record: its violations, and its hash when it has none."""

    violations: list[Violation] = field(default_factory=list)
    runner_hash: str | None = None

    @property
    def ok(self) -> bool:
        return not self.violations

    def output(self) -> dict[str, Any]:
        """The spec's result object."""
        if self.ok:
            return {"ok": True, "runner_hash": self.runner_hash}
        return {"ok": False, "violations": [v.as_dict() for v in self.violations]}


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise RunnerParseError(f"duplicate key {key!r} in one object (I-JSON forbids it)")
        seen[key] = value
    return seen


def _no_constant(name: str) -> Any:
    raise RunnerParseError(f"{name} is not JSON")


def parse(raw: bytes) -> Any:
    """The JSON value in ``raw``; :class:`RunnerParseError` saying why there is none."""
    _check_size(raw)
    try:  # fast: a canonical record can hold no duplicate key, NaN or oversized number
        value = orjson.loads(raw)
        if is_canonical_form(canonical(value), raw):
            return value
    except (orjson.JSONDecodeError, CanonicalError, RecursionError):
        pass
    return _strict(raw)


def _strict(raw: bytes) -> Any:
    """:func:`parse` the slow, exact way (every number kept, duplicate keys refused)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RunnerParseError(f"not valid UTF-8 (byte {exc.start})") from None
    if not text.strip():
        raise RunnerParseError("empty input; a runner record is a JSON object")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise RunnerParseError(f"not valid JSON: {exc.msg} at line {exc.lineno} column "
                               f"{exc.colno}") from None


def _check_size(raw: bytes) -> None:
    """Refuse input too big or nested too deeply to be a record, before parsing it."""
    if len(raw) > MAX_BYTES:
        raise RunnerParseError(f"{len(raw)} bytes; a runner record is at most {MAX_BYTES}")
    # Fewer openers than the limit cannot nest past it (the usual case, counted in C).
    if (raw.count(b"[") + raw.count(b"{") > MAX_DEPTH
            and _depth(raw.decode("utf-8", "replace")) > MAX_DEPTH):
        raise RunnerParseError(f"nested too deeply (more than {MAX_DEPTH} levels)")


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (strings skipped)."""
    depth = deepest = 0
    # Brackets inside strings do not count: drop string contents first (escapes included).
    for token in _OPENERS.findall(_STRINGS.sub('""', text)):
        depth += 1 if token in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def is_canonical_form(form: bytes, raw: bytes) -> bool:
    """Whether ``raw`` is the canonical ``form``, alone or with exactly one ``\n``."""
    return raw == form or (len(raw) == len(form) + 1 and raw.endswith(NEWLINE)
                           and raw.startswith(form))


def verify(value: Any, raw: bytes | None = None) -> Verification:
    """Every violation of RN1-RN12 in ``value``; ``raw`` (the bytes it was parsed from)
    lets RN12 check that the record was serialized canonically."""
    if not isinstance(value, dict):
        return Verification([Violation("RN1", f"a runner record is a JSON object, not "
                                              f"{kind_of(value)}", "$")])
    found = check_rules(value)
    try:
        form, core_form = canonical_record(value)
    except RecursionError:
        found.append(Violation("RN12", "nested too deeply to serialize", "$"))
    except CanonicalError as exc:
        found.append(Violation("RN12", f"has no canonical form: {exc} (RFC 8785 numbers are "
                               "IEEE doubles; integers beyond 2^53 cannot round-trip)", "$"))
    else:
        if raw is not None and not is_canonical_form(form, raw):
            found.append(Violation("RN12", "not serialized canonically (RFC 8785, then at "
                                   "most one \\n): parsing and serializing it again "
                                   "changes its bytes", "$"))
    if found:
        return Verification(found)
    return Verification([], hash_of(core_form))


def _rule_number(rule_id: str) -> int:
    return int(rule_id[2:]) if rule_id[2:].isdigit() else 0


def check(raw: bytes) -> tuple[Any, Verification]:
    """Parse ``raw`` and verify it: the value and its verification; :class:`RunnerParseError`
    when ``raw`` is not strict JSON. A record that plainly keeps every rule is accepted in
    one strict parse (:func:`desktop.store.runner_fast.accept`); any other canonical record
    is parsed once by orjson and checked rule by rule."""
    _check_size(raw)
    accepted = accept(raw)
    if accepted is not None:
        record, core_form = accepted
        return record, Verification([], hash_of(core_form))
    try:
        value = orjson.loads(raw)
        result = verify(value, raw)
    except (orjson.JSONDecodeError, RecursionError):  # the strict parser says why
        pass
    else:
        # raw is its canonical form: no duplicate key, no number orjson might have bent
        if not any(v.rule_id == "RN12" for v in result.violations):
            return value, result
    value = _strict(raw)
    return value, verify(value, raw)


def verify_all(items: list[tuple[Any, Verification]]) -> list[Verification]:
    """The verifications of ``(value, verification)`` pairs, plus RN2's uniqueness of
    runner_id across them."""
    results = [result for _, result in items]
    seen: dict[str, int] = {}
    for i, (value, _) in enumerate(items):
        rid = value.get("runner_id") if isinstance(value, dict) else None
        if not isinstance(rid, str):
            continue
        if rid in seen:
            found = [*results[i].violations, Violation(
                "RN2", f"runner_id {rid!r} is also the id of record {seen[rid] + 1}; it must "
                "be unique per execution", "$.runner_id")]
            results[i] = Verification(sorted(found, key=lambda v: _rule_number(v.rule_id)))
        seen.setdefault(rid, i)
    return results
