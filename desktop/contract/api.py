"""Request and response shapes of the local service's REST API (shared-contract "REST").

Requests are strict: an unknown field is an error naming it (``extra="forbid"``),
and fields are spelled in camelCase as everywhere on the wire. The bodies of the run
commands (chat, step, inbox edits, approvals, graph changes, mode switches) are derived
from the command dataclasses of desktop/contract/commands.py, their one definition;
``body.command(...)`` turns one back into its command. Responses reuse the stored
shapes (:class:`~desktop.contract.state.RunState`, events) where they are the same thing.
"""

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    field_validator,
    model_validator,
)

from desktop.contract import commands as c
from desktop.contract.attempts import ChoiceRequest
from desktop.contract.commands import RunStatusIn
from desktop.contract.enums import ApprovalStatus
from desktop.contract.merge import MergeRequest
from desktop.contract.state import Budget
from desktop.contract.wire import GlobalModeIn, ModeIn, RequestModel, body_model

MAX_BODY_BYTES = 8 << 20
"""Largest request body the service reads (8 MiB, room for a workflow with long
instructions for many agents); larger ones get 413."""
MAX_PAGE = 1000
"""Most events one page of ``GET /api/runs/{id}/events`` returns."""


def _json_integer(value: Any) -> Any:
    if isinstance(value, bool | str):
        raise ValueError("must be a JSON number without a fraction (not true/false, not a "
                         "string)")
    if isinstance(value, float) and value.is_integer():
        return int(value)  # JSON Schema's integer: 1.0 is one
    return value


JsonInt = Annotated[StrictInt, BeforeValidator(_json_integer)]
"""An integer as JSON Schema means it: 1 and 1.0, never true or "1"."""


def one_of_required(*names: str) -> ConfigDict:
    """A request model's config saying, in its JSON schema, that one of ``names`` is needed
    (what its validator enforces)."""
    return ConfigDict(json_schema_extra={"anyOf": [
        {"required": [n], "properties": {n: {"not": {"type": "null"}}}} for n in names]})


class ResponseModel(BaseModel):
    """Base of response bodies built by the service."""

    model_config = ConfigDict(populate_by_name=True, use_enum_values=True)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


# --- errors -----------------------------------------------------------------------------


class ErrorDetail(ResponseModel):
    code: str = Field(description="snake_case reason, stable for programs")
    message: str = Field(description="what went wrong and how to fix it, for people")
    field: str | None = Field(None, description="dotted path of the offending request field")
    problems: list[str] | None = Field(None, description="every problem of an invalid workflow")


class ErrorResponse(ResponseModel):
    error: ErrorDetail


# --- runs -------------------------------------------------------------------------------


class CreateRun(RequestModel):
    """Start a run of a workflow file (``workflowPath``) or of a document (``workflow``).

    With both, the document is run and ``workflowPath`` (absolute) is recorded as where it
    lives, so relative node workspaces resolve against its folder; the file is not read.
    """

    model_config = one_of_required("workflowPath", "workflow")

    workflow_path: str | None = Field(None, alias="workflowPath", min_length=1, max_length=4096)
    workflow: dict[str, Any] | None = Field(None, description="a workflow document")
    mode: ModeIn | None = None
    global_mode: GlobalModeIn | None = Field(None, alias="globalMode")

    @model_validator(mode="after")
    def _a_source(self) -> "CreateRun":
        if self.workflow_path is None and self.workflow is None:
            raise ValueError("give workflowPath, workflow, or both")
        return self


class WarmPool(RequestModel):
    """Make spare worktrees ahead of a run of this workflow (the app, as it opens one):
    the document, and ``workflowPath`` (absolute) where it lives, for relative
    workspaces."""

    workflow: dict[str, Any] = Field(description="a workflow document")
    workflow_path: str | None = Field(None, alias="workflowPath", min_length=1,
                                      max_length=4096)


class PoolWarming(ResponseModel):
    """The repositories whose spare worktree is being made (in the background)."""

    repositories: list[str]


class PatchRun(body_model(c.SetMode)):
    """Pause, resume (taking over a run no engine holds), stop, or switch modes."""

    model_config = one_of_required("status", "mode", "globalMode")

    # the status each of Pause, Resume and Stop sends (their endpoints' fixed body)
    status: RunStatusIn | None = None

    @model_validator(mode="after")
    def _something(self) -> "PatchRun":
        if self.status is None and self.mode is None and self.global_mode is None:
            raise ValueError("give status, mode or globalMode")
        return self


class RunResultRow(ResponseModel):
    """A listed run's result branch (GET /api/runs/{runId}/result has the files)."""

    node_id: str = Field(alias="nodeId")
    node: str = Field(description="the result node's key, else its label")
    branch: str
    repo: str
    applied: list[dict[str, Any]] = Field(description="each application, oldest first")


