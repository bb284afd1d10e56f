"""WCAG 2 contrast between colours, for tests that check a theme's text stays readable."""

from __future__ import annotations

from PySide6.QtGui import QColor


def luminance(colour: QColor) -> float:
    """The relative luminance of ``colour`` (WCAG 2)."""
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return (0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF())
            + 0.0722 * channel(colour.blueF()))


def contrast(a: QColor, b: QColor) -> float:
    """The WCAG contrast ratio of two colours, 1 (same) to 21 (black on white)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
