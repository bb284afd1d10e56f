"""Property: any sequence of edits, undone completely, gives back the original document;
redone completely, gives the final one. Also the undo of a delete restores everything."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.contract.state import NodeConfig
from desktop.graph.io import dumps_workflow, load_workflow
from desktop.graph.resources import examples_dir
from desktop.ui.canvas.scene import CanvasScene
from desktop.ui.editor import Editor, fill_missing_positions

ROLES = ["planner", "implementer", "reviewer", "tester"]


def example_doc():
    return fill_missing_positions(load_workflow(examples_dir() / "plan-implement-review.flow.yaml"))


def state(editor: Editor) -> str:
    return dumps_workflow(editor.model.doc)


def assert_scene_follows(scene: CanvasScene, editor: Editor) -> None:
    """The canvas shows exactly the document: same nodes, places, edges and ends."""
    model = editor.model
    assert set(scene.nodes) == set(model.node_ids())
    for node_id, item in scene.nodes.items():
        pos = model.node(node_id).position
        assert (item.pos().x(), item.pos().y()) == (pos.x, pos.y)
        assert item.label.rstrip("…") in (model.node(node_id).label or node_id)
    assert set(scene.edges) == set(model.edge_keys())
    for key, item in scene.edges.items():
        edge = model.edge(key)
        src, dst = scene.nodes[edge.from_], scene.nodes[edge.to]
        assert item.report == (edge.type == "report")
        assert item.bidirectional == edge.bidirectional
        start = item.path().pointAtPercent(0)
        assert abs(start.y() - (src.pos().y() + src.out_port().y())) < 1e-6
        end = item.path().pointAtPercent(1)
        assert abs(end.y() - (dst.pos().y() + dst.in_port().y())) < 1e-6


def apply(editor: Editor, op: tuple) -> None:
    kind, a, b, c = op
    ids = editor.model.node_ids()
    keys = editor.model.edge_keys()
    def pick(seq, i):
        return seq[i % len(seq)]

    if kind == "add":
        editor.add_node(ROLES[a % len(ROLES)], "scripted", (b * 10.0, c * 10.0))
    elif kind == "connect" and ids:
        editor.connect(pick(ids, a), pick(ids, b), "report" if c % 2 else "handoff")
    elif kind == "delete" and (ids or keys):
        nodes = [pick(ids, a)] if ids and c % 3 != 0 else []
        edges = [pick(keys, b)] if keys and c % 2 == 0 else []
        editor.delete(nodes, edges)
    elif kind == "move" and ids:
        chosen = ids[: 1 + a % len(ids)]
        pos = editor.positions(chosen)
        editor.move({i: (x + b, y + c) for i, (x, y) in pos.items()}, mergeable=bool(c % 2))
    elif kind == "label" and ids:
        node = editor.model.node(pick(ids, a))
        editor.edit_node(node.model_copy(update={"label": f"L{b}"}),
                         NodeConfig(instructions=f"do {c}") if c % 2 else None)
    elif kind == "rename" and ids:
        old = pick(ids, a)
        new = f"n{b}-{c}"
        if not editor.model.has_node(new):
            editor.rename_node(old, new)
    elif kind == "edge" and keys:
        key = pick(keys, a)
        edge = editor.model.edge(key)
        editor.edit_edge(key, edge.model_copy(update={
            "bidirectional": not edge.bidirectional, "label": f"e{b}" if c % 2 else None}))
    elif kind == "duplicate" and ids:
        editor.duplicate(ids[: 1 + a % len(ids)])
    elif kind == "meta":
        editor.set_meta(name=f"Flow {a}", task=f"task {b}")
    elif kind == "align" and len(ids) > 1:
        editor.align(ids[: 2 + a % (len(ids) - 1)], ["left", "top", "vcenter"][b % 3])
    elif kind == "layout":
        editor.auto_layout()
    elif kind == "undo":
        editor.undo_stack.undo()
    elif kind == "redo":
        editor.undo_stack.redo()


OPS = st.tuples(
    st.sampled_from(["add", "connect", "delete", "move", "label", "rename", "edge",
                     "duplicate", "meta", "align", "layout", "undo", "redo"]),
    st.integers(0, 20), st.integers(-5, 20), st.integers(0, 20),
)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(OPS, min_size=1, max_size=25))
def test_undo_all_gives_original_and_redo_all_gives_final(qapp, ops):
    editor = Editor(example_doc())
    scene = CanvasScene(editor)
    original = state(editor)
    for op in ops:
        apply(editor, op)
    assert_scene_follows(scene, editor)
    final = state(editor)
    stack = editor.undo_stack
    reached = stack.index()  # undo ops in the sequence leave steps to redo beyond this
    while stack.canUndo():
        stack.undo()
    assert state(editor) == original
    assert_scene_follows(scene, editor)
    while stack.index() < reached:
        stack.redo()
    assert state(editor) == final
    assert_scene_follows(scene, editor)


def test_undo_delete_restores_node_with_edges_config_and_position(qapp):
    editor = Editor(example_doc())
    before = state(editor)
    implementer = editor.model.node("implementer")
    assert len(editor.model.edges_of("implementer")) == 3
    editor.delete(["implementer"], [])
    assert editor.model.node("implementer") is None
    assert all("implementer" not in (e.from_, e.to) for e in editor.model.doc.edges)
    assert "implementer" not in editor.model.doc.node_configs
    editor.undo_stack.undo()
    assert state(editor) == before
    assert editor.model.node("implementer").position == implementer.position
    assert editor.model.config("implementer").instructions.startswith("Implement the plan")


def test_consecutive_drags_of_the_same_selection_merge(qapp):
    editor = Editor(example_doc())
    start = editor.positions(["planner", "reviewer"])
    for step in range(1, 6):
        editor.move({i: (x + step * 20, y) for i, (x, y) in start.items()})
    assert editor.undo_stack.count() == 1
    editor.move({"planner": (0.0, 500.0)})  # a different selection: a new step
    assert editor.undo_stack.count() == 2
    editor.undo_stack.undo()
    editor.undo_stack.undo()
    assert editor.positions(["planner", "reviewer"]) == start
