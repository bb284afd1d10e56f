"""Files of a run folder replaced by symbolic links are refused, never followed."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.providers.process import AgentProcess
from desktop.runtime.agent_folder import ensure_output, read_handoff
from desktop.store.eventlog import EventLog, append_external
from desktop.store.safe_open import RunFileError, open_file, read_bytes
from desktop.store.snapshot import read_snapshot

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symbolic links")
EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "single-agent.flow.yaml"


@pytest.fixture
def finished_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    data = tmp_path / "data"
    assert main(["run", str(EXAMPLE), "--data-dir", str(data)]) == 0
    capsys.readouterr()
    [run_dir] = (data / "runs").iterdir()
    return run_dir


def _link_outside(run_dir: Path, name: str, outside: Path) -> bytes:
    shutil.copyfile(run_dir / name, outside)
    (run_dir / name).unlink()
    (run_dir / name).symlink_to(outside)
    return outside.read_bytes()


@pytest.mark.parametrize("name", ["events.jsonl", "state.json", "events.jsonl.lock",
                                  "engine.lock"])
@pytest.mark.parametrize("command", ["resume", "replay", "runs show"])
def test_commands_refuse_a_run_whose_file_is_a_link(
        finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        name: str, command: str) -> None:
    outside = tmp_path / f"outside-{name}"
    if not (finished_run / name).exists():
        (finished_run / name).write_bytes(b"")
    before = _link_outside(finished_run, name, outside)
    argv = [*command.split(), finished_run.name, "--data-dir", str(finished_run.parents[1])]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{finished_run / name}: is a symbolic link" in err and "Traceback" not in err
    assert outside.read_bytes() == before


def test_the_log_writer_and_appender_refuse_links(tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(b"")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "events.jsonl").symlink_to(outside)
    with pytest.raises(RunFileError):
        EventLog.open(run_dir)
    with pytest.raises(RunFileError):
        append_external(run_dir / "events.jsonl", {"type": "bus.message", "message": "x"})
    assert outside.read_bytes() == b""


def test_snapshot_behind_a_link_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "state.json"
    outside.write_text("{}")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "state.json").symlink_to(outside)
    assert read_snapshot(run_dir) is None
    with pytest.raises(RunFileError, match="symbolic link"):
        read_bytes(run_dir / "state.json")


def test_agent_files_made_links_by_the_agent_are_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY MATERIAL")
    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / "output.md").symlink_to(secret)
    assert ensure_output(folder, "final words") == "final words"
    assert not (folder / "output.md").is_symlink() and secret.read_text().startswith("PRIVATE")
    (folder / "handoff.json").symlink_to(secret)
    directive, problem = read_handoff(folder)
    assert directive is None and "symbolic link" in problem


def test_agent_output_copies_are_not_written_through_links(tmp_path: Path) -> None:
    target = tmp_path / "bashrc"
    target.write_text("original\n")
    link = tmp_path / "agent-stdout.txt"
    link.symlink_to(target)
    proc = AgentProcess(["true"], cwd=tmp_path, env=dict(os.environ), stdout_path=link)
    with pytest.raises(RunFileError):
        asyncio.run(proc.start())
    assert target.read_text() == "original\n"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "events.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(RunFileError, match="not a regular file"):
        open_file(fifo, "rb")
