"""Event envelope and one model per event type, as a union discriminated on `type`.

The spec's event types (specs/shared-contract.md, "Event stream") are joined by
the run lifecycle events the runtime writes:

- ``run.created``   the run's starting graph (nodes, configs, edges), task, modes
- ``run.started``, ``run.paused``, ``run.resumed``, ``run.stopped``,
  ``run.completed``, ``run.failed``  status changes with an optional reason
- ``run.budget_exceeded``  a usage or wall-time limit (``budget``) was reached: the run
  pauses and the spending turn is stopped
- ``run.interrupted``  found on reopen: the engine died while the run was live
- ``run.forked``    a fork's first own event, right after the events it copied from
  the run it was forked from (whose ``run.created`` then carries ``forkedFrom`` too)
- ``inbox.queued``  an item (task, handoff, report, user message) waits for a node
- ``inbox.edited``  a person changed a queued item's text before the node's turn
- ``bus.message``   a message-bus entry: agent posts and RUN_START/STOP/CRASH
- ``verification.result``  a node's verification command ran after a turn
- ``log.recovered`` the store cut a torn tail or skipped a corrupt line
- ``attempt.started``, ``attempt.completed``  one attempt of a best-of-N turn
  (desktop/contract/attempts.py) began or ended; the agent's own events of that attempt
  carry its ``attemptIndex`` too
- ``choice.made``   the judge picked the attempt whose work and output the node keeps

Every event carries a per-run monotonic ``seq``, assigned by the log writer.
An event of a type this version does not know is kept as :class:`GenericEvent`.
"""

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Discriminator, Field, Tag, TypeAdapter, model_validator

from desktop.contract.attempts import AttemptSummary, ChoiceRequest
from desktop.contract.base import ContractModel, UtcTimestamp, UUIDStr, new_id, utc_now
from desktop.contract.enums import (
    ApprovalKind,
    ApprovalStatus,
    BusType,
    GlobalMode,
    Mode,
    TurnStatus,
)
from desktop.contract.envelope import Envelope
from desktop.contract.isolation import Isolation, WorktreeSetup
from desktop.contract.merge import MergeChoice, MergeRequest
from desktop.contract.state import (
    Artifact,
    Budget,
    EdgeState,
    ForkedFrom,
    InboxItem,
    NodeConfig,
    NodeState,
)


class EventBase(ContractModel):
    """Fields every event has (the spec's event envelope plus ``seq``)."""

    id: UUIDStr = Field(default_factory=new_id)
    run_id: UUIDStr = Field(alias="runId")
    ts: UtcTimestamp = Field(default_factory=utc_now)
    type: str
    node_id: str | None = Field(None, alias="nodeId")
    seq: int | None = Field(None, ge=1)


class GenericEvent(EventBase):
    """An event whose type this version does not know: kept whole, never dropped."""


# --- run lifecycle -------------------------------------------------------------


class RunCreated(EventBase):
    type: Literal["run.created"] = "run.created"
    workflow_name: str = Field("", alias="workflowName")
    workflow_path: str | None = Field(None, alias="workflowPath")
    description: str = Field("", description="The workflow's description, when it has one "
                             "(absent in runs made before it was recorded).")
    task: str = ""
    mode: Mode = Mode.AUTO
    global_mode: GlobalMode = Field(GlobalMode.IMPLEMENTATION, alias="globalMode")
    nodes: dict[str, NodeState] = Field(default_factory=dict)
    node_configs: dict[str, NodeConfig] = Field(default_factory=dict, alias="nodeConfigs")
    edges: dict[str, EdgeState] = Field(default_factory=dict)
    forked_from: ForkedFrom | None = Field(
        None, alias="forkedFrom", description="Set in a fork: the run and seq it copied.")
    isolation: Isolation | None = Field(
        None, description="The workflow's isolation (worktree or shared), when it sets one.")
    workspace: str | None = Field(
        None, description="The workflow's workspace (relative to its folder), when it sets "
        "one: where a node added to the run without a workspace of its own works.")
    worktree_setup: WorktreeSetup | None = Field(
        None, alias="worktreeSetup", description="The workflow's worktree setup, when it sets "
        "one: what a node added to the run without a setup (or workspace) of its own gets.")
    budget: Budget | None = Field(None, description="The workflow's budget, when it sets one.")


