"""A malformed request costs the service's log one short line, a few times a minute at most.

aiohttp logs every request its HTTP parser refuses (a duplicated Host, a NUL in a
header, a line that is not HTTP) at ERROR with the parser's traceback, so anyone who
can reach the port, token or not, could grow the log by a kilobyte a request. This
filter, on the ``aiohttp.server`` logger, turns such a record into one WARNING line
holding a short, escaped excerpt of the parser's reason, lets ``limit`` of them through
per ``window`` seconds and counts the rest, saying how many it left out on the next
line it lets through. Every other record passes as it is.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from aiohttp.http_exceptions import HttpProcessingError

LOGGER = "aiohttp.server"
_EXCERPT = 100


def short_reason(exc: BaseException) -> str:
    """The parser's reason for refusing a request: its first two lines, escaped to
    printable ASCII, at most about 100 characters."""
    text = getattr(exc, "message", None) or str(exc)
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    short = " ".join(lines[:2])
    escaped = short.encode("unicode_escape").decode("ascii")  # control bytes too
    return escaped[:_EXCERPT] + ("..." if len(escaped) > _EXCERPT else "")


class MalformedRequests(logging.Filter):
    """The filter described in the module docstring."""

    def __init__(self, limit: int = 10, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.limit = limit
        self.window = window
        self.clock = clock
        self._start = clock()
        self._count = 0
        self.dropped = 0
        """Malformed requests left out of the log since the last line about one."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, HttpProcessingError):
            return True
        now = self.clock()
        if now - self._start >= self.window:
            self._start, self._count = now, 0
        if self._count >= self.limit:
            self.dropped += 1
            return False
        self._count += 1
        more = f" ({self.dropped} more not logged)" if self.dropped else ""
        self.dropped = 0
        record.msg = "refused a malformed request: %s%s"
        record.args = (short_reason(exc), more)
        record.exc_info = None
        record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def install(limit: int = 10, window: float = 60.0) -> Callable[[], None]:
    """Put the filter on aiohttp's server logger; returns the function that takes it off."""
    guard = MalformedRequests(limit, window)
    logger = logging.getLogger(LOGGER)
    logger.addFilter(guard)
    return lambda: logger.removeFilter(guard)
