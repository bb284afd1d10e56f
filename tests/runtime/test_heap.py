"""The engine's entry points take what they built out of the collector's sight."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.runtime import heap
from desktop.runtime.engine import Engine

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


class Cycle:
    """An object in a reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_settle_frees_garbage_then_freezes_what_lives() -> None:
    garbage, kept = Cycle(), Cycle()
    gone = weakref.ref(garbage)
    del garbage
    try:
        frozen = heap.settle()
        assert gone() is None  # collected before the freeze, not frozen with the rest
        assert frozen == gc.get_freeze_count() > 0
        assert not any(o is kept for o in gc.get_objects())  # no pass walks it any more
    finally:
        gc.unfreeze()
    assert any(o is kept for o in gc.get_objects())


def test_cli_run_freezes_the_heap_before_its_engine_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    frozen_at_start: list[int] = []
    original = Engine.run

    async def run(self: Engine, **kwargs: bool) -> str:
        frozen_at_start.append(gc.get_freeze_count())
        return await original(self, **kwargs)

    monkeypatch.setattr(Engine, "run", run)
    code = main(["run", str(EXAMPLES / "single-agent.flow.yaml"), "--data-dir", str(tmp_path)])
    capsys.readouterr()
    assert code == 0
    assert len(frozen_at_start) == 1 and frozen_at_start[0] > 0


async def test_the_service_freezes_the_heap_once_it_listens(tmp_path: Path) -> None:
    import asyncio

    from desktop.api.server import ServeConfig, serve

    frozen_when_ready: list[int] = []
    stop = asyncio.Event()

    def ready(url: str) -> None:
        frozen_when_ready.append(gc.get_freeze_count())
        stop.set()

    task = asyncio.create_task(serve(ServeConfig(data_dir=tmp_path / "data"), ready))
    try:
        await asyncio.wait_for(stop.wait(), 60)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert len(frozen_when_ready) == 1 and frozen_when_ready[0] > 0
