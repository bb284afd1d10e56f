"""The process sandbox holds for scripted nodes: no network, no stray writes, memory and
CPU limits on the whole tree, diffs as before; where it cannot run, the node is refused."""

import json
import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.contract.sandbox import Sandbox
from desktop.providers.process import group_members
from desktop.runtime import sandbox
from desktop.runtime.turn import TurnRunner
from desktop.store.run_info import read_run_info
from tests.runtime.test_turn import folder, make_ctx

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX process groups")
PY = shlex.quote(sys.executable)


def needs_bwrap() -> None:
    problem = sandbox.bwrap_problem()
    if problem is not None:
        pytest.skip(f"bubblewrap cannot run here: {problem}")


def boxed(**fields) -> Sandbox:
    return Sandbox.model_validate({"backend": "process", **fields})


def tool_results(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "tool.completed"]


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


def connect_step(port: int) -> dict:
    return {"shell": f"{PY} -c \"import socket; "
                     f"socket.create_connection(('127.0.0.1', {port}), timeout=5)\""}


@pytest.mark.parametrize("network", [True, False])
async def test_network_false_blocks_even_loopback(tmp_path: Path, listener: int,
                                                  network: bool):
    needs_bwrap()
    ctx, events, _ = make_ctx(tmp_path, [connect_step(listener)],
                              sandbox=boxed(network=network))
    result = await TurnRunner().run(ctx)
    assert result.ok, result.error
    [done] = tool_results(events)
    assert done["result"]["ok"] is network, done["result"]
    if not network:
        assert "Connection refused" in done["result"]["output"] or "Errno" in \
            done["result"]["output"]


async def test_writes_outside_the_write_roots_fail_and_leave_nothing(tmp_path: Path):
    needs_bwrap()
    workspace, outside = tmp_path / "project", tmp_path / "elsewhere"
    outside.mkdir()
    script = [{"shell": "echo inside > out/kept.txt"},
              {"shell": "echo stray > stray.txt"},
              {"shell": f"echo stray > {shlex.quote(str(outside / 'stray.txt'))}"},
              {"shell": "echo stray > \"$HOME/agent-canvas-sandbox-stray.txt\""},
              {"shell": "echo scratch > /tmp/scratch.txt && cat /tmp/scratch.txt"},
              {"write_output": "written in the agent run folder"}]
    ctx, events, _ = make_ctx(tmp_path, script, workspace=str(workspace),
                              sandbox=boxed(writeRoots=["out"]))
    result = await TurnRunner().run(ctx)
    assert result.ok, result.error
    ok = [e["result"]["ok"] for e in tool_results(events)]
    assert ok == [True, False, False, False, True]
    assert (workspace / "out" / "kept.txt").read_text() == "inside\n"
    assert not (workspace / "stray.txt").exists()
    assert not (outside / "stray.txt").exists()
    assert not (Path.home() / "agent-canvas-sandbox-stray.txt").exists()
    assert not Path("/tmp/scratch.txt").exists()  # /tmp was the sandbox's own
    assert result.output_text == "written in the agent run folder"


async def test_read_only_roots_stay_read_only_inside_the_workspace(tmp_path: Path):
    needs_bwrap()
    workspace = tmp_path / "project"
    (workspace / "locked").mkdir(parents=True)
    script = [{"shell": "echo a > free.txt"}, {"shell": "echo b > locked/no.txt"}]
    ctx, events, _ = make_ctx(tmp_path, script, workspace=str(workspace),
                              sandbox=boxed(readOnlyRoots=["locked"]))
    result = await TurnRunner().run(ctx)
    assert [e["result"]["ok"] for e in tool_results(events)] == [True, False]
    assert result.ok and (workspace / "free.txt").exists()
    assert not (workspace / "locked" / "no.txt").exists()


