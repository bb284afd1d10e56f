"""The evaluation artifact contract v1 (specs/agent-artifact-contract-v1.md) as models.

Field names are the spec's (snake_case). Every model keeps unknown fields, so
later versions may add to a file without breaking v1 readers (spec section 8).
Optional fields are left out of a file rather than written as ``null``, except
the fields the spec types ``... | null`` (kept in ``NULLABLE``).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    model_serializer,
    model_validator,
)

RUN_SCHEMA = "run.v1"
CASE_SCHEMA = "case.v1"
FAILURE_META_SCHEMA = "failure-meta.v1"
MANIFEST_SCHEMA = "assets-manifest.v1"

ERROR_CLASSES = ("timeout", "http_error", "invalid_json", "schema_mismatch", "network_error",
                 "other")
RISK_LEVELS = ("high", "medium", "low", "unknown")

Version = Literal["baseline", "new"]
RiskLevel = Literal["high", "medium", "low", "unknown"]
ErrorClass = Literal["timeout", "http_error", "invalid_json", "schema_mismatch",
                     "network_error", "other"]
AssetKind = Literal["full_body", "failure_meta", "full_payload", "retrieval_snippets", "other"]

_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def is_relative_path(value: str) -> bool:
    """Whether ``value`` is a portable relative path (no root, drive, home or backslash)."""
    return bool(value) and not (value.startswith(("/", "\\", "~")) or _DRIVE.match(value)
                                or "\\" in value)


def _relative(value: str) -> str:
    if not is_relative_path(value):
        raise ValueError(f"{value!r} is not a relative path; paths in artifacts are relative "
                         "to the folder that holds the file")
    return value


def _asset_href(value: str) -> str:
    _relative(value)
    if not value.startswith("assets/") or ".." in value.split("/"):
        raise ValueError(f"{value!r} does not point into assets/")
    return value


def _iso(value: str) -> str:
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an ISO 8601 timestamp") from exc
    return value


RelPath = Annotated[str, AfterValidator(_relative)]
AssetHref = Annotated[str, AfterValidator(_asset_href)]
IsoTime = Annotated[str, AfterValidator(_iso)]
Count = Annotated[int, Field(ge=0)]
Millis = Annotated[int | float, Field(ge=0)]
"""A duration or an epoch time in milliseconds; whole numbers stay integers."""


class ArtifactModel(BaseModel):
    """Base of every artifact shape: unknown fields kept, unset optionals left out."""

    model_config = ConfigDict(extra="allow")
    NULLABLE: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_unset_optionals(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        # ``class`` is a Python keyword: the models call it ``class_``, files ``class``.
        return {("class" if k == "class_" else k): v for k, v in data.items()
                if v is not None or k in self.NULLABLE}

    def to_json(self) -> dict[str, Any]:
        """The file's JSON object."""
        return self.model_dump(mode="json")


# --- run.json ----------------------------------------------------------------------


class RetryPolicy(ArtifactModel):
    classes: list[str]
    backoff: Literal["exponential"] = "exponential"
    jitter: bool = True


class RunLimits(ArtifactModel):
    max_body_bytes: Count
    max_inline_snippet_bytes: Count
    max_payload_inline_bytes: Count


class RunStats(ArtifactModel):
    cases_total: Count
    cases_completed: Count
    cases_failed: Count
    duration_ms: Millis


class RunArtifact(ArtifactModel):
    """``run.json``: one runner invocation for one version."""

    schema_version: Literal["run.v1"] = RUN_SCHEMA
    run_id: str = Field(min_length=1)
    version: Version
    generated_at: IsoTime
    base_url: str
    cases_path: RelPath
    out_dir: RelPath
    selected_case_ids: list[str]
    runner_version: str
    repo_commit: str | None = None
    dirty: bool | None = None
    node_version: str | None = None
    timeout_ms: Millis | None = None
    retries: Count | None = None
    concurrency: Annotated[int, Field(ge=1)] | None = None
    retry_policy: RetryPolicy | None = None
    limits: RunLimits | None = None
    stats: RunStats | None = None


# --- <caseId>.json -------------------------------------------------------------------


