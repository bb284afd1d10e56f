"""Run state and its parts (specs/shared-contract.md: run, node, edge, artifact).

The spec gives minimum fields; we add what the runtime needs to resume a run
from its log alone: node inboxes, pending approvals, turn counts, the stall.
"""

from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from desktop.contract.attempts import (
    MAX_ATTEMPTS,
    MIN_ATTEMPTS,
    USER_JUDGE,
    AttemptOverride,
    ChoiceRequest,
)
from desktop.contract.base import CONTRACT_VERSION, ContractModel, UtcTimestamp, UUIDStr
from desktop.contract.enums import (
    ApprovalKind,
    ArtifactKind,
    CliPermissionsMode,
    EdgeManagement,
    EdgeType,
    GlobalMode,
    Mode,
    NodeStatus,
    Provider,
    RunStatus,
)
from desktop.contract.envelope import Envelope
from desktop.contract.executor import ExecutorSpec
from desktop.contract.isolation import Isolation, NodeGit, WorktreeSetup
from desktop.contract.merge import MergeRequest
from desktop.contract.sandbox import Sandbox


class Capabilities(ContractModel):
    edge_management: EdgeManagement = Field(EdgeManagement.NONE, alias="edgeManagement")
    write_code: bool = Field(True, alias="writeCode")
    write_docs: bool = Field(True, alias="writeDocs")
    run_commands: bool = Field(True, alias="runCommands")
    delegate_only: bool = Field(False, alias="delegateOnly")


class Permissions(ContractModel):
    cli_permissions_mode: CliPermissionsMode = Field(
        CliPermissionsMode.SKIP, alias="cliPermissionsMode"
    )
    agent_management_requires_approval: bool = Field(
        True, alias="agentManagementRequiresApproval"
    )


class Session(ContractModel):
    session_id: str | None = Field(None, alias="sessionId")
    reset_commands: list[str] = Field(default_factory=lambda: ["/new", "/clear"],
                                      alias="resetCommands")


class Limits(ContractModel):
    """Per-node supervision limits; None means no limit."""

    timeout_sec: float | None = Field(None, alias="timeoutSec", gt=0)
    max_output_bytes: int | None = Field(None, alias="maxOutputBytes", gt=0)
    max_turns: int | None = Field(None, alias="maxTurns", gt=0)
    retries: int = Field(0, ge=0)
    retry_backoff_sec: float = Field(1.0, alias="retryBackoffSec", ge=0)
    silence_sec: float | None = Field(None, alias="silenceSec", gt=0)


BUDGET_MAX = {"maxTokens": 10**12, "maxCostUsd": 1_000_000, "maxWallSec": 366 * 86_400}
"""The largest limit a budget takes (a trillion tokens, a million dollars, a year): more is
a typing slip, and the same bounds hold in files, requests and the console."""


class Budget(ContractModel):
    """Spending limits of a run or a node; None means no limit. Reaching one pauses the run
    (``run.budget_exceeded``) and stops the turn that spends."""

    max_tokens: int | None = Field(None, alias="maxTokens", gt=0, le=BUDGET_MAX["maxTokens"],
                                   description="input plus output tokens")
    max_cost_usd: float | None = Field(None, alias="maxCostUsd", gt=0,
                                       le=BUDGET_MAX["maxCostUsd"])
    max_wall_sec: float | None = Field(None, alias="maxWallSec", gt=0,
                                       le=BUDGET_MAX["maxWallSec"],
                                       description="seconds spent running (a node: in turns)")


