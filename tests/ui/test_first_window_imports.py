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
