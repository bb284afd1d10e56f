"""A node's menu on its own: opening its folder goes to the opener given and says when
none could; a folder that cannot be opened from here is named and not offered."""

from __future__ import annotations

from pathlib import Path

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
