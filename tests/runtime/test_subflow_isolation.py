"""Code travels through a subflow node with ``isolation: worktree``: the task going in
brings the sender's commit to the subflow's entry, and the subflow's output brings the
entry's branch to the node after it, in the user's repository and in the run's scratch
repository alike."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest
from engine_helpers import events_of, of_type, run_doc
from gitkit import fingerprint, git, no_git_config, node_git, tree_files, user_repo

from desktop.graph.io import load_workflow
from desktop.runtime.recovery import create_run

__all__ = ["no_git_config"]


def _edit(path: str, text: str) -> list[dict]:
    return [{"edit": {"path": path, "content": text}}, {"say": f"wrote {path}"}]


def _write(path: Path, nodes: dict[str, dict], edges: list[tuple[str, str, str]],
           workspace: Path | None) -> Path:
    """A workflow file isolated in worktrees: ``nodes`` by id ({"turns": [...]} or
    {"flow": ...}), the first the entry; ``edges`` as (from, to, type)."""
    doc: dict = {"version": 1, "name": path.stem, "task": "t", "isolation": "worktree",
                 "nodes": [], "nodeConfigs": {},
                 "edges": [{"from": a, "to": b, "type": t} for a, b, t in edges]}
    for i, (key, spec) in enumerate(nodes.items()):
        node: dict = {"id": key, "entry": i == 0}
        if "flow" in spec:
            node.update(kind="subflow", flow=spec["flow"])
        else:
            config: dict = {"script": {"turns": spec["turns"]}}
            if workspace is not None:
                config["workspace"] = str(workspace)
            doc["nodeConfigs"][key] = config
        doc["nodes"].append(node)
    path.write_text(orjson.dumps(doc).decode())
    return path


def _flows(folder: Path, workspace: Path | None) -> Path:
    """``a`` writes a.txt and hands off to subflow ``sub``, whose entry ``inner`` writes
    inner.txt (its worker ``check`` reports back); ``sub`` hands off to ``after``."""
    folder.mkdir(parents=True)
    _write(folder / "sub.flow.yaml",
           {"inner": {"turns": [_edit("inner.txt", "inner\n"), [{"say": "checked"}]]},
            "check": {"turns": [_edit("checked.txt", "checked\n")]}},
           [("inner", "check", "handoff"), ("check", "inner", "report")], workspace)
    return _write(folder / "top.flow.yaml",
                  {"a": {"turns": [_edit("a.txt", "from a\n")]},
                   "sub": {"flow": "sub.flow.yaml"},
                   "after": {"turns": [[{"say": "after"}]]}},
                  [("a", "sub", "handoff"), ("sub", "after", "handoff")], workspace)


@pytest.mark.parametrize("where", ["user repository", "scratch repository"])
async def test_the_node_after_a_subflow_gets_its_work_and_the_subflow_gets_the_senders(
        tmp_path: Path, no_git_config, where: str) -> None:
    repo = user_repo(tmp_path / "project") if where == "user repository" else None
    engine = await run_doc(load_workflow(_flows(tmp_path / "flows", repo)), tmp_path / "data")
    assert engine.state.status == "completed"
    inner, after = node_git(engine, "sub/inner"), node_git(engine, "after")
    assert inner is not None and after is not None
    top = Path(after.repo)
    if repo is not None:
        assert top.resolve() == repo.resolve()
    else:
        assert top.resolve() == (engine.run_dir / "workspace").resolve()
    # the task going in carried a's commit: the subflow's entry worked on top of a.txt
    assert {"a.txt", "inner.txt", "checked.txt"} <= set(tree_files(top, inner.branch))
    # the subflow's output carried its entry's commit: the node after it merged it all
    out = next(e["envelope"] for e in of_type(events_of(engine.run_dir), "handoff.sent")
               if e["nodeId"] == next(n for n, s in engine.state.nodes.items()
                                      if s.key == "sub"))
    assert out["commit"] == git(top, "rev-parse", inner.branch)
    worktree = engine.run_dir / after.worktree
    for name, text in (("a.txt", "from a\n"), ("inner.txt", "inner\n"),
                       ("checked.txt", "checked\n")):
        assert (worktree / name).read_text() == text


async def test_the_workflows_workspace_reaches_every_node_and_its_subflows(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    top = _flows(tmp_path / "flows", None)
    doc = load_workflow(top)
    doc.workspace = "../project"  # as written in the top file: relative to its folder
    engine = create_run(doc, tmp_path / "data", workflow_path=str(top))
    try:
        await asyncio.wait_for(engine.run(), 60)
    finally:
        engine.close()
    assert engine.state.status == "completed"
    run8 = engine.state.id[:8]
    for key in ("a", "sub/inner", "sub/check", "after"):
        record = node_git(engine, key)
        assert record is not None, key
        assert Path(record.repo).resolve() == repo.resolve()
        # a subflow's node is named by its scoped key in its branch, not by its id
        assert record.branch == f"canvas/{run8}/{key.replace('/', '+')}"
        assert git(repo, "rev-parse", "--verify", "--quiet", record.branch)
    assert fingerprint(repo) == before  # the user's work is as it was