class NodeConfig(ContractModel):
    """How a node's agent is launched and supervised."""

    instructions: str = ""
    model: str | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    workspace: str | None = None
    env_allowlist: list[str] = Field(default_factory=list, alias="envAllowlist")
    limits: Limits = Field(default_factory=Limits)
    budget: Budget | None = None
    verification: str | None = None
    stall_threshold: int = Field(3, alias="stallThreshold", ge=2)
    until_done: bool = Field(False, alias="untilDone")
    max_restarts: int = Field(0, alias="maxRestarts", ge=0)
    command_blocklist: list[str] = Field(default_factory=list, alias="commandBlocklist")
    script: list[dict[str, Any]] | dict[str, Any] | None = None
    sandbox: Sandbox | None = None
    executor: ExecutorSpec | None = Field(
        None, description="Where the node's agent runs; None: the run's executor.")
    isolation: Isolation | None = Field(
        None, description="worktree: the node works in its own git worktree and branch; "
                          "shared: in its workspace itself; None: the run's isolation, else "
                          "worktree when the configured workspace is a git repository.")
    worktree_setup: WorktreeSetup | None = Field(
        None, alias="worktreeSetup",
        description="Ignored files copied into the node's new worktree and a command run "
                    "there before its first turn.")
    attempts: int | list[AttemptOverride] | None = (
        Field(None, description="Best-of-N: run each turn this many times at once, each in its "
                                "own worktree (or one {provider, model} override per attempt); "
                                "the judge picks the attempt that goes on."))
    judge: str = Field(USER_JUDGE, description="Who picks the winning attempt: user (a "
                                               "choice approval in the inbox).")

    @field_validator("judge", mode="before")
    @classmethod
    def _judge(cls, value: Any) -> Any:
        return USER_JUDGE if value in (None, "") else value  # empty: the default judge

    @field_validator("attempts", mode="before")
    @classmethod
    def _attempts(cls, value: Any) -> Any:
        # one clear message instead of pydantic's error per member of the union
        if value is None:
            return value
        count = value if type(value) is int else len(value) if isinstance(value, list) else None
        if count is None or not MIN_ATTEMPTS <= count <= MAX_ATTEMPTS:
            raise ValueError(f"attempts is a number from {MIN_ATTEMPTS} to {MAX_ATTEMPTS}, or a "
                             f"list of {MIN_ATTEMPTS} to {MAX_ATTEMPTS} overrides "
                             "({provider, model}), not " + repr(value)[:60])
        if isinstance(value, list):
            for i, item in enumerate(value):
                try:
                    AttemptOverride.model_validate(item)
                except ValidationError as exc:
                    first = exc.errors()[0]
                    where = ".".join(str(p) for p in first["loc"])
                    raise ValueError(f"attempt {i + 1}: {where + ': ' if where else ''}"
                                     f"{first['msg']} (an override names a provider "
                                     "and/or a model)") from None
        return value

    @property
    def timeout_sec(self) -> float | None:
        """The agent's timeout: the smaller of ``limits.timeoutSec`` and the sandbox's."""
        found = [t for t in (self.limits.timeout_sec,
                             self.sandbox.limits.timeout_sec if self.sandbox else None)
                 if t is not None]
        return min(found) if found else None

    @property
    def max_output_bytes(self) -> int | None:
        """The cap on the agent's stdout+stderr: ``limits.maxOutputBytes`` or the sandbox's
        ``maxOutputMb``, whichever is smaller."""
        found = [b for b in (self.limits.max_output_bytes,
                             int(self.sandbox.limits.max_output_mb * 1024 * 1024)
                             if self.sandbox else None)
                 if b is not None]
        return min(found) if found else None


class NodeState(ContractModel):
    id: UUIDStr
    run_id: UUIDStr = Field(alias="runId")
    key: str | None = None
    label: str
    role_template: str = Field("implementer", alias="roleTemplate")
    provider: Provider = Provider.SCRIPTED
    status: NodeStatus = NodeStatus.IDLE
    summary: str = ""
    last_activity_at: UtcTimestamp | None = Field(None, alias="lastActivityAt")
    capabilities: Capabilities = Field(default_factory=Capabilities)
    permissions: Permissions = Field(default_factory=Permissions)
    session: Session = Field(default_factory=Session)
    position: tuple[float, float] | None = None
    entry: bool = False
    added_at_runtime: bool = Field(False, alias="addedAtRuntime")
    git: NodeGit | None = Field(None, description="The node's worktree and branch, once it "
                                                  "works in one (isolation: worktree).")
    subflow: str | None = Field(None, description="A subflow node's workflow file, as its "
                                                  "`flow:` names it; None for an agent node.")
    subflow_entry: str | None = Field(None, alias="subflowEntry",
                                      description="The node id a subflow node's input goes to.")
    parent: str | None = Field(None, description="The subflow node this node runs inside, "
                                                 "or None at the top of the run.")


def default_edge_label(edge_type: EdgeType | str) -> str:
    """Orchestrator defaults: handoff edges carry a task, report edges a report."""
    return "report" if EdgeType(edge_type) is EdgeType.REPORT else "task"


class EdgeState(ContractModel):
    id: UUIDStr
    from_: str = Field(alias="from")
    to: str
    bidirectional: bool = False
    type: EdgeType = EdgeType.HANDOFF
    label: str = ""
    added_at_runtime: bool = Field(False, alias="addedAtRuntime")

    @model_validator(mode="after")
    def _default_label(self) -> "EdgeState":
        if not self.label:
            self.label = default_edge_label(self.type)
        return self


