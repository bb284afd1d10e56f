"""A node's menu: the canvas asks for it for a card, what hangs below the card, or a node
the run added; opening its folder goes to the opener given and says when none could; a
folder that cannot be opened from here is named and not offered."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QPoint, QPointF
from PySide6.QtWidgets import QGraphicsSceneContextMenuEvent

from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.ui.canvas.scene import CanvasScene
from desktop.ui.canvas.status_badge import StatusBadge
from desktop.ui.editor import Editor
from desktop.ui.run.canvas_overlay import RuntimeNodeItem
from desktop.ui.run.node_menu import NodeMenu
from desktop.views.node_place import NodePlace


def test_open_goes_to_the_opener_and_a_failure_is_said(qtbot, tmp_path: Path) -> None:
    place = NodePlace("n1", "Lead", tmp_path, True, "canvas/1a2b3c4d/lead")
    opened: list[tuple[str, Path]] = []
    said: list[str] = []
    menu = NodeMenu(place, editor=lambda p: bool(opened.append(("editor", p))) or True,
                    files=lambda p: bool(opened.append(("files", p))),
                    said=said.append)
    qtbot.addWidget(menu)
    menu.open_editor.trigger()
    menu.open_files.trigger()
    assert opened == [("editor", tmp_path), ("files", tmp_path)]
    assert said == [f"Could not open {tmp_path} in a file manager; set $VISUAL or $EDITOR, "
                    "or copy its path"]


def test_a_folder_not_here_is_named_and_not_offered_to_open(qtbot, tmp_path: Path) -> None:
    why = "the run is held by a service on another machine"
    place = NodePlace("n1", "Helper", tmp_path, False, None, why)
    menu = NodeMenu(place, editor=lambda p: True, files=lambda p: True)
    qtbot.addWidget(menu)
    texts = {a.text(): a for a in menu.actions() if a.isVisible()}
    assert not texts["Open working folder in editor"].isEnabled()
    assert not texts["Open working folder in file manager"].isEnabled()
    assert texts["Copy working folder path"].isEnabled()
    assert not texts[f"Cannot open: {why}"].isEnabled()
    assert "Copy branch name" not in texts


def _right_click(scene: CanvasScene, at: QPointF) -> QGraphicsSceneContextMenuEvent:
    click = QGraphicsSceneContextMenuEvent(QEvent.Type.GraphicsSceneContextMenu)
    click.setScenePos(at)
    click.setScreenPos(QPoint(5, 5))
    click.ignore()
    scene.contextMenuEvent(click)
    return click


def test_the_canvas_asks_for_the_menu_of_a_card_its_status_or_a_node_the_run_added(
        qapp) -> None:
    doc = load_workflow(examples_dir() / "single-agent.flow.yaml")
    scene = CanvasScene(Editor(doc))
    card = scene.nodes["implementer"]
    under = StatusBadge(card.body_rect(), card)  # the run's status and branch below the card
    added = RuntimeNodeItem("run-node-7", "Helper")
    scene.addItem(added)
    added.setPos(card.sceneBoundingRect().right() + 400, 0)
    asked: list[str] = []
    scene.nodeMenuAsked.connect(lambda key, _at: asked.append(key))
    elsewhere: list[QPointF] = []
    scene.canvasMenuAsked.connect(lambda at, _screen: elsewhere.append(at))
    assert _right_click(scene, card.sceneBoundingRect().center()).isAccepted()
    below = under.sceneBoundingRect()
    assert not card.sceneBoundingRect().contains(below.bottomLeft() + QPointF(8, -4))
    assert _right_click(scene, below.bottomLeft() + QPointF(8, -4)).isAccepted()
    assert _right_click(scene, added.sceneBoundingRect().center()).isAccepted()
    assert asked == ["implementer", "implementer", "run-node-7"]
    assert elsewhere == []
    assert _right_click(scene, QPointF(-5000, -5000)).isAccepted()  # nothing there
    assert asked == ["implementer", "implementer", "run-node-7"]
    assert elsewhere == [QPointF(-5000, -5000)]  # the canvas's own menu
