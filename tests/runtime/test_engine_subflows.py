"""Subflow nodes in a run: the subflow runs as one step of its node, in the same log."""

from __future__ import annotations

import asyncio
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import orjson
from engine_helpers import events_of, of_type, run_doc, unconsumed_items

from desktop.graph.io import load_workflow
from desktop.runtime.engine import Engine
from desktop.runtime.recovery import resume_engine

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"


def keyed(events: list[dict]) -> dict[str, str]:
    """Node id -> key, from the run's ``run.created``."""
    return {nid: node["key"] for nid, node in events[0]["nodes"].items()}


def copy_example(folder: Path) -> Path:
    """The subflow example and its review file, copied to ``folder`` (to be edited)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("subflow-review.flow.yaml", "review.flow.yaml"):
        shutil.copy(EXAMPLES / name, folder / name)
    return folder / "subflow-review.flow.yaml"


async def test_the_example_runs_and_the_subflows_verdict_reaches_the_next_node(tmp_path):
    engine = await run_doc(load_workflow(EXAMPLES / "subflow-review.flow.yaml"), tmp_path)
    events = events_of(engine.run_dir)
    assert engine.state.status == "completed" and unconsumed_items(events) == set()
    key = keyed(events)
    turns = [key[e["nodeId"]] for e in of_type(events, "turn.status", status="started")]
    assert turns == ["writer", "review", "review/reviewer", "review/tester",
                     "review/reviewer", "writer"]
    # the writer's handoff became the subflow's task, at the subflow's entry node
    task = next(e for e in of_type(events, "inbox.queued") if key[e["nodeId"]] ==
                "review/reviewer")
    assert task["item"]["kind"] == "task" and "Review greet.py" in task["item"]["text"]
    # the subflow's output (its entry's last output) went along the review node's edge
    back = [e for e in of_type(events, "handoff.sent") if key[e["nodeId"]] == "review"]
    assert len(back) == 1
    envelope = back[0]["envelope"]
    assert key[envelope["toNodeId"]] == "writer" and envelope["kind"] == "report"
    assert envelope["payload"]["message"].startswith("APPROVE.")
    # the review node's step spans its inside: started before, completed after
    review = [i for i, e in enumerate(events) if e.get("type") == "turn.status"
              and key.get(e.get("nodeId")) == "review"]
    inner = [i for i, e in enumerate(events) if e.get("type") == "turn.status"
             and key.get(e.get("nodeId"), "").startswith("review/")]
    assert review[0] < min(inner) and review[-1] > max(inner)


async def test_inner_events_carry_the_scoped_node_and_stay_in_one_log(tmp_path):
    engine = await run_doc(load_workflow(EXAMPLES / "subflow-review.flow.yaml"), tmp_path)
    events = events_of(engine.run_dir)
    key = keyed(events)
    said = {key[e["nodeId"]] for e in of_type(events, "message.assistant.final")}
    assert {"review/reviewer", "review/tester", "writer"} <= said
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert len(list((tmp_path / "runs").iterdir())) == 1


async def test_editing_the_subflow_file_changes_the_next_run_only(tmp_path):
    parent = copy_example(tmp_path / "flows")
    first = await run_doc(load_workflow(parent), tmp_path / "data")
    sub = tmp_path / "flows" / "review.flow.yaml"
    sub.write_text(sub.read_text().replace("APPROVE. The tester", "APPROVE. Edited, the tester"))
    second = await run_doc(load_workflow(parent), tmp_path / "data")

    def verdict(engine: Engine) -> str:
        events = events_of(engine.run_dir)
        key = keyed(events)
        sent = [e for e in of_type(events, "handoff.sent") if key[e["nodeId"]] == "review"]
        return sent[0]["envelope"]["payload"]["message"]

    assert not verdict(first).startswith("APPROVE. Edited")
    assert verdict(second).startswith("APPROVE. Edited")


async def test_a_subflow_runs_on_its_own(tmp_path):
    engine = await run_doc(load_workflow(EXAMPLES / "review.flow.yaml"), tmp_path)
    assert engine.state.status == "completed"
    assert {n.key for n in engine.state.nodes.values()} == {"reviewer", "tester"}


def _run_until_inside(flow: Path, data: Path) -> None:
    """Run ``flow`` in a process and kill -9 it while the tester inside the subflow works."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop", "run", str(flow), "--data-dir", str(data), "--json"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    assert proc.stdout is not None
    with proc.stdout:
        keys: dict[str, str] = {}
        for line in proc.stdout:
            event = orjson.loads(line)
            if event.get("type") == "run.created":
                keys = {nid: n["key"] for nid, n in event["nodes"].items()}
            if event.get("type") == "turn.status" and event.get("status") == "started" and \
                    keys.get(event.get("nodeId")) == "review/tester":
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)


