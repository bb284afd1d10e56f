"""A decision typed at the service's console returns once the stream shows it: the next
line, or the end of the input, meets the run as the service has it, not a request that
still looks pending (which made `run --server` say "waits for input" and exit 3)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from desktop.cli.remote import RemoteRun
from desktop.cli.remote_console import RemoteConsole
from desktop.graph.document import WorkflowDocument
from desktop.runtime.recovery import create_run
from desktop.views.reader import LogTail

LAG = 0.3  # how long the stream takes to bring the decision back, in this test


def _events(tmp_path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A run's first events with a pending request, and the event that decides it."""
    doc = WorkflowDocument.model_validate({
        "name": "one", "task": "do it",
        "nodes": [{"id": "solo", "label": "Solo", "entry": True}],
        "nodeConfigs": {"solo": {"script": [{"say": "hi"}]}}})
    engine = create_run(doc, tmp_path)
    try:
        node_id = next(iter(engine.state.nodes))
        engine.recorder.emit({"type": "approval.requested", "approvalId": "ap1",
                              "nodeId": node_id, "tool": {"id": "t", "name": "command",
                                                          "args": {"cmd": "ls"}}})
        engine.recorder.emit({"type": "approval.resolved", "approvalId": "ap1",
                              "resolution": {"status": "approved", "by": "user"}})
        engine.recorder.flush()
        events = LogTail(engine.run_dir).read_new()
    finally:
        engine.close()
    return events[:-1], events[-1]


class LaggingService:
    """Takes each command at once; its stream brings the decision back LAG seconds later."""

    def __init__(self, run: list[RemoteRun], decided: dict[str, Any]) -> None:
        self.run = run
        self.decided = decided
        self.sent: list[Any] = []

    async def send(self, run_id: str | None, command: Any) -> dict:
        self.sent.append(command)
        loop = asyncio.get_running_loop()
        loop.call_later(LAG, self.run[0].apply, [self.decided])
        return {}


async def test_approve_returns_once_the_stream_shows_the_request_closed(tmp_path: Path):
    before, decided = _events(tmp_path)
    holder: list[RemoteRun] = []
    service = LaggingService(holder, decided)
    run = RemoteRun(service, before[0]["runId"])  # type: ignore[arg-type]
    holder.append(run)
    run.apply(before)
    assert "ap1" in run.state.pending_approvals and run.waiting_for_input()
    said: list[str] = []
    await RemoteConsole(run, said.append, lambda: None).execute("approve")
    assert [type(c).__name__ for c in service.sent] == ["Resolve"]
    assert said == ["approved: ap1"]
    assert "ap1" not in run.state.pending_approvals  # the console saw it closed
    assert not run.waiting_for_input()
