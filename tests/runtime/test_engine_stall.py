"""Loop safety: stalls on repeated output, diff and verification failure, and on silence."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine_helpers import FakeRunner, events_of, of_type, until, workflow
from hypothesis import given
from hypothesis import strategies as st

from desktop.providers.process import group_members
from desktop.runtime.engine import EngineOptions
from desktop.runtime.recovery import create_run
from desktop.runtime.stall import StallDetector
from desktop.store.run_info import read_run_info

LOOP = [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]
B_VARIES = {"script": {"turns": [[{"say": f"b says {i}"}] for i in range(1, 8)]}}


def _completed_before_stall(events: list[dict], node_id: str) -> int:
    count = 0
    for e in events:
        if e["type"] == "run.stalled":
            return count
        if e["type"] == "turn.status" and e["status"] == "completed" and e["nodeId"] == node_id:
            count += 1
    raise AssertionError("no run.stalled event")


async def _run_until_paused(doc, tmp_path: Path, **options):
    engine = create_run(doc, tmp_path, options=EngineOptions(**options))
    status = await asyncio.wait_for(engine.run(exit_on_pause=True), 30)
    return engine, str(status)


async def test_repeated_output_stalls_exactly_at_the_threshold(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"say": "same thing again"}]}, "b": B_VARIES}, LOOP)
    engine, status = await _run_until_paused(doc, tmp_path)
    events = events_of(engine.run_dir)
    a = engine.find_node("a")
    assert status == "paused"
    stall = of_type(events, "run.stalled")
    assert len(stall) == 1 and stall[0]["reason"] == "output" and stall[0]["nodeId"] == a
    assert _completed_before_stall(events, a) == 3
    evidence = stall[0]["evidence"]
    assert evidence["count"] == 3 and len(evidence["agentRunIds"]) == 3
    assert evidence["outputs"] == ["same thing again"] * 3
    state = engine.state
    assert state.stall["reason"] == "output"
    assert state.nodes[a].status == "blocked"
    engine.close()


async def test_threshold_comes_from_the_node_config(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"say": "again"}], "stallThreshold": 4}, "b": B_VARIES},
                   LOOP)
    engine, _status = await _run_until_paused(doc, tmp_path)
    assert _completed_before_stall(events_of(engine.run_dir), engine.find_node("a")) == 4
    engine.close()


async def test_changed_instructions_then_resume_continues(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"say": "same thing again"}]}, "b": B_VARIES}, LOOP)
    engine, _status = await _run_until_paused(doc, tmp_path)
    engine.update_node_config("a", {"instructions": "finish up",
                                    "script": [{"say": "wrapping up"}, {"done": True}]})
    engine.resume_run()
    assert await asyncio.wait_for(engine.run(), 30) == "completed"
    engine.close()
    events = events_of(engine.run_dir)
    assert len(of_type(events, "run.stalled")) == 1
    assert of_type(events, "run.resumed")


async def test_repeated_diff_stalls(tmp_path: Path) -> None:
    runner = FakeRunner({"a": [{"output": f"a{i}", "diff": "d" * 64} for i in range(1, 9)],
                         "b": [{"output": f"b{i}"} for i in range(1, 9)]})
    doc = workflow({"a": {}, "b": {}}, LOOP)
    engine, status = await _run_until_paused(doc, tmp_path, runner_factory=runner)
    events = events_of(engine.run_dir)
    stall = of_type(events, "run.stalled")[0]
    assert status == "paused" and stall["reason"] == "diff"
    assert stall["evidence"]["hash"] == "d" * 64
    assert _completed_before_stall(events, engine.find_node("a")) == 3
    engine.close()


async def test_repeated_verification_failure_stalls(tmp_path: Path) -> None:
    failing = {"ok": False, "exitCode": 1, "hash": "v1", "outputTail": "1 failed"}
    runner = FakeRunner({"a": [{"output": f"a{i}", "verification": failing} for i in range(9)],
                         "b": [{"output": f"b{i}"} for i in range(1, 9)]})
    engine, _ = await _run_until_paused(workflow({"a": {}, "b": {}}, LOOP), tmp_path,
                                        runner_factory=runner)
    events = events_of(engine.run_dir)
    assert of_type(events, "run.stalled")[0]["reason"] == "verification"
    assert _completed_before_stall(events, engine.find_node("a")) == 3
    engine.close()


async def test_verification_command_failing_the_same_way_stalls(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": {"turns": [[{"say": f"try {i}"}] for i in range(1, 9)]},
                          "verification": "echo 'assert failed'; exit 3"}, "b": B_VARIES}, LOOP)
    engine, _ = await _run_until_paused(doc, tmp_path)
    events = events_of(engine.run_dir)
    assert of_type(events, "run.stalled")[0]["reason"] == "verification"
    assert len(of_type(events, "verification.result", nodeId=engine.find_node("a"))) == 3
    engine.close()


@given(st.lists(st.sampled_from("xyz"), min_size=1, max_size=30), st.integers(2, 5))
def test_detector_fires_at_the_first_run_of_threshold_equal_values(values: list[str],
                                                                    threshold: int) -> None:
    detector = StallDetector(lambda _n: threshold)
    fired_at = None
    for i, value in enumerate(values):
        stall = detector.observe_event({"type": "turn.status", "status": "completed",
                                        "nodeId": "n", "outputHash": value, "agentRunId": i})
        if stall:
            fired_at = i
            break
    expected = next((i for i in range(threshold - 1, len(values))
                     if len(set(values[i - threshold + 1: i + 1])) == 1), None)
    assert fired_at == expected


async def test_silent_node_pauses_the_run_and_stop_kills_it(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"say": "about to hang"}, {"hang": True}],
                          "limits": {"silenceSec": 0.4}}})
    engine = create_run(doc, tmp_path)
    task = asyncio.create_task(engine.run())
    await until(lambda: engine.state.stall is not None)
    stall = of_type(events_of(engine.run_dir), "run.stalled")[0]
    assert stall["reason"] == "silent" and stall["evidence"]["silenceSec"] == 0.4
    assert engine.state.status == "paused"
    info = read_run_info(next(engine.run_dir.glob("agents/*/run-info.yaml")))
    assert group_members(info.pgid)
    await engine.stop()
    assert await asyncio.wait_for(task, 20) == "stopped"
    engine.close()
    assert group_members(info.pgid) == []


async def test_pause_lets_running_turns_finish_and_resume_continues(tmp_path: Path) -> None:
    doc = workflow({"a": {"script": [{"sleep": 0.5}, {"say": "a done"}]},
                    "b": {"script": [{"say": "b done"}]}}, [{"from": "a", "to": "b"}])
    engine = create_run(doc, tmp_path)
    task = asyncio.create_task(engine.run())
    await until(lambda: engine.tasks)
    engine.pause()
    await until(lambda: not engine.tasks)
    state = engine.state
    a, b = engine.find_node("a"), engine.find_node("b")
    assert state.status == "paused" and state.turns.get(a) == 1 and not state.turns.get(b)
    assert state.inboxes[b], "b's input waits while paused"
    engine.resume_run()
    assert await asyncio.wait_for(task, 20) == "completed"
    engine.close()
    # the log says when each turn started, however long the pause lasted
    order = [(e["type"], e.get("status"), e.get("nodeId")) for e in events_of(engine.run_dir)]
    paused = order.index(("run.paused", None, None))
    resumed = order.index(("run.resumed", None, None))
    assert paused < order.index(("turn.status", "completed", a)) < resumed
    assert order.index(("turn.status", "started", b)) > resumed, "b started while paused"
