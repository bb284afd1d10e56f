"""Enumerations fixed by specs/shared-contract.md (plus the providers we ship)."""

from enum import StrEnum


class RunStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    PAUSED = "paused"
    STOPPED = "stopped"
    COMPLETED = "completed"
    FAILED = "failed"


RUN_ENDED = frozenset({RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.STOPPED})
"""The statuses a run ends in (plain strings match too): the one rule of the engine, the
service, the clients and every view."""
RUN_LIVE = frozenset(RunStatus) - RUN_ENDED
"""The statuses of a run that has not ended (queued, running, paused)."""
RUN_WORKING = RUN_LIVE - {RunStatus.PAUSED}
"""The statuses of a run whose agents may still change its result (queued, running)."""
INTERRUPTED = "interrupted"
"""The status a user sees of a run that looks live while no engine holds it."""


def shown_status(status: str, interrupted: bool) -> str:
    """The status word a user sees: :data:`INTERRUPTED` for a live-looking run that no
    engine holds, else ``status``."""
    return INTERRUPTED if interrupted and status in RUN_LIVE else str(status)


class Mode(StrEnum):
    AUTO = "AUTO"
    INTERACTIVE = "INTERACTIVE"


class GlobalMode(StrEnum):
    PLANNING = "PLANNING"
    IMPLEMENTATION = "IMPLEMENTATION"


class NodeStatus(StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    BLOCKED = "blocked"
    FAILED = "failed"


class EdgeType(StrEnum):
    HANDOFF = "handoff"
    REPORT = "report"


class Provider(StrEnum):
    """Agent families. `custom` is the spec's name for an arbitrary command."""

    SCRIPTED = "scripted"
    COMMAND = "command"
    CUSTOM = "custom"
    CLAUDE = "claude"
    CODEX = "codex"
    GEMINI = "gemini"
    ACP = "acp"
    PERPLEXITY = "perplexity"
    XAI = "xai"


class CliPermissionsMode(StrEnum):
    SKIP = "skip"
    GATED = "gated"


class ArtifactKind(StrEnum):
    DIFF = "diff"
    PROMPT = "prompt"
    LOG = "log"
    TRANSCRIPT = "transcript"
    CONTEXTPACK = "contextpack"
    REPORT = "report"


class ApprovalKind(StrEnum):
    """What an approval asks: a gated tool call, a merge that conflicts, or which attempt
    of a best-of-N turn goes on."""

    TOOL = "tool"
    MERGE = "merge"
    CHOICE = "choice"


class ApprovalStatus(StrEnum):
    APPROVED = "approved"
    DENIED = "denied"
    MODIFIED = "modified"


class EdgeManagement(StrEnum):
    NONE = "none"
    REQUEST = "request"
    FULL = "full"


class TurnStatus(StrEnum):
    """Phases of one node turn, carried by `turn.status` events."""

    PENDING = "pending"
    STARTED = "started"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"


TURN_ENDED = frozenset({TurnStatus.COMPLETED, TurnStatus.FAILED, TurnStatus.CANCELLED,
                        TurnStatus.INTERRUPTED})
"""The statuses a turn ends in (plain strings match too)."""
TURN_CUT_SHORT = frozenset({TurnStatus.CANCELLED, TurnStatus.INTERRUPTED})
"""The statuses of a turn that ended before its agent finished: its inbox is given back,
and the next turn restarts from its agent run."""


class BusType(StrEnum):
    """Message-bus entry kinds: agent posts plus the runner's lifecycle events."""

    PROGRESS = "PROGRESS"
    FACT = "FACT"
    ERROR = "ERROR"
    DECISION = "DECISION"
    QUESTION = "QUESTION"
    RUN_START = "RUN_START"
    RUN_STOP = "RUN_STOP"
    RUN_CRASH = "RUN_CRASH"