class Attempt(ArtifactModel):
    attempt: Annotated[int, Field(ge=1)]
    started_at: IsoTime
    latency_ms: Millis | None = None
    outcome: Literal["ok", "runner_error"]
    error_class: str | None = None

    @model_validator(mode="after")
    def _class_with_error(self) -> Attempt:
        if self.outcome == "runner_error" and not self.error_class:
            raise ValueError("error_class is required when outcome is runner_error")
        return self


class EvidenceRef(ArtifactModel):
    """A pointer to evidence: a tool result by call id, an event by index, an asset by id."""

    kind: Literal["tool_result", "retrieval_doc", "event", "asset"]
    call_id: str | None = None
    doc_id: str | None = None
    id: str | None = None

    @model_validator(mode="after")
    def _one_identifier(self) -> EvidenceRef:
        wanted = {"tool_result": "call_id", "retrieval_doc": "doc_id", "event": "id",
                  "asset": "id"}[self.kind]
        present = [f for f in ("call_id", "doc_id", "id") if getattr(self, f) is not None]
        if present != [wanted]:
            raise ValueError(f"an evidence ref of kind {self.kind!r} has exactly one "
                             f"identifier, {wanted!r} (found {present or 'none'})")
        return self


class ProposedAction(ArtifactModel):
    action_id: str
    action_type: str
    tool_name: str
    params: dict[str, Any]
    risk_level: RiskLevel
    risk_tags: list[str]
    evidence_refs: list[EvidenceRef]


class EventBase(ArtifactModel):
    type: str
    ts: Millis


class ToolCallEvent(EventBase):
    type: Literal["tool_call"] = "tool_call"
    call_id: str
    action_id: str | None = None
    tool: str
    args: dict[str, Any]
    risk_level: RiskLevel | None = None
    risk_tags: list[str] | None = None


class ToolResultEvent(EventBase):
    type: Literal["tool_result"] = "tool_result"
    call_id: str
    action_id: str | None = None
    status: Literal["ok", "error"]
    latency_ms: Millis
    payload_summary: dict[str, Any] | str | None = None
    payload_asset_href: AssetHref | None = None
    payload_asset_sha256: str | None = None


class RetrievalEvent(EventBase):
    type: Literal["retrieval"] = "retrieval"
    query: str
    doc_ids: list[str]
    snippets_hashes: list[str] | None = None
    snippets_asset_href: AssetHref | None = None


class FinalOutputEvent(EventBase):
    type: Literal["final_output"] = "final_output"
    content_type: Literal["text", "json"]
    content: str | dict[str, Any]


KNOWN_EVENT_TYPES = ("tool_call", "tool_result", "retrieval", "final_output")


class OtherEvent(EventBase):
    """An event type v1 does not define: readers ignore it (spec section 8)."""

    # In the JSON Schema a known type must match only its own branch of ``oneOf``.
    type: str = Field(json_schema_extra={"not": {"enum": list(KNOWN_EVENT_TYPES)}})


def _event_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in KNOWN_EVENT_TYPES else "other"


CaseEvent = Annotated[
    Annotated[ToolCallEvent, Tag("tool_call")]
    | Annotated[ToolResultEvent, Tag("tool_result")]
    | Annotated[RetrievalEvent, Tag("retrieval")]
    | Annotated[FinalOutputEvent, Tag("final_output")]
    | Annotated[OtherEvent, Tag("other")],
    Discriminator(_event_tag),
]


class FinalOutput(ArtifactModel):
    content_type: Literal["text", "json"]
    content: str | dict[str, Any]
    output_hash: str | None = None
    redactions_applied: list[str] | None = None


class CaseEnvelope(ArtifactModel):
    schema_version: Literal["case.v1"] = CASE_SCHEMA
    case_id: str = Field(min_length=1)
    version: Version
    workflow_id: str | None = None
    attempts: list[Attempt] | None = None


