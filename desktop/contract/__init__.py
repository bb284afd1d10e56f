"""Pydantic models of every shape that is stored or sent (no I/O here)."""

from desktop.contract.enums import (
    ApprovalStatus,
    ArtifactKind,
    CliPermissionsMode,
    EdgeType,
    GlobalMode,
    Mode,
    NodeStatus,
    Provider,
    RunStatus,
)
from desktop.contract.envelope import Envelope, EnvelopePayload
from desktop.contract.events import Event, GenericEvent, parse_event
from desktop.contract.state import (
    Artifact,
    Capabilities,
    EdgeState,
    NodeConfig,
    NodeState,
    Permissions,
    RunState,
    Session,
)

__all__ = [
    "ApprovalStatus",
    "Artifact",
    "ArtifactKind",
    "Capabilities",
    "CliPermissionsMode",
    "EdgeState",
    "EdgeType",
    "Envelope",
    "EnvelopePayload",
    "Event",
    "GenericEvent",
    "GlobalMode",
    "Mode",
    "NodeConfig",
    "NodeState",
    "NodeStatus",
    "Permissions",
    "Provider",
    "RunState",
    "RunStatus",
    "Session",
    "parse_event",
]
