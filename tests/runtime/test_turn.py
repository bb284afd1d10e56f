"""TurnRunner end to end with the scripted agent: folder, run-info, output, diff, limits."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from desktop.contract.base import new_id
from desktop.contract.events import Resolution, parse_event
from desktop.contract.run_info import run_id_problem
from desktop.contract.state import Limits, NodeConfig, NodeState
from desktop.providers.process import group_members
from desktop.runtime.agent_folder import create_agent_folder
from desktop.runtime.prompt import RESTART_PREFIX
from desktop.runtime.turn import TurnContext, TurnResult, TurnRunner
from desktop.store.run_info import read_run_info, validate_at_completion, validate_at_creation

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX process groups")


def make_ctx(tmp_path: Path, script=None, *, provider="scripted", items=None, **config):
    run_id = new_id()
    run_dir = tmp_path / "runs" / run_id
    run_dir.mkdir(parents=True)
    first = {"seq": 1, "id": new_id(), "runId": run_id, "ts": "2026-01-01T00:00:00.000Z",
             "type": "run.created"}
    (run_dir / "events.jsonl").write_text(json.dumps(first) + "\n")
    events: list[dict] = []
    tools: list = []

    async def gate(tool, context):
        tools.append(tool)
        return Resolution(status="approved")

    ctx = TurnContext(
        run_id=run_id, run_dir=run_dir,
        node=NodeState(id=new_id(), runId=run_id, key="impl", label="Implementer",
                       provider=provider),
        config=NodeConfig(script=script, **config), global_mode="IMPLEMENTATION",
        items=items if items is not None else [{"id": "i1", "kind": "task", "text": "Do it"}],
        turn_number=1, attempt=1, restart=False, parent_agent_run_id=None,
        previous_agent_run_id=None, emit=events.append, gate=gate, conductor_url=None,
        project_id="proj", task_id="20260101-000000-task", data_dir=tmp_path)
    return ctx, events, tools


def folder(ctx: TurnContext, result: TurnResult) -> Path:
    return ctx.run_dir / "agents" / result.agent_run_id


def bus_types(events: list[dict]) -> list[str]:
    return [e["busType"] for e in events if e["type"] == "bus.message"]


def assert_valid_events(ctx: TurnContext, events: list[dict]) -> None:
    for event in events:  # what the engine will append must be valid contract events
        parse_event({**event, "runId": ctx.run_id})


async def test_folder_files_run_info_and_lifecycle(tmp_path: Path):
    script = [{"shell": 'cp "$RUN_FOLDER/run-info.yaml" started.yaml'},
              {"say": "All done here."}]
    ctx, events, tools = make_ctx(tmp_path, script)
    ctx.parent_agent_run_id = "20260101-1200000000-42"
    result = await TurnRunner().run(ctx)
    assert result.ok and result.exit_code == 0 and not result.timed_out
    f = folder(ctx, result)
    for name in ("prompt.md", "prompt.full.txt", "prompt.blocks.json", "run-info.yaml",
                 "agent-stdout.txt", "agent-stderr.txt", "output.md"):
        assert (f / name).is_file(), name
    assert run_id_problem(result.agent_run_id) is None
    started = read_run_info(tmp_path / "runs" / ctx.run_id / "workspace/started.yaml")
    assert validate_at_creation(started) == []
    info = read_run_info(f / "run-info.yaml")
    assert validate_at_completion(info) == [] and info.exit_code == 0
    assert info.parent_run_id == "20260101-1200000000-42" and info.previous_run_id == ""
    assert info.agent == "scripted" and info.pgid == started.pgid > 0
    assert "AGENT_CANVAS" not in (info.commandline or "")
    assert bus_types(events) == ["RUN_START", "RUN_STOP"]
    start = next(e for e in events if e.get("busType") == "RUN_START")
    assert (start["pid"], start["pgid"]) == (info.pid, info.pgid)
    assert [t.name for t in tools] == ["command"]
    prompts = [e["artifact"] for e in events
               if e["type"] == "artifact.created" and e["artifact"]["kind"] == "prompt"]
    assert {a["name"] for a in prompts} == {"prompt.full.txt", "prompt.blocks.json"}
    diffs = [e["artifact"] for e in events
             if e["type"] == "artifact.created" and e["artifact"]["kind"] == "diff"]
    assert [a["name"] for a in diffs] == ["diff.patch"]  # started.yaml appeared in the scratch repo
    assert all(not a["path"].startswith("/") and (ctx.run_dir / a["path"]).is_file()
               for a in prompts)
    assert not [e for e in events if e["type"] == "node.log" and "run-info" in e["text"]]
    assert_valid_events(ctx, events)


async def test_prompt_blocks_and_preamble(tmp_path: Path):
    items = [{"id": "h1", "kind": "handoff", "text": "",
              "envelope": {"fromNodeId": "planner", "payload": {"message": "Build X",
                                                                "structured": {"n": 2}}}}]
    ctx, _, _ = make_ctx(tmp_path, [{"say": "ok"}], items=items, instructions="Be brief.")
    ctx.global_mode = "PLANNING"
    result = await TurnRunner().run(ctx)
    f = folder(ctx, result)
    blocks = json.loads((f / "prompt.blocks.json").read_text())["blocks"]
    assert [b["kind"] for b in blocks] == ["preamble", "role", "globalMode", "instructions",
                                           "inbox"]
    full = (f / "prompt.full.txt").read_text()
    assert full == (f / "prompt.md").read_text()
    for needle in (f"TASK_FOLDER={ctx.run_dir}", f"RUN_FOLDER={f}", "JRUN_PROJECT_ID=proj",
                   f"JRUN_ID={result.agent_run_id}", f"MESSAGE_BUS={ctx.run_dir}/events.jsonl",
                   f"Write output.md to {f}/output.md", "bus post", "DONE", "PLANNING",
                   "Build X", '"n": 2', "Be brief.", "Role: Implementer",
                   "JRUN_TASK_FOLDER (= TASK_FOLDER)", "JRUN_RUN_FOLDER (= RUN_FOLDER)",
                   "JRUN_MESSAGE_BUS (= MESSAGE_BUS)", "JRUN_RUNS_DIR (= RUNS_DIR)"):
        assert needle in full, needle
    assert not full.startswith(RESTART_PREFIX)


@pytest.mark.parametrize(("script", "expected"), [
    ([{"write_output": "written by agent"}, {"say": "final words"}], "written by agent"),
    ([{"say": "final words"}], "final words"),
    ([{"emit_raw": "plain stdout line"}], "plain stdout line"),
])
async def test_output_md_fallback_chain(tmp_path: Path, script, expected):
    ctx, _, _ = make_ctx(tmp_path, script)
    result = await TurnRunner().run(ctx)
    assert (folder(ctx, result) / "output.md").read_text().strip() == expected
    assert result.output_text.strip() == expected and len(result.output_hash) == 64


async def test_same_output_same_hash(tmp_path: Path):
    hashes = set()
    for _ in range(2):
        ctx, _, _ = make_ctx(tmp_path, [{"repeat_output": "stuck  \r\nagain"}])
        hashes.add((await TurnRunner().run(ctx)).output_hash)
    assert len(hashes) == 1


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                   check=True, capture_output=True)


async def test_diff_patch_in_a_shared_git_workspace(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "keep.txt").write_text("old\n")
    _git(repo, "add", "keep.txt")
    _git(repo, "commit", "-qm", "init")
    script = [{"edit": {"path": "keep.txt", "content": "new\n"}},
              {"edit": {"path": "fresh/untracked.txt", "content": "brand new\n"}}]
    ctx, events, _ = make_ctx(tmp_path, script, workspace=str(repo), isolation="shared")
    result = await TurnRunner().run(ctx)
    patch = (folder(ctx, result) / "diff.patch").read_text()
    assert "-old" in patch and "+new" in patch and "fresh/untracked.txt" in patch
    assert result.diff_hash and len(result.diff_hash) == 64
    diffs = [e["artifact"] for e in events
             if e["type"] == "artifact.created" and e["artifact"]["kind"] == "diff"]
    assert len(diffs) == 1 and diffs[0]["name"] == "diff.patch"
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True,
                            text=True).stdout
    assert "?? fresh/" in status  # the user's index was not touched


async def test_restart_prefix_and_until_done_chain(tmp_path: Path):
    script = {"attempts": [[{"say": "working"}], [{"say": "more"}], [{"done": True}]]}
    ctx, events, _ = make_ctx(tmp_path, script, untilDone=True, maxRestarts=5)
    result = await TurnRunner().run(ctx)
    assert result.ok and result.done and len(result.agent_run_ids) == 3
    infos = [read_run_info(ctx.run_dir / "agents" / i / "run-info.yaml")
             for i in result.agent_run_ids]
    assert [i.previous_run_id for i in infos] == ["", *result.agent_run_ids[:2]]
    fulls = [(ctx.run_dir / "agents" / i / "prompt.full.txt").read_text()
             for i in result.agent_run_ids]
    assert [f.startswith(RESTART_PREFIX) for f in fulls] == [False, True, True]
    assert bus_types(events) == ["RUN_START", "RUN_STOP"] * 3


async def test_until_done_gives_up_after_max_restarts(tmp_path: Path):
    ctx, _, _ = make_ctx(tmp_path, [{"say": "never done"}], untilDone=True, maxRestarts=1)
    result = await TurnRunner().run(ctx)
    assert not result.ok and not result.done and len(result.agent_run_ids) == 2
    assert "DONE" in result.error


async def test_restart_flag_prefixes_first_run(tmp_path: Path):
    ctx, _, _ = make_ctx(tmp_path, [{"say": "x"}])
    ctx.restart = True
    result = await TurnRunner().run(ctx)
    assert (folder(ctx, result) / "prompt.full.txt").read_text().startswith(RESTART_PREFIX)


async def test_timeout_kills_group_and_is_recorded(tmp_path: Path):
    script = [{"shell": "sleep 100 &"}, {"say": "about to hang"}, {"hang": True}]
    ctx, events, _ = make_ctx(tmp_path, script, limits=Limits(timeoutSec=1.0))
    ctx.grace_sec = 0.5
    result = await TurnRunner().run(ctx)
    assert result.timed_out and not result.ok and "timed out" in result.error
    assert any(e["type"] == "node.log" and "timed out" in e["text"] for e in events)
    assert bus_types(events)[-1] == "RUN_CRASH"
    info = read_run_info(folder(ctx, result) / "run-info.yaml")
    assert info.exit_code != 0 and validate_at_completion(info) == []
    assert group_members(info.pgid) == []


async def test_output_size_limit_stops_the_agent(tmp_path: Path):
    ctx, events, _ = make_ctx(tmp_path, [{"deltas": 50_000}, {"hang": True}],
                              limits=Limits(maxOutputBytes=20_000))
    result = await TurnRunner().run(ctx)
    assert result.output_limit_exceeded and not result.ok and "output limit" in result.error
    assert any(e["type"] == "node.log" and "output limit" in e["text"] for e in events)
    assert (folder(ctx, result) / "agent-stdout.txt").stat().st_size <= 20_000
    assert bus_types(events)[-1] == "RUN_CRASH"


async def test_crash_and_verification_result(tmp_path: Path):
    ctx, events, _ = make_ctx(tmp_path, [{"say": "trying"}, {"fail": "cannot go on"}],
                              verification="echo checking; exit 3")
    result = await TurnRunner().run(ctx)
    assert not result.ok and result.exit_code == 1 and "cannot go on" in result.error
    assert bus_types(events)[-1] == "RUN_CRASH"
    verification = [e for e in events if e["type"] == "verification.result"]
    assert len(verification) == 1 and verification[0]["exitCode"] == 3
    assert not verification[0]["ok"] and "checking" in verification[0]["outputTail"]
    assert result.verification["exitCode"] == 3 and len(result.verification["hash"]) == 64
    assert_valid_events(ctx, events)


async def test_cancel_stops_the_agent(tmp_path: Path):
    ctx, events, _ = make_ctx(tmp_path, [{"hang": True}], untilDone=True, maxRestarts=3)
    runner = TurnRunner()
    task = asyncio.create_task(runner.run(ctx))
    while "RUN_START" not in bus_types(events):
        await asyncio.sleep(0.02)
    await runner.cancel()
    result = await task
    assert result.cancelled and not result.ok and len(result.agent_run_ids) == 1
    info = read_run_info(folder(ctx, result) / "run-info.yaml")
    assert group_members(info.pgid) == []


async def test_cancel_during_the_verification_ends_its_command(tmp_path: Path):
    from engine_helpers import until

    pid_file = tmp_path / "verification.pid"
    ctx, events, _ = make_ctx(tmp_path, [{"say": "done"}],
                              verification=f"echo $$ > {pid_file}; exec sleep 300")
    runner = TurnRunner()
    task = asyncio.create_task(runner.run(ctx))
    await until(lambda: pid_file.is_file() and pid_file.read_text().strip() != "")
    pid = int(pid_file.read_text())
    await runner.cancel()
    result = await asyncio.wait_for(task, 30)  # at once, not after the engine's patience
    assert result.cancelled and not result.ok and result.verification is None
    assert not [e for e in events if e["type"] == "verification.result"]
    assert group_members(pid) == []  # the command's group is gone


async def test_handoff_directive_from_file_and_bus(tmp_path: Path):
    ctx, _, _ = make_ctx(tmp_path, [{"handoff": {"to": "reviewer", "message": "look",
                                                 "structured": {"a": 1}}}])
    result = await TurnRunner().run(ctx)
    assert result.handoff == {"to": "reviewer", "message": "look", "structured": {"a": 1},
                              "status": None, "artifacts": []}
    ctx, _, _ = make_ctx(tmp_path, [{"bus": {"type": "FACT", "message": "ready",
                                             "handoff": "tester"}}])
    result = await TurnRunner().run(ctx)
    assert result.handoff["to"] == "tester" and result.handoff["message"] == "ready"
    lines = (ctx.run_dir / "events.jsonl").read_text().splitlines()
    posted = json.loads(lines[-1])
    assert posted["handoffTo"] == "tester" and posted["agentRunId"] == result.agent_run_id
    assert posted["nodeId"] == ctx.node.id and posted["runId"] == ctx.run_id


async def test_command_provider_turn(tmp_path: Path):
    ctx, _, _ = make_ctx(tmp_path, provider="command", command=sys.executable,
                              args=["-c", "import sys; print('got', len(sys.stdin.read()) > 0)"])
    result = await TurnRunner().run(ctx)
    assert result.ok and result.output_text.strip() == "got True"
    assert yaml.safe_load((folder(ctx, result) / "run-info.yaml").read_text())["agent"] == (
        "command")


def test_agent_run_ids_are_unique_and_well_formed(tmp_path: Path):
    ids = [create_agent_folder(tmp_path)[0] for _ in range(200)]
    assert len(set(ids)) == 200
    assert all(run_id_problem(i) is None for i in ids)


async def test_a_workspace_that_became_a_file_fails_the_turn_cleanly(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Checked when the run was made, a workspace can still be a file by its turn: the
    turn fails with a message naming it, and no traceback is logged."""
    from tests.runtime.engine_helpers import events_of, of_type, run_doc, workflow

    place = tmp_path / "ws"
    doc = workflow({"a": {"workspace": str(place), "script": [{"say": "hi"}, {"done": True}]}})
    place.write_text("a file now")
    engine = await run_doc(doc, tmp_path / "data")
    assert engine.state.status == "failed"
    [failed] = of_type(events_of(engine.run_dir), "turn.status", status="failed")
    assert f"{place} is a file, not a folder" in failed["reason"]
    assert "FileExistsError" not in failed["reason"]
    assert not [r for r in caplog.records if r.exc_info]
