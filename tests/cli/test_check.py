"""`agent-canvas check run-info`: exit codes and one line per violation."""

from pathlib import Path

import pytest
import yaml

from desktop.cli import main


def write(folder: Path, name: str = "run-info.yaml", **changes) -> Path:
    for file in ("prompt.md", "agent-stdout.txt", "agent-stderr.txt"):
        (folder / file).write_text("")
    data = {
        "version": 1,
        "run_id": "20260204-183042569-12345",
        "project_id": "swarm",
        "task_id": "20260131-205800-planning",
        "parent_run_id": "",
        "previous_run_id": "",
        "agent": "codex",
        "pid": 12345,
        "pgid": 12345,
        "start_time": "2026-02-04T18:30:42.569Z",
        "end_time": "",
        "exit_code": -1,
        "cwd": str(folder),
        "prompt_path": str(folder / "prompt.md"),
        "output_path": str(folder / "output.md"),
        "stdout_path": str(folder / "agent-stdout.txt"),
        "stderr_path": str(folder / "agent-stderr.txt"),
    }
    data.update(changes)
    for key in [k for k, v in data.items() if v is None]:
        del data[key]
    path = folder / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_valid_running_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path)
    assert main(["check", "run-info", str(path)]) == 0
    assert "ok (creation rules)" in capsys.readouterr().out


def test_valid_completed_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, end_time="2026-02-04T18:35:12.789Z", exit_code=1)
    assert main(["check", "run-info", str(path)]) == 0
    assert "ok (completion rules)" in capsys.readouterr().out


def test_every_violation_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, run_id="bad", cwd="rel/dir", pid=0, exit_code=0)
    assert main(["check", "run-info", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    fields = {line.split(": ")[1] for line in lines}
    assert fields == {"run_id", "cwd", "pid", "exit_code"}
    assert all(line.startswith(f"{path}: ") for line in lines)


def test_completion_detected_by_end_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, end_time="2026-02-04T18:00:00Z", exit_code=0)
    assert main(["check", "run-info", str(path)]) == 1
    assert "end_time" in capsys.readouterr().out


def test_unreadable_beats_violations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.yaml", agent="eliza")
    future = write(tmp_path, "future.yaml", version=2)
    missing = tmp_path / "nope.yaml"
    assert main(["check", "run-info", str(bad), str(future), str(missing)]) == 2
    captured = capsys.readouterr()
    assert f"{bad}: agent:" in captured.out
    assert f"{future}: version:" in captured.err
    assert str(missing) in captured.err
    assert "Traceback" not in captured.err


def test_missing_field_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, task_id=None)
    assert main(["check", "run-info", str(path)]) == 2
    assert f"{path}: task_id:" in capsys.readouterr().err


def test_requires_a_file() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", "run-info"])
    assert exc.value.code == 2
