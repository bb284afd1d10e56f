"""The workflow document a user draws and saves as ``*.flow.yaml``.

Node ids in a document are short slugs (``planner``); a run gives each node a
UUID (see :func:`desktop.graph.document.node_uuid`) and keeps the slug as the
node's ``key``. Every edge has an id too (``planner-to-implementer``), given when
a file has none and saved with it, and a run's edge UUID derives from it
(:func:`edge_uuid`), so deleting one edge never changes another's. Unknown fields
are errors here, so a typo never goes unnoticed.
"""

import uuid
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from desktop.contract.enums import EdgeType, GlobalMode, Mode, Provider
from desktop.contract.executor import ExecutorSpec
from desktop.contract.isolation import Isolation, WorktreeSetup
from desktop.contract.state import Budget, Capabilities, NodeConfig, Permissions
from desktop.graph.decorations import NodeGroup, StickyNote, duplicate_ids

DOCUMENT_VERSION = 1
SLUG_PATTERN = r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$"
_NODE_NAMESPACE = uuid.UUID("6f1c1c3e-3a39-4c55-9d0c-5f7c2b4f3a10")


class _DocModel(BaseModel):
    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, use_enum_values=True, validate_assignment=True
    )


class Position(_DocModel):
    x: float = Field(0.0, allow_inf_nan=False)
    y: float = Field(0.0, allow_inf_nan=False)


class WorkflowNode(_DocModel):
    id: str = Field(pattern=SLUG_PATTERN)
    label: str = ""
    role_template: str = Field("implementer", alias="roleTemplate")
    provider: Provider = Provider.SCRIPTED
    capabilities: Capabilities | None = None
    permissions: Permissions | None = None
    position: Position | None = None
    entry: bool = False
    kind: Literal["agent", "subflow"] = Field(
        "agent", description="agent: one agent takes the node's turns; subflow: another "
                             "workflow file (`flow`) runs as the node's one step.")
    flow: str | None = Field(
        None, description="The subflow's *.flow.yaml, relative to this workflow's file.")

    @field_validator("label")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @model_validator(mode="after")
    def _flow_matches_kind(self) -> "WorkflowNode":
        if self.kind == "subflow" and not self.flow:
            raise ValueError("a subflow node needs `flow:`, the path of its *.flow.yaml")
        if self.kind == "agent" and self.flow:
            raise ValueError("`flow:` is for subflow nodes: add `kind: subflow` or remove it")
        return self


class WorkflowEdge(_DocModel):
    id: str | None = None
    from_: str = Field(alias="from")
    to: str
    type: EdgeType = EdgeType.HANDOFF
    label: str | None = None
    bidirectional: bool = False