async def test_resume_after_a_kill_uses_the_recorded_subflow_not_the_file(tmp_path):
    parent = copy_example(tmp_path / "flows")
    _run_until_inside(parent, tmp_path / "data")
    (tmp_path / "flows" / "review.flow.yaml").unlink()  # the run must not need it again
    (run_dir,) = (tmp_path / "data" / "runs").iterdir()
    engine = resume_engine(run_dir)
    try:
        await asyncio.wait_for(engine.run(), 60)
    finally:
        engine.close()
    events = events_of(run_dir)
    assert engine.state.status == "completed" and unconsumed_items(events) == set()
    key = keyed(events)
    review = [e for e in of_type(events, "turn.status") if key[e["nodeId"]] == "review"]
    assert [e["status"] for e in review] == ["started", "completed"]  # one step, not two
    sent = [e for e in of_type(events, "handoff.sent") if key[e["nodeId"]] == "review"]
    assert sent[0]["envelope"]["payload"]["message"].startswith("APPROVE.")


def _write(path: Path, nodes: dict[str, dict], edges: list[tuple[str, str, str]]) -> Path:
    """A workflow file: ``nodes`` by id ({"say": ...} or {"flow": ...}); the first is the
    entry; ``edges`` as (from, to, type)."""
    doc: dict = {"version": 1, "name": path.stem, "task": "t", "nodes": [], "nodeConfigs": {},
                 "edges": [{"from": a, "to": b, "type": t} for a, b, t in edges]}
    for i, (key, spec) in enumerate(nodes.items()):
        node: dict = {"id": key, "entry": i == 0}
        if "flow" in spec:
            node.update(kind="subflow", flow=spec["flow"])
        else:
            doc["nodeConfigs"][key] = {"script": {"turns": [[{"say": s}] for s in spec["say"]]}}
        doc["nodes"].append(node)
    path.write_text(orjson.dumps(doc).decode())
    return path


async def test_nested_subflows_run_inside_out_and_hand_their_output_up(tmp_path):
    _write(tmp_path / "leaf.flow.yaml", {"x": {"say": ["x works"]}, "y": {"say": ["y checks"]}},
           [("x", "y", "handoff")])
    _write(tmp_path / "middle.flow.yaml",
           {"m": {"say": ["m starts", "m heard back"]}, "inner": {"flow": "leaf.flow.yaml"}},
           [("m", "inner", "handoff"), ("inner", "m", "report")])
    top = _write(tmp_path / "top.flow.yaml",
                 {"a": {"say": ["a starts", "a is done"]}, "b": {"flow": "middle.flow.yaml"}},
                 [("a", "b", "handoff"), ("b", "a", "report")])
    engine = await run_doc(load_workflow(top), tmp_path / "data")
    events = events_of(engine.run_dir)
    assert engine.state.status == "completed" and unconsumed_items(events) == set()
    key = keyed(events)
    ends = [key[e["nodeId"]] for e in of_type(events, "turn.status", status="completed")]
    assert ends == ["a", "b/m", "b/inner/x", "b/inner/y", "b/inner", "b/m", "b", "a"]
    up = [e["envelope"] for e in of_type(events, "handoff.sent")
          if key[e["nodeId"]] in ("b", "b/inner")]
    assert [(key[e["toNodeId"]], e["payload"]["message"]) for e in up] == \
        [("b/m", "x works"), ("a", "m heard back")]
