"""The engine end to end with the scripted agent: examples, modes, routing, limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import (
    FakeRunner,
    approve_everything,
    events_of,
    of_type,
    run_doc,
    step_to_end,
    unconsumed_items,
    until,
    workflow,
)

from desktop.graph.io import load_workflow
from desktop.runtime.engine import EngineError
from desktop.runtime.recovery import create_run
from desktop.store.run_info import read_run_info, validate_at_completion

EXAMPLES = sorted((Path(__file__).parents[2] / "resources" / "examples").glob("*.flow.yaml"))


def _run_infos_valid(run_dir: Path) -> None:
    infos = sorted(run_dir.glob("agents/*/run-info.yaml"))
    assert infos, "no agent run folders"
    for path in infos:
        assert validate_at_completion(read_run_info(path)) == [], path


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
async def test_example_runs_to_completion_in_auto(example: Path, tmp_path: Path) -> None:
    engine = await run_doc(load_workflow(example), tmp_path, approve=True)
    events = events_of(engine.run_dir)
    assert engine.state.status == "completed"
    assert unconsumed_items(events) == set()
    assert not of_type(events, "turn.status", status="failed")
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1))
    _run_infos_valid(engine.run_dir)
    assert (engine.run_dir / "state.json").is_file()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
async def test_example_steps_to_completion_in_interactive(example: Path, tmp_path: Path) -> None:
    engine = create_run(load_workflow(example), tmp_path, mode="INTERACTIVE")
    approve_everything(engine)
    try:
        status = await step_to_end(engine)
    finally:
        engine.close()
    events = events_of(engine.run_dir)
    assert status == "completed"
    assert unconsumed_items(events) == set()
    # each turn started only because of a step: never two at once (a subflow node's
    # step spans the turns inside it)
    steps = {nid for nid, n in events[0]["nodes"].items() if n.get("subflow")}
    running = 0
    for e in of_type(events, "turn.status"):
        if e["nodeId"] in steps:
            continue
        running += {"started": 1, "completed": -1}.get(e["status"], 0)
        assert running <= 1


async def test_routing_follows_edges_and_reports_come_back(tmp_path: Path) -> None:
    doc = workflow(
        {"boss": {"script": {"turns": [[{"say": "work on it"}], [{"say": "all done"}]]}},
         "worker": {"script": [{"say": "did it"}, {"done": True}]}},
        [{"from": "boss", "to": "worker", "type": "handoff"},
         {"from": "worker", "to": "boss", "type": "report"}])
    engine = await run_doc(doc, tmp_path)
    events = events_of(engine.run_dir)
    sent = of_type(events, "handoff.sent")
    assert [e["envelope"]["kind"] for e in sent] == ["handoff", "report"]
    assert sent[0]["envelope"]["payload"]["message"].startswith("work on it")
    assert sent[1]["envelope"]["fromAgentRunId"]
    state = engine.state
    assert sorted(state.turns.values()) == [1, 2]
    assert state.status == "completed"


async def test_bidirectional_edge_reports_back_and_ends(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"say": "go"}]}, "b": {"script": [{"say": "back"}]}},
                   [{"from": "a", "to": "b", "bidirectional": True}])
    engine = await run_doc(doc, tmp_path)
    kinds = [e["envelope"]["kind"] for e in of_type(events_of(engine.run_dir), "handoff.sent")]
    assert kinds == ["handoff", "report"]
    assert engine.state.status == "completed"


async def test_handoff_to_unconnected_node_is_recorded_and_default_routing_applies(
        tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"handoff": {"to": "c", "message": "hi"}}]},
                    "b": {"script": [{"say": "b ran"}]}, "c": {"script": [{"say": "c ran"}]}},
                   [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}])
    engine = await run_doc(doc, tmp_path)
    events = events_of(engine.run_dir)
    errors = of_type(events, "bus.message", busType="ERROR")
    assert any("not connected" in e["message"] for e in errors)
    assert next(e["envelope"]["toNodeId"] for e in of_type(events, "handoff.sent")) == \
        engine.find_node("b")


async def test_independent_nodes_run_concurrently(tmp_path: Path) -> None:
    nodes = {"root": {"script": [{"say": "fan out"}]}}
    nodes.update({f"w{i}": {"script": [{"sleep": 0.3}, {"say": f"w{i}"}]} for i in range(3)})
    doc = workflow(nodes, [{"from": "root", "to": f"w{i}"} for i in range(3)])
    engine = await run_doc(doc, tmp_path, concurrency=4)
    running = peak = 0
    for e in of_type(events_of(engine.run_dir), "turn.status"):
        running += {"started": 1, "completed": -1}.get(e["status"], 0)
        peak = max(peak, running)
    assert peak == 3


async def test_concurrency_limit_is_respected(tmp_path: Path) -> None:
    nodes = {"root": {"script": [{"say": "fan out"}]}}
    nodes.update({f"w{i}": {"script": [{"sleep": 0.1}]} for i in range(4)})
    doc = workflow(nodes, [{"from": "root", "to": f"w{i}"} for i in range(4)])
    engine = await run_doc(doc, tmp_path, concurrency=2)
    running = peak = 0
    for e in of_type(events_of(engine.run_dir), "turn.status"):
        running += {"started": 1, "completed": -1}.get(e["status"], 0)
        peak = max(peak, running)
    assert peak == 2
    assert engine.state.status == "completed"


async def test_failure_beyond_retries_fails_the_run(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"fail": "boom"}],
                          "limits": {"retries": 2, "retryBackoffSec": 0.01}}})
    engine = await run_doc(doc, tmp_path)
    events = events_of(engine.run_dir)
    assert engine.state.status == "failed"
    starts = of_type(events, "turn.status", status="started")
    assert [e["retry"] for e in starts] == [1, 2, 3]
    assert len({e["agentRunId"] for e in starts}) == 3
    assert of_type(events, "run.failed")[0]["reason"].startswith("A:")


async def test_retry_that_succeeds_completes_with_lineage(tmp_path: Path) -> None:
    doc = workflow({"a": {"limits": {"retries": 1, "retryBackoffSec": 0}}})
    runner = FakeRunner({"a": [{"exit": 1, "error": "flaky"}, {"output": "fine"}]})
    engine = await run_doc(doc, tmp_path, runner_factory=runner)
    events = events_of(engine.run_dir)
    assert engine.state.status == "completed"
    starts = of_type(events, "turn.status", status="started")
    assert [e["attempt"] for e in starts] == [1, 2]
    assert starts[1]["inboxItemIds"] == []  # the retry keeps the turn's items
    assert unconsumed_items(events) == set()


async def test_max_turns_fails_the_node_and_keeps_its_input(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"say": "ping"}], "limits": {"maxTurns": 2}},
                    "b": {"script": [{"say": "pong"}]}},
                   [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}])
    engine = await run_doc(doc, tmp_path)
    state = engine.state
    a = engine.find_node("a")
    assert state.status == "failed"
    assert state.turns[a] == 2
    assert state.nodes[a].status == "failed"
    assert "max turns" in state.nodes[a].summary
    assert state.inboxes[a], "the input that could not run stays queued"


async def test_chat_queues_a_user_turn(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": {"when": [{"inboxContains": "extra", "steps": [
        {"say": "got the extra request"}]}], "default": [{"say": "first"}]}}})
    engine = create_run(doc, tmp_path, mode="INTERACTIVE")
    try:
        with pytest.raises(EngineError, match="give a node id or key"):
            engine.chat("A", "by its label")  # a label is a console's convenience only
        engine.chat("a", "one extra thing")
        status = await step_to_end(engine)
    finally:
        engine.close()
    events = events_of(engine.run_dir)
    assert status == "completed"
    assert of_type(events, "message.user")[0]["text"] == "one extra thing"
    assert engine.state.turns[engine.find_node("a")] == 1  # both items in one turn
    assert unconsumed_items(events) == set()


async def test_set_mode_switches_interactive_to_auto(tmp_path: Path) -> None:
    import asyncio

    doc = workflow({"a": {"script": [{"say": "1"}]}, "b": {"script": [{"say": "2"}]}},
                   [{"from": "a", "to": "b"}])
    engine = create_run(doc, tmp_path, mode="INTERACTIVE")
    task = asyncio.create_task(engine.run())
    # run.started is emitted on the same pass of the loop that then looks for turns to
    # start: once the run is running, that look has happened and found nothing to start
    await until(lambda: engine.state.status == "running")
    assert not engine.tasks and engine.waiting_for_input()
    assert engine.state.turns == {} and engine.state.inboxes[engine.find_node("a")]
    engine.set_mode(mode="auto")
    assert await asyncio.wait_for(task, 20) == "completed"
    engine.close()
    assert of_type(events_of(engine.run_dir), "run.mode")[0]["mode"] == "AUTO"



async def test_engine_state_is_exactly_the_fold_of_its_log(tmp_path: Path) -> None:
    from desktop.store.reducer import fold_events
    from desktop.store.snapshot import read_snapshot

    doc = workflow({"a": {"script": [{"deltas": 300}, {"think": "hmm"}, {"say": "done"}]},
                    "b": {"script": [{"deltas": 200}]}}, [{"from": "a", "to": "b"}])
    engine = await run_doc(doc, tmp_path)
    folded = fold_events(events_of(engine.run_dir)).to_json_dict()
    assert engine.state.to_json_dict() == folded
    assert engine.recorder.state_dict == folded
    assert read_snapshot(engine.run_dir).to_json_dict() == folded
