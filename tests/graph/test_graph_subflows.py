"""Subflow nodes: files referenced by path, read recursively, checked, and expanded into
one run graph with keys and edge ids scoped by the subflow node."""

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from desktop.graph.document import SLUG_PATTERN, WorkflowNode, node_uuid
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import dumps_workflow, load_workflow, loads_workflow
from desktop.graph.subflows import (
    flow_reference,
    resolve_subflows,
    scope_of,
    scoped_key,
    subflow_path,
)
from desktop.graph.validate import check_file
from desktop.runtime.run_setup import run_created_event

RUN = "11111111-2222-3333-4444-555555555555"


def flow(folder: Path, name: str, nodes: list[str], *, subflows: dict[str, str] | None = None,
         edges: list[tuple[str, str]] = ()) -> Path:
    """A workflow file ``name`` of ``nodes`` (the first is the entry); ``subflows`` makes
    some of them subflow nodes running the file given."""
    subflows = subflows or {}
    lines = ["version: 1", f"name: {name}", "task: t", "nodes:"]
    for i, node in enumerate(nodes):
        lines.append(f"  - id: {node}")
        if i == 0:
            lines.append("    entry: true")
        if node in subflows:
            lines += ["    kind: subflow", f"    flow: {subflows[node]}"]
    lines.append("edges:" + ("" if edges else " []"))
    for a, b in edges:
        lines += [f"  - from: {a}", f"    to: {b}"]
    path = folder / f"{name}.flow.yaml"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def created(path: Path) -> dict:
    doc = load_workflow(path)
    return run_created_event(doc, RUN, mode="AUTO", global_mode="IMPLEMENTATION",
                             workflow_path=str(path), subflows=resolve_subflows(doc, path))


def keys(event: dict) -> dict[str, str]:
    return {node["key"]: node_id for node_id, node in event["nodes"].items()}


def test_inner_nodes_get_scoped_keys_and_the_edges_inside_are_rewired(tmp_path: Path):
    flow(tmp_path / "sub", "review", ["reviewer", "tester"], edges=[("reviewer", "tester")])
    parent = flow(tmp_path, "main", ["writer", "review"],
                  subflows={"review": "sub/review.flow.yaml"}, edges=[("writer", "review")])
    event = created(parent)
    ids = keys(event)
    assert set(ids) == {"writer", "review", "review/reviewer", "review/tester"}
    review = event["nodes"][ids["review"]]
    assert review["subflow"] == "sub/review.flow.yaml"
    assert review["subflowEntry"] == ids["review/reviewer"]
    inner = event["nodes"][ids["review/tester"]]
    assert inner["parent"] == ids["review"] and not inner.get("entry")
    pairs = {(e["from"], e["to"]) for e in event["edges"].values()}
    assert pairs == {(ids["writer"], ids["review"]), (ids["review/reviewer"], ids["review/tester"])}


def test_two_uses_of_one_file_and_nesting_keep_every_id_apart(tmp_path: Path):
    flow(tmp_path, "leaf", ["x", "y"], edges=[("x", "y")])
    flow(tmp_path, "middle", ["m", "inner"], subflows={"inner": "leaf.flow.yaml"},
         edges=[("m", "inner")])
    parent = flow(tmp_path, "top", ["a", "b"],
                  subflows={"a": "middle.flow.yaml", "b": "leaf.flow.yaml"}, edges=[("a", "b")])
    event = created(parent)
    assert {"a/inner/x", "a/inner/y", "b/x", "b/y", "a/m"} <= set(keys(event))
    assert len(event["edges"]) == 1 + 1 + 1 + 1  # top, middle, leaf inside a, leaf as b
    ids = keys(event)
    assert event["nodes"][ids["a/inner/x"]]["parent"] == ids["a/inner"]
    assert event["nodes"][ids["a/inner"]]["parent"] == ids["a"]


slugs = st.from_regex(SLUG_PATTERN, fullmatch=True).filter(lambda s: "/" not in s)


@given(st.lists(slugs, min_size=1, max_size=4), slugs)
def test_a_scoped_key_names_its_scope_and_never_collides(path: list[str], leaf: str):
    scope = ""
    for part in path:
        scope = scoped_key(scope, part)
    key = scoped_key(scope, leaf)
    assert scope_of(key) == scope
    assert node_uuid(RUN, key) != node_uuid(RUN, leaf) or key == leaf


def test_a_cycle_of_subflows_is_refused_naming_the_chain(tmp_path: Path):
    flow(tmp_path, "b", ["x", "back"], subflows={"back": "a.flow.yaml"})
    a = flow(tmp_path, "a", ["start", "use_b"], subflows={"use_b": "b.flow.yaml"})
    _doc, problems = check_file(str(a))
    errors = [p for p in problems if p.is_error]
    assert len(errors) == 1
    text = str(errors[0])
    assert "cycle" in text and "a.flow.yaml uses b.flow.yaml uses a.flow.yaml" in text
    assert "nodes[1].flow" in text and str(tmp_path / "b.flow.yaml") in text


