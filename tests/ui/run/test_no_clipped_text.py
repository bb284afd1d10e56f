"""At 1280 x 800 and 1920 x 1080, every main view of a window that ran a workflow shows its
text whole: labels, buttons and rows, measured from font metrics (tests/ui/clipping.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from desktop.graph.resources import examples_dir
from desktop.ui.run.fork_dialog import ForkDialog
from desktop.ui.window import EditorWindow
from desktop.ui.window_questions import Questions
from desktop.views.forks import scan_run
from desktop.views.reader import LogTail
from desktop.views.replay import ReplayState

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from clipping import clipped, measured

PIR = examples_dir() / "plan-implement-review.flow.yaml"
SIZES = [(1280, 800), (1920, 1080)]


@pytest.fixture
def ran(qloop, qtbot, own_service, monkeypatch, tmp_path, until):
    """A window that ran the plan-implement-review example to its end."""
    monkeypatch.setattr(Questions, "save_changes", lambda self: "discard")
    path = tmp_path / PIR.name
    path.write_bytes(PIR.read_bytes())
    editor = EditorWindow(str(path))
    qtbot.addWidget(editor)
    panels = editor.run_panels
    panels.data_dir = panels.history.data_dir = own_service.data_dir
    editor.show()
    qtbot.waitExposed(editor)

    async def go() -> None:
        await panels.run()
        await until(lambda: ((panels.session.state or {}).get("status") == "completed"))

    qloop.run_until_complete(go())
    yield editor

    async def let_go() -> None:
        for feed in (panels.feed, panels.runs_feed):
            if feed is not None:
                await feed.aclose()
        if panels.session is not None:
            await panels.session.close()
            panels.session = None

    qloop.run_until_complete(let_go())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_main_view_shows_its_text_whole(ran, qtbot, size) -> None:
    editor = ran
    editor.resize(*size)
    editor.scene.select(["implementer"])
    problems: dict[str, list[str]] = {}
    for name, dock in editor.run_panels.docks.items():
        if name in ("timeline", "banners"):
            continue
        dock.show()
        dock.raise_()
        qtbot.wait(50)  # a layout pass for the tab brought forward
        problems[name] = clipped(dock)
        assert measured(dock) >= 1, f"nothing of {name} was measured"
    for name in ("palette", "inspector", "problems"):
        problems[name] = clipped(editor.docks[name])
    problems["window"] = [p for p in clipped(editor) if "QDockWidget" not in p]
    assert measured(editor) >= 40
    run_dir = editor.run_panels.session.run_dir
    snap = scan_run(run_dir).snap(len(LogTail(run_dir).read_new()) // 2)
    replay = ReplayState(run_dir)
    fork = ForkDialog(replay.state_at(snap.point.seq) or {}, snap, "Plan, implement, review",
                      editor)
    replay.close()
    fork.show()
    qtbot.waitExposed(fork)
    problems["fork dialog"] = clipped(fork)
    assert measured(fork) >= 5
    fork.close()
    for name, dialog in _dialogs(editor).items():
        dialog.show()
        qtbot.waitExposed(dialog)
        problems[name] = clipped(dialog)
        assert measured(dialog) >= 2, f"nothing of the {name} was measured"
        dialog.close()
    assert {k: v for k, v in problems.items() if v} == {}


def _dialogs(editor: EditorWindow) -> dict:
    """The other dialogs a user meets, filled as they would see them."""
    from desktop.ui.close_dialog import ClosingDialog, LiveRun, stop_question
    from desktop.ui.help_dialog import ShortcutsDialog
    from desktop.ui.run.approvals import ApprovalDialog
    from desktop.ui.settings_dialog import SettingsDialog
    from desktop.ui.template_gallery import TemplateGallery

    request = {"approvalId": "ap1", "nodeId": "n1", "context": "I will build it first.",
               "tool": {"id": "t1", "name": "command", "args": {"cmd": "make build"}}}
    return {
        "approval dialog": ApprovalDialog(request, lambda *a, **k: True, "Implementer",
                                          editor),
        "closing dialog": ClosingDialog(["Plan, implement, review"],
                                        [LiveRun("Approve a command", "d8661f5d", 1)], True,
                                        editor),
        "stop question": stop_question(editor, "“Plan, implement, review”", lambda: None),
        "shortcuts": ShortcutsDialog(editor),
        "settings": SettingsDialog(editor),
        "template gallery": TemplateGallery(editor),
    }


def test_the_check_finds_a_cut_label_a_squeezed_button_and_a_low_row(qtbot) -> None:
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import (
        QLabel,
        QPushButton,
        QTreeWidget,
        QTreeWidgetItem,
        QVBoxLayout,
        QWidget,
    )

    page = QWidget()
    qtbot.addWidget(page)
    layout = QVBoxLayout(page)
    cut = QLabel("a label far longer than the forty pixels it is given")
    cut.setFixedWidth(40)
    wrapped = QLabel("a label that wraps its long text over lines instead")
    wrapped.setWordWrap(True)
    squeezed = QPushButton("Apply to my working tree")
    squeezed.setFixedWidth(50)
    tree = QTreeWidget()
    low = QTreeWidgetItem(["row"])
    low.setSizeHint(0, QSize(40, 6))  # what a too-small delegate gives
    tree.addTopLevelItem(low)
    for widget in (cut, wrapped, squeezed, tree):
        layout.addWidget(widget)
    page.show()
    qtbot.waitExposed(page)
    found = clipped(page)
    assert len(found) == 3, found
    assert any("a label far longer" in f for f in found)
    assert any("Apply to my working tree" in f for f in found)
    assert any("row 0" in f for f in found)
