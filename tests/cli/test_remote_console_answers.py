"""The console of a run in the service (`run/resume --server URL`) answers every line as
the in-process console does: an `approve` whose id matches nothing is said at once
(the turn waiting for that very approval does not count as busy), and at the end of the
input the console ends with exit 3, the run left waiting, instead of waiting for ever."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import orjson
import pytest
import yaml
from service_process import ServeProcess

from desktop.cli import main

GATED = {
    "name": "gated", "task": "t",
    "nodes": [{"id": "worker", "label": "Worker", "entry": True,
               "permissions": {"cliPermissionsMode": "gated"}}],
    "nodeConfigs": {"worker": {"script": [{"shell": "echo one"}, {"say": "done"},
                                          {"done": True}]}},
}
LINES = "approve zzzz\nfrobnicate\ndeny\n"
"""A mistyped approval, an unknown command, then a decision that does go through."""


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> ServeProcess:
    svc = ServeProcess(tmp_path_factory.mktemp("console-service"))
    yield svc
    svc.stop()


def _cli(capsys, monkeypatch, *args: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _flow(tmp_path: Path) -> str:
    path = tmp_path / "gated.flow.yaml"
    path.write_text(yaml.safe_dump(GATED))
    return str(path)


def _answers(out: str) -> list[str]:
    """The console's answers among the lines of the plain view."""
    return [line for line in out.splitlines()
            if line.startswith(("approve:", "unknown command", "denied:"))]


@pytest.mark.timeout(120)
def test_a_mistyped_approval_is_said_and_the_end_of_input_ends_the_console(
        service, tmp_path, capsys, monkeypatch) -> None:
    server = ["--server", service.url, "--data-dir", str(service.data_dir)]
    code, _out, err = _cli(capsys, monkeypatch, "run", _flow(tmp_path), *server)
    assert code == 3, err  # the approval waits in the service
    run_id = orjson.loads(_cli(capsys, monkeypatch, "runs", "list", "--json",
                               *server)[1])[0]["id"]

    code, out, err = _cli(capsys, monkeypatch, "resume", run_id[:8], *server,
                          stdin="approve zzzz\nfrobnicate\nstatus\n")
    assert code == 3, err
    assert any(line.startswith("│ Worker") for line in out.splitlines()), out  # the table
    assert "approve: no pending approval matches 'zzzz'" in out
    assert "unknown command 'frobnicate'" in out
    assert "waits for input in the service" in err

    remote_code, remote_out, _ = _cli(capsys, monkeypatch, "resume", run_id[:8], *server,
                                      stdin=LINES)
    local_code, local_out, _ = _cli(capsys, monkeypatch, "run", _flow(tmp_path),
                                    "--data-dir", str(tmp_path / "local"), stdin=LINES)
    assert [a.split(":")[0] for a in _answers(remote_out)] == \
        [a.split(":")[0] for a in _answers(local_out)] == \
        ["approve", "unknown command 'frobnicate'; type `help`", "denied"]
    assert _answers(remote_out)[0] == _answers(local_out)[0]
    assert remote_code == local_code == 0
