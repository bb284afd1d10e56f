"""Workflow diffs: layout is never a difference, and what changed is named with old and new."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.contract.enums import EdgeType
from desktop.contract.state import Limits, NodeConfig
from desktop.graph.decorations import Box, StickyNote
from desktop.graph.document import Position, WorkflowDocument, WorkflowEdge, WorkflowNode
from desktop.graph.flow_diff import Change, diff_flows
from desktop.graph.flow_diff_text import diff_lines, summary
from desktop.graph.io import dumps_workflow, loads_workflow

slugs = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)
words = st.text(alphabet="abc xyz", max_size=12)
coords = st.floats(-1e5, 1e5, allow_nan=False)
configs = st.builds(NodeConfig, instructions=words, model=st.none() | slugs,
                    limits=st.builds(Limits, max_turns=st.none() | st.integers(1, 50)))
quick = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def documents(draw: st.DrawFn) -> WorkflowDocument:
    ids = draw(st.lists(slugs, max_size=6, unique=True))
    nodes = [WorkflowNode(id=i, label=draw(words),
                          position=draw(st.none() | st.builds(Position, x=coords, y=coords)))
             for i in ids]
    edges = []
    if ids:
        ends = st.sampled_from(ids)
        edges = draw(st.lists(st.builds(
            lambda f, t, ty, lab: WorkflowEdge(**{"from": f}, to=t, type=ty, label=lab),
            ends, ends, st.sampled_from(list(EdgeType)), st.none() | words), max_size=6))
    cfgs = {i: draw(configs) for i in ids if draw(st.booleans())}
    return WorkflowDocument(name=draw(words), task=draw(words), nodes=nodes, edges=edges,
                            node_configs=cfgs)


def ids(items) -> list[str]:
    return [item.id for item in items]


@quick
@given(documents())
def test_a_document_diffed_with_itself_or_its_saved_file_is_the_same(
        doc: WorkflowDocument) -> None:
    assert diff_flows(doc, doc).same
    again = loads_workflow(dumps_workflow(doc))
    assert diff_flows(doc, again).same and diff_lines(diff_flows(again, doc)) == []


@quick
@given(documents(), st.data())
def test_layout_is_never_a_difference(doc: WorkflowDocument, data: st.DataObject) -> None:
    moved = doc.model_copy(deep=True)
    for node in moved.nodes:
        node.position = Position(x=data.draw(coords), y=data.draw(coords))
    moved.notes = [StickyNote(id="n1", text="moved", box=Box(x=data.draw(coords)))]
    assert diff_flows(doc, moved).same
    assert summary(diff_flows(doc, moved)) == "no differences"


@quick
@given(documents(), documents())
def test_added_one_way_is_removed_the_other(a: WorkflowDocument, b: WorkflowDocument) -> None:
    forward, back = diff_flows(a, b), diff_flows(b, a)
    assert ids(forward.added_nodes) == ids(back.removed_nodes)
    assert ids(forward.removed_nodes) == ids(back.added_nodes)
    assert ids(forward.added_edges) == ids(back.removed_edges)
    assert sorted(ids(forward.changed_nodes)) == sorted(ids(back.changed_nodes))
    assert forward.same == back.same


@quick
@given(documents(), slugs, slugs)
def test_a_parameter_change_shows_old_and_new(doc: WorkflowDocument, before: str,
                                               after: str) -> None:
    if not doc.nodes or before == after:
        return
    target = doc.nodes[-1].id
    old = doc.model_copy(deep=True)
    old.node_configs[target] = NodeConfig(model=before, limits=Limits(max_turns=3))
    new = old.model_copy(deep=True)
    new.node_configs[target].model = after
    new.node_configs[target].limits.max_turns = 4
    diff = diff_flows(old, new)
    assert ids(diff.changed_nodes) == [target]
    assert diff.node_changes(target) == (Change("config.model", before, after),
                                         Change("config.limits.maxTurns", 3, 4))
    assert f'~ node {target}: config.model: "{before}" → "{after}"' in diff_lines(diff)


def test_nodes_edges_and_settings_are_listed_in_document_order() -> None:
    old = WorkflowDocument(name="w", nodes=[WorkflowNode(id="a"), WorkflowNode(id="gone")],
                           edges=[WorkflowEdge(**{"from": "a"}, to="gone")])
    new = WorkflowDocument(
        name="w2", nodes=[WorkflowNode(id="a", label="A"), WorkflowNode(id="z", label="Z"),
                          WorkflowNode(id="b", label="B")],
        edges=[WorkflowEdge(**{"from": "a"}, to="z", type="report")])
    diff = diff_flows(old, new)
    assert ids(diff.added_nodes) == ["z", "b"] and ids(diff.removed_nodes) == ["gone"]
    assert diff_lines(diff) == [
        '~ workflow: name: "w" → "w2"',
        "+ node z (Z)", "+ node b (B)", "- node gone",
        '~ node a: label: "" → "A"',
        "+ edge a → z (report)", "- edge a → gone (handoff)",
    ]
    assert summary(diff) == ("nodes: 2 added, 1 removed, 1 changed; edges: 1 added, "
                             "1 removed; workflow settings: 1 changed")


def test_an_edge_whose_id_alone_changed_is_one_change_not_two() -> None:
    edge = {"from": "a", "to": "b"}
    nodes = [WorkflowNode(id="a"), WorkflowNode(id="b")]
    old = WorkflowDocument(nodes=nodes, edges=[WorkflowEdge(**edge, id="old-name")])
    new = WorkflowDocument(nodes=nodes, edges=[WorkflowEdge(**edge, id="new-name",
                                                            label="go")])
    diff = diff_flows(old, new)
    assert not diff.added_edges and not diff.removed_edges
    assert diff.edge_changes("new-name") == (Change("id", "old-name", "new-name"),
                                             Change("label", None, "go"))
