"""An edge draws exactly its route, wherever it is and whatever shape it shares with other
edges, and its bounds hold everything it draws: the route, the arrow heads and the label."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainterPath

from desktop.graph.io import loads_workflow
from desktop.ui.canvas.scene import CanvasScene
from desktop.ui.canvas.view import CanvasView
from desktop.ui.editor import Editor

ROW = """
version: 1
name: Row
task: go
nodes:
  - {id: a, label: A, provider: scripted, entry: true, position: {x: 0, y: 0}}
  - {id: b, label: B, provider: scripted, position: {x: 300, y: 0}}
  - {id: c, label: C, provider: scripted, position: {x: 600, y: 0}}
  - {id: d, label: D, provider: scripted, position: {x: 300, y: 200}}
edges:
  - {from: a, to: b, label: first}
  - {from: b, to: c, label: second, bidirectional: true}
  - {from: a, to: c, label: skip b}
  - {from: c, to: a, type: report, label: back to a}
  - {from: a, to: d, label: down}
  - {from: d, to: c}
"""


def pairs(places: list[tuple[int, int]]) -> str:
    """A workflow of node pairs, each pair's second node ahead of its first by the given
    offset, pairs far apart (a workflow file's text)."""
    nodes, edges = [], []
    for i, (dx, dy) in enumerate(places):
        x, y = i * 1200, i * 900
        nodes += [f"  - {{id: s{i}, provider: scripted, position: {{x: {x}, y: {y}}}}}",
                  f"  - {{id: t{i}, provider: scripted, position: {{x: {x + dx}, y: {y + dy}}}}}"]
        edges.append(f"  - {{from: s{i}, to: t{i}}}")
    return ("version: 1\nname: Pairs\ntask: go\nnodes:\n" + "\n".join(nodes)
            + "\nedges:\n" + "\n".join(edges) + "\n")


def inside(bounds: QRectF, rect: QRectF) -> bool:
    """Whether ``rect`` (flat ones too, which QRectF.contains refuses) lies in ``bounds``."""
    return bounds.contains(rect.topLeft()) and bounds.contains(rect.bottomRight())


def points(path: QPainterPath) -> list[tuple[float, float]]:
    return [(path.elementAt(i).x, path.elementAt(i).y) for i in range(path.elementCount())]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from([260, 300, 450]), st.sampled_from([0, 60, -90])),
                min_size=2, max_size=6))
def test_every_s_curve_draws_its_own_route_though_many_share_a_shape(qapp, places):
    scene = CanvasScene(Editor(loads_workflow(pairs(places))))
    scene.route_all()
    for edge in scene.edges.values():
        route = edge.route
        assert route is not None and route.curved  # nothing stands between a pair
        expected = [route.points[0], *route.controls, route.points[-1]]
        drawn = points(edge.path())
        assert len(drawn) == 4
        for (x, y), (ex, ey) in zip(drawn, expected, strict=True):
            assert x == pytest.approx(ex, abs=1e-6) and y == pytest.approx(ey, abs=1e-6)


def test_an_edges_bounds_hold_its_route_its_arrows_and_its_label(qtbot):
    view = CanvasView(CanvasScene(Editor(loads_workflow(ROW))))
    view.scene().setParent(view)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.fit()
    view.grab()  # the first paint routes every edge
    scene = view.scene()
    view.set_zoom(1.0)
    view.grab()  # at 100 % the arrow heads and labels are built
    for edge in scene.edges.values():
        bounds = edge.boundingRect()
        arrows, label, _shape = edge._detail()
        assert inside(bounds, edge.path().controlPointRect()), edge.key
        for arrow in arrows:
            assert inside(bounds, arrow.boundingRect()), edge.key
        if edge.label:
            assert inside(bounds, label), edge.key
    for a, b in itertools.combinations(scene.nodes.values(), 2):
        assert a.boundingRect() == b.boundingRect()  # every card's the same size
        assert a.boundingRect().contains(a.shape().boundingRect())
