"""The ``run-info.yaml`` record of one agent process run (specs/run-info-yaml.md).

Keys are snake_case as in the spec. Unknown keys are ignored so that files
written by a newer minor revision still load. The rules a file must satisfy
when it is created and when it is completed live in
:mod:`desktop.store.run_info`; this module only holds the shape and the id format.
"""

import os
import re
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, StrictInt

from desktop.contract.enums import Provider

RUN_INFO_VERSION = 1

# YYYYMMDD-HHMMSSMMMM-PID. The spec's own example has three sub-second digits
# (20260204-183042569-12345), so three or four are accepted; we write four.
RUN_ID_PATTERN = re.compile(r"^(\d{8})-(\d{6})(\d{3,4})-([1-9]\d*)$")

SUPPORTED_AGENTS: tuple[str, ...] = tuple(p.value for p in Provider)

REQUIRED_FIELDS: tuple[str, ...] = (
    "version", "run_id", "project_id", "task_id", "parent_run_id", "previous_run_id",
    "agent", "pid", "pgid", "start_time", "end_time", "exit_code",
    "cwd", "prompt_path", "output_path", "stdout_path", "stderr_path",
)
PATH_FIELDS: tuple[str, ...] = ("cwd", "prompt_path", "output_path", "stdout_path", "stderr_path")


class RunInfo(BaseModel):
    """Metadata of one agent process run; written at start, updated at the end."""

    # Defaults exist for convenience when building one in code; a file on disk
    # must still carry every required key (checked by the reader and the schema).
    model_config = ConfigDict(
        extra="ignore",
        title="RunInfo",
        json_schema_extra=lambda schema: schema.update(required=list(REQUIRED_FIELDS)),
    )

    version: StrictInt = RUN_INFO_VERSION
    run_id: str
    project_id: str
    task_id: str
    parent_run_id: str = ""
    previous_run_id: str = ""
    agent: str
    pid: StrictInt
    pgid: StrictInt
    start_time: str
    end_time: str = ""
    exit_code: StrictInt = -1
    cwd: str
    prompt_path: str
    output_path: str
    stdout_path: str
    stderr_path: str
    backend_provider: str | None = None
    backend_model: str | None = None
    backend_endpoint: str | None = None
    commandline: str | None = None

    @property
    def running(self) -> bool:
        """True until the completion update sets ``end_time``."""
        return self.end_time == ""

    def to_yaml_dict(self) -> dict:
        """Keys in spec order; optional fields left out when unset."""
        return self.model_dump(mode="json", exclude_none=True)


def new_agent_run_id(pid: int | None = None, now: datetime | None = None) -> str:
    """A run id ``YYYYMMDD-HHMMSSMMMM-PID`` (UTC; the last four time digits are 1/10 ms)."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    sub = moment.microsecond // 100
    return f"{moment:%Y%m%d-%H%M%S}{sub:04d}-{pid if pid is not None else os.getpid()}"


def run_id_problem(value: str) -> str | None:
    """Why ``value`` is not a valid run id, or None when it is."""
    match = RUN_ID_PATTERN.match(value)
    if not match:
        return f"{value!r} does not match YYYYMMDD-HHMMSSMMMM-PID"
    date, clock = match.group(1), match.group(2)
    try:
        datetime.strptime(date + clock, "%Y%m%d%H%M%S")
    except ValueError:
        return f"{value!r} has an impossible date or time"
    return None
