"""The editor canvas at scale: 1,000- and 5,000-node chains, against NodeGraphQt.

Each figure is measured in a fresh child process (one per library and size), so
memory and Qt state of one run never leak into another. Each library runs as its
own app does: ours with the app's collector schedule (``collect_on_gui_thread``:
no automatic cyclic collection, a timer on the GUI thread instead), NodeGraphQt
with Python's default one.

- build: the document and every canvas item, from nothing (NodeGraphQt: create_node
  and connect_to for the same chain, undo off);
- full render: the first render of the whole scene into a 2,000 x 1,500 image;
- pan / zoom frame: one scroll step (40 px, and the paint of what it exposes) or
  one zoom step (x1.15, and a full repaint) of a 1,280 x 800 view, at 100 % and
  with the whole graph in view;
- memory: resident set growth from before the build to after the render.

NodeGraphQt is a bench-only extra (``pip install -e '.[bench]'``); without it the
reference columns are empty.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.measure import rss_mb

COLUMNS = 50
STEP_X, STEP_Y = 260.0, 140.0
IMAGE = (2000, 1500)
VIEW = (1280, 800)
FRAMES = 30


def _grid(i: int) -> tuple[float, float]:
    return (i % COLUMNS) * STEP_X, (i // COLUMNS) * STEP_Y


def _render(scene) -> float:
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    image = QImage(*IMAGE, QImage.Format.Format_ARGB32_Premultiplied)
    t = time.perf_counter()
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(painter, QRectF(image.rect()), scene.itemsBoundingRect())
    painter.end()
    return time.perf_counter() - t


def _frames(view, step, full: bool) -> float:
    """Median seconds of ``step()`` and the paint it causes.

    ``full``: repaint the whole viewport (a zoom changes every pixel); else let Qt
    paint what the step exposed, as it does for a scroll.
    """
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    times = []
    for k in range(FRAMES):
        t = time.perf_counter()
        step(k)
        if full:
            view.viewport().repaint()
        else:
            QApplication.processEvents()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _ours(n: int) -> dict:
    from desktop.graph.document import Position, WorkflowDocument, WorkflowEdge, WorkflowNode
    from desktop.ui.canvas.scene import CanvasScene
    from desktop.ui.canvas.view import CanvasView
    from desktop.ui.editor import Editor

    rss = rss_mb()
    t = time.perf_counter()
    nodes = [WorkflowNode(id=f"n{i}", label=f"Node {i}", roleTemplate="implementer",
                          position=Position(x=_grid(i)[0], y=_grid(i)[1])) for i in range(n)]
    edges = [WorkflowEdge(**{"from": f"n{i}"}, to=f"n{i + 1}") for i in range(n - 1)]
    editor = Editor(WorkflowDocument(nodes=nodes, edges=edges))
    scene = CanvasScene(editor)
    build = time.perf_counter() - t
    render = _render(scene)
    view = CanvasView(scene)
    view.resize(*VIEW)
    view.show()
    return _view_figures(view, build, render, rss, lambda: view.set_zoom(1.0),
                         lambda f: view.set_zoom(view.zoom() * f),
                         lambda dx: view.pan_by(dx, 0), view.fit)


def _view_figures(view, build, render, rss, actual, zoom, pan, fit) -> dict:
    actual()
    view.centerOn(STEP_X * 10, STEP_Y * 10)
    out = {"build": build, "render": render}
    out["pan"] = _frames(view, lambda k: pan(40 if k % 2 == 0 else -40), full=False)
    out["zoom"] = _frames(view, lambda k: zoom(1.15 if k % 2 == 0 else 1 / 1.15), full=True)
    fit()
    out["zoom_fit"] = _frames(view, lambda k: zoom(1.15 if k % 2 == 0 else 1 / 1.15),
                              full=True)
    out["memory"] = rss_mb() - rss
    return out


def _nodegraphqt(n: int) -> dict:
    os.environ["QT_PREFERRED_BINDING"] = "PySide6"
    from NodeGraphQt import BaseNode, NodeGraph
    from PySide6.QtCore import QRectF

    class ChainNode(BaseNode):
        __identifier__ = "bench"
        NODE_NAME = "node"

        def __init__(self):
            super().__init__()
            self.add_input("in")
            self.add_output("out")

    rss = rss_mb()
    t = time.perf_counter()
    graph = NodeGraph()
    graph.register_node(ChainNode)
    made = [graph.create_node("bench.ChainNode", name=f"Node {i}", selected=False,
                              pos=list(_grid(i)), push_undo=False) for i in range(n)]
    for a, b in itertools.pairwise(made):
        a.output(0).connect_to(b.input(0), push_undo=False, emit_signal=False)
    build = time.perf_counter() - t
    scene = graph.scene()
    render = _render(scene)
    viewer = graph.viewer()
    viewer.resize(*VIEW)
    viewer.show()

    def zoom(f: float) -> None:
        viewer.scale(f, f)

    def fit() -> None:
        viewer.fitInView(QRectF(scene.itemsBoundingRect()))

    def pan(dx: float) -> None:
        viewer._set_viewer_pan(dx, 0)

    return _view_figures(viewer, build, render, rss, viewer.resetTransform, zoom, pan, fit)


def _child(lib: str, n: int) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    if lib != "ours":
        return _nodegraphqt(n)
    from desktop.ui.app import collect_on_gui_thread

    timer = collect_on_gui_thread(app)  # noqa: F841  (lives for the run)
    return _ours(n)


def _measure(lib: str, n: int) -> dict | None:
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "bench.bench_canvas", lib, str(n)],
                          capture_output=True, text=True, env=env, cwd=root, timeout=900)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        if lib == "ours":
            raise RuntimeError(f"canvas bench child failed: {proc.stderr[-2000:]}")
        return None  # NodeGraphQt not installed or broken: no reference
    return json.loads(lines[-1])


def _row(name, value, unit, reference=None, target=None, ok=None, ratio=None) -> dict:
    return {"name": name, "value": round(value, 4), "unit": unit,
            "reference": None if reference is None else round(reference, 4),
            "ratio": None if ratio is None else round(ratio, 2), "target": target, "ok": ok}


def run(quick: bool) -> list[dict]:
    sizes = [200, 1000] if quick else [1000, 5000]
    big = sizes[-1]
    rows = []
    for n in sizes:
        ours, ref = _measure("ours", n), _measure("nodegraphqt", n)
        r = ref or {}

        def speed(key: str, r=r, ours=ours) -> float | None:
            return r[key] / ours[key] if key in r and ours[key] else None

        is_big = n == big and not quick
        build_ok = speed("build") >= 30 if is_big and speed("build") else None
        rows.append(_row(f"build {n}-node chain", ours["build"], "s", r.get("build"),
                         ">= 30x faster than NodeGraphQt" if is_big else None, build_ok,
                         speed("build")))
        render_ok = speed("render") >= 9 if is_big and speed("render") else None
        rows.append(_row(f"first full render, {n} nodes", ours["render"], "s",
                         r.get("render"), ">= 9x faster than NodeGraphQt" if is_big else None,
                         render_ok, speed("render")))
        for key, label in (("pan", "pan frame at 100%"), ("zoom", "zoom frame at 100%"),
                           ("zoom_fit", "zoom frame, whole graph in view")):
            ms = ours[key] * 1000
            target = "< 16 ms" if n == big else None
            rows.append(_row(f"{label}, {n} nodes", ms, "ms",
                             r[key] * 1000 if key in r else None, target,
                             ms < 16 if target else None, speed(key)))
        mem_ok = ours["memory"] <= 200 if is_big else None
        rows.append(_row(f"memory, {n} nodes", ours["memory"], "MB", r.get("memory"),
                         "<= +200 MB" if is_big else None, mem_ok,
                         r["memory"] / ours["memory"] if "memory" in r and ours["memory"] > 0
                         else None))
    return rows


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1], int(sys.argv[2]))), flush=True)
