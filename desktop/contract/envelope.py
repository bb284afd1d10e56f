"""The handoff envelope that travels along an edge (specs/shared-contract.md)."""

from typing import Any, Literal

from pydantic import Field

from desktop.contract.base import ContractModel, UtcTimestamp, UUIDStr


class ArtifactRef(ContractModel):
    type: str
    ref: str


class EnvelopeStatus(ContractModel):
    ok: bool = True
    reason: str | None = None


class EnvelopeResponse(ContractModel):
    expectation: str | None = None
    reply_to: str | None = Field(None, alias="replyTo")


class EnvelopePayload(ContractModel):
    message: str = ""
    structured: dict[str, Any] = Field(default_factory=dict)
    artifacts: list[ArtifactRef] = Field(default_factory=list)
    status: EnvelopeStatus = Field(default_factory=EnvelopeStatus)
    response: EnvelopeResponse | None = None


class Envelope(ContractModel):
    kind: Literal["handoff", "report"] = "handoff"
    id: UUIDStr
    from_node_id: str | None = Field(None, alias="fromNodeId")
    to_node_id: str = Field(alias="toNodeId")
    created_at: UtcTimestamp = Field(alias="createdAt")
    payload: EnvelopePayload = Field(default_factory=EnvelopePayload)
    from_agent_run_id: str | None = Field(None, alias="fromAgentRunId")
    commit: str | None = Field(None, pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$",
                               description="A sender in its own git worktree: its commit when "
                                           "it sent this, what the receiver merges (not its "
                                           "branch's later work).")
