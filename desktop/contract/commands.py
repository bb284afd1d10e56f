"""The commands of a live run: one frozen dataclass each, the one definition of them all.

The engine carries them out (desktop/runtime/control.py: ``execute``, which re-exports
them), the terminal console parses lines into them (desktop/cli/run_console.py), the
service's request bodies are derived from them (desktop/contract/api.py through
:func:`~desktop.contract.wire.body_model`), and the API client sends them
(``ApiClient.send``, through :func:`~desktop.contract.wire.request_of`). Each field's
annotation says where it travels over HTTP (:mod:`desktop.contract.wire`): in the body
under its camelCase name with the checks the service applies, in the URL, or nowhere.
The engine-side types stay loose (a status is a string) because ``execute`` checks
them and names the problem for every caller; the wire narrows them where the service
can refuse earlier (an enum in the JSON schema).

They live in the contract layer, below the runtime, so every layer can use the one
definition without importing the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import Field, StrictBool

from desktop.contract.enums import ApprovalStatus, EdgeType
from desktop.contract.merge import Side
from desktop.contract.state import BUDGET_MAX
from desktop.contract.wire import (
    Body,
    Endpoint,
    GlobalModeIn,
    InPath,
    Internal,
    ModeIn,
    RequestModel,
)

USER = "user"
"""Who made a change that came through a command (``by`` of resolutions)."""

RUN = "/api/runs/{run_id}"
MAX_TEXT = 200_000
"""Longest message or inbox text the service takes (characters)."""

RunStatusIn = Literal["paused", "running", "stopped"]
"""The statuses ``PATCH /api/runs/{run_id}`` sets: :class:`Pause`, :class:`Resume`,
:class:`Stop`."""


@dataclass(frozen=True)
class Pause:
    endpoint: ClassVar[Endpoint] = Endpoint("PATCH", RUN, {"status": "paused"})

    reason: Annotated[str, Internal("the service pauses with the default reason")] = \
        "paused by the user"


@dataclass(frozen=True)
class Resume:
    endpoint: ClassVar[Endpoint] = Endpoint("PATCH", RUN, {"status": "running"})

    reason: Annotated[str, Internal("the service resumes with the default reason")] = \
        "resumed by the user"


@dataclass(frozen=True)
class Stop:
    endpoint: ClassVar[Endpoint] = Endpoint("PATCH", RUN, {"status": "stopped"})

    reason: Annotated[str, Internal("the service stops with the default reason")] = \
        "stopped by the user"


@dataclass(frozen=True)
class Step:
    """INTERACTIVE: start the next pending turn, or ``node``'s."""

    endpoint: ClassVar[Endpoint] = Endpoint("POST", RUN + "/step")

    node: Annotated[str | None, Body("nodeId", min_length=1)] = None


@dataclass(frozen=True)
class Chat:
    endpoint: ClassVar[Endpoint] = Endpoint("POST", RUN + "/chat")

    node: Annotated[str, Body("nodeId", min_length=1)]
    text: Annotated[str, Body("message", min_length=1, max_length=MAX_TEXT)]


@dataclass(frozen=True)
class SetMode:
    endpoint: ClassVar[Endpoint] = Endpoint("PATCH", RUN)

    mode: Annotated[str | None, Body(type=ModeIn | None)] = None
    global_mode: Annotated[str | None, Body("globalMode", type=GlobalModeIn | None)] = None


@dataclass(frozen=True)
class SetBudget:
    """Change the run's budget, or ``node``'s: each limit given replaces the old one (the
    others stay); ``resume`` then goes on after a ``run.budget_exceeded``."""

    endpoint: ClassVar[Endpoint] = Endpoint("PATCH", RUN + "/budget")

    node: Annotated[str | None, Body("nodeId", min_length=1,
                                     description="node id or key; none: the run's")] = None
    max_tokens: Annotated[int | None, Body("maxTokens", gt=0,
                                           le=BUDGET_MAX["maxTokens"])] = None
    max_cost_usd: Annotated[float | None, Body("maxCostUsd", gt=0,
                                               le=BUDGET_MAX["maxCostUsd"])] = None
    max_wall_sec: Annotated[float | None, Body("maxWallSec", gt=0,
                                               le=BUDGET_MAX["maxWallSec"])] = None

    def limits(self) -> dict[str, float]:
        """The limits given, by their camelCase names."""
        found = {"maxTokens": self.max_tokens, "maxCostUsd": self.max_cost_usd,
                 "maxWallSec": self.max_wall_sec}
        return {k: v for k, v in found.items() if v is not None}


class MergeChoiceIn(RequestModel):
    """A merge approval's resolution: a side per file, edited contents, or the agent."""

    files: dict[str, Side] = Field(default_factory=dict, max_length=10_000,
                                   description="path -> ours | theirs (taken whole)")
    contents: dict[str, str] = Field(default_factory=dict, max_length=10_000,
                                     description="path -> the resolved text")
    agent: StrictBool = Field(False, description="hand the files not resolved here to the "
                                                 "node's agent (it takes its turn in the "
                                                 "conflicted worktree)")