async def test_writes_in_the_workspace_still_produce_the_diff(tmp_path: Path):
    needs_bwrap()
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    script = [{"edit": {"path": "src/new.txt", "content": "made in the sandbox\n"}},
              {"shell": "echo shell-made > made.txt"}]
    ctx, _, _ = make_ctx(tmp_path, script, workspace=str(repo), sandbox=boxed())
    result = await TurnRunner().run(ctx)
    assert result.ok, result.error
    patch = (folder(ctx, result) / "diff.patch").read_text()
    assert "+made in the sandbox" in patch and "+shell-made" in patch
    assert result.diff_hash is not None


async def test_memory_past_the_limit_kills_the_tree_and_is_recorded(tmp_path: Path):
    needs_bwrap()
    hog = f"{PY} -c 'import time; b = b\"x\" * (100 << 20); time.sleep(300)'"
    script = [{"shell": f"for i in 1 2 3; do {hog} & done; wait"}, {"say": "never said"}]
    ctx, events, _ = make_ctx(tmp_path, script, sandbox=boxed(limits={"maxMemoryMb": 200}))
    result = await TurnRunner().run(ctx)
    assert not result.ok and result.oom_killed
    assert "maxMemoryMb" in result.error
    assert any(e["type"] == "node.log" and "maxMemoryMb" in e["text"] for e in events)
    info = read_run_info(folder(ctx, result) / "run-info.yaml")
    assert info.exit_code != 0 and group_members(info.pgid) == []
    assert not any(e.get("text") == "never said" for e in events)
    record = json.loads((folder(ctx, result) / "runner.json").read_bytes())
    assert record["exit"]["oom_killed"] is True and record["exit"]["signal"] == "SIGKILL"
    assert record["limits"]["max_memory_bytes"] == 200 * 1024 * 1024


async def test_one_allocation_past_the_limit_fails_inside(tmp_path: Path):
    needs_bwrap()
    script = [{"shell": f"{PY} -c 'b = b\"x\" * (600 << 20)'"}]
    ctx, events, _ = make_ctx(tmp_path, script, sandbox=boxed(limits={"maxMemoryMb": 256}))
    result = await TurnRunner().run(ctx)
    [done] = tool_results(events)
    assert done["result"]["ok"] is False and "MemoryError" in done["result"]["output"]
    assert result.ok and not result.oom_killed  # the data rlimit stopped it


async def test_cpu_limit_stops_a_spinning_process(tmp_path: Path):
    needs_bwrap()
    script = [{"shell": f"{PY} -c 'while True: pass'"}]
    ctx, events, _ = make_ctx(tmp_path, script, sandbox=boxed(limits={"maxCpuSec": 1}))
    result = await TurnRunner().run(ctx)
    [done] = tool_results(events)
    assert done["result"]["ok"] is False
    assert done["result"]["exitCode"] in (-24, 128 + 24, -9, 128 + 9)  # SIGXCPU / SIGKILL
    assert result.ok  # the limit is per process: the agent itself goes on


