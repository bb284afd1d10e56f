"""New from Template: a gallery of role-based starters and the examples; a pick becomes a
new, untitled workflow (the template's file is never written)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from desktop.graph.io import dumps_workflow, load_workflow
from desktop.graph.resources import examples_dir
from desktop.graph.templates import EXAMPLE, STARTER, list_templates, starters_dir
from desktop.graph.validate import check_file
from desktop.ui.template_gallery import THUMB, TemplateGallery, thumbnail
from desktop.ui.theme import DARK, LIGHT
from desktop.ui.window import OPEN_WINDOWS

STARTERS = sorted(starters_dir().glob("*.flow.yaml"))


def test_the_gallery_offers_blank_starters_and_every_example() -> None:
    templates = list_templates()
    kinds = [t.kind for t in templates]
    assert kinds[0] == "blank" and not templates[0].doc.nodes
    examples = {t.path for t in templates if t.kind == EXAMPLE}
    assert examples == set(examples_dir().glob("*.flow.yaml"))
    starters = [t for t in templates if t.kind == STARTER]
    assert len(starters) >= 3
    # role-based: between them the starters use most of the shipped roles
    assert {"planner", "implementer", "reviewer", "tester", "investigator"} <= {
        r for t in starters for r in t.roles}


@pytest.mark.parametrize("path", STARTERS, ids=lambda p: p.name)
def test_each_starter_is_valid_and_saved_canonically(path: Path) -> None:
    doc, found = check_file(str(path))
    assert doc is not None and not [p for p in found if p.is_error]
    assert doc.description and doc.task and doc.entry_node() is not None
    assert all(n.position is not None and doc.config(n.id).script for n in doc.nodes)
    assert path.read_text(encoding="utf-8") == dumps_workflow(doc)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=lambda t: t.name)
def test_a_thumbnail_draws_the_graph(qapp, theme) -> None:
    template = next(t for t in list_templates() if t.kind == STARTER)
    image = thumbnail(template, theme).toImage()
    assert image.size() == THUMB
    canvas = QColor(theme.canvas).rgb()
    drawn = sum(image.pixel(x, y) != canvas for x in range(0, THUMB.width(), 4)
                for y in range(0, THUMB.height(), 4))
    assert drawn > 100  # the nodes, not an empty canvas


def test_search_narrows_the_gallery(qtbot) -> None:
    gallery = TemplateGallery()
    qtbot.addWidget(gallery)
    shown = lambda: [gallery.list.item(i).text().split("\n")[0]  # noqa: E731
                     for i in range(gallery.list.count()) if not gallery.list.item(i).isHidden()]
    assert len(shown()) == len(list_templates())
    qtbot.keyClicks(gallery.search, "investig")
    assert shown() == ["Investigate and fix a bug"]
    assert gallery.chosen().title == "Investigate and fix a bug"
    assert "Investigator" in gallery.kind.text()
    gallery.search.setText("no template says this")
    assert shown() == [] and gallery.chosen() is None
    assert not gallery.create.isEnabled()


def test_a_starter_opens_as_a_new_untitled_workflow(editor_window, qtbot, monkeypatch) -> None:
    template = next(t for t in list_templates() if t.key == "starter/plan-implement-test")
    before = template.path.read_bytes()
    monkeypatch.setattr(editor_window.ask, "template", lambda: template)
    editor_window.actions_["new_from_template"].trigger()
    doc = editor_window.editor.model.doc
    assert editor_window.file.path is None  # Save asks where: the template stays as it is
    assert [n.id for n in doc.nodes] == ["planner", "implementer", "tester"]
    assert len(editor_window.scene.nodes) == 3 and len(editor_window.scene.edges) == 3
    editor_window.editor.add_node("reviewer", at=(600, 300))
    assert editor_window.file.is_modified()
    assert doc is not template.doc and len(template.doc.nodes) == 3
    assert template.path.read_bytes() == before
    # a window that already holds work opens the next template in a new window
    count = len(OPEN_WINDOWS)
    example = next(t for t in list_templates() if t.kind == EXAMPLE)
    editor_window.files.open_template(example)
    assert len(OPEN_WINDOWS) == count + 1
    other = OPEN_WINDOWS[-1]
    qtbot.addWidget(other)
    assert other.editor.model.doc.name == example.title
    assert other.file.path is None
    other.file.close()


def test_double_click_creates(qtbot) -> None:
    gallery = TemplateGallery()
    qtbot.addWidget(gallery)
    gallery.show()
    qtbot.waitExposed(gallery)
    item = gallery.list.item(2)
    rect = gallery.list.visualItemRect(item)
    gallery.list.setCurrentItem(item)
    viewport = gallery.list.viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=rect.center())
    assert gallery.result() == TemplateGallery.DialogCode.Accepted
    assert gallery.chosen().key == gallery.templates[2].key
    assert load_workflow(gallery.chosen().path).name == gallery.chosen().title
