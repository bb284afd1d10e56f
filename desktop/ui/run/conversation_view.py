"""The transcript as a conversation: markdown messages, code blocks, and each tool call as a
card that opens to its arguments and result.

Drawn as HTML in a QTextBrowser from :class:`desktop.views.conversation.Conversation`;
a burst of events redraws once. Agent text is markdown with raw HTML turned off, so what
an agent prints is shown, never interpreted.
"""

from __future__ import annotations

import html
import json
from functools import cache
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer, QUrl
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QTextBrowser, QVBoxLayout, QWidget

from desktop.ui.run.node_picker import node_combo, pin_button
from desktop.ui.theme import LIGHT, Theme
from desktop.views.conversation import Conversation, Entry

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

MAX_RESULT_CHARS = 20_000
MAX_SHOWN = 300
SYSTEM_CHARS = 1200
"""How much of a run's own line (a pause, a failure, a merge) is shown: a pause's reason
says how to go on (a merge undone: where to merge, which branch, then resume), which 300
characters cut off; longer ones are an error's dump, clipped."""
"""Most recent entries drawn at once (a long run's page would take the window's time)."""
STATUS_COLORS = {"completed": "ok", "approved": "ok", "running": "accent", "failed": "error",
                 "denied": "error", "withdrawn": "muted", "awaiting approval": "warning",
                 "proposed": "muted"}


