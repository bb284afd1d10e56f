"""Removing secret values (API keys, tokens) from agent output before it is kept."""

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

SECRET_NAME = re.compile(r"(_API_KEY|_TOKEN|_SECRET|_PASSWORD)$|^(API_KEY|TOKEN|SECRET)$", re.I)
MIN_SECRET_LEN = 6  # shorter values would redact ordinary words


def is_secret_name(name: str) -> bool:
    """Whether an environment variable of this name holds a secret."""
    return bool(SECRET_NAME.search(name))


def secret_values(*environs: Mapping[str, str]) -> list[str]:
    """Values of secret-named variables in the given environments, longest first."""
    found = {
        value
        for env in environs
        for name, value in env.items()
        if is_secret_name(name) and len(value) >= MIN_SECRET_LEN
    }
    return sorted(found, key=len, reverse=True)


class Redactor:
    """Replaces each secret value with ``[REDACTED]`` in text, bytes and event dicts."""

    MARK = "[REDACTED]"

    def __init__(self, secrets: Iterable[str] = ()):
        self.secrets = [s for s in dict.fromkeys(secrets) if s]
        self._bytes = [(s.encode("utf-8"), self.MARK.encode()) for s in self.secrets]

    @classmethod
    def from_env(cls, *extra: Mapping[str, str]) -> "Redactor":
        """A redactor for the secrets of this process's environment and ``extra``."""
        return cls(secret_values(os.environ, *extra))

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def text(self, value: str) -> str:
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, self.MARK)
        return value

    def data(self, value: bytes) -> bytes:
        for secret, mark in self._bytes:
            if secret in value:
                value = value.replace(secret, mark)
        return value

    def event(self, value: Any) -> Any:
        """A copy of a JSON-like value with every string redacted."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.event(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.event(v) for v in value]
        return value
