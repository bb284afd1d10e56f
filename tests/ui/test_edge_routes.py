"""On the canvas, edges go around the nodes between their ends and keep off the text drawn
under each card (the run status), and every label sits where no node covers it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF

from desktop.ui.canvas.node_item import NODE_H, NODE_W
from desktop.ui.canvas.status_badge import BELOW

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
  - {from: b, to: c, label: second}
  - {from: a, to: c, label: skip b}
  - {from: c, to: a, type: report, label: back to a}
  - {from: a, to: d, label: down}
  - {from: d, to: c}
"""


def card_with_status(win, node_id: str) -> QRectF:
    """The card and the status lines drawn under it during a run."""
    pos = win.scene.nodes[node_id].pos()
    return QRectF(pos.x(), pos.y(), NODE_W, NODE_H + BELOW)


def path_points(edge) -> list:
    path = edge.path()
    return [path.pointAtPercent(i / 200) for i in range(201)]


def edge_key(win, a: str, b: str) -> str:
    model = win.editor.model
    return next(k for k in model.edge_keys() if (model.edge(k).from_, model.edge(k).to) == (a, b))


def test_edges_go_around_nodes_and_labels_stay_readable(editor_window, tmp_path: Path):
    path = tmp_path / "row.flow.yaml"
    path.write_text(ROW)
    assert editor_window.files.open_path(path)
    win = editor_window
    for key, edge in win.scene.edges.items():
        ends = {win.editor.model.edge(key).from_, win.editor.model.edge(key).to}
        for node_id in win.scene.nodes:
            if node_id in ends:
                continue
            area = card_with_status(win, node_id)
            crossing = [p for p in path_points(edge) if area.contains(p)]
            assert not crossing, f"edge {key} crosses node {node_id} at {crossing[0]}"
        label = edge._detail()[1]
        if edge.label:
            for node_id in win.scene.nodes:
                assert not label.intersects(card_with_status(win, node_id)), \
                    f"label {edge.label!r} is under node {node_id}"
    # the edge back to a leaves c and comes into a without crossing their status lines
    back = win.scene.edges[edge_key(win, "c", "a")]
    for node_id in ("a", "c"):
        under = card_with_status(win, node_id).adjusted(0, NODE_H, 0, 0)
        assert not any(under.contains(p) for p in path_points(back))


APART = """
version: 1
name: Apart
task: go
nodes:
  - {id: a, label: A, provider: scripted, entry: true, position: {x: 0, y: 0}}
  - {id: c, label: C, provider: scripted, position: {x: 900, y: 0}}
  - {id: x, label: X, provider: scripted, position: {x: 420, y: 400}}
edges:
  - {from: a, to: c, label: straight}
"""


def test_moving_a_node_into_an_edge_reroutes_that_edge(editor_window, tmp_path: Path):
    path = tmp_path / "apart.flow.yaml"
    path.write_text(APART)
    assert editor_window.files.open_path(path)
    win = editor_window
    edge = win.scene.edges[edge_key(win, "a", "c")]
    edge.path()  # routed when first drawn or asked for
    assert edge.route.curved  # nothing in the way yet
    win.editor.move({"x": (420.0, 0.0)})  # right onto the edge
    area = card_with_status(win, "x")
    assert not any(area.contains(p) for p in path_points(edge))
    assert not edge._detail()[1].intersects(area)
