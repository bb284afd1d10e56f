"""``isolation`` of a workflow and of a node: its shape, its checks, its round trip."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from desktop.cli.schema import all_sources
from desktop.contract.schema import build_schemas
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import document_data, dumps_workflow, parse_workflow
from desktop.graph.validate import validate
from desktop.runtime.run_setup import run_created_event

BODY = """version: 1
name: t
{run}nodes:
  - id: a
    entry: true
  - id: b
nodeConfigs:
  a:
{a}  b:
    instructions: b
{b}edges:
  - from: a
    to: b
"""


def load(run: str = "", a: str = "    instructions: a\n", b: str = "", source="t.flow.yaml"):
    return parse_workflow(BODY.format(run=run, a=a, b=b), source)


def warnings(source: str, **parts: str) -> list:
    doc, smap = load(source=source, **parts)
    found = validate(doc, source, smap)
    assert not [p for p in found if p.is_error], found
    return [p for p in found if "isolation" in p.location]


def test_unset_is_the_default_and_is_not_written_back() -> None:
    doc, _ = load()
    assert doc.isolation is None and doc.config("a").isolation is None
    data = document_data(doc)
    assert "isolation" not in data and "isolation" not in data["nodeConfigs"]["a"]
    assert "isolation" not in run_created_event(doc, "0" * 8 + "-0000-4000-8000-" + "0" * 12,
                                                 mode="AUTO", global_mode="IMPLEMENTATION",
                                                 workflow_path=None)


@given(run=st.sampled_from([None, "worktree", "shared"]),
       node=st.sampled_from([None, "worktree", "shared"]))
def test_run_and_node_isolation_round_trip(run: str | None, node: str | None) -> None:
    doc, _ = load(run=f"isolation: {run}\n" if run else "",
                  a=f"    isolation: {node}\n" if node else "    instructions: a\n")
    again, _ = parse_workflow(dumps_workflow(doc), "again.flow.yaml")
    assert again.isolation == doc.isolation == run
    assert again.config("a").isolation == doc.config("a").isolation == node
    created = run_created_event(doc, "12345678-0000-4000-8000-000000000000", mode="AUTO",
                                global_mode="IMPLEMENTATION", workflow_path=None)
    assert created.get("isolation") == run


@pytest.mark.parametrize(("run", "a", "where"), [
    ("isolation: sharde\n", "    instructions: a\n", "t.flow.yaml:3: isolation"),
    ("", "    isolation: work-tree\n", "t.flow.yaml:9: nodeConfigs.a.isolation"),
])
def test_a_bad_isolation_is_named_with_the_file_field_and_fix(run: str, a: str,
                                                               where: str) -> None:
    with pytest.raises(WorkflowLoadError) as err:
        load(run=run, a=a)
    shown = str(err.value)
    assert where in shown and "use one of: worktree, shared" in shown


def test_worktree_without_a_workspace_is_no_warning(tmp_path: Path) -> None:
    """Asked for, a worktree of the run's scratch repository is what the node gets."""
    source = str(tmp_path / "t.flow.yaml")
    assert warnings(source, a="    isolation: worktree\n") == []
    assert warnings(source, run="isolation: worktree\n") == []


def test_worktree_on_a_folder_outside_git_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "repo").mkdir()
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    source = str(tmp_path / "t.flow.yaml")
    found = warnings(source, a="    isolation: worktree\n    workspace: plain\n",
                     b="    isolation: worktree\n    workspace: repo\n")
    assert [p.location for p in found] == ["nodeConfigs.a.isolation"]
    assert "not in a git repository" in found[0].message and "git init" in found[0].hint
    assert warnings(source, a="    isolation: shared\n    workspace: plain\n") == []


def test_the_workflow_schema_knows_isolation() -> None:
    schema = build_schemas(all_sources())["workflow-document.schema.json"]
    check = Draft202012Validator(json.loads(json.dumps(schema)))
    doc = {"name": "t", "isolation": "worktree", "nodes": [{"id": "a"}],
           "nodeConfigs": {"a": {"isolation": "shared"}}}
    check.validate(doc)
    assert not check.is_valid(doc | {"isolation": "copy"})
    assert not check.is_valid(doc | {"nodeConfigs": {"a": {"isolation": "copy"}}})


def setup_warnings(source: str, **parts: str) -> list:
    doc, smap = load(source=source, **parts)
    return [p for p in validate(doc, source, smap) if "worktreeSetup" in p.location]


def test_a_worktree_setup_that_would_never_run_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "repo").mkdir()
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    source = str(tmp_path / "t.flow.yaml")
    setup = "    worktreeSetup: {run: npm ci}\n"
    # a node's own: shared, outside git, or in the scratch folder, it never runs
    for a, says, fix in (
            ("    isolation: shared\n    workspace: repo\n", "isolation: shared",
             "set isolation: worktree"),
            ("    workspace: plain\n", "not in a git repository", "git init"),
            ("", "scratch folder", "set a workspace in a git repository")):
        [found] = setup_warnings(source, a=a + setup)
        assert found.location == "nodeConfigs.a.worktreeSetup" and not found.is_error
        assert says in found.message and fix in found.hint, (a, found)
    for a in ("    workspace: repo\n", "    isolation: worktree\n"):  # a worktree: it runs
        assert setup_warnings(source, a=a + setup) == []
    # the workflow's: a warning only when no node that takes it has a worktree
    workflow = "workspace: plain\nworktreeSetup: {copy: [.env]}\n"
    [found] = setup_warnings(source, run=workflow)
    assert found.location == "worktreeSetup"
    assert "(and so does the other node that takes it)" in found.message
    assert setup_warnings(source, run=workflow, b="    workspace: repo\n") == []
    assert setup_warnings(source, run="workspace: repo\nworktreeSetup: {copy: [.env]}\n") == []


def submodule_warnings(source: str, **parts: str) -> list:
    doc, smap = load(source=source, **parts)
    return [p for p in validate(doc, source, smap) if "has submodules" in p.message]


def test_a_repository_with_submodules_and_no_setup_command_is_a_warning(
        tmp_path: Path) -> None:
    """Worktrees do not check submodules out: nodes working on a repository that has
    some, with no setup command, would find them empty. One warning per repository,
    naming its nodes, at the workspace that brings it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    source = str(tmp_path / "t.flow.yaml")
    assert submodule_warnings(source, run="workspace: repo\n") == []  # none yet
    (repo / ".gitmodules").write_text('[submodule "lib"]\n\tpath = lib\n\turl = ../lib\n')
    [found] = submodule_warnings(source, run="workspace: repo\n")
    assert found.location == "workspace" and not found.is_error
    assert f"{repo} has submodules, which the worktrees of nodes 'a' and 'b' would have " \
           "empty" in found.message
    assert "worktreeSetup: {run: git submodule update --init --recursive}" in found.hint
    [found] = submodule_warnings(source, a="    workspace: repo\n")
    assert found.location == "nodeConfigs.a.workspace" and found.line == 9
    assert "the worktree of node 'a' would" in found.message
    # a setup command (it may fill them), or no worktree of the repository: no warning
    alone = "    instructions: a\n"
    for run, a in (("workspace: repo\nworktreeSetup: {run: make deps}\n", alone),
                   ("workspace: repo\nisolation: shared\n", alone),
                   ("", "    workspace: repo\n    worktreeSetup: {run: make deps}\n")):
        assert submodule_warnings(source, run=run, a=a) == [], (run, a)