class Artifact(ContractModel):
    id: UUIDStr
    run_id: UUIDStr = Field(alias="runId")
    node_id: str | None = Field(None, alias="nodeId")
    kind: ArtifactKind
    name: str
    path: str = Field(description="Relative to the run folder, so a run folder can move.")
    created_at: UtcTimestamp = Field(alias="createdAt")
    commit: str | None = Field(None, pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$",
                               description="A diff of a node in its own git worktree: the "
                                           "commit on the node's branch that holds the change.")
    branch: str | None = Field(None, description="The branch of ``commit``.")


class InboxItem(ContractModel):
    """Something waiting for a node's next turn."""

    id: str
    kind: Literal["task", "handoff", "report", "user"]
    text: str = ""
    envelope: Envelope | None = None
    queued_at: UtcTimestamp | None = Field(None, alias="queuedAt")


class PendingApproval(ContractModel):
    approval_id: str = Field(alias="approvalId")
    node_id: str | None = Field(None, alias="nodeId")
    kind: ApprovalKind = Field(ApprovalKind.TOOL, description="tool: a gated tool call "
                               "(``tool``); merge: a merge that conflicts (``merge``).")
    tool: dict[str, Any] = Field(default_factory=dict)
    merge: MergeRequest | None = None
    choice: ChoiceRequest | None = None
    context: str | None = None
    requested_at: UtcTimestamp | None = Field(None, alias="requestedAt")


class ForkedFrom(ContractModel):
    """Lineage of a fork: the run it was forked from and the last event it copied."""

    run_id: UUIDStr = Field(alias="runId")
    seq: int = Field(ge=1, description="Events 1..seq are the source run's, copied.")


class RunState(ContractModel):
    id: UUIDStr
    contract_version: Literal["1"] = Field(CONTRACT_VERSION, alias="contractVersion")
    status: RunStatus = RunStatus.QUEUED
    mode: Mode = Mode.AUTO
    global_mode: GlobalMode = Field(GlobalMode.IMPLEMENTATION, alias="globalMode")
    created_at: UtcTimestamp = Field(alias="createdAt")
    updated_at: UtcTimestamp = Field(alias="updatedAt")
    nodes: dict[str, NodeState] = Field(default_factory=dict)
    node_configs: dict[str, NodeConfig] = Field(default_factory=dict, alias="nodeConfigs")
    edges: dict[str, EdgeState] = Field(default_factory=dict)
    artifacts: dict[str, Artifact] = Field(default_factory=dict)
    workflow_name: str = Field("", alias="workflowName")
    workflow_path: str | None = Field(None, alias="workflowPath")
    task: str = ""
    executor: ExecutorSpec = Field("local", description="Where agents run unless their "
                                   "node names its own executor.")
    isolation: Isolation | None = Field(None, description="The workflow's isolation, unless "
                                        "a node names its own (None: worktree for nodes whose "
                                        "workspace is a git repository).")
    workspace: str | None = Field(None, description="The workflow's workspace, where a node "
                                  "added to the run without one of its own works.")
    worktree_setup: WorktreeSetup | None = Field(
        None, alias="worktreeSetup", description="The workflow's worktree setup, which a node "
        "added to the run without a workspace or setup of its own gets.")
    inboxes: dict[str, list[InboxItem]] = Field(default_factory=dict)
    pending_approvals: dict[str, PendingApproval] = Field(
        default_factory=dict, alias="pendingApprovals"
    )
    turns: dict[str, int] = Field(default_factory=dict,
                                  description="Completed turns per node.")
    running_turns: dict[str, dict[str, Any]] = Field(
        default_factory=dict, alias="runningTurns",
        description="Turns started and not yet ended, by node id.")
    last_agent_run: dict[str, str] = Field(default_factory=dict, alias="lastAgentRun")
    runner_hashes: dict[str, str] = Field(
        default_factory=dict, alias="runnerHashes",
        description="The core hash of each agent run's runner.json, by agentRunId.")
    stall: dict[str, Any] | None = None
    interrupted: bool = False
    last_seq: int = Field(0, alias="lastSeq")
    usage: dict[str, float] = Field(
        default_factory=dict, description="inputTokens, outputTokens, costUsd (absent: no "
                                          "provider reported a cost) and wallSec of the run")
    node_usage: dict[str, dict[str, float]] = Field(
        default_factory=dict, alias="nodeUsage", description="The same, per node id.")
    budget: Budget | None = Field(None, description="The run's limits (the workflow's).")
    budget_exceeded: dict[str, Any] | None = Field(
        None, alias="budgetExceeded", description="The limit that paused the run, until it "
                                                   "resumes (a run.budget_exceeded event).")
    running_since: UtcTimestamp | None = Field(
        None, alias="runningSince", description="When the run last became running (wall time).")
    forked_from: ForkedFrom | None = Field(None, alias="forkedFrom")
