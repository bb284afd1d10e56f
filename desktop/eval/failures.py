"""Why a case could not produce a response, in the contract's classes, with its body kept.

Classes, first match wins:

- ``timeout``: the case's time ran out;
- ``invalid_json``: an agent's stream held lines that could not be parsed and no
  message could be read from it (even if the run then completed);
- (a run that completed is a success)
- ``http_error``: a model endpoint or REST provider answered an HTTP error (``status``);
- ``network_error``: an agent could not reach its endpoint;
- ``timeout``: an agent's own time limit (``limits.timeoutSec``) ended its turn;
- ``other``: the run failed, stopped or waited for a person for any other reason.

The body of a failure (the HTTP error body, the unparsable stream, the agent's
stderr) is kept whole in ``assets/<caseId>/full_body.txt`` (up to
``max_body_bytes``, with ``truncated`` in its ``failure-meta.v1`` file) and a
prefix of it inline as ``body_snippet`` (at most ``max_inline_snippet_bytes``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from desktop.contract.artifacts import FailureMeta, RunLimits
from desktop.eval.assets import AssetStore
from desktop.eval.digest import RunDigest
from desktop.providers.rest import ERROR_BODY_FILE
from desktop.wording import plural

AGENTS = "agents"


@dataclass
class Failure:
    """A classified failure and the body that explains it (if any)."""

    error_class: str
    message: str
    status: int | None = None
    status_text: str | None = None
    error_name: str | None = None
    body: bytes | None = None
    body_total: int | None = None
    content_type: str | None = None
    agent_run_id: str | None = None


def classify_failure(digest: RunDigest, run_dir: Path, *, timed_out: bool,
                     waited: bool, timeout_sec: float) -> Failure | None:
    """The failure of a finished case run, or None when it completed."""
    if timed_out:
        return Failure("timeout", f"the case's time ran out after {timeout_sec:g} s")
    if digest.unparsed and digest.messages == 0:
        return _invalid_json(digest, run_dir)  # nothing of the response could be read
    if digest.end == "completed" and not waited:
        return None
    for error in digest.agent_errors:
        status = error.get("status")
        if isinstance(status, int) and status >= 400:
            return _http(error, run_dir)
    for error in digest.agent_errors:
        if error.get("category") == "network":
            return Failure("network_error", str(error.get("message") or "network error"),
                           error_name="network", agent_run_id=error.get("agentRunId"))
    for turn in digest.failed_turns:
        if "timed out" in str(turn.get("reason") or ""):
            return Failure("timeout", f"{turn['node']}: {turn['reason']}",
                           agent_run_id=turn.get("agentRunId"))
    reason = digest.end_reason or ("the run waited for a person (an approval or a stall); "
                                   "evaluations run unattended" if waited else
                                   f"the run ended {digest.end or 'without finishing'}")
    failure = Failure("other", reason, error_name=f"run_{digest.end or 'incomplete'}")
    for turn in digest.failed_turns[-1:]:
        failure.agent_run_id = turn.get("agentRunId")
        stderr = _read(run_dir, turn.get("agentRunId"), "agent-stderr.txt")
        if stderr:
            failure.body, failure.body_total = stderr
            failure.content_type = "text/plain"
    return failure


def _read(run_dir: Path, agent_run_id: Any, name: str,
          limit: int = 64 * 1024 * 1024) -> tuple[bytes, int] | None:
    if not isinstance(agent_run_id, str) or "/" in agent_run_id or not agent_run_id:
        return None
    path = run_dir / AGENTS / agent_run_id / name
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            data = fh.read(limit)
    except OSError:
        return None
    return (data, size) if data else None


def _http(error: dict[str, Any], run_dir: Path) -> Failure:
    failure = Failure("http_error", str(error.get("message") or "HTTP error"),
                      status=int(error["status"]), error_name=str(error.get("category") or ""),
                      agent_run_id=error.get("agentRunId"))
    if isinstance(error.get("statusText"), str):
        failure.status_text = error["statusText"]
    name = error.get("bodyFile") if isinstance(error.get("bodyFile"), str) else ERROR_BODY_FILE
    body = _read(run_dir, error.get("agentRunId"), Path(name).name)
    if body:
        failure.body, failure.body_total = body
        failure.body_total = int(error.get("bodyBytes") or failure.body_total)
        failure.content_type = str(error.get("contentType") or "") or None
    elif error.get("message"):
        failure.body = str(error["message"]).encode()
        failure.body_total = len(failure.body)
        failure.content_type = "text/plain"
    return failure


def _invalid_json(digest: RunDigest, run_dir: Path) -> Failure:
    first = digest.unparsed[0]
    failure = Failure("invalid_json", f"the agent's stream could not be parsed: "
                      f"{plural(len(digest.unparsed), 'line')} "
                      f"{'is' if len(digest.unparsed) == 1 else 'are'} not JSON",
                      error_name="invalid_json", agent_run_id=first.get("agentRunId"),
                      content_type="application/x-ndjson")
    stdout = _read(run_dir, first.get("agentRunId"), "agent-stdout.txt")
    if stdout:
        failure.body, failure.body_total = stdout
    else:
        failure.body = "\n".join(u["text"] for u in digest.unparsed).encode()
        failure.body_total = len(failure.body)
    return failure


def runner_failure(failure: Failure, *, case_id: str, side: str, url: str, attempt: int,
                   timeout_ms: float, latency_ms: float, limits: RunLimits,
                   assets: AssetStore) -> dict[str, Any]:
    """The ``runner_failure`` object, with the full body and its meta file in assets/."""
    out: dict[str, Any] = {"class": failure.error_class, "url": url, "attempt": attempt,
                           "timeout_ms": timeout_ms, "latency_ms": round(latency_ms),
                           "error_message": failure.message[:4000],
                           "body_snippet": None, "full_body_saved_to": None,
                           "full_body_meta_saved_to": None}
    if failure.status is not None:
        out["status"] = failure.status
        out["status_text"] = failure.status_text or _reason(failure.status)
    if failure.error_name:
        out["error_name"] = failure.error_name
    if failure.body:
        kept = failure.body[: limits.max_body_bytes]
        total = max(failure.body_total or len(failure.body), len(failure.body))
        snippet = kept[: limits.max_inline_snippet_bytes].decode("utf-8", errors="replace")
        body_item = assets.write(case_id, "full_body.txt", kept, "full_body")
        meta = FailureMeta.model_validate({
            "case_id": case_id, "version": side, "class": failure.error_class,
            "content_type": failure.content_type, "encoding": "utf-8",
            "bytes_written": len(kept), "bytes_total": total, "truncated": len(kept) < total,
            "sha256": hashlib.sha256(kept).hexdigest(),
            "note": f"from agent run {failure.agent_run_id}" if failure.agent_run_id else None})
        meta_item = assets.write(case_id, "full_body.meta.json",
                                 orjson.dumps(meta.to_json(), option=orjson.OPT_INDENT_2),
                                 "failure_meta")
        out.update(body_snippet=snippet, full_body_saved_to=body_item.href,
                   full_body_meta_saved_to=meta_item.href,
                   body_snippet_truncated=len(snippet.encode()) < total)
    return out


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
