"""The service of another machine, reached through an SSH port forward: its URL (kept in
the GUI's settings) and its token (kept in the keychain, or exported as
``AGENT_CANVAS_SERVICE_TOKEN`` where no keyring exists; never in a file).

The service listens on the remote machine's loopback only and checks that the Host
header names the port the connection arrived on, so the forward keeps the port:
``ssh -N -L 8765:127.0.0.1:8765 remote`` for a service started with ``--port 8765``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from desktop.api.discovery import ServerInfo
from desktop.disk import keychain


class RemoteServiceError(ValueError):
    """The settings name another machine's service the GUI cannot use; says what to fix."""


def check_url(url: str) -> str:
    """``url`` without a trailing slash, or :class:`RemoteServiceError` naming the fix."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RemoteServiceError(
            f"service URL {url!r}: give the forwarded address, for example "
            "http://127.0.0.1:8765")
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None or parts.path or parts.query:
        raise RemoteServiceError(
            f"service URL {url!r}: give the scheme, host and port only, for example "
            "http://127.0.0.1:8765")
    return url


def remote_service(url: str | None) -> ServerInfo | None:
    """The service at ``url`` with the stored token; None for "this machine" (no URL).

    Raises :class:`RemoteServiceError` when the URL is malformed or no token is stored.
    """
    if not url:
        return None
    url = check_url(url)
    token = keychain.service_token()
    if not token:
        raise RemoteServiceError(
            f"no token for the service at {url}: enter it in Settings > Service (it is kept "
            f"in the keyring), or export {keychain.SERVICE_TOKEN_ENV}")
    return ServerInfo(url, token, pid=0)


def save_token(token: str) -> None:
    """Keep the remote service's token in the keyring (KeychainError says what to do)."""
    keychain.set_service_token(token)


def token_source() -> str | None:
    """Where the token comes from ("environment", "keyring"), or None; never the value."""
    return keychain.service_token_source()


def keyring_usable() -> tuple[bool, str]:
    """Whether a keyring can hold the token, and its name."""
    return keychain.available(), keychain.backend_name()


TokenError = keychain.KeychainError
"""A keyring that refused the token; the message says what to do."""
TOKEN_ENV = keychain.SERVICE_TOKEN_ENV
