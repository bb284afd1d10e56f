"""Edges are routed when first drawn, not when the canvas is built: the first paint already
shows an edge going around the node in its way, and a node moved onto an edge makes the
next paint route that edge again."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QImage

from desktop.graph.io import loads_workflow
from desktop.ui.canvas.edge_item import EdgeItem
from desktop.ui.canvas.node_item import NODE_H, NODE_W
from desktop.ui.canvas.routing import polyline
from desktop.ui.canvas.scene import CanvasScene
from desktop.ui.canvas.status_badge import BELOW
from desktop.ui.canvas.view import CanvasView
from desktop.ui.editor import Editor

BLOCKED = """
version: 1
name: Blocked
task: go
nodes:
  - {id: a, label: A, provider: scripted, entry: true, position: {x: 0, y: 0}}
  - {id: x, label: X, provider: scripted, position: {x: 420, y: %s}}
  - {id: c, label: C, provider: scripted, position: {x: 900, y: 0}}
edges:
  - {from: a, to: c}
"""


def shown(doc, qtbot) -> tuple[CanvasScene, CanvasView]:
    """A scene of ``doc`` in a view of a window's size (closed and deleted by qtbot, the
    scene with it)."""
    view = CanvasView(CanvasScene(Editor(doc)))
    view.scene().setParent(view)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    return view.scene(), view


@pytest.fixture
def canvas(qtbot) -> tuple[CanvasScene, CanvasView]:
    """A scene of BLOCKED with node x right in the way of the edge a -> c, in a view."""
    scene, view = shown(loads_workflow(BLOCKED % 0), qtbot)
    view.centerOn(QPointF(540, 40))
    return scene, view


def only_edge(scene: CanvasScene) -> EdgeItem:
    (edge,) = scene.edges.values()
    return edge


def card_of(scene: CanvasScene, node_id: str) -> QRectF:
    """The card and the status lines drawn under it during a run."""
    pos = scene.nodes[node_id].pos()
    return QRectF(pos.x(), pos.y(), NODE_W, NODE_H + BELOW)


def crossing(edge: EdgeItem, area: QRectF) -> list[tuple[float, float]]:
    """The points of the edge's route (not of its drawn path: no routing on asking) in
    ``area``."""
    assert edge.route is not None, "the edge was drawn without a route"
    path = polyline(edge.route)
    dense = [(p[0] + (q[0] - p[0]) * t / 50, p[1] + (q[1] - p[1]) * t / 50)
             for p, q in itertools.pairwise(path) for t in range(51)]
    return [p for p in dense if area.contains(QPointF(*p))]


def test_nothing_is_routed_before_the_first_paint_and_the_first_paint_goes_around(canvas):
    scene, view = canvas
    edge = only_edge(scene)
    assert edge.route is None  # building the canvas routed nothing

    first = view.grab().toImage()  # one paint of the view, as a window's first frame

    assert edge.route is not None and not edge.route.curved
    assert not crossing(edge, card_of(scene, "x"))
    assert_drawn(view, edge, first)


def assert_drawn(view: CanvasView, edge: EdgeItem, image: QImage) -> None:
    """The pixels along the longest straight run of the edge's route in ``image`` are the
    edge's: they change when the edge is hidden."""
    lane = max(itertools.pairwise(edge.route.points),
               key=lambda s: abs(s[1][0] - s[0][0]) + abs(s[1][1] - s[0][1]))
    edge.setVisible(False)
    without = view.grab().toImage()
    edge.setVisible(True)
    drawn = [_differs(view, image, without, lane, t / 20) for t in range(2, 19)]
    assert sum(drawn) >= len(drawn) - 2, f"the route along {lane} was not drawn: {drawn}"


def _differs(view: CanvasView, one: QImage, other: QImage, segment, t: float) -> bool:
    (x0, y0), (x1, y1) = segment
    at = view.mapFromScene(QPointF(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t))
    ratio = one.devicePixelRatio()
    px, py = round(at.x() * ratio), round(at.y() * ratio)
    return any(one.pixel(px + dx, py + dy) != other.pixel(px + dx, py + dy)
               for dx in (-1, 0, 1) for dy in (-1, 0, 1))


def test_a_node_moved_onto_a_drawn_edge_is_gone_around_at_the_next_paint(canvas):
    scene, view = canvas
    scene.editor.move({"x": (420.0, 500.0)})  # out of the way
    view.grab()
    edge = only_edge(scene)
    assert edge.route is not None and edge.route.curved

    scene.editor.move({"x": (420.0, 0.0)})  # back onto the edge
    image = view.grab().toImage()

    assert edge.route is not None and not edge.route.curved
    assert not crossing(edge, card_of(scene, "x"))
    assert_drawn(view, edge, image)


def chain(count: int, columns: int, step_y: int) -> str:
    """A chain of ``count`` nodes laid out in rows of ``columns``, 260 apart across and
    ``step_y`` apart down (a workflow file's text)."""
    nodes = "\n".join(f"  - {{id: n{i}, label: N{i}, provider: scripted, "
                      f"position: {{x: {(i % columns) * 260}, y: {(i // columns) * step_y}}}}}"
                      for i in range(count))
    edges = "\n".join(f"  - {{from: n{i}, to: n{i + 1}}}" for i in range(count - 1))
    return f"version: 1\nname: Chain\ntask: go\nnodes:\n{nodes}\nedges:\n{edges}\n"


def test_a_route_that_leaves_the_area_first_claimed_is_drawn_in_the_first_paint(qtbot):
    """In a chain laid out in rows so close that their status lines reach the next row's
    cards, the edge from a row's end to the next row's start runs above every row, far
    outside the area it claims before routing; the paint that routes it still draws it
    where it goes."""
    count, columns = 32, 4
    doc = loads_workflow(chain(count, columns, 120))
    scene, view = shown(doc, qtbot)
    view.fit()
    back = next(e for k, e in scene.edges.items()
                if scene.editor.model.edge(k).from_ == "n15")
    claimed = back.boundingRect()
    first = view.grab().toImage()
    assert back.route is not None
    for i in range(count):
        if f"n{i}" not in ("n15", "n16"):
            assert not crossing(back, card_of(scene, f"n{i}")), f"crosses n{i}"
    assert not claimed.contains(back.boundingRect())  # it did leave the claimed area
    assert_drawn(view, back, first)


def test_the_edges_wrapping_from_row_to_row_of_a_long_chain_cross_no_node(qtbot):
    """Rows 140 apart leave less than two lanes' room between one row's status lines and
    the next row's cards: each edge from a row's end to the next row's start still runs
    between the two rows, crossing no node and staying in the area it first claimed."""
    count, columns = 60, 3
    scene, view = shown(loads_workflow(chain(count, columns, 140)), qtbot)
    wraps = {k: e for k, e in scene.edges.items()
             if int(scene.editor.model.edge(k).to[1:]) % columns == 0}
    claimed = {k: e.boundingRect() for k, e in wraps.items()}
    view.fit()
    view.grab()
    scene.route_all()
    assert len(wraps) == count // columns - 1
    for key, edge in wraps.items():
        ends = scene.editor.model.edge(key)
        for i in range(count):
            if f"n{i}" not in (ends.from_, ends.to):
                assert not crossing(edge, card_of(scene, f"n{i}")), f"{key} crosses n{i}"
    for key, edge in wraps.items():
        assert claimed[key].contains(edge.boundingRect()), key
