"""Light and dark themes: the application palette and the canvas colours.

The theme follows the system colour scheme unless the user picks one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyle

ROOMY_ROWS = "QListView::item, QTreeView::item { padding: 3px 4px; }"
"""A list's rows with room around their text: a bare row is exactly one line high, and
on some fonts its text touches (or is cut by) the next row."""


@dataclass(frozen=True)
class Theme:
    """Colours used by widgets and painted canvas items."""

    name: str
    window: str
    base: str
    alt_base: str
    text: str
    muted: str
    border: str
    control_border: str
    """The outline of a check box or radio button: it must stand out from the base (3:1)."""
    input_disabled: str
    """The background of an input that cannot be edited now (others have the base)."""
    accent: str
    canvas: str
    grid_minor: str
    grid_major: str
    node: str
    node_border: str
    node_header: str
    handoff: str
    report: str
    error: str
    warning: str
    ok: str
    diff_add: str
    """The background of an added line (and of a banner saying all went well)."""
    diff_del: str
    """The background of a removed line (and of a banner saying something collided)."""
    diff_chg: str
    """The background of a changed line side by side (and of a banner with an error)."""
    diff_hunk: str
    """The background of a hunk's ``@@`` line (and of a banner that informs)."""
    code_keyword: str
    code_string: str
    code_comment: str
    runtime: str
    """What a run added to its graph (a node, an edge): dashed outlines and the card's
    "added at run time" line, which reads on ``runtime_fill`` (4.5:1)."""
    runtime_fill: str
    """The card of a node added at run time."""
    roles: dict[str, str] = field(default_factory=dict)
    providers: dict[str, str] = field(default_factory=dict)

    def color(self, name: str) -> QColor:
        return QColor(getattr(self, name))

    def role_color(self, role: str) -> QColor:
        return QColor(self.roles.get(role, self.roles.get("_default", self.accent)))

    def provider_color(self, provider: str) -> QColor:
        return QColor(self.providers.get(provider, self.muted))

    @property
    def dark(self) -> bool:
        return self.name == "dark"


_ROLES = {
    "planner": "#7c5cff", "implementer": "#1f9d6b", "reviewer": "#e0873a",
    "tester": "#2f8fd8", "investigator": "#c2447a", "orchestrator": "#b58a00",
    "_default": "#6b7a90",
}
_PROVIDERS = {
    "scripted": "#6b7a90", "command": "#4a5568", "custom": "#4a5568", "claude": "#d97757",
    "codex": "#10a37f", "gemini": "#4285f4", "acp": "#8e6cd8", "perplexity": "#20808d",
    "xai": "#222222",
}

LIGHT = Theme(
    name="light", window="#f3f4f7", base="#ffffff", alt_base="#f7f8fa", text="#1d2330",
    muted="#5f687a", border="#d5d9e0", control_border="#7a8394", input_disabled="#eceef2",
    accent="#3b6df0", canvas="#f6f7f9",
    grid_minor="#e9ebef", grid_major="#dcdfe5", node="#ffffff", node_border="#c9ced8",
    node_header="#f1f3f6", handoff="#5b6577", report="#8a6fd1", error="#d93f3f",
    warning="#d18b0f", ok="#1f9d6b", diff_add="#e6ffec", diff_del="#ffebe9",
    diff_chg="#fff8c5", diff_hunk="#ddf4ff", code_keyword="#6f42c1", code_string="#0a3069",
    code_comment="#57606a", runtime="#8250df", runtime_fill="#f6f0ff", roles=_ROLES,
    providers=_PROVIDERS,
)
DARK = Theme(
    name="dark", window="#1e2127", base="#23272e", alt_base="#282c34", text="#e3e6ec",
    muted="#9aa3b2", border="#3a404b", control_border="#7f889a", input_disabled="#1a1d22",
    accent="#6d93ff", canvas="#1a1d22",
    grid_minor="#22262c", grid_major="#2b3038", node="#2a2f37", node_border="#444b57",
    node_header="#323843", handoff="#a3acbb", report="#a992ea", error="#f06565",
    warning="#e8a93a", ok="#3fcf8e", diff_add="#1e3a2c", diff_del="#442628",
    diff_chg="#3d3620", diff_hunk="#1c3250", code_keyword="#d2a8ff", code_string="#a5d6ff",
    code_comment="#9ea7b3", runtime="#b392f0", runtime_fill="#2a2438", roles=_ROLES,
    providers={**_PROVIDERS, "xai": "#d0d0d0", "command": "#8a94a6", "custom": "#8a94a6"},
)


