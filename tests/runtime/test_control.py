"""The typed command interface: each command on a live engine, and its errors."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from engine_helpers import events_of, of_type, until, workflow
from hypothesis import given
from hypothesis import strategies as st

from desktop.cli.run_console import Decide, Local, parse
from desktop.runtime import control as c
from desktop.runtime.recovery import create_run

DESKTOP = Path(__file__).resolve().parents[2] / "desktop"


async def _live(tmp_path: Path, doc=None):
    doc = doc or workflow({"a": {"script": [{"sleep": 30}]},
                           "b": {"script": [{"say": "b"}]}},
                          edges=[{"from": "a", "to": "b", "type": "handoff"}])
    engine = create_run(doc, tmp_path)
    task = asyncio.create_task(engine.run())
    await until(lambda: bool(engine.state.running_turns))
    return engine, task


async def _end(engine, task) -> None:
    if engine.state.status not in ("completed", "failed", "stopped"):
        await c.execute(engine, c.Stop())
    await asyncio.wait_for(task, 30)
    engine.close()


async def test_pause_resume_mode_and_stop(tmp_path: Path) -> None:
    engine, task = await _live(tmp_path)
    try:
        await c.execute(engine, c.Pause("for a test"))
        assert engine.state.status == "paused"
        await c.execute(engine, c.SetMode(mode="INTERACTIVE", global_mode="PLANNING"))
        assert (engine.state.mode, engine.state.global_mode) == ("INTERACTIVE", "PLANNING")
        await c.execute(engine, c.Resume())
        assert engine.state.status == "running"
        await c.execute(engine, c.Stop("enough"))
        assert engine.state.status == "stopped"
        with pytest.raises(c.Conflict, match="stopped"):
            await c.execute(engine, c.Pause())
    finally:
        await _end(engine, task)


async def test_on_an_ended_run_an_unknown_node_or_edge_is_not_found_a_known_one_conflict(
        tmp_path: Path) -> None:
    engine, task = await _live(tmp_path)
    try:
        await c.execute(engine, c.Stop("enough"))
        edge = next(iter(engine.state.edges))
        for missing in (c.PatchNode("nope", label="x"), c.DeleteNode("nope"),
                        c.DeleteEdge("nope")):
            with pytest.raises(c.NotFound, match="nope"):
                await c.execute(engine, missing)
        for known in (c.PatchNode("a", label="x"), c.DeleteNode("b"), c.DeleteEdge(edge)):
            with pytest.raises(c.Conflict, match="stopped"):
                await c.execute(engine, known)
    finally:
        await _end(engine, task)


async def test_graph_commands_record_events(tmp_path: Path) -> None:
    engine, task = await _live(tmp_path)
    try:
        added = await c.execute(engine, c.AddNode("extra", label="Extra", connect_from="a",
                                                  config={"instructions": "x"}))
        node_id = added.created["nodeId"]
        assert engine.state.nodes[node_id].added_at_runtime
        edge = await c.execute(engine, c.AddEdge("extra", "b", "report"))
        await c.execute(engine, c.PatchNode("extra", label="Renamed", config={"model": "m"}))
        assert engine.state.nodes[node_id].label == "Renamed"
        assert engine.state.node_configs[node_id].model == "m"
        await c.execute(engine, c.DeleteEdge(edge.created["edgeId"]))
        await c.execute(engine, c.DeleteNode("extra"))
        assert node_id not in engine.state.nodes
        assert added.created["edgeId"] not in engine.state.edges
        with pytest.raises(c.Conflict, match="taking a turn"):
            await c.execute(engine, c.DeleteNode("a"))
        with pytest.raises(c.NotFound):
            await c.execute(engine, c.DeleteEdge("nope"))
        with pytest.raises(c.Invalid):
            await c.execute(engine, c.AddNode("bad key!"))
        with pytest.raises(c.Conflict, match="already exists"):
            await c.execute(engine, c.AddNode("b"))
        with pytest.raises(c.Invalid) as bad:
            await c.execute(engine, c.UpdateNodeConfig("b", {"colour": "red"}))
        assert bad.value.field == "config.colour"
    finally:
        await _end(engine, task)
    events = events_of(engine.run_dir)
    assert [e["nodeId"] for e in of_type(events, "node.deleted")] == [node_id]
    assert [e["edgeId"] for e in of_type(events, "edge.deleted")] == [edge.created["edgeId"]]


async def test_resolve_by_prefix_and_twice(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"shell": "echo hi"}],
                          "permissions": {"cliPermissionsMode": "gated"}}})
    engine, task = await _live(tmp_path, doc)
    try:
        await until(lambda: bool(engine.broker.pending()))
        approval = engine.broker.pending()[0].approval_id
        with pytest.raises(c.Invalid):
            await c.execute(engine, c.Resolve(approval, "modified"))
        with pytest.raises(c.Invalid):
            await c.execute(engine, c.Resolve(approval, "maybe"))
        done = await c.execute(engine, c.Resolve(approval[:8], "approved", by="api"))
        assert done.resolution is not None and done.resolution.by == "api"
        with pytest.raises(c.NotFound):
            await c.execute(engine, c.Resolve(approval, "approved"))
    finally:
        await _end(engine, task)


def test_no_engine_method_is_called_by_name() -> None:
    """Commands are dispatched by type, never by ``getattr(engine, name)``."""
    pattern = re.compile(r"getattr\(\s*(self\.)?_?engine\b")
    offenders = [str(p.relative_to(DESKTOP)) for p in DESKTOP.rglob("*.py")
                 if pattern.search(p.read_text())]
    assert offenders == []


@pytest.mark.parametrize(("line", "expected"), [
    ("step", c.Step()), ("step b", c.Step("b")), ("chat a hello there", c.Chat("a", "hello there")),
    ("chat a 'quoted words'", c.Chat("a", "quoted words")), ("pause", c.Pause()),
    ("resume", c.Resume()), ("stop", c.Stop()), ("mode interactive", c.SetMode(mode="INTERACTIVE")),
    ("mode planning", c.SetMode(global_mode="PLANNING")), ("approve", Decide("approved")),
    ("deny 1a2b not now", Decide("denied", ("1a2b", "not", "now"), words_are_reason=True)),
    ('modify 1a {"cmd": "ls"}', Decide("modified", ("1a",), {"cmd": "ls"})),
    ("help", Local("help")), ("status", Local("status")), ("   ", None),
])
def test_console_lines_become_commands(line: str, expected) -> None:
    assert parse(line) == expected


_WORDS = ["step", "chat", "approve", "deny", "modify", "pause", "resume", "stop", "mode",
          "help", "status", "bogus"]


@given(st.builds("{} {}".format, st.sampled_from(_WORDS), st.text(max_size=40)))
def test_console_parse_fails_only_with_a_message(line: str) -> None:
    try:
        parsed = parse(line)
    except ValueError as exc:  # the console prints it
        assert str(exc).strip(), f"{line!r} was refused without saying why"
        return
    assert line.split()[0] != "bogus", f"{line!r} was taken as {parsed!r}"
    assert parsed is None or isinstance(parsed, (c.Command, Decide, Local)), parsed


async def test_commands_name_nodes_exactly_and_the_console_resolves_labels(
        tmp_path: Path) -> None:
    from desktop.cli.run_console import Console

    engine, task = await _live(tmp_path)
    said: list[str] = []
    try:
        with pytest.raises(c.NotFound, match="give a node id or key"):
            await c.execute(engine, c.Chat("B", "by label"))
        console = Console(engine, said.append, lambda: None)
        await console.execute("chat B hello from the console")
        queued = [i for i in engine.state.inboxes.get(engine.find_node("b"), [])
                  if i.kind == "user"]
        assert [i.text for i in queued] == ["hello from the console"]
        await console.execute("chat nobody hi")
        assert said[-1].startswith("chat: no node matches 'nobody'")
    finally:
        await _end(engine, task)


async def test_the_run_moves_between_one_turn_and_the_next(tmp_path: Path) -> None:
    """A console command that finds nothing to act on waits while the run moves. Right
    after a turn ends, before the loop starts the node's next turn for a message that came
    meanwhile (a turn that may open the approval the command is for), no turn runs, yet
    the run still moves."""
    engine = create_run(workflow({"a": {"script": [{"sleep": 0.5}, {"say": "once"}]}}),
                        tmp_path)
    task = asyncio.create_task(engine.run())
    a = engine.find_node("a")
    seen: list[tuple[bool, bool]] = []
    try:
        await until(lambda: a in engine.tasks)
        await c.execute(engine, c.Chat(a, "and again"))
        engine.tasks[a].add_done_callback(
            lambda _t: seen.append((bool(engine.tasks), engine.moving())))
        await until(lambda: bool(seen))
        assert seen == [(False, True)]
        await until(lambda: engine.state.turns.get(a, 0) >= 2)
    finally:
        await _end(engine, task)
    assert not engine.moving()


async def test_a_node_the_user_adds_works_in_the_workflows_workspace(tmp_path: Path) -> None:
    project, own = tmp_path / "project", tmp_path / "own"
    setup = {"copy": [".env"], "run": "npm ci"}
    doc = workflow({"a": {"script": [{"sleep": 30}]}}, workspace=str(project),
                   worktreeSetup=setup)
    engine, task = await _live(tmp_path / "data", doc)
    try:
        plain = await c.execute(engine, c.AddNode("plain", config={"instructions": "x"}))
        mine = await c.execute(engine, c.AddNode("mine", config={"workspace": str(own)}))
        configs = engine.state.node_configs
        assert configs[plain.created["nodeId"]].workspace == str(project)
        assert configs[plain.created["nodeId"]].worktree_setup.to_json_dict() == setup
        # the workflow's setup belongs with its workspace, not with another folder
        assert configs[mine.created["nodeId"]].workspace == str(own)
        assert configs[mine.created["nodeId"]].worktree_setup is None
    finally:
        await _end(engine, task)
    created = of_type(events_of(engine.run_dir), "run.created")[0]
    assert created["workspace"] == str(project) and created["worktreeSetup"] == setup


async def test_without_a_workflow_workspace_an_added_node_has_none(tmp_path: Path) -> None:
    engine, task = await _live(tmp_path)
    try:
        added = await c.execute(engine, c.AddNode("extra"))
        assert engine.state.node_configs[added.created["nodeId"]].workspace is None
        assert "workspace" not in of_type(events_of(engine.run_dir), "run.created")[0]
    finally:
        await _end(engine, task)
