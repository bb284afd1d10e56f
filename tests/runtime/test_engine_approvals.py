"""The gate and the approval broker: gated calls, policy denials, agent management."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import events_of, of_type, until, workflow
from gitkit import fingerprint, no_git_config, tree_files, user_repo
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.events import ToolCall
from desktop.runtime.approvals import ApprovalBroker, ApprovalError
from desktop.runtime.engine import Engine
from desktop.runtime.gate import blocklist_rule, is_write_command
from desktop.runtime.recovery import create_run

__all__ = ["no_git_config"]
GATED = {"cliPermissionsMode": "gated"}


async def _run_with(engine: Engine, decide) -> str:
    """Run ``engine``, answering each approval request with ``decide(pending)``."""
    loop = asyncio.get_running_loop()
    engine.broker.subscribe(lambda pending: loop.call_soon(decide, engine, pending))
    try:
        return str(await asyncio.wait_for(engine.run(), 30))
    finally:
        engine.close()


def _shell_doc(cmd: str, **node: Any):
    return workflow({"a": {"script": [{"shell": cmd}, {"say": "finished"}], **node}})


def _workspace(engine: Engine) -> Path:
    return engine.run_dir / "workspace"


async def test_gated_call_waits_and_runs_when_approved(tmp_path: Path) -> None:
    engine = create_run(_shell_doc("echo hi > out.txt", permissions=GATED), tmp_path)
    status = await _run_with(engine, lambda e, p: e.broker.resolve(p.approval_id, "approved"))
    events = events_of(engine.run_dir)
    assert status == "completed"
    requested = of_type(events, "approval.requested")
    resolved = of_type(events, "approval.resolved")
    assert len(requested) == len(resolved) == 1
    assert requested[0]["tool"]["args"]["cmd"] == "echo hi > out.txt"
    assert resolved[0]["resolution"] == {"status": "approved", "by": "terminal"}
    assert (_workspace(engine) / "out.txt").read_text().strip() == "hi"
    assert engine.state.pending_approvals == {}


async def test_denied_call_goes_back_to_the_agent(tmp_path: Path) -> None:
    engine = create_run(_shell_doc("echo hi > out.txt", permissions=GATED), tmp_path)
    await _run_with(engine, lambda e, p: e.broker.resolve(p.approval_id, "denied",
                                                          reason="not today"))
    events = events_of(engine.run_dir)
    done = of_type(events, "tool.completed")
    assert done[0]["error"]["message"] == "not today"
    assert not (_workspace(engine) / "out.txt").exists()
    assert engine.state.status == "completed"


async def test_modified_call_runs_with_new_arguments(tmp_path: Path) -> None:
    engine = create_run(_shell_doc("echo hi > out.txt", permissions=GATED), tmp_path)
    await _run_with(engine, lambda e, p: e.broker.resolve(
        p.approval_id, "modified", modified_args={"cmd": "echo changed > other.txt"}))
    assert (_workspace(engine) / "other.txt").read_text().strip() == "changed"
    assert not (_workspace(engine) / "out.txt").exists()
    started = of_type(events_of(engine.run_dir), "tool.started")
    assert started[0]["args"] == {"cmd": "echo changed > other.txt"}


@pytest.mark.parametrize(("rule", "cmd"), [("rm -rf", "rm -rf build"),
                                           ("curl *", "curl http://example.invalid")])
async def test_blocklisted_command_is_denied_by_policy(tmp_path: Path, rule: str,
                                                       cmd: str) -> None:
    engine = create_run(_shell_doc(cmd, commandBlocklist=[rule]), tmp_path)
    await _run_with(engine, lambda e, p: pytest.fail("policy denials ask no one"))
    events = events_of(engine.run_dir)
    resolution = of_type(events, "approval.resolved")[0]["resolution"]
    assert resolution["status"] == "denied" and resolution["by"] == "policy"
    assert repr(rule) in resolution["reason"]
    assert of_type(events, "tool.completed")[0]["result"]["ok"] is False


async def test_planning_mode_denies_writes_and_allows_reads(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [
        {"edit": {"path": "x.py", "content": "x = 1\n"}},
        {"shell": "echo data > y.txt"},
        {"shell": "echo reading"},
    ]}})
    engine = create_run(doc, tmp_path, global_mode="PLANNING")
    await _run_with(engine, lambda e, p: pytest.fail("no approval expected"))
    events = events_of(engine.run_dir)
    reasons = [e["resolution"]["reason"] for e in of_type(events, "approval.resolved")]
    assert len(reasons) == 2 and all("PLANNING" in r for r in reasons)
    completed = of_type(events, "tool.completed")
    assert [c["result"]["ok"] for c in completed] == [False, False, True]
    assert not (_workspace(engine) / "x.py").exists()


SPAWN = {"spawn_node": {"key": "helper", "label": "Helper", "connectFrom": "self",
                        "script": [{"say": "helper did its part"}]}}


async def test_spawn_node_under_approval_adds_a_node_that_takes_a_turn(tmp_path: Path) -> None:
    doc = workflow({"boss": {"script": [SPAWN, {"say": "delegated"}]}})
    engine = create_run(doc, tmp_path)
    status = await _run_with(engine, lambda e, p: e.broker.resolve(p.approval_id, "approved"))
    events = events_of(engine.run_dir)
    assert status == "completed"
    assert of_type(events, "approval.requested")[0]["tool"]["name"] == "spawn_node"
    helper = engine.find_node("helper")
    node = engine.state.nodes[helper]
    assert node.added_at_runtime and node.label == "Helper"
    edge = of_type(events, "edge.created")[0]["edge"]
    assert edge["to"] == helper and edge["addedAtRuntime"] is True
    assert engine.state.turns[helper] == 1
    fact = of_type(events, "bus.message", busType="FACT")[0]
    assert fact["result"] == {"nodeId": helper, "key": "helper", "edgeId": edge["id"]}
    # the agent's own tool call result names what was made, so it can address the new node
    spawn_call = of_type(events, "tool.completed")[0]["result"]
    assert spawn_call["nodeId"] == helper and spawn_call["edgeId"] == edge["id"]


async def test_denied_spawn_adds_nothing(tmp_path: Path) -> None:
    doc = workflow({"boss": {"script": [SPAWN, {"say": "alone"}]}})
    engine = create_run(doc, tmp_path)
    await _run_with(engine, lambda e, p: e.broker.resolve(p.approval_id, "denied"))
    assert len(engine.state.nodes) == 1
    assert of_type(events_of(engine.run_dir), "edge.created") == []


async def test_create_edge_without_required_approval_applies_at_once(tmp_path: Path) -> None:
    doc = workflow(
        {"a": {"permissions": {"agentManagementRequiresApproval": False},
               "script": [{"create_edge": {"from": "self", "to": "b"}}, {"say": "to b"}]},
         "b": {"script": [{"say": "b got it"}]}})
    engine = create_run(doc, tmp_path)
    status = await _run_with(engine, lambda e, p: pytest.fail("no approval expected"))
    events = events_of(engine.run_dir)
    assert status == "completed"
    assert of_type(events, "approval.requested") == []
    assert engine.state.turns[engine.find_node("b")] == 1


async def test_stop_while_an_approval_is_pending(tmp_path: Path) -> None:
    engine = create_run(_shell_doc("echo hi", permissions=GATED), tmp_path)
    task = asyncio.create_task(engine.run())
    await until(lambda: engine.broker.pending())
    await engine.stop()
    assert await asyncio.wait_for(task, 20) == "stopped"
    engine.close()
    events = events_of(engine.run_dir)
    assert of_type(events, "approval.resolved")[0]["resolution"]["status"] == "denied"
    assert engine.state.pending_approvals == {}


async def test_stop_asked_twice_at_once_stops_the_run_once(tmp_path: Path) -> None:
    engine = create_run(_shell_doc("echo hi", permissions=GATED), tmp_path)
    task = asyncio.create_task(engine.run())
    await until(lambda: engine.broker.pending())
    await asyncio.gather(engine.stop("interrupted by Ctrl-C"), engine.stop("again"))
    assert await asyncio.wait_for(task, 20) == "stopped"
    engine.close()
    stopped = of_type(events_of(engine.run_dir), "run.stopped")
    assert [event["reason"] for event in stopped] == ["interrupted by Ctrl-C"]


async def test_broker_matches_prefixes_and_rejects_unknown_ids() -> None:
    emitted: list[dict] = []
    broker = ApprovalBroker(emitted.append)
    waiter = asyncio.create_task(broker.request("n", ToolCall(id="t", name="command")))
    await asyncio.sleep(0)
    approval_id = broker.pending()[0].approval_id
    with pytest.raises(ApprovalError):
        broker.resolve("zzz", "approved")
    with pytest.raises(ApprovalError):
        broker.resolve(approval_id[:6], "modified")  # modified needs arguments
    broker.resolve(approval_id[:6], "approved")
    assert (await waiter).status == "approved"
    with pytest.raises(ApprovalError):
        broker.resolve(approval_id, "approved")
    assert [e["type"] for e in emitted] == ["approval.requested", "approval.resolved"]


async def test_cancelled_request_is_resolved_as_turn_ended() -> None:
    emitted: list[dict] = []
    broker = ApprovalBroker(emitted.append)
    waiter = asyncio.create_task(broker.request("n", ToolCall(id="t", name="command")))
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert broker.pending() == []
    assert emitted[-1]["resolution"]["reason"] == "turn ended"


@given(st.sampled_from(["cat a", "ls -la", "grep x y", "python -m pytest -q", "git status",
                        "git diff", "echo hi 2>&1"]))
def test_read_commands_are_not_writes(cmd: str) -> None:
    assert not is_write_command(cmd)


@given(st.sampled_from(["echo x > f", "tee f", "sed -i s/a/b/ f", "rm f", "mv a b", "cp a b",
                        "git commit -m x", "touch f", "mkdir d"]),
       st.text(alphabet="abc ", max_size=5))
def test_write_commands_are_writes(cmd: str, suffix: str) -> None:
    assert is_write_command(cmd + suffix)


def test_blocklist_rules_match_substrings_and_globs() -> None:
    assert blocklist_rule("sudo rm -rf /", ["rm -rf"]) == "rm -rf"
    assert blocklist_rule("curl http://x", ["wget*", "curl *"]) == "curl *"
    assert blocklist_rule("ls", ["rm", ""]) is None


async def test_a_spawned_node_works_on_its_spawners_repository(tmp_path: Path,
                                                               no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    spawn = {"spawn_node": {**SPAWN["spawn_node"], "script": [
        {"edit": {"path": "helped.txt", "content": "helped\n"}}, {"say": "done"}]}}
    doc = workflow({"boss": {"script": [spawn, {"say": "delegated"}],
                             "workspace": str(repo)}})
    engine = create_run(doc, tmp_path / "data")
    status = await _run_with(engine, lambda e, p: e.broker.resolve(p.approval_id, "approved"))
    assert status == "completed"
    helper = engine.state.nodes[engine.find_node("helper")]
    assert engine.state.node_configs[helper.id].workspace == str(repo)
    assert helper.git is not None and Path(helper.git.repo).resolve() == repo.resolve()
    assert "helped.txt" in tree_files(repo, helper.git.branch)
    assert fingerprint(repo) == before