class WaitingItem(ResponseModel):
    """Something in a live run that waits on a person, besides its approvals."""

    kind: Literal["stall", "failed", "budget", "step"] = Field(
        description="stall: stall detection paused the run; failed: the node's last turn "
                    "failed; budget: usage reached a budget limit (nodeId: whose; none: the "
                    "run's); step: an INTERACTIVE run has work queued and waits for Step "
                    "(nodeId: the first node with work queued)")
    node_id: str | None = Field(alias="nodeId")
    node: str = Field(description="the node's label")
    reason: str


class RunSummary(ResponseModel):
    """One run of the run list (desktop/views/run_list.py makes every one)."""

    id: str = Field(description="the run's id (a folder that holds no readable run: its "
                                "folder's name)")
    status: str = Field(description="the run's status, 'interrupted' when no engine holds "
                                     "a run that looks live (but one left paused with no "
                                     "turn running and no request open stays 'paused', "
                                     "with detached), or 'unreadable' when its folder "
                                     "holds no readable run")
    workflow_name: str = Field(alias="workflowName")
    created_at: str = Field(alias="createdAt")
    updated_at: str = Field(alias="updatedAt")
    live: bool = Field(description="an engine in this service runs it")
    detached: bool = Field(False, description="paused, and no engine holds it: the engine "
                                              "that paused it let go with nothing cut short "
                                              "(resume continues it)")
    tokens: dict[str, float] = Field(default_factory=dict, description="token use (usage)")
    total_tokens: int = Field(0, alias="totalTokens", ge=0,
                              description="input plus output tokens")
    cost_usd: float | Literal["unknown"] = Field(
        "unknown", alias="costUsd", description="USD spent; 'unknown' when no provider "
                                                "reported a cost (never 0 for that)")
    events: int = Field(0, ge=0, description="how many events its log holds (its last seq)")
    forked_from: dict[str, Any] | None = Field(None, alias="forkedFrom",
                                               description="{runId, seq} of a fork's source")
    waiting: list[WaitingItem] = Field(default_factory=list, description="what waits on a "
                                       "person in a live run besides its approvals")
    result: RunResultRow | None = Field(None, description="its result branch and where it "
                                        "was applied; absent when no node worked in a git "
                                        "worktree, or while the service runs it")
    error: str | None = Field(None, description="why the folder holds no readable run "
                                                "(status 'unreadable' only)")


class RunList(ResponseModel):
    runs: list[RunSummary]


class PageInfo(ResponseModel):
    next_cursor: int | None = Field(None, alias="nextCursor")
    has_more: bool = Field(alias="hasMore")

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)  # nextCursor: null is meaningful


class EventPage(ResponseModel):
    events: list[dict[str, Any]]
    page: PageInfo


# --- turns and messages -----------------------------------------------------------------


class ChatRequest(body_model(c.Chat)):
    """A message to a node as the user (the Chat command)."""


class StepRequest(body_model(c.Step)):
    """INTERACTIVE: start the next pending turn, or ``nodeId``'s (the Step command)."""


class SetBudgetRequest(body_model(c.SetBudget)):
    """New limits for the run's budget, or ``nodeId``'s (the SetBudget command)."""


class NodeRef(ResponseModel):
    node_id: str = Field(alias="nodeId")


class BudgetSet(ResponseModel):
    """The budget in force once a change is written (the run's, or ``nodeId``'s): when
    clients change it at once, each sees what the last change left."""

    node_id: str | None = Field(None, alias="nodeId")
    budget: Budget | None = None


class EditInbox(body_model(c.EditInbox)):
    """New text for a queued inbox item of ``nodeId`` (the item is named in the path)."""


# --- approvals --------------------------------------------------------------------------


class ResolveApproval(body_model(c.Resolve)):
    model_config = ConfigDict(json_schema_extra={
        "if": {"properties": {"status": {"const": "modified"}}, "required": ["status"]},
        "then": {"required": ["modifiedArgs"],
                 "properties": {"modifiedArgs": {"type": "object"}}}})

    @model_validator(mode="after")
    def _modified_has_args(self) -> "ResolveApproval":
        if self.status == ApprovalStatus.MODIFIED and self.modified_args is None:
            raise ValueError("a modified call needs modifiedArgs: the new arguments")
        return self


