"""`runs delete RUN --force` with a service up, of a run an `agent-canvas run` in a
terminal holds: the command refuses it itself, before the service is handed anything,
so that the terminal's engine ending meanwhile cannot get its run deleted as the terminal
reports the run's result. Once that engine has let the run go, the run is deleted."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_kit import Cli, make_cli
from service_process import ServeProcess
from terminal_run import TerminalRun, gated_flow

from desktop.api.client import ApiClient


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    svc = ServeProcess(tmp_path_factory.mktemp("held-service"))
    yield svc
    svc.stop()


@pytest.fixture
def terminal(service: ServeProcess, tmp_path: Path) -> Iterator[TerminalRun]:
    held = TerminalRun(gated_flow(tmp_path), service.data_dir)
    yield held
    held.close()


HELD = ("error: run {run8} is held by an engine outside a service (an `agent-canvas run` "
        "or `resume` in a terminal); stop it there (Ctrl-C), then delete it\n")
LET_GO = ("error: run {run8} was let go by the engine that held it as this looked (it ended "
          "or paused; a terminal that ran it says so there); look at it with `agent-canvas "
          "runs show {run8}`, then delete it again\n")


@pytest.mark.parametrize(("ends_before", "refusal"), [("delete_run", HELD),
                                                      ("list_runs", LET_GO)])
def test_force_refuses_a_run_a_terminal_holds_whenever_its_engine_lets_go(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        service: ServeProcess, terminal: TerminalRun, ends_before: str,
        refusal: str) -> None:
    """The terminal's engine ends just before the service is asked this (``ends_before``):
    the run was seen held outside the service, and stays."""
    cli: Cli = make_cli(capsys, monkeypatch, ["--data-dir", str(service.data_dir)])
    call = getattr(ApiClient, ends_before)

    async def ending_first(self: ApiClient, *args: Any, **kwargs: Any) -> Any:
        await asyncio.to_thread(terminal.let_go)
        return await call(self, *args, **kwargs)

    monkeypatch.setattr(ApiClient, ends_before, ending_first)
    run8 = terminal.run_id[:8]
    said = cli("runs", "delete", run8, "--force")
    assert said.code == 1 and said.out == ""
    assert said.err == refusal.format(run8=run8)
    assert (terminal.folder / "events.jsonl").is_file()

    assert terminal.let_go() == 3  # paused: stdin closed with its approval pending
    monkeypatch.setattr(ApiClient, ends_before, call)
    gone = cli("runs", "delete", run8)
    assert gone.code == 0 and gone.out.startswith(f"deleted run {run8}: "), gone.err
    assert not terminal.folder.exists()
