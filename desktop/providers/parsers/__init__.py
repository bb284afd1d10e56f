"""Parsers of the agent CLIs' JSON-lines streams into partial contract events."""

from desktop.providers.parsers.claude import ClaudeParser
from desktop.providers.parsers.codex import CodexParser
from desktop.providers.parsers.common import StreamParser, classify_error
from desktop.providers.parsers.gemini import GeminiParser

PARSERS: dict[str, type[StreamParser]] = {
    "claude": ClaudeParser, "codex": CodexParser, "gemini": GeminiParser,
}


def parser_for(provider: str, **kwargs: object) -> StreamParser:
    """A fresh parser for ``provider``'s stream; ValueError naming the known ones."""
    try:
        cls = PARSERS[provider]
    except KeyError:
        raise ValueError(f"no stream parser for {provider!r} "
                         f"(known: {', '.join(sorted(PARSERS))})") from None
    return cls(provider=provider, **kwargs)  # type: ignore[arg-type]


__all__ = ["PARSERS", "ClaudeParser", "CodexParser", "GeminiParser", "StreamParser",
           "classify_error", "parser_for"]