class ApprovalOut(ResponseModel):
    approval_id: str = Field(alias="approvalId")
    run_id: str = Field(alias="runId")
    node_id: str | None = Field(None, alias="nodeId")
    kind: Literal["tool", "merge", "choice"] = Field(
        "tool", description="tool: a gated tool call; merge: a merge that conflicts; "
                            "choice: which attempt of a best-of-N turn goes on")
    tool: dict[str, Any] = Field(default_factory=dict, description="kind tool: the call")
    merge: MergeRequest | None = Field(None, description="kind merge: the branches, files "
                                                         "and hunks")
    choice: ChoiceRequest | None = Field(None, description="kind choice: the attempts, "
                                                           "with their diffs and outputs")
    context: str | None = None
    requested_at: str | None = Field(None, alias="requestedAt")


class ApprovalList(ResponseModel):
    approvals: list[ApprovalOut]


class Resolved(ResponseModel):
    approval_id: str = Field(alias="approvalId")
    run_id: str = Field(alias="runId")
    resolution: dict[str, Any]


# --- graph changes ----------------------------------------------------------------------


class AddNode(body_model(c.AddNode)):
    """A node added to a live run (as an agent's ``spawn_node`` would add it)."""


class PatchNode(body_model(c.PatchNode)):
    model_config = one_of_required("label", "config")

    @model_validator(mode="after")
    def _something(self) -> "PatchNode":
        if self.label is None and self.config is None:
            raise ValueError("give label or config")
        return self


class NodeCreated(ResponseModel):
    node_id: str = Field(alias="nodeId")
    key: str
    edge_id: str | None = Field(None, alias="edgeId")


class AddEdge(body_model(c.AddEdge)):
    """An edge added to a live run (as an agent's ``create_edge`` would add it)."""


class EdgeCreated(ResponseModel):
    edge_id: str = Field(alias="edgeId")
    from_: str = Field(alias="from")
    to: str


# --- forks ------------------------------------------------------------------------------


class ForkNodeEdit(RequestModel):
    """New settings for one node of the fork; the fields left out stay as they were."""

    node: str = Field(min_length=1, max_length=500, description="node key or id")
    instructions: str | None = Field(None, max_length=200_000)
    model: str | None = Field(None, max_length=500, description='"" for the default model')
    provider: str | None = Field(None, max_length=100)


class ForkItemEdit(RequestModel):
    """New text for an inbox item queued at the fork point (a pending handoff, say)."""

    item_id: str = Field(alias="itemId", min_length=1, max_length=200,
                         description="the item's id or a unique prefix of it")
    text: str = Field(max_length=200_000)


class ForkRun(RequestModel):
    """Continue a run from a point between turns as a new run (see ``agent-canvas fork``)."""

    at: JsonInt = Field(ge=1, le=2**53 - 1,
                        description="the event seq to fork from; it snaps to the point "
                                    "between turns at or before it (inside a turn) or "
                                    "after it (between turns)")
    nodes: list[ForkNodeEdit] = Field(default_factory=list, max_length=1000)
    items: list[ForkItemEdit] = Field(default_factory=list, max_length=1000)
    mode: ModeIn | None = None
    global_mode: GlobalModeIn | None = Field(None, alias="globalMode")
    start: StrictBool = Field(True, description="run it at once; false leaves it paused")


class ForkWorkspaceOut(ResponseModel):
    path: str
    source: str
    diffs: int
    skipped: int
    taken: int = 0


class ForkBranchOut(ResponseModel):
    """A node of the fork in its own git worktree, checked out at its commit of the point."""

    node_id: str = Field(alias="nodeId")
    node: str
    branch: str = Field(description="the fork's branch")
    commit: str = Field(description="the commit it starts at")
    from_branch: str = Field(alias="from", description="the source run's branch")
    worktree: str = Field(description="relative to the fork's run folder")


class ForkCreated(ResponseModel):
    """The new run and where it continues from."""

    run: dict[str, Any] = Field(description="the fork's state (RunState)")
    seq: int = Field(description="the fork point: events 1..seq are the source's")
    requested_seq: int = Field(alias="requestedSeq")
    point: str = Field(description="where the fork continues, in words")
    workspaces: list[ForkWorkspaceOut] = Field(default_factory=list)
    branches: list[ForkBranchOut] = Field(default_factory=list)


class ForkPointOut(ResponseModel):
    seq: int
    node_id: str | None = Field(None, alias="nodeId",
                                description="the node whose turn starts next (none: the end)")
    turn: int = 0
    label: str = ""
    description: str


class ForkPoints(ResponseModel):
    """Where a run can be forked, and (with ``?at=``) where that seq lands."""

    points: list[ForkPointOut]
    snap: dict[str, Any] | None = Field(None, description="{requested, seq, note} for ?at=")


# --- service ----------------------------------------------------------------------------


class Health(ResponseModel):
    ok: bool = True
    version: str
    pid: int
    runs: int = Field(description="runs live in this service")


class ServerInfo(ResponseModel):
    """``dataDir/server.json``: how clients find the live service."""

    url: str
    token: str
    pid: int
    version: str


