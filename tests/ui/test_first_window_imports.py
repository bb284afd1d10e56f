"""The GUI's first window paints before what it does not need for that paint is loaded:
the service's HTTP client (aiohttp), the keyring (only another machine's service needs a
token), the Markdown renderer (only a run's conversation shows Markdown), and the run
panels with the run session (made after the first paint, or when a run is opened).
Checked in a fresh interpreter that opens the single-agent example as ``agent-canvas``
does."""

import os
import subprocess
import sys
from pathlib import Path

SINGLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "single-agent.flow.yaml"
HEAVY = ("aiohttp", "keyring", "markdown_it", "desktop.api.client")
PANELS = tuple(f"desktop.ui.run.{name}" for name in (
    "panel_build", "conversation_view", "transcript_view", "diff_view", "record_view",
    "result_view", "history", "approval_inbox", "approval_feed", "chat", "timeline",
    "stall_banner", "budget_banner", "session"))
PROBE = """import sys
from PySide6.QtCore import QEvent, QObject
from desktop.ui.app import application
from desktop.ui.startup import open_editor

loaded_at_paint = None


class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        global loaded_at_paint
        if event.type() == QEvent.Type.Paint and loaded_at_paint is None:
            loaded_at_paint = sorted(m for m in {heavy!r} if m in sys.modules)
        return False


app = application()
watcher = FirstPaint()
app.installEventFilter(watcher)
window = open_editor({path!r})
window.show()
for _ in range(1000):
    if loaded_at_paint is not None:
        break
    app.processEvents()
app.removeEventFilter(watcher)
print({name!r} in window.windowTitle(), loaded_at_paint)
window.close()
"""


def test_first_window_paints_without_http_client_keyring_markdown_or_run_panels(
        tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "AGENT_CANVAS_DATA_DIR": str(tmp_path / "data"),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    probe = PROBE.format(heavy=HEAVY + PANELS, path=str(SINGLE), name=SINGLE.name)
    done = subprocess.run([sys.executable, "-c", probe],
                          capture_output=True, text=True, check=True, timeout=300,
                          cwd=tmp_path, env=env)
    assert done.stdout.strip().splitlines()[-1] == "True []"


START_UP = """import enum
import sys

made_enums = []
make_enum = enum.EnumType.__call__


def spy(cls, value, names=None, *args, **kwargs):  # PySide6 makes its enums this way
    if names is not None:
        made_enums.append(value)
    return make_enum(cls, value, names, *args, **kwargs)


enum.EnumType.__call__ = spy
from desktop.ui.app import application
from desktop.ui.on_demand import until_painted
from desktop.ui.startup import fill_first_window, show_first_window

app = application()
host = show_first_window({path!r})
painted = until_painted(host, timeout_ms=60000)
loaded_at_paint = sorted(m for m in {heavy!r} if m in sys.modules)
# the Qt namespace's ~130 enums (20 ms) wait for the paint too
loaded_at_paint += ["Qt's enums"] if "WidgetAttribute" in made_enums else []
title_at_paint = host.windowTitle()
editor = fill_first_window(host, {path!r})
print(painted, loaded_at_paint, repr(title_at_paint))
print(host.tabs.count(), host.current() is editor, repr(host.windowTitle()))
host.close()
"""
EDITOR = ("pydantic", "yaml", "asyncio", "qasync", "desktop.ui.window", "desktop.ui.editor",
          "desktop.graph.document")


def test_start_up_window_paints_before_the_editor_and_its_models_are_loaded(
        tmp_path: Path) -> None:
    """``agent-canvas FILE`` shows its window, titled with the file's name, before the
    workflow models (pydantic, yaml), asyncio, the editor and the Qt namespace's enums are
    loaded; the document's tab then comes into that same window, and the title becomes the
    document's."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "AGENT_CANVAS_DATA_DIR": str(tmp_path / "data"),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    probe = START_UP.format(heavy=EDITOR + HEAVY, path=str(SINGLE))
    done = subprocess.run([sys.executable, "-c", probe],
                          capture_output=True, text=True, check=True, timeout=300,
                          cwd=tmp_path, env=env)
    at_paint, after = done.stdout.strip().splitlines()[-2:]
    assert at_paint == f"True [] '{SINGLE.name} — Agent Canvas'"
    assert after.startswith("1 True 'Single agent — ")
    assert SINGLE.name in after
