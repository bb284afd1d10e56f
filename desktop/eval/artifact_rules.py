"""The rules a case file must meet to count as its case, shared by ``check artifacts``
(:mod:`desktop.eval.conformance`) and ``eval evaluate`` (:mod:`desktop.eval.reader`).

A case file counts when it names its schema, validates against the v1 models (its
shape: ``events`` a list, ``final_output.content`` text or an object, ...), is named
after its ``case_id`` and has its side's ``version``. ``check artifacts`` reports a file
that breaks a rule; the evaluator leaves it out, so a misnamed or misplaced file never
stands in for the case it claims to be.

Each broken rule is a :class:`RuleProblem`: the field, what is wrong and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from desktop.contract.artifacts import CASE_SCHEMA, KNOWN_EVENT_TYPES, CaseArtifact

CASES: TypeAdapter[Any] = TypeAdapter(CaseArtifact)
_CASE_TAGS = frozenset({"ok", "runner_error"})
_EVENT_TAGS = frozenset({*KNOWN_EVENT_TYPES, "other"})
_FIX = {  # "missing" says its own fix: "missing — it is required"
    "list_type": "make it a list",
    "string_type": "make it a string",
    "dict_type": "make it an object",
    "model_type": "make it an object",
    "int_type": "make it a number",
    "float_type": "make it a number",
    "bool_type": "make it true or false",
}
CONTRACT_FIX = "write it as specs/agent-artifact-contract-v1.md says"


@dataclass(frozen=True)
class RuleProblem:
    """One broken rule of one file: ``field: message — fix``."""

    field: str
    message: str
    fix: str = ""

    def __str__(self) -> str:
        head = f"{self.field}: " if self.field else ""
        return f"{head}{self.message}" + (f" — {self.fix}" if self.fix else "")


def case_rules(name: str, data: Any, version: str | None, version_from: str = ""
               ) -> tuple[Any | None, list[RuleProblem]]:
    """The case model of a case file's JSON ``data`` and the rules it breaks.

    ``name`` is the file's name (``<caseId>.json``); ``version`` the one its side
    expects (None: not known), ``version_from`` says why ("it is in new/"). The model
    is None when the file's shape is wrong."""
    if not isinstance(data, dict):
        return None, [RuleProblem("", "the file is not a JSON object",
                                  "a case file is one object: {\"schema_version\": "
                                  f"\"{CASE_SCHEMA}\", ...}}")]
    problems = []
    if "schema_version" not in data:
        problems.append(RuleProblem("schema_version", "missing — every JSON file names its "
                                    "schema", f"add \"schema_version\": \"{CASE_SCHEMA}\""))
    try:
        case = CASES.validate_python(data)
    except ValidationError as exc:
        return None, problems + validation_problems(exc, data)
    stem = name.removesuffix(".json")
    if stem != case.case_id:
        problems.append(RuleProblem("case_id", f"{case.case_id!r} does not match the file "
                                    "name", f"name the file {case.case_id}.json, or set "
                                    f"case_id to {stem!r}"))
    if version is not None and case.version != version:
        problems.append(RuleProblem("version", f"{case.version!r} but {version_from}",
                                    f"move the file into a {case.version}/ version "
                                    f"directory, or set version to {version!r}"))
    return (None if problems else case), problems


def validation_problems(exc: ValidationError, data: Any) -> list[RuleProblem]:
    """A contract model's validation errors, one per field, named by the file's own field
    path (the models' union tags taken out)."""
    found: dict[str, list[tuple[str, str]]] = {}
    for err in exc.errors():
        field, message = _problem(err, field_path(err["loc"]), data)
        found.setdefault(field, []).append((message, _FIX.get(err["type"], "")))
    problems = []
    for field, entries in found.items():
        messages = list(dict.fromkeys(m for m, _ in entries))
        # A union (text or an object) fails once per member: one line says both.
        if len(messages) > 1 and all(m.startswith("Input should be ") for m in messages):
            messages = ["Input should be " + " or ".join(
                m.removeprefix("Input should be ") for m in messages)]
        fixes = [f for _, f in entries if f]
        problems.append(RuleProblem(field, "; ".join(messages),
                                    fixes[0] if len(fixes) == len(entries) == 1 else ""))
    return problems


def field_path(loc: tuple[Any, ...]) -> str:
    """``events.0.call_id`` from pydantic's location, without the tags of the case and
    event unions and the member names of plain unions (``str``, ``dict[str,any]``)."""
    parts = list(loc)
    if parts and parts[0] in _CASE_TAGS:
        parts = parts[1:]
    kept: list[str] = []
    for i, part in enumerate(parts):
        after_event = i >= 2 and parts[i - 2] == "events" and isinstance(parts[i - 1], int)
        if after_event and part in _EVENT_TAGS:
            continue
        if isinstance(part, str) and _is_member(part):
            continue
        kept.append(str(part))
    return ".".join(kept)


def _is_member(part: str) -> bool:
    return part.startswith("function-") or "[" in part or \
        part in ("str", "int", "float", "bool", "none", "dict", "list")


def _problem(err: Any, loc: str, data: Any) -> tuple[str, str]:
    """``(field, message)`` for one validation error; a field that is absent is "missing"."""
    if err["type"] == "missing":
        return loc, "missing — it is required"
    if err["type"] == "status" and isinstance(data, dict) and "status" not in data:
        return "status", "missing — a case file says 'ok' or 'runner_error'"
    return loc, err["msg"].removeprefix("Value error, ")
