""":class:`ApiError`, the service refusing a request, on both sides of the wire.

The service's handlers raise it and its middleware answers with the JSON error shape
``{"error": {code, message, field?, problems?}}`` (desktop/api/errors.py); the client
raises the same class when it reads that answer (desktop/api/client.py). It imports
nothing, so the GUI can catch it without loading the HTTP library.
"""

from __future__ import annotations


class ApiError(Exception):
    """The service refused a request: HTTP ``status``, snake_case ``code``, a ``message``
    for people, the ``field`` at fault when there is one."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.problems = problems or []
        """The items at fault, when the service lists them (e.g. colliding files)."""

    def __str__(self) -> str:
        where = f" ({self.field})" if self.field else ""
        return f"{self.message}{where}"