async def test_missing_bubblewrap_refuses_the_node(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    sandbox.bwrap_problem.cache_clear()
    try:
        ctx, events, _ = make_ctx(tmp_path, [{"shell": "echo ran > ran.txt"}],
                                  sandbox=boxed())
        result = await TurnRunner().run(ctx)
    finally:
        sandbox.bwrap_problem.cache_clear()
    assert not result.ok and result.exit_code == 126
    if sys.platform.startswith("linux"):
        assert "bubblewrap" in result.error and "apt-get install bubblewrap" in result.error
    assert "node 'impl'" in result.error and "backend to none" in result.error
    assert any(e["type"] == "node.log" and "bubblewrap" in e["text"] for e in events)
    assert not (ctx.run_dir / "workspace" / "ran.txt").exists()
    assert (folder(ctx, result) / "agent-stdout.txt").read_bytes() == b""


async def test_network_false_refuses_a_cli_that_needs_its_model(tmp_path: Path):
    ctx, _, _ = make_ctx(tmp_path, provider="claude", sandbox=boxed(network=False))
    result = await TurnRunner().run(ctx)
    assert not result.ok and result.exit_code == 126
    assert "needs the network to reach its model" in result.error
    assert "network: true" in result.error


def test_wrap_without_isolation_only_adds_rlimits(tmp_path: Path):
    launch = sandbox.SandboxLaunch(Sandbox(limits={"maxCpuSec": 5}), tmp_path, tmp_path)
    argv, env = launch.wrap(["agent", "--flag"], {"A": "1"})
    assert argv[-2:] == ["agent", "--flag"] and "--cpu=5:6" in argv
    assert env == {"A": "1"} and launch.seen_env == env
    plain = sandbox.SandboxLaunch(Sandbox(), tmp_path, tmp_path)
    assert plain.wrap(["agent"], {})[0] == ["agent"]


def test_rlimit_exec_stand_in_sets_limits(tmp_path: Path):
    out = subprocess.run(
        [sys.executable, "-m", "desktop.runtime.rlimit_exec", "--cpu=7:9",
         f"--data={1 << 30}", "--", sys.executable, "-c",
         "import resource as r, json; "
         "print(json.dumps([r.getrlimit(r.RLIMIT_CPU), r.getrlimit(r.RLIMIT_DATA)]))"],
        capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [[7, 9], [1 << 30, 1 << 30]]


@pytest.mark.parametrize(("files", "ok"), [(2, True), (3, False)])
async def test_max_output_files_holds_against_the_diff(tmp_path: Path, files: int, ok: bool):
    script = [{"edit": {"path": f"f{i}.txt", "content": "x\n"}} for i in range(files)]
    ctx, events, _ = make_ctx(tmp_path, script,
                              sandbox=Sandbox.model_validate({"limits": {"maxOutputFiles": 2}}))
    result = await TurnRunner().run(ctx)
    assert result.ok is ok
    if not ok:
        assert "maxOutputFiles (2)" in result.error and result.output_limit_exceeded
        assert any(e["type"] == "node.log" and "changed 3 files" in e["text"] for e in events)


def test_an_interpreter_and_checkout_under_tmp_stay_visible(tmp_path: Path, monkeypatch):
    # The private /tmp would hide a venv or a checkout that lives there, and the
    # scripted agent could not even start (bwrap: execvp ... No such file).
    venv = Path("/tmp") / tmp_path.name / "venv"
    venv.mkdir(parents=True, exist_ok=True)
    monkeypatch.setattr(sys, "prefix", str(venv))
    launch = sandbox.SandboxLaunch(Sandbox.model_validate({"backend": "process"}),
                                   tmp_path, tmp_path / "agent")
    seen = launch._visible_paths({})
    assert venv.resolve() in seen
    assert sandbox._PACKAGE_ROOT.is_relative_to("/tmp") is (sandbox._PACKAGE_ROOT in seen)


def test_rlimit_exec_refuses_a_limit_it_cannot_set():
    out = subprocess.run([sys.executable, "-m", "desktop.runtime.rlimit_exec", "--data=x",
                          "--", "true"], capture_output=True, text=True)
    assert out.returncode == 126 and "cannot set the limit --data=x" in out.stderr


async def test_a_node_in_its_own_worktree_writes_there_and_never_in_the_repository(
        tmp_path: Path):
    needs_bwrap()
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "kept.txt").write_text("the user's\n")
    script = [{"shell": "echo inside > made.txt"},
              {"shell": f"echo stray > {shlex.quote(str(repo / 'stray.txt'))}"},
              {"shell": f"echo changed > {shlex.quote(str(repo / 'kept.txt'))}"}]
    ctx, events, _ = make_ctx(tmp_path, script, workspace=str(repo), sandbox=boxed())
    result = await TurnRunner().run(ctx)
    assert result.ok, result.error
    assert [e["result"]["ok"] for e in tool_results(events)] == [True, False, False]
    worktree = ctx.run_dir / "worktrees" / "impl"
    assert (worktree / "made.txt").read_text() == "inside\n"
    assert not (repo / "stray.txt").exists() and not (repo / "made.txt").exists()
    assert (repo / "kept.txt").read_text() == "the user's\n"
    patch = (folder(ctx, result) / "diff.patch").read_text()
    assert "+inside" in patch and "kept.txt" not in patch