class _RunStatusEvent(EventBase):
    reason: str | None = None


class RunStarted(_RunStatusEvent):
    type: Literal["run.started"] = "run.started"


class RunPaused(_RunStatusEvent):
    type: Literal["run.paused"] = "run.paused"


class RunResumed(_RunStatusEvent):
    type: Literal["run.resumed"] = "run.resumed"


class RunStopped(_RunStatusEvent):
    type: Literal["run.stopped"] = "run.stopped"


class RunCompleted(_RunStatusEvent):
    type: Literal["run.completed"] = "run.completed"


class RunFailed(_RunStatusEvent):
    type: Literal["run.failed"] = "run.failed"


class RunInterrupted(_RunStatusEvent):
    type: Literal["run.interrupted"] = "run.interrupted"


class ForkWorkspace(ContractModel):
    """How a fork's copy of one workspace was restored from the diffs recorded before it."""

    path: str = Field(description="The fork's folder: relative to its run folder, or absolute.")
    source: str = Field("", description="The workspace of the source run it restores.")
    diffs: int = Field(0, ge=0, description="Recorded diffs replayed (or undone) in it.")
    skipped: int = Field(0, ge=0, description="Diff sections already in place (concurrent "
                                               "turns sharing the folder record the same change).")
    taken: int = Field(0, ge=0, description="Files taken whole from the source's recorded "
                                             "snapshots where overlapping diffs disagree.")


class ForkBranch(ContractModel):
    """A node of a fork that works in its own git worktree: checked out at its commit of
    the fork point on a branch of the fork (nothing replayed)."""

    node_id: str = Field(alias="nodeId")
    node: str = Field("", description="The node's key (or label).")
    branch: str = Field(description="The fork's branch, e.g. canvas/<fork8>/impl.")
    commit: str = Field(description="The commit it starts at: the node's last at the point.")
    from_branch: str = Field("", alias="from", description="The source run's branch.")
    worktree: str = Field("", description="The worktree, relative to the fork's run folder.")


class RunForked(EventBase):
    """A fork's first own event: events 1..``forkedFrom.seq`` were copied from that run."""

    type: Literal["run.forked"] = "run.forked"
    forked_from: ForkedFrom = Field(alias="forkedFrom")
    requested_seq: int | None = Field(None, alias="requestedSeq", ge=1,
                                      description="The seq asked for, before snapping to a "
                                                  "point between turns.")
    point: str = Field("", description="Where the fork continues, in words.")
    workspaces: list[ForkWorkspace] = Field(default_factory=list)
    branches: list[ForkBranch] = Field(default_factory=list)


class RunPatch(EventBase):
    """Generic change of run-level fields (camelCase keys of RunState)."""

    type: Literal["run.patch"] = "run.patch"
    patch: dict[str, Any] = Field(default_factory=dict)


class RunMode(EventBase):
    type: Literal["run.mode"] = "run.mode"
    mode: Mode | None = None
    global_mode: GlobalMode | None = Field(None, alias="globalMode")


class RunStalled(EventBase):
    """Loop safety: a node repeated itself (or went silent); the run is paused."""

    type: Literal["run.stalled"] = "run.stalled"
    reason: Literal["output", "diff", "verification", "silent"]
    evidence: dict[str, Any] = Field(default_factory=dict)


class RunBudgetExceeded(EventBase):
    """A ``budget`` limit was reached; the run is paused and the spending turn stopped.
    ``nodeId`` names the node whose budget it was; without it, the run's."""

    type: Literal["run.budget_exceeded"] = "run.budget_exceeded"
    limit: Literal["maxTokens", "maxCostUsd", "maxWallSec"]
    budget: float = Field(gt=0, description="the limit's value")
    used: float = Field(ge=0, description="what was used when it was reached")
    usage: dict[str, float] = Field(default_factory=dict,
                                    description="the node's (or the run's) usage then")


# --- nodes and edges ----------------------------------------------------------


class NodePatch(EventBase):
    """Partial node update; creates the node when it does not exist (spawn_node)."""

    type: Literal["node.patch"] = "node.patch"
    patch: dict[str, Any] = Field(default_factory=dict)
    config: dict[str, Any] | None = None


