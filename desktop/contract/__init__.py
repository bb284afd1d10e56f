"""Pydantic models of every shape that is stored or sent (no I/O here).

The names below are imported on first use: a reader of the enums alone (the workflow
checks, ``agent-canvas validate``) does not build every event and state model.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOME = {
    **dict.fromkeys(("ApprovalStatus", "ArtifactKind", "CliPermissionsMode", "EdgeType",
                     "GlobalMode", "Mode", "NodeStatus", "Provider", "RunStatus"), "enums"),
    **dict.fromkeys(("Envelope", "EnvelopePayload"), "envelope"),
    **dict.fromkeys(("Event", "GenericEvent", "parse_event"), "events"),
    **dict.fromkeys(("Artifact", "Capabilities", "EdgeState", "NodeConfig", "NodeState",
                     "Permissions", "RunState", "Session"), "state"),
}
"""Public name -> the submodule defining it."""

__all__ = [
    "ApprovalStatus", "Artifact", "ArtifactKind", "Capabilities", "CliPermissionsMode",
    "EdgeState", "EdgeType", "Envelope", "EnvelopePayload", "Event", "GenericEvent",
    "GlobalMode", "Mode", "NodeConfig", "NodeState", "NodeStatus", "Permissions", "Provider",
    "RunState", "RunStatus", "Session", "parse_event",
]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
