"""`agent-canvas bus post`: appends bus.message events an agent posts; clear errors."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.contract.base import new_id
from desktop.contract.events import parse_event

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bus_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    run_id = new_id()
    bus = tmp_path / "events.jsonl"
    nodes = {nid: {"id": nid, "runId": run_id, "key": key, "label": key.title(),
                   "provider": "scripted"}
             for nid, key in ((new_id(), "writer"), (new_id(), "reviewer"))}
    bus.write_text(json.dumps({"seq": 1, "id": new_id(), "runId": run_id, "type": "run.created",
                               "ts": "2026-01-01T00:00:00.000Z", "nodes": nodes}) + "\n")
    folder = tmp_path / "agent"
    folder.mkdir()
    env = {"MESSAGE_BUS": str(bus), "JRUN_ID": "20260101-1200000000-5",
           "RUN_FOLDER": str(folder), "AGENT_CANVAS_NODE_ID": "node-1"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("AGENT_CANVAS_RUN_ID", "CONDUCTOR_URL"):
        monkeypatch.delenv(name, raising=False)
    return {"bus": bus, "folder": folder, "run_id": run_id, **env}


def _events(bus: Path) -> list[dict]:
    return [json.loads(line) for line in bus.read_text().splitlines()]


def test_post_appends_a_valid_bus_message(bus_env):
    assert main(["bus", "post", "--type", "fact", "tests", "pass"]) == 0
    last = _events(bus_env["bus"])[-1]
    assert last["seq"] == 2 and last["type"] == "bus.message"
    assert last["busType"] == "FACT" and last["message"] == "tests pass"
    assert last["runId"] == bus_env["run_id"]
    assert last["agentRunId"] == "20260101-1200000000-5" and last["nodeId"] == "node-1"
    parse_event(last)


def test_handoff_writes_directive_and_event(bus_env):
    assert main(["bus", "post", "--type", "DECISION", "--handoff", "reviewer", "ready"]) == 0
    assert _events(bus_env["bus"])[-1]["handoffTo"] == "reviewer"
    directive = json.loads((bus_env["folder"] / "handoff.json").read_text())
    assert directive["to"] == "reviewer" and directive["message"] == "ready"


def test_unreachable_conductor_falls_back_to_the_file(bus_env, monkeypatch):
    monkeypatch.setenv("CONDUCTOR_URL", "http://127.0.0.1:9")
    assert main(["bus", "post", "still", "delivered"]) == 0
    assert _events(bus_env["bus"])[-1]["message"] == "still delivered"


def test_missing_message_bus_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.delenv("MESSAGE_BUS", raising=False)
    monkeypatch.delenv("JRUN_MESSAGE_BUS", raising=False)
    assert main(["bus", "post", "hello"]) == 2
    err = capsys.readouterr().err
    assert "MESSAGE_BUS (or JRUN_MESSAGE_BUS) is not set" in err and "Traceback" not in err


def test_bus_file_that_does_not_exist(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("MESSAGE_BUS", str(tmp_path / "nope.jsonl"))
    assert main(["bus", "post", "hello"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_bad_type_is_rejected(bus_env, capsys):
    with pytest.raises(SystemExit):
        main(["bus", "post", "--type", "SHOUT", "hello"])
    assert "SHOUT" in capsys.readouterr().err


@pytest.mark.slow
def test_real_process_post(bus_env):
    env = {k: v for k, v in os.environ.items()}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-m", "desktop", "bus", "post", "-t", "QUESTION",
                           "which way?"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert _events(bus_env["bus"])[-1]["busType"] == "QUESTION"
