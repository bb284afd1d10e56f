"""`agent-canvas validate` and `run` with subflow nodes, as a user types them."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def _flow(path: Path, sub: str) -> None:
    path.write_text("version: 1\nname: n\ntask: t\nnodes:\n  - id: start\n    entry: true\n"
                    f"  - id: use\n    kind: subflow\n    flow: {sub}\n"
                    "edges:\n  - from: start\n    to: use\n")


def test_validate_refuses_a_cycle_and_names_the_chain(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]):
    _flow(tmp_path / "a.flow.yaml", "b.flow.yaml")
    _flow(tmp_path / "b.flow.yaml", "a.flow.yaml")
    assert main(["validate", str(tmp_path / "a.flow.yaml")]) == 2
    err = capsys.readouterr().err
    assert "nodes[1].flow: subflows form a cycle: a.flow.yaml uses b.flow.yaml uses " \
           "a.flow.yaml" in err
    assert "INVALID (1 error" in err and "Traceback" not in err


def test_run_refuses_a_missing_subflow_before_starting(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]):
    _flow(tmp_path / "a.flow.yaml", "missing.flow.yaml")
    code = main(["run", "--data-dir", str(tmp_path / "data"), str(tmp_path / "a.flow.yaml")])
    err = capsys.readouterr().err
    assert code != 0 and "'missing.flow.yaml' not found" in err and "Traceback" not in err
    assert not (tmp_path / "data" / "runs").exists() or \
        not any((tmp_path / "data" / "runs").iterdir())


@pytest.mark.parametrize("name", ["subflow-review.flow.yaml", "review.flow.yaml"])
def test_the_example_and_its_subflow_each_run_from_the_command_line(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["validate", str(EXAMPLES / name)]) == 0
    assert main(["run", "--data-dir", str(tmp_path), str(EXAMPLES / name)]) == 0
    assert "run.completed" in capsys.readouterr().out


def test_a_remote_console_waits_for_a_step_while_a_subflow_step_runs():
    from desktop.cli.remote import RemoteRun
    from desktop.graph.io import load_workflow
    from desktop.graph.subflows import resolve_subflows
    from desktop.runtime.run_setup import run_created_event
    from desktop.runtime.subflow_step import enter_events

    example = EXAMPLES / "subflow-review.flow.yaml"
    doc = load_workflow(example)
    run_id = "11111111-2222-3333-4444-555555555555"
    created = run_created_event(doc, run_id, mode="INTERACTIVE", global_mode="IMPLEMENTATION",
                                workflow_path=str(example),
                                subflows=resolve_subflows(doc, example))
    review = next(nid for nid, n in created["nodes"].items() if n["key"] == "review")
    run = RemoteRun(None, run_id)  # type: ignore[arg-type]  # no call reaches the service
    stamp = {"ts": "2026-01-01T00:00:00.000Z"}
    run.apply([{**created, **stamp, "seq": 1}, {"type": "run.started", **stamp, "seq": 2},
               {"type": "inbox.queued", "nodeId": review, **stamp, "seq": 3, "item": {
                   "id": "i1", "kind": "handoff", "text": "review it",
                   "queuedAt": stamp["ts"]}}])
    assert run.state is not None
    run.apply([{**e, **stamp, "seq": 4 + i} for i, e in enumerate(enter_events(run.state,
                                                                              review))])
    assert review in run.state.running_turns  # the review node's step runs...
    assert run.waiting_for_input()  # ...and the reviewer inside waits for a step