class NodeProgress(EventBase):
    type: Literal["node.progress"] = "node.progress"
    message: str = ""


class NodeHeartbeat(EventBase):
    type: Literal["node.heartbeat"] = "node.heartbeat"


class NodeLog(EventBase):
    type: Literal["node.log"] = "node.log"
    stream: Literal["stdout", "stderr"] = "stdout"
    text: str = ""


class NodeDeleted(EventBase):
    type: Literal["node.deleted"] = "node.deleted"


class TurnStatusEvent(EventBase):
    """One phase of a node's turn; ``started`` takes the listed inbox items."""

    type: Literal["turn.status"] = "turn.status"
    status: TurnStatus
    turn_id: str = Field(alias="turnId")
    agent_run_id: str | None = Field(None, alias="agentRunId")
    inbox_item_ids: list[str] = Field(default_factory=list, alias="inboxItemIds")
    attempt: int = 1
    restart: bool = False
    exit_code: int | None = Field(None, alias="exitCode")
    reason: str | None = None
    input_kept: bool = Field(False, alias="inputKept", description=(
        "failed: the turn's inbox items went back to its node's inbox, so resuming the "
        "run takes the turn again (runs recorded before this field dropped them)"))


class EdgeCreated(EventBase):
    type: Literal["edge.created"] = "edge.created"
    edge: EdgeState


class EdgeDeleted(EventBase):
    type: Literal["edge.deleted"] = "edge.deleted"
    edge_id: str = Field(alias="edgeId")


class InboxQueued(EventBase):
    type: Literal["inbox.queued"] = "inbox.queued"
    item: InboxItem


class InboxEdited(EventBase):
    """A person changed a queued item (e.g. a handoff in INTERACTIVE mode) before its turn."""

    type: Literal["inbox.edited"] = "inbox.edited"
    item_id: str = Field(alias="itemId")
    text: str
    structured: dict[str, Any] | None = None


class HandoffSent(EventBase):
    type: Literal["handoff.sent"] = "handoff.sent"
    envelope: Envelope
    edge_id: str | None = Field(None, alias="edgeId")


# --- transcript -----------------------------------------------------------------


class MessageUser(EventBase):
    type: Literal["message.user"] = "message.user"
    text: str


class MessageAssistantDelta(EventBase):
    type: Literal["message.assistant.delta"] = "message.assistant.delta"
    text: str
    message_id: str | None = Field(None, alias="messageId")


class MessageAssistantFinal(EventBase):
    type: Literal["message.assistant.final"] = "message.assistant.final"
    text: str
    message_id: str | None = Field(None, alias="messageId")


class ThinkingDelta(EventBase):
    type: Literal["message.assistant.thinking.delta"] = "message.assistant.thinking.delta"
    text: str


class ThinkingFinal(EventBase):
    type: Literal["message.assistant.thinking.final"] = "message.assistant.thinking.final"
    text: str


class ToolCall(ContractModel):
    id: str
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolProposed(EventBase):
    type: Literal["tool.proposed"] = "tool.proposed"
    tool: ToolCall


class ToolStarted(EventBase):
    type: Literal["tool.started"] = "tool.started"
    tool_id: str = Field(alias="toolId")
    args: dict[str, Any] | None = None


class ToolCompleted(EventBase):
    type: Literal["tool.completed"] = "tool.completed"
    tool_id: str = Field(alias="toolId")
    result: dict[str, Any] = Field(default_factory=dict)
    error: dict[str, Any] | None = None


class Resolution(ContractModel):
    status: ApprovalStatus
    modified_args: dict[str, Any] | None = Field(None, alias="modifiedArgs")
    merge: MergeChoice | None = Field(None, description="A merge approval approved: each "
                                      "file's side or content, or the agent's turn.")
    choice: int | None = Field(None, ge=1, description="A choice approval approved: the "
                               "index of the attempt that goes on.")
    reason: str | None = None
    by: str | None = None


