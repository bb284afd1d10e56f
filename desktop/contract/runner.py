"""The runner record of one agent process run: ``agents/<agentRunId>/runner.json``.

The shape of specs/runner-spec.md (version 1.0.0): how the agent ran — platform,
sandbox, limits, command policy, write roots, visible environment names, timing and
exit. Keys are snake_case as in the spec. The rules RN1-RN12 a record must keep are
checked by :mod:`desktop.store.runner_verify`, which reports every violation with its
rule id; these models give the shape, its JSON Schema, and build records in code.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

RUNNER_SCHEMA_VERSION = "1.0.0"
RUNNER_ID_PATTERN = r"^runner_\d{8}_\d{6}_[a-z0-9]+$"
OSES = ("linux", "darwin", "win32")
ARCHES = ("x64", "arm64", "ia32")
BACKENDS = ("process", "container", "vm", "none")
ISOLATION_LEVELS = ("strict", "standard", "none")
FORBIDDEN_ENV_PREFIXES = ("SSH_", "NPM_", "GIT_", "AWS_", "OPENAI_", "ANTHROPIC_")
TIMEOUT_MS = (1000, 600_000)
OUTPUT_FILES = (1, 10_000)
OUTPUT_BYTES = (1024, 1_073_741_824)
CORE_EXCLUDED = ("timing", "ephemeral")
"""Top-level fields left out of the core hash (RN11)."""

Number = float
"""The spec's ``number`` (a JSON number, an IEEE double); an integer is one too."""


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RunnerPlatform(_Part):
    os: Literal["linux", "darwin", "win32"]
    arch: Literal["x64", "arm64", "ia32"]
    node_version: str = Field(pattern=r"^v\d+\.\d+\.\d+")
    npm_version: str = Field(pattern=r"^\d+\.\d+\.\d+")


class RunnerSandbox(_Part):
    backend: Literal["process", "container", "vm", "none"]
    isolation_level: Literal["strict", "standard", "none"]
    network_blocked: StrictBool
    filesystem_readonly: StrictBool


class RunnerLimits(_Part):
    timeout_ms: Number = Field(ge=TIMEOUT_MS[0], le=TIMEOUT_MS[1])
    max_output_files: Number = Field(ge=OUTPUT_FILES[0], le=OUTPUT_FILES[1])
    max_total_output_bytes: Number = Field(ge=OUTPUT_BYTES[0], le=OUTPUT_BYTES[1])
    max_memory_bytes: Number | None = Field(None, gt=0)
    max_cpu_seconds: Number | None = Field(None, gt=0)


class RunnerCommands(_Part):
    allowlist: list[str] = Field(description="Sorted; empty means every command is allowed.")
    blocklist: list[str] = Field(description="Sorted; explicit blocks.")
    shell: str = Field(min_length=1)


class RunnerContext(_Part):
    working_dir: Literal["."] = "."
    env_allowlist: list[str] = Field(description="Sorted names (never values) the agent saw.")
    locale: str
    timezone: str


class ExecutionPhase(_Part):
    name: str
    started_at: str
    duration_ms: Number


class RunnerTiming(_Part):
    started_at: str = Field(description="ISO 8601 UTC")
    completed_at: str = Field(description="ISO 8601 UTC")
    duration_ms: Number
    phases: list[ExecutionPhase] | None = None


class RunnerExit(_Part):
    code: StrictInt = Field(ge=0, le=255)
    signal: str | None = Field(None, pattern=r"^[A-Z][A-Z0-9+]*$")
    oom_killed: StrictBool
    timeout_killed: StrictBool


class RunnerEphemeral(_Part):
    host_id: str | None = None
    session_id: str | None = None
    human_notes: str | None = None


class Runner(_Part):
    """One runner record; ``timing`` and ``ephemeral`` are outside its core hash."""

    model_config = ConfigDict(extra="forbid", title="Runner")

    runner_schema_version: Literal["1.0.0"] = RUNNER_SCHEMA_VERSION
    runner_id: str = Field(pattern=RUNNER_ID_PATTERN)
    runner_version: str = Field(min_length=1)
    platform: RunnerPlatform
    sandbox: RunnerSandbox
    limits: RunnerLimits
    commands: RunnerCommands
    write_roots: list[str] = Field(description="Sorted, relative, no '..'.")
    context: RunnerContext
    timing: RunnerTiming
    exit: RunnerExit
    warnings: list[str] | None = Field(None, description="Sorted.")
    ephemeral: RunnerEphemeral | None = None

    def record(self) -> dict:
        """The JSON form: optional fields left out when unset."""
        return self.model_dump(mode="json", exclude_none=True)
