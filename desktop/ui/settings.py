"""Window settings (layout, recent files, theme, notifications, the service's URL) in an
INI file in the data folder (QSettings writes it through a temporary file renamed over the
old one)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings

from desktop.disk.paths import data_dir

if TYPE_CHECKING:
    from desktop.api.discovery import ServerInfo
    from desktop.views.nudges import NudgeKind

MAX_RECENT = 10


def ui_settings() -> QSettings:
    """The settings store; it lives beside the runs so --data-dir isolates it too."""
    return QSettings(str(data_dir() / "ui-settings.ini"), QSettings.Format.IniFormat)


def recent_files() -> list[str]:
    value = ui_settings().value("recentFiles", [])
    if isinstance(value, str):
        value = [value]
    return [v for v in (value or []) if Path(v).is_file()]


def add_recent(path: str | Path) -> list[str]:
    """Put ``path`` first in the recent files list; returns the new list."""
    path = str(Path(path).resolve())
    files = [path] + [f for f in recent_files() if f != path]
    ui_settings().setValue("recentFiles", files[:MAX_RECENT])
    return files[:MAX_RECENT]


def nudge_kinds() -> set[NudgeKind]:
    """The kinds of desktop notification turned on (all, until the user turns one off)."""
    from desktop.views.nudges import KINDS  # with the run panels: the first window needs none

    settings = ui_settings()
    return {kind for kind in KINDS
            if str(settings.value(f"notifications/{kind}", "true")).lower() != "false"}


def set_nudge_kind(kind: NudgeKind, on: bool) -> None:
    """Turn one kind of desktop notification on or off (saved at once)."""
    settings = ui_settings()
    settings.setValue(f"notifications/{kind}", "true" if on else "false")
    settings.sync()


def service_url() -> str | None:
    """The URL of another machine's service the GUI is a client of (None: this machine's).
    Its token is in the keychain, never here."""
    value = ui_settings().value("service/url", "")
    return str(value).strip() or None


def set_service_url(url: str | None) -> None:
    """Use another machine's service at ``url``, or this machine's (None); saved at once."""
    settings = ui_settings()
    if url:
        settings.setValue("service/url", url)
    else:
        settings.remove("service/url")
    settings.sync()


def chosen_service() -> ServerInfo | None:
    """Another machine's service as the settings name it (None: this machine's); raises
    :class:`~desktop.api.remote.RemoteServiceError` when its URL or token is unusable."""
    url = service_url()
    if url is None:
        return None  # this machine's: the keyring is not needed (nor loaded)
    from desktop.api.remote import remote_service

    return remote_service(url)
