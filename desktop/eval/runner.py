"""``eval run``: every selected case on the baseline and the new workflow, into OUT.

Layout of OUT (all paths inside files are relative)::

    eval.json                     which runs belong to this evaluation
    suite.yaml  workflows/        copies of the inputs, for the record
    baseline/<runId>/run.json     one version directory per side and repeat
    baseline/<runId>/<caseId>.json
    baseline/<runId>/assets/      payloads, diffs, check output, failure bodies + manifest
    new/<runId>/...
    runs/<engineRunId>/           each case's engine run (OUT is a data folder)

A case's time limit is its ``timeoutSec``, else ``--timeout-sec``, else the
suite's ``timeoutSec``, else 600 s. Cases that end with a retryable failure class
(``timeout``, ``network_error``, ``http_5xx``) run again up to ``retries`` times,
after an exponential backoff with jitter; every attempt is recorded.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter, ValidationError

from desktop import __version__
from desktop.contract.artifacts import CaseArtifact, RunLimits
from desktop.contract.base import utc_now
from desktop.disk.atomic import atomic_write_bytes, atomic_write_json
from desktop.eval.case_run import Attempt, case_body, ok_fields, run_attempt
from desktop.eval.failures import Failure, runner_failure
from desktop.eval.index import EvalIndex, VersionRun, read_case_status
from desktop.eval.inputs import EvalPlan
from desktop.eval.portable import Scrubber
from desktop.eval.resume_inputs import SUITE_COPY, subflow_copies, workflow_copy
from desktop.wording import plural

DEFAULT_LIMITS = RunLimits(max_body_bytes=10 * 1024 * 1024, max_inline_snippet_bytes=2048,
                           max_payload_inline_bytes=4096)
RETRY_CLASSES = ("timeout", "network_error", "http_5xx")
CASE_ADAPTER: TypeAdapter[Any] = TypeAdapter(CaseArtifact)
CHECKPOINT_SEC = 2.0
Progress = Callable[[str], None]


@dataclass
class RunOptions:
    repeat: int = 1
    concurrency: int = 2
    timeout_sec: float | None = None
    retries: int = 0
    backoff_sec: float = 1.0
    limits: RunLimits = field(default_factory=lambda: DEFAULT_LIMITS)


def retryable(failure: Failure) -> bool:
    if failure.error_class == "http_error":
        return (failure.status or 0) >= 500
    return failure.error_class in RETRY_CLASSES


class EvalRunner:
    """Runs a plan's jobs with bounded concurrency and writes the artifacts."""

    def __init__(self, plan: EvalPlan, options: RunOptions, progress: Progress | None = None):
        self.plan = plan
        self.options = options
        self.progress = progress or (lambda _line: None)
        self.out = plan.out
        self.index = plan.index
        self.started = time.monotonic()
        self._saved: dict[str, float] = {}

    def timeout_for(self, case: Any) -> float:
        return case.timeout_sec or self.default_timeout

    @property
    def default_timeout(self) -> float:
        return self.options.timeout_sec or self.plan.suite.timeout_sec or 600.0

    async def run(self) -> EvalIndex:
        """Run every job not done yet; the index of the evaluation."""
        self.index.save(self.out)
        versions = self.index.version_runs(self.out)
        for vr in versions:
            self._write_run_json(vr)
        jobs = []
        for case in self.plan.cases:
            for vr in versions:
                if read_case_status(vr.dir / f"{case.id}.json", vr.side) is None:
                    jobs.append((vr, case))
        done = len(versions) * len(self.plan.cases) - len(jobs)
        if done:
            self.progress(f"resuming: {plural(done, 'case run')} already finished")
        gate = asyncio.Semaphore(max(1, self.options.concurrency))

        async def one(vr: VersionRun, case: Any) -> None:
            async with gate:
                await self._job(vr, case)

        try:
            await asyncio.gather(*(one(vr, case) for vr, case in jobs))
            self.index.finished_at = utc_now()
            self.index.save(self.out)
        finally:  # also when interrupted: what finished is listed for a resume
            for vr in versions:
                vr.assets.save_manifest()
                self._write_run_json(vr)
        return self.index

    def _checkpoint(self, vr: VersionRun) -> None:
        """Rewrite the manifest and run.json's stats, at most every CHECKPOINT_SEC (each
        write is fsynced; the case files themselves are written at once)."""
        now = time.monotonic()
        if now - self._saved.get(vr.run_id, 0.0) >= CHECKPOINT_SEC:
            self._saved[vr.run_id] = now
            vr.assets.save_manifest()
            self._write_run_json(vr)

    async def _job(self, vr: VersionRun, case: Any) -> None:
        side = vr.side
        doc = self.plan.docs[side]
        timeout = self.timeout_for(case)
        attempts: list[dict[str, Any]] = []
        attempt: Attempt | None = None
        error: BaseException | None = None
        vr.assets.forget_case(case.id)
        for number in range(1, self.options.retries + 2):
            started_at = utc_now()
            try:
                attempt = await run_attempt(doc, case, self.plan.workspace(case), self.out,
                                            timeout, vr.assets, self.options.limits)
                error = None
            except Exception as exc:  # one broken case must not end the evaluation
                attempt, error = None, exc
            failure = self._failure_of(attempt, error)
            record: dict[str, Any] = {"attempt": number, "started_at": started_at,
                                      "outcome": "ok" if failure is None else "runner_error"}
            if attempt is not None:
                record["latency_ms"] = round(attempt.latency_ms)
                if attempt.run_dir is not None:
                    record["run_folder"] = f"../../runs/{attempt.run_dir.name}"
            if failure is not None:
                record["error_class"] = failure.error_class
            attempts.append(record)
            if failure is None or not retryable(failure) or number > self.options.retries:
                break
            vr.assets.forget_case(case.id)
            delay = min(30.0, self.options.backoff_sec * 2 ** (number - 1))
            await asyncio.sleep(delay * random.uniform(0.5, 1.5))
        artifact = self._artifact(vr, case, attempt, error, attempts, timeout)
        atomic_write_json(vr.dir / f"{case.id}.json", artifact)
        vr.note(case.id, artifact["status"])
        self._checkpoint(vr)
        status = artifact["status"]
        if status != "ok":
            status += f" ({artifact['runner_failure']['class']})"
        seconds = (attempt.latency_ms / 1000) if attempt else 0.0
        self.progress(f"{side:8} r{vr.repeat} {case.id}: {status} ({seconds:.1f} s)")

    def _failure_of(self, attempt: Attempt | None, error: BaseException | None
                    ) -> Failure | None:
        if error is not None:
            return Failure("other", f"{type(error).__name__}: {error}",
                           error_name=type(error).__name__)
        return attempt.failure if attempt is not None else None

    def _artifact(self, vr: VersionRun, case: Any, attempt: Attempt | None,
                  error: BaseException | None, attempts: list[dict[str, Any]],
                  timeout: float) -> dict[str, Any]:
        envelope: dict[str, Any] = {"schema_version": "case.v1", "case_id": case.id,
                                    "version": vr.side,
                                    "workflow_id": self.plan.docs[vr.side].name,
                                    "attempts": attempts}
        body = case_body(attempt, case, "../..", vr.assets) if attempt else {
            "task": case.task, "tags": list(case.tags)}
        failure = self._failure_of(attempt, error)
        scrub = Scrubber(self.out)
        if failure is None and attempt is not None:
            fields = ok_fields(attempt)
            final = fields["final_output"]
            if scrub.redactor.event(final["content"]) != final["content"] and \
                    "secret_env_values" not in final["redactions_applied"]:
                final["redactions_applied"].append("secret_env_values")
            if scrub.obj(final["content"]) != scrub.redactor.event(final["content"]):
                final["redactions_applied"].append("eval_folder_path")
            data = scrub.obj({**envelope, "status": "ok", **fields, **body})
            try:
                return CASE_ADAPTER.validate_python(data).to_json()
            except ValidationError as exc:
                failure = Failure("schema_mismatch", "the response does not fit the case "
                                  f"contract: {exc.errors()[0]['msg']}", error_name="schema")
        assert failure is not None
        data = scrub.obj({**envelope, "status": "runner_error", **body,
                "runner_failure": runner_failure(
                    failure, case_id=case.id, side=vr.side, url=self.plan.base_urls[vr.side],
                    attempt=len(attempts), timeout_ms=round(timeout * 1000),
                    latency_ms=attempt.latency_ms if attempt else 0.0,
                    limits=self.options.limits, assets=vr.assets)})
        return CASE_ADAPTER.validate_python(data).to_json()

    def _write_run_json(self, vr: VersionRun) -> None:
        plan, options = self.plan, self.options
        statuses = vr.statuses()
        data: dict[str, Any] = {
            "schema_version": "run.v1", "run_id": vr.run_id, "version": vr.side,
            "generated_at": utc_now(), "base_url": plan.base_urls[vr.side],
            "cases_path": "../../suite.yaml", "out_dir": "../..",
            "selected_case_ids": [c.id for c in plan.cases],
            "runner_version": f"agent-canvas {__version__}",
            "python_version": sys.version.split()[0],
            "timeout_ms": round(self.default_timeout * 1000), "retries": options.retries,
            "concurrency": options.concurrency,
            "retry_policy": {"classes": list(RETRY_CLASSES), "backoff": "exponential",
                             "jitter": True},
            "limits": options.limits.to_json(),
            "stats": {"cases_total": len(plan.cases),
                      "cases_completed": sum(s == "ok" for s in statuses.values()),
                      "cases_failed": sum(s == "runner_error" for s in statuses.values()),
                      "duration_ms": vr.duration_ms + round(
                          (time.monotonic() - self.started) * 1000)},
            "repeat": vr.repeat, "workflow": plan.docs[vr.side].name,
            "workflow_file": f"../../workflows/{vr.side}.flow.yaml", "suite": plan.suite.name,
        }
        if plan.repo_commit:
            data["repo_commit"] = plan.repo_commit
            data["dirty"] = plan.dirty
        atomic_write_json(vr.dir / "run.json", data)


def copy_inputs(plan: EvalPlan) -> None:
    """The suite, both workflows and the subflow files they run, copied into OUT for the
    record and for ``--resume`` to compare with."""
    plan.out.mkdir(parents=True, exist_ok=True)
    copies = [(plan.suite_path, plan.out / SUITE_COPY)]
    for side, path in plan.workflow_paths.items():
        copies.append((path, workflow_copy(plan.out, side)))
        copies += [(given, kept) for given, kept, _ in subflow_copies(plan.out, side, path)]
    for source, copy in copies:
        if not (copy.exists() and copy.samefile(source)):  # resumed from OUT's own copy
            atomic_write_bytes(copy, source.read_bytes())


async def run_eval(plan: EvalPlan, options: RunOptions,
                   progress: Progress | None = None) -> EvalIndex:
    """Run an evaluation plan to its end (or resume one); its index."""
    copy_inputs(plan)
    return await EvalRunner(plan, options, progress).run()


__all__ = ["DEFAULT_LIMITS", "RunOptions", "run_eval"]