class CaseOk(CaseEnvelope):
    """A successful agent response artifact (``status: ok``)."""

    status: Literal["ok"] = "ok"
    proposed_actions: list[ProposedAction]
    events: list[CaseEvent]
    final_output: FinalOutput

    @model_validator(mode="after")
    def _refs_resolve_in_events(self) -> CaseOk:
        # Asset refs are checked against the folder by desktop.eval.conformance.
        problems = unresolved_event_refs(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self


class RunnerFailure(ArtifactModel):
    NULLABLE: ClassVar[frozenset[str]] = frozenset(
        {"body_snippet", "full_body_saved_to", "full_body_meta_saved_to"})

    class_: ErrorClass = Field(alias="class")
    url: str
    attempt: Annotated[int, Field(ge=1)]
    timeout_ms: Millis | None = None
    latency_ms: Millis | None = None
    status: int | None = None
    status_text: str | None = None
    error_name: str | None = None
    error_message: str | None = None
    body_snippet: str | None
    full_body_saved_to: AssetHref | None
    full_body_meta_saved_to: AssetHref | None = None

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    @model_validator(mode="after")
    def _conditional_fields(self) -> RunnerFailure:
        if self.class_ == "http_error" and self.status is None:
            raise ValueError("status is required when class is http_error")
        if self.body_snippet is not None and self.full_body_saved_to is None:
            raise ValueError("body_snippet is set, so full_body_saved_to must name the full "
                             "body in assets/")
        return self


class CaseRunnerError(CaseEnvelope):
    """A runner failure artifact (``status: runner_error``)."""

    status: Literal["runner_error"] = "runner_error"
    runner_failure: RunnerFailure


def _case_tag(value: Any) -> str | None:
    status = value.get("status") if isinstance(value, dict) else getattr(value, "status", None)
    return status if status in ("ok", "runner_error") else None


CaseArtifact = Annotated[
    Annotated[CaseOk, Tag("ok")] | Annotated[CaseRunnerError, Tag("runner_error")],
    Discriminator(_case_tag, custom_error_type="status",
                  custom_error_message="status must be 'ok' or 'runner_error'"),
]


def event_index(ref_id: str) -> int | None:
    """The index an event ref names: ``events[3]`` or ``3``."""
    match = re.fullmatch(r"(?:events\[)?(\d+)\]?", ref_id.strip())
    return int(match.group(1)) if match else None


def unresolved_event_refs(case: CaseOk) -> list[str]:
    """Evidence refs of ``case`` that name no event (tool_result, retrieval_doc, event)."""
    calls = {e.call_id for e in case.events if isinstance(e, ToolResultEvent)}
    docs = {d for e in case.events if isinstance(e, RetrievalEvent) for d in e.doc_ids}
    problems = []
    for action in case.proposed_actions:
        for ref in action.evidence_refs:
            where = f"proposed_actions[{action.action_id}]"
            if ref.kind == "tool_result" and ref.call_id not in calls:
                problems.append(f"{where}: no tool_result event has call_id {ref.call_id!r}")
            elif ref.kind == "retrieval_doc" and ref.doc_id not in docs:
                problems.append(f"{where}: no retrieval event lists doc {ref.doc_id!r}")
            elif ref.kind == "event":
                index = event_index(ref.id or "")
                if index is None or index >= len(case.events):
                    problems.append(f"{where}: event ref {ref.id!r} is not an index into "
                                    f"events (0..{len(case.events) - 1})")
    return problems


# --- assets/ ---------------------------------------------------------------------------


class FailureMeta(ArtifactModel):
    """``assets/...meta.json``: how a failure's full body was saved."""

    NULLABLE: ClassVar[frozenset[str]] = frozenset({"content_type", "encoding", "bytes_total"})

    schema_version: Literal["failure-meta.v1"] = FAILURE_META_SCHEMA
    case_id: str
    version: Version
    class_: str = Field(alias="class")
    content_type: str | None
    encoding: str | None
    bytes_written: Count
    bytes_total: Count | None
    truncated: bool
    sha256: str | None = None
    headers: dict[str, Any] | None = None
    note: str | None = None

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ManifestItem(ArtifactModel):
    NULLABLE: ClassVar[frozenset[str]] = frozenset({"case_id", "side"})

    asset_id: str
    href: AssetHref
    kind: AssetKind
    case_id: str | None
    side: Version | None
    size_bytes: Count
    sha256: str | None = None


class AssetsManifest(ArtifactModel):
    """``assets/manifest.json``: every asset with its size and hash."""

    schema_version: Literal["assets-manifest.v1"] = MANIFEST_SCHEMA
    generated_at: IsoTime
    items: list[ManifestItem]


ARTIFACT_MODELS: dict[str, Any] = {
    "run": RunArtifact, "case-ok": CaseOk, "case-runner-error": CaseRunnerError,
    "failure-meta": FailureMeta, "assets-manifest": AssetsManifest,
}
"""Models published as JSON Schema (``artifact.<name>.schema.json``)."""