@dataclass(frozen=True)
class Resolve:
    """Decide a pending approval (``approval``: its id or a unique id prefix); a merge
    approval is approved with ``merge`` (desktop/contract/merge.py: MergeChoice)."""

    endpoint: ClassVar[Endpoint] = Endpoint("POST", "/api/approvals/{approval_id}/resolve")

    approval: Annotated[str, InPath("approval_id")]
    status: Annotated[str, Body(type=ApprovalStatus)]
    modified_args: Annotated[dict[str, Any] | None, Body("modifiedArgs")] = None
    reason: Annotated[str | None, Body(max_length=10_000)] = None
    # Who decided is the service's to record, not the client's to claim: a client-chosen
    # name could pass a person's decision off as the policy's or the engine's in the log.
    # The service records where the person decided, from a header it maps to people only
    # (desktop/contract/client_origin.py).
    by: Annotated[str, Internal("the service records who decided (client_origin.py)")] = USER
    merge: Annotated[dict[str, Any] | None,
                     Body(type=MergeChoiceIn | None,
                          description="a merge approval, approved: how")] = None
    choice: Annotated[int | None,
                      Body(type=int | None, ge=1,
                           description="a choice approval, approved: the index of the "
                                       "attempt that goes on")] = None


@dataclass(frozen=True)
class UpdateNodeConfig:
    """Change a node's config in-process; over HTTP the same change is a :class:`PatchNode`
    with ``config``."""

    endpoint: ClassVar[Endpoint | None] = None

    node: Annotated[str, Internal("in-process only")]
    patch: Annotated[dict[str, Any], Internal("in-process only")]


@dataclass(frozen=True)
class EditInbox:
    endpoint: ClassVar[Endpoint] = Endpoint("POST", RUN + "/inbox/{item_id}")

    node: Annotated[str, Body("nodeId", min_length=1)]
    item_id: Annotated[str, InPath("item_id")]
    text: Annotated[str, Body(max_length=MAX_TEXT)]
    structured: Annotated[dict[str, Any] | None, Body()] = None


@dataclass(frozen=True)
class AddNode:
    """A new node (what an agent's ``spawn_node`` adds); ``connect_from`` adds a handoff
    edge from that node to the new one."""

    endpoint: ClassVar[Endpoint] = Endpoint("POST", RUN + "/nodes")

    key: Annotated[str, Body(min_length=1, max_length=200,
                             description="a slug, unique in the run")]
    label: Annotated[str | None, Body(max_length=500)] = None
    role_template: Annotated[str | None, Body("roleTemplate", max_length=200)] = None
    provider: Annotated[str | None, Body()] = None
    config: Annotated[dict[str, Any], Body(description="NodeConfig fields")] = \
        field(default_factory=dict)
    capabilities: Annotated[dict[str, Any] | None, Body()] = None
    permissions: Annotated[dict[str, Any] | None, Body()] = None
    connect_from: Annotated[str | None, Body(
        "connectFrom", description="node id or key: adds a handoff edge from it")] = None


@dataclass(frozen=True)
class PatchNode:
    endpoint: ClassVar[Endpoint] = Endpoint("PATCH", RUN + "/nodes/{node_id}")

    node: Annotated[str, InPath("node_id")]
    label: Annotated[str | None, Body(min_length=1, max_length=500)] = None
    config: Annotated[dict[str, Any] | None,
                      Body(description="NodeConfig fields to change")] = None


@dataclass(frozen=True)
class DeleteNode:
    endpoint: ClassVar[Endpoint] = Endpoint("DELETE", RUN + "/nodes/{node_id}")

    node: Annotated[str, InPath("node_id")]


@dataclass(frozen=True)
class AddEdge:
    endpoint: ClassVar[Endpoint] = Endpoint("POST", RUN + "/edges")

    source: Annotated[str, Body("from", min_length=1, description="node id or key")]
    target: Annotated[str, Body("to", min_length=1, description="node id or key")]
    type: Annotated[str, Body(type=EdgeType)] = EdgeType.HANDOFF.value
    label: Annotated[str | None, Body(max_length=500)] = None
    bidirectional: Annotated[bool, Body(type=StrictBool)] = False


@dataclass(frozen=True)
class DeleteEdge:
    endpoint: ClassVar[Endpoint] = Endpoint("DELETE", RUN + "/edges/{edge_id}")

    edge_id: Annotated[str, InPath("edge_id")]


Command = (Pause | Resume | Stop | Step | Chat | SetMode | SetBudget | Resolve
           | UpdateNodeConfig | EditInbox | AddNode | PatchNode | DeleteNode | AddEdge
           | DeleteEdge)

COMMANDS: tuple[type, ...] = get_args(Command)
"""Every command class, in the order of :data:`Command`."""
