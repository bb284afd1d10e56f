"""Counted nouns for every message of the app and the CLI: "1 node", "2 nodes", "0 errors".

Qt-free and dependency-free, so every layer can use it.
"""

from __future__ import annotations

_IRREGULAR = {"entry": "entries", "match": "matches", "this": "these", "is": "are",
              "was": "were", "it": "they", "differs": "differ"}


def plural_of(noun: str) -> str:
    """The plural of an English noun of this app's vocabulary."""
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"


def plural(count: int, noun: str, many: str | None = None, *, sep: str = ",") -> str:
    """``count`` and ``noun`` in the right number: ``plural(1, "node") == "1 node"``,
    ``plural(1200, "event") == "1,200 events"`` (``sep=""`` for no thousands separator)."""
    word = noun if count == 1 else (many or plural_of(noun))
    number = f"{count:,}" if sep == "," else str(count)
    return f"{number} {word}"
