"""The badges on a card's top edge (ENTRY, the compare mark, the problem count) stay
readable over a run's status ring, in every status and both themes: the ring passes
behind them, and their text contrasts with their fill."""

from __future__ import annotations

import pytest
from contrast import contrast
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter

from desktop.graph.io import loads_workflow
from desktop.ui import theme
from desktop.ui.canvas.node_item import NodeItem
from desktop.ui.canvas.scene import CanvasScene
from desktop.ui.canvas.status_badge import QUIET, STATUS_COLORS, StatusBadge
from desktop.ui.editor import Editor

FLOW = """
version: 1
name: Badges
task: go
nodes:
  - {id: lead, label: Lead, provider: scripted, entry: true, position: {x: 0, y: 0}}
  - {id: worker, label: Worker, provider: scripted, position: {x: 320, y: 0}}
edges:
  - {from: lead, to: worker}
"""
RINGED = [s for s in STATUS_COLORS if s not in QUIET]
SCALE = 3  # the pill's 9 px text, drawn large enough for every pixel of it to count
THEMES = [theme.LIGHT, theme.DARK]


def _scene(look: theme.Theme) -> tuple[CanvasScene, NodeItem]:
    scene = CanvasScene(Editor(loads_workflow(FLOW)), look)
    return scene, scene.nodes["lead"]


def _pixels(scene: CanvasScene, item: NodeItem, rect: QRectF) -> QImage:
    """``rect`` of ``item`` (item coordinates) as drawn in the scene, SCALE times."""
    source = item.mapRectToScene(rect)
    image = QImage(int(rect.width() * SCALE), int(rect.height() * SCALE),
                   QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    scene.render(painter, QRectF(image.rect()), source)
    painter.end()
    return image


@pytest.mark.parametrize("look", THEMES, ids=lambda t: t.name)
@pytest.mark.parametrize("status", RINGED)
def test_the_status_ring_leaves_the_entry_badge_as_it_is(qapp, look, status) -> None:
    scene, item = _scene(look)
    item.set_problems(1, 0)  # the problem count sits on the ring's corner
    badge = StatusBadge(item.body_rect(), item)
    badges = item.badge_rects()
    assert len(badges) == 2  # ENTRY and the problem count
    plain = [_pixels(scene, item, rect) for rect in badges]
    badge.set_status(status, "", None)
    ringed = [_pixels(scene, item, rect) for rect in badges]
    for rect, before, after in zip(badges, plain, ringed, strict=True):
        assert before == after, (status, rect)  # not one pixel of the badge drawn over
    # and the ring is still drawn around the card (beside the badges, not only behind)
    beside = QRectF(badges[0].right() + 8, -7, 24, 6)
    assert _has(_pixels(scene, item, beside), QColor(STATUS_COLORS[status])), status


def _has(image: QImage, colour: QColor) -> bool:
    """Whether ``image`` has a pixel of ``colour`` (give or take antialiasing)."""
    def near(c: QColor) -> bool:
        return max(abs(c.red() - colour.red()), abs(c.green() - colour.green()),
                   abs(c.blue() - colour.blue())) <= 8

    return any(near(image.pixelColor(x, y))
               for y in range(image.height()) for x in range(image.width()))


@pytest.mark.parametrize("look", THEMES, ids=lambda t: t.name)
def test_badge_text_reads_on_its_fill(qapp, look) -> None:
    """ENTRY's 9 px text reaches WCAG's 4.5:1 on the accent (white on the dark theme's
    pale accent was 2.9:1); the other badges' text takes the better of the two inks."""
    scene, _item = _scene(look)
    accent = QColor(look.accent)
    assert contrast(scene.look.ink_on(accent), accent) >= 4.5, look.name
    for name in ("error", "warning", "ok"):  # the problem count and the compare marks
        fill = QColor(getattr(look, name))
        best = max(contrast(QColor(ink), fill) for ink in (theme.INK_LIGHT, theme.INK_DARK))
        assert contrast(scene.look.ink_on(fill), fill) == best, (look.name, name)


def test_a_branch_with_no_new_commits_shows_no_count(qapp) -> None:
    """A node's branch that has no commits of its own yet shows its name alone: "+0" read
    as a change where there is none."""
    from desktop.views.branches import branch_note

    badge = StatusBadge(QRectF(0, 0, 200, 80))
    badge.set_branch(branch_note({"git": {"branch": "canvas/1a2b3c4d/lead", "ahead": 0}}))
    assert badge.branch_text() == "canvas/1a2b3c4d/lead"
    badge.set_branch(branch_note({"git": {"branch": "canvas/1a2b3c4d/lead", "ahead": 2}}))
    assert badge.branch_text() == "canvas/1a2b3c4d/lead  +2"


def test_a_branch_too_long_for_the_card_drops_its_shared_prefix_before_cutting_a_word(
        qapp) -> None:
    """The card shows the longest form of the branch that fits: without ``canvas/``, then
    the node's part; a name is never cut in the middle of ``canvas``. The tooltip has it
    whole."""
    from PySide6.QtGui import QFontMetricsF

    from desktop.ui.canvas.status_badge import _small_font
    from desktop.views.branches import branch_note

    badge = StatusBadge(QRectF(0, 0, 200, 80))
    badge.set_branch(branch_note({"git": {"branch": "canvas/1a2b3c4d/impl-text",
                                          "ahead": 1}}))
    width = QFontMetricsF(_small_font()).horizontalAdvance
    assert badge.branch_shown(width("canvas/1a2b3c4d/impl-text")) \
        == "canvas/1a2b3c4d/impl-text"
    assert badge.branch_shown(width("canvas/1a2b3c4d/impl-text") - 1) == "1a2b3c4d/impl-text"
    assert badge.branch_shown(width("1a2b3c4d/impl-text") - 1) == "impl-text"
    cut = badge.branch_shown(width("impl-text") - 1)
    assert cut.startswith("impl") and cut.endswith("…")
    assert badge.toolTip() == "branch canvas/1a2b3c4d/impl-text, 1 commit ahead of the " \
                              "run's base"
    badge.set_branch(None)
    assert badge.toolTip() == ""
