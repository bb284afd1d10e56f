"""Read events appended to a log since the last call (a run in another process)."""

from __future__ import annotations

from pathlib import Path

import orjson


class LogTail:
    """Remembers a byte offset and returns the complete lines appended after it."""

    def __init__(self, path: Path, after: int = 0) -> None:
        self.path = Path(path)
        self.after = after
        self._offset = 0

    def read_new(self) -> list[dict]:
        """New events with seq above the last one returned."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                data = fh.read()
        except FileNotFoundError:
            return []
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            return []
        self._offset += cut
        out = []
        for line in data[:cut].split(b"\n")[:-1]:
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            seq = event.get("seq") if isinstance(event, dict) else None
            if isinstance(seq, int) and seq > self.after:
                self.after = seq
                out.append(event)
        return out
