"""Auto-layout placement, Mermaid/DOT export and Mermaid import."""

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.graph.document import Position, WorkflowDocument, WorkflowEdge, WorkflowNode
from desktop.graph.export import from_mermaid, to_dot, to_mermaid
from desktop.graph.layout import LAYER_SPACING, auto_layout


def node(i: str, **kw) -> WorkflowNode:
    return WorkflowNode(id=i, label=i.title(), **kw)


def edge(a: str, b: str, **kw) -> WorkflowEdge:
    return WorkflowEdge(**{"from": a}, to=b, **kw)


def diamond() -> WorkflowDocument:
    return WorkflowDocument(
        name="Diamond",
        nodes=[node("d"), node("b"), node("a", entry=True), node("c")],
        edges=[edge("a", "b"), edge("a", "c"), edge("b", "d"), edge("c", "d"),
               edge("d", "a", type="report")])


def xs(doc: WorkflowDocument) -> dict[str, float]:
    return {n.id: n.position.x for n in doc.nodes}


def test_layered_layout_on_a_dag() -> None:
    doc = diamond()
    laid = auto_layout(doc)
    assert doc.nodes[0].position is None  # the input is untouched
    x = xs(laid)
    assert x["a"] < x["b"] == x["c"] < x["d"]
    assert x["b"] - x["a"] == LAYER_SPACING
    spots = {(n.position.x, n.position.y) for n in laid.nodes}
    assert len(spots) == 4
    assert auto_layout(doc) == laid  # deterministic


def test_loops_are_layered_from_the_entry() -> None:
    doc = WorkflowDocument(nodes=[node("p", entry=True), node("i"), node("r")],
                           edges=[edge("p", "i"), edge("i", "r"), edge("r", "i")])
    x = xs(auto_layout(doc))
    assert x["p"] < x["i"] < x["r"]


def test_force_layout_for_cycles_without_entry_is_repeatable() -> None:
    doc = WorkflowDocument(nodes=[node(c) for c in "abcd"],
                           edges=[edge("a", "b"), edge("b", "c"), edge("c", "d"), edge("d", "a")])
    first = auto_layout(doc)
    assert first == auto_layout(doc)
    assert len({(n.position.x, n.position.y) for n in first.nodes}) == 4
    assert auto_layout(diamond(), "force").nodes[0].position is not None


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11))))
def test_every_node_gets_a_distinct_position(n: int, pairs: list) -> None:
    ids = [f"n{i}" for i in range(n)]
    doc = WorkflowDocument(nodes=[node(i) for i in ids],
                           edges=[edge(ids[a % n], ids[b % n]) for a, b in pairs])
    laid = auto_layout(doc)
    spots = [(p.position.x, p.position.y) for p in laid.nodes]
    assert len(set(spots)) == n


def test_mermaid_output() -> None:
    doc = diamond()
    doc.edges.append(edge("b", "c", bidirectional=True, label='say "hi" #1'))
    text = to_mermaid(doc)
    lines = text.splitlines()
    assert lines[:4] == ["---", "title: Diamond", "---", "flowchart LR"]
    assert '  a["A<br/><small>implementer · scripted</small>"]' in lines
    assert "  a --> b" in lines
    assert "  d -.-> a" in lines
    assert '  b <-->|"say #quot;hi#quot; #35;1"| c' in lines
    assert "  class a entry" in lines
    assert '"hi"' not in text


def test_mermaid_round_trip() -> None:
    doc = WorkflowDocument(
        name='Ship "it"',
        nodes=[node("plan", role_template="planner", entry=True),
               WorkflowNode(id="impl-1.x", label='Impl <A> "#1"', provider="claude"),
               WorkflowNode(id="end", label="End")],
        edges=[edge("plan", "impl-1.x", label="task"),
               edge("impl-1.x", "plan", type="report", label="report"),
               edge("impl-1.x", "end", bidirectional=True),
               edge("end", "plan", type="report", bidirectional=True, label="a|b")])
    back = from_mermaid(to_mermaid(doc))
    assert back.name == doc.name
    assert [(n.id, n.label, n.role_template, n.provider, n.entry) for n in back.nodes] == [
        (n.id, n.label, n.role_template, n.provider, n.entry) for n in doc.nodes]
    assert [(e.from_, e.to, e.type, e.label, e.bidirectional) for e in back.edges] == [
        (e.from_, e.to, e.type, e.label, e.bidirectional) for e in doc.edges]
    assert all(isinstance(n.position, Position) for n in back.nodes)


def test_mermaid_import_of_a_hand_written_chart() -> None:
    doc = from_mermaid("""flowchart TD
    A[Start] --> B{Choose}
    B -->|yes| C(Do it)
    B -- no --> D & E
    C -.-> A
""")
    assert [n.id for n in doc.nodes] == ["A", "B", "C", "D", "E"]
    assert doc.node("B").label == "Choose"
    pairs = [(e.from_, e.to, e.type, e.label) for e in doc.edges]
    assert ("B", "C", "handoff", "yes") in pairs
    assert ("B", "D", "handoff", "no") in pairs and ("B", "E", "handoff", "no") in pairs
    assert ("C", "A", "report", None) in pairs


def test_dot_output_escapes_and_styles() -> None:
    doc = diamond()
    doc.nodes[0].label = 'Say "hi"\\now'
    doc.edges[0].bidirectional = True
    text = to_dot(doc)
    lines = text.splitlines()
    assert lines[0] == 'digraph "Diamond" {'
    assert '  "d" [label="Say \\"hi\\"\\\\now\\nimplementer · scripted"];' in lines
    assert '  "a" [label="A\\nimplementer · scripted", penwidth=2];' in lines
    assert '  "a" -> "b" [dir=both];' in lines
    assert '  "d" -> "a" [style=dashed];' in lines
    assert text.endswith("}\n")
