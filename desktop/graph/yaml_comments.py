"""Where a YAML text has comments.

A workflow is written from its fields (desktop/graph/io.py), and comments are not among
them, so a command that rewrites a user's file asks here first whether it would drop any.
"""

from __future__ import annotations

import yaml

_BLANK = " \t\r\n"


def _scalar_spans(text: str) -> list[tuple[int, int]]:
    """The character spans of every scalar in ``text`` (keys, values, block texts): a
    ``#`` inside one is text, not a comment. Scanning tokenizes only; nothing is built."""
    return [(token.start_mark.index, token.end_mark.index)
            for token in yaml.scan(text, Loader=yaml.SafeLoader)
            if isinstance(token, yaml.ScalarToken)]


def first_comment_line(text: str) -> int | None:
    """The line (1-based) of the first comment in the YAML ``text``, or None when it has
    none (or cannot be scanned: then it is not YAML a command would rewrite)."""
    try:
        spans = _scalar_spans(text)
    except yaml.YAMLError:
        return None
    start = 0
    for begin, end in [*spans, (len(text), len(text))]:
        gap = text[start:begin]
        for i, char in enumerate(gap):
            # YAML: a comment starts with a # at a line's start or after white space
            if char == "#" and (start + i == 0 or text[start + i - 1] in _BLANK):
                return text.count("\n", 0, start + i) + 1
        start = max(start, end)
    return None


__all__ = ["first_comment_line"]
