"""Text cut off by the widget or row that shows it, measured from font metrics.

What counts as clipped:
- a label (plain text, no word wrap) narrower or lower than its lines;
- a push button or check box smaller than its size hint (its text and icon);
- a row of a list, tree or table lower than one line of its font.

What does not: text a widget elides on purpose (tab titles, item text with "…", combo
boxes, line edits), and widgets that are not on screen.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt  # mightBeRichText lives in QtGui
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QCheckBox,
    QLabel,
    QPushButton,
    QWidget,
)

SLACK = 1  # a pixel of rounding
ROW_ROOM = 2  # a row one line high has its text touch the next row


def _name(widget: QWidget) -> str:
    chain, w = [], widget
    while w is not None and len(chain) < 4:
        chain.append(w.objectName() or type(w).__name__)
        w = w.parentWidget()
    return "/".join(reversed(chain))


def _label(label: QLabel) -> str | None:
    text = label.text()
    if not text or label.wordWrap() or (label.pixmap() is not None and not label.pixmap().isNull()):
        return None
    if label.textFormat() == Qt.TextFormat.RichText or GuiQt.mightBeRichText(text):
        return None
    metrics = label.fontMetrics()
    lines = text.splitlines() or [""]
    need_w = max(metrics.horizontalAdvance(line) for line in lines)
    need_h = metrics.height() * len(lines)
    have = label.contentsRect()
    if need_w > have.width() + SLACK or need_h > have.height() + SLACK:
        return (f"{_name(label)}: {text[:40]!r} needs {need_w}x{need_h}, "
                f"has {have.width()}x{have.height()}")
    return None


def _button(button: QAbstractButton) -> str | None:
    if not isinstance(button, QPushButton | QCheckBox) or not button.text():
        return None
    hint = button.sizeHint()
    if button.width() + SLACK < hint.width() or button.height() + SLACK < hint.height():
        return (f"{_name(button)}: {button.text()!r} needs {hint.width()}x{hint.height()}, "
                f"has {button.width()}x{button.height()}")
    return None


def _rows(view: QAbstractItemView) -> str | None:
    model = QAbstractItemView.model(view)  # a panel may name its own attribute "model"
    if model is None or model.rowCount() == 0:
        return None
    line = view.fontMetrics().height()
    for row in range(min(model.rowCount(), 50)):
        rect = view.visualRect(model.index(row, 0))
        if rect.isValid() and 0 < rect.height() < line + ROW_ROOM:
            return (f"{_name(view)}: row {row} is {rect.height()} px high, a line is {line}"
                    f" (+{ROW_ROOM} of room)")
    return None


def measured(root: QWidget) -> int:
    """How many widgets inside ``root`` :func:`clipped` measures as they show now."""
    kinds = (QLabel, QPushButton, QCheckBox, QAbstractItemView)
    return sum(1 for w in [root, *root.findChildren(QWidget)]
               if w.isVisible() and w.width() > 0 and isinstance(w, kinds))


def clipped(root: QWidget) -> list[str]:
    """Every piece of text cut off inside ``root`` (and ``root`` itself), as it shows now."""
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible() or widget.width() <= 0:
            continue
        if isinstance(widget, QLabel):
            problem = _label(widget)
        elif isinstance(widget, QAbstractButton):
            problem = _button(widget)
        elif isinstance(widget, QAbstractItemView):
            problem = _rows(widget)
        else:
            problem = None
        if problem:
            found.append(problem)
    return found
