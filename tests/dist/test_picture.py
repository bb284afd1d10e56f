"""The check that ``make test-dist`` makes of its screenshots, checked itself (this file
runs in the normal suite): it passes the app's window and fails blank or foreign ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage, QPainter

from desktop.graph.resources import examples_dir
from desktop.ui import theme as themes
from desktop.ui.window import EditorWindow
from tests.dist.harness import REPO
from tests.dist.picture import screenshot_problems

ROLES = ["planner", "implementer", "reviewer"]  # the nodes of the example test-dist runs
SCREEN = (1600, 1000)


def _saved(image: QImage, path: Path) -> Path:
    assert image.save(str(path))
    return path


@pytest.mark.parametrize("name", ["editor.png", "live-run.png"])
def test_a_real_screenshot_of_the_window_passes(name: str) -> None:
    # drawn by scripts/screenshots.py from the app on Xvfb, as test-dist's are
    assert screenshot_problems(REPO / "docs" / "screenshots" / name, ROLES) == []


@pytest.mark.parametrize("look", [themes.LIGHT, themes.DARK], ids=["light", "dark"])
def test_the_window_grabbed_offscreen_passes(look, qtbot, tmp_path: Path) -> None:
    win = EditorWindow(str(examples_dir() / "plan-implement-review.flow.yaml"))
    qtbot.addWidget(win)
    win.apply_theme(look)
    win.resize(1408, 880)  # what a first start opens on test-dist's 1600x1000 screen
    win.show()
    qtbot.waitExposed(win)
    screen = QImage(*SCREEN, QImage.Format.Format_RGB32)
    screen.fill(Qt.GlobalColor.black)  # Xvfb's root window, around ours
    painter = QPainter(screen)
    painter.drawPixmap(QPoint(96, 60), win.grab())
    painter.end()
    win.file.close()
    assert screenshot_problems(_saved(screen, tmp_path / "grab.png"), ROLES) == []


def test_a_black_screen_fails(tmp_path: Path) -> None:
    screen = QImage(*SCREEN, QImage.Format.Format_RGB32)
    screen.fill(Qt.GlobalColor.black)
    problems = screenshot_problems(_saved(screen, tmp_path / "black.png"), ROLES)
    assert any("distinct colours" in p for p in problems), problems
    assert any("canvas background" in p for p in problems), problems


def test_a_blank_window_fails(tmp_path: Path) -> None:
    screen = QImage(*SCREEN, QImage.Format.Format_RGB32)
    screen.fill(Qt.GlobalColor.black)
    painter = QPainter(screen)
    painter.fillRect(96, 60, 1408, 880, QColor(themes.LIGHT.window))
    painter.fillRect(300, 100, 900, 600, QColor(themes.LIGHT.canvas))  # even an empty canvas
    painter.end()
    problems = screenshot_problems(_saved(screen, tmp_path / "blank.png"), ROLES)
    assert any("distinct colours" in p for p in problems), problems
    assert sum("no such node" in p for p in problems) == len(ROLES), problems


def test_a_patch_of_the_canvas_colour_is_not_the_editor(tmp_path: Path) -> None:
    screen = QImage(str(REPO / "docs" / "screenshots" / "editor.png"))
    screen.fill(Qt.GlobalColor.black)
    painter = QPainter(screen)
    painter.fillRect(400, 300, 200, 200, QColor(themes.LIGHT.canvas))
    painter.end()
    problems = screenshot_problems(_saved(screen, tmp_path / "patch.png"), ROLES)
    assert any("canvas background covers 2.5%" in p for p in problems), problems


def test_the_window_showing_another_workflow_fails() -> None:
    # its canvas has an implementer only; the palette's planner and reviewer dots do not count
    problems = screenshot_problems(REPO / "docs" / "screenshots" / "approval.png", ROLES)
    assert [p.split(" colour ")[0] for p in problems] == [
        "0 pixels of the planner", "0 pixels of the reviewer"], problems


def test_another_colourful_picture_fails(tmp_path: Path) -> None:
    other = QImage(str(REPO / "docs" / "screenshots" / "editor.png"))
    other.invertPixels()  # as many colours as the window, none of them ours
    problems = screenshot_problems(_saved(other, tmp_path / "other.png"), ROLES)
    assert len(problems) == 1 and "canvas background covers 0.0%" in problems[0], problems


def test_a_file_that_is_not_a_picture_fails(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(b"")
    assert screenshot_problems(tmp_path / "shot.png", ROLES) == [
        f"{tmp_path / 'shot.png'} is not a picture"]