@cache
def _markdown() -> MarkdownIt:
    """The renderer, made on first use: the first window shows before markdown-it loads."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def markdown_html(text: str) -> str:
    """Markdown to HTML (raw HTML in the text is escaped, not rendered)."""
    return _markdown().render(text)


def _short(value: Any, limit: int = 90) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pretty(value: Any) -> str:
    """Arguments or a result to read: one ``key: value`` line each, multi-line text (a
    file's content, a command's output) as itself rather than one escaped JSON line."""
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if isinstance(item, str):
                lines.append(f"{key}:\n{item}" if "\n" in item.strip() else f"{key}: {item}")
            else:
                lines.append(f"{key}: {json.dumps(item, indent=2, ensure_ascii=False)}")
        text = "\n".join(lines)
    else:
        text = value if isinstance(value, str) else json.dumps(value, indent=2,
                                                               ensure_ascii=False)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n… ({len(text) - MAX_RESULT_CHARS:,} more characters)"
    return html.escape(text)


def _tool_summary(entry: Entry) -> str:
    args = entry.args if isinstance(entry.args, dict) else {}
    for key in ("cmd", "command", "path", "file_path", "query", "url"):
        if key in args:
            return _short(args[key])
    return _short(args) if args else ""


class ConversationView(QWidget):
    """A node picker over a conversation that redraws as the run goes on."""

    def __init__(self, parent: QWidget | None = None, theme: Theme = LIGHT) -> None:
        super().__init__(parent)
        self.theme = theme
        self.conversation = Conversation()
        self.node: str | None = None
        self.upto: int | None = None  # replay: entries made up to this seq
        self.open: set[tuple[int, str]] = set()  # cards opened by the user: (seq, kind)
        self.node_combo = node_combo("conversationNode", 16)
        self.node_combo.currentIndexChanged.connect(self._pick_node)
        self.count = QLabel()
        self.count.setProperty("role", "muted")
        bar = QHBoxLayout()
        bar.addWidget(self.node_combo)
        self.pin = pin_button()
        bar.addWidget(self.pin)
        bar.addStretch(1)
        bar.addWidget(self.count)
        self.browser = QTextBrowser()
        self.browser.setObjectName("conversation")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(self.browser, 1)
        self._stick = True  # at the end: stay there as the document grows
        bar = self.browser.verticalScrollBar()
        bar.rangeChanged.connect(lambda _lo, hi: bar.setValue(hi) if self._stick else None)
        # only the reader's own scrolling (wheel, drag, keys) decides whether to follow
        bar.actionTriggered.connect(lambda _action: QTimer.singleShot(0, self._track_end))
        self._timer = QTimer(self, singleShot=True, interval=80)
        self._timer.timeout.connect(self.render)
        self.html = ""
        self._dirty = False
        self.render()

    # ---------------------------------------------------------------- feeding
    def reset(self, events: list[dict] | None = None) -> None:
        """Start over (a new run), with the events it has so far."""
        self.conversation = Conversation()
        self.open.clear()
        self.upto = None
        if events:
            self.conversation.extend(events)
        self._fill_nodes()
        self.render()

    def apply_events(self, events: list[dict]) -> None:
        if self.conversation.extend(events):
            self._fill_nodes()
            if self.isVisible():
                self._timer.start()
            else:  # a hidden tab is drawn when it is shown, not on every batch
                self._dirty = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self._timer.start()

    def set_limit(self, seq: int | None) -> None:
        """Replay: show what had been said up to ``seq`` (None: everything)."""
        if seq != self.upto:
            self.upto = seq
            self._timer.start()

    def follow_selection(self, node_id: str | None) -> None:
        """The canvas selected ``node_id`` (None: not one node): shown unless pinned."""
        if not self.pin.isChecked():
            self.set_node(node_id)

    def set_node(self, node_id: str | None) -> None:
        """Show one node's conversation (None: every node's)."""
        i = self.node_combo.findData(node_id)
        self.node_combo.setCurrentIndex(max(0, i))

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.render()

    def _fill_nodes(self) -> None:
        labels = self.conversation.labels
        known = [self.node_combo.itemData(i) for i in range(1, self.node_combo.count())]
        if known == list(labels):
            return
        current = self.node_combo.currentData()
        self.node_combo.blockSignals(True)
        self.node_combo.clear()
        self.node_combo.addItem("All nodes", None)
        for node_id, label in labels.items():
            self.node_combo.addItem(label, node_id)
        self.node_combo.setCurrentIndex(max(0, self.node_combo.findData(current)))
        self.node_combo.blockSignals(False)

    def _pick_node(self, _index: int) -> None:
        self.node = self.node_combo.currentData()
        self.render()

    def _clicked(self, url: QUrl) -> None:
        if url.scheme() != "card":
            return
        seq_text, _, kind = url.path().partition("/")
        key = (int(seq_text or 0), kind)
        self.open.symmetric_difference_update({key})
        self.render()

    # ---------------------------------------------------------------- drawing
    def entries(self) -> list[Entry]:
        return self.conversation.visible(self.node, self.upto)

    def render(self) -> None:
        """Redraw, keeping the view at the bottom when it was there."""
        self._dirty = False
        bar = self.browser.verticalScrollBar()
        keep = bar.value()
        entries = self.entries()
        hidden = max(0, len(entries) - MAX_SHOWN)
        entries = entries[hidden:]  # the page is rebuilt whole: keep its cost bounded
        t = self.theme
        css = (f"body {{ color: {t.text}; }} "
               f"pre {{ background: {t.alt_base}; font-family: monospace; "
               "white-space: pre-wrap; }} "
               f"code {{ background: {t.alt_base}; font-family: monospace; }} "
               f"a {{ color: {t.text}; text-decoration: none; }} "
               f".muted {{ color: {t.muted}; }}")
        parts = [f"<html><head><style>{css}</style></head><body>"]
        if not entries:
            parts.append(f"<p class='muted'>{self._empty_text()}</p>")
        if hidden:
            parts.append(f"<p class='muted' align='center'>{hidden:,} earlier entries are not "
                         "shown here; pick a node above, or read them in Transcript</p>")
        last_node = object()
        for entry in entries:
            parts.append(self._entry_html(entry, show_who=entry.node != last_node))
            last_node = entry.node
        parts.append("</body></html>")
        self.html = "".join(parts)
        self.browser.setHtml(self.html)
        self.count.setText(f"{len(entries)} of {len(self.conversation.entries)}"
                           if self.node else "")
        if self._stick:
            bar.setValue(bar.maximum())
        else:  # the document is laid out lazily: go back where the reader was after that
            bar.setValue(keep)
            QTimer.singleShot(0, lambda: bar.setValue(keep))

    def _track_end(self) -> None:
        bar = self.browser.verticalScrollBar()
        self._stick = bar.value() >= bar.maximum() - 4

    def _empty_text(self) -> str:
        if not self.conversation.entries:
            return "Nothing said yet. Start a run, or open one from Run history."
        return "This node has said nothing yet."

    def _who(self, entry: Entry) -> str:
        t = self.theme
        when = entry.ts[11:19]
        name = html.escape(self.conversation.label(entry.node))
        return (f"<p style='margin:10px 0 2px 0'><b>{name}</b> "
                f"<span style='color:{t.muted}'>{when}</span></p>")

    def _bubble(self, body: str, background: str, border: str, width: str = "100%") -> str:
        return (f"<table width='{width}' cellpadding='8' cellspacing='0' "
                f"style='background:{background}; border:1px solid {border}; "
                f"margin: 2px 0 6px 0'><tr><td>{body}</td></tr></table>")

    def _entry_html(self, entry: Entry, show_who: bool) -> str:
        t = self.theme
        who = self._who(entry) if show_who and entry.kind != "system" else ""
        if entry.kind == "system":
            color = t.error if any(word in entry.title for word in
                                   ("failed", "stalled", "blocked")) else t.muted
            why = f" — {html.escape(_short(entry.text, SYSTEM_CHARS))}" if entry.text else ""
            return (f"<p align='center' style='color:{color}; margin:8px 0'>"
                    f"<b>{html.escape(entry.title)}</b>{why}</p>")
        if entry.kind == "incoming":
            title = f"<p style='color:{t.muted}; margin:0 0 4px 0'><b>{html.escape(entry.title)}" \
                    "</b></p>"
            return who + self._bubble(title + markdown_html(entry.text), t.alt_base, t.border)
        if entry.kind == "user":
            return who + self._bubble(markdown_html(entry.text), t.base, t.accent)
        if entry.kind == "assistant":
            body = markdown_html(entry.text or "…")
            if entry.live:
                body += f"<p style='color:{t.muted}'>writing…</p>"
            return who + self._bubble(body, t.base, t.border)
        if entry.kind == "thinking":
            opened = (entry.seq, "thinking") in self.open
            arrow = "▾" if opened else "▸"
            head = (f"<a href='card:{entry.seq}/thinking'><span style='color:{t.muted}'>"
                    f"{arrow} <i>Thinking</i></span></a>")
            if not opened:
                head += f" <span style='color:{t.muted}'>{html.escape(_short(entry.text, 80))}" \
                        "</span>"
                return who + f"<p style='margin:2px 0'>{head}</p>"
            text = html.escape(entry.text).replace("\n", "<br>")
            return who + self._bubble(f"{head}<p style='color:{t.muted}'><i>{text}</i></p>",
                                      t.window, t.border)
        return who + self._tool_html(entry)

    def _tool_html(self, entry: Entry) -> str:
        t = self.theme
        opened = (entry.seq, "tool") in self.open
        arrow = "▾" if opened else "▸"
        color = getattr(t, STATUS_COLORS.get(entry.status, "muted"))
        latency = entry.extra.get("latency")
        took = f" · {latency:.2f}s" if isinstance(latency, float) else ""
        summary = _tool_summary(entry)
        head = (f"<a href='card:{entry.seq}/tool'>{arrow} ⚙ <b>{html.escape(entry.title)}</b>"
                f"</a> <code>{html.escape(summary)}</code> "
                f"<span style='color:{color}'>· {html.escape(entry.status)}{took}</span>")
        lines = [head]
        if entry.modified_by:  # the args shown are a person's, not the agent's
            lines.append(f"<p style='color:{t.warning}; margin:4px 0 0 0'>Arguments "
                         f"modified by {html.escape(entry.modified_by)}</p>")
        if entry.reason:
            lines.append(f"<p style='color:{t.error}; margin:4px 0 0 0'>Reason: "
                         f"{html.escape(entry.reason)}</p>")
        if opened:
            lines.append(f"<p class='muted' style='margin:6px 0 2px 0'>Arguments</p>"
                         f"<pre>{_pretty(entry.args or {})}</pre>")
            if entry.proposed_args is not None:
                lines.append(f"<p class='muted' style='margin:6px 0 2px 0'>Proposed by the "
                             f"agent</p><pre>{_pretty(entry.proposed_args)}</pre>")
            if entry.result is not None:
                lines.append(f"<p class='muted' style='margin:6px 0 2px 0'>Result</p>"
                             f"<pre>{_pretty(entry.result)}</pre>")
        elif entry.result is not None:
            output = entry.result.get("output") if isinstance(entry.result, dict) else None
            preview = _short(output if isinstance(output, str) else entry.result, 110)
            lines.append(f"<p style='color:{t.muted}; margin:4px 0 0 0'>→ "
                         f"{html.escape(preview)}</p>")
        border = t.error if entry.status in ("denied", "failed") else t.border
        return self._bubble("".join(lines), t.alt_base, border)
