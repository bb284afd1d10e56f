"""Fixtures for editor tests: a shown EditorWindow with dialogs answered by the test,
desktop notifications caught by a recording tray, and a check that no test leaves an app
window open."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QPointF, Signal
from shiboken6 import isValid

from desktop.graph.resources import examples_dir
from desktop.ui.run.notifier import Notifier, set_app_notifier
from desktop.ui.tabs import TAB_WINDOWS, TabbedWindow
from desktop.ui.window import OPEN_WINDOWS, EditorWindow

EXAMPLE = examples_dir() / "plan-implement-review.flow.yaml"


class RecordingTray(QObject):
    """Keeps every nudge it is asked to show, with the window it was shown for."""

    clicked = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[tuple] = []

    def show(self, nudge, window) -> None:
        self.shown.append((nudge, window))


@pytest.fixture(autouse=True)
def tray(qapp) -> Iterator[RecordingTray]:
    """The app's notifications go to a recording tray: nothing pops up on the desktop of
    whoever runs the tests, and a test reads what would have shown."""
    recording = RecordingTray()
    notifier = Notifier(recording)
    notifier.set_enabled({"approvals", "pauses", "ends"})
    set_app_notifier(notifier)
    yield recording
    set_app_notifier(None)
    notifier.deleteLater()
    recording.deleteLater()


@pytest.fixture(autouse=True)
def _no_window_left_open(request: pytest.FixtureRequest, qapp) -> Iterator[None]:
    """Fail the test that leaves an app window open (after its own fixtures closed what
    they registered). A window left behind lives on in the test worker: the next test's
    Quit reaches it, and a test waiting for every window to close waits for ever."""
    before = {id(w) for w in [*TAB_WINDOWS, *OPEN_WINDOWS]}
    yield
    left = [w for w in [*TAB_WINDOWS, *OPEN_WINDOWS] if id(w) not in before and isValid(w)
            and w.isVisible() and (isinstance(w, TabbedWindow) or w.host is None)]
    for window in left:  # gone without asking: a dialog here would wait for ever
        window.hide()
        for registry in (TAB_WINDOWS, OPEN_WINDOWS):
            if window in registry:
                registry.remove(window)
        window.deleteLater()
    if left:
        names = ", ".join(f"{type(w).__name__} {w.windowTitle()!r}" for w in left)
        pytest.fail(f"{request.node.nodeid} left open: {names}; register the window "
                    "(not only its tab) with qtbot.addWidget, or close it", pytrace=False)


@pytest.fixture
def editor_window(qtbot, monkeypatch) -> EditorWindow:
    win = EditorWindow()
    win.answers = {"save_changes": "discard"}  # type: ignore[attr-defined]
    monkeypatch.setattr(win.ask, "save_changes", lambda: win.answers["save_changes"])
    monkeypatch.setattr(win, "show_error", lambda title, text: win.answers.setdefault(
        "errors", []).append(text))
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    qtbot.waitExposed(win)
    yield win
    if isValid(win):
        win.file.close()


@pytest.fixture
def example_window(editor_window: EditorWindow, tmp_path: Path) -> EditorWindow:
    path = tmp_path / EXAMPLE.name
    path.write_bytes(EXAMPLE.read_bytes())
    assert editor_window.files.open_path(path)
    editor_window.view.reset_zoom()
    editor_window.view.centerOn(QPointF(400, 40))
    return editor_window


@pytest.fixture(scope="session")
def past_run(tmp_path_factory):
    """``past_run(flow_path_or_yaml, name)``: the folder of a finished run of that workflow
    (run once per session by ``agent-canvas run``, in a data folder of its own)."""
    import subprocess
    import sys

    made: dict[str, Path] = {}

    def make(flow: Path | str, name: str = "flow") -> Path:
        key = str(flow)
        if key not in made:
            data = tmp_path_factory.mktemp(f"past-{name}")
            path = Path(flow) if isinstance(flow, Path) else data / f"{name}.flow.yaml"
            if not isinstance(flow, Path):
                path.write_text(flow)
            subprocess.run([sys.executable, "-m", "desktop", "run", str(path), "--data-dir",
                            str(data)], capture_output=True, timeout=300,
                           stdin=subprocess.DEVNULL, check=False)
            made[key] = next((data / "runs").iterdir())
        return made[key]

    return make
