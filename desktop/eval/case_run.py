"""One attempt of one case on one side: a normal engine run, then its case artifact.

The case's task replaces the workflow's task, and every node works in one
scratch workspace (``runs/<runId>/workspace``) that starts as a fresh copy of
the case's workspace folder, committed, so the case's diff is exactly what the
agents changed. The run folder stays under the evaluation's folder, so the run
views open it like any other run.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from desktop.contract.artifacts import RunLimits
from desktop.contract.enums import RUN_ENDED
from desktop.contract.isolation import Isolation
from desktop.eval import workspace as ws
from desktop.eval.assets import AssetStore
from desktop.eval.checks import check_spec, run_workspace_check
from desktop.eval.digest import Digester, RunDigest, short_hash
from desktop.eval.failures import Failure, classify_failure
from desktop.eval.portable import Scrubber, scrub_prompts
from desktop.eval.suite import WORKSPACE_CHECKS, Case, check_label
from desktop.graph.document import WorkflowDocument
from desktop.providers.redact import Redactor
from desktop.views.reader import EventReader

POLL_SEC = 0.1


def case_document(doc: WorkflowDocument, case: Case) -> WorkflowDocument:
    """``doc`` with the case's task, every node in the run's scratch workspace itself
    (``isolation: shared``: the case's diff and checks are of that one folder, even for a
    workflow that asks for worktrees)."""
    copy = doc.model_copy(deep=True)
    copy.task = case.task
    copy.isolation = Isolation.SHARED
    copy.workspace = None
    copy.node_configs = {key: cfg.model_copy(update={"workspace": None, "isolation": None})
                         for key, cfg in doc.node_configs.items()}
    return copy


@dataclass
class Attempt:
    """What one attempt produced (the artifact body is built from it)."""

    run_dir: Path | None
    digest: RunDigest = field(default_factory=RunDigest)
    failure: Failure | None = None
    patch: bytes = b""
    checks: list[dict[str, Any]] = field(default_factory=list)
    latency_ms: float = 0.0


async def drive(engine: Any, timeout_sec: float) -> tuple[bool, bool]:
    """Run ``engine`` to its end, stopping it when the time runs out or it waits for a
    person. Returns ``(timed_out, waited)``; the engine is closed."""
    loop = asyncio.get_running_loop()
    task = asyncio.create_task(engine.run())
    deadline = loop.time() + timeout_sec
    timed_out = waited = False
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=max(0.0, min(POLL_SEC, deadline - loop.time())))
            if task.done() or engine.state.status in RUN_ENDED:
                continue
            if loop.time() >= deadline and not timed_out:
                timed_out = True
                await engine.stop(f"the case's time ran out ({timeout_sec:g} s)")
            elif not (timed_out or waited) and engine.waiting_for_input():
                waited = True
                await engine.stop("the run waited for a person; evaluations run unattended")
        await task
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await asyncio.shield(engine.stop("the evaluation was interrupted"))
        with contextlib.suppress(Exception):
            await asyncio.shield(task)
        raise
    finally:
        engine.close()
    return timed_out, waited


async def run_attempt(doc: WorkflowDocument, case: Case, source: Path | None, data_dir: Path,
                      timeout_sec: float, assets: AssetStore, limits: RunLimits) -> Attempt:
    """Run the case once; its digest, failure (if any), diff and workspace checks."""
    from desktop.runtime.engine import EngineOptions
    from desktop.runtime.recovery import create_run

    started = time.monotonic()
    engine = create_run(case_document(doc, case), data_dir, options=EngineOptions())
    run_dir = engine.run_dir
    workspace = run_dir / "workspace"
    try:
        try:
            before = await asyncio.to_thread(ws.prepare, workspace, source)
        except BaseException:
            engine.close()
            raise
        return await _finish_attempt(engine, case, run_dir, workspace, before,
                                     timeout_sec, assets, limits, started)
    finally:  # the prompts name no absolute path (desktop.eval.portable); the engine
        # redacted them, and the run's records and workspace stay as the run wrote them
        await asyncio.to_thread(scrub_prompts, run_dir, Scrubber(data_dir, Redactor()))


async def _finish_attempt(engine: Any, case: Case, run_dir: Path,
                          workspace: Path, before: Any, timeout_sec: float,
                          assets: AssetStore, limits: RunLimits, started: float) -> Attempt:
    """Drive the engine to its end, then digest the run and run the workspace checks."""
    timed_out, waited = await drive(engine, timeout_sec)
    attempt = Attempt(run_dir, latency_ms=(time.monotonic() - started) * 1000)
    events = await asyncio.to_thread(lambda: list(EventReader(run_dir).iter_events()))
    digester = Digester(case.id, str(workspace.resolve()), assets,
                        limits.max_payload_inline_bytes)
    attempt.digest = digester.feed(events)
    attempt.failure = classify_failure(attempt.digest, run_dir, timed_out=timed_out,
                                       waited=waited, timeout_sec=timeout_sec)
    attempt.patch = await asyncio.to_thread(ws.final_diff, workspace, before)
    if attempt.failure is None:
        for index, check in enumerate(case.checks):
            if check.type in WORKSPACE_CHECKS:
                result = await run_workspace_check(check, index, workspace, case.id, assets)
                attempt.checks.append({"index": index, **result})
    return attempt


def final_output(attempt: Attempt) -> dict[str, Any]:
    """The case's final output: what the last completed turn's agent run left in output.md."""
    text = ""
    run = attempt.digest.last_output_run
    if run and attempt.run_dir is not None and "/" not in run:
        with contextlib.suppress(OSError):
            text = (attempt.run_dir / "agents" / run / "output.md").read_text(
                encoding="utf-8", errors="replace")
    content: str | dict[str, Any] = text
    content_type = "text"
    stripped = text.strip()
    if stripped.startswith("{"):
        with contextlib.suppress(ValueError):
            parsed = orjson.loads(stripped)
            if isinstance(parsed, dict):
                content, content_type = parsed, "json"
    return {"content_type": content_type, "content": content, "output_hash": short_hash(text),
            "redactions_applied": ["secret_env_values"] if Redactor.MARK in text else []}


def case_body(attempt: Attempt, case: Case, data_dir_rel: str, assets: AssetStore
              ) -> dict[str, Any]:
    """The additive parts every case file gets: task, tags, checks, metrics, diff, run."""
    digest = attempt.digest
    recorded = {c["index"]: c for c in attempt.checks}
    checks = []
    for index, check in enumerate(case.checks):
        entry: dict[str, Any] = {"index": index, "type": check.type, "label": check_label(check),
                                 "spec": check_spec(check)}
        if index in recorded:
            entry["result"] = {k: v for k, v in recorded[index].items() if k != "index"}
        checks.append(entry)
    stats = ws.diff_stats(attempt.patch)
    body: dict[str, Any] = {
        "task": case.task, "tags": list(case.tags), "checks": checks,
        "metrics": {"duration_ms": round(attempt.latency_ms), "turns": digest.turns,
                    "tool_calls": len(digest.actions), "input_tokens": digest.input_tokens,
                    "output_tokens": digest.output_tokens,
                    "cost_usd": round(digest.cost_usd, 6),
                    "diff_files": stats.files, "diff_insertions": stats.insertions,
                    "diff_deletions": stats.deletions},
    }
    if attempt.run_dir is not None:
        body["run_folder"] = f"{data_dir_rel}/runs/{attempt.run_dir.name}"
    if attempt.patch:
        item = assets.write(case.id, "diff.patch", attempt.patch, "other")
        body["diff"] = {"href": item.href, "sha256": item.sha256,
                        "files": stats.files, "insertions": stats.insertions,
                        "deletions": stats.deletions}
    return body


def ok_fields(attempt: Attempt) -> dict[str, Any]:
    """``proposed_actions``, ``events`` and ``final_output`` of a successful case."""
    final = final_output(attempt)
    ts = attempt.digest.last_ms or int(time.time() * 1000)
    events = [*attempt.digest.events,
              {"type": "final_output", "ts": ts, "content_type": final["content_type"],
               "content": final["content"]}]
    return {"proposed_actions": attempt.digest.actions, "events": events,
            "final_output": final}
