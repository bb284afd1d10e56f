"""`agent-canvas run` and `resume` as a user runs them: exit codes, output, stdin commands."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
import yaml

from desktop.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT))


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Run the command in this process; ``stdin`` text is piped in as commands."""
    def run(*args: str, stdin: str | None = None) -> Result:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(list(args))
        out = capsys.readouterr()
        return Result(code, out.out, out.err)
    return run


def flow(tmp_path: Path, nodes: dict, edges: list | None = None, **extra) -> Path:
    doc = {"name": "cli test", "task": "t", "edges": edges or [], **extra,
           "nodes": [{"id": k, "label": k.title(), "entry": i == 0} for i, k in enumerate(nodes)],
           "nodeConfigs": {k: v for k, v in nodes.items() if v}}
    for node in doc["nodes"]:
        perms = nodes[node["id"]].pop("permissions", None) if nodes[node["id"]] else None
        if perms:
            node["permissions"] = perms
    path = tmp_path / "test.flow.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_example_completes_with_exit_0(cli, tmp_path: Path) -> None:
    result = cli("run", str(EXAMPLES / "single-agent.flow.yaml"), "--data-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "run.completed" in result.stdout


def test_json_prints_every_event_once_in_order(cli, tmp_path: Path) -> None:
    result = cli("run", str(EXAMPLES / "single-agent.flow.yaml"), "--data-dir", str(tmp_path),
                 "--json")
    assert result.returncode == 0
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "run.created" and events[-1]["type"] == "run.completed"
    log = (tmp_path / "runs" / events[0]["runId"] / "events.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line) for line in log] == events


def test_bad_input_exits_2(cli, tmp_path: Path) -> None:
    missing = cli("run", str(tmp_path / "nope.flow.yaml"), "--data-dir", str(tmp_path))
    assert missing.returncode == 2 and "no such workflow file" in missing.stderr
    # a folder is told as one, with the fix, as validate tells it: not as missing
    for command in ("run", "rehearse"):
        folder = cli(command, str(tmp_path), "--data-dir", str(tmp_path))
        assert folder.returncode == 2, command
        assert f"{tmp_path}: is a folder, not a workflow file — give the path of a " \
            "*.flow.yaml file inside it" in folder.stderr, (command, folder.stderr)
    bad = flow(tmp_path, {"a": {}}, [{"from": "a", "to": "ghost"}])
    invalid = cli("run", str(bad), "--data-dir", str(tmp_path))
    assert invalid.returncode == 2
    assert "ghost" in invalid.stderr and "invalid workflow" in invalid.stderr
    assert cli("resume", "feedface", "--data-dir", str(tmp_path)).returncode == 2


def test_failed_node_exits_1(cli, tmp_path: Path) -> None:
    path = flow(tmp_path, {"a": {"script": [{"fail": "cannot do it"}]}})
    result = cli("run", str(path), "--data-dir", str(tmp_path))
    assert result.returncode == 1
    assert "run.failed" in result.stdout
    assert "takes the failed turn again" in result.stderr and "agent-canvas resume" in \
        result.stderr


def test_interactive_steps_from_stdin_then_resume(cli, tmp_path: Path) -> None:
    example = str(EXAMPLES / "plan-implement-review.flow.yaml")
    first = cli("run", example, "--mode", "interactive", "--data-dir", str(tmp_path),
                stdin="step\nstatus\n")
    assert first.returncode == 3, first.stdout + first.stderr
    assert "step: Planner" in first.stdout and "agent-canvas resume" in first.stderr
    run_id = next((tmp_path / "runs").iterdir()).name
    second = cli("resume", run_id[:8], "--data-dir", str(tmp_path), stdin="step\n" * 5)
    assert second.returncode == 0, second.stdout + second.stderr
    assert second.stdout.count("step:") == 5


def test_approvals_from_stdin(cli, tmp_path: Path) -> None:
    nodes = {"a": {"permissions": {"cliPermissionsMode": "gated"},
                   "script": [{"shell": "echo one"}, {"shell": "echo two"},
                              {"shell": "echo three"}]}}
    path = flow(tmp_path, nodes)
    result = cli("run", str(path), "--data-dir", str(tmp_path),
                 stdin='approve\ndeny not this one\nmodify {"cmd": "echo changed"}\n')
    assert result.returncode == 0, result.stdout + result.stderr
    assert "approval" in result.stdout
    assert "refused by a person in the terminal (not this one)" in result.stdout
    stdout = (next((tmp_path / "runs").glob("*/agents/*/agent-stdout.txt"))).read_text()
    assert "changed" in stdout


def test_mistyped_commands_fail_while_an_approval_waits(cli, tmp_path: Path) -> None:
    path = flow(tmp_path, {"a": {"permissions": {"cliPermissionsMode": "gated"},
                                 "script": [{"shell": "echo one"}, {"shell": "echo two"}]}})
    result = cli("run", str(path), "--data-dir", str(tmp_path),
                 stdin="chat ghost hi\napprove zzzz\napprove\n")
    assert "chat: no node matches 'ghost'" in result.stdout
    assert "approve: no pending approval matches 'zzzz'" in result.stdout
    # the commands after them still ran: the first call was approved, the second one
    # waits with stdin at its end, so the run pauses
    assert "approved:" in result.stdout
    assert result.returncode == 3, result.stdout + result.stderr


def test_pending_approval_without_stdin_pauses_with_exit_3(cli, tmp_path: Path) -> None:
    path = flow(tmp_path, {"a": {"permissions": {"cliPermissionsMode": "gated"},
                                 "script": [{"shell": "echo one"}]}})
    result = cli("run", str(path), "--data-dir", str(tmp_path))
    assert result.returncode == 3
    assert "APPROVAL" in result.stdout


def test_stall_without_stdin_exits_3_with_evidence(cli, tmp_path: Path) -> None:
    path = flow(tmp_path, {"a": {"script": [{"say": "again"}]},
                           "b": {"script": [{"say": "and again"}]}},
                [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}])
    result = cli("run", str(path), "--data-dir", str(tmp_path))
    assert result.returncode == 3
    assert "STALLED" in result.stdout and "again" in result.stdout


def test_sigint_stops_the_run_with_exit_4(tmp_path: Path) -> None:
    path = flow(tmp_path, {"a": {"script": [{"say": "waiting"}, {"sleep": 60}]}})
    with subprocess.Popen([sys.executable, "-m", "desktop", "run", str(path), "--data-dir",
                           str(tmp_path), "--json"], stdout=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, env=_env(), cwd=ROOT) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if orjson.loads(line).get("busType") == "RUN_START":
                break
        proc.send_signal(signal.SIGINT)
        rest = proc.stdout.read()
        assert proc.wait(30) == 4
    assert b'"run.stopped"' in rest


def test_the_engine_s_note_on_a_node_s_folder_is_printed_where_the_run_is_followed(
        cli, tmp_path: Path) -> None:
    """Not only in the node's transcript: a worktree asked for outside git works in the
    folder itself, which the user should read as the run goes."""
    plain = tmp_path / "plain"
    plain.mkdir()
    path = flow(tmp_path, {"a": {"workspace": str(plain), "isolation": "worktree",
                                 "script": [{"say": "hi"}]}})
    result = cli("run", str(path), "--data-dir", str(tmp_path / "data"))
    assert result.returncode == 0, result.stderr
    [line] = [line for line in result.stdout.splitlines() if "isolation:" in line]
    assert line.startswith("[A] isolation: worktree has no effect: ")
    assert str(plain) in line
