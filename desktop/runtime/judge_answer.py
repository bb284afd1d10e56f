"""Which attempt a judge node's answer names (desktop/runtime/judge_node.py).

The judge is asked to end its answer with the line ``choice: N``. Judges argue before
they choose ("Attempt 1 has a bug; I choose attempt 2"), so the first number in an answer
is often not the one chosen. In order:

1. the last line ``choice: N`` (any case, ``**Choice:** 2`` and ``choice: attempt 2``
   too); one naming an attempt that cannot win names none;
2. else the last phrase that chooses: ``choose``/``chose``/``pick``/``select``/
   ``prefer``/``recommend``/``go with``/``winner is`` followed by ``attempt N`` (or
   ``#N``, ``N``), or ``attempt N`` followed by ``wins``/``is better``/``is best``/
   ``should go on``/``is the winner``, naming an attempt that can win;
3. else the first number that is an attempt that can win (an answer that starts with
   its number: ``2: its tests pass``).
"""

from __future__ import annotations

import re

CHOICE_WORD = "choice"
"""The word of the line that names the winner."""

_CHOICE_LINE = re.compile(
    r"^[\s>*_`#-]*choice[\s*_`]*[:=][\s*_`]*(?:attempt\s*)?#?(\d+)\b", re.I | re.M)
_ATTEMPT = r"(?:attempt\s*)?#?(\d+)\b"
_CHOOSES_BEFORE = re.compile(
    r"\b(?:choose|choosing|chose|chosen|pick|picking|picked|select|selecting|selected|"
    r"prefer|preferring|preferred|recommend|recommending|recommended|go(?:ing)?\s+with|"
    r"winner\s*(?:is|:))\s+(?:the\s+|is\s+)?" + _ATTEMPT, re.I)
_CHOOSES_AFTER = re.compile(
    r"\battempt\s*#?(\d+)\s+(?:wins|is\s+(?:better|best|the\s+(?:best|winner))|"
    r"should\s+go\s+on|goes\s+on)\b", re.I)
_NUMBER = re.compile(r"\b(\d+)\b")


def named_attempt(text: str, winners: list[int]) -> int | None:
    """The attempt ``text`` chooses among ``winners`` (the rules above); None for none."""
    lines = list(_CHOICE_LINE.finditer(text))
    if lines:
        chosen = int(lines[-1].group(1))
        return chosen if chosen in winners else None
    phrases = [m for pattern in (_CHOOSES_BEFORE, _CHOOSES_AFTER)
               for m in pattern.finditer(text) if int(m.group(1)) in winners]
    if phrases:
        return int(max(phrases, key=lambda m: m.start()).group(1))
    for match in _NUMBER.finditer(text):
        if int(match.group(1)) in winners:
            return int(match.group(1))
    return None


__all__ = ["CHOICE_WORD", "named_attempt"]
