"""The built app runs everything it needs with no Python and no source tree.

Each test runs twice: from the unpacked tarball and from the extracted .deb
(``dpkg -x``), inside the clean room of harness.py.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest

from desktop import __version__
from desktop.cli.self_launch import INTERNAL_COMMANDS
from tests.dist.harness import REPO, CleanRoom, stop

pytestmark = pytest.mark.dist

EXAMPLES = sorted(p.relative_to(REPO / "resources" / "examples")
                  for p in (REPO / "resources" / "examples").rglob("*.flow.yaml"))


def bundled_example(app: Path, name: Path) -> Path:
    path = app.parent / "_internal" / "resources" / "examples" / name
    assert path.is_file(), f"example {name} is not in the bundle"
    return path


def test_the_clean_room_has_no_python_and_no_source_tree(room: CleanRoom):
    probe = room.run(["sh", "-c", "command -v python3 python python3.11; "
                      f"ls {REPO}/pyproject.toml; echo PATH=$PATH"])
    assert "python" not in probe.stdout.replace(f"{REPO}", ""), probe.stdout
    assert "No such file" in probe.stderr and "PATH=/usr/bin:/bin" in probe.stdout


def test_version_is_printed(room: CleanRoom):
    result = room.app_run("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"agent-canvas {__version__}"


def test_the_bundle_carries_no_build_tools_to_import_at_every_start(room: CleanRoom):
    """With setuptools in the bundle, PyInstaller adds a runtime hook that imports it when
    any process of the app starts: about 0.2 s of CPU before ``--version`` prints."""
    from PyInstaller.archive.readers import CArchiveReader

    archive = CArchiveReader(str(room.app))
    modules = [*archive.toc, *archive.open_embedded_archive("PYZ.pyz").toc]
    build_tools = ("setuptools", "pyi_rth_setuptools", "pkg_resources", "_distutils_hack",
                   "distutils")
    assert [m for m in modules if m.split(".")[0] in build_tools] == []


def test_help_lists_commands_but_not_internal_ones(room: CleanRoom):
    result = room.app_run("--help")
    assert result.returncode == 0 and "validate" in result.stdout and "serve" in result.stdout
    assert not any(name in result.stdout for name in INTERNAL_COMMANDS)


@pytest.mark.parametrize("name", EXAMPLES, ids=str)
def test_bundled_examples_validate(room: CleanRoom, name: Path):
    result = room.app_run("validate", str(bundled_example(room.app, name)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ": OK" in result.stdout


@pytest.mark.parametrize("name", EXAMPLES, ids=str)
def test_bundled_examples_run_to_completion_with_the_scripted_agent(room: CleanRoom, name: Path):
    example = bundled_example(room.app, name)
    # an example that waits for a person (gated commands, a best-of-N choice) gets its
    # answers on stdin: `approve` (for a choice, the first attempt that succeeded)
    text = example.read_text()
    approvals = "approve\n" * 20 if "gated" in text or "attempts:" in text else ""
    result = room.app_run("run", "--data-dir", str(room.data), str(example),
                          stdin=approvals, timeout=180)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "run.completed" in result.stdout
    runs = list((room.data / "runs").iterdir())
    assert len(runs) == 1 and (runs[0] / "events.jsonl").is_file()


def test_internal_commands_run_and_children_get_the_users_library_path(room: CleanRoom):
    result = room.app_run("_rlimit-exec", "--cpu=7:9", "--", "sh", "-c",
                          'ulimit -t; echo "LD=${LD_LIBRARY_PATH-unset}"')
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["7", "LD=unset"]
    mine = room.run([str(room.app), "_rlimit-exec", "--", "sh", "-c", "echo $LD_LIBRARY_PATH"],
                    env={"LD_LIBRARY_PATH": "/users/own/lib"})
    assert mine.stdout.strip() == "/users/own/lib"


def test_bus_post_appends_to_the_runs_message_bus(room: CleanRoom):
    bus = room.scratch / "run" / "events.jsonl"
    bus.parent.mkdir()
    bus.touch()
    env = {"MESSAGE_BUS": str(bus), "AGENT_CANVAS_RUN_ID": "r1", "AGENT_CANVAS_NODE_ID": "n1",
           "JRUN_ID": "a1", "AGENT_CANVAS_TURN": "1"}
    result = room.app_run("bus", "post", "--type", "FACT", "the tests pass", env=env)
    assert result.returncode == 0, result.stderr
    assert "the tests pass" in bus.read_text()


def test_gating_mcp_server_answers_initialize(room: CleanRoom):
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "smoke", "version": "1"}}}
    result = room.app_run("_gating-mcp-server", stdin=json.dumps(request) + "\n", timeout=60)
    reply = json.loads(result.stdout.splitlines()[0])
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "agent_canvas"


def _wait_for(predicate, what: str, timeout: float, proc=None, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.2)
    output = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
    raise AssertionError(f"{what} did not happen within {timeout} s\n{output}")


def test_fake_model_server_streams_its_script(room: CleanRoom):
    script = room.scratch / "replies.yaml"
    script.write_text("- Hello from the bundle.\n")
    log = room.scratch / "fake.log"
    proc = room.start([str(room.app), "_fake-model-server", str(script)], log=log)
    try:
        line = _wait_for(lambda: "fake model server on" in log.read_text() and log.read_text(),
                         "the fake model server's first line", 60, proc, log)
        url = line.split("fake model server on", 1)[1].split()[0]
        body = json.dumps({"model": "m", "stream": True}).encode()
        ask = urllib.request.Request(url + "/v1/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(ask, timeout=30) as response:
            text = response.read().decode()
    finally:
        stop(proc)
    chunks = [json.loads(line[5:]) for line in text.splitlines()
              if line.startswith("data:") and line.strip() != "data: [DONE]"]
    said = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert said == "Hello from the bundle."


def test_serve_answers_health_and_stops_cleanly(room: CleanRoom):
    log = room.scratch / "serve.log"
    proc = room.start([str(room.app), "serve", "--port", "0", "--data-dir", str(room.data)],
                      log=log)
    info_file = room.data / "server.json"
    try:
        _wait_for(info_file.is_file, "server.json", 60, proc, log)
        info = json.loads(info_file.read_text())
        ask = urllib.request.Request(info["url"] + "/api/health",
                                     headers={"Authorization": f"Bearer {info['token']}"})
        with urllib.request.urlopen(ask, timeout=30) as response:
            health = json.loads(response.read())
    finally:
        code = stop(proc, room.app)
    assert health["ok"] is True and health["version"] == __version__
    assert code == 0, log.read_text()[-2000:]
    assert not info_file.exists()
