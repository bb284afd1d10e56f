"""``choose [ID] N``: which attempt of a best-of-N turn goes on, decided in the terminal.

``N`` is the attempt's index as the ``choice`` approval lists it (1 is the first);
``ID`` a unique prefix of the approval's id, left out for the oldest pending choice.
"""

from __future__ import annotations

from dataclasses import dataclass

USAGE = "usage: choose [ID] N (N: the attempt that goes on, 1 is the first)"


@dataclass(frozen=True)
class ChooseWords:
    """The words of a ``choose`` line after the command."""

    words: tuple[str, ...]


def parse_choose(words: list[str]) -> ChooseWords:
    """The ``choose`` line's words, checked for shape; ValueError with the usage if not."""
    if not 1 <= len(words) <= 2 or not words[-1].isdigit() or int(words[-1]) < 1:
        raise ValueError(USAGE)
    return ChooseWords(tuple(words))


def pick(choose: ChooseWords, pending: list[str]) -> tuple[str | None, int]:
    """(the pending choice approval the line names, or None when none is pending; the
    attempt index). LookupError when an id prefix names no pending choice."""
    index = int(choose.words[-1])
    if len(choose.words) == 1:
        return (pending[0] if pending else None), index
    hits = [approval for approval in pending if approval.startswith(choose.words[0])]
    if len(hits) != 1:
        raise LookupError(f"no single pending choice approval matches {choose.words[0]!r}")
    return hits[0], index


__all__ = ["USAGE", "ChooseWords", "parse_choose", "pick"]
