"""Streaming deltas as live transcript rows: one per node and message, growing until its final.

A delta of a message with no live row starts one (the delta's own position is the row);
later deltas of the same message grow its text; the message's final ends it (the final
has the whole text and becomes the row instead). A delta of a new message while another
is live leaves the old row with the text it had.
"""

from __future__ import annotations

STREAM_OF = {"message.assistant.delta": "msg", "message.assistant.thinking.delta": "think"}
FINAL_OF = {"message.assistant.final": "msg", "message.assistant.thinking.final": "think"}
STREAM_CAP = 20000  # characters kept per live row; the final carries the whole text


class LiveStreams:
    """The live rows of the streams in progress, by (node id, "msg" | "think")."""

    def __init__(self) -> None:
        self._live: dict[tuple[str, str], list] = {}  # key -> [pos, text, messageId]
        self.text: dict[int, str] = {}  # position of a live row -> its text so far

    def delta(self, pos: int, event: dict, key: tuple[str, str]) -> tuple[bool, int | None]:
        """Take a delta at ``pos``: (True when it starts a live row, the row it grew)."""
        live = self._live.get(key)
        if live is not None and live[2] != event.get("messageId"):
            self._live.pop(key)
            live = None
        if live is None:
            text = str(event.get("text", ""))
            self._live[key] = [pos, text, event.get("messageId")]
            self.text[pos] = text
            return True, None
        if len(live[1]) >= STREAM_CAP:
            return False, None
        live[1] += str(event.get("text", ""))
        self.text[live[0]] = live[1]
        return False, live[0]

    def end(self, key: tuple[str, str]) -> int | None:
        """A final arrived: the position of the live row it ends (None when there is none)."""
        live = self._live.pop(key, None)
        if live is None:
            return None
        self.text.pop(live[0], None)
        return live[0]

    def node_of(self, pos: int) -> str:
        """The node whose live row is at ``pos`` ("" when none is)."""
        return next((k[0] for k, v in self._live.items() if v[0] == pos), "")
