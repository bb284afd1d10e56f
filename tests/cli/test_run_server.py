"""`run`, `resume` and `runs` with ``--server URL``: the terminal as a client of the service."""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
import yaml
from service_process import ServeProcess

from desktop.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"

GATED = {
    "name": "gated", "task": "t",
    "nodes": [{"id": "worker", "label": "Worker", "entry": True,
               "permissions": {"cliPermissionsMode": "gated"}}],
    "nodeConfigs": {"worker": {"script": [{"shell": "echo one"}, {"shell": "echo two"},
                                          {"say": "done"}, {"done": True}]}},
}
TWO = {
    "name": "two", "task": "t",
    "nodes": [{"id": "lead", "label": "Lead", "entry": True}, {"id": "helper", "label": "Helper"}],
    "nodeConfigs": {"lead": {"script": [{"handoff": {"to": "helper", "message": "go"}}]},
                    "helper": {"script": [{"say": "on it"}]}},
    "edges": [{"from": "lead", "to": "helper"}],
}


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> ServeProcess:
    svc = ServeProcess(tmp_path_factory.mktemp("cli-service"))
    yield svc
    svc.stop()


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, service):
    """Run a command against the service (token from its data folder); ``stdin`` piped in."""
    def run(*args: str, stdin: str = "", server: bool = True) -> Result:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        extra = ["--server", service.url, "--data-dir", str(service.data_dir)] if server else []
        code = main([*args, *extra])
        out = capsys.readouterr()
        return Result(code, out.out, out.err)
    return run


