"""What a screenshot of the app's window must show to count as the app's window.

The size of a PNG says little: a black screen or a blank window compresses small, but a
window of another program, or ours in an error state, does not. So the picture is read:

- it has many distinct colours (antialiased text, icons, cards); a blank or black screen
  has a handful;
- a sizeable part of it is the canvas background of one of our themes, which only the
  editor's canvas paints;
- inside the canvas (the box where its background is), the role colour of every node of
  the workflow shown is there: each card's stripe is painted in it, so the canvas shows
  that workflow's nodes (the palette's role dots lie outside that box).

The README screenshots (docs/screenshots/) pass with a wide margin: 2,000+ colours, a
fifth or more of the picture canvas, a hundred or more pixels of each role colour on it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from PySide6.QtGui import QImage

from desktop.ui.theme import DARK, LIGHT

MIN_COLOURS = 500
MIN_CANVAS_SHARE = 0.05
MIN_ROLE_PIXELS = 20


class Picture:
    """A screenshot's pixels: colour counts and where a colour is."""

    def __init__(self, path: Path) -> None:
        image = QImage(str(path))
        if image.isNull():
            raise ValueError(f"{path} is not a picture")
        image = image.convertToFormat(QImage.Format.Format_RGB32)  # B, G, R, 0xff a pixel
        self.width, self.height = image.width(), image.height()
        self.pixels = self.width * self.height
        self.data = bytes(image.constBits())[: self.pixels * 4]
        raw = Counter(self.data[i:i + 3] for i in range(0, len(self.data), 4))
        self.counts = Counter({f"#{k[2]:02x}{k[1]:02x}{k[0]:02x}": v for k, v in raw.items()})

    def where(self, colour: str) -> list[tuple[int, int]]:
        """The (x, y) of every pixel of ``colour`` (``#rrggbb``)."""
        pattern = bytes.fromhex(colour[1:])[::-1] + b"\xff"
        found, i = [], self.data.find(pattern)
        while i >= 0:
            if i % 4 == 0:
                found.append(((i // 4) % self.width, (i // 4) // self.width))
            i = self.data.find(pattern, i + 1)
        return found

    def box(self, colour: str, line: int = 40) -> tuple[int, int, int, int] | None:
        """The box (left, top, right, bottom) spanned by the columns and rows that have at
        least ``line`` pixels of ``colour``; None when none has."""
        spots = self.where(colour)
        columns = [x for x, n in Counter(x for x, _ in spots).items() if n >= line]
        rows = [y for y, n in Counter(y for _, y in spots).items() if n >= line]
        if not columns or not rows:
            return None
        return min(columns), min(rows), max(columns), max(rows)


def screenshot_problems(path: Path, roles: list[str]) -> list[str]:
    """Why the picture at ``path`` is not our window showing nodes of these ``roles``
    (an empty list when it is)."""
    try:
        picture = Picture(path)
    except ValueError as exc:
        return [str(exc)]
    problems = []
    colours = len(picture.counts)
    if colours < MIN_COLOURS:
        problems.append(f"only {colours} distinct colours: a blank or nearly blank screen")
    canvas = max((LIGHT.canvas, DARK.canvas), key=lambda c: picture.counts[c])
    share = picture.counts[canvas] / picture.pixels
    box = picture.box(canvas)
    if share < MIN_CANVAS_SHARE or box is None:
        problems.append(f"the canvas background covers {share:.1%} of the picture: "
                        "not the editor")
        return problems
    left, top, right, bottom = box
    for role in roles:
        colour = LIGHT.role_color(role).name()
        on_canvas = sum(1 for x, y in picture.where(colour)
                        if left <= x <= right and top <= y <= bottom)
        if on_canvas < MIN_ROLE_PIXELS:
            problems.append(f"{on_canvas} pixels of the {role} colour {colour} on the "
                            "canvas: no such node")
    return problems
