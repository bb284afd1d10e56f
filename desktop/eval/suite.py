"""Evaluation suites (``*.suite.yaml``): cases with a task, a workspace and checks.

A suite is read like a workflow: safe YAML, and every problem reported at once
as ``file:line: field: message — fix``. Example::

    name: String utilities
    cases:
      - id: slugify
        task: Add slugify(text) to text_utils.py.
        workspace: cases/slugify        # relative to the suite; copied fresh per run
        timeoutSec: 120
        tags: [python]
        checks:
          - {type: command, run: python3 -m unittest -q}
          - {type: fileExists, path: text_utils.py}
          - {type: outputContains, text: slugify}
          - {type: toolNotCalled, tool: command, argsPattern: "rm -rf"}
          - {type: maxTurns, max: 3}
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
)

from desktop.graph.as_written import validate_as_written
from desktop.graph.errors import Problem, format_path
from desktop.graph.fields import from_validation_error, locate
from desktop.graph.sourcemap import SourceMap, map_lines
from desktop.store.safe_yaml import (
    MAX_YAML_BYTES,
    YamlError,
    as_yaml_error,
    compose_yaml,
    construct_yaml,
    read_yaml_text,
)

SUITE_SUFFIX = ".suite.yaml"
SUITE_VERSION = 1
CASE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
RESERVED_CASE_IDS = frozenset({"run", "evaluation", "comparison", "assets", "runs"})
"""Ids that would collide with the files and folders beside the case files."""
MOST_SECONDS = 365 * 24 * 3600.0
"""The longest time limit, a year, as ``--timeout-sec`` allows: a longer one only
overflows where it is stored (the milliseconds of the evaluation's records)."""
MOST_COUNT = 2**53
"""The largest whole number a JSON record holds exactly (and every JSON reader takes)."""


class SuiteLoadError(Exception):
    """A suite that cannot be used; ``problems`` says every reason."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems) or "suite could not be loaded")


def _regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    return value


def _inside(value: str) -> str:
    path = Path(value)
    if path.is_absolute() or ".." in path.parts or value.startswith("~"):
        raise ValueError(f"{value!r} must be a path inside the case's workspace")
    return value


Regex = Annotated[str, Field(min_length=1), AfterValidator(_regex)]
InsidePath = Annotated[str, Field(min_length=1), AfterValidator(_inside)]
# Every number is bounded: ``inf`` would be stored as null (a check then unknown to the
# evaluator) and a huge one fails the run after its cases ran, where it is written.
Seconds = Annotated[float, Field(gt=0, le=MOST_SECONDS, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=1, le=MOST_COUNT)]
Dollars = Annotated[float, Field(ge=0, le=MOST_COUNT, allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class _Check(_Strict):
    name: str | None = Field(None, description="Shown in reports instead of the check's type.")


class CommandCheck(_Check):
    """Runs in the case's final workspace; passes on exit code 0. Its output is kept."""

    type: Literal["command"] = "command"
    run: str = Field(min_length=1)
    timeout_sec: Seconds = Field(120.0, alias="timeoutSec")


class FileExistsCheck(_Check):
    type: Literal["fileExists"] = "fileExists"
    path: InsidePath


class OutputContainsCheck(_Check):
    """The final output contains ``text``."""

    type: Literal["outputContains"] = "outputContains"
    text: str = Field(min_length=1)
    ignore_case: bool = Field(False, alias="ignoreCase")


class OutputMatchesCheck(_Check):
    """The final output matches the regular expression ``pattern`` (re.search)."""

    type: Literal["outputMatches"] = "outputMatches"
    pattern: Regex


class ToolCalledCheck(_Check):
    """At least ``min`` calls of ``tool`` whose JSON arguments match ``argsPattern``."""

    type: Literal["toolCalled"] = "toolCalled"
    tool: str = Field(min_length=1)
    args_pattern: Regex | None = Field(None, alias="argsPattern")
    min: Count = 1


class ToolNotCalledCheck(_Check):
    """No call of ``tool`` (whose JSON arguments match ``argsPattern``, when given)."""

    type: Literal["toolNotCalled"] = "toolNotCalled"
    tool: str = Field(min_length=1)
    args_pattern: Regex | None = Field(None, alias="argsPattern")


class MaxTurnsCheck(_Check):
    """The case's run took at most ``max`` turns (all nodes together)."""

    type: Literal["maxTurns"] = "maxTurns"
    max: Count


class MaxCostUsdCheck(_Check):
    """The agents reported at most ``max`` US dollars of model cost."""

    type: Literal["maxCostUsd"] = "maxCostUsd"
    max: Dollars


CHECK_MODELS: dict[str, type[_Check]] = {
    m.model_fields["type"].default: m
    for m in (CommandCheck, FileExistsCheck, OutputContainsCheck, OutputMatchesCheck,
              ToolCalledCheck, ToolNotCalledCheck, MaxTurnsCheck, MaxCostUsdCheck)
}
CHECK_TYPES = tuple(CHECK_MODELS)
WORKSPACE_CHECKS = frozenset({"command", "fileExists"})
"""Checks that need the case's final workspace: the runner evaluates and records them."""

Check = Annotated[
    Annotated[CommandCheck, Tag("command")]
    | Annotated[FileExistsCheck, Tag("fileExists")]
    | Annotated[OutputContainsCheck, Tag("outputContains")]
    | Annotated[OutputMatchesCheck, Tag("outputMatches")]
    | Annotated[ToolCalledCheck, Tag("toolCalled")]
    | Annotated[ToolNotCalledCheck, Tag("toolNotCalled")]
    | Annotated[MaxTurnsCheck, Tag("maxTurns")]
    | Annotated[MaxCostUsdCheck, Tag("maxCostUsd")],
    Discriminator("type"),
]


def check_label(check: Any) -> str:
    """How a check is named in reports: its ``name``, else a short description."""
    if check.name:
        return check.name
    detail = {
        "command": lambda c: c.run, "fileExists": lambda c: c.path,
        "outputContains": lambda c: repr(c.text), "outputMatches": lambda c: f"/{c.pattern}/",
        "toolCalled": lambda c: c.tool + (f" /{c.args_pattern}/" if c.args_pattern else ""),
        "toolNotCalled": lambda c: c.tool + (f" /{c.args_pattern}/" if c.args_pattern else ""),
        "maxTurns": lambda c: f"≤ {c.max}", "maxCostUsd": lambda c: f"≤ ${c.max:g}",
    }[check.type](check)
    return f"{check.type} {detail}"


class Case(_Strict):
    id: str = Field(pattern=CASE_ID_PATTERN)
    task: str = Field(min_length=1)
    workspace: str | None = None
    checks: list[Check] = Field(default_factory=list)
    timeout_sec: Seconds | None = Field(None, alias="timeoutSec")
    tags: list[str] = Field(default_factory=list)


class Suite(_Strict):
    version: Count = SUITE_VERSION
    name: str = Field(min_length=1)
    description: str = ""
    timeout_sec: Seconds | None = Field(None, alias="timeoutSec",
                                        description="Default time limit of each case.")
    cases: list[Case] = Field(min_length=1)

    def case(self, case_id: str) -> Case:
        return next(c for c in self.cases if c.id == case_id)


# --- reading ---------------------------------------------------------------------------


def load_suite(path: str | os.PathLike[str]) -> Suite:
    """Read and check a suite file, its workspace folders included; SuiteLoadError lists
    every problem. Read through the one safe YAML loader (size, depth and alias limits)."""
    file = str(path)
    target = Path(path)
    if target.is_dir():
        raise SuiteLoadError([Problem("", "is a folder, not a suite file",
                                      f"give the path of a *{SUITE_SUFFIX} file", file=file)])
    try:
        text = read_yaml_text(target, MAX_YAML_BYTES)
    except FileNotFoundError:
        raise SuiteLoadError([Problem("", "file not found", "check the path and the spelling",
                                      file=file)]) from None
    except OSError as exc:
        raise SuiteLoadError([Problem("", f"cannot read file: {exc.strerror or exc}",
                                      "check permissions", file=file)]) from None
    except YamlError as exc:
        raise SuiteLoadError([_yaml_problem(exc, file)]) from None
    return parse_suite(text, file, base=target.parent)


def parse_suite(data: bytes | str, source: str = "<string>", base: Path | None = None) -> Suite:
    """A suite from YAML bytes or text; workspace folders are checked against ``base``."""
    raw, smap = _read_yaml(data, source)
    if raw is None:
        raise SuiteLoadError([Problem("", "the file is empty",
                                      "a suite needs `name:` and `cases:`", file=source)])
    if not isinstance(raw, dict):
        raise SuiteLoadError([Problem(
            "", f"a suite is a mapping of fields, not a {type(raw).__name__}",
            "start with `name: ...` and `cases: ...`", line=1, file=source)])
    problems: list[Problem] = []
    suite = None
    try:
        suite = validate_as_written(Suite, raw)
    except ValidationError as exc:
        problems += _validation_problems(exc)
    version = raw.get("version", SUITE_VERSION)
    if isinstance(version, int) and SUITE_VERSION < version <= MOST_COUNT:
        problems.append(Problem("version", f"this suite is format version {version}; this "
                                f"program reads version {SUITE_VERSION}",
                                "use a newer Agent Canvas"))
    problems += _cross_checks(raw.get("cases"), base)
    if problems or suite is None:
        located = locate(problems, smap, source)
        raise SuiteLoadError(sorted(located, key=lambda p: p.line or 0))
    return suite


def _yaml_problem(exc: yaml.YAMLError, source: str) -> Problem:
    exc = as_yaml_error(exc, source)
    return Problem("", exc.message, exc.hint.replace("this file is", "suite files are"),
                   line=exc.line, file=exc.file)


def _read_yaml(data: bytes | str, source: str) -> tuple[Any, SourceMap]:
    """Parsed YAML and its line map, through the safe loader (no tags, no duplicate keys,
    bounded size, depth and aliases)."""
    if isinstance(data, bytes):
        if len(data) > MAX_YAML_BYTES:
            raise SuiteLoadError([Problem("", f"the file is {len(data)} bytes; a suite may "
                                          f"have at most {MAX_YAML_BYTES}",
                                          "split it into smaller suites", file=source)])
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise SuiteLoadError([Problem("", f"not valid UTF-8 (byte {exc.start})",
                                          "save the file as UTF-8", line=line,
                                          file=source)]) from None
    try:
        root, loader = compose_yaml(data.removeprefix("\ufeff"), source, strict=False)
        smap, problems = map_lines(root, source)
        if problems:
            raise SuiteLoadError([Problem(p.location, p.message,
                                          p.hint.replace("workflow files", "suite files"),
                                          p.severity, p.line, p.file) for p in problems])
        return construct_yaml(root, loader), smap
    except YamlError as exc:
        raise SuiteLoadError([_yaml_problem(exc, source)]) from None


def _validation_problems(exc: ValidationError) -> list[Problem]:
    """Pydantic errors as problems; check-type tags are taken out of the field paths."""
    problems = []
    for err in exc.errors():
        loc = list(err["loc"])
        check_type = None
        # A discriminated union puts the chosen tag in the path: checks[0].command.run
        for i in range(len(loc) - 1):
            if loc[i] == "checks" and i + 2 < len(loc) and loc[i + 2] in CHECK_MODELS:
                check_type = loc.pop(i + 2)
                break
        kind = err["type"]
        where = format_path(tuple(loc))
        if kind in _RANGE_ERRORS:
            problems.append(_range_problem(where, loc[-1], check_type, err.get("input")))
        elif kind == "too_short" and loc == ["cases"]:
            problems.append(Problem(where, "a suite needs at least one case",
                                    "add one below `cases:`, such as `- {id: first, task: "
                                    "Add a README.}`"))
        elif kind == "union_tag_invalid":
            got = (err.get("ctx") or {}).get("tag")
            problems.append(Problem(where + ".type", f"unknown check type {got!r}",
                                    _close(str(got), CHECK_TYPES)))
        elif kind == "union_tag_not_found":
            problems.append(Problem(where, "a check needs a `type`",
                                    f"use one of: {', '.join(CHECK_TYPES)}"))
        elif kind == "extra_forbidden":
            problems.append(Problem(where, f"unknown field {loc[-1]!r}",
                                    _close(str(loc[-1]), _known_fields(exc, err["loc"]))))
        elif kind == "string_pattern_mismatch" and loc[-1] == "id":
            problems.append(Problem(where, f"case id {err.get('input')!r} is not a safe file "
                                    "name", "use a letter or digit, then letters, digits, "
                                    "'_', '.' or '-' (at most 64 characters)"))
        else:
            one = ValidationError.from_exception_data(exc.title, [_plain(err, loc)])
            for problem in from_validation_error(one):
                message = problem.message.removeprefix("Value error, ")
                problems.append(Problem(problem.location, message, problem.hint))
    return problems


_RANGE_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than",
                           "less_than_equal", "finite_number", "int_parsing_size"})


