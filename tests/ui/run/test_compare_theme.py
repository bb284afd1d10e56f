"""The run comparison takes its colours from the theme, as the diff views do: a turn that
differs has a changed diff line's background, every text reads on what it is drawn on
(WCAG 4.5:1) in both themes, and switching the theme re-colours an open comparison."""

from __future__ import annotations

import pytest
from contrast import contrast
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from desktop.ui import theme as themes
from desktop.ui.run.compare_graph import STATUS_COLOURS, GraphPicture
from desktop.ui.run.compare_view import CompareView
from desktop.ui.theme import DARK, LIGHT, Theme
from desktop.views.compare import NodeInfo, RunDigest, TurnDigest

THEMES = [LIGHT, DARK]
STATUSES = sorted({*STATUS_COLOURS, "completed", "idle"})


def _digest(run_id: str, text: str, copied: bool = False) -> RunDigest:
    nodes = {key: NodeInfo(key, key.title(), "scripted", None, "", status, (i * 260.0, 0.0))
             for i, (key, status) in enumerate(zip(
                 ("lead", "worker", "tester", "spare"), ("failed", "blocked", "waiting",
                                                         "running"), strict=True))}
    turns = [TurnDigest("lead", "Lead", 1, 3, "completed", text="planned", copied=copied),
             TurnDigest("worker", "Worker", 1, 9, "completed", text=text)]
    return RunDigest(run_id, "Flow", "completed", "", "", 20, None, nodes,
                     [("lead", "worker", "handoff")], turns)


def _view(qtbot, theme: Theme | None = None) -> CompareView:
    view = CompareView(_digest("a" * 8, "built it"),
                       _digest("b" * 8, "built it twice", copied=True), theme)
    qtbot.addWidget(view)
    return view


def _rows(view: CompareView) -> dict[str, int]:
    return {view.turns.item(r, 4).text(): r for r in range(view.turns.rowCount())}


def _text_on_ground(view: CompareView, row: int) -> tuple[QColor, QColor]:
    item = view.turns.item(row, 2)
    fg = item.data(Qt.ItemDataRole.ForegroundRole)
    bg = item.data(Qt.ItemDataRole.BackgroundRole)
    return (fg.color() if fg is not None else QColor(view.theme.text),
            bg.color() if bg is not None else QColor(view.theme.base))


@pytest.mark.parametrize("theme", THEMES, ids=lambda t: t.name)
def test_turn_rows_take_the_diff_colours_and_read(qtbot, theme) -> None:
    view = _view(qtbot, theme)
    rows = _rows(view)
    assert set(rows) == {"copied", "differs"}
    text, ground = _text_on_ground(view, rows["differs"])
    assert ground == QColor(theme.diff_chg)  # a changed line's background, as in Diffs
    for row in rows.values():
        text, ground = _text_on_ground(view, row)
        assert contrast(text, ground) >= 4.5, (theme.name, row)


def test_a_comparison_made_without_a_theme_takes_the_one_shown(qtbot, qapp) -> None:
    themes.apply(qapp, DARK)
    try:
        view = _view(qtbot)
        assert view.theme is DARK and view.left_graph.theme is DARK
        _text, ground = _text_on_ground(view, _rows(view)["differs"])
        assert ground == QColor(DARK.diff_chg)
    finally:
        themes.apply(qapp, LIGHT)


def test_switching_the_theme_recolours_an_open_comparison(qtbot) -> None:
    view = _view(qtbot, LIGHT)
    view.set_theme(DARK)
    _text, ground = _text_on_ground(view, _rows(view)["differs"])
    assert ground == QColor(DARK.diff_chg)
    assert view.left_graph.theme is DARK and view.right_graph.theme is DARK


def _most_contrast(graph: GraphPicture, band: tuple[float, float]) -> float:
    """The highest contrast with the card of any pixel in the status line of the card,
    right of its provider stripe (the text's core pixels are its ink; antialiased edges
    only contrast less)."""
    image = graph.grab().toImage()
    card = QColor(graph.theme.node)
    top, bottom = (round(v * image.height()) for v in band)
    best = 1.0
    for y in range(top, bottom):
        for x in range(round(0.2 * image.width()), round(0.8 * image.width())):
            best = max(best, contrast(image.pixelColor(x, y), card))
    return best


@pytest.mark.parametrize("theme", THEMES, ids=lambda t: t.name)
@pytest.mark.parametrize("status", STATUSES)
def test_every_status_line_on_the_graph_reads(qtbot, theme, status) -> None:
    digest = _digest("c" * 8, "x")
    only = next(iter(digest.nodes.values()))
    only.status = status
    digest.nodes = {only.key: only}
    digest.edges = []
    graph = GraphPicture(theme)
    qtbot.addWidget(graph)
    graph.resize(300, 140)
    graph.show_run(digest, set())
    # the card fills the middle of the picture; its status line is its lower part
    band = (0.5, 0.72)
    assert 4.5 <= _most_contrast(graph, band) < 12, (theme.name, status)
