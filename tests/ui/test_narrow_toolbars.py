"""In a narrow window the toolbars keep every command in reach: the buttons that do not
fit go behind the toolbar's » button, which is drawn (the buttons' padding once left its
arrow no room, so the hidden commands could not be found)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QToolBar, QToolButton

from desktop.ui import theme
from desktop.ui.window import EditorWindow

EXT = "qt_toolbar_ext_button"


def _extension(bar: QToolBar) -> QToolButton:
    return next(b for b in bar.findChildren(QToolButton) if b.objectName() == EXT)


def _inked(button: QToolButton, ground: QColor) -> int:
    """How many of the button's pixels differ clearly from ``ground`` (its arrow's)."""
    image = button.grab().toImage()
    count = 0
    for y in range(image.height()):
        for x in range(image.width()):
            c = image.pixelColor(x, y)
            if max(abs(c.red() - ground.red()), abs(c.green() - ground.green()),
                   abs(c.blue() - ground.blue())) > 60:
                count += 1
    return count


@pytest.mark.parametrize("look", [theme.LIGHT, theme.DARK], ids=lambda t: t.name)
def test_a_narrow_window_shows_the_toolbars_extension_arrow(qapp, qtbot, look) -> None:
    win = EditorWindow()
    qtbot.addWidget(win)
    try:
        win.apply_theme(look)
        win.setMinimumSize(0, 0)  # narrower than the window's least size: a tall toolbar
        win.resize(700, 800)
        win.show()
        qtbot.waitExposed(win)
        bars = [win.toolbar, win.run_panels.controls]
        for bar in bars:
            hidden = [a for a in bar.actions() if a.isVisible()
                      and not (bar.widgetForAction(a) and bar.widgetForAction(a).isVisible())]
            assert hidden, bar.objectName()  # 700 px is too narrow for all of it
            ext = _extension(bar)
            assert ext.isVisible() and ext.isEnabled(), bar.objectName()
            assert _inked(ext, QColor(look.window)) >= 6, (look.name, bar.objectName())
    finally:
        win.file.close()
        theme.apply(qapp, theme.LIGHT)