def _range_problem(where: str, field: Any, check_type: Any, got: Any) -> Problem:
    """A number out of its field's bounds, with the bounds in the fix."""
    shown = got if isinstance(got, str) else repr(got)  # YAML reads 1e308 as text
    shown = shown if len(shown) <= 30 else f"{shown[:27]}..."
    if field == "timeoutSec":
        return Problem(where, f"{shown} is not a time limit", "give a positive number of "
                       f"seconds up to {MOST_SECONDS:.0f} (a year), such as 300")
    if check_type == "maxCostUsd":
        return Problem(where, f"{shown} is not an amount of money",
                       f"give a number of US dollars from 0 to {MOST_COUNT}, such as 0.5")
    return Problem(where, f"{shown} is out of range",
                   f"give a whole number from 1 to {MOST_COUNT}")


def _plain(err: Any, loc: list[Any]) -> Any:
    data = {"type": err["type"], "loc": tuple(loc), "input": err.get("input")}
    if err.get("ctx"):
        data["ctx"] = err["ctx"]
    return data


def _known_fields(exc: ValidationError, loc: tuple) -> list[str]:
    if "checks" in loc:
        i = loc.index("checks")
        tag = loc[i + 2] if i + 2 < len(loc) else None
        model = CHECK_MODELS.get(str(tag))
        if model is not None:
            return [f.alias or n for n, f in model.model_fields.items()]
    model = Case if "cases" in loc else Suite
    return [f.alias or n for n, f in model.model_fields.items()]