class WorkflowDocument(_DocModel):
    version: int = DOCUMENT_VERSION
    name: str = "Untitled workflow"
    description: str = ""
    task: str = ""
    mode: Mode = Mode.AUTO
    global_mode: GlobalMode = Field(GlobalMode.IMPLEMENTATION, alias="globalMode")
    executor: ExecutorSpec = "local"
    workspace: str | None = Field(
        None, description="The folder a node without a workspace of its own works on "
                          "(relative to this file); unset: each such node works in the "
                          "run's scratch folder.")
    worktree_setup: WorktreeSetup | None = Field(
        None, alias="worktreeSetup",
        description="What each node's new worktree gets before its first turn (files the "
                    "repository ignores copied in, a command run), for every node without a "
                    "setup of its own.")
    isolation: Isolation | None = Field(
        None, description="worktree: each node in its own git worktree and branch; shared: "
                          "nodes work in their workspace itself. Unset: worktree for nodes "
                          "whose workspace is a git repository. A node may override it.")
    budget: Budget | None = Field(
        None, description="The run's limits on tokens, cost and wall time; reaching one "
                          "pauses the run. A node may have its own besides.")
    nodes: list[WorkflowNode] = Field(default_factory=list)
    node_configs: dict[str, NodeConfig] = Field(default_factory=dict, alias="nodeConfigs")
    edges: list[WorkflowEdge] = Field(default_factory=list)
    notes: list[StickyNote] = Field(default_factory=list, description="Sticky notes.")
    groups: list[NodeGroup] = Field(default_factory=list, description="Titled frames.")
    extra: dict[str, Any] = Field(default_factory=dict, description="Free-form user metadata.")
    # The file it was read from (desktop.graph.io): where its subflows' paths start.
    _source: str | None = PrivateAttr(None)

    def __eq__(self, other: object) -> bool:
        # Where a document was read from is no part of what it says.
        if not isinstance(other, WorkflowDocument):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable, as every model

    @property
    def source(self) -> str | None:
        """The file this document was read from, or None (made in code or in the editor)."""
        return self._source

    @model_validator(mode="after")
    def _edge_ids(self) -> "WorkflowDocument":
        assign_edge_ids(self.edges)
        twice = duplicate_ids(self.notes, self.groups)
        if twice:
            raise ValueError(f"notes and groups need distinct ids; {', '.join(twice)} is used "
                             "more than once")
        return self

    def node(self, node_id: str) -> WorkflowNode | None:
        """The node with this id, or None."""
        return next((n for n in self.nodes if n.id == node_id), None)

    def config(self, node_id: str) -> NodeConfig:
        """The node's config (a default one when the document has none)."""
        return self.node_configs.get(node_id) or NodeConfig()

    def workspace_of(self, node_id: str) -> str | None:
        """The workspace ``node_id`` works on: its own, else the workflow's."""
        return self.config(node_id).workspace or self.workspace

    def setup_of(self, node_id: str) -> WorktreeSetup | None:
        """The worktree setup of ``node_id``: its own, else the workflow's."""
        return self.config(node_id).worktree_setup or self.worktree_setup

    def isolation_of(self, node_id: str) -> str | None:
        """The isolation ``node_id`` asks for: its own, else the workflow's (None: unset)."""
        return self.config(node_id).isolation or self.isolation

    def entry_node(self) -> WorkflowNode | None:
        """The node marked ``entry``, else the first node with no incoming handoff."""
        marked = [n for n in self.nodes if n.entry]
        if marked:
            return marked[0]
        targets = {e.to for e in self.edges if e.type == EdgeType.HANDOFF}
        return next((n for n in self.nodes if n.id not in targets), None)


def node_uuid(run_id: str, key: str) -> str:
    """A stable UUID for document node ``key`` within run ``run_id``."""
    return str(uuid.uuid5(_NODE_NAMESPACE, f"{run_id}/node/{key}"))


def new_edge_id(taken: Iterable[str | None], from_: str, to: str,
                edge_type: EdgeType | str = EdgeType.HANDOFF) -> str:
    """A readable id for a new edge (``planner-to-coder``, ``coder-reports-to-planner``)
    that none of ``taken`` has (``-2``, ``-3``, ... when it would)."""
    # a set is asked as it is: copying it for each of thousands of new edges is quadratic
    used = taken if isinstance(taken, AbstractSet) else set(taken)
    verb = "reports-to" if str(edge_type) == EdgeType.REPORT else "to"
    base = f"{from_}-{verb}-{to}"
    candidate, n = base, 1
    while candidate in used:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def assign_edge_ids(edges: list[WorkflowEdge]) -> None:
    """Give every edge without an id a new one (in place; ids already there are kept)."""
    taken = {e.id for e in edges if e.id is not None}
    for edge in edges:
        if edge.id is None:
            edge.id = new_edge_id(taken, edge.from_, edge.to, edge.type)
            taken.add(edge.id)


def edge_uuid(run_id: str, index: int, edge: WorkflowEdge) -> str:
    """A stable UUID for a document edge within a run (from its id; from its place in
    the list only for an edge made in code without one)."""
    name = edge.id or f"{index}:{edge.from_}->{edge.to}"
    return str(uuid.uuid5(_NODE_NAMESPACE, f"{run_id}/edge/{name}"))
