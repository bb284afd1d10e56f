"""Where the editor window first opens and how much of it the side panels take.

A first start (no saved layout) opens the window over most of the screen it is on, and
gives the canvas most of the window: the side panels and the bottom tabs get a fixed
share, never more than they need.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRect, QSize

SCREEN_SHARE = 0.88  # of the screen's free area, on a first start
MIN_SIZE = QSize(960, 600)  # below this the panels crowd the canvas; smaller screens get all
LEAST_SIZE = QSize(880, 560)
"""The smallest the window may be made (a smaller screen: all of it): the run toolbar
still shows the run's state and the Approvals badge beside Run … Stop (the mode switches
and the usage go behind its » first), and the canvas keeps room beside the panels."""
MAX_SIZE = QSize(1920, 1200)  # a bigger window on a huge screen only spreads the panels
BOTTOM_SHARE = 0.44  # of the window's height, for the bottom tabs on a first start
CANVAS_FLOOR = 0.3
"""Below this share of the window's height (or width) the canvas is crowded out: panels
sized in a larger window give back what they took beyond their default for this one."""


def initial_geometry(available: QRect) -> QRect:
    """The window's first rectangle on a screen whose free area is ``available``:
    most of it, centred, never larger than the screen."""
    width = round(available.width() * SCREEN_SHARE)
    height = round(available.height() * SCREEN_SHARE)
    width = min(available.width(), max(min(MIN_SIZE.width(), available.width()),
                                       min(width, MAX_SIZE.width())))
    height = min(available.height(), max(min(MIN_SIZE.height(), available.height()),
                                         min(height, MAX_SIZE.height())))
    left = available.left() + (available.width() - width) // 2
    top = available.top() + (available.height() - height) // 2
    return QRect(left, top, width, height)


def least_size(available: QRect | None) -> QSize:
    """The window's minimum size on a screen whose free area is ``available``."""
    if available is None or available.isEmpty():
        return QSize(LEAST_SIZE)
    return LEAST_SIZE.boundedTo(available.size())


@dataclass(frozen=True)
class DockSizes:
    """Default sizes of the editor's panels, in pixels."""

    palette: int
    inspector: int
    bottom: int


def dock_sizes(window: QSize) -> DockSizes:
    """Panel sizes for a window of ``window``'s size: narrow side panels, and bottom tabs
    tall enough to read in (15 lines of a diff at 1280 x 800: a run is followed there),
    so the canvas keeps the rest."""
    palette = max(150, min(180, round(window.width() * 0.1)))
    inspector = max(290, min(330, round(window.width() * 0.2)))
    bottom = max(200, min(480, round(window.height() * BOTTOM_SHARE)))
    return DockSizes(palette, inspector, bottom)


def room_for_canvas(panels: DockSizes, window: QSize, canvas: QSize) -> DockSizes | None:
    """Smaller panel sizes when the window shrank under panels sized for a larger one and
    the canvas is left less than :data:`CANVAS_FLOOR` of it; None when it has room.
    Panels are only ever brought down to their default for this window, never below."""
    fits = dock_sizes(window)
    bottom, palette, inspector = panels.bottom, panels.palette, panels.inspector
    if canvas.height() < window.height() * CANVAS_FLOOR:
        bottom = min(bottom, fits.bottom)
    if canvas.width() < window.width() * CANVAS_FLOOR:
        palette, inspector = min(palette, fits.palette), min(inspector, fits.inspector)
    smaller = DockSizes(palette, inspector, bottom)
    return smaller if smaller != panels else None
