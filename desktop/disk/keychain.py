"""Provider API keys in the operating system's keyring (the ``keyring`` package).

The app never writes a key to a file of its own: the settings dialog hands it to the
keyring, and the engine reads it back when an agent starts, to pass it by name in that
agent's environment as if it had been exported (``ANTHROPIC_API_KEY``, ...). A key set
in the engine's environment wins over the keyring. Values never leave this module except
into an agent's environment and the redactor's list of secrets.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType

SERVICE = "agent-canvas"
"""The keyring's service name for every key of the app."""

# Which variable each provider's agent reads (specs/agent-protocol-governance.md). Kept
# here, below the runtime, so the engine and the settings dialog share one list.
API_KEY_BY_PROVIDER = {
    "codex": "OPENAI_API_KEY",
    "claude": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "perplexity": "PERPLEXITY_API_KEY",
    "xai": "XAI_API_KEY",
}
MAX_KEY_LEN = 4096


class KeychainError(Exception):
    """The keyring refused or is missing; the message says what to do."""


@dataclass(frozen=True)
class KeyStatus:
    """Where an agent's key would come from; never the value."""

    name: str
    providers: tuple[str, ...]
    in_keyring: bool
    in_environment: bool


_detecting: threading.Thread | None = None
_detecting_guard = threading.Lock()


def detect_soon() -> None:
    """Find the keyring in use on a thread of its own, from now: the ``keyring`` package
    takes about a tenth of a second to import and to try each of its backends (one
    starts ``ldconfig``), which a command that reads the keys later need not wait for."""
    global _detecting
    with _detecting_guard:
        if _detecting is None:
            _detecting = threading.Thread(target=_detect, name="keyring-detect")
            _detecting.start()


def _detect() -> None:
    import keyring

    keyring.get_keyring()


def _keyring() -> ModuleType:
    """The ``keyring`` module, its backend found (waiting for :func:`detect_soon`'s
    thread, so the backend is never looked for twice at once)."""
    with _detecting_guard:
        detecting = _detecting
    if detecting is not None:
        detecting.join()
    import keyring

    return keyring


def key_names() -> list[str]:
    """The variable names the app keeps keys for, in a stable order."""
    return sorted(set(API_KEY_BY_PROVIDER.values()))


def providers_of(name: str) -> tuple[str, ...]:
    return tuple(p for p, n in API_KEY_BY_PROVIDER.items() if n == name)


def backend_name() -> str:
    """A readable name of the keyring in use."""
    backend = _keyring().get_keyring()
    return getattr(backend, "name", type(backend).__name__)


def available() -> bool:
    """Whether a real keyring can hold keys (not keyring's "fail" or "null" stand-ins)."""
    module = type(_keyring().get_keyring()).__module__
    return not module.startswith(("keyring.backends.fail", "keyring.backends.null"))


def _check_name(name: str) -> None:
    if name not in key_names():
        raise KeychainError(f"{name} is not a provider key the app keeps "
                            f"(known: {', '.join(key_names())})")


def set_key(name: str, value: str) -> None:
    """Store ``value`` for ``name`` in the keyring (surrounding spaces dropped)."""
    _check_name(name)
    value = value.strip()
    if not value:
        raise KeychainError(f"{name}: the key is empty; paste the whole key")
    if len(value) > MAX_KEY_LEN or any(ch in value for ch in "\r\n\0"):
        raise KeychainError(f"{name}: a key is one line of at most {MAX_KEY_LEN} characters; "
                            "paste only the key")
    keyring = _keyring()
    try:
        keyring.set_password(SERVICE, name, value)
    except keyring.errors.KeyringError as exc:
        raise KeychainError(f"the keyring ({backend_name()}) did not store {name}: {exc}. "
                            "Unlock or install a keyring, or export the variable "
                            "before starting the app") from None


def delete_key(name: str) -> bool:
    """Remove ``name`` from the keyring; False when it held none."""
    _check_name(name)
    keyring = _keyring()
    try:
        keyring.delete_password(SERVICE, name)
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as exc:
        raise KeychainError(f"the keyring ({backend_name()}) did not remove {name}: "
                            f"{exc}") from None
    return True


def _get(name: str) -> str | None:
    keyring = _keyring()
    try:
        value = keyring.get_password(SERVICE, name)
    # no keyring, a locked one, a dbus without one
    except (keyring.errors.KeyringError, RuntimeError):
        return None
    return value or None


def statuses(environ: Mapping[str, str] | None = None) -> list[KeyStatus]:
    """For each key name: whether the keyring and the environment hold one."""
    environ = os.environ if environ is None else environ
    return [KeyStatus(name, providers_of(name), _get(name) is not None,
                      bool(environ.get(name))) for name in key_names()]


def keyring_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The keys the keyring holds for names ``environ`` does not set: what an agent gets
    by name on top of the engine's environment."""
    environ = os.environ if environ is None else environ
    out = {}
    for name in key_names():
        if environ.get(name):
            continue
        value = _get(name)
        if value:
            out[name] = value
    return out


# --- the token of another machine's service ------------------------------------------------

SERVICE_TOKEN = "service-token"
"""The keyring entry of the token of the service the GUI attaches to on another machine."""
SERVICE_TOKEN_ENV = "AGENT_CANVAS_SERVICE_TOKEN"
"""Where that token comes from when no keyring is available (exported before the app)."""


def set_service_token(value: str) -> None:
    """Keep the remote service's token in the keyring (never in a file)."""
    value = value.strip()
    if not value or len(value) > MAX_KEY_LEN or any(ch in value for ch in "\r\n\0 "):
        raise KeychainError("the service token is one word of at most "
                            f"{MAX_KEY_LEN} characters; paste only the token")
    keyring = _keyring()
    try:
        keyring.set_password(SERVICE, SERVICE_TOKEN, value)
    except keyring.errors.KeyringError as exc:
        raise KeychainError(f"the keyring ({backend_name()}) did not store the service "
                            f"token: {exc}. Unlock or install a keyring, or export "
                            f"{SERVICE_TOKEN_ENV} before starting the app") from None


def service_token(environ: Mapping[str, str] | None = None) -> str | None:
    """The remote service's token: the exported variable first, else the keyring's."""
    environ = os.environ if environ is None else environ
    return environ.get(SERVICE_TOKEN_ENV) or _get(SERVICE_TOKEN)


def service_token_source(environ: Mapping[str, str] | None = None) -> str | None:
    """Where :func:`service_token` finds it ("environment", "keyring"), never the value."""
    environ = os.environ if environ is None else environ
    if environ.get(SERVICE_TOKEN_ENV):
        return "environment"
    return "keyring" if _get(SERVICE_TOKEN) is not None else None
