"""The errors of the service's client: :class:`ApiError` (the service said no) and
:class:`ServiceUnavailable` (the service is gone).

Kept apart from the client itself so that code which only catches them does not load
the HTTP library (the GUI's first window shows before it is needed).
"""

from __future__ import annotations


class ApiError(Exception):
    """The service refused a request: HTTP ``status``, snake_case ``code``, ``message``."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.problems = problems or []
        """The items at fault, when the service listed them (e.g. colliding files)."""

    def __str__(self) -> str:
        where = f" ({self.field})" if self.field else ""
        return f"{self.message}{where}"


class ServiceUnavailable(ApiError):
    """The service could not be reached (not running, crashed, or the connection broke)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(0, "service_unavailable",
                         f"the Agent Canvas service at {url} is not reachable ({reason})")
        self.reason = reason
