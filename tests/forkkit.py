"""Shared pieces of the fork tests: example runs recorded with the workspace at each turn.

A recorded run keeps, for every turn, the files of the turn's workspace as the turn
began (before its agent ran), so a fork at the point before that turn can be checked
against what the original really had there, not against the diffs the fork replays.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.graph.io import load_workflow
from desktop.runtime.engine import Engine, EngineOptions
from desktop.runtime.recovery import create_run
from desktop.runtime.turn import TurnContext, TurnResult, TurnRunner
from desktop.views.node_folder import workspace_path
from desktop.views.reader import EventReader

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "resources" / "examples").rglob("*.flow.yaml"))
IGNORED = ("__pycache__", ".pytest_cache")
PLACEHOLDER = "<run>"


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> bytes), but git's and Python's caches."""
    if not folder.is_dir():
        return {}
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if rel.parts[0] == ".git" or any(p in IGNORED for p in rel.parts) \
                or path.suffix == ".pyc" or not path.is_file():
            continue
        out[rel.as_posix()] = path.read_bytes()
    return out


def lineage_free(event: dict[str, Any], run_id: str) -> dict[str, Any]:
    """``event`` with what a fork may change taken out: every ``runId`` naming ``run_id``
    (at any depth) becomes a placeholder, and ``run.created`` loses ``forkedFrom``."""
    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: PLACEHOLDER if k == "runId" and v == run_id else walk(v)
                    for k, v in value.items() if not (k == "forkedFrom" and
                                                      value.get("type") == "run.created")}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value
    return walk(event)


def events_of(run_dir: Path) -> list[dict[str, Any]]:
    return list(EventReader(run_dir).iter_events())


class _Recording(TurnRunner):
    """A turn runner that notes the workspace's files as each turn begins."""

    def __init__(self, seen: dict[frozenset[str], dict[str, bytes]]) -> None:
        super().__init__()
        self.seen = seen

    async def run(self, ctx: TurnContext) -> TurnResult:
        key = frozenset(item["id"] for item in ctx.items)
        if key not in self.seen:
            folder = workspace_path(ctx.config.workspace, ctx.workflow_dir, ctx.run_dir)
            self.seen[key] = files_of(folder)
        return await super().run(ctx)


@dataclass
class Recorded:
    """An example run and what its workspace held before each turn and at the end."""

    flow: Path
    run_dir: Path
    events: list[dict[str, Any]]
    before_turn: dict[frozenset[str], dict[str, bytes]] = field(default_factory=dict)
    final: dict[str, bytes] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        return self.events[0]["runId"]

    def workspace_at(self, seq: int) -> dict[str, bytes]:
        """The files the workspace held after event ``seq`` (a fork point)."""
        following = [e for e in self.events if e["seq"] == seq + 1]
        if not following:
            return self.final
        started = following[0]
        assert started["type"] == "turn.status" and started["status"] == "started", started
        # A subflow node's step runs no agent and changes no file: the workspace is the
        # one the next agent turn found.
        for event in self.events[seq:]:
            if event["type"] == "turn.status" and event["status"] == "started":
                key = frozenset(event["inboxItemIds"])
                if key in self.before_turn:
                    return self.before_turn[key]
        return self.final


def approve_everything(engine: Engine) -> None:
    """Approve each gated call as it is asked, as the user of an example would."""
    loop = asyncio.get_running_loop()
    engine.broker.subscribe(lambda pending: loop.call_soon(
        engine.broker.resolve, pending.approval_id, "approved"))


async def run_to_end(engine: Engine, timeout: float = 120) -> str:
    """Run an engine (approving every call) until it ends; close it; its final status."""
    approve_everything(engine)
    try:
        return str(await asyncio.wait_for(engine.run(), timeout))
    finally:
        engine.close()


def record(flow: Path, data_dir: Path) -> Recorded:
    """Run the workflow ``flow`` to its end and keep what the fork tests compare with."""
    seen: dict[frozenset[str], dict[str, bytes]] = {}
    options = EngineOptions(runner_factory=lambda: _Recording(seen))
    engine = create_run(load_workflow(flow), data_dir, workflow_path=str(flow),
                        options=options)
    status = asyncio.run(run_to_end(engine))
    assert status == "completed", f"{flow.name} ended {status}"
    run_dir = engine.run_dir
    return Recorded(flow, run_dir, events_of(run_dir), seen,
                    files_of(run_dir / "workspace"))
