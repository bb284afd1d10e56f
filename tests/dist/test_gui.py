"""The bundled app's window opens on a real X server (Xvfb) and runs a workflow.

F5 in the window starts the service from the bundle (``agent-canvas serve``, started
by the window itself) and the run in it; a screenshot of the screen is saved under
build/test-dist/ for a person to look at, and it must show the window with the example's
nodes on its canvas (tests/dist/picture.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dist.harness import CleanRoom, stop
from tests.dist.picture import screenshot_problems

pytestmark = pytest.mark.dist

SCREEN = (1600, 1000)
EXAMPLE = "plan-implement-review.flow.yaml"
DOC_NAME = "Plan, implement, review"  # the example's name
ROLES = ["planner", "implementer", "reviewer"]  # of the example's nodes
GRAB = """
import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication(sys.argv[:1])
image = app.primaryScreen().grabWindow(0).toImage()
sys.exit(0 if image.save(sys.argv[1]) else 1)
"""


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is missing: scripts/ensure-dist-tools test installs it"
    return path


@pytest.fixture
def display(tmp_path: Path) -> Iterator[str]:
    """A fresh Xvfb server; its DISPLAY value."""
    read_end, write_end = os.pipe()
    xvfb = subprocess.Popen(
        [_tool("Xvfb"), "-displayfd", str(write_end), "-screen", "0",
         f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
        pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        number = pipe.readline().strip()
    try:
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        xvfb.terminate()
        xvfb.wait(10)


def _x_env(display: str) -> dict[str, str]:
    return {"DISPLAY": display, "LANG": "C.UTF-8"}  # window titles are UTF-8


def _wait_for(predicate, what: str, timeout: float, proc: subprocess.Popen, log: Path):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        assert proc.poll() is None, f"the app exited ({proc.returncode}):\n{log.read_text()}"
        time.sleep(0.25)
    raise AssertionError(f"{what} did not happen within {timeout} s\n{log.read_text()[-3000:]}")


def _focus(display: str) -> bool:
    """Focus the shown window once it holds the example (its title starts with the
    workflow's name: the window shows first, titled with the file's name, and its keys
    work once the document is in it); False until then."""
    found = subprocess.run([_tool("xdotool"), "search", "--onlyvisible", "--name",
                            f"^{DOC_NAME} — .*{EXAMPLE}"],
                           env=_x_env(display), capture_output=True, text=True, timeout=20)
    windows = found.stdout.split()
    if not windows:
        return False
    focus = subprocess.run([_tool("xdotool"), "windowfocus", "--sync", windows[-1]],
                           env=_x_env(display), capture_output=True, timeout=20)
    return focus.returncode == 0


def _completed_run(data: Path) -> Path | None:
    for events in (data / "runs").glob("*/events.jsonl"):
        if '"run.completed"' in events.read_text(errors="replace"):
            return events
    return None


def _screenshot(display: str, target: Path) -> None:
    env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
    subprocess.run([sys.executable, "-c", GRAB, str(target)], env=env, check=True, timeout=60)


@pytest.mark.parametrize("source", ["tarball", "deb"])
def test_window_opens_and_runs_an_example(source: str, request: pytest.FixtureRequest,
                                           display: str, tmp_path: Path, out_dir: Path):
    app: Path = request.getfixturevalue("tar_app" if source == "tarball" else "deb_app")
    room = CleanRoom(tmp_path, app)
    example = app.parent / "_internal" / "resources" / "examples" / EXAMPLE
    log = tmp_path / "app.log"
    proc = room.start([str(app), str(example)], log=log,
                      env={"DISPLAY": display, "QT_QPA_PLATFORM": "xcb"})
    shot = out_dir / f"window-{source}.png"
    try:
        # a window is named before it is mapped, and focusing an unmapped one is an X
        # error (BadMatch): wait until it is shown and takes the focus, then press F5
        _wait_for(lambda: _focus(display), "the main window to show and take the focus",
                  180, proc, log)
        subprocess.run([_tool("xdotool"), "key", "F5"], env=_x_env(display), check=True,
                       timeout=20)
        info = room.data / "server.json"
        _wait_for(info.is_file, "the service the window starts", 120, proc, log)
        assert json.loads(info.read_text())["url"].startswith("http://127.0.0.1:")
        _wait_for(lambda: _completed_run(room.data), "the run to complete", 180, proc, log)
        time.sleep(1.5)  # the finished run drawn, for the person who looks at the picture
        # the picture must show the window with the example's nodes on its canvas; a
        # window still drawing gets a few more tries, the last one's problems are reported
        problems: list[str] = []

        def shows_the_window() -> bool:
            _screenshot(display, shot)
            problems[:] = screenshot_problems(shot, ROLES)
            return not problems

        try:
            _wait_for(shows_the_window, "a screenshot of the window", 60, proc, log)
        except AssertionError as exc:
            raise AssertionError(f"{shot} does not show the app's window: "
                                 f"{'; '.join(problems)}\n{exc}") from None
    finally:
        stop(proc, app)
    print(f"screenshot of the {source} app: {shot}")
