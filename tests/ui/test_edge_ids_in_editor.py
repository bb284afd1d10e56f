"""The editor keeps edge ids: edits and deletions of other edges never change them, new
and pasted edges get fresh ones, and undo gives back the same ids."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.graph.io import dumps_workflow, loads_workflow
from desktop.graph.resources import examples_dir
from desktop.ui.editor import Editor


def _editor() -> Editor:
    return Editor(loads_workflow((examples_dir() / "plan-implement-review.flow.yaml")
                                 .read_text()))


def _ids(editor: Editor) -> dict[str, str]:
    """Edge key in the editor -> the edge's id in the document."""
    return {key: editor.model.edge(key).id for key in editor.model.edge_keys()}


def test_new_pasted_and_edited_edges(qapp) -> None:
    editor = _editor()
    before = _ids(editor)
    key = editor.connect("planner", "reviewer")
    assert editor.model.edge(key).id == "planner-to-reviewer"
    pasted = editor.duplicate(["planner", "implementer"])
    ids = [e.id for e in editor.model.doc.edges]
    assert len(ids) == len(set(ids)) and all(ids) and len(pasted) == 2
    edge_key = next(iter(before))
    edge = editor.model.edge(edge_key)
    editor.edit_edge(edge_key, edge.model_copy(update={"label": "renamed"}))
    editor.rename_node("planner", "lead")
    assert _ids(editor)[edge_key] == before[edge_key]
    saved = loads_workflow(dumps_workflow(editor.model.doc))
    assert [e.id for e in saved.edges] == [e.id for e in editor.model.doc.edges]


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["connect", "delete", "undo", "redo"]),
                          st.integers(0, 10), st.integers(0, 10)), max_size=15))
def test_deleting_an_edge_never_changes_another_edges_id(qapp, ops) -> None:
    editor = _editor()
    nodes = editor.model.node_ids()
    for kind, a, b in ops:
        before = _ids(editor)
        keys = list(before)
        if kind == "connect":
            editor.connect(nodes[a % len(nodes)], nodes[b % len(nodes)])
        elif kind == "delete" and keys:
            editor.delete([], [keys[a % len(keys)]])
        elif kind == "undo":
            editor.undo_stack.undo()
        else:
            editor.undo_stack.redo()
        after = _ids(editor)
        assert all(after.values()) and len(set(after.values())) == len(after)
        # every edge that is still there (same key) has the id it had
        assert {k: v for k, v in after.items() if k in before} == \
            {k: v for k, v in before.items() if k in after}
