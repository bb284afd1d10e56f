"""Settings > Service: another machine's URL goes to the settings file, its token to the
keyring only (never a file, a widget or a log), and the window becomes that service's
client; without a keyring the dialog says to export the token and stores nothing."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtCore import Qt

from desktop.disk import keychain
from desktop.ui.settings import service_url, ui_settings
from desktop.ui.settings_dialog import SettingsDialog

TOKEN = "svc-token-canary-0123456789abcdef"
URL = "http://127.0.0.1:8765"


def test_the_url_goes_to_the_settings_and_the_token_to_the_keyring_only(
        editor_window, qtbot, memory_keyring, monkeypatch, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.delenv(keychain.SERVICE_TOKEN_ENV, raising=False)
    dialog = SettingsDialog(editor_window)
    qtbot.addWidget(dialog)
    group = dialog.service
    assert group.here.isChecked() and not group.url.isEnabled()
    group.there.setChecked(True)
    qtbot.keyClicks(group.url, URL + "/")
    qtbot.keyClicks(group.token, TOKEN)
    qtbot.mouseClick(group.use, Qt.MouseButton.LeftButton)
    assert group.error.isHidden()
    assert memory_keyring.values == {(keychain.SERVICE, keychain.SERVICE_TOKEN): TOKEN}
    assert service_url() == URL and group.token.text() == ""
    assert group.token_status.text() == "In the keyring"
    remote = editor_window.run_panels.remote  # the window is that service's client now
    assert remote is not None and (remote.url, remote.token) == (URL, TOKEN)
    assert editor_window.run_panels.runs_feed.remote == remote

    editor_window.save_layout()  # every settings file the app writes, written now
    ui_settings().sync()
    data = Path(os.environ["AGENT_CANVAS_DATA_DIR"])
    written = [p for p in data.rglob("*") if p.is_file()]
    assert any(URL.encode() in p.read_bytes() for p in written)
    for path in written:
        assert TOKEN.encode() not in path.read_bytes(), path
    assert TOKEN not in caplog.text

    group.here.setChecked(True)  # back to this machine's service
    qtbot.mouseClick(group.use, Qt.MouseButton.LeftButton)
    assert service_url() is None and editor_window.run_panels.remote is None


def test_a_bad_url_or_a_missing_token_is_refused_with_the_fix(
        editor_window, qtbot, monkeypatch) -> None:
    monkeypatch.delenv(keychain.SERVICE_TOKEN_ENV, raising=False)
    dialog = SettingsDialog(editor_window)
    qtbot.addWidget(dialog)
    group = dialog.service
    group.there.setChecked(True)
    group.url.setText("127.0.0.1:8765")
    assert not group.apply()
    assert "http://127.0.0.1:8765" in group.error.text() and service_url() is None
    group.url.setText(URL)
    assert not group.apply()
    assert "token" in group.error.text() and service_url() is None
    assert editor_window.run_panels.remote is None


def test_without_a_keyring_the_token_comes_from_the_environment(
        editor_window, qtbot, monkeypatch) -> None:
    import keyring
    from keyring.backends import fail

    keyring.set_keyring(fail.Keyring())  # the conftest's fixture puts its own back
    monkeypatch.setenv(keychain.SERVICE_TOKEN_ENV, TOKEN)
    dialog = SettingsDialog(editor_window)
    qtbot.addWidget(dialog)
    group = dialog.service
    group.there.setChecked(True)
    assert not group.token.isEnabled()
    assert keychain.SERVICE_TOKEN_ENV in group.note.text()
    group.url.setText(URL)
    assert group.apply()
    assert editor_window.run_panels.remote.token == TOKEN
    assert "environment" in group.token_status.text()
