"""Commands say when what they read is broken, instead of answering as if it were fine."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from desktop.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "examples" / "single-agent.flow.yaml"
HOSTILE = ROOT / "tests" / "data" / "hostile"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def run_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["run", str(EXAMPLE), "--data-dir", str(tmp_path / "data")]) == 0
    capsys.readouterr()
    return next((tmp_path / "data" / "runs").iterdir())


@pytest.mark.parametrize("log", [b"", (HOSTILE / "garbage.bin").read_bytes(),
                                 b'{"seq": 1, "type": "run.created"}\n'])
def test_runs_show_says_the_log_is_unreadable(run_dir: Path, capsys, log: bytes) -> None:
    (run_dir / "events.jsonl").write_bytes(log)
    code, out, err = _run(capsys, "runs", "show", run_dir.name, "--data-dir",
                          str(run_dir.parents[1]))
    assert code == 2 and "completed" not in out
    assert f"{run_dir / 'events.jsonl'}" in err and "restore it" in err


def test_runs_show_of_a_sound_run_still_works(run_dir: Path, capsys) -> None:
    code, out, _ = _run(capsys, "runs", "show", run_dir.name, "--data-dir",
                        str(run_dir.parents[1]))
    assert code == 0 and "completed" in out


@pytest.mark.parametrize("name", ["garbage.bin", "binary.bin", "empty.txt",
                                  "deep-maps.jsonl"])
@pytest.mark.parametrize("provider", ["claude", "codex", "gemini"])
def test_import_refuses_what_is_not_an_agent_stream(tmp_path: Path, capsys, name: str,
                                                    provider: str) -> None:
    data = tmp_path / "data"
    code, _, err = _run(capsys, "import", "--provider", provider, str(HOSTILE / name),
                          "--data-dir", str(data))
    assert code == 2 and "no run was made" in err and name in err
    assert not (data / "runs").exists() or not any((data / "runs").iterdir())
    code, _, err = _run(capsys, "normalize", "--provider", provider, str(HOSTILE / name))
    assert code == 2 and name in err


WRONG_TYPES = {
    "claude": [{"type": "assistant", "message": "not an object"},
               {"type": "result", "usage": "lots"}],
    "codex": [{"type": "item.completed", "item": "x"}, {"type": "turn.completed", "usage": 3}],
    "gemini": [{"type": "message", "role": 5, "content": "hi"},
               {"type": "tool_use", "tool_id": "t", "tool_name": "x", "parameters": [1]}],
}


@pytest.mark.parametrize("provider", sorted(WRONG_TYPES))
def test_normalize_notes_fields_of_the_wrong_type(tmp_path: Path, capsys, provider: str
                                                  ) -> None:
    stream = tmp_path / "stream.jsonl"
    lines = [*WRONG_TYPES[provider], {"type": ["not", "a", "string"]}]
    stream.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    code, out, err = _run(capsys, "normalize", "--provider", provider, str(stream))
    assert code == 0
    events = [orjson.loads(line) for line in out.splitlines()]
    notes = [e.get("note", "") for e in events if e["type"] == "agent.raw"]
    assert len(notes) == 3 and all(notes), events
    assert "not a string" in notes[-1]
    assert "3 lines had fields of the wrong type" in err


@pytest.mark.parametrize("bad_type", [5, ["x"], {"a": 1}, None])
def test_replay_notes_events_whose_type_is_not_a_string(run_dir: Path, capsys,
                                                         bad_type: object) -> None:
    log = run_dir / "events.jsonl"
    last = orjson.loads(log.read_bytes().splitlines()[-1])
    with open(log, "ab") as fh:
        fh.write(orjson.dumps({"seq": last["seq"] + 1, "type": bad_type, "id": "x",
                               "runId": last["runId"], "ts": last["ts"]}) + b"\n")
    code, out, err = _run(capsys, "replay", run_dir.name, "--data-dir",
                          str(run_dir.parents[1]))
    assert code in (0, 1) and "Traceback" not in err
    assert f"skipped the event of seq {last['seq'] + 1}" in out, out + err
    assert "not a string" in out


@pytest.mark.parametrize("log", [b"", (HOSTILE / "garbage.bin").read_bytes(),
                                 b'{"seq": 1, "type": "run.created"}\n'])
def test_resume_refuses_a_log_that_lost_the_run_and_leaves_it_alone(
        run_dir: Path, capsys, log: bytes) -> None:
    (run_dir / "events.jsonl").write_bytes(log)
    code, _, err = _run(capsys, "resume", run_dir.name, "--data-dir", str(run_dir.parents[1]))
    assert code == 2 and "nothing was changed" in err
    assert (run_dir / "events.jsonl").read_bytes() == log