INK_LIGHT = "#ffffff"
INK_DARK = "#15181e"
READABLE = 4.5
"""WCAG's least contrast for small text: badge labels are 9 to 11 px."""


def _luminance(colour: QColor) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return (0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF())
            + 0.0722 * channel(colour.blueF()))


def readable_on(colour: str, ground: str) -> QColor:
    """``colour`` as text on ``ground``: itself where it reads there (4.5:1), else moved
    towards the ground's opposite (darker on a light ground) until it does."""
    ink, back = QColor(colour), QColor(ground)
    dark_ground = _luminance(back) < 0.5

    def ratio(c: QColor) -> float:
        hi, lo = sorted((_luminance(c), _luminance(back)), reverse=True)
        return (hi + 0.05) / (lo + 0.05)

    for _ in range(40):  # 5% a step: black or white, which read, come well before
        if ratio(ink) >= READABLE:
            break
        ink = ink.lighter(105) if dark_ground else ink.darker(105)
    return ink


def readable_ink(background: QColor) -> QColor:
    """The text colour for a label on a filled ``background`` (a badge, a pill): white
    while it reads there (WCAG 4.5:1), else the near-black, whichever contrasts more.

    A theme's accent and status colours are bright in the dark theme, so white text on
    them, which reads in the light one, falls to 2:1 or 3:1 there."""
    light, dark = QColor(INK_LIGHT), QColor(INK_DARK)
    ground = _luminance(background)
    on_light = (_luminance(light) + 0.05) / (ground + 0.05)
    on_dark = (ground + 0.05) / (_luminance(dark) + 0.05)
    return light if on_light >= READABLE or on_light >= on_dark else dark


def system_prefers_dark() -> bool:
    """Whether the desktop asks for a dark colour scheme."""
    from PySide6.QtCore import Qt  # its ~130 enums take 20 ms: not before the first paint

    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    return scheme is not None and scheme() == Qt.ColorScheme.Dark


SHOWN_KEY = "theme/shown"
"""The settings key of the theme the editor showed last (start-up's first look)."""


def by_name(name: object) -> Theme:
    """The theme named ``name`` ("dark"), else the light one."""
    return DARK if name == DARK.name else LIGHT


def pick(choice: str = "system") -> Theme:
    """The theme for ``choice``: "light", "dark" or "system"."""
    if choice == "dark":
        return DARK
    if choice == "light":
        return LIGHT
    return DARK if system_prefers_dark() else LIGHT


def apply(app: QApplication, theme: Theme) -> None:
    """Apply the Fusion style with a palette and a small style sheet for ``theme``."""
    apply_palette(app, theme)
    app.setStyleSheet(_STYLE.format(t=theme, ink=readable_ink(QColor(theme.accent)).name()))


_style: list[QStyle] = []
"""The style last given to the application: held here too, so Python never frees what
the application uses."""


_applied: list[Theme] = []
"""The theme last applied to the application."""


def current() -> Theme:
    """The theme the application shows now (light before any was applied): for a part
    made without a window's theme at hand, such as a dialog's diff."""
    return _applied[0] if _applied else LIGHT


