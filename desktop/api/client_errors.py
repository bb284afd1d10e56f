"""The client's own error, :class:`ServiceUnavailable` (the service is gone); the service
saying no is :class:`desktop.api.api_error.ApiError`, the class it raised itself.

Kept apart from the client itself so that code which only catches them does not load
the HTTP library (the GUI's first window shows before it is needed).
"""

from __future__ import annotations

from desktop.api.api_error import ApiError


class ServiceUnavailable(ApiError):
    """The service could not be reached (not running, crashed, or the connection broke)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(0, "service_unavailable",
                         f"the Agent Canvas service at {url} is not reachable ({reason})")
        self.reason = reason
