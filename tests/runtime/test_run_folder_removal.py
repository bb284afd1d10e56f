"""A deleted run's folder goes at once and for good: renamed out of the runs' names
before it is removed, removed again when a late writer's file lands in the middle, and
never brought back by a cache of the run's written after it went."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest

from desktop.runtime import run_delete
from desktop.store.index import OffsetIndex


def _run_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "runs" / "1a2b3c4d-0000-4000-8000-000000000001"
    (folder / "agent-runs" / "x").mkdir(parents=True)
    (folder / "events.jsonl").write_text("{}\n")
    (folder / "agent-runs" / "x" / "output.md").write_text("done\n")
    return folder


def test_a_late_writers_file_in_the_middle_of_the_removal_is_removed_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _run_folder(tmp_path)
    real = shutil.rmtree
    calls: list[Path] = []

    def racing(path, *args, **kwargs):  # as the event index written meanwhile does
        calls.append(Path(path))
        if len(calls) == 1:
            (Path(path) / "events.idx").write_text("{}")
            raise OSError(errno.ENOTEMPTY, "Directory not empty", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(run_delete.shutil, "rmtree", racing)
    run_delete.remove_folder(folder)
    assert not folder.exists() and list((tmp_path / "runs").iterdir()) == []
    assert len(calls) == 2 and calls[0].name.startswith(".deleting-")


def test_what_a_writer_keeps_leaving_stays_hidden_not_a_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _run_folder(tmp_path)

    def never(path, *args, **kwargs):
        if kwargs.get("ignore_errors"):
            return None
        raise OSError(errno.ENOTEMPTY, "Directory not empty", str(path))

    monkeypatch.setattr(run_delete.shutil, "rmtree", never)
    monkeypatch.setattr(run_delete.time, "sleep", lambda _s: None)
    run_delete.remove_folder(folder)
    assert not folder.exists()
    [left] = (tmp_path / "runs").iterdir()
    assert left.name.startswith(f".deleting-{folder.name}-")


def test_the_event_index_does_not_bring_back_a_deleted_run_folder(tmp_path: Path) -> None:
    folder = _run_folder(tmp_path)
    index = OffsetIndex(folder)
    shutil.rmtree(folder)
    index._save()  # a reader that was paging the run as it went
    assert not folder.exists()
