"""Painting resources for one theme, built once: paint() only picks them up."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QPen

from desktop.ui.theme import Theme, readable_ink


class Look:
    """QColor / QPen / QBrush objects derived from a Theme, shared by every item."""

    def __init__(self, theme: Theme):
        self.theme = theme
        c = QColor
        self.text = c(theme.text)
        self.muted = c(theme.muted)
        self.white = c("#ffffff")
        self.node_brush = QBrush(c(theme.node))
        self.canvas_brush = QBrush(c(theme.canvas))
        self.muted_brush = QBrush(c(theme.muted))
        self.accent_brush = QBrush(c(theme.accent))
        self.border_pen = QPen(c(theme.node_border), 1.0)
        self.port_pen = QPen(c(theme.node_border), 1.5)
        self.selected_pen = QPen(c(theme.accent), 2.0)
        self.selected_far_pen = QPen(c(theme.accent), 6.0)
        self.ok_pen = QPen(c(theme.ok), 2.0)
        self.refused_pen = QPen(c(theme.error), 2.0)
        self.badge_pen = QPen(c(theme.canvas), 2.0)
        self.error_brush = QBrush(c(theme.error))
        self.warning_brush = QBrush(c(theme.warning))
        self.no_pen = QPen(Qt.PenStyle.NoPen)
        self.grid_minor_pen = QPen(c(theme.grid_minor), 0)  # cosmetic: 1 px at any zoom
        self.grid_major_pen = QPen(c(theme.grid_major), 0)
        self.edge = {}
        for kind, color in (("handoff", theme.handoff), ("report", theme.report),
                            ("selected", theme.accent)):
            for far in (False, True):
                pen = QPen(c(color), 2.6 if kind == "selected" else 1.6)
                pen.setCapStyle(Qt.PenCapStyle.RoundCap)
                self.edge[(kind, False, far)] = pen
                dashed = QPen(pen)
                dashed.setStyle(Qt.PenStyle.DashLine)
                self.edge[(kind, True, far)] = dashed
        self.edge_brush = {k: QBrush(c(v)) for k, v in (
            ("handoff", theme.handoff), ("report", theme.report), ("selected", theme.accent))}
        # compare mode: added green, changed amber (removed ones are ghosts, in red)
        diff_colors = {"added": c(theme.ok), "changed": c(theme.warning), "removed": c(theme.error)}
        self.diff_pen = {k: QPen(v, 3.0) for k, v in diff_colors.items()}
        self.diff_brush = {k: QBrush(v) for k, v in diff_colors.items()}
        self.diff_edge = {}
        for kind, color in diff_colors.items():
            pen = QPen(color, 2.6)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            self.diff_edge[(kind, False)] = pen
            dashed = QPen(pen)
            dashed.setStyle(Qt.PenStyle.DashLine)
            self.diff_edge[(kind, True)] = dashed
        self.edge_label_pen = {k: QPen(c(v), 1.0) for k, v in (
            ("handoff", theme.handoff), ("report", theme.report), ("selected", theme.accent))}
        self._roles: dict[str, tuple[QColor, QBrush, QPen]] = {}
        self._providers: dict[str, QBrush] = {}
        self._inks: dict[int, QColor] = {}

    def role(self, name: str) -> tuple[QColor, QBrush, QPen]:
        """Colour, brush and 2 px pen of a role."""
        found = self._roles.get(name)
        if found is None:
            color = self.theme.role_color(name)
            found = self._roles[name] = (color, QBrush(color), QPen(color, 2.0))
        return found

    def ink_on(self, background: QColor) -> QColor:
        """The colour of a badge's text on ``background`` (white unless it does not read)."""
        key = background.rgba()
        found = self._inks.get(key)
        if found is None:
            found = self._inks[key] = readable_ink(background)
        return found

    def provider(self, name: str) -> QBrush:
        found = self._providers.get(name)
        if found is None:
            found = self._providers[name] = QBrush(self.theme.provider_color(name))
        return found