def write(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / f"{doc['name']}.flow.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def log_of(service: ServeProcess, run_id: str) -> list[dict]:
    lines = (service.data_dir / "runs" / run_id / "events.jsonl").read_bytes().splitlines()
    return [orjson.loads(line) for line in lines]


def test_a_run_in_the_service_prints_every_event_once_in_order(cli, service) -> None:
    result = cli("run", str(EXAMPLES / "plan-implement-review.flow.yaml"), "--json")
    assert result.returncode == 0, result.stderr
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "run.created" and events[-1]["type"] == "run.completed"
    assert log_of(service, events[0]["runId"]) == events  # the service wrote it, not us


def test_stdin_commands_resolve_approvals_through_the_api(cli, service, tmp_path) -> None:
    result = cli("run", str(write(tmp_path, GATED)), stdin="approve\ndeny not this one\n")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "approved:" in result.stdout and "denied:" in result.stdout
    runs = orjson.loads(cli("runs", "list", "--json").stdout)
    events = log_of(service, runs[0]["id"])
    resolved = [e["resolution"] for e in events if e["type"] == "approval.resolved"]
    assert [r["status"] for r in resolved] == ["approved", "denied"]
    assert {r.get("by") for r in resolved} == {"cli"}  # a person, in the terminal
    assert resolved[1]["reason"] == "not this one"


def test_interactive_steps_from_stdin(cli, service, tmp_path) -> None:
    result = cli("run", str(write(tmp_path, TWO)), "--mode", "interactive",
                 stdin="step\nstep helper\n")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "step: Lead" in result.stdout and "step: Helper" in result.stdout


def test_commands_parse_as_in_process_and_switch_modes_in_the_service(cli, service,
                                                                     tmp_path) -> None:
    result = cli("run", str(write(tmp_path, TWO)), "--mode", "interactive",
                 stdin="frobnicate\nchat\nmode planning\nstep\nstep helper\n")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "unknown command 'frobnicate'" in result.stdout
    assert "chat: usage: chat NODE TEXT" in result.stdout
    runs = orjson.loads(cli("runs", "list", "--json").stdout)
    modes = [e for e in log_of(service, runs[0]["id"]) if e["type"] == "run.mode"]
    assert [e.get("globalMode") for e in modes] == ["PLANNING"]


def test_a_waiting_run_stays_in_the_service_and_resume_finishes_it(cli, service,
                                                                   tmp_path) -> None:
    first = cli("run", str(write(tmp_path, GATED)))  # no commands: the approval waits
    assert first.returncode == 3
    assert "waits for input in the service" in first.stderr
    runs = orjson.loads(cli("runs", "list", "--json").stdout)
    waiting = runs[0]
    assert waiting["live"] and waiting["status"] == "running"  # still driven by the service
    shown = cli("runs", "show", waiting["id"][:8])
    assert shown.returncode == 0
    [line] = [x for x in shown.stdout.splitlines() if x.startswith("pending approval ")]
    assert line.endswith(" from Worker: command: $ echo one"), line  # what it asks, in words
    resumed = cli("resume", waiting["id"][:8], "--json", stdin="approve\napprove\n")
    assert resumed.returncode == 0, resumed.stderr
    events = [orjson.loads(line) for line in resumed.stdout.splitlines()]
    log = log_of(service, waiting["id"])
    assert events == log[len(log) - len(events):]  # only what came after the resume
    assert events[-1]["type"] == "run.completed"


def test_no_token_for_another_url_is_a_clear_error(cli, service, tmp_path,
                                                   monkeypatch) -> None:
    result = cli("runs", "list", "--server", "http://127.0.0.1:9", "--data-dir",
                 str(service.data_dir), server=False)
    assert result.returncode == 2
    assert "no token for http://127.0.0.1:9" in result.stderr
    assert "AGENT_CANVAS_TOKEN" in result.stderr and "--token-file" in result.stderr
    monkeypatch.setenv("AGENT_CANVAS_TOKEN", "nope")  # not on argv, where ps shows it
    wrong = cli("runs", "list", "--server", service.url, server=False)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert wrong.stderr.startswith("runs list:")


def test_unknown_run_is_a_clear_error(cli) -> None:
    result = cli("runs", "show", "ffffffff")
    assert result.returncode == 2 and "no run matching 'ffffffff'" in result.stderr


def test_fork_through_the_service_follows_the_new_run_to_its_end(cli, service) -> None:
    first = cli("run", str(EXAMPLES / "plan-implement-review.flow.yaml"), "--json")
    source = orjson.loads(first.stdout.splitlines()[0])["runId"]
    listed = cli("fork", source[:8], "--list")
    assert listed.returncode == 0 and "before Reviewer's turn 1" in listed.stdout
    seq = int(next(line for line in listed.stdout.splitlines()
                   if "Reviewer's turn 1" in line).split()[0])
    result = cli("fork", source[:8], "--at", str(seq), "--node", "reviewer",
                 "--instructions", "Be strict.", "--json")
    assert result.returncode == 0, result.stderr
    assert f"forked run {source[:8]} as " in result.stderr
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["type"] == "run.forked" and events[0]["seq"] == seq + 1
    assert events[-1]["type"] == "run.completed"
    assert log_of(service, events[0]["runId"])[0]["forkedFrom"] == {"runId": source,
                                                                   "seq": seq}
    bad = cli("fork", source[:8], "--at", str(seq), "--node", "ghost", "--model", "x")
    assert bad.returncode == 2 and "node 'ghost'" in bad.stderr


def test_a_run_in_the_service_says_where_its_result_is(cli, service, tmp_path) -> None:
    import subprocess

    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    doc = yaml.safe_load((EXAMPLES / "orchestrator-two-implementers.flow.yaml").read_text())
    for node in doc["nodes"]:
        doc.setdefault("nodeConfigs", {}).setdefault(node["id"], {})["workspace"] = str(repo)
    doc["name"] = "orchestrated"
    result = cli("run", str(write(tmp_path, doc)))
    assert result.returncode == 0, result.stderr
    run8 = orjson.loads(cli("runs", "list", "--json").stdout)[0]["id"][:8]
    assert f"result: branch canvas/{run8}/orchestrator (node orchestrator) in {repo}, " \
           "4 files changed" in result.stderr
    assert f"agent-canvas runs apply {run8} --server {service.url}" in result.stderr
    plain = cli("run", str(EXAMPLES / "single-agent.flow.yaml"))
    assert plain.returncode == 0 and "result:" not in plain.stderr  # no worktree, no branch
