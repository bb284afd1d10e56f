"""The application's widget style: Fusion, with what Fusion derives from the window colour
drawn in the theme's colours instead.

Fusion outlines check boxes and radio buttons in a shade darker than the window, and its
dialog buttons' icons (Close, Cancel, OK) are black line art: on a dark window both all
but vanish. This style draws those outlines in the theme's ``control_border`` and, in a
dark theme, those icons in its text colour.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import (
    QProxyStyle,
    QStyle,
    QStyleFactory,
    QStyleOption,
    QToolBar,
    QToolButton,
    QWidget,
)

from desktop.ui.theme import LIGHT, Theme

_PE = QStyle.PrimitiveElement
_SP = QStyle.StandardPixmap
_EXTENSION = "qt_toolbar_ext_button"
"""Qt's name for the » button of a toolbar too narrow for its buttons."""
_GREY_LINE_ART = frozenset({_SP.SP_ToolBarHorizontalExtensionButton,
                            _SP.SP_ToolBarVerticalExtensionButton})
"""Icons Fusion draws in mid grey, too light for the dark-ink test, and as faint on a dark
window: a toolbar's » button, the one way to the buttons a narrow window hides."""
_INK_LIGHTNESS = 0.35
"""An icon whose opaque pixels are on average darker than this is line art to recolour;
a coloured icon (a folder, a floppy) keeps its colours."""


def _is_dark_ink(pixmap: QPixmap) -> bool:
    image = pixmap.toImage()
    total = weight = 0.0
    for y in range(image.height()):
        for x in range(image.width()):
            colour = image.pixelColor(x, y)
            total += colour.lightnessF() * colour.alphaF()
            weight += colour.alphaF()
    return weight > 0 and total / weight < _INK_LIGHTNESS


def _tinted(pixmap: QPixmap, colour: QColor) -> QPixmap:
    out = QPixmap(pixmap)
    painter = QPainter(out)
    # keep the icon's shape (its alpha), give every pixel of it the colour
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    painter.fillRect(out.rect(), colour)
    painter.end()
    return out


class ThemedStyle(QProxyStyle):
    """Fusion with check box and radio button outlines, and dark line-art icons, in the
    colours of :attr:`theme`."""

    def __init__(self, theme: Theme = LIGHT) -> None:
        super().__init__(QStyleFactory.create("Fusion"))
        self.theme = theme
        self._icons: dict[tuple[str, QStyle.StandardPixmap], QIcon] = {}

    def drawPrimitive(self, element: QStyle.PrimitiveElement, option: QStyleOption,
                      painter: QPainter, widget: QWidget | None = None) -> None:
        super().drawPrimitive(element, option, painter, widget)
        # Fusion draws the item views' check boxes through this one too (the proxy's)
        if element in (_PE.PE_IndicatorCheckBox, _PE.PE_IndicatorRadioButton):
            self._outline(element, option, painter)

    def _outline(self, element: QStyle.PrimitiveElement, option: QStyleOption,
                 painter: QPainter) -> None:
        state = option.state
        focused = QStyle.StateFlag.State_HasFocus | QStyle.StateFlag.State_KeyboardFocusChange
        if (state & focused) == focused:
            return  # Fusion's own outline then is the accent's, and visible
        enabled = bool(state & QStyle.StateFlag.State_Enabled)
        colour = QColor(self.theme.control_border if enabled else self.theme.border)
        rect = option.rect
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(colour, 1))
        painter.setBrush(QColor(0, 0, 0, 0))
        if element == _PE.PE_IndicatorCheckBox:
            painter.drawRect(QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5))
        else:  # over Fusion's circle: its centre and radius
            centre = QPointF(rect.center()) + QPointF(1, 1)
            radius = (rect.width() + (rect.width() + 1) % 2) / 2.0 - 1
            circle = QPainterPath()
            circle.addEllipse(centre, radius, radius)
            painter.drawPath(circle)
        painter.restore()

    def standardIcon(self, icon: QStyle.StandardPixmap, option: QStyleOption | None = None,
                     widget: QWidget | None = None) -> QIcon:
        base = super().standardIcon(icon, option, widget)
        if not self.theme.dark or base.isNull():
            return base
        key = (self.theme.name, icon)
        if key not in self._icons:
            sizes = base.availableSizes() or []
            pixmaps = [base.pixmap(size) for size in sizes]
            if pixmaps and (icon in _GREY_LINE_ART or all(_is_dark_ink(p) for p in pixmaps)):
                tinted = QIcon()
                for pixmap in pixmaps:
                    tinted.addPixmap(_tinted(pixmap, QColor(self.theme.text)))
                self._icons[key] = tinted
            else:
                self._icons[key] = base
        return self._icons[key]


def refresh_extension_icons(style: QStyle, widgets: list[QWidget]) -> None:
    """Give every toolbar » among ``widgets`` the icon of ``style``, just applied: Qt sets
    it once, when the » is made, so the dark theme's » would keep the light one's grey."""
    for widget in widgets:
        if widget.objectName() != _EXTENSION or not isinstance(widget, QToolButton):
            continue
        from PySide6.QtCore import Qt  # its ~130 enums: not before the first paint

        bar = widget.parentWidget()
        vertical = isinstance(bar, QToolBar) and bar.orientation() == Qt.Orientation.Vertical
        widget.setIcon(style.standardIcon(_SP.SP_ToolBarVerticalExtensionButton if vertical
                                          else _SP.SP_ToolBarHorizontalExtensionButton,
                                          None, widget))
