"""Settings: API keys go to the keyring only (never a widget, a file or a log), and the
theme follows the system unless the user picks one."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QLineEdit

from desktop.disk import keychain
from desktop.ui import theme as themes
from desktop.ui.settings import ui_settings
from desktop.ui.settings_dialog import SettingsDialog

SECRET = "sk-settings-canary-0123456789abcdef"


def _texts(dialog: SettingsDialog) -> str:
    return "\n".join([w.text() for w in dialog.findChildren(QLineEdit)]
                     + [w.text() for w in dialog.findChildren(QLabel)])


def test_a_pasted_key_goes_to_the_keyring_and_nowhere_else(
        editor_window, qtbot, memory_keyring, monkeypatch, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    dialog = SettingsDialog(editor_window)
    qtbot.addWidget(dialog)
    row = dialog.rows["OPENAI_API_KEY"]
    assert row.status.text() == "Not set"
    assert row.field.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClicks(row.field, SECRET)
    qtbot.mouseClick(row.save_button, Qt.MouseButton.LeftButton)
    assert memory_keyring.values == {(keychain.SERVICE, "OPENAI_API_KEY"): SECRET}
    assert row.status.text() == "In the keyring"
    assert SECRET not in _texts(dialog)  # the field is cleared; nothing shows the key
    editor_window.save_layout()  # every settings file the app writes, written now
    data = Path(os.environ["AGENT_CANVAS_DATA_DIR"])
    for path in data.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in caplog.text
    qtbot.mouseClick(row.remove_button, Qt.MouseButton.LeftButton)
    assert memory_keyring.values == {}
    assert row.status.text() == "Not set"
    assert not row.remove_button.isEnabled()


def test_an_exported_key_is_reported_as_used_first(editor_window, qtbot, monkeypatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "gm-from-the-shell-0123456789")
    dialog = SettingsDialog(editor_window)
    qtbot.addWidget(dialog)
    assert "environment" in dialog.rows["GEMINI_API_KEY"].status.text()
    assert "gm-from-the-shell" not in _texts(dialog)


def test_a_refused_key_says_why_and_stores_nothing(editor_window, qtbot, memory_keyring) -> None:
    import keyring
    from keyring.backends import fail

    keyring.set_keyring(fail.Keyring())
    dialog = SettingsDialog(editor_window)
    qtbot.addWidget(dialog)
    assert "No system keyring" in dialog.keyring_note.text()
    row = dialog.rows["ANTHROPIC_API_KEY"]
    assert not row.field.isEnabled()
    row.field.setText(SECRET)
    row.save()  # even if called: a clear message, nothing kept in the widget
    assert "export the variable" in row.error.text()
    assert row.field.text() == ""


def test_the_theme_follows_the_system_until_one_is_picked(editor_window, qtbot,
                                                         monkeypatch) -> None:
    dark = {"on": False}
    monkeypatch.setattr(themes, "system_prefers_dark", lambda: dark["on"])
    editor_window.set_theme_choice("system")
    hints = QGuiApplication.styleHints()
    dialog = SettingsDialog(editor_window)
    qtbot.addWidget(dialog)
    assert dialog.findChild(type(dialog.themes.button(0)), "theme_system").isChecked()
    dark["on"] = True
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert editor_window.theme is themes.DARK
    assert editor_window.scene.look.theme is themes.DARK
    dark["on"] = False
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert editor_window.theme is themes.LIGHT
    # a manual choice sticks, whatever the system says, and is remembered
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.mouseClick(dialog.findChild(type(dialog.themes.button(0)), "theme_dark"),
                     Qt.MouseButton.LeftButton)
    assert editor_window.theme is themes.DARK
    assert ui_settings().value("theme") == "dark"
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert editor_window.theme is themes.DARK
    editor_window.set_theme_choice("system")


def test_settings_is_a_menu_command_with_its_own_shortcut(editor_window) -> None:
    action = editor_window.actions_["settings"]
    assert action.shortcut().toString() == "Ctrl+,"
    others = [a.shortcut() for name, a in editor_window.actions_.items() if name != "settings"]
    assert action.shortcut() not in others


def test_each_kind_of_notification_turns_off_on_its_own_and_stays_off(
        editor_window, qtbot, tray) -> None:
    from desktop.ui.run.notifier import app_notifier
    from desktop.ui.settings import nudge_kinds

    dialog = SettingsDialog(editor_window)
    qtbot.addWidget(dialog)
    switches = dialog.nudge_switches
    assert all(s.isChecked() for s in switches.values())  # all on until turned off
    switches["approvals"].click()
    assert nudge_kinds() == {"pauses", "ends"}  # saved at once
    assert app_notifier().rules.enabled == {"pauses", "ends"}  # and used at once
    again = SettingsDialog(editor_window)
    qtbot.addWidget(again)
    assert [k for k, s in again.nudge_switches.items() if s.isChecked()] == ["pauses", "ends"]
    again.nudge_switches["approvals"].click()
    assert nudge_kinds() == {"approvals", "pauses", "ends"}
