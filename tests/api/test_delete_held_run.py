"""DELETE of a run an `agent-canvas run` in a terminal holds: refused at once, whatever
that engine does meanwhile (it is stopped there), and deleted once it has let the run go."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from api_helpers import Api
from terminal_run import TerminalRun, gated_flow

from desktop.api.folded import FoldedRuns


@pytest.fixture
def terminal(api: Api, tmp_path: Path) -> Iterator[TerminalRun]:
    held = TerminalRun(gated_flow(tmp_path), api.data)
    yield held
    held.close()


@pytest.mark.parametrize("force", [True, False])
async def test_a_run_held_in_a_terminal_is_refused_before_its_engine_can_let_go(
        api: Api, terminal: TerminalRun, monkeypatch: pytest.MonkeyPatch,
        force: bool) -> None:
    """Should the terminal's run end while the service looks at the run (here: as soon
    as its log is read), the run is still refused: the terminal reports it done and the
    user takes its result from it."""
    fold = FoldedRuns.state

    async def ending(self: FoldedRuns, folder: Path) -> object:
        if Path(folder) == terminal.folder:
            await asyncio.to_thread(terminal.let_go)
        return await fold(self, folder)

    monkeypatch.setattr(FoldedRuns, "state", ending)
    query = "?force=true" if force else ""
    body = await api.json("DELETE", f"/api/runs/{terminal.run_id}{query}", 409)
    assert body["error"]["code"] == "run_busy"
    message = body["error"]["message"]
    assert f"run {terminal.run_id} is held by an engine outside this service" in message
    assert "in a terminal" in message and "stop it there (Ctrl-C" in message
    assert (terminal.folder / "events.jsonl").is_file()

    assert terminal.let_go() == 3  # paused: stdin closed with its approval pending
    await api.json("DELETE", f"/api/runs/{terminal.run_id}", 200)
    assert not terminal.folder.exists()