def _close(word: str, known: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(known)}"


def _cross_checks(cases: Any, base: Path | None) -> list[Problem]:
    """Duplicate and reserved case ids, missing workspace folders (on the raw data, so they
    are found together with every other problem)."""
    if not isinstance(cases, list):
        return []
    problems = []
    seen: dict[str, int] = {}
    for i, case in enumerate(cases):
        if not isinstance(case, dict):
            continue
        case_id = case.get("id")
        if isinstance(case_id, str):
            if case_id in seen:
                problems.append(Problem(f"cases[{i}].id", f"duplicate case id {case_id!r} "
                                        f"(also cases[{seen[case_id]}])",
                                        "give every case a unique id"))
            seen.setdefault(case_id, i)
            if case_id.lower() in RESERVED_CASE_IDS or case_id.lower().endswith(".json"):
                problems.append(Problem(f"cases[{i}].id", f"case id {case_id!r} is reserved "
                                        "(it names a file beside the case files)",
                                        "choose another id"))
        workspace = case.get("workspace")
        if isinstance(workspace, str) and workspace:
            where = f"cases[{i}].workspace"
            if Path(workspace).is_absolute() or workspace.startswith("~"):
                problems.append(Problem(where, f"{workspace!r} is not relative to the suite",
                                        "give the folder relative to the suite file"))
            elif base is not None and not (base / workspace).is_dir():
                problems.append(Problem(where, f"workspace folder {workspace!r} not found "
                                        "next to the suite", "create it or fix the path"))
    return problems


def workspace_dir(suite_path: Path, case: Case) -> Path | None:
    """The folder a case's workspace is copied from."""
    return (suite_path.parent / case.workspace).resolve() if case.workspace else None