def test_a_missing_subflow_file_is_refused_naming_the_field_and_the_file(tmp_path: Path):
    a = flow(tmp_path, "a", ["start", "gone"], subflows={"gone": "nowhere.flow.yaml"})
    _doc, problems = check_file(str(a))
    errors = [p for p in problems if p.is_error]
    assert [p.location for p in errors] == ["nodes[1].flow"]
    assert "'nowhere.flow.yaml' not found" in str(errors[0])
    assert errors[0].file == str(a) and errors[0].line == 9  # the `flow:` line


def test_a_problem_inside_a_subflow_file_names_that_file(tmp_path: Path):
    sub = tmp_path / "bad.flow.yaml"
    sub.write_text("version: 1\nname: bad\nnodes:\n  - id: x\nedges:\n  - from: x\n    to: y\n")
    a = flow(tmp_path, "a", ["start", "use"], subflows={"use": "bad.flow.yaml"})
    _doc, problems = check_file(str(a))
    errors = [p for p in problems if p.is_error]
    assert errors and all(p.file == str(sub) for p in errors)
    assert any(p.location == "edges[0].to" for p in errors)


def test_a_subflow_node_needs_a_flow_and_an_agent_node_takes_none():
    bad = "version: 1\nname: t\nnodes:\n  - id: s\n    kind: subflow\nedges: []\n"
    try:
        loads_workflow(bad, "t.flow.yaml")
    except WorkflowLoadError as exc:
        assert "needs `flow:`" in str(exc) and "t.flow.yaml" in str(exc)
    else:
        raise AssertionError("a subflow node without flow was accepted")
    assert WorkflowNode(id="a").kind == "agent"


def test_kind_and_flow_survive_a_save(tmp_path: Path):
    path = flow(tmp_path, "a", ["start", "use"], subflows={"use": "b.flow.yaml"})
    doc = load_workflow(path)
    again = loads_workflow(dumps_workflow(doc))
    assert again.node("use").kind == "subflow" and again.node("use").flow == "b.flow.yaml"
    assert again == doc and doc.source == str(path.resolve())


def test_a_relative_workspace_inside_a_subflow_stays_where_its_file_says(tmp_path: Path):
    sub = flow(tmp_path / "sub", "review", ["reviewer"])
    sub.write_text(sub.read_text().replace(
        "edges: []", "nodeConfigs:\n  reviewer:\n    workspace: work\nedges: []"))
    parent = flow(tmp_path, "main", ["writer", "review"],
                  subflows={"review": "sub/review.flow.yaml"}, edges=[("writer", "review")])
    event = created(parent)
    ids = keys(event)
    assert event["nodeConfigs"][ids["review/reviewer"]]["workspace"] == "sub/work"


_part = st.text("abcxyz-_", min_size=1, max_size=6)


@given(parent_dirs=st.lists(_part, max_size=3), target_dirs=st.lists(_part, max_size=3),
       saved=st.booleans())
def test_flow_reference_reads_back_to_the_file_chosen(tmp_path_factory, parent_dirs,
                                                      target_dirs, saved):
    root = tmp_path_factory.getbasetemp().resolve() / "refs"
    parent = root.joinpath(*parent_dirs, "top.flow.yaml")
    target = root.joinpath(*target_dirs, "sub.flow.yaml")
    reference = flow_reference(target, parent if saved else None)
    assert Path(reference).is_absolute() is not saved
    assert subflow_path(parent, reference) == target
    if saved and parent_dirs == target_dirs:
        assert reference == "sub.flow.yaml"


@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
       st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
       st.lists(st.sampled_from(["a", "b", "c"]), max_size=3))
def test_rebased_subflows_name_the_same_file_from_the_new_folder(
        old: list[str], new: list[str], target: list[str]) -> None:
    from desktop.graph.document import WorkflowDocument
    from desktop.graph.subflows import rebase_subflows

    root = Path("/tmp/rebase-root")
    old_file = root.joinpath(*old, "parent.flow.yaml")
    new_file = root.joinpath(*new, "moved.flow.yaml")
    sub = root.joinpath(*target, "sub.flow.yaml")
    doc = WorkflowDocument.model_validate({"nodes": [
        {"id": "w", "entry": True},
        {"id": "s", "kind": "subflow", "flow": flow_reference(sub, old_file)}]})
    rebase_subflows(doc, old_file, new_file)
    assert subflow_path(new_file, doc.nodes[1].flow) == sub.resolve()
    unsaved = WorkflowDocument.model_validate({"nodes": [
        {"id": "w", "entry": True}, {"id": "s", "kind": "subflow", "flow": str(sub)}]})
    rebase_subflows(unsaved, None, new_file)  # an absolute path becomes relative
    assert subflow_path(new_file, unsaved.nodes[1].flow) == sub.resolve()
    assert not Path(unsaved.nodes[1].flow).is_absolute()
