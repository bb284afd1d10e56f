"""Shared pieces of the engine tests: inline workflows, event checks, a fake turn runner."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

from desktop.contract.enums import Mode
from desktop.graph.document import WorkflowDocument
from desktop.runtime.engine import Engine, EngineOptions
from desktop.runtime.recovery import create_run, resume_engine
from desktop.runtime.turn import TurnResult
from desktop.views.reader import EventReader

TERMINAL = {"completed", "failed", "stopped"}


def workflow(nodes: dict[str, Any], edges: list[dict[str, Any]] | None = None,
             task: str = "do the thing", **extra: Any) -> WorkflowDocument:
    """A document from ``{key: {script..., node fields...}}``; the first node is the entry."""
    doc_nodes, configs = [], {}
    for i, (key, spec) in enumerate(nodes.items()):
        spec = dict(spec)
        node = {"id": key, "label": spec.pop("label", key.title()), "entry": i == 0}
        for field in ("capabilities", "permissions", "roleTemplate", "provider"):
            if field in spec:
                node[field] = spec.pop(field)
        doc_nodes.append(node)
        configs[key] = spec
    return WorkflowDocument.model_validate({
        "name": "test", "task": task, "nodes": doc_nodes, "nodeConfigs": configs,
        "edges": edges or [], **extra})


def events_of(run_dir: Path) -> list[dict[str, Any]]:
    """Every event in the run's log."""
    return list(EventReader(run_dir).iter_events())


def of_type(events: list[dict[str, Any]], kind: str, **match: Any) -> list[dict[str, Any]]:
    """Events of ``kind`` whose fields equal ``match``."""
    return [e for e in events if e.get("type") == kind
            and all(e.get(k) == v for k, v in match.items())]


def unconsumed_items(events: list[dict[str, Any]]) -> set[str]:
    """Inbox items queued but never taken by a turn that completed."""
    queued = {e["item"]["id"] for e in of_type(events, "inbox.queued")}
    completed = {e["turnId"] for e in of_type(events, "turn.status", status="completed")}
    consumed = set()
    for e in of_type(events, "turn.status", status="started"):
        if e["turnId"] in completed:
            consumed.update(e.get("inboxItemIds") or [])
    return queued - consumed


def approve_everything(engine: Engine) -> None:
    """Approve each gated call as it is asked, as the user of an example would."""
    loop = asyncio.get_running_loop()
    engine.broker.subscribe(lambda pending: loop.call_soon(
        engine.broker.resolve, pending.approval_id, "approved"))


async def run_doc(doc: WorkflowDocument, data_dir: Path, *, approve: bool = False,
                  **options: Any) -> Engine:
    """Create and run ``doc`` to its end; returns the (closed) engine."""
    engine = create_run(doc, data_dir, options=EngineOptions(**options))
    if approve:
        approve_everything(engine)
    try:
        await asyncio.wait_for(engine.run(), 60)
    finally:
        engine.close()
    return engine


async def resume_to_end(run_dir: Path) -> Engine:
    """Resume the run in ``run_dir`` and run it to its end; returns the (closed) engine."""
    engine = resume_engine(run_dir)
    try:
        await asyncio.wait_for(engine.run(), 60)
    finally:
        engine.close()
    return engine


async def until(predicate, timeout: float = 20.0) -> None:
    """Wait until ``predicate()`` is true (polling; fails the test on timeout)."""
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.02)
    await asyncio.wait_for(poll(), timeout)


async def step_to_end(engine: Engine) -> str:
    """Drive an INTERACTIVE run one step at a time until it ends."""
    task = asyncio.create_task(engine.run())
    steps = 0
    while not task.done():
        await until(lambda: task.done() or (not engine.tasks
                                            and not engine.scheduler.pending_steps()))
        if task.done():
            break
        assert engine.state.mode == Mode.INTERACTIVE
        if any(engine.state.inboxes.values()):
            engine.step()
            steps += 1
        await asyncio.sleep(0)
    return str(await task)


class FakeRunner:
    """A turn runner that returns prepared results (for precise loop-safety scenarios)."""

    def __init__(self, results: dict[str, list[dict[str, Any]]]) -> None:
        self.results = results  # node key -> one spec per turn (the last one repeats)
        self.calls: dict[str, int] = {}

    def __call__(self) -> FakeRunner:
        return self

    async def run(self, ctx) -> TurnResult:
        key = ctx.node.key
        n = self.calls[key] = self.calls.get(key, 0) + 1
        specs = self.results.get(key) or [{}]
        spec = specs[min(n, len(specs)) - 1]
        run_id = f"20260101-{n:06d}0000-{sum(self.calls.values())}"
        if ctx.on_agent_run is not None:
            ctx.on_agent_run(run_id, 1)
        text = spec.get("output", "same output")
        return TurnResult(
            agent_run_id=run_id, exit_code=spec.get("exit", 0), ok=spec.get("exit", 0) == 0,
            output_text=text, output_hash=hashlib.sha256(text.encode()).hexdigest(),
            diff_hash=spec.get("diff"), verification=spec.get("verification"),
            handoff=spec.get("handoff"), session_id=None, done=False, error=spec.get("error"),
            timed_out=False)

    async def cancel(self) -> None:
        return None