class ApprovalRequested(EventBase):
    """A gated tool call (``kind`` tool, ``tool``) or a merge that conflicts (``kind``
    merge, ``merge``: desktop/contract/merge.py) waits for a person."""

    type: Literal["approval.requested"] = "approval.requested"
    approval_id: str = Field(alias="approvalId")
    kind: ApprovalKind = ApprovalKind.TOOL
    tool: ToolCall | None = None
    merge: MergeRequest | None = None
    choice: ChoiceRequest | None = None
    context: str | None = None

    @model_validator(mode="after")
    def _what(self) -> "ApprovalRequested":
        if self.kind == ApprovalKind.MERGE and self.merge is None:
            raise ValueError("a merge approval names its merge")
        if self.kind == ApprovalKind.CHOICE and self.choice is None:
            raise ValueError("a choice approval lists its attempts")
        if self.kind == ApprovalKind.TOOL and self.tool is None:
            raise ValueError("a tool approval names its tool call")
        return self


class ApprovalResolved(EventBase):
    type: Literal["approval.resolved"] = "approval.resolved"
    approval_id: str = Field(alias="approvalId")
    resolution: Resolution


class AttemptStarted(EventBase):
    """One attempt of a best-of-N turn began its agent run, in its own branch."""

    type: Literal["attempt.started"] = "attempt.started"
    turn_id: str = Field(alias="turnId")
    attempt_index: int = Field(alias="attemptIndex", ge=1)
    agent_run_id: str | None = Field(None, alias="agentRunId")
    branch: str | None = None
    provider: str | None = None
    model: str | None = None


class AttemptCompleted(EventBase):
    """One attempt of a best-of-N turn ended (``summary.ok`` false: it failed)."""

    type: Literal["attempt.completed"] = "attempt.completed"
    turn_id: str = Field(alias="turnId")
    attempt_index: int = Field(alias="attemptIndex", ge=1)
    summary: AttemptSummary


class ChoiceMade(EventBase):
    """The judge picked the attempt that goes on: the node's branch now points at its
    commit and its output is the turn's output. The other attempts keep their branches."""

    type: Literal["choice.made"] = "choice.made"
    turn_id: str = Field(alias="turnId")
    attempt_index: int = Field(alias="attemptIndex", ge=1)
    agent_run_id: str | None = Field(None, alias="agentRunId")
    commit: str | None = None
    by: str = "user"


class ArtifactCreated(EventBase):
    """A file a turn produced. A ``diff`` of a node working in its own git worktree
    carries ``artifact.commit``: the commit on the node's branch (``artifact.branch``)
    that ended the agent run, whose change against the turn's start is the diff."""

    type: Literal["artifact.created"] = "artifact.created"
    artifact: Artifact


class TelemetryUsage(EventBase):
    type: Literal["telemetry.usage"] = "telemetry.usage"
    input_tokens: int = Field(0, alias="inputTokens", ge=0)
    output_tokens: int = Field(0, alias="outputTokens", ge=0)
    cost_usd: float | None = Field(None, alias="costUsd", ge=0)
    model: str | None = None


class BusMessage(EventBase):
    type: Literal["bus.message"] = "bus.message"
    bus_type: BusType = Field(alias="busType")
    message: str = ""
    agent_run_id: str | None = Field(None, alias="agentRunId")
    handoff_to: str | None = Field(None, alias="handoffTo")


class VerificationResult(EventBase):
    type: Literal["verification.result"] = "verification.result"
    command: str
    exit_code: int = Field(alias="exitCode")
    ok: bool
    output_tail: str = Field("", alias="outputTail")
    agent_run_id: str | None = Field(None, alias="agentRunId")


class LogRecovered(EventBase):
    type: Literal["log.recovered"] = "log.recovered"
    problem: Literal["torn_tail", "corrupt_line"]
    offset: int = Field(ge=0)
    length: int = Field(ge=0)
    detail: str = ""


