"""Reading, writing and validating ``run-info.yaml`` (specs/run-info-yaml.md).

Validation returns problems as ``"field: message"`` strings instead of raising,
so a checker can report all of them at once.

What is read is kept as written: an unquoted timestamp (``2026-02-04T18:30:42.123456789Z``)
is read as its text, never as a datetime (which would drop everything past microseconds),
so reading a file and writing it again loses nothing.
"""

import os
from datetime import UTC, date, datetime
from typing import Any

import yaml
from pydantic import ValidationError

from desktop.contract.run_info import (
    PATH_FIELDS,
    REQUIRED_FIELDS,
    RUN_INFO_VERSION,
    SUPPORTED_AGENTS,
    RunInfo,
    new_agent_run_id,
    run_id_problem,
)
from desktop.disk.atomic import atomic_write_text
from desktop.store.safe_yaml import YamlError, compose_yaml, construct_yaml, read_yaml_text

__all__ = [
    "RunInfo",
    "RunInfoError",
    "new_agent_run_id",
    "read_run_info",
    "validate_at_completion",
    "validate_at_creation",
    "write_run_info",
]

class RunInfoError(ValueError):
    """A run-info.yaml that cannot be read; the message names the file and the field."""

    def __init__(self, path: str | os.PathLike[str], message: str, field: str | None = None):
        self.path = str(path)
        self.field = field
        where = f"{self.path}: {field}: " if field else f"{self.path}: "
        super().__init__(where + message)


def write_run_info(path: str | os.PathLike[str], info: RunInfo) -> None:
    """Atomically write ``info`` as UTF-8 YAML (no BOM), keys in spec order."""
    text = yaml.safe_dump(
        info.to_yaml_dict(), sort_keys=False, allow_unicode=True, default_flow_style=False
    )
    atomic_write_text(path, text)


_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_STR_TAG = "tag:yaml.org,2002:str"


def _load_keeping_text(text: str, source: str) -> Any:
    """YAML ``text`` as data, every implicitly typed timestamp kept as its exact text."""
    root, loader = compose_yaml(text.removeprefix("\ufeff"), source)
    todo: list[yaml.Node] = [root] if root is not None else []
    while todo:
        node = todo.pop()
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _TIMESTAMP_TAG:
                node.tag = _STR_TAG
        elif isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            todo.extend(part for pair in node.value for part in pair)
    return construct_yaml(root, loader)


def _plain(value: Any) -> Any:
    # Timestamp scalars are read as text (_load_keeping_text); should a datetime or date
    # reach here all the same, it gets the text form the spec uses.
    if isinstance(value, datetime):
        if value.tzinfo is not None and value.utcoffset().total_seconds() == 0:
            return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def read_run_info(path: str | os.PathLike[str]) -> RunInfo:
    """Load and parse a run-info.yaml; raise :class:`RunInfoError` on any problem.

    The version is checked before anything else; unknown keys are ignored.
    """
    try:
        text = read_yaml_text(path)
    except OSError as exc:
        raise RunInfoError(path, f"cannot read file ({exc.strerror or exc})") from exc
    except YamlError as exc:
        raise RunInfoError(path, exc.message[0].lower() + exc.message[1:]) from exc
    if text.startswith("\ufeff"):
        raise RunInfoError(path, "starts with a UTF-8 BOM; save it as UTF-8 without BOM")
    try:
        data = _load_keeping_text(text, str(path))
    except YamlError as exc:
        where = f" at line {exc.line}" if exc.line else ""
        raise RunInfoError(path, f"is not valid YAML{where}: {exc.message}"
                           + (f" — {exc.hint}" if exc.hint else "")) from exc
    if not isinstance(data, dict):
        raise RunInfoError(path, "must be a YAML mapping of run-info fields")
    _check_version(path, data)
    missing = [name for name in REQUIRED_FIELDS if name not in data]
    if missing:
        raise RunInfoError(path, "required field is missing; add it", field=missing[0])
    try:
        return RunInfo.model_validate({key: _plain(value) for key, value in data.items()})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        raise RunInfoError(path, first["msg"], field=field) from exc


def _check_version(path: str | os.PathLike[str], data: dict) -> None:
    if "version" not in data:
        raise RunInfoError(path, f"missing; add 'version: {RUN_INFO_VERSION}'", field="version")
    version = data["version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise RunInfoError(path, f"must be an integer, got {version!r}", field="version")
    if version != RUN_INFO_VERSION:
        raise RunInfoError(
            path,
            f"unsupported version {version}; this reader supports version {RUN_INFO_VERSION}",
            field="version",
        )


def _parse_utc(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    if parsed.utcoffset() is None:
        return None
    return parsed


def _time_problem(field: str, value: str) -> str | None:
    parsed = _parse_utc(value)
    if parsed is None:
        return f"{field}: {value!r} is not an ISO-8601 timestamp with a time zone"
    if parsed.utcoffset().total_seconds() != 0:
        return f"{field}: {value!r} is not UTC (end it with Z)"
    return None


def _common_problems(info: RunInfo) -> list[str]:
    problems: list[str] = []
    if info.version != RUN_INFO_VERSION:
        problems.append(f"version: must be {RUN_INFO_VERSION}, got {info.version}")
    if why := run_id_problem(info.run_id):
        problems.append(f"run_id: {why}")
    for field in ("parent_run_id", "previous_run_id"):
        value = getattr(info, field)
        if value and (why := run_id_problem(value)):
            problems.append(f"{field}: {why} (use \"\" when there is none)")
    for field in ("project_id", "task_id"):
        if not getattr(info, field).strip():
            problems.append(f"{field}: must not be empty")
    if not info.agent.strip():
        problems.append("agent: must not be empty")
    elif info.agent not in SUPPORTED_AGENTS:
        problems.append(
            f"agent: {info.agent!r} is not supported; use one of {', '.join(SUPPORTED_AGENTS)}"
        )
    for field in ("pid", "pgid"):
        if getattr(info, field) <= 0:
            problems.append(f"{field}: must be > 0, got {getattr(info, field)}")
    if why := _time_problem("start_time", info.start_time):
        problems.append(why)
    for field in PATH_FIELDS:
        value = getattr(info, field)
        if not value:
            problems.append(f"{field}: must not be empty")
        elif not os.path.isabs(value):
            problems.append(f"{field}: {value!r} is not an absolute path")
    return problems


def validate_at_creation(info: RunInfo, check_paths: bool = True) -> list[str]:
    """Problems with a freshly written run-info (empty list when valid).

    ``check_paths`` also requires cwd, prompt, stdout and stderr to exist.
    """
    problems = _common_problems(info)
    if info.end_time != "":
        problems.append(f"end_time: must be \"\" while running, got {info.end_time!r}")
    if info.exit_code != -1:
        problems.append(f"exit_code: must be -1 while running, got {info.exit_code}")
    if check_paths:
        for field in ("cwd", "prompt_path", "stdout_path", "stderr_path"):
            value = getattr(info, field)
            if value and os.path.isabs(value) and not os.path.exists(value):
                problems.append(f"{field}: {value!r} does not exist")
    return problems


def validate_at_completion(info: RunInfo) -> list[str]:
    """Problems with a run-info after the completion update (empty list when valid)."""
    problems = _common_problems(info)
    end = _parse_utc(info.end_time)
    if why := _time_problem("end_time", info.end_time):
        problems.append(why)
    else:
        start = _parse_utc(info.start_time)
        if start is not None and end is not None and end < start:
            problems.append(
                f"end_time: {info.end_time!r} is before start_time {info.start_time!r}"
            )
    return problems
