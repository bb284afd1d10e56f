"""`agent-canvas schema --out DIR` writes one valid JSON Schema file per shape."""

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from desktop.cli import main
from desktop.contract.events import KNOWN_EVENTS
from desktop.contract.schema import event_type_of
from desktop.graph.document import WorkflowDocument

EXPECTED = {
    "run-state", "node-state", "node-config", "edge-state", "envelope", "artifact",
    "run-info", "workflow-document", "event", "eval-suite", "artifact.run", "artifact.case",
    "artifact.failure-meta", "artifact.assets-manifest", "runner",
}


def test_writes_every_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "schemas"
    assert main(["schema", "--out", str(out)]) == 0
    names = {p.name.removesuffix(".schema.json") for p in out.glob("*.schema.json")}
    events = {f"event.{event_type_of(m)}" for m in KNOWN_EVENTS}
    assert names == EXPECTED | events
    assert "event.message.assistant.delta" in names
    assert not list(out.glob(".*.tmp"))  # atomic writes leave no temp files
    for path in out.iterdir():
        schema = json.loads(path.read_text("utf-8"))
        Draft202012Validator.check_schema(schema)
        assert "properties" in schema or "$defs" in schema, path.name
    assert f"to {out}" in capsys.readouterr().out


def test_workflow_schema_matches_the_model(tmp_path: Path) -> None:
    main(["schema", "--out", str(tmp_path)])
    schema = json.loads((tmp_path / "workflow-document.schema.json").read_text())
    doc = {"name": "Demo", "globalMode": "PLANNING",
           "nodes": [{"id": "planner", "roleTemplate": "planner", "provider": "scripted"},
                     {"id": "coder"}],
           "edges": [{"from": "planner", "to": "coder", "type": "handoff"}]}
    WorkflowDocument.model_validate(doc)
    Draft202012Validator(schema).validate(doc)
    assert not Draft202012Validator(schema).is_valid(doc | {"nodez": []})


def test_rerun_overwrites(tmp_path: Path) -> None:
    assert main(["schema", "--out", str(tmp_path)]) == 0
    first = sorted(p.read_bytes() for p in tmp_path.iterdir())
    assert main(["schema", "--out", str(tmp_path)]) == 0
    assert sorted(p.read_bytes() for p in tmp_path.iterdir()) == first


def test_out_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x")
    assert main(["schema", "--out", str(target)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_runner_schema_accepts_the_specs_example_and_refuses_a_bad_one(tmp_path: Path) -> None:
    from tests.store.runner_records import example

    main(["schema", "--out", str(tmp_path)])
    validator = Draft202012Validator(json.loads((tmp_path / "runner.schema.json").read_text()))
    assert list(validator.iter_errors(example())) == []
    bad = example()
    bad["sandbox"]["backend"] = "docker"
    bad["limits"]["timeout_ms"] = 10
    assert len(list(validator.iter_errors(bad))) == 2