KNOWN_EVENTS: tuple[type[EventBase], ...] = (
    RunCreated, RunStarted, RunPaused, RunResumed, RunStopped, RunCompleted, RunFailed,
    RunInterrupted, RunForked, RunPatch, RunMode, RunStalled, RunBudgetExceeded, NodePatch,
    NodeProgress,    NodeHeartbeat, NodeLog, NodeDeleted, TurnStatusEvent, EdgeCreated, EdgeDeleted,
    InboxQueued, InboxEdited, HandoffSent,
    MessageUser, MessageAssistantDelta, MessageAssistantFinal, ThinkingDelta, ThinkingFinal,
    ToolProposed, ToolStarted, ToolCompleted, ApprovalRequested, ApprovalResolved,
    ArtifactCreated, TelemetryUsage, BusMessage, VerificationResult, LogRecovered,
    AttemptStarted, AttemptCompleted, ChoiceMade,
)
EVENT_TYPES: dict[str, type[EventBase]] = {
    cls.model_fields["type"].default: cls for cls in KNOWN_EVENTS
}
_GENERIC = "__generic__"


def _event_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in EVENT_TYPES else _GENERIC


Event = Annotated[
    Annotated[GenericEvent, Tag(_GENERIC)]
    | Annotated[RunCreated, Tag("run.created")]
    | Annotated[RunStarted, Tag("run.started")]
    | Annotated[RunPaused, Tag("run.paused")]
    | Annotated[RunResumed, Tag("run.resumed")]
    | Annotated[RunStopped, Tag("run.stopped")]
    | Annotated[RunCompleted, Tag("run.completed")]
    | Annotated[RunFailed, Tag("run.failed")]
    | Annotated[RunInterrupted, Tag("run.interrupted")]
    | Annotated[RunForked, Tag("run.forked")]
    | Annotated[RunPatch, Tag("run.patch")]
    | Annotated[RunMode, Tag("run.mode")]
    | Annotated[RunStalled, Tag("run.stalled")]
    | Annotated[RunBudgetExceeded, Tag("run.budget_exceeded")]
    | Annotated[NodePatch, Tag("node.patch")]
    | Annotated[NodeProgress, Tag("node.progress")]
    | Annotated[NodeHeartbeat, Tag("node.heartbeat")]
    | Annotated[NodeLog, Tag("node.log")]
    | Annotated[NodeDeleted, Tag("node.deleted")]
    | Annotated[TurnStatusEvent, Tag("turn.status")]
    | Annotated[EdgeCreated, Tag("edge.created")]
    | Annotated[EdgeDeleted, Tag("edge.deleted")]
    | Annotated[InboxQueued, Tag("inbox.queued")]
    | Annotated[InboxEdited, Tag("inbox.edited")]
    | Annotated[HandoffSent, Tag("handoff.sent")]
    | Annotated[MessageUser, Tag("message.user")]
    | Annotated[MessageAssistantDelta, Tag("message.assistant.delta")]
    | Annotated[MessageAssistantFinal, Tag("message.assistant.final")]
    | Annotated[ThinkingDelta, Tag("message.assistant.thinking.delta")]
    | Annotated[ThinkingFinal, Tag("message.assistant.thinking.final")]
    | Annotated[ToolProposed, Tag("tool.proposed")]
    | Annotated[ToolStarted, Tag("tool.started")]
    | Annotated[ToolCompleted, Tag("tool.completed")]
    | Annotated[ApprovalRequested, Tag("approval.requested")]
    | Annotated[ApprovalResolved, Tag("approval.resolved")]
    | Annotated[ArtifactCreated, Tag("artifact.created")]
    | Annotated[TelemetryUsage, Tag("telemetry.usage")]
    | Annotated[BusMessage, Tag("bus.message")]
    | Annotated[VerificationResult, Tag("verification.result")]
    | Annotated[LogRecovered, Tag("log.recovered")]
    | Annotated[AttemptStarted, Tag("attempt.started")]
    | Annotated[AttemptCompleted, Tag("attempt.completed")]
    | Annotated[ChoiceMade, Tag("choice.made")],
    Discriminator(_event_tag),
]

# built on first use: a command that never parses a whole event does not pay for it
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event, config=ConfigDict(defer_build=True))


def parse_event(data: dict[str, Any] | bytes | str) -> EventBase:
    """Validate one event; unknown types become :class:`GenericEvent`.

    Raises pydantic.ValidationError when a known type has wrong fields.
    """
    if isinstance(data, bytes | str):
        return EVENT_ADAPTER.validate_json(data)
    return EVENT_ADAPTER.validate_python(data)
