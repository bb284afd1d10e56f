"""`eval run --resume` refuses a subflow file that changed since the evaluation began, as
it refuses a changed workflow: the workflow's file alone is the same, but what it runs is
not."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import orjson
import pytest

from desktop.eval.inputs import EvalInputError, make_plan
from tests.eval.evalkit import run, suite, version_dirs


def _write(path: Path, nodes: dict[str, dict], edges: list[tuple[str, str, str]]) -> Path:
    """A workflow file: ``nodes`` by id ({"say": [...]} or {"flow": ...}); the first is the
    entry; ``edges`` as (from, to, type)."""
    doc: dict = {"version": 1, "name": path.stem, "task": "t", "nodes": [], "nodeConfigs": {},
                 "edges": [{"from": a, "to": b, "type": t} for a, b, t in edges]}
    for i, (key, spec) in enumerate(nodes.items()):
        node: dict = {"id": key, "entry": i == 0}
        if "flow" in spec:
            node.update(kind="subflow", flow=spec["flow"])
        else:
            doc["nodeConfigs"][key] = {"script": {"turns": [[{"say": s}] for s in spec["say"]]
                                                  + [[{"done": True}]]}}
        doc["nodes"].append(node)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(orjson.dumps(doc).decode())
    return path


def _nested(folder: Path, leaf_says: str = "x works") -> Path:
    """top.flow.yaml runs middle.flow.yaml (node b), which runs leaf.flow.yaml (node inner)."""
    _write(folder / "leaf.flow.yaml", {"x": {"say": [leaf_says]}}, [])
    _write(folder / "middle.flow.yaml",
           {"m": {"say": ["m starts", "m heard back"]}, "inner": {"flow": "leaf.flow.yaml"}},
           [("m", "inner", "handoff"), ("inner", "m", "report")])
    return _write(folder / "top.flow.yaml",
                  {"a": {"say": ["a starts", "a is done"]}, "b": {"flow": "middle.flow.yaml"}},
                  [("a", "b", "handoff"), ("b", "a", "report")])


@pytest.fixture
def killed(tmp_path: Path) -> dict[str, Path]:
    """A finished two-case evaluation of nested subflows whose new side lost case b."""
    files = {"suite": suite(tmp_path / "s.suite.yaml", [{"id": "a", "task": "t"},
                                                         {"id": "b", "task": "t"}]),
             "baseline": _nested(tmp_path / "old"), "new": _nested(tmp_path / "new"),
             "out": tmp_path / "out"}
    asyncio.run(run(files["suite"], files["baseline"], files["new"], files["out"]))
    [version] = version_dirs(files["out"], "new")
    (version / "b.json").unlink()
    return files


def _resume(files: dict[str, Path]):
    return make_plan(files["suite"], files["baseline"], files["new"], files["out"],
                     resume=True)


def test_the_evaluation_keeps_every_subflow_file_it_runs(killed: dict[str, Path]) -> None:
    kept = killed["out"] / "workflows"
    for side in ("baseline", "new"):
        folder = killed[side].parent
        assert (kept / f"{side}.subflows" / "b.flow.yaml").read_bytes() == \
            (folder / "middle.flow.yaml").read_bytes()
        assert (kept / f"{side}.subflows" / "b" / "inner.flow.yaml").read_bytes() == \
            (folder / "leaf.flow.yaml").read_bytes()


@pytest.mark.parametrize(("name", "copy", "node"), [
    ("middle.flow.yaml", "b.flow.yaml", "b"),
    ("leaf.flow.yaml", "b/inner.flow.yaml", "b/inner")])
def test_resume_refuses_a_changed_subflow_file(killed: dict[str, Path], name: str, copy: str,
                                               node: str) -> None:
    changed = killed["new"].parent / name
    kept = killed["out"] / "workflows" / "new.subflows" / copy
    before = kept.read_bytes()
    changed.write_bytes(changed.read_bytes().replace(b'"say":"', b'"say":"now '))
    assert changed.read_bytes() != before
    with pytest.raises(EvalInputError) as caught:
        _resume(killed)
    [problem] = caught.value.problems
    assert problem.startswith(f"{changed}: differs from {kept}")
    assert f"node {node!r} of the --new workflow" in problem
    assert f"put {name} back as it was" in problem and "another --out" in problem
    assert kept.read_bytes() == before


def test_resume_with_the_same_subflows_elsewhere_finishes(killed: dict[str, Path],
                                                          tmp_path: Path) -> None:
    moved = tmp_path / "moved"
    shutil.copytree(killed["new"].parent, moved)
    again = {**killed, "new": moved / "top.flow.yaml"}
    asyncio.run(run(again["suite"], again["baseline"], again["new"], again["out"],
                    resume=True))
    [version] = version_dirs(again["out"], "new")
    assert (version / "b.json").is_file()