def apply_palette(app: QApplication, theme: Theme) -> None:
    """Apply the Fusion style with ``theme``'s palette, without the style sheet (whose
    rules are for the editor's parts: start-up's first window has none of them yet)."""
    from desktop.ui.themed_style import (  # Fusion with outlines, icons themed
        ThemedStyle,
        refresh_extension_icons,
    )

    style = ThemedStyle(theme)
    app.setStyle(style)
    refresh_extension_icons(style, app.allWidgets())
    _style[:] = [style]
    _applied[:] = [theme]
    pal = QPalette()
    c = QColor
    roles = {
        QPalette.ColorRole.Window: theme.window, QPalette.ColorRole.WindowText: theme.text,
        QPalette.ColorRole.Base: theme.base, QPalette.ColorRole.AlternateBase: theme.alt_base,
        QPalette.ColorRole.Text: theme.text, QPalette.ColorRole.Button: theme.base,
        QPalette.ColorRole.ButtonText: theme.text, QPalette.ColorRole.Highlight: theme.accent,
        # a selected row's text: white reads on the light accent, not on the dark one's
        QPalette.ColorRole.HighlightedText: readable_ink(QColor(theme.accent)).name(),
        QPalette.ColorRole.ToolTipBase: theme.base,
        QPalette.ColorRole.ToolTipText: theme.text, QPalette.ColorRole.PlaceholderText: theme.muted,
        QPalette.ColorRole.Mid: theme.border, QPalette.ColorRole.Midlight: theme.alt_base,
        QPalette.ColorRole.Light: theme.base, QPalette.ColorRole.Dark: theme.border,
        QPalette.ColorRole.Link: theme.accent,
    }
    for role, value in roles.items():
        pal.setColor(role, c(value))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText,
                 QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, c(theme.muted))
    app.setPalette(pal)


_STYLE = """
QToolBar {{ border: none; spacing: 2px; padding: 3px; background: {t.window}; }}
QToolBar QToolButton {{ padding: 4px 8px; border-radius: 5px; }}
QToolBar QToolButton:hover {{ background: {t.alt_base}; }}
/* the » of a toolbar too narrow for its buttons: it is 12 px wide, and the buttons'
   padding left its arrow no room, so the hidden buttons could not be reached */
QToolBar QToolButton#qt_toolbar_ext_button {{ padding: 0px; }}
QDockWidget::title {{ padding: 6px 8px; background: {t.window}; font-weight: 600; }}
QStatusBar {{ color: {t.muted}; }}
QLineEdit, QPlainTextEdit, QSpinBox, QDoubleSpinBox, QComboBox {{
    border: 1px solid {t.border}; border-radius: 5px; padding: 3px 5px; background: {t.base}; }}
QLineEdit:focus, QPlainTextEdit:focus, QSpinBox:focus, QDoubleSpinBox:focus,
QComboBox:focus {{ border-color: {t.accent}; }}
QLineEdit:disabled, QPlainTextEdit:disabled, QSpinBox:disabled, QDoubleSpinBox:disabled,
QComboBox:disabled {{ background: {t.input_disabled}; border-style: dashed; color: {t.muted}; }}
/* a combo box's open list draws its rows with the combo's own rule (its border and its
   base background) and the selection's text colour: the highlighted row, the one under
   the mouse, was that ink on the base, unreadable in both themes */
QComboBox::item:selected {{ background: {t.accent}; color: {ink}; border: none; }}
QLineEdit[invalid="true"], QPlainTextEdit[invalid="true"] {{ border-color: {t.error}; }}
/* a field that shows a value and takes no edit (a run's graph): readable, not an input */
QLineEdit[locked="true"], QPlainTextEdit[locked="true"] {{
    background: {t.input_disabled}; border-style: dashed; }}
QLabel[role="error"] {{ color: {t.error}; }}
QLabel[role="muted"] {{ color: {t.muted}; }}
QLabel[role="section"] {{ color: {t.muted}; font-weight: 600; padding-top: 8px; }}
QLabel[role="title"] {{ font-size: 15px; font-weight: 600; }}
QListWidget, QTreeWidget {{ border: none; background: {t.base}; }}
QListWidget::item, QTreeWidget::item {{ padding: 4px 2px; }}
QFrame#infoBar {{ background: {t.alt_base}; border-bottom: 1px solid {t.border}; }}
QFrame#popup {{ background: {t.base}; border: 1px solid {t.border}; border-radius: 8px; }}
"""
