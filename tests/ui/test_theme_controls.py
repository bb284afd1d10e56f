"""Controls read in either theme: check boxes and radio buttons have an outline that
stands out from the field they sit on, dialog buttons' line-art icons are light on a dark
window, and an input that cannot be edited looks unlike one that can."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from contrast import contrast
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLineEdit,
    QRadioButton,
    QStyle,
    QStyleOptionButton,
    QStyleOptionViewItem,
    QWidget,
)

from desktop.ui import theme as themes
from desktop.ui.settings_dialog import SettingsDialog
from desktop.ui.theme import DARK, LIGHT, Theme
from desktop.ui.themed_style import ThemedStyle


@pytest.fixture(params=[LIGHT, DARK], ids=lambda t: t.name)
def theme(request, qapp) -> Iterator[Theme]:
    """The application in the theme (the light one again afterwards)."""
    themes.apply(qapp, request.param)
    yield request.param
    themes.apply(qapp, LIGHT)


def shown(qtbot, *widgets: QWidget) -> None:
    for widget in widgets:
        qtbot.addWidget(widget)
        widget.resize(240, 30)
        widget.show()
    for widget in widgets:
        qtbot.waitExposed(widget)


def indicator_edge(button: QCheckBox | QRadioButton) -> QColor:
    """The colour on the indicator's left edge, halfway down: its outline."""
    option = QStyleOptionButton()
    button.initStyleOption(option)
    element = (QStyle.SubElement.SE_CheckBoxIndicator if isinstance(button, QCheckBox)
               else QStyle.SubElement.SE_RadioButtonIndicator)
    rect = button.style().subElementRect(element, option, button)
    return button.grab().toImage().pixelColor(rect.left(), rect.center().y())


def test_unchecked_boxes_and_radio_buttons_are_outlined_visibly(qtbot, theme):
    box, radio = QCheckBox("notify me"), QRadioButton("another machine")
    shown(qtbot, box, radio)
    for button in (box, radio):
        edge = indicator_edge(button)
        assert contrast(edge, QColor(theme.base)) >= 2.5, (type(button).__name__,
                                                            edge.name())
        assert contrast(edge, QColor(theme.window)) >= 2.5


def test_a_disabled_input_looks_unlike_an_enabled_one(qtbot, theme):
    enabled, disabled = QLineEdit(), QLineEdit()
    disabled.setEnabled(False)
    shown(qtbot, enabled, disabled)

    def inside(edit: QLineEdit) -> QColor:
        return edit.grab().toImage().pixelColor(edit.width() // 2, edit.height() // 2)

    assert inside(enabled) == QColor(theme.base)
    assert inside(disabled) == QColor(theme.input_disabled)
    assert inside(disabled) != inside(enabled)


def ink(icon: QIcon) -> QColor:
    """The mean colour of ``icon``'s opaque pixels."""
    image = icon.pixmap(16, 16).toImage()
    pixels = [image.pixelColor(x, y) for y in range(image.height())
              for x in range(image.width())]
    opaque = [p for p in pixels if p.alpha() > 128]
    assert opaque, "the icon has something drawn"
    n = len(opaque)
    return QColor(round(sum(p.red() for p in opaque) / n),
                  round(sum(p.green() for p in opaque) / n),
                  round(sum(p.blue() for p in opaque) / n))


def close_icon(style: QStyle) -> QIcon:
    return style.standardIcon(QStyle.StandardPixmap.SP_DialogCloseButton)


def test_dark_dialog_icons_are_drawn_light_and_light_ones_kept(qapp):
    assert contrast(ink(close_icon(ThemedStyle(DARK))), QColor(DARK.window)) >= 4.5
    assert contrast(ink(close_icon(ThemedStyle(LIGHT))), QColor(LIGHT.window)) >= 4.5


def test_the_settings_close_icon_follows_a_theme_picked_there(editor_window, qtbot):
    editor_window.set_theme_choice("light")
    dialog = SettingsDialog(editor_window)
    qtbot.addWidget(dialog)
    # as on a desktop whose dialog buttons have icons (the test platform's have none)
    dialog.close_button.setIcon(close_icon(dialog.style()))
    dialog.show()
    qtbot.waitExposed(dialog)
    for name, theme in (("theme_dark", DARK), ("theme_light", LIGHT)):
        qtbot.mouseClick(dialog.findChild(QRadioButton, name), Qt.MouseButton.LeftButton)
        assert editor_window.theme is theme
        assert contrast(ink(dialog.close_button.icon()), QColor(theme.window)) >= 4.5


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=lambda t: t.name)
def test_the_themes_outline_colour_stands_out_from_their_fields(theme):
    assert contrast(QColor(theme.control_border), QColor(theme.base)) >= 3
    assert contrast(QColor(theme.control_border), QColor(theme.window)) >= 3


def test_selected_rows_text_reads_on_the_selection(theme: Theme, qapp) -> None:
    """A selected row (a list's, a table's, a menu's) is the accent with the palette's
    highlighted text on it: white was 2.9:1 on the dark theme's pale accent."""
    palette = qapp.palette()
    ratio = contrast(palette.color(QPalette.ColorRole.HighlightedText),
                     palette.color(QPalette.ColorRole.Highlight))
    assert ratio >= 4.5, (theme.name, ratio)


def test_the_highlighted_row_of_an_open_combo_box_reads(theme: Theme, qtbot) -> None:
    """The row under the mouse in a combo box's open list (the Diffs panel's node list,
    the run modes) had its text in the selection's ink on the base: invisible in both
    themes, so the row one was about to pick went blank."""
    combo = QComboBox()
    combo.addItems(["All nodes", "Implementer (text)"])
    shown(qtbot, combo)
    option = QStyleOptionViewItem()
    option.initFrom(combo.view())
    option.rect = QRect(0, 0, 200, 24)
    option.state |= QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_Enabled
    image = QImage(200, 24, QImage.Format.Format_ARGB32)
    image.fill(QColor(theme.base))
    painter = QPainter(image)
    combo.view().itemDelegate().paint(painter, option, combo.model().index(1, 0))
    painter.end()
    counts: dict[int, int] = {}
    for x in range(image.width()):
        for y in range(image.height()):
            rgb = image.pixel(x, y)
            counts[rgb] = counts.get(rgb, 0) + 1
    ground = QColor.fromRgb(max(counts, key=counts.__getitem__))
    best = max(contrast(QColor.fromRgb(rgb), ground) for rgb in counts)
    assert best >= 4.5, (theme.name, ground.name(), best)
