"""A shortcut pressed while start-up's window waits for its document is honoured once the
document is in (desktop/ui/early_keys.py), and keys for other windows pass untouched."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit
from shiboken6 import isValid

from desktop.graph.resources import examples_dir
from desktop.ui.early_keys import EarlyKeys
from desktop.ui.startup import fill_first_window, show_first_window

EXAMPLE = str(examples_dir() / "single-agent.flow.yaml")


def test_a_shortcut_pressed_before_the_document_is_in_is_triggered_once_it_is(
        qapp, qtbot) -> None:
    host = show_first_window(EXAMPLE)
    early = EarlyKeys(host)
    other = QLineEdit()  # another window: its keys are its own
    qtbot.addWidget(other)
    try:
        QTest.keyClick(host, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)  # minimap
        QTest.keyClick(host, Qt.Key.Key_Q)  # no action has it: dropped
        QTest.keyClick(other, Qt.Key.Key_A)
        assert other.text() == "a"
        window = fill_first_window(host, EXAMPLE)
        assert window is not None
        minimap = window.findChild(QAction, "minimap")
        was = minimap.isChecked()
        triggered = early.replay(window.findChildren(QAction))
        assert [a.objectName() for a in triggered] == ["minimap"]
        assert minimap.isChecked() is not was
        QTest.keyClick(other, Qt.Key.Key_B)  # nothing is kept any more
        assert other.text() == "ab"
    finally:
        if isValid(host):
            host.close()
            host.deleteLater()