class ApplyResult(RequestModel):
    """Take a run's result into the user's repository (see ``agent-canvas runs apply``)."""

    files: list[Annotated[str, Field(min_length=1, max_length=4096)]] | None = Field(
        None, max_length=100_000,
        description="the accepted files (paths the run changed); absent: all of them")
    branch: str | None = Field(None, min_length=1, max_length=255,
                               description="create this branch on the user's HEAD instead "
                                           "of changing their working tree")
    check: StrictBool = Field(False, description="say what it would do; change nothing")
    allow_secrets: StrictBool = Field(
        False, alias="allowSecrets",
        description="apply even files that hold the value of a secret an agent was given "
                    "(refused without it: 409 result_has_secrets)")


class UndoApply(RequestModel):
    """Undo the latest application of a run's result to the user's working tree (see
    ``agent-canvas runs apply --undo``)."""

    check: StrictBool = Field(False, description="say what it would do; change nothing")


class ResultFileOut(ResponseModel):
    path: str
    status: Literal["added", "modified", "deleted", "type changed"]


class RunResultOut(ResponseModel):
    """A run's result branch and the files it changes against the run's base."""

    run_id: str = Field(alias="runId")
    node_id: str = Field(alias="nodeId")
    node: str = Field(description="the node whose branch is the result (it finished last)")
    repo: str = Field(description="the user's repository")
    branch: str
    base: str = Field(description="the run's base commit: the user's HEAD plus their "
                                  "uncommitted work when the run started")
    commit: str = Field(description="the result branch's tip")
    files: list[ResultFileOut]
    applied: list[dict[str, Any]] = Field(description="each time the result was applied "
                                                      "(target, branch, files, at)")
    pull_request: str | None = Field(None, alias="pullRequest",
                                     description="why a pull request cannot be opened "
                                                 "(null: it can: a remote and gh are there)")


class LostUndoOut(ResponseModel):
    """An application of a deleted run's result that the app can no longer undo."""

    repo: str = Field(description="the repository it was applied to")
    commit: str = Field(description="the tree it left; its parent is the state before it "
                                    "(kept by git until it prunes unreachable objects)")
    by_hand: str = Field(alias="byHand", description="the commands that undo it by hand")


class RunDeletedOut(ResponseModel):
    """What deleting a run took away (desktop/runtime/run_delete.py)."""

    run_id: str = Field(alias="runId")
    folder: str = Field(description="the run's folder, now gone")
    pooled: list[str] = Field(description="its worktrees cleaned and kept in the data "
                                          "folder's worktree-pool for the next run")
    removed: list[str] = Field(description="its worktrees removed (the pool was full)")
    refs_deleted: list[str] = Field(alias="refsDeleted",
                                    description="its branches and base ref, deleted")
    kept: list[str] = Field(description="its refs left alone, each with the reason (a "
                                        "branch checked out outside the run)")
    undo_lost: list[LostUndoOut] = Field(
        alias="undoLost", default_factory=list,
        description="its applications onto the working tree that could still have been "
                    "undone, latest first: each can now be undone only by hand")


class ApplyOutcomeOut(ResponseModel):
    """What applying did, or would do."""

    target: Literal["worktree", "branch"]
    applied: bool
    files: list[str] = Field(description="the files it changes (or would)")
    collisions: list[str] = Field(description="files colliding with the user's changes; "
                                              "when any, nothing was changed")
    branch: str | None = None
    commit: str | None = None
    message: str


class ResultDiffOut(ResponseModel):
    path: str
    patch: str = Field(description="the file's unified diff against the run's base")


class ArtifactOut(ResponseModel):
    """One artifact of a run with its file's text (a turn's diff, an agent's output)."""

    id: str
    kind: str
    path: str = Field(description="relative to the run's folder")
    node_id: str | None = Field(None, alias="nodeId")
    size: int = Field(description="the file's size in bytes")
    truncated: bool = Field(description="the text stops short of the file's end (the "
                                        "service sends at most 8 MiB)")
    text: str = Field(description="the file as UTF-8, undecodable bytes replaced")


class OpenPullRequest(RequestModel):
    """Push a branch made by applying the result and open a pull request with ``gh``."""

    branch: str = Field(min_length=1, max_length=255)
    title: str | None = Field(None, max_length=256)

    @field_validator("title")
    @classmethod
    def _passable(cls, title: str | None) -> str | None:
        if title is not None and "\x00" in title:  # gh is given it on its command line
            raise ValueError("has a NUL character, which a pull request title cannot have; "
                             "remove it")
        return title


class PullRequestOut(ResponseModel):
    url: str = Field(description="the pull request, as gh printed it")
    remote: str
