"""`agent-canvas bus post` refuses, writing nothing, a handoff to a node the run does not
have and a post to a run that has ended; agents of a running run post as before."""

import json
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.cli import main
from desktop.contract.base import new_id
from desktop.graph.resources import examples_dir

TS = "2026-01-01T00:00:00.000Z"
# fixed ids: one names a parametrized case, and every test worker must collect the same ones
IDS = {key: str(uuid.uuid5(uuid.NAMESPACE_URL, f"agent-canvas-test/{key}"))
       for key in ("writer", "review", "review/reviewer", "review/tester")}
KEYS = {nid: key for key, nid in IDS.items()}


def write_log(bus: Path, tail: list[dict]) -> str:
    """A run log: run.created with the KEYS nodes, run.started, then ``tail``."""
    run_id = new_id()
    nodes = {nid: {"id": nid, "runId": run_id, "key": key, "label": key, "provider": "scripted"}
             for nid, key in KEYS.items()}
    events = [{"type": "run.created", "nodes": nodes}, {"type": "run.started"}, *tail]
    bus.write_text("".join(
        json.dumps({"seq": seq, "id": new_id(), "runId": run_id, "ts": TS, **event}) + "\n"
        for seq, event in enumerate(events, 1)))
    return run_id


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The environment of the writer's agent in a running run."""
    bus = tmp_path / "events.jsonl"
    write_log(bus, [])
    folder = tmp_path / "agent"
    folder.mkdir()
    for name, value in {"MESSAGE_BUS": str(bus), "JRUN_ID": "20260101-1200000000-5",
                        "RUN_FOLDER": str(folder), "AGENT_CANVAS_NODE_ID": IDS["writer"]}.items():
        monkeypatch.setenv(name, value)
    for name in ("AGENT_CANVAS_RUN_ID", "CONDUCTOR_URL", "JRUN_MESSAGE_BUS"):
        monkeypatch.delenv(name, raising=False)
    return {"bus": bus, "folder": folder}


def posted(bus: Path) -> list[dict]:
    return [e for e in map(json.loads, bus.read_text().splitlines())
            if e["type"] == "bus.message"]


def test_a_handoff_to_no_node_of_the_run_is_refused(agent, capsys):
    before = agent["bus"].read_bytes()
    assert main(["bus", "post", "--handoff", "nonexist", "hi"]) == 2
    err = capsys.readouterr().err
    assert "'nonexist' names no node of this run" in err
    assert "review, review/reviewer, review/tester, writer" in err
    assert "Nothing was posted" in err
    assert agent["bus"].read_bytes() == before
    assert not (agent["folder"] / "handoff.json").exists()


@pytest.mark.parametrize("target", ["review", IDS["review"], "writer"])
def test_a_handoff_by_key_or_id_is_posted(agent, target):
    assert main(["bus", "post", "--handoff", target, "over to you"]) == 0
    assert posted(agent["bus"])[-1]["handoffTo"] == target
    assert json.loads((agent["folder"] / "handoff.json").read_text())["to"] == target


def test_inside_a_subflow_a_key_of_its_own_file_names_its_node(agent, monkeypatch, capsys):
    monkeypatch.setenv("AGENT_CANVAS_NODE_ID", IDS["review/reviewer"])
    assert main(["bus", "post", "--handoff", "tester", "try it"]) == 0
    assert posted(agent["bus"])[-1]["handoffTo"] == "tester"
    assert main(["bus", "post", "--handoff", "planner", "try it"]) == 2
    assert "the run's nodes: review, reviewer, tester, writer" in capsys.readouterr().err


ENDS = st.sampled_from([("run.completed", "has completed"), ("run.failed", "has failed"),
                        ("run.stopped", "has been stopped")])
# what may follow the end in the log without making the run live again
AFTER = st.lists(st.sampled_from([
    {"type": "artifact.created", "artifact": {"id": "a", "kind": "diff", "name": "x"}},
    {"type": "log.recovered", "problem": "torn_tail", "offset": 1, "length": 1, "detail": ""},
    {"type": "bus.message", "busType": "FACT", "message": 'quoted "run.started" in text'},
    {"type": "agent.raw", "provider": "x", "line": {"type": "run.resumed"}},
]), max_size=3)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(end=ENDS, after=AFTER, handoff=st.sampled_from([None, "review"]))
def test_a_run_that_has_ended_takes_no_post(end, after, handoff, monkeypatch, capsys):
    kind, words = end
    with tempfile.TemporaryDirectory() as tmp:
        bus = Path(tmp) / "events.jsonl"
        write_log(bus, [{"type": kind}, *after])
        monkeypatch.setenv("MESSAGE_BUS", str(bus))
        monkeypatch.setenv("RUN_FOLDER", tmp)
        before = bus.read_bytes()
        argv = ["bus", "post", *(["--handoff", handoff] if handoff else []), "late"]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"the run {words}: nothing was posted" in err
        assert bus.read_bytes() == before
        assert not (Path(tmp) / "handoff.json").exists()


@pytest.mark.parametrize("tail", [
    [{"type": "run.paused"}],
    [{"type": "run.stopped"}, {"type": "run.resumed"}],
    [{"type": "run.completed"}, {"type": "run.patch", "patch": {"status": "running"}}],
])
def test_a_live_run_takes_posts(agent, tail):
    write_log(agent["bus"], tail)
    assert main(["bus", "post", "still", "here"]) == 0
    assert posted(agent["bus"])[-1]["message"] == "still here"


def test_after_a_real_run_a_post_is_refused_and_replay_still_matches(
        tmp_path: Path, monkeypatch, capsys):
    data = tmp_path / "data"
    assert main(["run", str(examples_dir() / "plan-implement-review.flow.yaml"),
                 "--data-dir", str(data)]) == 0
    [run_dir] = (data / "runs").iterdir()
    bus = run_dir / "events.jsonl"
    assert posted(bus), "the agents' own posts, made while the run ran, are in the log"
    capsys.readouterr()
    monkeypatch.setenv("MESSAGE_BUS", str(bus))
    for name in ("RUN_FOLDER", "AGENT_CANVAS_NODE_ID", "CONDUCTOR_URL", "JRUN_MESSAGE_BUS"):
        monkeypatch.delenv(name, raising=False)
    assert main(["bus", "post", "--handoff", "nonexist", "hi"]) == 2
    assert main(["bus", "post", "hi"]) == 2
    assert "the run has completed: nothing was posted" in capsys.readouterr().err
    assert main(["replay", str(run_dir), "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.startswith("same:")
